//! The phone's driver: the race ([`RaceDriver`], dials over QUIC and the
//! WebSocket), then an end-to-end session ([`ftw_cloud::phone::PhoneSession`])
//! over the winning link. Every received message is judged by the carrier
//! (`CloudCarrier`: deliver, drop, end the session) and what is delivered is
//! shown through `CloudView`. The race model hears of the first message and of
//! the session's end (with the `SessionEnd` its close code means). App life
//! (background, foreground, relaunch, clock jumps) comes from the scenario as
//! calls on [`PhoneApp`].
//!
//! Trace kinds: `phone.session` (open, close with code), `phone.view` (a live
//! applied, a gap), `phone.carrier` (a replay dropped, the session ended by a
//! replay or a broken message), `phone.cmd` (ack, result).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddrV4;
use std::rc::Rc;
use std::time::Duration;

use ciborium::Value;
use ftw_box::uplink::LinkOp;
use ftw_cloud::phone::{Arrival as CArrival, Opened as COpened, PhoneConfig, PhoneEvent, PhoneSession};
use ftw_phone::app::{AppLife, LifeAsk};
use ftw_phone::network::NetworkDesc;
use ftw_phone::race::CloudSockets;
use ftw_phone::view::Live as ViewLive;
use ftw_phone::{Arrival, CloudCarrier, CloudView, Opened, SessionEnd, Switches as PhoneSwitches, Transport, Verdict};
use ftw_wire::Msg;

use crate::drive::app::race::{Dialer, RaceDriver};
use crate::drive::link::{close, dial_quic_with, dial_ws, DialError, EarlyData, Link, LinkEvent};
use crate::drive::quic::QuicEndpoint;
use crate::drive::ws::WsClient;
use crate::world::journal::carrier::CarrierStep;
use crate::world::journal::life::{LifeEvent, LifeStep};
use crate::world::journal::replay::{Layer, ReplayStep, Said};
use crate::world::journal::view::{LiveIn, ShownValue, Shows, ViewStep};
use crate::world::journal::wire::WireStep;
use crate::world::journal::{self, Step};
use crate::world::seed::RunSeed;
use crate::world::time;
use crate::world::trace;

fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

/// A dialer for the race: QUIC from `quic` (when given) and the WebSocket from
/// `ws` (when given), both to the cloud's door `door`; its QUIC dials send the
/// target as `early` says (the phone never uses 0-RTT, SPEC section 3; switch
/// `phone-uses-0rtt` plants it).
pub fn dialer_with(quic: Option<(QuicEndpoint, quinn_proto::ClientConfig)>, ws: Option<Rc<WsClient>>, door: SocketAddrV4, early: EarlyData) -> Dialer {
    Rc::new(move |t: Transport| {
        let quic = quic.clone();
        let ws = ws.clone();
        Box::pin(async move {
            let target = PhoneSession::target();
            match t {
                Transport::Quic => match quic {
                    Some((ep, cfg)) => dial_quic_with(&ep, cfg, std::net::SocketAddr::V4(door), ftw_crypto::consts::CLOUD_SERVER_NAME, target, early).await,
                    None => Err(DialError::Other("no QUIC on this phone".into())),
                },
                Transport::WebSocket => match ws {
                    Some(c) => dial_ws(&c, door, ftw_crypto::consts::CLOUD_SERVER_NAME, target).await,
                    None => Err(DialError::Other("no WebSocket on this phone".into())),
                },
            }
        })
    })
}

/// One session as the phone saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub no: u64,
    pub transport: Transport,
    pub network: String,
    /// When the race started, and which transport the memory sent first.
    pub race_start_ms: u64,
    pub first: Transport,
    pub link_at_ms: u64,
    pub open_at_ms: Option<u64>,
    pub first_message_ms: Option<u64>,
    pub ended_at_ms: Option<u64>,
    /// How it ended.
    pub end: Option<End>,
}

