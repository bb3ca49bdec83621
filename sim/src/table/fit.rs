//! The fit of the hosts' processing (issue 16 section 3): on four figures of
//! seed 000 and nothing else. QUIC's rows depend only on the UDP service time and
//! the WebSocket's only on the TCP one, so each is a one-dimensional search:
//! the value whose two rows are nearest the seed's (least squares of the
//! relative errors). `ftwsim table --fit` prints it.

use ftw_phone::Transport;

use super::profile::Profile;
use super::runs::{self, Sample, CONDS};
use super::what;
use crate::world::plan::ProcessingPlan;
use crate::world::seed::RunSeed;

/// The four figures of seed 000 the hosts' processing is fitted on (issue 16
/// section 3), at 40 ms and 0 % loss, p50 ms: (row, transport, the seed's figure).
pub const FIT_TARGETS: [(&str, Transport, f64); 4] = [
    (what::FRAME, Transport::WebSocket, 49.0),
    (what::FRAME, Transport::Quic, 52.0),
    (what::COLD, Transport::WebSocket, 326.0),
    (what::COLD, Transport::Quic, 236.0),
];

/// The four fitted rows' p50 with `processing`, in [`FIT_TARGETS`]' order:
/// the cold connects and the 90 s stream at 40 ms without loss, nothing else.
pub fn fit_rows(seed: RunSeed, samples: usize, processing: crate::world::plan::ProcessingPlan) -> [f64; 4] {
    let pr = Profile::RigWith(processing);
    let c = CONDS[0];
    let p50 = |v: &[Sample]| super::row("system", c, "", "", v).p50_ms.unwrap_or(f64::NAN);
    let mut out = [f64::NAN; 4];
    for (i, (w, t, _)) in FIT_TARGETS.iter().enumerate() {
        let tn = super::transport_name(*t);
        out[i] = if *w == what::FRAME {
            let s = runs::stream(super::sub(seed, &format!("system.{}.{tn}.stream", c.name)), c, *t, samples, pr);
            p50(&s.lane0.iter().map(|v| Some(*v)).collect::<Vec<_>>())
        } else {
            p50(&runs::connects(super::sub(seed, &format!("system.{}.{tn}.connects", c.name)), c, *t, samples, pr).0)
        };
    }
    out
}

/// One value tried: the service time (µs), the two rows' p50 and the error.
#[derive(Clone, Debug)]
pub struct Tried {
    pub us: u64,
    pub p50: [f64; 2],
    pub err: f64,
}

/// The search over one transport's service time: every value tried, and the best.
pub fn search(seed: RunSeed, samples: usize, t: Transport, grid_us: &[u64]) -> Vec<Tried> {
    let idx: Vec<usize> = FIT_TARGETS.iter().enumerate().filter(|(_, x)| x.1 == t).map(|(i, _)| i).collect();
    grid_us
        .iter()
        .map(|&us| {
            let base = crate::world::net::processing::RIG_PROCESSING;
            let p = match t {
                Transport::Quic => ProcessingPlan { udp_us: us, ..base },
                Transport::WebSocket => ProcessingPlan { tcp_us: us, ..base },
            };
            let got = fit_rows(seed, samples, p);
            let p50 = [got[idx[0]], got[idx[1]]];
            let err = idx.iter().zip(p50).map(|(&i, v)| ((v - FIT_TARGETS[i].2) / FIT_TARGETS[i].2).powi(2)).sum();
            Tried { us, p50, err }
        })
        .collect()
}
