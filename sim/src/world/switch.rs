//! The known bugs kept as switches (SPEC section 7), declared once: the
//! [`Switch`] enum and its catalogue. A run's [`Switches`] map onto each
//! model's own switch struct here and nowhere else.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use ftw_fleet::FleetBugs;
use ftw_phone::Switches as PhoneSwitches;
use ftw_wire::BugSwitches;

macro_rules! switches {
    ($($variant:ident = $name:literal : $about:literal,)*) => {
        /// One known bug, off by default.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Switch { $($variant,)* }

        impl Switch {
            /// Every switch, in catalogue order (SPEC section 7's, then ours).
            pub const ALL: &'static [Switch] = &[$(Switch::$variant,)*];

            /// The name users type.
            pub const fn name(self) -> &'static str {
                match self { $(Switch::$variant => $name,)* }
            }

            /// The bug, with its seed source.
            pub const fn about(self) -> &'static str {
                match self { $(Switch::$variant => $about,)* }
            }
        }
    };
}

switches! {
    WsFirstCancelsProbe = "ws-first-cancels-probe": "WebSocket-first race cancels the QUIC learning probe and refreshes the WebSocket entry (QUIC PR review)",
    ReplayWindow64 = "replay-window-64": "replay window of 64 instead of 1024 (S1)",
    DatagramReplayEndsSession = "datagram-replay-ends-session": "a replay on a datagram ends the session (S1)",
    StreamReplayOnlyDropped = "stream-replay-only-dropped": "a replay on a stream is only dropped (S1)",
    LateLiveTableDropped = "late-live-table-dropped": "a late live's newer table is thrown away (S2)",
    EveryCloseDemotes = "every-close-demotes": "every close counts toward demotion (B2, S5)",
    NoCloseDemotes = "no-close-demotes": "no close counts toward demotion (B2, S5)",
    LosingDialCancelled = "losing-dial-cancelled": "a losing QUIC dial is cancelled instead of learning (race note)",
    RefusedWaitsForLead = "refused-waits-for-lead": "a refused QUIC dial leaves the WebSocket waiting for the 250 ms lead (ours, not SPEC section 7: proves ws-at-once-when-refused can fail)",
    NoRouting = "no-routing": "no routing between reactors: unknown short headers dropped as stale (#205)",
    ForwardLongHeaders = "forward-long-headers": "long headers forwarded by byte 0 (#210)",
    ClaimPerPathReport = "claim-per-path-report": "pin claimed on every path report instead of from the sweep (pin work)",
    ForwardReference = "forward-reference": "forward a reference to the receive buffer instead of a copy (#205)",
    MtudOnUnvalidatedPath = "mtud-on-unvalidated-path": "quinn-proto as upstream: MTU probes to a migrated, not yet validated path overspend its anti-amplification budget (issue 15 section 4; sim/vendor/quinn-proto/PATCH.md)",
    BoxKeepsClosedSessions = "box-keeps-closed-sessions": "planted, not from the seeds: the box keeps a session the cloud closed (proves nothing-held-after-end can fail)",
    ForgedMarksWindow = "forged-marks-window": "planted, not from the seeds: the receive window marks a seq before its message authenticated, so a forgery burns it (proves opens-once-forged-never can fail)",
    BoxWaitsForHandshake = "box-waits-for-handshake": "planted, not from the seeds: the box's uplink sends its target only once the QUIC handshake is done, not as 0-RTT early data (proves box-challenge-in-first-flight can fail)",
    RejectedZeroRttNotResent = "rejected-0rtt-not-resent": "planted, not from the seeds: when the cloud rejects the box's 0-RTT, the target is not sent again over 1-RTT (proves rejected-0rtt-loses-nothing can fail)",
    PhoneUsesZeroRtt = "phone-uses-0rtt": "planted, not from the seeds: the phone keeps TLS tickets and sends its target as 0-RTT early data (proves phone-never-0rtt can fail)",
    PinGaugeDrift = "pin-gauge-drift": "planted, not from the seeds: a new pin is not counted in PinsOpen, so the fleet's own invariant check panics (proves a panic is a finding: no-panic)",
}

