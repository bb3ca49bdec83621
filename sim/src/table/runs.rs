//! The simulated runs behind each table, and what is read from them.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::rc::Rc;
use std::time::Duration;

use ftw_crypto::QuicTransportParams;
use ftw_phone::Transport;

use super::consts::*;
use super::probe::{box_ready, now_ms, Got, Probe, Via, What};
use super::profile::Profile;
use super::rig::{build, rig_tcp, RigSpec};
use crate::drive::hosts::Keys;
use crate::world::host::addr;
use crate::world::host::{BOX, CLOUD, PHONE};
use crate::world::plan::{FaultPlan, LinkPlan};
use crate::world::seed::RunSeed;
use crate::world::time;

/// A link condition of the rig.
#[derive(Clone, Copy, Debug)]
pub struct Cond {
    /// As the tables name it: "40ms", "40ms+1%".
    pub name: &'static str,
    pub loss_pct: f64,
}

/// The seed's three conditions: 20 ms each way, loss 0, 1 and 5 % per packet.
pub const CONDS: [Cond; 3] = [Cond { name: "40ms", loss_pct: 0.0 }, Cond { name: "40ms+1%", loss_pct: 1.0 }, Cond { name: "40ms+5%", loss_pct: 5.0 }];

/// A leg of the rig: the loopback (no MTU below [`LOOPBACK_MTU_BYTES`]), shaped.
fn leg(c: Cond) -> LinkPlan {
    LinkPlan { one_way_ms: ONE_WAY_MS, loss_pct: c.loss_pct, mtu: 0, ..LinkPlan::default() }
}

/// The profile's TCP and processing on a plan.
fn profiled(pr: Profile, phone: LinkPlan, box_: LinkPlan) -> FaultPlan {
    FaultPlan { tcp: pr.tcp(), quic: pr.quic_plan(), phone, box_, processing: pr.processing(), ..FaultPlan::default() }
}

/// Both legs shaped (table 1).
pub fn plan_both(c: Cond, pr: Profile) -> FaultPlan {
    profiled(pr, leg(c), leg(c))
}

/// Only the phone's leg shaped, as the profile has it; the box reaches the cloud unshaped (table 2).
pub fn plan_phone(c: Cond, pr: Profile) -> FaultPlan {
    let (one_way_ms, jitter_ms) = pr.phone_leg();
    let phone = LinkPlan { one_way_ms, jitter_ms, jitter_ordered: true, mtu: crate::drive::tcp::TCP_MTU_BYTES, ..leg(c) };
    profiled(pr, phone, LinkPlan { one_way_ms: 0, mtu: 0, ..LinkPlan::default() })
}

/// A sample in ms, or `None` when it did not finish within its bound.
pub type Sample = Option<f64>;

fn since(t0: u64, at: Option<u64>) -> Sample {
    at.map(|a| (a - t0) as f64)
}

/// Connect `n` times cold (no TLS ticket) then `n` times with the ticket; each
/// sample from the dial to the first value the phone can show (the snapshot).
pub fn connects(seed: RunSeed, c: Cond, t: Transport, n: usize, pr: Profile) -> (Vec<Sample>, Vec<Sample>) {
    let spec = RigSpec { seed, plan: plan_both(c, pr), box_transport: t, quic: pr.quic(), limit: RUN_LIMIT };
    let (mut world, shared, _) = build(&spec);
    let phone_tcp = rig_tcp(&spec.plan, spec.plan.phone.mtu);
    let out: Rc<RefCell<(Vec<Sample>, Vec<Sample>)>> = Rc::default();
    let o = out.clone();
    world.client(PHONE, addr::PHONE, async move {
        let mut p = Probe::start(seed, phone_tcp, pr.quic()).await?;
        box_ready(&shared, BOX_READY_BOUND).await;
        let via = Via::Direct(t);
        let cold = p.dialer(false);
        for _ in 0..n {
            let t0 = now_ms();
            let at = if p.connect(&cold, &via).await { p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await } else { None };
            o.borrow_mut().0.push(since(t0, at));
            p.close();
            time::sleep(GAP).await;
        }
        let warm = p.dialer(true);
        // The first connection of this dialer fetches the ticket (not measured).
        if p.connect(&warm, &via).await {
            p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await;
        }
        p.close();
        time::sleep(GAP).await;
        for _ in 0..n {
            let t0 = now_ms();
            let at = if p.connect(&warm, &via).await { p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await } else { None };
            o.borrow_mut().1.push(since(t0, at));
            p.close();
            time::sleep(GAP).await;
        }
        Ok(())
    });
    let outcome = world.run();
    assert!(outcome.result.is_ok(), "table run (connects) failed: {:?}", outcome.result);
    let r = out.borrow().clone();
    r
}

