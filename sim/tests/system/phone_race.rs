//! `phone-race` end to end: race, memory and demotion over days of simulated time.

use ftw_phone::Transport;
use ftw_sim::scenario::phone_race::run_with;
use ftw_sim::scenario::Verdict;
use ftw_sim::world::switch::Switches;
use ftw_sim::world::topology::RunSpec;
use ftw_sim::RunSeed;

fn spec(seed: u64, switches: &[&str]) -> RunSpec {
    let mut s = RunSpec::new("phone-race", RunSeed(seed));
    s.switches = Switches::parse(switches.iter().copied()).expect("switches");
    s
}

#[test]
fn phone_race_passes_and_comes_back_to_quic() {
    let (r, s) = run_with(&spec(1, &[]));
    for c in &r.checks {
        println!("{} {} {}", c.property(), c.ok, c.detail);
    }
    assert_eq!(r.verdict(), Verdict::Pass, "{:#?}", r.checks);
    let kinds: Vec<(u64, Transport, Transport)> = s.phone.sessions.iter().map(|r| (r.race_start_ms / 3_600_000, r.first, r.transport)).collect();
    println!("{kinds:?}");
    assert!(kinds.iter().any(|k| k.2 == Transport::WebSocket));
}

#[test]
fn ws_first_cancels_probe_keeps_the_phone_off_quic() {
    let (r, _) = run_with(&spec(1, &["ws-first-cancels-probe"]));
    let c = r.checks.iter().find(|c| c.property() == "quic-back-within-a-day").unwrap();
    assert!(!c.ok, "{}", c.detail);
}

#[test]
fn losing_dial_cancelled_keeps_the_phone_off_quic_on_a_slow_leg() {
    // 50 ms each way: the WebSocket (three round trips) opens after the 250 ms lead
    // but before the QUIC dial the lead started: QUIC loses while still dialling.
    let slow = |sw: &[&str]| {
        let mut sp = spec(2, sw);
        sp.plan.phone.one_way_ms = 50;
        run_with(&sp).0
    };
    let law = |r: &ftw_sim::scenario::RunReport| r.checks.iter().find(|c| c.property() == "quic-back-within-a-day").unwrap().clone();
    // Two independent worlds: run them at once.
    let (fixed, bug) = std::thread::scope(|s| {
        let bug = s.spawn(|| law(&slow(&["losing-dial-cancelled"])));
        (law(&slow(&[])), bug.join().expect("runs"))
    });
    assert!(fixed.ok, "{}", fixed.detail);
    assert!(!bug.ok, "{}", bug.detail);
}
