//! The race reference in lockstep (`race-agrees-with-spec`, issue 14 section 2):
//! it agrees with the correct phone model on drawn cases of every scenario that races,
//! it names the exact step of a planted disagreement, and it fails on real runs with each
//! bug switch that changes the race's decisions. A model-level test feeds both the model
//! and the reference input sequences around every boundary the SPEC has (the lead, the
//! 60 s window, the day), which drawn plans seldom reach.
//!
//! `SIM_CASES=K` changes the number of drawn cases per scenario.

use ftw_phone::memory::CloudTransportMemory;
use ftw_phone::network::{NetworkDesc, NetworkId};
use ftw_phone::race::{Action, CloudSockets, Decision};
use ftw_phone::session::SessionEnd;
use ftw_phone::{Switches as PhoneSwitches, Transport};
use ftw_properties::harness::spec_of;
use ftw_properties::strategy::{domain_for, draw};
use ftw_sim::journal::race::{memory_of, RaceInput, RaceStep};
use ftw_sim::journal::{Entry, Step};
use ftw_sim::law::reference::{race, Lockstep};
use ftw_sim::switch::Switches;
use ftw_sim::RunSeed;
use ftw_sim::RunSpec;

const LAW: &str = "race-agrees-with-spec";

/// Drawn cases per scenario, each asserted judged and agreeing. The law also runs
/// in props' `laws_hold` on every default case of each scenario (a disagreement
/// fails there); the long ones here (a simulated day and more, ~2 s each) get one case.
fn cases(scenario: &str) -> u64 {
    let default = if matches!(scenario, "phone-race" | "demotion-expiry") { 1 } else { 10 };
    std::env::var("SIM_CASES").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(default)
}

/// The law's check on one run: `Some(ok, detail)`, None when it was not judged.
fn judged(spec: &RunSpec) -> Option<(bool, String)> {
    let r = ftw_sim::scenario::run(spec).unwrap_or_else(|e| panic!("{} seed {}: {e}", spec.scenario, spec.seed.0));
    r.checks.iter().find(|c| c.law.name == LAW).map(|c| (c.ok, c.detail.clone()))
}

fn agrees_on_drawn_cases(scenario: &str) {
    for seed in 1..=cases(scenario) {
        let case = draw(&domain_for(scenario), RunSeed(seed)).current();
        let spec = spec_of(scenario, &Switches::default(), &case);
        match judged(&spec) {
            None => panic!("{scenario} seed {seed}: {LAW} not judged: the race journaled nothing"),
            Some((false, d)) => panic!("{scenario} seed {seed}: {d}\nplan:\n{}", toml::to_string(&case.plan).unwrap()),
            Some((true, _)) => {}
        }
    }
}

#[test]
fn agrees_phone_race() {
    agrees_on_drawn_cases("phone-race");
}

#[test]
fn agrees_demotion_expiry() {
    agrees_on_drawn_cases("demotion-expiry");
}

#[test]
fn agrees_quic_refused_unpaired_sessions_off() {
    for s in ["quic-refused", "unpaired", "sessions-off"] {
        agrees_on_drawn_cases(s);
    }
}

#[test]
fn agrees_session_and_session_moves() {
    for s in ["session", "session-moves"] {
        agrees_on_drawn_cases(s);
    }
}

/// A real run's journal (the default plan of `scenario`, seed 1).
fn journal_of_run(scenario: &str) -> Vec<Entry> {
    let r = ftw_sim::scenario::run(&ftw_sim::scenario::spec(scenario, RunSeed(1))).expect("runs");
    r.outcome.journal.clone()
}

/// A polled step's actions, decisions and deadline, to alter.
type PolledMut<'a> = (&'a mut Vec<Action>, &'a mut Vec<(u64, Decision)>, &'a mut Option<u64>);

fn polled_mut(e: &mut Entry) -> Option<PolledMut<'_>> {
    match &mut e.step {
        Step::Race(RaceStep { what: RaceInput::Polled { actions, decisions, deadline_ms, .. }, .. }) => Some((actions, decisions, deadline_ms)),
        _ => None,
    }
}