/// What one streaming run measured.
#[derive(Clone, Debug, Default)]
pub struct Stream {
    pub taps: Vec<Sample>,
    pub lane0: Vec<f64>,
    pub live: Vec<f64>,
    pub live_sent: u64,
    pub live_arrived: u64,
    pub age: Vec<f64>,
    pub switches: Vec<Sample>,
    /// QUIC: lane-0 ticks the box sent the session from the first switch on that never reached the phone.
    pub ticks_missed: Option<u64>,
}

/// What the phone of a streaming run noted, read after the run.
#[derive(Default)]
struct StreamOut {
    log: Vec<Got>,
    taps: Vec<(u32, u64, u64)>,
    window: (u64, u64),
    session: u64,
    switches: Vec<Sample>,
    /// Switches measured as the path probe (QUIC, the session going on).
    quic_moves: usize,
    /// When the switches began, and when the last one had settled.
    switching_from: u64,
    switching_until: u64,
}

/// One session streaming for 90 s with `n` taps spread over it, then `n`
/// network switches (Wi-Fi to cellular and back).
pub fn stream(seed: RunSeed, c: Cond, t: Transport, n: usize, pr: Profile) -> Stream {
    let spec = RigSpec { seed, plan: plan_both(c, pr), box_transport: t, quic: pr.quic(), limit: RUN_LIMIT };
    let (mut world, shared, nats) = build(&spec);
    let net = world.net.clone();
    let moves = world.net.clone();
    let phone_tcp = rig_tcp(&spec.plan, spec.plan.phone.mtu);
    let out: Rc<RefCell<StreamOut>> = Rc::default();
    let o = out.clone();
    let sh = shared.clone();
    world.client(PHONE, addr::PHONE, async move {
        let mut p = Probe::start(seed, phone_tcp, pr.quic()).await?;
        box_ready(&sh, BOX_READY_BOUND).await;
        let via = Via::Direct(t);
        let dial = p.dialer(true);
        stream_window(&mut p, &dial, &via, n, &o).await;
        stream_switches(&mut p, &dial, (&via, pr.go_phone_probes_path()), t, n, (&net, nats), &o).await;
        o.borrow_mut().log = std::mem::take(&mut p.log);
        Ok(())
    });
    let outcome = world.run();
    assert!(outcome.result.is_ok(), "table run (stream) failed: {:?}", outcome.result);
    let mut o = out.borrow_mut();
    if t == Transport::Quic && o.quic_moves == n {
        o.switches = moves.borrow().moves.iter().map(|m| m.first_reply_arrival.map(|a| (a - m.at).as_secs_f64() * 1000.0)).collect();
    }
    let phone = Keys::of(seed).phone.public;
    let lives: Vec<ftw_box::SentLive> =
        shared.borrow().boxn.as_ref().expect("box ran").borrow().lives_sent().iter().filter(|l| l.phone == phone).cloned().collect();
    stream_measure(&o, &lives, t == Transport::Quic && o.quic_moves == n)
}

