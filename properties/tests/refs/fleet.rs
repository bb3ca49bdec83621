//! The fleet's lockstep reference (law `fleet-agrees-with-spec`, SPEC section
//! 5): it agrees with the model on drawn cases of every fleet scenario, it
//! names the very step where a journal was altered, and it fails on the fleet's
//! bug switches, which it was not written against.

use ftw_properties::harness::spec_of;
use ftw_properties::strategy::{domain_for, draw};
use ftw_sim::journal::fleet::{FleetEvent, FleetStep, SocketId};
use ftw_sim::journal::{Entry, Step};
use ftw_sim::law::reference::{fleet::FLEET, Lockstep};
use ftw_sim::scenario::{Check, RunReport};
use ftw_sim::switch::Switches;
use ftw_sim::RunSeed;
use ftw_sim::RunSpec;

const LAW: &str = "fleet-agrees-with-spec";

fn run(spec: &RunSpec) -> RunReport {
    ftw_sim::scenario::run(spec).unwrap_or_else(|e| panic!("{} seed {:?}: {e}", spec.scenario, spec.seed))
}

fn law_check(r: &RunReport) -> &Check {
    r.checks.iter().find(|c| c.law.name == LAW).unwrap_or_else(|| panic!("{LAW} not judged"))
}

fn journal_of(scenario: &str, seed: u64) -> Vec<Entry> {
    run(&ftw_sim::scenario::spec(scenario, RunSeed(seed))).outcome.journal.clone()
}

fn judged(journal: &[Entry]) -> Lockstep {
    FLEET.lockstep(journal).expect("the journal has fleet steps")
}

/// Every fleet scenario, drawn cases (faults, reactor counts, routing): the
/// law is judged and holds on the correct models. (props' `laws_hold` runs it on
/// every default case too; the pin flood, hundreds of clients, gets one here.)
#[test]
fn agrees_on_drawn_cases_of_every_fleet_scenario() {
    for (scenario, cases) in [("fleet-migrate", 14), ("fleet-migrate-kernel-filter", 10), ("fleet-still", 10), ("fleet-resume", 10), ("fleet-pin-flood", 1)] {
        for n in 1..=cases {
            let case = draw(&domain_for(scenario), RunSeed(n)).current();
            let r = run(&spec_of(scenario, &Switches::default(), &case));
            let c = law_check(&r);
            assert!(c.ok, "{scenario} case {n}: {}\nplan:\n{}", c.detail, toml::to_string(&case.plan).unwrap());
        }
    }
}

/// A run with no fleet gives the law nothing to judge.
#[test]
fn not_judged_without_a_fleet() {
    let j = journal_of("quic-echo", 1);
    assert!(j.iter().all(|e| !matches!(e.step, Step::Fleet(_))));
    assert_eq!(FLEET.lockstep(&j), None);
}

fn fleet_step(e: &mut Entry) -> Option<&mut FleetStep> {
    match &mut e.step {
        Step::Fleet(s) => Some(s),
        _ => None,
    }
}

/// Alters the first step `alter` changes (returning true) and asserts the
/// check names exactly that step.
fn planted(journal: &[Entry], what: &str, alter: impl Fn(&mut FleetStep) -> bool) {
    assert!(matches!(judged(journal), Lockstep::Agreed { .. }), "the unaltered journal agrees");
    let mut j = journal.to_vec();
    let index = j.iter_mut().position(|e| fleet_step(e).is_some_and(&alter)).unwrap_or_else(|| panic!("no step to alter for {what}"));
    match judged(&j) {
        Lockstep::Differs { index: i, model, spec, .. } => assert_eq!(i, index, "{what}: {model} / {spec}"),
        l => panic!("{what}: altered step {index} not caught: {l:?}"),
    }
}

/// One decision altered in a real run's journal: the check fails at it.
#[test]
fn a_planted_disagreement_is_named_at_its_step() {
    let j = journal_of("fleet-migrate", 1);
    planted(&j, "the kernel's socket", |s| match s {
        FleetStep::Arrival { socket: socket @ SocketId::Listener(_), hashed, .. } => {
            *socket = SocketId::Listener(ftw_sim::journal::fleet::ReactorId::new((hashed.index() + 1) % 4));
            true
        }
        _ => false,
    });
    planted(&j, "a buffer drop", |s| match s {
        FleetStep::Arrival { queued: q @ true, .. } => {
            *q = false;
            true
        }
        _ => false,
    });
    planted(&j, "the delivered bytes", |s| match s {
        FleetStep::Delivery { bytes, .. } => {
            bytes.digest ^= 1;
            true
        }
        _ => false,
    });
    planted(&j, "a forward's owner", |s| match s {
        FleetStep::Event(FleetEvent::Forwarded { to, from, .. }) => {
            *to = *from;
            true
        }
        _ => false,
    });
    planted(&j, "a pin's address", |s| match s {
        FleetStep::Event(FleetEvent::Pinned { peer, .. }) => {
            peer.set_port(peer.port().wrapping_add(1));
            true
        }
        _ => false,
    });
    planted(&j, "ForwardsSent", |s| match s {
        FleetStep::Counters(c) if c.iter().any(|c| c.forwards_sent > 0) => {
            c[0].forwards_sent += 1;
            true
        }
        _ => false,
    });
    planted(&j, "PinsOpen", |s| match s {
        FleetStep::Counters(c) if c.iter().any(|c| c.pins_open > 0) => {
            c.iter_mut().for_each(|c| c.pins_open = 0);
            true
        }
        _ => false,
    });
    planted(&j, "a minted id's stamp", |s| match s {
        FleetStep::Minted { cid, .. } => {
            cid[0] = cid[0].wrapping_add(1);
            true
        }
        _ => false,
    });
}