/// How a session in the phone's log ended: a type, shown (in the trace) as
/// `code N`, `replay`, `broken` or `local (why)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// A close with this code (the QUIC application error code or the WebSocket's).
    Code(u16),
    /// The carrier ended it for a replay on a stream.
    Replay,
    /// The carrier ended it for a message that did not open.
    Broken,
    /// The app closed it, and why.
    Local(String),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Code(c) => write!(f, "code {c}"),
            End::Replay => f.write_str("replay"),
            End::Broken => f.write_str("broken"),
            End::Local(why) => write!(f, "local ({why})"),
        }
    }
}

/// A command's replies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CmdRecord {
    pub id: u32,
    pub cmd_id: String,
    pub sent_ms: u64,
    pub ack: Option<(u64, bool)>,
    pub result: Option<(u64, bool)>,
}

/// Everything the phone saw, for the checks.
#[derive(Clone, Debug, Default)]
pub struct PhoneLog {
    pub sessions: Vec<SessionRecord>,
    /// Sessions open at once, at most (never-two-sessions).
    pub concurrent_max: u32,
    concurrent: u32,
    /// Every live delivered: (liveSeq, values).
    pub lives: Vec<(u64, BTreeMap<String, i64>)>,
    /// Every value the view showed: (field, value, liveSeq it came with).
    pub shown: Vec<(String, f64, u64)>,
    /// hb that announced a live the view did not have: how many showed a gap.
    pub gaps_seen: u64,
    /// Breaches of "a lost live shows as a gap, never a value".
    pub gap_breaches: Vec<String>,
    pub cmds: Vec<CmdRecord>,
    pub replays_dropped: u64,
    pub ended_by_carrier: u64,
    /// Every replay the carrier saw (dropped or ending the session).
    pub replays_seen: u64,
    /// Replays that came on a stream and were only dropped (the law: never).
    pub stream_replays_dropped: u64,
    /// Sessions ended by a replay that came as a datagram (the law: never).
    pub ended_by_datagram_replay: u64,
    /// Late lives (liveSeq not above the newest applied) that carried a newer table.
    pub late_tables: u64,
    /// Breaches of Freshness case 17 and of "the view never goes back": a late
    /// live's newer table not kept, a newer value replaced by an older one, the
    /// table's srcRev going down.
    pub freshness_breaches: Vec<String>,
    /// Times of delivered messages (for `streams-after-heal`).
    pub delivered_ms: Vec<u64>,
    /// When the app went to the background and came back (`None`: still hidden).
    pub hidden_ms: Vec<(u64, Option<u64>)>,
    /// Times a race started, and with which network and first transport.
    pub races: u64,
    pub races_failed: u64,
}

struct Cur {
    /// The session's number (`SessionRecord::no`).
    no: u64,
    link: Link,
    transport: Transport,
    ps: PhoneSession,
    carrier: CloudCarrier,
    record: usize,
    first_seen: bool,
}

/// The phone app on one host.
pub struct PhoneApp {
    host: String,
    seed: RunSeed,
    cfg: PhoneConfig,
    sw: PhoneSwitches,
    dial: Dialer,
    race: RaceDriver,
    view: CloudView,
    life: AppLife,
    cur: Option<Cur>,
    session_no: u64,
    delivered_seqs: BTreeSet<u64>,
    pub log: Rc<RefCell<PhoneLog>>,
}

impl PhoneApp {
    /// Start the app with an empty memory.
    pub fn start(host: &str, seed: RunSeed, cfg: PhoneConfig, sw: PhoneSwitches, dial: Dialer) -> Self {
        let race = RaceDriver::start(host, CloudSockets::racing(sw), dial.clone());
        PhoneApp {
            host: host.to_string(),
            seed,
            cfg,
            sw,
            dial,
            race,
            view: CloudView::new(sw),
            life: AppLife::new(),
            cur: None,
            session_no: 0,
            delivered_seqs: BTreeSet::new(),
            log: Rc::new(RefCell::new(PhoneLog::default())),
        }
    }

