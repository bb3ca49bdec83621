//! Test harness: a tokio-clock `Sleeper` (paused clock only) and an in-memory two-way link
//! with a fixed one-way delay, seeded per-packet loss and deliberate drops.

use core::future::poll_fn;
use core::task::{Poll, Waker};
use core::time::Duration;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::rc::Rc;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use smoltcp::wire::{Ipv4Packet, TcpPacket};
use tokio::time::Instant;

use crate::{run_stack, shared, PacketPipe, SharedStack, Sleeper, TcpConfig, TcpFlavor, TcpStack};

pub const ADDR_A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub const ADDR_B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
/// SPEC.md section 6: 20 ms each way.
pub const ONE_WAY_DELAY: Duration = Duration::from_millis(20);

/// Sleeper on tokio's (paused) clock, measured from a shared start.
#[derive(Debug, Clone, Copy)]
pub struct TokioSleeper {
    pub start: Instant,
}

impl Sleeper for TokioSleeper {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }
    async fn sleep_until(&self, deadline: Duration) {
        tokio::time::sleep_until(self.start + deadline).await
    }
}

/// Direction of a packet on the link.
pub const A_TO_B: usize = 0;
pub const B_TO_A: usize = 1;

#[derive(Debug, Clone)]
pub struct LoggedPacket {
    pub at: Duration,
    pub dir: usize,
    pub bytes: Vec<u8>,
    pub dropped: bool,
}

#[derive(Default)]
struct Wire {
    queue: VecDeque<(Duration, Vec<u8>)>,
    waker: Option<Waker>,
}

pub struct LinkState {
    start: Instant,
    rng: ChaCha20Rng,
    loss: f64,
    wires: [Wire; 2],
    /// Per direction: indexes (0-based, counting data-carrying segments) to drop.
    drop_data_nth: [Vec<u64>; 2],
    data_seen: [u64; 2],
    drop_if: Option<DropFn>,
    pub log: Vec<LoggedPacket>,
}

/// A deliberate-drop rule: (direction, packet) -> drop it.
pub type DropFn = Box<dyn FnMut(usize, &[u8]) -> bool>;

impl LinkState {
    pub fn deliberate_drops(&self) -> usize {
        self.log.iter().filter(|p| p.dropped).count()
    }

    /// Hash of every packet sent (time, direction, bytes, fate): FNV-1a, so the figure is
    /// the same on every toolchain (a test pins the smoltcp flavour's to the pre-patch one).
    pub fn hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for p in &self.log {
            eat(&(p.at.as_micros() as u64).to_le_bytes());
            eat(&[p.dir as u8, u8::from(p.dropped)]);
            eat(&(p.bytes.len() as u64).to_le_bytes());
            eat(&p.bytes);
        }
        h
    }
}

pub type Link = Rc<RefCell<LinkState>>;

fn tcp_payload_len(pkt: &[u8]) -> usize {
    Ipv4Packet::new_checked(pkt).ok().and_then(|ip| TcpPacket::new_checked(ip.payload()).ok().map(|t| t.payload().len())).unwrap_or(0)
}

pub struct MemPipe {
    link: Link,
    dir_out: usize,
}

impl PacketPipe for MemPipe {
    async fn send(&mut self, pkt: Vec<u8>) -> io::Result<()> {
        let mut l = self.link.borrow_mut();
        let at = l.start.elapsed();
        let dir = self.dir_out;
        // Always draw, so a deliberate drop does not shift the loss stream.
        let loss = l.loss;
        let lost = l.rng.random_bool(loss);
        let mut deliberate = false;
        if tcp_payload_len(&pkt) > 0 {
            let nth = l.data_seen[dir];
            l.data_seen[dir] += 1;
            deliberate = l.drop_data_nth[dir].contains(&nth);
        }
        if let Some(f) = l.drop_if.as_mut() {
            deliberate |= f(dir, &pkt);
        }
        l.log.push(LoggedPacket { at, dir, bytes: pkt.clone(), dropped: deliberate });
        if !(lost || deliberate) {
            let wire = &mut l.wires[dir];
            wire.queue.push_back((at + ONE_WAY_DELAY, pkt));
            if let Some(w) = wire.waker.take() {
                w.wake();
            }
        }
        Ok(())
    }

    async fn recv(&mut self) -> Option<Vec<u8>> {
        let dir_in = 1 - self.dir_out;
        loop {
            let due = poll_fn(|cx| {
                let mut l = self.link.borrow_mut();
                let wire = &mut l.wires[dir_in];
                match wire.queue.front() {
                    Some((at, _)) => Poll::Ready(*at),
                    None => {
                        wire.waker = Some(cx.waker().clone());
                        Poll::Pending
                    }
                }
            })
            .await;
            let start = self.link.borrow().start;
            tokio::time::sleep_until(start + due).await;
            let mut l = self.link.borrow_mut();
            let now = l.start.elapsed();
            let wire = &mut l.wires[dir_in];
            if wire.queue.front().is_some_and(|(at, _)| *at <= now) {
                return wire.queue.pop_front().map(|(_, p)| p);
            }
        }
    }
}

/// Two stacks joined by a link, their drivers spawned on the current `LocalSet`.
pub struct World {
    pub a: SharedStack,
    pub b: SharedStack,
    pub link: Link,
    pub sleeper: TokioSleeper,
}

impl World {
    pub fn now(&self) -> Duration {
        self.sleeper.now()
    }
    pub fn b_addr(&self, port: u16) -> SocketAddrV4 {
        SocketAddrV4::new(ADDR_B, port)
    }
}

pub struct WorldSpec {
    pub seed: u64,
    pub loss: f64,
    pub drop_data_nth: [Vec<u64>; 2],
    /// Any further deliberate drops.
    pub drop_if: Option<DropFn>,
    pub config: TcpConfig,
}

impl WorldSpec {
    pub fn new(seed: u64) -> WorldSpec {
        WorldSpec { seed, loss: 0.0, drop_data_nth: [vec![], vec![]], drop_if: None, config: TcpConfig::default() }
    }

    /// Both stacks with this flavour.
    pub fn flavor(mut self, flavor: TcpFlavor) -> WorldSpec {
        self.config.flavor = flavor;
        self
    }
}

/// Build the world; must run inside a `LocalSet` on a paused-clock runtime.
pub fn world(spec: WorldSpec) -> World {
    let start = Instant::now();
    let sleeper = TokioSleeper { start };
    // Each host its own stream, derived from the run seed.
    let a = shared(TcpStack::new(ADDR_A, spec.seed.wrapping_mul(2).wrapping_add(1), spec.config.clone()));
    let b = shared(TcpStack::new(ADDR_B, spec.seed.wrapping_mul(2).wrapping_add(2), spec.config));
    let link = Rc::new(RefCell::new(LinkState {
        start,
        rng: ChaCha20Rng::seed_from_u64(spec.seed),
        loss: spec.loss,
        wires: [Wire::default(), Wire::default()],
        drop_data_nth: spec.drop_data_nth,
        data_seen: [0, 0],
        drop_if: spec.drop_if,
        log: Vec::new(),
    }));
    tokio::task::spawn_local(run_stack(a.clone(), MemPipe { link: link.clone(), dir_out: A_TO_B }, sleeper));
    tokio::task::spawn_local(run_stack(b.clone(), MemPipe { link: link.clone(), dir_out: B_TO_A }, sleeper));
    World { a, b, link, sleeper }
}

/// Deterministic test payload.
pub fn payload(seed: u64, len: usize) -> Vec<u8> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}