/// A pin's release and the sweep's claim, removed from a journal: the
/// reference notices what did not happen, at the step that called for it.
#[test]
fn a_missing_claim_is_named_at_its_sweep() {
    let j = journal_of("fleet-migrate", 1);
    let pinned = j.iter().position(|e| matches!(e.step, Step::Fleet(FleetStep::Event(FleetEvent::Pinned { .. })))).expect("a pin");
    let sweep = j[..pinned].iter().rposition(|e| matches!(e.step, Step::Fleet(FleetStep::Timeout))).expect("its sweep");
    let mut cut = j.clone();
    cut.remove(pinned);
    match judged(&cut) {
        Lockstep::Differs { index, model, .. } => assert_eq!(index, sweep, "{model}"),
        l => panic!("a sweep without its claim agreed: {l:?}"),
    }
}

/// The fleet's bug switches (SPEC section 7) fail the law on fleet-migrate,
/// seed 1, each at the rule it breaks.
#[test]
fn the_fleet_switches_fail_the_law() {
    for (switch, says) in [
        ("no-routing", "the SPEC says Forward"),
        ("forward-long-headers", "the SPEC says Local"),
        ("claim-per-path-report", "only by the owner's 250 ms sweep"),
        ("forward-reference", "a forward posts a copy"),
    ] {
        let mut spec = ftw_sim::scenario::spec("fleet-migrate", RunSeed(1));
        spec.switches = Switches::parse([switch]).unwrap();
        let r = run(&spec);
        let c = law_check(&r);
        assert!(!c.ok && c.detail.contains(says), "switch {switch}: {}", c.detail);
    }
}

/// The planted pin-gauge-drift panics inside the model (law no-panic) before
/// its pin is journaled; the reference then sees a sweep that claimed nothing.
#[test]
fn pin_gauge_drift_fails_the_law_too() {
    let mut spec = ftw_sim::scenario::spec("fleet-migrate", RunSeed(1));
    spec.switches = Switches::parse(["pin-gauge-drift"]).unwrap();
    let r = run(&spec);
    let c = law_check(&r);
    assert!(!c.ok && c.detail.contains("unclaimed"), "{}", c.detail);
}

/// Claiming on every path report fails the law in the flood too, at the first pin.
#[test]
fn claim_per_path_report_fails_in_the_flood() {
    let mut spec = ftw_sim::scenario::spec("fleet-pin-flood", RunSeed(1));
    spec.switches = Switches::parse(["claim-per-path-report"]).unwrap();
    let r = run(&spec);
    let c = law_check(&r);
    assert!(!c.ok && c.detail.contains("never on a path report"), "{}", c.detail);
}

/// One sender, one reactor (SPEC section 5: the kernel hashes the sender's address and
/// port): a sender's later datagram journaled as hashed to another reactor (and landing
/// there, so the socket agrees with the hash) is named at its arrival.
#[test]
fn a_sender_hashed_to_two_reactors_is_named_at_its_arrival() {
    let j = journal_of("fleet-migrate", 1);
    let mut seen = std::collections::BTreeSet::new();
    let again = |e: &Entry| match &e.step {
        Step::Fleet(FleetStep::Arrival { src, socket: SocketId::Listener(_), .. }) => !seen.insert(*src),
        _ => false,
    };
    let index = j.iter().position(again).expect("a sender's second datagram");
    let mut bad = j.clone();
    let Some(FleetStep::Arrival { hashed, socket, .. }) = fleet_step(&mut bad[index]) else { unreachable!("an arrival") };
    let other = ftw_sim::journal::fleet::ReactorId::new((hashed.index() + 1) % 4);
    (*hashed, *socket) = (other, SocketId::Listener(other));
    match judged(&bad) {
        Lockstep::Differs { index: at, model, .. } => assert!(at == index && model.contains("its earlier datagrams"), "{at} {model}"),
        l => panic!("a sender hashed to two reactors not caught: {l:?}"),
    }
}