/// Open a session, then stream the window with `n` taps spread over it.
async fn stream_window(p: &mut Probe, dial: &crate::drive::app::race::Dialer, via: &Via, n: usize, o: &Rc<RefCell<StreamOut>>) {
    let mut tries = 0;
    while !p.session_open() && tries < 5 {
        tries += 1;
        if p.connect(dial, via).await {
            p.run_until(time::now() + SAMPLE_BOUND, via, Got::is_value).await;
        }
    }
    let start = time::now();
    let session = p.log.last().map(|g| g.session).unwrap_or(0);
    let every = STREAM / n.max(1) as u32;
    for k in 0..n {
        let at = start + every * k as u32 + every / 2;
        p.run_until(at, via, |_| false).await;
        if let Some((id, sent)) = p.tap() {
            o.borrow_mut().taps.push((id, sent, session));
        }
    }
    // The window's last frames are still on their way: let them land first.
    p.run_until(start + STREAM + SETTLE, via, |_| false).await;
    let mut o = o.borrow_mut();
    o.window = (start.as_millis() as u64, (start + STREAM).as_millis() as u64);
    o.session = session;
}

/// `n` network switches, Wi-Fi to cellular and back (`nats`: the network and the
/// two NATs' indices), each measured as `Stream::switches` says.
async fn stream_switches(
    p: &mut Probe,
    dial: &crate::drive::app::race::Dialer,
    (via, probes): (&Via, bool),
    t: Transport,
    n: usize,
    (net, (wifi, cell)): (&Rc<RefCell<crate::world::net::Network>>, (usize, usize)),
    o: &Rc<RefCell<StreamOut>>,
) {
    let mut on_cell = false;
    o.borrow_mut().switching_from = now_ms();
    for _ in 0..n {
        on_cell = !on_cell;
        let to = if on_cell { cell } else { wifi };
        net.borrow_mut().move_host(time::now(), addr::PHONE, to);
        let t0 = now_ms();
        let at = match t {
            // The same connection goes on. The Go phone of the rig probes the
            // new path first (quic-go `Path.Probe`, then `Switch`); without it
            // the phone's tap is the first packet on the new path. The cloud
            // answers over the new path; the sample is that round trip, read
            // from the network's record of the move after the run (the seed:
            // "the time is the path probe and switch"); here the phone waits
            // for the tap's ack.
            Transport::Quic if p.session_open() && (!probes || p.probe_path(time::now() + SAMPLE_BOUND, via).await) => match p.tap() {
                Some((id, _)) => {
                    o.borrow_mut().quic_moves += 1;
                    p.run_until(time::now() + SAMPLE_BOUND, via, |g| g.what == What::Ack { id }).await
                }
                None => None,
            },
            // A new session over the new path, to its first live number.
            _ => {
                p.close();
                p.connect(dial, via).await;
                p.run_until(time::now() + SAMPLE_BOUND, via, Got::is_value).await
            }
        };
        o.borrow_mut().switches.push(since(t0, at));
        if at.is_none() && !p.connected() {
            p.connect(dial, via).await;
        }
        p.run_until(time::now() + SETTLE, via, |_| false).await;
    }
    o.borrow_mut().switching_until = now_ms() - SETTLE.as_millis() as u64;
}

