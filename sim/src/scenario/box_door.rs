//! `box-door`: the box's door for phone sessions at its limits, with no
//! network. A fake cloud on the box's uplink hands the real box model
//! (`ftw_box::BoxNode`) `Open(chan, m1)` from seven phones (five paired, two
//! not), a phone opening again on a new channel, the same channel twice,
//! garbage where message 1 should be (a stranger), closes, and the uplink
//! dropping and coming back, at times drawn from the run seed. A network plan
//! never reaches these: every other scenario has one phone, so the box's
//! session limit (four, then 4429) is never met. Issue 14 section 3 ("an
//! attacker or a stranger wherever the SPEC has a defence"; every boundary a
//! rule has). The box's reference (`box-agrees-with-spec`) judges every step;
//! the law here is the state after the end: once the cloud has closed every
//! channel, the box holds no session.

use std::time::Duration;

use ftw_box::uplink::UpMsg;
use ftw_box::{BoxConfig, BoxNode, BoxOutput};
use ftw_wire::noise::{HandshakeParams, Initiator, Keypair, SeededResolver};
use rand::{Rng, RngCore};
use rand_chacha::ChaCha20Rng;

use super::def::{broken, Check, RunReport, ScenarioDef};
use super::laws;
use crate::drive::app::r#box::{config_step, jot, jot_notes, jot_output, jot_redial};
use crate::world::domain::Domain;
use crate::world::host::{addr, BOX};
use crate::world::journal::r#box::{header, BoxStep};
use crate::world::switch::Switch;
use crate::world::topology::{run_offline, RunSpec};
use crate::world::trace;

/// Phones that try the box; the first `PAIRED` are paired.
const PHONES: usize = 7;
const PAIRED: usize = 5;
/// Inputs one run hands the box.
const STEPS: usize = 150;

/// The fake cloud, the box, and what the law needs.
struct Door {
    now: u64,
    node: BoxNode,
    rng: ChaCha20Rng,
    phones: Vec<Keypair>,
    box_pub: ftw_wire::noise::Key,
    resolver: SeededResolver,
    /// Channels the fake cloud opened and has not closed.
    open: Vec<u32>,
    next_chan: u32,
    up: bool,
}

pub fn run(spec: &RunSpec) -> RunReport {
    let (outcome, held) = run_offline(spec, BOX, addr::BOX, workload);
    let checks = vec![Check {
        law: &laws::NOTHING_HELD_AFTER_END,
        ok: held == Some(0),
        detail: format!("after the cloud closed every channel and the box's deadlines ran, it holds {held:?} sessions"),
    }];
    RunReport { outcome, checks }
}

/// The run; returns how many sessions the box holds at the end.
fn workload(spec: &RunSpec) -> usize {
    let mut keys = spec.seed.stream("box-door.keys");
    let box_key = SeededResolver::from_rng(&mut keys).generate_keypair();
    let phones: Vec<Keypair> = (0..PHONES).map(|_| SeededResolver::from_rng(&mut keys).generate_keypair()).collect();
    let paired = phones[..PAIRED].iter().map(|k| k.public).collect();
    let box_pub = box_key.public;
    let mut cfg = BoxConfig::new("box-1", box_key, paired, spec.seed.sub_seed("box-door.site"));
    cfg.switches = spec.switches.wire();
    cfg.bugs = spec.switches.boxn();
    let node = BoxNode::new(cfg, spec.seed.key("box-door.model"));
    jot(BOX, 0, config_step(node.config()));
    let resolver = SeededResolver::from_rng(&mut keys);
    let mut d = Door { now: 0, node, rng: spec.seed.stream("box-door.schedule"), phones, box_pub, resolver, open: Vec::new(), next_chan: 1, up: false };
    d.outputs();
    for _ in 0..STEPS {
        let wait = [0, 1, 999, 1000, 1001, 4999, 5000, 5001, d.rng.random_range(0..20_000)][d.rng.random_range(0..9)];
        d.advance(d.now + wait);
        d.step();
    }
    for chan in std::mem::take(&mut d.open) {
        d.message(&UpMsg::close(chan, 1000).encode());
    }
    d.advance(d.now + 60_000);
    d.node.session_count()
}

impl Door {
    /// Run the box's deadlines up to `until`.
    fn advance(&mut self, until: u64) {
        while let Some(t) = self.node.poll_timeout().filter(|&t| t <= until) {
            self.now = t.max(self.now);
            jot(BOX, self.now, BoxStep::Timeout);
            self.node.handle_timeout(self.now);
            jot_notes(BOX, self.now, &mut self.node);
            self.outputs();
        }
        self.now = until;
    }