/// The first journal position whose polled decisions satisfy `f`.
fn find(journal: &[Entry], f: impl Fn(&Decision) -> bool) -> usize {
    let mut j = journal.to_vec();
    j.iter_mut().position(|e| polled_mut(e).is_some_and(|(_, d, _)| d.iter().any(|(_, d)| f(d)))).expect("the run made that decision")
}

/// Alter one step of a real journal with `alter`; the check must name exactly that step.
fn planted(journal: &[Entry], index: usize, alter: impl FnOnce(&mut Vec<Action>, &mut Vec<(u64, Decision)>, &mut Option<u64>)) {
    assert_eq!(race::check(journal), Some(Lockstep::Agreed { steps: journal.iter().filter(|e| matches!(e.step, Step::Race(_))).count() }));
    let mut j = journal.to_vec();
    let (a, d, t) = polled_mut(&mut j[index]).expect("a polled step");
    alter(a, d, t);
    match race::check(&j) {
        Some(Lockstep::Differs { index: at, .. }) => assert_eq!(at, index, "{:?}", race::check(&j)),
        other => panic!("planted disagreement at {index} not caught: {other:?}"),
    }
}

fn other(t: Transport) -> Transport {
    t.other()
}

#[test]
fn planted_disagreements_are_named_at_their_step() {
    let j = journal_of_run("quic-refused");
    // The race's first transport flipped.
    let i = find(&j, |d| matches!(d, Decision::RaceStarted { .. }));
    planted(&j, i, |a, d, _| {
        for (_, x) in d.iter_mut() {
            if let Decision::RaceStarted { first, .. } = x {
                *first = other(*first);
            }
        }
        for x in a.iter_mut() {
            if let Action::StartDial(t) = x {
                *t = other(*t);
            }
        }
    });
    // The WebSocket not dialled at once after QUIC was refused.
    let i = find(&j, |d| matches!(d, Decision::SecondAtOnce { .. }));
    planted(&j, i, |a, _, _| a.retain(|x| !matches!(x, Action::StartDial(_))));
    // The lead a millisecond late.
    let j2 = journal_of_run("phone-race");
    let i = find(&j2, |d| matches!(d, Decision::RaceStarted { .. }));
    planted(&j2, i, |_, _, t| *t = t.map(|t| t + 1));
    // A winner that the memory did not write.
    let i = find(&j, |d| matches!(d, Decision::MemoryWrite { .. }));
    planted(&j, i, |_, d, _| d.retain(|(_, x)| !matches!(x, Decision::MemoryWrite { .. })));
    // A demotion judged the other way.
    let j3 = journal_of_run("demotion-expiry");
    let i = find(&j3, |d| matches!(d, Decision::Demoted { .. }));
    planted(&j3, i, |_, d, _| {
        for (_, x) in d.iter_mut() {
            if let Decision::Demoted { until_ms, .. } = x {
                *until_ms += 1;
            }
        }
    });
}

/// A planted change to what the memory holds is named at its step too.
#[test]
fn planted_memory_change_is_named() {
    let j = journal_of_run("quic-refused");
    let i = find(&j, |d| matches!(d, Decision::MemoryWrite { .. }));
    let mut bad = j.clone();
    let Step::Race(RaceStep { what: RaceInput::Polled { memory, .. }, .. }) = &mut bad[i].step else { panic!("polled") };
    memory.clear();
    assert!(matches!(race::check(&bad), Some(Lockstep::Differs { index, .. }) if index == i));
}

/// The `Start` steps of a journal: (index, the model's name, the network it names).
fn starts(journal: &[Entry]) -> Vec<(usize, NetworkId, NetworkDesc)> {
    let start = |(i, e): (usize, &Entry)| match &e.step {
        Step::Race(RaceStep { what: RaceInput::Start { network, on }, .. }) => Some((i, network.clone(), on.clone())),
        _ => None,
    };
    journal.iter().enumerate().filter_map(start).collect()
}

/// Name the network of the `Start` at `index` `id`.
fn renamed(journal: &[Entry], index: usize, id: NetworkId) -> Vec<Entry> {
    let mut bad = journal.to_vec();
    let Step::Race(RaceStep { what: RaceInput::Start { network, .. }, .. }) = &mut bad[index].step else { panic!("a start") };
    *network = id;
    bad
}