    pub fn race(&self) -> &RaceDriver {
        &self.race
    }
    /// The session's transport, if a session is up.
    pub fn transport(&self) -> Option<Transport> {
        self.cur.as_ref().map(|c| c.transport)
    }
    /// Whether the end-to-end session is open (past the box's message 2).
    pub fn session_open(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.ps.state() == ftw_cloud::phone::PhoneState::Open)
    }

    /// Race for a link on the network the phone is `on` and start a session on it.
    /// False when the race failed.
    pub async fn connect(&mut self, on: NetworkDesc) -> bool {
        self.end_local("new race");
        self.log.borrow_mut().races += 1;
        let network = on.id();
        let net = network.to_string();
        let race_start_ms = now_ms();
        let first = self.race.with_model(|m| m.memory().first(&network, race_start_ms).0);
        let Some((t, link)) = self.race.connect(on).await else {
            self.log.borrow_mut().races_failed += 1;
            trace::record(&self.host, "phone.session", "race failed");
            return false;
        };
        self.session_no += 1;
        let no = self.session_no;
        let mut ps = PhoneSession::new(self.cfg.clone(), self.seed.key(&format!("model.phone.session.{no}")));
        ps.keep_judged();
        if journal::is_on() {
            ps.keep_sealed();
        }
        ps.start(now_ms());
        let record = {
            let mut log = self.log.borrow_mut();
            log.concurrent += 1;
            log.concurrent_max = log.concurrent_max.max(log.concurrent);
            log.sessions.push(SessionRecord {
                no,
                transport: t,
                network: net.clone(),
                race_start_ms,
                first,
                link_at_ms: now_ms(),
                open_at_ms: None,
                first_message_ms: None,
                ended_at_ms: None,
                end: None,
            });
            log.sessions.len() - 1
        };
        trace::record(&self.host, "phone.session", format!("link #{no} over {} on {net}", t.name()));
        let carrier = CloudCarrier::new(t, self.sw);
        journal::record(&self.host, Step::Carrier(CarrierStep::Shown { session: no, transport: t, line: carrier.settings_line() }));
        self.cur = Some(Cur { no, link, transport: t, ps, carrier, record, first_seen: false });
        self.flush();
        true
    }

    fn flush(&mut self) {
        let Some(c) = self.cur.as_mut() else { return };
        let host = &self.host;
        for f in c.ps.take_sealed() {
            journal::record(host, Step::Wire(crate::drive::app::r#box::sealed_step(f)));
        }
        carry_out(&mut c.ps, &mut c.link, |e| trace::record(host, "phone.send_failed", e));
    }

    fn finish(&mut self, end: End) {
        if let Some(c) = self.cur.take() {
            let mut log = self.log.borrow_mut();
            log.concurrent -= 1;
            let r = &mut log.sessions[c.record];
            r.ended_at_ms = Some(now_ms());
            trace::record(&self.host, "phone.session", format!("close #{} {end}", r.no));
            let by_carrier = matches!(end, End::Replay | End::Broken);
            journal::record(&self.host, Step::Carrier(CarrierStep::Ended { session: c.no, by_carrier }));
            r.end = Some(end);
        }
    }

    /// The app ends the session itself (never demotes).
    fn end_local(&mut self, why: &str) {
        if let Some(c) = self.cur.as_mut() {
            c.ps.close(now_ms());
        }
        if self.cur.is_some() {
            self.flush();
            self.race.session_ended(SessionEnd::LocalClose);
            self.finish(End::Local(why.to_string()));
        }
    }

    /// Close the session (the app's choice).
    pub fn close(&mut self) {
        self.end_local("app");
    }

    /// Send a command; its envelope id.
    pub fn send_cmd(&mut self, op: &str) -> Option<u32> {
        let c = self.cur.as_mut()?;
        let (id, cmd_id) = c.ps.send_cmd(now_ms(), op, Value::Map(vec![]), u64::MAX)?;
        self.log.borrow_mut().cmds.push(CmdRecord { id, cmd_id: cmd_id.clone(), sent_ms: now_ms(), ..Default::default() });
        trace::record(&self.host, "phone.cmd", format!("sent {cmd_id} {op}"));
        self.flush();
        Some(id)
    }

    /// The app goes to the background (lane 0 at 0.2 Hz).
    pub fn background(&mut self) {
        self.log.borrow_mut().hidden_ms.push((now_ms(), None));
        let asks = self.life.background(now_ms());
        self.journal_life(LifeEvent::Background { now_ms: now_ms() }, &asks);
        for ask in asks {
            self.apply(ask);
        }
    }

    /// The app comes back; true when it asks for a reconnect.
    pub fn foreground(&mut self) -> bool {
        if let Some(h) = self.log.borrow_mut().hidden_ms.last_mut().filter(|h| h.1.is_none()) {
            h.1 = Some(now_ms());
        }
        let asks = self.life.foreground(now_ms());
        self.journal_life(LifeEvent::Foreground { now_ms: now_ms() }, &asks);
        let mut reconnect = false;
        for ask in asks {
            reconnect |= ask == LifeAsk::Reconnect;
            self.apply(ask);
        }
        reconnect
    }

    fn journal_life(&self, event: LifeEvent, asks: &[LifeAsk]) {
        journal::record(&self.host, Step::Life(LifeStep { event, asks: asks.to_vec() }));
    }

    fn apply(&mut self, ask: LifeAsk) {
        match ask {
            LifeAsk::SetLane0Interval { interval_ms } => {
                let hidden = interval_ms > ftw_phone::consts::LANE0_VISIBLE_INTERVAL_MS;
                if let Some(c) = self.cur.as_mut() {
                    c.ps.set_hidden(now_ms(), hidden);
                    trace::record(&self.host, "phone.life", format!("lane 0 every {interval_ms} ms"));
                }
                self.flush();
            }
            LifeAsk::Reconnect => self.end_local("reconnect"),
        }
    }

    /// The app is killed and launched again: the session goes, the memory is
    /// reloaded from its persisted form, the view starts empty.
    pub fn relaunch(&mut self) {
        self.end_local("relaunch");
        let saved = self.race.with_model(|m| m.memory().to_json());
        // The model's relaunch: the memory reloaded (and pruned), a visible app; its
        // Reconnect is the caller's next race.
        let (race, life, asks) = AppLife::relaunch(now_ms(), &saved, self.sw);
        self.journal_life(LifeEvent::Relaunch { now_ms: now_ms() }, &asks);
        trace::record(&self.host, "phone.life", format!("relaunch, memory of {} networks", race.memory().networks().count()));
        self.race = RaceDriver::start(&self.host, race, self.dial.clone());
        self.view = CloudView::new(self.sw);
        journal::record(&self.host, Step::View(ViewStep::New));
        self.life = life;
    }

    /// The wall clock jumps (the phone slept); true when it asks for a reconnect.
    pub fn clock_jump(&mut self, by: Duration) -> bool {
        crate::world::time::jump_wall(&self.host, by);
        let asks = self.life.clock_jump(by.as_millis() as u64);
        self.journal_life(LifeEvent::ClockJump { by_ms: by.as_millis() as u64 }, &asks);
        let reconnect = asks.contains(&LifeAsk::Reconnect);
        if reconnect {
            self.end_local("clock jump");
        }
        reconnect
    }

    /// Run the session until `until` (time since the start). Returns early when
    /// the session ends (the caller decides when to race again).
    pub async fn run_until(&mut self, until: Duration) {
        while time::now() < until {
            let Some(c) = self.cur.as_mut() else {
                time::sleep_until(until).await;
                return;
            };
            let ev = tokio::select! {
                biased;
                ev = c.link.recv() => ev,
                _ = time::sleep_until(until) => return,
            };
            feed(&mut c.ps, now_ms(), ev);
            journal_windows(&self.host, c.no, &mut c.ps);
            self.flush();
            self.events();
            if self.cur.is_none() {
                return;
            }
        }
    }

    fn events(&mut self) {
        loop {
            let Some(c) = self.cur.as_mut() else { return };
            let Some(ev) = c.ps.poll_event() else { return };
            let now = now_ms();
            let (record, transport) = (c.record, c.transport);
            match ev {
                PhoneEvent::TunnelUp => trace::record(&self.host, "phone.session", "tunnel up"),
                PhoneEvent::SessionOpen => {
                    self.log.borrow_mut().sessions[record].open_at_ms = Some(now);
                    trace::record(&self.host, "phone.session", format!("open over {}", transport.name()));
                }
                PhoneEvent::Closed { code } => {
                    let end = if code == close::ABNORMAL { SessionEnd::PathDropped } else { SessionEnd::Closed { code } };
                    self.race.session_ended(end);
                    self.finish(End::Code(code));
                }
                PhoneEvent::Received(r) => self.received(r, now),
            }
        }
    }

    /// A message the session opened: judged by the carrier (journalled), then
    /// delivered, dropped, or the session ended.
    fn received(&mut self, r: ftw_cloud::phone::Received, now: u64) {
        let Some(c) = self.cur.as_mut() else { return };
        let (record, transport) = (c.record, c.transport);
        let arrival = match r.arrival {
            CArrival::Datagram => Arrival::Datagram,
            CArrival::Stream => Arrival::Stream,
        };
        let opened = match r.opened {
            COpened::Ok => Opened::Ok,
            COpened::Replay => Opened::Replay,
            COpened::Broken => Opened::Broken,
        };
        if let (Arrival::Datagram, Opened::Ok, Some(session), Some(seq)) = (arrival, opened, c.ps.box_session_hash(), r.inner_seq) {
            journal::record(&self.host, Step::Wire(WireStep::Arrived { session, seq }));
        }
        let verdict = c.carrier.judge(arrival, opened);
        let step = CarrierStep::Judged { session: c.no, transport, arrival, opened, verdict };
        journal::record(&self.host, Step::Carrier(step));
        if opened == Opened::Replay {
            let mut log = self.log.borrow_mut();
            log.replays_seen += 1;
            match (arrival, verdict) {
                (Arrival::Stream, Verdict::Drop) => log.stream_replays_dropped += 1,
                (Arrival::Datagram, Verdict::EndSession) => log.ended_by_datagram_replay += 1,
                _ => {}
            }
        }
        let first = verdict == Verdict::Deliver && !c.first_seen;
        if first {
            c.first_seen = true;
        }
        match verdict {
            Verdict::Deliver => {
                if first {
                    self.log.borrow_mut().sessions[record].first_message_ms = Some(now);
                    self.race.first_message();
                }
                self.log.borrow_mut().delivered_ms.push(now);
                if let Some(m) = r.msg {
                    self.deliver(m, r.id, r.live_table);
                }
            }
            Verdict::Drop => {
                if opened == Opened::Replay {
                    self.log.borrow_mut().replays_dropped += 1;
                    trace::tag("phone.carrier", Verdict::Drop.name());
                    trace::record(&self.host, "phone.carrier", format!("replay dropped ({arrival:?}, inner seq {:?})", r.inner_seq));
                }
            }
            Verdict::EndSession => {
                trace::tag("phone.carrier", Verdict::EndSession.name());
                trace::record(&self.host, "phone.carrier", format!("session ended by {opened:?} on {arrival:?}"));
                self.log.borrow_mut().ended_by_carrier += 1;
                c.ps.close(now);
                // The Closed event the close queues is ours: drop it.
                while c.ps.poll_event().is_some() {}
                self.flush();
                self.race.session_ended(SessionEnd::BrokenMessage);
                self.finish(if opened == Opened::Replay { End::Replay } else { End::Broken });
            }
        }
    }

    fn deliver(&mut self, m: Msg, id: Option<u32>, table: Option<Vec<String>>) {
        let now = now_ms();
        match m {
            Msg::Live(l) => self.deliver_live(l, table),
            Msg::Hb(hb) => self.deliver_hb(hb),
            Msg::CmdAck(a) => {
                let mut log = self.log.borrow_mut();
                if let Some(c) = log.cmds.iter_mut().find(|c| Some(c.id) == id && c.cmd_id == a.cmd_id) {
                    c.ack = Some((now, a.accepted));
                }
                drop(log);
                trace::record(&self.host, "phone.cmd", format!("ack {} accepted={}", a.cmd_id, a.accepted));
            }
            Msg::CmdResult(r) => {
                let mut log = self.log.borrow_mut();
                if let Some(c) = log.cmds.iter_mut().find(|c| Some(c.id) == id && c.cmd_id == r.cmd_id) {
                    c.result = Some((now, r.ok));
                }
                drop(log);
                trace::record(&self.host, "phone.cmd", format!("result {} ok={}", r.cmd_id, r.ok));
            }
            _ => {}
        }
    }

    /// A live for the view (journalled in and out), with the freshness rules checked
    /// around it and what it showed logged.
    fn deliver_live(&mut self, l: ftw_wire::envelope::Live, table: Option<Vec<String>>) {
        let seq = l.live_seq;
        self.delivered_seqs.insert(seq);
        let live =
            ViewLive { live_seq: seq, src_rev: l.src_rev, wall_ms: l.wall_ms, table, values: l.values.iter().map(|(k, v)| (k.clone(), *v as f64)).collect() };
        let table_before = self.view.table().map(|t| t.src_rev);
        let newest_before = self.view.newest_seq();
        let shown_before: BTreeMap<String, u64> = self.view.values().iter().map(|(k, s)| (k.clone(), s.live_seq)).collect();
        journal::record(
            &self.host,
            Step::View(ViewStep::Live(LiveIn { live_seq: seq, src_rev: l.src_rev, wall_ms: l.wall_ms, table: live.table.clone(), values: l.values.clone() })),
        );
        let outcome = self.view.handle_live(&live);
        journal::record(&self.host, Step::View(ViewStep::Outcome(outcome)));
        journal::record(&self.host, Step::View(ViewStep::Shows(shows(&self.view))));
        let late = newest_before.is_some_and(|n| seq <= n);
        self.check_freshness(&live, late, table_before, &shown_before);
        let mut log = self.log.borrow_mut();
        log.lives.push((seq, l.values.clone()));
        for (k, s) in self.view.values() {
            if s.live_seq == seq {
                log.shown.push((k.clone(), s.value, seq));
            }
        }
        drop(log);
        trace::record(&self.host, "phone.view", format!("live {seq} {outcome:?}"));
        self.check_gap_law("live");
    }

    /// The freshness rules after `live` (`late`: not newer than the newest before):
    /// a newer table is kept, the table and every shown value never go back.
    fn check_freshness(&mut self, live: &ViewLive, late: bool, table_before: Option<u64>, shown_before: &BTreeMap<String, u64>) {
        let seq = live.live_seq;
        let table_after = self.view.table().map(|t| t.src_rev);
        let newer_table = live.table.is_some() && table_before.is_none_or(|r| live.src_rev > r);
        let mut breaches = Vec::new();
        if late && newer_table {
            self.log.borrow_mut().late_tables += 1;
        }
        if newer_table && table_after.is_none_or(|r| r < live.src_rev) {
            breaches.push(format!("live {seq} (late: {late}) carried the table of srcRev {} but the view kept {table_after:?}", live.src_rev));
        }
        if table_after < table_before {
            breaches.push(format!("live {seq}: the view's table went back from srcRev {table_before:?} to {table_after:?}"));
        }
        for (k, before) in shown_before {
            let after = self.view.values().get(k).map(|s| s.live_seq);
            if after.is_none_or(|a| a < *before) {
                breaches.push(format!("live {seq}: {k} went back from live {before} to {after:?}"));
            }
        }
        if !breaches.is_empty() {
            for b in &breaches {
                trace::record(&self.host, "phone.view", format!("freshness breach: {b}"));
            }
            self.log.borrow_mut().freshness_breaches.extend(breaches);
        }
    }

    /// An hb for the view: a gap must show when it is ahead of the newest live.
    fn deliver_hb(&mut self, hb: ftw_wire::envelope::Hb) {
        journal::record(&self.host, Step::View(ViewStep::Hb { live_seq: hb.live_seq }));
        self.view.handle_hb(hb.live_seq);
        journal::record(&self.host, Step::View(ViewStep::Shows(shows(&self.view))));
        let newest = self.view.newest_seq();
        if newest.is_none_or(|n| n < hb.live_seq) {
            match self.view.gap() {
                Some(g) => {
                    self.log.borrow_mut().gaps_seen += 1;
                    trace::record(&self.host, "phone.view", format!("gap: shown {:?}, box at {}", g.shown_seq, g.latest_seq));
                }
                None => self.log.borrow_mut().gap_breaches.push(format!("hb {} after live {newest:?} shows no gap", hb.live_seq)),
            }
        }
        self.check_gap_law("hb");
    }

    /// Every value shown came with a live that was delivered (never from an hb).
    fn check_gap_law(&mut self, after: &str) {
        for (k, s) in self.view.values() {
            if !self.delivered_seqs.contains(&s.live_seq) {
                self.log.borrow_mut().gap_breaches.push(format!("after {after}: {k} shows live {} that never arrived", s.live_seq));
            }
        }
    }
}

/// Journal every seq the session's two receive windows judged since the last call.
fn journal_windows(host: &str, session: u64, ps: &mut PhoneSession) {
    for (layer, j) in ps.take_judged() {
        let layer = match layer {
            ftw_cloud::phone::Layer::Tunnel => Layer::Tunnel,
            ftw_cloud::phone::Layer::BoxSession => Layer::BoxSession,
        };
        let said = Said::of(&j.window);
        journal::record(host, Step::Replay(ReplayStep::Judged { session, layer, seq: j.seq, said, marked: j.marked }));
    }
}

/// What the view shows, for the journal.
fn shows(view: &CloudView) -> Shows {
    Shows {
        table: view.table().map(|t| (t.src_rev, t.fields.clone())),
        values: view.values().iter().map(|(k, s)| (k.clone(), ShownValue { value: s.value as i64, live_seq: s.live_seq, src_rev: s.src_rev })).collect(),
        newest_seq: view.newest_seq(),
        gap: view.gap().map(|g| (g.shown_seq, g.latest_seq)),
        table_behind: view.table_behind(),
    }
}

/// Carry out what the phone's protocol side wants on its link: each message,
/// bulk message or datagram sent, a close made; `on_err` hears a failed send.
/// (The app and the table's probe phone both drive a `PhoneSession` this way.)
pub fn carry_out(ps: &mut PhoneSession, link: &mut Link, mut on_err: impl FnMut(String)) {
    while let Some(op) = ps.poll_transmit() {
        match op {
            LinkOp::Send { kind, bytes } => {
                if let Err(e) = link.send_as(kind, &bytes) {
                    on_err(e);
                }
            }
            LinkOp::Close { code, reason } => link.close(code, &reason),
        }
    }
}

/// Hand one event of the link to the phone's protocol side.
pub fn feed(ps: &mut PhoneSession, now: u64, ev: LinkEvent) {
    match ev {
        LinkEvent::Message(b) => ps.handle_message(now, &b),
        LinkEvent::Datagram(b) => ps.handle_datagram(now, &b),
        LinkEvent::Closed(info) => ps.handle_closed(now, info.code),
    }
}
