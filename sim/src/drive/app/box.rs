//! The box's driver: binds the IO-free `ftw_box::BoxNode` to its uplink. The
//! model asks to dial (at start, and after its seeded backoff when a dial fails
//! or the uplink ends); the driver dials with the given [`BoxDialer`] (QUIC,
//! resuming its TLS session with 0-RTT keys from a store kept across
//! reconnects), feeds the link's events and the model's timer, and carries out
//! its sends and closes. `box.live` and `box.cmd` go into the trace.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use ftw_box::uplink::{LinkOp, SendKind};
use ftw_box::{BoxNode, BoxOutput};

use crate::drive::link::{DialError, Link, LinkEvent, TransportKind};
use crate::drive::quic::Confirmed;
use crate::world::journal::r#box::{close_code, header, BoxStep};
use crate::world::journal::wire::{Carrier, WireStep};
use crate::world::journal::{self, Step};
use crate::world::time;
use crate::world::trace;

/// Dials the cloud with a target.
pub type BoxDialer = Rc<dyn Fn(String) -> Pin<Box<dyn Future<Output = Result<Link, DialError>>>>>;

fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

/// Journal a step of the box at `now` (ms).
pub(crate) fn jot(host: &str, now: u64, step: BoxStep) {
    journal::record_at(Duration::from_millis(now), host, Step::Box(step));
}

/// Journal what the box read and decided in the call just made (its notes), and, after a
/// failure or an uplink end, when it will dial again.
pub(crate) fn jot_notes(host: &str, now: u64, b: &mut BoxNode) {
    while let Some(n) = b.poll_note() {
        jot(host, now, BoxStep::Note(n));
    }
    jot(host, now, BoxStep::Holds { sessions: b.session_count(), stats: b.stats() });
}

/// The journal's first step of a box: its configuration.
pub(crate) fn config_step(c: &ftw_box::BoxConfig) -> BoxStep {
    BoxStep::Config {
        box_id: c.box_id.clone(),
        box_private: c.key.private,
        cloud_public: c.cloud_public,
        paired: c.paired.clone(),
        wall_base_ms: c.wall_base_ms,
    }
}

/// Journal every session message the box sealed since the last call, as it goes
/// to the link (the wire's reference opens each with its key).
pub(crate) fn jot_sealed(host: &str, now: u64, b: &mut BoxNode) {
    for f in b.take_sealed() {
        journal::record_at(Duration::from_millis(now), host, Step::Wire(sealed_step(f)));
    }
}

/// The journal's step of one sealed message (the box's or the phone's).
pub(crate) fn sealed_step(f: ftw_box::SealedFrame) -> WireStep {
    let carrier = match f.kind {
        SendKind::Message => Carrier::Message,
        SendKind::Bulk => Carrier::Bulk,
        SendKind::Datagram => Carrier::Datagram,
    };
    WireStep::Sealed { session: f.session, initiator: f.initiator, key: f.key, t: f.t, whole_len: f.whole_len, carrier, msg: f.msg }
}

pub(crate) fn jot_redial(host: &str, now: u64, b: &BoxNode) {
    if let ftw_box::UplinkState::Down { next_dial_ms } = b.uplink() {
        jot(host, now, BoxStep::Redial { next_dial_ms });
    }
}

pub(crate) fn jot_output(host: &str, now: u64, out: &BoxOutput) {
    let step = match out {
        BoxOutput::Dial { target } => BoxStep::Dial { target: target.clone() },
        BoxOutput::Link(LinkOp::Send { kind, bytes }) => BoxStep::Send { kind: *kind, header: header(bytes), len: bytes.len(), close: close_code(bytes) },
        BoxOutput::Link(LinkOp::Close { code, .. }) => BoxStep::CloseUplink { code: *code },
    };
    jot(host, now, step);
}

/// One dial of the box's uplink as the driver saw it (issue 15 section 2's laws).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UplinkRecord {
    pub dial_ms: u64,
    /// When the dial returned a link (the handshake done at the box).
    pub up_ms: Option<u64>,
    /// Early data: None when not tried, else whether the cloud accepted it.
    pub zero_rtt: Option<bool>,
    /// The dial held a ticket's 0-RTT keys.
    pub ticket: bool,
    /// When the cloud's uplink challenge reached the box.
    pub challenge_ms: Option<u64>,
    pub closed_ms: Option<u64>,
    /// When the box's handshake was confirmed (RFC 9001 section 4.1.2: the
    /// cloud's HANDSHAKE_DONE arrived; over the WebSocket, when it came up),
    /// filled in by the QUIC driver as it happens.
    pub confirmed_ms: Confirmed,
}

/// The box's uplink dials, in order.
pub type UplinkLog = Rc<RefCell<Vec<UplinkRecord>>>;

/// Run the box on the current host for ever (spawn it, or await it in a host),
/// each uplink dial recorded in `uplinks`.
pub async fn run_box_logged(host: &str, node: Rc<RefCell<BoxNode>>, dial: BoxDialer, uplinks: UplinkLog) {
    {
        let mut b = node.borrow_mut();
        jot(host, now_ms(), config_step(b.config()));
        if journal::is_on() {
            b.keep_sealed();
        }
    }
    let mut link: Option<Link> = None;
    let mut traced = (0usize, 0u64);
    loop {
        let now = now_ms();
        {
            let mut b = node.borrow_mut();
            if b.poll_timeout().is_some_and(|t| t <= now) {
                jot(host, now, BoxStep::Timeout);
                b.handle_timeout(now);
                jot_notes(host, now, &mut b);
            }
        }
        carry_out_box(host, &node, &dial, &uplinks, &mut link).await;
        trace_progress(host, &node.borrow(), &mut traced);
        let deadline = node.borrow().poll_timeout();
        let sleep = async {
            match deadline {
                Some(d) => time::sleep_until(Duration::from_millis(d)).await,
                None => std::future::pending().await,
            }
        };
        let recv = async {
            match link.as_mut() {
                Some(l) => l.recv().await,
                None => std::future::pending().await,
            }
        };
        let ev = tokio::select! {
            biased;
            ev = recv => Some(ev),
            _ = sleep => None,
        };
        let Some(ev) = ev else { continue };
        on_uplink_event(host, &node, &uplinks, &mut link, ev);
    }
}

