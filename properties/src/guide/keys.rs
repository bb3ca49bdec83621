//! The coverage map of protocol states (issue 36 point 1): the set of typed keys
//! one run reached, taken from what the journal and the trace already carry as
//! types, never from display text.
//!
//! - `d:<model>@<role>:<decision>`: a model's decision (or input it was given)
//!   by kind and party: the race's decisions, the carrier's verdicts, the view's
//!   outcomes, the app's life, the box's and the cloud's notes, the fleet's events,
//!   the NAT's decisions, TCP's timer (RTO fired, TLP armed, SYN given up, ...);
//! - `t:<model>@<role>:<a>><b>`: two consecutive decisions of one party (one
//!   model on one host);
//! - `e:<kind>`: a trace event kind (the QUIC connection's events, `quic.path`,
//!   `quic.0rtt_rejected`, `nat.rebind`, `udp.refused`, ...) and `g:<kind>~<tag>`:
//!   a typed decision the drivers tag (`trace::tag`);
//! - `f:<fault>@<phase>`: each timed fault's kind crossed with the phase of the
//!   phone's connection it struck (`handshake`, `open`, `session`, `closing`,
//!   `none`: [`phase_at`]).
//!
//! A party's role is its host name's letters (`phone`, `box`, `cloud`; an
//! address for TCP, whose role is then `ip`), so a scenario of five phones has
//! the keys of one, and the map stays a few hundred keys a scenario.

use std::collections::{BTreeMap, BTreeSet};

use ftw_phone::app::LifeAsk;
use ftw_phone::race::Decision;
use ftw_phone::view::LiveOutcome;
use ftw_sim::journal::carrier::CarrierStep;
use ftw_sim::journal::cloud::{CloudNote, CloudStep};
use ftw_sim::journal::fleet::{FleetEvent, FleetStep};
use ftw_sim::journal::life::LifeEvent;
use ftw_sim::journal::nat::NatStep;
use ftw_sim::journal::r#box::{BoxNote, BoxStep, Sent};
use ftw_sim::journal::race::RaceInput;
use ftw_sim::journal::replay::Said;
use ftw_sim::journal::tcp::{RtoKind, TcpStep};
use ftw_sim::journal::view::ViewStep;
use ftw_sim::journal::{Entry, Step};
use ftw_sim::plan::FaultPlan;
use ftw_sim::scenario::RunReport;

/// One run's keys, in order (a set: the map counts whether, not how often).
pub type Keys = BTreeSet<String>;

/// Every key one run reached under `plan`.
pub fn of_run(plan: &FaultPlan, report: &RunReport) -> Keys {
    let mut keys = Keys::new();
    let trace = &report.outcome.trace;
    keys.extend(trace.counts().keys().map(|k| format!("e:{k}")));
    keys.extend(trace.tags().keys().map(|k| format!("g:{k}")));
    // Gathered as types, each written once (a run journals thousands of decisions
    // and reaches a few hundred keys).
    let mut last: BTreeMap<(&str, &'static str), &'static str> = BTreeMap::new();
    let (mut made, mut moved) = (BTreeSet::new(), BTreeSet::new());
    for e in &report.outcome.journal {
        for (model, what) in decisions(&e.step) {
            let role = role(&e.host);
            made.insert((model, role, what));
            if let Some(prev) = last.insert((e.host.as_str(), model), what) {
                moved.insert((model, role, prev, what));
            }
        }
    }
    keys.extend(made.into_iter().map(|(model, role, what)| format!("d:{model}@{role}:{what}")));
    keys.extend(moved.into_iter().map(|(model, role, prev, what)| format!("t:{model}@{role}:{prev}>{what}")));
    for f in &plan.faults {
        let kind = f.fault.def().swarm().name();
        keys.insert(format!("f:{kind}@{}", phase_at(&report.outcome.journal, f.at_ms)));
    }
    keys
}

/// A host's role: the letters of its name (`phone2` is a `phone`), `ip` for an address.
fn role(host: &str) -> &str {
    let end = host.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(host.len());
    if end == 0 {
        "ip"
    } else {
        &host[..end]
    }
}

/// The phase of the first phone's connection at `at_ms`, from its race's typed
/// inputs: `handshake` after a start and before a transport opened, `open`
/// before the first message, `session` after it, `closing` after the session
/// ended or the race closed; `none` before any start (or in a run without a phone race).
pub fn phase_at(journal: &[Entry], at_ms: u64) -> &'static str {
    let mut phase = "none";
    for e in journal.iter().take_while(|e| e.t_ms <= at_ms) {
        let Step::Race(r) = &e.step else { continue };
        phase = match &r.what {
            RaceInput::Start { .. } => "handshake",
            RaceInput::Opened(_) => "open",
            RaceInput::FirstMessage => "session",
            RaceInput::SessionEnded(_) | RaceInput::Close => "closing",
            _ => continue,
        };
    }
    phase
}