/// The streaming run's figures from what the phone noted and the lives the box sent
/// it; `moved`: every switch kept the QUIC session (ticks missed are counted).
fn stream_measure(o: &StreamOut, lives: &[ftw_box::SentLive], moved: bool) -> Stream {
    let mut r = Stream { switches: o.switches.clone(), ..Stream::default() };
    let in_session: Vec<&Got> = o.log.iter().filter(|g| g.session == o.session).collect();
    for (id, sent, s) in &o.taps {
        let ack = o.log.iter().find(|g| g.session == *s && g.at_ms >= *sent && g.what == What::Ack { id: *id });
        r.taps.push(ack.map(|g| (g.at_ms - sent) as f64));
    }
    // The session's channel at the box: from any live it delivered.
    let chan = in_session.iter().find_map(|g| match g.what {
        What::Live { seq } => lives.iter().find(|l| l.live_seq == seq).map(|l| l.chan),
        _ => None,
    });
    let Some(chan) = chan else { return r };
    let (from, to) = o.window;
    // Lane-0 frame `seq` of a session goes out with the session's `seq`-th live
    // (one `lane0_tick` sends both; ftw-box), so its send time is that live's.
    let mine: Vec<&ftw_box::SentLive> = lives.iter().filter(|l| l.chan == chan).collect();
    let by_seq: BTreeMap<u64, u64> = mine.iter().map(|l| (l.live_seq, l.sent_at_ms)).collect();
    if moved {
        let got: std::collections::BTreeSet<u64> = in_session.iter().filter_map(|g| if let What::Lane0 { seq } = g.what { Some(seq) } else { None }).collect();
        let sent = mine.iter().enumerate().filter(|(_, l)| (o.switching_from..o.switching_until).contains(&l.sent_at_ms)).map(|(i, _)| i as u64 + 1);
        r.ticks_missed = Some(sent.filter(|seq| !got.contains(seq)).count() as u64);
    }
    for g in &in_session {
        if let What::Lane0 { seq } = g.what {
            if let Some(l) = mine.get(seq as usize - 1) {
                if l.sent_at_ms >= from && l.sent_at_ms < to {
                    r.lane0.push((g.at_ms - l.sent_at_ms) as f64);
                }
            }
        }
    }
    let mut arrived: BTreeMap<u64, u64> = BTreeMap::new();
    for g in &in_session {
        if let What::Live { seq } = g.what {
            arrived.entry(seq).or_insert(g.at_ms);
        }
    }
    for l in mine.iter().filter(|l| l.sent_at_ms >= from && l.sent_at_ms < to) {
        r.live_sent += 1;
        if let Some(at) = arrived.get(&l.live_seq) {
            r.live_arrived += 1;
            r.live.push((at - l.sent_at_ms) as f64);
        }
    }
    r.age = age_series(&arrived, &by_seq, (from, to));
    r
}

/// The age of the newest value the phone holds, every AGE_STEP_MS of the window
/// from the first live that arrived in it (`arrived`: live seq -> arrival; `by_seq`:
/// live seq -> the box's send time).
fn age_series(arrived: &BTreeMap<u64, u64>, by_seq: &BTreeMap<u64, u64>, (from, to): (u64, u64)) -> Vec<f64> {
    let mut age = Vec::new();
    let mut events: Vec<(u64, u64)> =
        arrived.iter().filter_map(|(seq, at)| by_seq.get(seq).map(|s| (*at, *s))).filter(|(at, _)| *at >= from && *at < to).collect();
    events.sort();
    if let Some(&(first, _)) = events.first() {
        let mut newest = 0u64;
        let mut i = 0;
        let mut tick = first;
        while tick < to {
            while i < events.len() && events[i].0 <= tick {
                newest = newest.max(events[i].1);
                i += 1;
            }
            age.push((tick - newest) as f64);
            tick += AGE_STEP_MS;
        }
    }
    age
}

/// How the phone of table 2 gets its link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhoneVia {
    Only(Transport),
    Race,
}

/// What one phone run measured.
#[derive(Clone, Debug, Default)]
pub struct PhoneView {
    pub notes: Vec<String>,
    pub scans: Vec<Sample>,
    pub taps: Vec<Sample>,
    pub returns: Vec<Sample>,
}