/// SPEC 4: "A network is named by its interfaces and gateways and stored only as a hash."
/// A model that names two networks alike (as `NetworkDesc::canonical -> ""` did, which no
/// law saw: the memory and the reference were both keyed by the model's name), names one
/// network two ways, or keeps a name that is not a hash is named at that race's start.
#[test]
fn planted_network_names_are_named_at_their_start() {
    let j = journal_of_run("phone-race");
    let s = starts(&j);
    let (first, wifi, wifi_desc) = s.first().cloned().expect("the phone raced");
    let (moved, _, _) = s.iter().find(|(_, _, d)| *d != wifi_desc).cloned().expect("phone-race's seed 1 moves to another network");
    let at = |j: &[Entry]| match race::check(j) {
        Some(Lockstep::Differs { index, model, .. }) => (index, model),
        other => panic!("not caught: {other:?}"),
    };
    // Two networks, one name.
    let (i, model) = at(&renamed(&j, moved, wifi.clone()));
    assert!(i == moved && model.contains("both named"), "{i} {model}");
    // One network, a second name.
    let again = s.iter().find(|(i, _, d)| *i > first && *d == wifi_desc).map(|x| x.0).expect("a second race on the first network");
    let (i, model) = at(&renamed(&j, again, net(9)));
    assert!(i == again && model.contains("earlier"), "{i} {model}");
    // A name that is the network's description, not a hash.
    let plain: NetworkId = serde_json::from_str("\"if=en0;gw=nat-wifi\"").expect("a name");
    let (i, model) = at(&renamed(&j, first, plain));
    assert!(i == first && model.contains("named \"if=en0"), "{i} {model}");
}

/// A planted miscount (a dial counted twice, as `+=` to `*=` does once a count is 1)
/// is named at the step whose counters show it.
#[test]
fn planted_miscount_is_named() {
    let j = journal_of_run("quic-refused");
    let i = find(&j, |d| matches!(d, Decision::MemoryWrite { .. }));
    let mut bad = j.clone();
    let Step::Race(RaceStep { what: RaceInput::Polled { stats, .. }, .. }) = &mut bad[i].step else { panic!("polled") };
    stats.dials_websocket += 1;
    match race::check(&bad) {
        Some(Lockstep::Differs { index, model, .. }) => assert!(index == i && model.contains("counters"), "{index} {model}"),
        other => panic!("the miscount was not named: {other:?}"),
    }
}

/// A run with `switch` on: the law fails, and names the model's decision `named`.
fn fails_with(scenario: &str, switch: &str, seed: u64, named: &str) {
    let mut spec = ftw_sim::scenario::spec(scenario, RunSeed(seed));
    assert_eq!(judged(&spec).map(|j| j.0), Some(true), "{scenario} seed {seed} with no switch");
    spec.switches = Switches::parse([switch]).expect("a known switch");
    match judged(&spec) {
        Some((false, d)) => assert!(d.contains(named), "{switch}: {d}"),
        other => panic!("{switch} on {scenario} seed {seed}: {LAW} did not fail: {other:?}"),
    }
}

/// SPEC section 4's known bug: the WebSocket-first race cancels the QUIC probe.
#[test]
fn fails_with_ws_first_cancels_probe() {
    fails_with("quic-refused", "ws-first-cancels-probe", 1, "LeadCancelled { never_started: Quic }");
    fails_with("demotion-expiry", "ws-first-cancels-probe", 1, "LeadCancelled { never_started: Quic }");
}

/// SPEC section 4: closes from 1000 up other than 1005/1006 do not count, the rest do.
#[test]
fn fails_with_every_close_or_no_close_demotes() {
    fails_with("unpaired", "every-close-demotes", 1, "DemoteEveryClose");
    fails_with("sessions-off", "no-close-demotes", 1, "KeepNoCloseDemotes");
}

/// SPEC section 4's learning dial, and "the WebSocket at once if QUIC is refused".
#[test]
fn fails_with_losing_dial_cancelled_or_refused_waits() {
    fails_with("phone-race", "losing-dial-cancelled", 1, "LoserClosed { transport: Quic }");
    fails_with("quic-refused", "refused-waits-for-lead", 1, "StartDial(WebSocket)");
}

