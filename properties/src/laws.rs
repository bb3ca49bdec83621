//! Which scenario and property catch each bug switch (SPEC section 7: each
//! switch fails a property from random seeds within the default number of
//! cases, and passes with it off). The one place to register a new pair.

/// (switch, scenario, property that fails with it on).
pub const SWITCH_LAWS: &[(&str, &str, &str)] = &[
    ("no-routing", "fleet-migrate", "same-connection"),
    ("forward-long-headers", "fleet-migrate", "long-headers-stay"),
    ("claim-per-path-report", "fleet-migrate", "one-pin-per-move"),
    ("forward-reference", "fleet-migrate", "owner-reads-what-was-sent"),
    // The phone's race and memory over 29 simulated hours (issue 8, property 6).
    ("ws-first-cancels-probe", "phone-race", "quic-back-within-a-day"),
    ("losing-dial-cancelled", "phone-race", "quic-back-within-a-day"),
    // The race (property 7): QUIC refused, the WebSocket at once. Our switch.
    ("refused-waits-for-lead", "quic-refused", "ws-at-once-when-refused"),
    // Demotion expiry (property 5): QUIC first again a day after a demotion.
    ("ws-first-cancels-probe", "demotion-expiry", "quic-first-after-demotion"),
    // Demotion (property 5): the service's 1013 never demotes; a dropped path does.
    ("every-close-demotes", "sessions-off", "service-close-keeps-quic"),
    ("no-close-demotes", "session", "demoted-goes-ws-first"),
    // The carrier against a hostile relay (property 3).
    ("replay-window-64", "session", "no-false-replay"),
    ("datagram-replay-ends-session", "session", "replayed-datagram-dropped"),
    ("stream-replay-only-dropped", "session", "stream-replay-ends-session"),
    // The view (property 4, Freshness case 17).
    ("late-live-table-dropped", "session", "late-live-table-kept"),
    // QUIC network switches that stall for seconds (issue 15 section 4): upstream
    // quinn-proto's MTU probes on a migrated, unvalidated path.
    ("mtud-on-unvalidated-path", "session-moves", "move-recovers-within-pto"),
];

/// The first scenario and property that catch `switch`, if registered (a switch
/// may have more than one law).
pub fn law_of(switch: &str) -> Option<(&'static str, &'static str)> {
    SWITCH_LAWS.iter().find(|(s, _, _)| *s == switch).map(|&(_, sc, p)| (sc, p))
}

/// The scenarios to fuzz with these switches on: every scenario with a law for
/// one of them (in table order, no repeats); empty when none is registered.
pub fn scenarios_for<'a>(switches: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in switches {
        for &(_, sc, _) in SWITCH_LAWS.iter().filter(|(w, _, _)| *w == s) {
            if !out.contains(&sc) {
                out.push(sc);
            }
        }
    }
    out
}