/// Carry out what the model asks, dials included (a dial is awaited: with no
/// uplink the box has nothing else to do).
async fn carry_out_box(host: &str, node: &Rc<RefCell<BoxNode>>, dial: &BoxDialer, uplinks: &UplinkLog, link: &mut Option<Link>) {
    loop {
        jot_sealed(host, now_ms(), &mut node.borrow_mut());
        let out = node.borrow_mut().poll_output();
        let Some(out) = out else { break };
        jot_output(host, now_ms(), &out);
        match out {
            BoxOutput::Dial { target } => {
                if let Some(l) = dial_uplink(host, node, dial, uplinks, target).await {
                    *link = Some(l);
                }
            }
            BoxOutput::Link(LinkOp::Send { kind, bytes }) => {
                let Some(l) = link.as_mut() else { continue };
                if let Err(e) = l.send_as(kind, &bytes) {
                    trace::record(host, "box.send_failed", e);
                }
            }
            BoxOutput::Link(LinkOp::Close { code, reason }) => {
                if let Some(mut l) = link.take() {
                    l.close(code, &reason);
                }
            }
        }
    }
}

/// The model's dial of its uplink: the link when it came up (the model told either way).
async fn dial_uplink(host: &str, node: &Rc<RefCell<BoxNode>>, dial: &BoxDialer, uplinks: &UplinkLog, target: String) -> Option<Link> {
    trace::record(host, "box.dial", target.clone());
    uplinks.borrow_mut().push(UplinkRecord { dial_ms: now_ms(), ..UplinkRecord::default() });
    match dial(target).await {
        Ok(l) => {
            if let Some(r) = uplinks.borrow_mut().last_mut() {
                (r.up_ms, r.zero_rtt, r.ticket) = (Some(now_ms()), l.zero_rtt(), l.had_ticket());
                r.confirmed_ms = l.quic().map_or_else(|| Confirmed::new(Some(now_ms()).into()), |q| q.confirmed());
            }
            let datagrams = l.transport() == TransportKind::Quic;
            trace::record(host, "box.uplink", format!("up over {}", l.transport().name()));
            let now = now_ms();
            jot(host, now, BoxStep::UplinkUp { datagrams });
            let mut b = node.borrow_mut();
            b.handle_uplink_up(now, datagrams);
            jot_notes(host, now, &mut b);
            Some(l)
        }
        Err(e) => {
            trace::record(host, "box.uplink", format!("dial failed: {e:?}"));
            let now = now_ms();
            jot(host, now, BoxStep::UplinkFailed);
            let mut b = node.borrow_mut();
            b.handle_uplink_failed(now);
            jot_notes(host, now, &mut b);
            jot_redial(host, now, &b);
            None
        }
    }
}

/// Trace the lives and commands the box sent since last time (`traced`: how many).
fn trace_progress(host: &str, b: &BoxNode, traced: &mut (usize, u64)) {
    for l in &b.lives_sent()[traced.0..] {
        trace::record(host, "box.live", format!("chan={} liveSeq={} srcRev={}", l.chan, l.live_seq, l.src_rev));
    }
    traced.0 = b.lives_sent().len();
    let cmds = b.stats().cmds;
    if cmds > traced.1 {
        trace::record(host, "box.cmd", format!("{} commands", cmds));
        traced.1 = cmds;
    }
}

/// What the uplink brought, handed to the model.
fn on_uplink_event(host: &str, node: &Rc<RefCell<BoxNode>>, uplinks: &UplinkLog, link: &mut Option<Link>, ev: LinkEvent) {
    let now = now_ms();
    let mut b = node.borrow_mut();
    match ev {
        LinkEvent::Message(m) => {
            if m.first() == Some(&(ftw_box::uplink::Kind::Challenge as u8)) {
                if let Some(r) = uplinks.borrow_mut().last_mut().filter(|r| r.challenge_ms.is_none()) {
                    r.challenge_ms = Some(now);
                }
            }
            jot(host, now, BoxStep::Up { datagram: false, header: header(&m), len: m.len(), tampered: journal::tampered(&m) });
            b.handle_message(now, &m);
        }
        LinkEvent::Datagram(m) => {
            jot(host, now, BoxStep::Up { datagram: true, header: header(&m), len: m.len(), tampered: journal::tampered(&m) });
            b.handle_datagram(now, &m);
        }
        LinkEvent::Closed(c) => {
            trace::record(host, "box.uplink", format!("closed code={} by_peer={}", c.code, c.by_peer));
            if let Some(r) = uplinks.borrow_mut().last_mut() {
                r.closed_ms = Some(now);
            }
            *link = None;
            jot(host, now, BoxStep::Closed { code: c.code });
            b.handle_closed(now, c.code);
            jot_redial(host, now, &b);
        }
    }
    jot_notes(host, now, &mut b);
}
