//! The measuring phone: dials one transport directly (or races through
//! [`RaceDriver`]), runs the end-to-end session ([`PhoneSession`]) over the
//! link and logs every message it opens with its simulated arrival time. The
//! tables are computed from this log and the box's record of what it sent.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use ciborium::Value;
use ftw_box::{BoxNode, UplinkState};
use ftw_cloud::phone::{Opened, PhoneConfig, PhoneEvent, PhoneSession, PhoneState};
use ftw_crypto::{
    crypto_provider, new_client_session_store, quic_client_config, quic_endpoint_config, seeded_cid_factory, ClientResumption, QuicTransportParams,
};
use ftw_phone::network::NetworkDesc;
use ftw_phone::race::CloudSockets;
use ftw_phone::session::SessionEnd;
use ftw_phone::{Switches as PhoneSwitches, Transport};
use ftw_wire::Msg;

use super::consts::GO_PATH_PROBE_FIRST;
use crate::drive::app::phone::{carry_out, dialer_with, feed};
use crate::drive::app::race::{Dialer, RaceDriver};
use crate::drive::hosts::{v4, Keys, BOX_ID};
use crate::drive::link::{close, EarlyData, Link};
use crate::drive::quic::QuicEndpoint;
use crate::drive::system::CMD_OP;
use crate::drive::tcp::TcpHost;
use crate::drive::ws::{client_tls, WsClient};
use crate::world::host::PHONE;
use crate::world::host::{addr, cloud_certs, sim_clock};
use crate::world::seed::RunSeed;
use crate::world::time;

pub fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

/// What a message was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    /// A snapshot: values, the first a session shows.
    Snap,
    Live {
        seq: u64,
    },
    /// A lane-0 telemetry frame (tick or delta) with its session sequence number.
    Lane0 {
        seq: u64,
    },
    Ack {
        id: u32,
    },
    Other,
}

/// One message the phone opened.
#[derive(Clone, Copy, Debug)]
pub struct Got {
    pub at_ms: u64,
    /// The phone's session number (from 1).
    pub session: u64,
    pub what: What,
}

impl Got {
    /// It carries values the view shows (the first live number).
    pub fn is_value(&self) -> bool {
        matches!(self.what, What::Snap | What::Live { .. })
    }
}

/// How the phone gets a link.
pub enum Via {
    Direct(Transport),
    Race(RaceDriver),
}

struct Cur {
    link: Link,
    ps: PhoneSession,
    no: u64,
    raced: bool,
    first_seen: bool,
}

/// The phone.
pub struct Probe {
    seed: RunSeed,
    cfg: PhoneConfig,
    ep: QuicEndpoint,
    tcp: TcpHost,
    /// The phone's QUIC timing.
    quic: QuicTransportParams,
    dials: u64,
    cur: Option<Cur>,
    sessions: u64,
    pub log: Vec<Got>,
    /// Why sessions ended or dials failed, with their times (for reading a run).
    pub notes: Vec<String>,
}

/// The phone's network (the model names it for the race's memory).
pub fn wifi() -> NetworkDesc {
    NetworkDesc::behind_nat("nat-wifi")
}

impl Probe {
    /// Bind the phone's QUIC endpoint and TCP on the current host.
    /// `quic`: the phone's QUIC stack's timing ([`QuicTransportParams::quic_go`]
    /// for the Go test phone of table 1, RFC 9002's defaults for the iPhone of
    /// table 2; docs/table.md, "The rig's QUIC stack").
    pub async fn start(seed: RunSeed, tcp: ftw_tcp::TcpConfig, quic: QuicTransportParams) -> std::io::Result<Probe> {
        let keys = Keys::of(seed);
        let rng = seed.crypto(PHONE);
        let ep_cfg = quic_endpoint_config(rng.sub_seed("quic/reset-key"), rng.sub_seed("quic/endpoint"), seeded_cid_factory(rng.sub_seed("quic/cid"), 8));
        let ep = QuicEndpoint::bind(PHONE, "0.0.0.0:0".parse().expect("addr"), ep_cfg, None).await?;
        let tcp = TcpHost::bind_with(PHONE, v4(addr::PHONE), seed, tcp).await?;
        let cfg = PhoneConfig::new(keys.phone.clone(), keys.cloud.public, keys.box_.public, BOX_ID);
        Ok(Probe { seed, cfg, ep, tcp, quic, dials: 0, cur: None, sessions: 0, log: Vec::new(), notes: Vec::new() })
    }