/// The phone's own view: `n` pairings (scan to streaming, each with a fresh
/// race and memory), `n` taps on the last session, `n` returns from the
/// background (hidden past the NAT timeout, so the app races again).
pub fn phone_view(seed: RunSeed, c: Cond, v: PhoneVia, n: usize, pr: Profile) -> PhoneView {
    let spec = RigSpec { seed, plan: plan_phone(c, pr), box_transport: Transport::Quic, quic: pr.quic(), limit: RUN_LIMIT };
    let (mut world, shared, _) = build(&spec);
    let phone_tcp = rig_tcp(&spec.plan, spec.plan.phone.mtu);
    let out: Rc<RefCell<PhoneView>> = Rc::default();
    let o = out.clone();
    world.client(PHONE, addr::PHONE, async move {
        let mut p = Probe::start(seed, phone_tcp, QuicTransportParams::iphone()).await?;
        box_ready(&shared, BOX_READY_BOUND).await;
        let make = |p: &mut Probe| {
            let d = p.dialer(false);
            let via = match v {
                PhoneVia::Only(t) => Via::Direct(t),
                PhoneVia::Race => Via::Race(p.race(d.clone())),
            };
            (d, via)
        };
        let (mut dial, mut via) = make(&mut p);
        for i in 0..n {
            if i > 0 {
                p.close_race(&via);
                time::sleep(GAP).await;
                (dial, via) = make(&mut p);
            }
            let t0 = now_ms();
            let at = if p.connect(&dial, &via).await { p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await } else { None };
            o.borrow_mut().scans.push(since(t0, at));
        }
        for _ in 0..n {
            p.run_until(time::now() + TAP_EVERY, &via, |_| false).await;
            if !p.session_open() {
                p.connect(&dial, &via).await;
                p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await;
            }
            let sample = match p.tap() {
                Some((id, t0)) => since(t0, p.run_until(time::now() + SAMPLE_BOUND, &via, |g| g.what == What::Ack { id }).await),
                None => None,
            };
            o.borrow_mut().taps.push(sample);
        }
        for _ in 0..n {
            p.set_hidden(true);
            p.run_until(time::now() + BACKGROUND, &via, |_| false).await;
            // Hidden past the NAT mapping's life: the app races again (ftw-phone AppLife).
            let t0 = now_ms();
            p.close_race(&via);
            let at = if p.connect(&dial, &via).await { p.run_until(time::now() + SAMPLE_BOUND, &via, Got::is_value).await } else { None };
            o.borrow_mut().returns.push(since(t0, at));
            p.run_until(time::now() + SETTLE, &via, |_| false).await;
        }
        o.borrow_mut().notes = std::mem::take(&mut p.notes);
        Ok(())
    });
    let outcome = world.run();
    assert!(outcome.result.is_ok(), "table run (phone) failed: {:?}", outcome.result);
    let r = out.borrow().clone();
    r
}

/// IP bytes a box holding its uplink idle for a day puts on its leg, both
/// directions (the box's and the cloud's packets; nothing else runs).
pub fn idle_day(seed: RunSeed, c: Cond, t: Transport, mtu_discovery: bool, pr: Profile) -> u64 {
    idle_day_with(seed, c, t, mtu_discovery, pr, pr.quic().keep_alive_from_receipt)
}

/// [`idle_day`] with the keep-alive's timing chosen (quinn-proto's own: `false`,
/// which only the patched stand-in keeps: the rig's gives every Go end quic-go's).
pub fn idle_day_with(seed: RunSeed, c: Cond, t: Transport, mtu_discovery: bool, pr: Profile, keep_alive_from_receipt: bool) -> u64 {
    let quic = QuicTransportParams { mtu_discovery, keep_alive_from_receipt, ..pr.quic() };
    let mut plan = plan_both(c, pr);
    if !keep_alive_from_receipt {
        plan.quic = crate::world::plan::QuicPlan::Patched;
    }
    let spec = RigSpec { seed, plan, box_transport: t, quic, limit: IDLE_DAY + Duration::from_secs(60) };
    let (mut world, _shared, _) = build(&spec);
    const WATCH: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(203, 0, 113, 99));
    world.client("watch", WATCH, async move {
        time::sleep(IDLE_DAY).await;
        Ok(())
    });
    let outcome = world.run();
    assert!(outcome.result.is_ok(), "table run (idle) failed: {:?}", outcome.result);
    [BOX, CLOUD].iter().map(|h| outcome.bytes_by_host.get(*h).copied().unwrap_or(0)).sum()
}
