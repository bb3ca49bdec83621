//! Strangers at the cloud's door: hosts nobody talked to, sending what a server
//! must survive (SPEC section 5's defences; RFC 9000 sections 5.2, 9.3, 10.3).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use rand::{Rng, RngCore};

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// During its windows `[from, until)`, beside each UDP datagram its host sends, a
/// stranger behind the same public address (another household on a carrier-grade
/// NAT: a port from [`STRANGER_PORT_FIRST`] up, a fresh one per datagram) sends the
/// same destination, [`STRANGER_LEAD`] ahead of it, one of:
/// * a short header with a random 8-byte id (an id nobody minted, whose byte 0
///   names some reactor all the same);
/// * the host's own datagram, its first 9 bytes (a short header's id) kept and the
///   rest random: an off-path stranger who learnt the id, with nothing that
///   decrypts (a server must not move the connection to it, RFC 9000 section 9.3);
/// * a long header (version 1, random ids of 0 to 20 bytes) with a random body;
/// * 1 to 60 random bytes.
///
/// Replies to the stranger die at the NAT (no mapping). Tunnelled TCP passes.
pub struct Strangers {
    pub windows: Vec<(Duration, Duration)>,
    next_port: u16,
}

/// The first stranger port: below the forged copies' range (from 20,000) and the
/// NATs' own (from 49,152).
pub const STRANGER_PORT_FIRST: u16 = 10_000;
/// The last, then it wraps.
const STRANGER_PORT_LAST: u16 = 19_999;

/// Whether `from` is a stranger's source: a port of the strangers' range. What
/// a stranger sends is not its host's traffic, so a law that asks where a host
/// is now reads past it.
pub fn is_stranger(from: SocketAddr) -> bool {
    (STRANGER_PORT_FIRST..=STRANGER_PORT_LAST).contains(&from.port())
}

/// How far a stranger's datagram runs ahead of the host's.
pub const STRANGER_LEAD: Duration = Duration::from_millis(1);

impl Strangers {
    pub fn new(windows: Vec<(Duration, Duration)>) -> Self {
        Strangers { windows, next_port: STRANGER_PORT_FIRST }
    }

    fn port(&mut self) -> u16 {
        let p = self.next_port;
        self.next_port = if p >= STRANGER_PORT_LAST { STRANGER_PORT_FIRST } else { p + 1 };
        p
    }
}

/// `n` random bytes.
fn random(rng: &mut impl RngCore, n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    rng.fill_bytes(&mut b);
    b
}

/// One stranger's datagram, drawn; `own`: the host's datagram beside it.
fn stranger_bytes(rng: &mut impl Rng, own: &[u8]) -> Vec<u8> {
    match rng.random_range(0..4) {
        0 => {
            let mut b = vec![0x40 | (rng.random::<u8>() & 0x3f)];
            let n = 8 + rng.random_range(20..80);
            b.extend(random(rng, n));
            b
        }
        1 if own.len() > 9 && own[0] & 0x80 == 0 => {
            let mut b = own[..9].to_vec();
            b.extend(random(rng, own.len() - 9));
            b
        }
        2 => {
            let (d, s) = (rng.random_range(0..=20), rng.random_range(0..=20));
            let mut b = vec![0xc0 | (rng.random::<u8>() & 0x3f), 0, 0, 0, 1, d as u8];
            b.extend(random(rng, d));
            b.push(s as u8);
            b.extend(random(rng, s));
            let body = rng.random_range(20..1200);
            b.extend(random(rng, body));
            b
        }
        _ => {
            let n = rng.random_range(1..=60);
            random(rng, n)
        }
    }
}

impl Fault for Strangers {
    fn name(&self) -> String {
        let w: Vec<String> = self.windows.iter().map(|(a, b)| format!("{}ms..{}ms", a.as_millis(), b.as_millis())).collect();
        format!("strangers[{}]", w.join(", "))
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let open = self.windows.iter().any(|(a, b)| *a <= ctx.now && ctx.now < *b);
        if d.is_tunnelled_tcp() || !open {
            out.push(d);
            return Ok(());
        }
        let src = SocketAddr::new(d.src.ip(), self.port());
        let payload = Bytes::from(stranger_bytes(ctx.rng, &d.payload));
        out.push(InFlight { src, payload, ..d.clone() });
        out.push(InFlight { delay: d.delay + STRANGER_LEAD, ..d });
        Ok(())
    }
}