    /// A dialer for both transports. `ticket`: keep a TLS session store across
    /// the dials of this dialer (reconnects resume); otherwise every dial is a
    /// full handshake. With a ticket the Go test phone of table 1 sends its target
    /// as 0-RTT early data (seed 000: "The box and the Go phone use 0-RTT"); the
    /// iPhone of table 2 never does (SPEC section 3: "The phone does not use
    /// 0-RTT"). Either way the link is handed over, and the session opens, only
    /// once the QUIC handshake is done (seed 000: "the session opens only once
    /// the handshake is done").
    pub fn dialer(&mut self, ticket: bool) -> Dialer {
        self.dials += 1;
        let rng = self.seed.crypto(PHONE);
        let provider = crypto_provider(&rng.sub("tls"));
        let resumption = || if ticket { ClientResumption::Store(new_client_session_store()) } else { ClientResumption::Disabled };
        let quic = quic_client_config(
            &provider,
            &sim_clock(PHONE),
            &cloud_certs(),
            resumption(),
            rng.sub_seed(&format!("quic/initial-dcid/{}", self.dials)),
            &self.quic,
        );
        let ws = Rc::new(WsClient::new(self.tcp.clone(), client_tls(self.seed, PHONE, resumption()), self.seed));
        let early = if ticket && !self.quic.apple { EarlyData::IfTicket { resend: true } } else { EarlyData::Never };
        dialer_with(Some((self.ep.clone(), quic)), Some(ws), addr::cloud_door_v4(), early)
    }

    /// A race driver over `dial` with an empty memory (a fresh pairing).
    pub fn race(&self, dial: Dialer) -> RaceDriver {
        RaceDriver::start(PHONE, CloudSockets::racing(PhoneSwitches::default()), dial)
    }

