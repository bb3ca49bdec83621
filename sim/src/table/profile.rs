//! The rig the table runs (issue 16 section 5): `rig`, the seed's rig as far as
//! it is known (Linux's TCP, quic-go's timing, the hosts' processing, the
//! phone leg of table 2 as the seed measured it), or `ideal`, the protocol's
//! floor (stock smoltcp and quinn-proto, no processing, 20 ms each way).

use serde::Serialize;

use ftw_crypto::QuicTransportParams;

use super::consts::{ONE_WAY_MS, PHONE_LEG_JITTER_MS, PHONE_LEG_ONE_WAY_MS};
use crate::world::net::processing::RIG_PROCESSING;
use crate::world::plan::{ProcessingPlan, TcpPlan};

/// Which rig.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    #[default]
    Rig,
    Ideal,
    /// The rig with other processing (`ftwsim table --fit` tries these).
    RigWith(ProcessingPlan),
}

/// The names `--profile` takes.
pub const PROFILES: &[(&str, Profile)] = &[("rig", Profile::Rig), ("ideal", Profile::Ideal)];

impl Profile {
    pub fn parse(s: &str) -> Result<Profile, String> {
        PROFILES.iter().find(|(n, _)| *n == s).map(|(_, p)| *p).ok_or_else(|| {
            let names: Vec<&str> = PROFILES.iter().map(|(n, _)| *n).collect();
            format!("unknown profile {s:?}: must be one of {}", names.join(", "))
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Profile::Rig | Profile::RigWith(_) => "rig",
            Profile::Ideal => "ideal",
        }
    }

    /// Every host's TCP.
    pub fn tcp(self) -> TcpPlan {
        match self {
            Profile::Rig | Profile::RigWith(_) => TcpPlan::Linux,
            Profile::Ideal => TcpPlan::Smoltcp,
        }
    }

    /// The QUIC of the rig's Go ends (ftwcloudd, the box, the Go test phone).
    /// The QUIC stand-in: the rig's stacks as quic-go behaves (PATCH.md, "The QUIC
    /// profile"), or, ideally, quinn-proto's own migration (RFC 9000 section 9.3:
    /// move at once, validate there) with every patch.
    pub fn quic_plan(self) -> crate::world::plan::QuicPlan {
        match self {
            Profile::Rig | Profile::RigWith(_) => crate::world::plan::QuicPlan::Rig,
            Profile::Ideal => crate::world::plan::QuicPlan::Patched,
        }
    }

    pub fn quic(self) -> QuicTransportParams {
        match self {
            Profile::Rig | Profile::RigWith(_) => QuicTransportParams::quic_go(),
            Profile::Ideal => QuicTransportParams::default(),
        }
    }

    /// Whether table 1's phone, the Go test phone, probes a new path before it
    /// moves there, as quic-go's client does (`Path.Probe`; the seed: "the time is
    /// the path probe and switch"): under the rig. The ideal profile's phone moves
    /// at once, as quinn-proto's client does.
    pub fn go_phone_probes_path(self) -> bool {
        matches!(self, Profile::Rig | Profile::RigWith(_))
    }

    /// The hosts' processing per datagram received.
    pub fn processing(self) -> Option<ProcessingPlan> {
        match self {
            Profile::Rig => Some(RIG_PROCESSING),
            Profile::RigWith(p) => Some(p),
            Profile::Ideal => None,
        }
    }

    /// Table 2's phone leg, one way: (fixed ms, ordered jitter ms).
    pub fn phone_leg(self) -> (u64, u64) {
        match self {
            Profile::Rig | Profile::RigWith(_) => (PHONE_LEG_ONE_WAY_MS, PHONE_LEG_JITTER_MS),
            Profile::Ideal => (ONE_WAY_MS, 0),
        }
    }

    /// One line for the table's header.
    pub fn describe(self) -> String {
        let tcp = match self.tcp() {
            TcpPlan::Linux => "Linux 6.x TCP",
            TcpPlan::Smoltcp => "stock smoltcp TCP",
        };
        let quic = match self {
            Profile::Rig | Profile::RigWith(_) => {
                "quic-go timing on the Go ends (first PTO 200 ms, NewReno from 32 x 1,280 B), RFC 9002 defaults on the iPhone; quic-go's migration and ACKs (the Go phone probes its new path, 200 ms doubling; the cloud probes a moved phone and switches once it answers; quinn-proto PATCH.md sections 11 to 13)"
            }
            Profile::Ideal => "quinn-proto defaults and its own migration on every end",
        };
        let processing = match self.processing() {
            Some(p) => format!(
                "processing per datagram received {:.1} ms over UDP, {:.1} ms over TCP (+/- {} %)",
                p.udp_us as f64 / 1000.0,
                p.tcp_us as f64 / 1000.0,
                p.spread_pct
            ),
            None => "no processing time".into(),
        };
        let (fixed, jitter) = self.phone_leg();
        let leg = if jitter > 0 { format!("table 2's phone leg {fixed} + 0-{jitter} ms each way") } else { format!("table 2's phone leg {fixed} ms each way") };
        format!("profile `{}`: {tcp}; {quic}; {processing}; {leg}", self.name())
    }
}
