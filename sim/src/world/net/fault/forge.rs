//! An on-path attacker copying datagrams from forged ports (RFC 9000 section 9.3.3).

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use super::{Ctx, Fault};
use crate::world::net::InFlight;

/// An on-path attacker (RFC 9000 section 9.3.3) during its windows `[from,
/// until)`: each UDP datagram is copied and the copy sent first, from a forged
/// source port of the same address (a fresh port per copy, counting up from
/// [`FORGED_PORT_FIRST`] across all windows, so no forged port is used twice);
/// the original follows [`FORGED_LEAD`] later. A QUIC server adopts a new peer
/// address before validating it, so each copy that arrives first is a "move".
/// Replies to a forged port die at the sender's NAT (no mapping). Tunnelled
/// TCP passes untouched. One piece per leg direction.
pub struct ForgeMoves {
    pub windows: Vec<(Duration, Duration)>,
    next_port: u16,
}

/// The first forged source port (below the NATs' own range, which starts at 49152
/// and grows by one per mapping).
pub const FORGED_PORT_FIRST: u16 = 20_000;

/// The last forged source port, just below the NATs' own range.
const FORGED_PORT_LAST: u16 = crate::world::net::nat::FIRST_PUBLIC_PORT - 1;

/// Whether `from` is a forged copy's source: a port of the forged range. A
/// forged copy is the attacker's, not its host's traffic: a law that asks where
/// the host is reads past it.
pub fn is_forged(from: std::net::SocketAddr) -> bool {
    (FORGED_PORT_FIRST..=FORGED_PORT_LAST).contains(&from.port())
}

/// How far a forged copy runs ahead of its original.
pub const FORGED_LEAD: Duration = Duration::from_millis(1);

impl ForgeMoves {
    pub fn new(windows: Vec<(Duration, Duration)>) -> Self {
        ForgeMoves { windows, next_port: FORGED_PORT_FIRST }
    }
}

impl Fault for ForgeMoves {
    fn name(&self) -> String {
        let w: Vec<String> = self.windows.iter().map(|(a, b)| format!("{}ms..{}ms", a.as_millis(), b.as_millis())).collect();
        format!("forge-moves[{}]", w.join(", "))
    }
    fn process(&mut self, ctx: &mut Ctx<'_>, d: InFlight, out: &mut Vec<InFlight>) -> io::Result<()> {
        let is_tcp = d.is_tunnelled_tcp();
        let open = self.windows.iter().any(|(a, b)| *a <= ctx.now && ctx.now < *b);
        if is_tcp || !open {
            out.push(d);
            return Ok(());
        }
        let forged = SocketAddr::new(d.src.ip(), self.next_port);
        // Wrap within the range below the NATs' ports.
        self.next_port = if self.next_port >= FORGED_PORT_LAST { FORGED_PORT_FIRST } else { self.next_port + 1 };
        out.push(InFlight { src: forged, ..d.clone() });
        out.push(InFlight { delay: d.delay + FORGED_LEAD, ..d });
        Ok(())
    }
}