/// The typed decisions (model, kind) a journal step holds: none for the steps that
/// are bookkeeping (counters, timeouts, datagrams crossing a link).
fn decisions(step: &Step) -> Vec<(&'static str, &'static str)> {
    let one = |m: &'static str, w: &'static str| vec![(m, w)];
    match step {
        Step::Race(r) => match &r.what {
            RaceInput::Polled { decisions, .. } => decisions.iter().map(|(_, d): &(u64, Decision)| ("race", d.kind())).collect(),
            RaceInput::QuicRefused => one("race", "in-quic-refused"),
            _ => vec![],
        },
        Step::Carrier(CarrierStep::Judged { verdict, .. }) => one("carrier", verdict.name()),
        Step::Carrier(CarrierStep::Ended { by_carrier, .. }) => one("carrier", if *by_carrier { "ended-by-carrier" } else { "ended" }),
        // The settings line is the transport's name, not a decision (the race's keys have the transport).
        Step::Carrier(CarrierStep::Shown { .. }) => vec![],
        Step::Replay(ftw_sim::journal::replay::ReplayStep::Judged { said, .. }) => one("replay", said_name(*said)),
        Step::View(v) => view(v).map_or(vec![], |w| one("view", w)),
        Step::Life(l) => life(&l.event, &l.asks),
        Step::Box(b) => r#box(b).map_or(vec![], |w| one("box", w)),
        Step::Cloud(c) => cloud(c).map_or(vec![], |w| one("cloud", w)),
        Step::Fleet(f) => fleet(f).map_or(vec![], |w| one("fleet", w)),
        Step::Nat(n) => nat(n).map_or(vec![], |w| one("nat", w)),
        Step::Tcp(TcpStep::Rto { kind, .. }) => tcp(kind).map_or(vec![], |w| one("tcp", w)),
        Step::Tcp(TcpStep::Flavour(_)) | Step::Link(_) | Step::Processing(_) | Step::Wire(_) => vec![],
    }
}

fn said_name(s: Said) -> &'static str {
    match s {
        Said::Fresh => "fresh",
        Said::Duplicate => "duplicate",
        Said::TooOld => "too-old",
    }
}

fn view(v: &ViewStep) -> Option<&'static str> {
    Some(match v {
        ViewStep::New => "new",
        ViewStep::Outcome(LiveOutcome::Applied { late: true, table_adopted: true, .. }) => "applied-late-new-table",
        ViewStep::Outcome(LiveOutcome::Applied { late: true, .. }) => "applied-late",
        ViewStep::Outcome(LiveOutcome::Applied { table_adopted: true, .. }) => "applied-new-table",
        ViewStep::Outcome(LiveOutcome::Applied { values_kept_newer, .. }) if *values_kept_newer > 0 => "applied-kept-newer",
        ViewStep::Outcome(LiveOutcome::Applied { .. }) => "applied",
        ViewStep::Outcome(LiveOutcome::DroppedOlderSrcRev) => "dropped-older-src-rev",
        ViewStep::Outcome(LiveOutcome::DroppedLate) => "dropped-late",
        ViewStep::Shows(s) if s.gap.is_some() => "shows-gap",
        ViewStep::Shows(s) if s.table_behind => "shows-table-behind",
        ViewStep::Live(_) | ViewStep::Hb { .. } | ViewStep::Shows(_) => return None,
    })
}

fn life(event: &LifeEvent, asks: &[LifeAsk]) -> Vec<(&'static str, &'static str)> {
    let e = match event {
        LifeEvent::Background { .. } => "background",
        LifeEvent::Foreground { .. } => "foreground",
        LifeEvent::Relaunch { .. } => "relaunch",
        LifeEvent::ClockJump { .. } => "clock-jump",
    };
    let asked = asks.iter().map(|a| match a {
        LifeAsk::SetLane0Interval { .. } => ("life", "ask-lane0-interval"),
        LifeAsk::Reconnect => ("life", "ask-reconnect"),
    });
    std::iter::once(("life", e)).chain(asked).collect()
}

fn r#box(b: &BoxStep) -> Option<&'static str> {
    Some(match b {
        BoxStep::UplinkUp { datagrams: true } => "uplink-up-datagrams",
        BoxStep::UplinkUp { datagrams: false } => "uplink-up-stream",
        BoxStep::UplinkFailed => "uplink-failed",
        BoxStep::Closed { .. } => "closed",
        BoxStep::Up { tampered: true, .. } => "up-tampered",
        BoxStep::Dial { .. } => "dial",
        BoxStep::CloseUplink { .. } => "close-uplink",
        BoxStep::Note(BoxNote::Read { phone: None, .. }) => "read-unreadable",
        BoxStep::Note(BoxNote::Read { .. }) => "read",
        BoxStep::Note(BoxNote::Hello { hidden: true, .. }) => "hello-hidden",
        BoxStep::Note(BoxNote::Hello { .. }) => "hello",
        BoxStep::Note(BoxNote::Cmd { .. }) => "cmd",
        BoxStep::Note(BoxNote::Ignored { .. }) => "ignored",
        BoxStep::Note(BoxNote::Sent { what, .. }) => sent(what)?,
        BoxStep::Config { .. } | BoxStep::Timeout | BoxStep::Up { .. } | BoxStep::Redial { .. } | BoxStep::Holds { .. } | BoxStep::Send { .. } => return None,
    })
}