// ---- The model driven directly, at the SPEC's boundaries. ----

/// One input to the model.
#[derive(Clone, Copy, Debug)]
enum In {
    Start(u8),
    Refused,
    Failed(Transport),
    Opened(Transport),
    First,
    Ended(SessionEnd),
    Timeout,
}

/// Feed `inputs` (time, input) to a model with `sw`, journaling as the driver does.
fn journal_of_model(sw: PhoneSwitches, inputs: &[(u64, In)]) -> Vec<Entry> {
    let mut m = CloudSockets::with_memory(sw, CloudTransportMemory::new());
    let entry = |t_ms, what| Entry { t_ms, host: "phone".into(), step: Step::Race(RaceStep { instance: 0, what }) };
    let mut j = vec![entry(0, RaceInput::Launched { memory: vec![] })];
    for &(t, i) in inputs {
        let what = match i {
            In::Start(n) => RaceInput::Start { network: net(n), on: desc(n) },
            In::Refused => RaceInput::QuicRefused,
            In::Failed(x) => RaceInput::DialFailed(x),
            In::Opened(x) => RaceInput::Opened(x),
            In::First => RaceInput::FirstMessage,
            In::Ended(e) => RaceInput::SessionEnded(e),
            In::Timeout => RaceInput::Timeout,
        };
        j.push(entry(t, what));
        match i {
            In::Start(n) => m.start(t, net(n)),
            In::Refused => m.quic_refused(t),
            In::Failed(x) => m.dial_failed(t, x),
            In::Opened(x) => m.opened(t, x),
            In::First => m.first_message(t),
            In::Ended(e) => m.session_ended(t, e),
            In::Timeout => m.handle_timeout(t),
        }
        let actions = std::iter::from_fn(|| m.poll_action()).collect();
        let decisions = std::iter::from_fn(|| m.poll_decision()).collect();
        j.push(entry(t, RaceInput::Polled { actions, decisions, deadline_ms: m.poll_timeout(), memory: memory_of(m.memory()), stats: m.stats() }));
    }
    j
}

fn desc(n: u8) -> NetworkDesc {
    NetworkDesc::behind_nat(&format!("nat-{n}"))
}

fn net(n: u8) -> NetworkId {
    desc(n).id()
}

/// A small deterministic generator (splitmix64).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

const DAY: u64 = 24 * 60 * 60 * 1000;

/// A random session of inputs whose gaps sit at and around the SPEC's boundaries.
fn inputs(seed: u64) -> Vec<(u64, In)> {
    let mut g = Gen(seed);
    let gaps = [0, 1, 100, 249, 250, 251, 9_999, 10_000, 59_999, 60_000, 60_001, 3_600_000, DAY - 1, DAY, DAY + 1];
    let ends = [
        SessionEnd::PathDropped,
        SessionEnd::BrokenMessage,
        SessionEnd::LocalClose,
        SessionEnd::Closed { code: 999 },
        SessionEnd::Closed { code: 1000 },
        SessionEnd::Closed { code: 1005 },
        SessionEnd::Closed { code: 1006 },
        SessionEnd::Closed { code: 1013 },
        SessionEnd::Closed { code: 4403 },
    ];
    let (q, w) = (Transport::Quic, Transport::WebSocket);
    let mut t = 0;
    let mut out: Vec<(u64, In)> = vec![];
    for _ in 0..60 {
        // Often exactly at, or a millisecond around, a deadline counted from an earlier input.
        let anchor: Option<u64> = (!out.is_empty() && g.next().is_multiple_of(3)).then(|| out[(g.next() % out.len() as u64) as usize].0);
        let at = anchor.map(|a| a + g.pick(&[250, 10_000, 60_000, DAY]) + g.pick(&[0, 0, 1]) - 1 + g.pick(&[0, 1]));
        t = match at {
            Some(at) if at >= t => at,
            _ => t + g.pick(&gaps),
        };
        let i = match g.next() % 10 {
            0 | 1 => In::Start(g.pick(&[0, 1])),
            2 => In::Refused,
            3 => In::Failed(g.pick(&[q, w])),
            4 | 5 => In::Opened(g.pick(&[q, w])),
            6 => In::First,
            7 => In::Ended(g.pick(&ends)),
            _ => In::Timeout,
        };
        out.push((t, i));
    }
    out
}

