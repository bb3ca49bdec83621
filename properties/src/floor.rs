//! The floor of a run (issue 37): what the real work it cannot avoid costs on
//! this machine, measured in the same process by microbenchmarks of the
//! primitives (the workloads of `ftw_sim::floor`), and priced by what the run did.
//!
//! The work of a run: its QUIC handshakes (TLS 1.3 inside; both ends are
//! simulated, and each records a `quic.connected` trace event), its QUIC
//! datagrams (`udp.send` events: each sealed by one end, opened by the other,
//! as quinn-proto does it with its framing and acknowledgements), its Noise
//! IK handshakes (two messages written each, both ends simulated) and its
//! Noise transport messages (ChaCha20-Poly1305 sealed and opened, priced per
//! message and per byte). Everything else a run does (the network and its
//! fault pieces, tokio and turmoil, the models, the trace, the journal, the
//! laws) is above the floor.
//!
//! Timing reads the tool's own wall clock, never seen by a run.

use std::time::Instant;

use ftw_sim::floor::{NoiseKeys, Quic, QuicKit};
use ftw_wire::noise::Session;

/// Repetitions of each microbenchmark; each price is the median.
const REPS: usize = 31;
/// Datagrams the client sends per repetition of the QUIC datagram price.
const SENDS_PER_REP: usize = 64;
/// Bytes of a large Noise message (a full datagram) and of a small one (a live, an acknowledgement).
const NOISE_FULL_LEN: usize = 1_200;
const NOISE_SMALL_LEN: usize = 64;

/// What each unit of real work costs on this machine, in microseconds.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Prices {
    /// A full QUIC + TLS 1.3 handshake, both ends, no resumption.
    pub quic_handshake_us: f64,
    /// One QUIC datagram between two connected ends (1,100 bytes of stream
    /// data one way, an acknowledgement the other: the mean of both).
    pub quic_datagram_us: f64,
    /// A Noise IK handshake, both ends.
    pub noise_handshake_us: f64,
    /// A Noise transport message sealed and opened: per message, and per byte.
    pub noise_msg_us: f64,
    pub noise_byte_us: f64,
}

/// The real work of one run.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Work {
    pub quic_handshakes: f64,
    pub quic_datagrams: u64,
    pub noise_handshakes: f64,
    pub noise_msgs: u64,
    pub noise_bytes: u64,
}

impl Work {
    /// The work of a run, from its trace and the Noise layer's counts over it.
    pub fn of(report: &ftw_sim::scenario::RunReport, noise: ftw_wire::noise::work::Work) -> Work {
        let count = |k: &str| report.outcome.trace.counts().get(k).copied().unwrap_or(0);
        Work {
            quic_handshakes: count("quic.connected") as f64 / 2.0,
            quic_datagrams: count("udp.send"),
            noise_handshakes: noise.handshake_msgs as f64 / 2.0,
            noise_msgs: noise.sealed,
            noise_bytes: noise.sealed_bytes,
        }
    }

    /// The floor: this work at these prices, in milliseconds.
    pub fn floor_ms(&self, p: &Prices) -> f64 {
        let us = self.quic_handshakes * p.quic_handshake_us
            + self.quic_datagrams as f64 * p.quic_datagram_us
            + self.noise_handshakes * p.noise_handshake_us
            + self.noise_msgs as f64 * p.noise_msg_us
            + self.noise_bytes as f64 * p.noise_byte_us;
        us / 1000.0
    }
}

/// Measure every price (a second or two).
pub fn measure() -> Prices {
    let base = Instant::now(); // quinn-proto's instants count from here, in simulated time
    let kit = QuicKit::new();
    let quic_handshake_us = median_us(|| (drop(Quic::connected(&kit, base)), 1).1);
    let mut q = Quic::connected(&kit, base);
    let quic_datagram_us = median_us(|| {
        let before = q.datagrams;
        (0..SENDS_PER_REP).for_each(|_| q.send_one());
        q.datagrams - before
    });
    let keys = NoiseKeys::new();
    let noise_handshake_us = median_us(|| (drop(keys.handshake()), 1).1);
    let (mut a, mut b) = keys.handshake();
    let small = median_us(|| seal_open(&mut a, &mut b, NOISE_SMALL_LEN));
    let full = median_us(|| seal_open(&mut a, &mut b, NOISE_FULL_LEN));
    let noise_byte_us = (full - small).max(0.0) / (NOISE_FULL_LEN - NOISE_SMALL_LEN) as f64;
    let noise_msg_us = (small - noise_byte_us * NOISE_SMALL_LEN as f64).max(0.0);
    Prices { quic_handshake_us, quic_datagram_us, noise_handshake_us, noise_msg_us, noise_byte_us }
}

/// Sixteen Noise messages of `len` bytes sealed by `a` and opened by `b`.
fn seal_open(a: &mut Session, b: &mut Session, len: usize) -> u64 {
    const N: u64 = 16;
    let plain = vec![7u8; len];
    for _ in 0..N {
        let sealed = a.seal(&plain).expect("seals");
        b.open_raw(&sealed).expect("opens");
    }
    N
}

/// The median over [`REPS`] timings (after one to warm up) of `f`'s wall time
/// divided by the units of work it reports, in µs per unit.
fn median_us(mut f: impl FnMut() -> u64) -> f64 {
    f();
    let mut t: Vec<f64> = (0..REPS)
        .map(|_| {
            let start = Instant::now(); // the tool's wall clock, never seen by a run
            let units = f().max(1);
            start.elapsed().as_secs_f64() * 1e6 / units as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[REPS / 2]
}