/// The box's own uplink messages that are decisions (not the stream of telemetry).
fn sent(s: &Sent) -> Option<&'static str> {
    Some(match s {
        Sent::Msg2 => "sent-msg2",
        Sent::Close { .. } => "sent-close",
        Sent::HelloOk { .. } => "sent-hello-ok",
        Sent::Snap { .. } => "sent-snap",
        Sent::Live { table: true, .. } => "sent-live-table",
        Sent::Ack { accepted: false, .. } => "sent-ack-refused",
        Sent::Ack { .. } => "sent-ack",
        Sent::Result { ok: false, .. } => "sent-result-failed",
        Sent::Result { .. } => "sent-result",
        _ => return None,
    })
}

fn cloud(c: &CloudStep) -> Option<&'static str> {
    Some(match c {
        CloudStep::Accept { datagrams: true, .. } => "accept-datagrams",
        CloudStep::Accept { .. } => "accept-stream",
        CloudStep::Closed { .. } => "closed",
        CloudStep::Close { .. } => "close",
        CloudStep::Note(CloudNote::Msg1 { read: None, .. }) => "msg1-unreadable",
        CloudStep::Note(CloudNote::Msg1 { .. }) => "msg1",
        CloudStep::Note(CloudNote::Opened { inner: None, .. }) => "not-opened",
        CloudStep::Note(CloudNote::Opened { .. }) => return None,
        CloudStep::Config { .. } | CloudStep::In { .. } | CloudStep::Timeout | CloudStep::Holds { .. } | CloudStep::Send { .. } => return None,
    })
}

fn fleet(f: &FleetStep) -> Option<&'static str> {
    use ftw_sim::journal::fleet::PinReleaseReason;
    Some(match f {
        FleetStep::Arrival { queued: false, .. } => "arrival-overflow",
        FleetStep::Opened { .. } => "opened",
        FleetStep::Closed { .. } => "closed",
        FleetStep::Event(FleetEvent::Forwarded { by_reference: true, .. }) => "forwarded-by-reference",
        FleetStep::Event(FleetEvent::Forwarded { .. }) => "forwarded",
        FleetStep::Event(FleetEvent::ForwardDropped { .. }) => "forward-dropped",
        FleetStep::Event(FleetEvent::Pinned { .. }) => "pinned",
        FleetStep::Event(FleetEvent::PinReleased { reason: PinReleaseReason::ConnectionClosed, .. }) => "pin-released-closed",
        FleetStep::Event(FleetEvent::PinReleased { reason: PinReleaseReason::Replaced, .. }) => "pin-released-replaced",
        FleetStep::Event(FleetEvent::StaleDrop { .. }) => "stale-drop",
        FleetStep::Event(FleetEvent::BufferDrop { .. }) => "buffer-drop",
        _ => return None,
    })
}

fn nat(n: &NatStep) -> Option<&'static str> {
    use ftw_sim::net::nat::NatDrop;
    Some(match n {
        NatStep::Out { created: true, .. } => "map",
        NatStep::In { passed: Err(NatDrop::NoMapping), .. } => "drop-no-mapping",
        NatStep::In { passed: Err(NatDrop::Filtered), .. } => "drop-filtered",
        NatStep::Rebind { .. } => "rebind",
        NatStep::Forget { .. } => "forget",
        NatStep::Made { .. } | NatStep::Out { .. } | NatStep::In { .. } => return None,
    })
}

fn tcp(k: &RtoKind) -> Option<&'static str> {
    Some(match k {
        RtoKind::Fired { forgot: true, .. } => "rto-fired-forgot",
        RtoKind::Fired { .. } => "rto-fired",
        RtoKind::ProbeArmed { .. } => "tlp-armed",
        RtoKind::SynIn => "syn-in",
        RtoKind::Connect => "connect",
        RtoKind::SynAgain { answered: true } => "syn-again-answered",
        RtoKind::SynAgain { answered: false } => "syn-again-ignored",
        RtoKind::GaveUp { reset: true } => "gave-up-rst",
        RtoKind::GaveUp { reset: false } => "gave-up-silent",
        RtoKind::DataIn { in_order: false, .. } => "data-out-of-order",
        RtoKind::Sample { .. } | RtoKind::Armed { .. } | RtoKind::DataIn { .. } | RtoKind::AppRead { .. } | RtoKind::SegOut { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_role_is_the_host_names_letters() {
        assert_eq!(role("phone"), "phone");
        assert_eq!(role("phone3"), "phone");
        assert_eq!(role("box-1"), "box");
        assert_eq!(role("10.0.0.2"), "ip");
    }
}