#[test]
fn model_agrees_at_the_boundaries() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..2_000 {
        let j = journal_of_model(PhoneSwitches::default(), &inputs(seed));
        match race::check(&j) {
            Some(Lockstep::Agreed { .. }) => {}
            other => panic!("seed {seed}: {other:?}\ninputs: {:?}", inputs(seed)),
        }
        for e in j {
            if let Step::Race(RaceStep { what: RaceInput::Polled { decisions, .. }, .. }) = e.step {
                seen.extend(decisions.iter().map(|(_, d)| kind_of(d)));
            }
        }
    }
    // The sequences reach every rule the reference judges (else agreeing proves little).
    for k in [
        "race-started Default",
        "race-started Remembered",
        "race-started Demoted",
        "second-at-once",
        "lead-timer-fired",
        "lead-cancelled",
        "learning-dial-continues",
        "learning-probe-kept",
        "learning-win",
        "learning-ignored-demoted",
        "win-ignored-demoted",
        "loser-closed",
        "learning-dial-failed",
        "race-failed",
        "demoted DemoteNoFirstMessage",
        "demoted DemotePathDropInWindow",
        "not-demoted KeepServiceSpoke",
        "not-demoted KeepLocalClose",
        "not-demoted KeepAfterWindow",
    ] {
        assert!(seen.contains(k), "no sequence reached {k}: {seen:?}");
    }
}

/// A decision's kind, with the reason of a race start or a demotion verdict.
fn kind_of(d: &Decision) -> String {
    let name = |dbg: String| dbg.split([' ', '{', '(']).next().unwrap_or_default().to_string();
    match d {
        Decision::RaceStarted { reason, .. } => format!("{} {}", d.kind(), name(format!("{reason:?}"))),
        Decision::Demoted { why, .. } | Decision::NotDemoted { why, .. } => format!("{} {}", d.kind(), name(format!("{why:?}"))),
        _ => d.kind().to_string(),
    }
}

/// Every phone switch that changes the race is caught on some of the same sequences.
#[test]
fn model_switches_are_caught_at_the_boundaries() {
    let switches: [(&str, PhoneSwitches); 5] = [
        ("ws_first_cancels_quic_probe", PhoneSwitches { ws_first_cancels_quic_probe: true, ..Default::default() }),
        ("every_close_demotes", PhoneSwitches { every_close_demotes: true, ..Default::default() }),
        ("no_close_demotes", PhoneSwitches { no_close_demotes: true, ..Default::default() }),
        ("losing_quic_dial_cancelled", PhoneSwitches { losing_quic_dial_cancelled: true, ..Default::default() }),
        ("refused_waits_for_lead", PhoneSwitches { refused_waits_for_lead: true, ..Default::default() }),
    ];
    for (name, sw) in switches {
        let caught = (0..2_000).any(|seed| matches!(race::check(&journal_of_model(sw, &inputs(seed))), Some(Lockstep::Differs { .. })));
        assert!(caught, "switch {name} never caught");
    }
}

/// The fixed model and the reference agree on `seq`, and the model decided `must` there.
fn agrees_deciding(seq: &[(u64, In)], must: &[&str]) {
    let j = journal_of_model(PhoneSwitches::default(), seq);
    assert!(matches!(race::check(&j), Some(Lockstep::Agreed { .. })), "{:?}\ninputs {seq:?}", race::check(&j));
    let said: Vec<String> = j
        .iter()
        .filter_map(|e| match &e.step {
            Step::Race(RaceStep { what: RaceInput::Polled { decisions, .. }, .. }) => {
                Some(decisions.iter().map(|(t, d)| format!("{t} {d:?}")).collect::<Vec<_>>())
            }
            _ => None,
        })
        .flatten()
        .collect();
    for m in must {
        assert!(said.iter().any(|s| s.contains(m)), "the model never decided {m}: {said:#?}");
    }
}