    pub fn session_open(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.ps.state() == PhoneState::Open)
    }

    pub fn connected(&self) -> bool {
        self.cur.is_some()
    }

    /// Get a link and start a session on it; false when the dial or race failed.
    pub async fn connect(&mut self, dial: &Dialer, via: &Via) -> bool {
        self.close();
        let got = match via {
            Via::Direct(t) => match dial(*t).await {
                Ok(l) => Some((*t, l)),
                Err(e) => {
                    self.notes.push(format!("{} ms: {} dial failed: {e:?}", now_ms(), t.name()));
                    None
                }
            },
            Via::Race(r) => r.connect(wifi()).await,
        };
        let Some((_t, link)) = got else {
            self.notes.push(format!("{} ms: no link", now_ms()));
            return false;
        };
        self.sessions += 1;
        let no = self.sessions;
        let mut ps = PhoneSession::new(self.cfg.clone(), self.seed.key(&format!("table.phone.session.{no}")));
        ps.start(now_ms());
        self.cur = Some(Cur { link, ps, no, raced: matches!(via, Via::Race(_)), first_seen: false });
        self.flush();
        true
    }

    /// End the session (the app's choice).
    pub fn close(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.ps.close(now_ms());
        }
        self.flush();
        self.cur = None;
    }

    /// Tell the race the session ended locally (so it may race again).
    pub fn close_race(&mut self, via: &Via) {
        let was = self.cur.is_some();
        self.close();
        if let (true, Via::Race(r)) = (was, via) {
            r.session_ended(SessionEnd::LocalClose);
        }
    }

    fn flush(&mut self) {
        let Some(c) = self.cur.as_mut() else { return };
        carry_out(&mut c.ps, &mut c.link, |_| {});
    }

    /// Send a command; its envelope id and the time it went.
    pub fn tap(&mut self) -> Option<(u32, u64)> {
        let c = self.cur.as_mut()?;
        let (id, _) = c.ps.send_cmd(now_ms(), CMD_OP, Value::Map(vec![]), u64::MAX)?;
        self.flush();
        Some((id, now_ms()))
    }

    /// The Go phone's `Path.Probe` on its QUIC link after a network switch: a
    /// PATH_CHALLENGE, again after [`GO_PATH_PROBE_FIRST`] and each doubled wait,
    /// until a PATH_RESPONSE arrives or `until`; whether one did. The session's
    /// messages go on meanwhile (quic-go keeps sending on the old socket, which
    /// here is the same one).
    pub async fn probe_path(&mut self, until: Duration, via: &Via) -> bool {
        let mut wait = GO_PATH_PROBE_FIRST;
        while time::now() < until {
            let Some(q) = self.cur.as_ref().and_then(|c| c.link.quic()) else { return false };
            // A new probe after an answered one; else one more try of this one.
            q.probe_path();
            let next = (time::now() + wait).min(until);
            self.run_until(next, via, |_| false).await;
            if self.cur.as_ref().and_then(|c| c.link.quic()).is_some_and(|q| q.path_probe_answered()) {
                return true;
            }
            wait *= 2;
        }
        false
    }

    /// The view goes to the background (`hello` with `hidden`) or comes back.
    pub fn set_hidden(&mut self, hidden: bool) {
        if let Some(c) = self.cur.as_mut() {
            c.ps.set_hidden(now_ms(), hidden);
        }
        self.flush();
    }

    /// Run the session until `until`, or until a message for which `stop` is
    /// true arrives (its time is returned). A session that ends leaves the
    /// phone idle until `until`.
    pub async fn run_until(&mut self, until: Duration, via: &Via, mut stop: impl FnMut(&Got) -> bool) -> Option<u64> {
        loop {
            if time::now() >= until {
                return None;
            }
            let Some(c) = self.cur.as_mut() else {
                time::sleep_until(until).await;
                return None;
            };
            let ev = tokio::select! {
                biased;
                ev = c.link.recv() => ev,
                _ = time::sleep_until(until) => return None,
            };
            let now = now_ms();
            feed(&mut c.ps, now, ev);
            self.flush();
            let mut hit = None;
            let mut ended = false;
            while let Some(c) = self.cur.as_mut() {
                let Some(ev) = c.ps.poll_event() else { break };
                match ev {
                    PhoneEvent::Received(r) if r.opened == Opened::Ok => {
                        if c.raced && !c.first_seen {
                            if let Via::Race(d) = via {
                                d.first_message();
                            }
                        }
                        c.first_seen = true;
                        let what = match r.msg {
                            Some(Msg::Snap(_)) => What::Snap,
                            Some(Msg::Live(l)) => What::Live { seq: l.live_seq },
                            Some(Msg::Tick { seq: Some(s) }) => What::Lane0 { seq: s },
                            Some(Msg::Delta(d)) => What::Lane0 { seq: d.seq },
                            Some(Msg::CmdAck(_)) => What::Ack { id: r.id.unwrap_or(0) },
                            _ => What::Other,
                        };
                        let got = Got { at_ms: now, session: c.no, what };
                        self.log.push(got);
                        if hit.is_none() && stop(&got) {
                            hit = Some(now);
                        }
                    }
                    PhoneEvent::Closed { code } => {
                        ended = true;
                        self.notes.push(format!("{now} ms: session {} closed with {code}", c.no));
                        if let Via::Race(d) = via {
                            d.session_ended(if code == close::ABNORMAL { SessionEnd::PathDropped } else { SessionEnd::Closed { code } });
                        }
                    }
                    _ => {}
                }
            }
            if ended {
                self.cur = None;
            }
            if hit.is_some() {
                return hit;
            }
        }
    }
}

/// Wait until the box's uplink is up (and the cloud has had a moment to adopt it).
pub async fn box_ready(shared: &Rc<RefCell<super::rig::RigShared>>, limit: Duration) {
    let up = || shared.borrow().boxn.as_ref().is_some_and(|b: &Rc<RefCell<BoxNode>>| matches!(b.borrow().uplink(), UplinkState::Up { .. }));
    while time::now() < limit && !up() {
        time::sleep(Duration::from_millis(50)).await;
    }
    time::sleep(Duration::from_millis(500)).await;
}
