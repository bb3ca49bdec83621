//! `ftwsim table`: the same bytes on every run, and QUIC's cold connect at least
//! one round trip faster than the WebSocket's without loss (TCP + TLS + upgrade
//! is three round trips before the first message, QUIC's handshake one).

use ftw_phone::Transport;
use ftw_sim::table::{self, render, runs, Profile, TableOpts};
use ftw_sim::RunSeed;

#[test]
fn quic_cold_connect_is_a_round_trip_faster_at_0_loss() {
    let c = runs::CONDS[0];
    let n = 3;
    let (ws, _) = runs::connects(RunSeed(5), c, Transport::WebSocket, n, Profile::Ideal);
    let (q, _) = runs::connects(RunSeed(5), c, Transport::Quic, n, Profile::Ideal);
    let ws: Vec<f64> = ws.into_iter().map(|s| s.expect("a WebSocket cold connect finished")).collect();
    let q: Vec<f64> = q.into_iter().map(|s| s.expect("a QUIC cold connect finished")).collect();
    let rtt = 2.0 * table::consts::ONE_WAY_MS as f64;
    let ws_min = ws.iter().copied().fold(f64::MAX, f64::min);
    let q_max = q.iter().copied().fold(0.0, f64::max);
    println!("cold connect at 40 ms: WebSocket {ws:?}, QUIC {q:?}");
    assert!(q_max + rtt <= ws_min, "QUIC's slowest cold connect {q_max} ms is not a round trip ({rtt} ms) below the WebSocket's fastest {ws_min} ms");
    // Without loss every sample is the same count of round trips.
    assert!(ws.iter().all(|v| *v == ws[0]) && q.iter().all(|v| *v == q[0]), "no loss, yet the samples differ: {ws:?} {q:?}");
}

#[test]
fn the_table_is_the_same_bytes_on_two_runs() {
    let opts = TableOpts { seed: RunSeed(3), samples: 2, ..TableOpts::default() };
    let a = table::run(&opts);
    let b = table::run(&opts);
    let (ma, mb) = (render::markdown(&a), render::markdown(&b));
    assert_eq!(ma, mb);
    assert_eq!(render::json(&a), render::json(&b));
    assert_eq!(render::samples_csv(&a), render::samples_csv(&b));
    // Every row of the issue is there.
    for what in [
        table::what::COLD,
        table::what::RECONNECT,
        table::what::TAP,
        table::what::FRAME,
        table::what::LIVE,
        table::what::SWITCH,
        table::what::AGE,
        table::what::SCAN,
        table::what::BACKGROUND,
        table::what::IDLE,
    ] {
        assert!(a.rows.iter().any(|r| r.what == what), "no row {what}");
    }
    assert_eq!(a.rows.iter().filter(|r| r.table == "system").count(), 7 * 3 * 2);
    assert_eq!(a.rows.iter().filter(|r| r.table == "phone").count(), 3 * 3 * 3);
    assert_eq!(a.rows.iter().filter(|r| r.table == "idle").count(), 3);
    println!("{ma}");
    // Another seed gives other samples.
    let c = table::run(&TableOpts { seed: RunSeed(4), samples: 2, ..TableOpts::default() });
    assert_ne!(render::samples_csv(&a), render::samples_csv(&c));
}

#[test]
fn percentiles_are_nearest_rank() {
    let v: Vec<f64> = (1..=20).map(f64::from).collect();
    assert_eq!(table::percentile(&v, 50.0), Some(10.0));
    assert_eq!(table::percentile(&v, 95.0), Some(19.0));
    assert_eq!(table::percentile(&[7.0], 95.0), Some(7.0));
    assert_eq!(table::percentile(&[], 50.0), None);
}

/// The full table at the default samples, with its wall time (the tool's own
/// clock, never seen by the runs): `cargo test --release -p ftw-sim --test table -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_the_default_table() {
    let wall = std::time::Instant::now();
    let t = table::run(&TableOpts::default());
    println!("{}", render::markdown(&t));
    println!("wall: {:.1} s", wall.elapsed().as_secs_f64());
}
