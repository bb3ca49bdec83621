//! The TCP driver: one `ftw-tcp` [`TcpStack`] per host, bound to the simulated
//! network. Each IPv4 packet the stack sends goes as one turmoil UDP datagram
//! from the host's port [`IP_TUNNEL_PORT`] to the destination address's port
//! [`IP_TUNNEL_PORT`]; what arrives on the host's port-6 socket goes into the
//! stack. The network hook (NATs, fault chains) sees these datagrams and treats
//! them as TCP (see `crate::world::net`). Every timer goes through `crate::world::time`, so
//! idle time is skipped; the stack's initial sequence numbers come from the run
//! seed's stream `host.<name>.tcp`.
//!
//! One driver per host: binding port 6 twice on one host fails with
//! `AddrInUse`. Where this TCP differs from Linux: `sim/tcp/README.md`.

use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::rc::Rc;
use std::time::Duration;

use ftw_tcp::{PacketPipe, SharedStack, Sleeper, TcpConfig, TcpListener, TcpStack, TcpStream};
use turmoil::net::UdpSocket;

use crate::world::net::IP_TUNNEL_PORT;
use crate::world::seed::RunSeed;
use crate::world::time;
use crate::world::trace;

/// The largest tunnelled packet we receive.
const RECV_BUF_BYTES: usize = 65_536;

/// The IP MTU the simulated path gives TCP: Ethernet's 1500, so the MSS is
/// Linux's 1460. (The network's MTU piece counts a tunnelled packet as the IP
/// packet it carries, without the tunnel's own headers.)
pub const TCP_MTU_BYTES: usize = 1500;

/// The stack settings of a simulated host (Linux-like, see `ftw_tcp::consts`).
#[cfg(test)]
pub fn tcp_config() -> TcpConfig {
    tcp_config_for_link(TCP_MTU_BYTES)
}

/// The stack settings of a host whose access link has IP MTU `link_mtu` (0 = none,
/// so Ethernet's 1500). The interface MTU is the access link's, as on a phone on a
/// cellular or tunnelled network: the SYN's MSS option (MTU - 40, RFC 6691) then
/// keeps the peer's segments within the link, which a stack sending 1460-byte
/// segments into a 1280 link would not (every full segment dropped, the
/// connection alive but carrying nothing: found by `ftwsim fuzz`,
/// corpus/session-ws-dead-after-quic-path-drop.toml).
pub fn tcp_config_for_link(link_mtu: usize) -> TcpConfig {
    let mtu = if link_mtu == 0 { TCP_MTU_BYTES } else { link_mtu.clamp(ftw_tcp::consts::MTU_BYTES_MIN, TCP_MTU_BYTES) };
    TcpConfig { mtu_bytes: mtu, ..TcpConfig::default() }
}

/// [`tcp_config_for_link`] with the plan's TCP flavour (`FaultPlan::tcp`).
pub fn tcp_config_for(plan: &crate::world::plan::FaultPlan, link_mtu: usize) -> TcpConfig {
    TcpConfig { flavor: plan.tcp.flavor(), ..tcp_config_for_link(link_mtu) }
}

/// A host's TCP: its stack, shared with the driver task.
#[derive(Clone)]
pub struct TcpHost {
    pub name: String,
    pub stack: SharedStack,
}

impl TcpHost {
    /// Bind `ip`'s tunnel port on the current host and start its driver.
    /// `ip` is the host's own (turmoil) address; the stack uses it as its IPv4 address.
    #[cfg(test)]
    pub async fn bind(name: &str, ip: Ipv4Addr, seed: RunSeed) -> io::Result<TcpHost> {
        Self::bind_with(name, ip, seed, tcp_config()).await
    }

    /// As [`TcpHost::bind`] with explicit stack settings.
    pub async fn bind_with(name: &str, ip: Ipv4Addr, seed: RunSeed, config: TcpConfig) -> io::Result<TcpHost> {
        // turmoil binds the unspecified address only; datagrams leave from the host's own.
        let socket = Rc::new(UdpSocket::bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, IP_TUNNEL_PORT))).await?);
        let stack = ftw_tcp::shared(TcpStack::new(ip, seed.sub_seed(&format!("host.{name}.tcp")), config));
        let pipe = Pipe { socket, buf: vec![0u8; RECV_BUF_BYTES], host: name.to_string() };
        let driver = stack.clone();
        tokio::task::spawn_local(async move {
            let _ = ftw_tcp::run_stack(driver, pipe, SimSleeper).await;
        });
        Ok(TcpHost { name: name.to_string(), stack })
    }

    /// Connect to `remote` from the next ephemeral port.
    pub async fn connect(&self, remote: SocketAddrV4) -> io::Result<TcpStream> {
        trace::record(&self.name, "tcp.connect", format!("{remote}"));
        let r = TcpStream::connect(&self.stack, remote).await;
        match &r {
            Ok(s) => trace::record(&self.name, "tcp.connected", format!("{} -> {remote}", s.local_addr().map(|a| a.to_string()).unwrap_or_default())),
            Err(e) => trace::record(&self.name, "tcp.failed", format!("{remote} {:?}", e.kind())),
        }
        r
    }

    /// Listen on `port`.
    pub fn listen(&self, port: u16) -> io::Result<TcpListener> {
        TcpListener::bind(&self.stack, port)
    }

    /// Retransmitted segments of this host so far.
    #[cfg(test)]
    pub fn retransmits(&self) -> u64 {
        self.stack.borrow().counters().retransmits
    }
}

/// Packets to and from the host's tunnel socket.
struct Pipe {
    socket: Rc<UdpSocket>,
    buf: Vec<u8>,
    host: String,
}

impl PacketPipe for Pipe {
    async fn send(&mut self, pkt: Vec<u8>) -> io::Result<()> {
        // The destination is the packet's own IPv4 destination.
        if pkt.len() < 20 || pkt[0] >> 4 != 4 {
            return Ok(());
        }
        let dst = Ipv4Addr::new(pkt[16], pkt[17], pkt[18], pkt[19]);
        if let Err(e) = self.socket.try_send_to(&pkt, SocketAddr::from((dst, IP_TUNNEL_PORT))) {
            // A send error is a lost packet to TCP, never the end of the driver.
            trace::record(&self.host, "tcp.send_error", format!("{dst} {:?}", e.kind()));
        }
        Ok(())
    }

    async fn recv(&mut self) -> Option<Vec<u8>> {
        // Cancel-safe: turmoil's recv_from keeps a readied datagram until read.
        match self.socket.recv_from(&mut self.buf).await {
            Ok((n, _from)) => Some(self.buf[..n].to_vec()),
            Err(_) => None,
        }
    }
}

/// The stack's clock: the simulation's, with every timer registered.
struct SimSleeper;

impl Sleeper for SimSleeper {
    fn now(&self) -> Duration {
        time::now()
    }

    async fn sleep_until(&self, deadline: Duration) {
        time::sleep_until(deadline).await
    }
}