/// Directed sequences at each edge, so an off-by-one at any of them disagrees.
#[test]
fn model_agrees_exactly_at_each_edge() {
    use In::*;
    use Transport::{Quic as Q, WebSocket as W};
    let (t, d) = (1_000, 1_000 + DAY); // demoted at t, for a day
    let demote = [(0, Start(0)), (100, Opened(Q)), (200, First), (t, Ended(SessionEnd::PathDropped))];
    // A WebSocket win inside the day; the last millisecond of the demotion; the first after.
    let mut s = demote.to_vec();
    s.extend([(2_000, Start(0)), (2_100, Opened(W)), (2_250, Timeout), (2_300, Opened(Q)), (3_000, Ended(SessionEnd::LocalClose))]);
    s.extend([(d - 1, Start(0)), (d - 1 + 100, Opened(W)), (d + 300, Ended(SessionEnd::LocalClose))]);
    s.extend([(d + 400, Start(0)), (d + 450, Opened(W)), (d + 650, Timeout), (d + 700, Opened(Q)), (d + 800, Ended(SessionEnd::LocalClose))]);
    s.extend([(d + 900, Start(0))]);
    agrees_deciding(&s, &["LearningIgnoredDemoted", "Demoted { until_ms: 86401000 }", "LearningWin", "Remembered { written_ms: 86401700 }"]);
    // A QUIC win at the very end of the demotion is written.
    let mut s = demote.to_vec();
    s.extend([(d - 300, Start(0)), (d - 50, Timeout), (d, Opened(Q)), (d + 10, Ended(SessionEnd::LocalClose)), (d + 20, Start(0))]);
    agrees_deciding(&s, &["MemoryWrite", "Remembered { written_ms: 86401000 }"]);
    // The same race a millisecond earlier: the win is ignored.
    let mut s = demote.to_vec();
    s.extend([(d - 301, Start(0)), (d - 51, Timeout), (d - 1, Opened(Q))]);
    agrees_deciding(&s, &["WinIgnoredDemoted"]);
    // The 60 s window: a drop at 59 999 ms demotes, at 60 000 ms it does not.
    for (gap, want) in [(59_999, "DemotePathDropInWindow"), (60_000, "KeepAfterWindow")] {
        agrees_deciding(
            &[(0, Start(1)), (100, Opened(Q)), (200, First), (200 + gap, Ended(SessionEnd::Closed { code: 1006 })), (200 + gap + 1, Start(1))],
            &[want],
        );
    }
    // The remembered winner: the last millisecond of its day, then nothing remembered.
    let ws = [(0, Start(1)), (0, Refused), (90, Opened(W)), (100, Ended(SessionEnd::LocalClose))];
    let mut s = ws.to_vec();
    s.extend([(90 + DAY - 1, Start(1)), (90 + DAY, Ended(SessionEnd::LocalClose)), (90 + DAY, Start(1))]);
    agrees_deciding(&s, &["Remembered { written_ms: 90 }", "reason: Default"]);
    // The lead: the second dial exactly 250 ms after the first; a dial given up after 10 s.
    agrees_deciding(
        &[(0, Start(0)), (249, Timeout), (250, Timeout), (10_000, Timeout), (10_250, Timeout)],
        &["250 LeadTimerFired", "10000 DialFailed", "10250 RaceFailed"],
    );
}

/// `race-clock` drives the model at every deadline with no network: the
/// reference agrees on its drawn cases, and each race switch breaks it there
/// within the scenario's cases (the switches were not written against it).
#[test]
fn race_clock_agrees_and_each_race_switch_breaks_it() {
    agrees_on_drawn_cases("race-clock");
    for switch in ["ws-first-cancels-probe", "every-close-demotes", "no-close-demotes", "losing-dial-cancelled", "refused-waits-for-lead"] {
        let sw = Switches::parse([switch]).expect("known switch");
        let caught = (1..=8).any(|seed| {
            let case = draw(&domain_for("race-clock"), RunSeed(seed)).current();
            judged(&spec_of("race-clock", &sw, &case)).is_some_and(|(ok, _)| !ok)
        });
        assert!(caught, "{switch}: race-clock agreed on 8 cases");
    }
}