impl Switch {
    /// The switch named `name`, or the list of known ones.
    pub fn parse(name: &str) -> Result<Switch, String> {
        Switch::ALL.iter().copied().find(|s| s.name() == name).ok_or_else(|| {
            let known: Vec<&str> = Switch::ALL.iter().map(|s| s.name()).collect();
            format!("unknown switch {name:?}; known switches: {}", known.join(", "))
        })
    }
}

impl std::fmt::Display for Switch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Switch {
    /// The QUIC stand-in the bug lives in, if only one: `mtud-on-unvalidated-path`
    /// is quinn-proto's own (its server moves to an unvalidated address at once and
    /// probes its MTU there); the rig's quic-go never sends to an unvalidated path,
    /// so the bug has nothing to act on under `quic = "rig"` (PATCH.md section 2).
    pub const fn stand_in(self) -> Option<crate::world::plan::QuicPlan> {
        match self {
            Switch::MtudOnUnvalidatedPath => Some(crate::world::plan::QuicPlan::Patched),
            _ => None,
        }
    }
}

/// Switches sort by name, so a set lists them as users read them.
impl Ord for Switch {
    fn cmp(&self, other: &Self) -> Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Switch {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The bug switches on in a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Switches(pub BTreeSet<Switch>);

impl Switches {
    /// The QUIC stand-in a run with these switches needs ([`Switch::stand_in`]).
    pub fn stand_in(&self) -> Option<crate::world::plan::QuicPlan> {
        self.0.iter().find_map(|s| s.stand_in())
    }

    /// Parse names, refusing unknown ones with the list of known ones.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        names.into_iter().map(Switch::parse).collect::<Result<BTreeSet<_>, _>>().map(Switches)
    }

    pub fn on(&self, s: Switch) -> bool {
        self.0.contains(&s)
    }

    /// The names of the switches on, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.0.iter().map(|s| s.name()).collect()
    }

    /// The phone model's switches.
    pub fn phone(&self) -> PhoneSwitches {
        PhoneSwitches {
            ws_first_cancels_quic_probe: self.on(Switch::WsFirstCancelsProbe),
            every_close_demotes: self.on(Switch::EveryCloseDemotes),
            no_close_demotes: self.on(Switch::NoCloseDemotes),
            losing_quic_dial_cancelled: self.on(Switch::LosingDialCancelled),
            datagram_replay_ends_session: self.on(Switch::DatagramReplayEndsSession),
            stream_replay_only_dropped: self.on(Switch::StreamReplayOnlyDropped),
            late_live_table_dropped: self.on(Switch::LateLiveTableDropped),
            refused_waits_for_lead: self.on(Switch::RefusedWaitsForLead),
        }
    }

    /// The wire model's switches.
    pub fn wire(&self) -> BugSwitches {
        BugSwitches { replay_window_64: self.on(Switch::ReplayWindow64), forged_marks_window: self.on(Switch::ForgedMarksWindow) }
    }

    /// The box's planted bugs: its switch, and the wire's bugs a test planted
    /// in the world for its duration (`crate::world::plant`).
    pub fn boxn(&self) -> ftw_box::BoxBugs {
        use crate::world::plant::{on, Bug};
        ftw_box::BoxBugs {
            keeps_closed_sessions: self.on(Switch::BoxKeepsClosedSessions),
            pad_not_zeroed: on(Bug::WirePadNotZeroed),
            ack_on_bulk_lane: on(Bug::WireAckOnBulkLane),
            trunc_on_whole_delta: on(Bug::WireTruncOnWholeDelta),
            ack_as_datagram: on(Bug::WireAckAsDatagram),
        }
    }

    /// The reactor fleet's switches.
    pub fn fleet(&self) -> FleetBugs {
        FleetBugs {
            no_routing: self.on(Switch::NoRouting),
            forward_long_headers: self.on(Switch::ForwardLongHeaders),
            claim_per_path_report: self.on(Switch::ClaimPerPathReport),
            forward_reference: self.on(Switch::ForwardReference),
            pin_gauge_drift: self.on(Switch::PinGaugeDrift),
            hash_ignores_port: crate::world::plant::on(crate::world::plant::Bug::KernelHashIgnoresPort),
        }
    }
}