    /// One input, drawn.
    fn step(&mut self) {
        if !self.up {
            return;
        }
        match self.rng.random_range(0..12) {
            0..=5 => {
                let chan = self.next_chan;
                self.next_chan += 1;
                let phone = self.rng.random_range(0..PHONES);
                let m1 = self.m1(phone);
                self.open.push(chan);
                self.message(&UpMsg { kind: ftw_box::uplink::Kind::Open, chan, payload: m1 }.encode());
            }
            6 if !self.open.is_empty() => {
                // The same channel opened again.
                let chan = self.open[self.rng.random_range(0..self.open.len())];
                let m1 = self.m1(0);
                self.message(&UpMsg { kind: ftw_box::uplink::Kind::Open, chan, payload: m1 }.encode());
            }
            7 => {
                // A stranger: bytes that are no message 1.
                let chan = self.next_chan;
                self.next_chan += 1;
                let mut junk = vec![0u8; self.rng.random_range(0..120)];
                self.rng.fill_bytes(&mut junk);
                self.open.push(chan);
                self.message(&UpMsg { kind: ftw_box::uplink::Kind::Open, chan, payload: junk }.encode());
            }
            8..=10 if !self.open.is_empty() => {
                let i = self.rng.random_range(0..self.open.len());
                let chan = self.open.swap_remove(i);
                self.message(&UpMsg::close(chan, 1000).encode());
            }
            11 => {
                // The uplink drops; the cloud forgets the box's channels.
                jot(BOX, self.now, BoxStep::Closed { code: 1006 });
                self.node.handle_closed(self.now, 1006);
                jot_redial(BOX, self.now, &self.node);
                jot_notes(BOX, self.now, &mut self.node);
                self.up = false;
                self.open.clear();
                self.outputs();
            }
            _ => {}
        }
    }

    /// Message 1 of phone `k`'s box session.
    fn m1(&mut self, k: usize) -> Vec<u8> {
        let p = HandshakeParams::box_session_initiator(self.phones[k].clone(), self.box_pub, self.resolver.clone());
        Initiator::new(&p).and_then(|i| i.write_msg1(b"")).map(|(_, m1)| m1).expect("message 1")
    }

    /// The fake cloud hands the box an uplink message.
    fn message(&mut self, bytes: &[u8]) {
        let at = Duration::from_millis(self.now);
        trace::record_at(at, BOX, "box.up", format!("{:?} {} B", header(bytes), bytes.len()));
        jot(BOX, self.now, BoxStep::Up { datagram: false, header: header(bytes), len: bytes.len(), tampered: false });
        self.node.handle_message(self.now, bytes);
        jot_notes(BOX, self.now, &mut self.node);
        trace::record_at(at, BOX, "box.holds", self.node.session_count().to_string());
        self.outputs();
    }

    /// Everything the box asks, journaled; a dial is answered at once.
    fn outputs(&mut self) {
        while let Some(out) = self.node.poll_output() {
            jot_output(BOX, self.now, &out);
            if let BoxOutput::Dial { .. } = out {
                jot(BOX, self.now, BoxStep::UplinkUp { datagrams: true });
                self.node.handle_uplink_up(self.now, true);
                jot_notes(BOX, self.now, &mut self.node);
                self.up = true;
            }
        }
    }
}

/// `box-door`.
pub const BOX_DOOR: ScenarioDef = ScenarioDef {
    name: "box-door",
    about: "the box's door for phone sessions at its limits (seven phones, five paired, strangers, reopened channels, uplink drops), no network",
    // No network: the plan is not used; every case draws its schedule from its seed.
    domain: Domain { kinds: &[], faults_max: 0, test_cases: 32, ..Domain::DEFAULT },
    laws: &[broken(&laws::NOTHING_HELD_AFTER_END, &[Switch::BoxKeepsClosedSessions])],
    run,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::seed::RunSeed;
    use crate::world::switch::Switches;

    fn held(seed: u64, switches: &[&str]) -> usize {
        let mut spec = RunSpec::new("box-door", RunSeed(seed));
        spec.switches = Switches::parse(switches.iter().copied()).expect("known switches");
        workload(&spec)
    }

    #[test]
    fn the_box_holds_nothing_once_every_channel_is_closed() {
        for seed in 1..=6 {
            assert_eq!(held(seed, &[]), 0, "seed {seed}");
        }
    }

    #[test]
    fn a_box_that_keeps_closed_sessions_is_seen() {
        assert!((1..=4).any(|seed| held(seed, &["box-keeps-closed-sessions"]) > 0));
    }
}
