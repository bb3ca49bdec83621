//! Simulated time, and the one timer API all simulated code uses.
//!
//! Monotonic time is the simulation's elapsed time (`Duration` since the
//! start), read from turmoil. Every timer in `sim/` goes through [`sleep_until`],
//! which records its deadline in a registry owned by the running world; that is
//! how the world knows when the next timer fires and can step straight to it
//! when nothing else is happening (see `World::run`).
//!
//! Wall time is a fixed epoch plus elapsed time, plus a per-host jump (a phone
//! that sleeps for a day sees its wall clock move; its monotonic clock does not).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// The fixed wall-clock epoch of every run: 2026-06-01T00:00:00Z, in ms
/// (inside the validity of the kit's certificates).
pub const EPOCH_UNIX_MS: u64 = 1_780_272_000_000;

/// Registry of pending timer deadlines for the world running on this thread.
#[derive(Default)]
pub(crate) struct Timers {
    next_id: u64,
    pending: BTreeMap<(Duration, u64), ()>,
}

thread_local! {
    static TIMERS: RefCell<Timers> = RefCell::new(Timers::default());
}

pub(crate) fn reset_timers() {
    TIMERS.with(|t| *t.borrow_mut() = Timers::default());
}

/// The earliest pending deadline (already rounded to the ms the runtime fires at).
pub(crate) fn next_deadline() -> Option<Duration> {
    TIMERS.with(|t| t.borrow().pending.keys().next().map(|k| k.0))
}

/// Time since the start of the simulation, as seen by the running host.
pub fn now() -> Duration {
    turmoil::sim_elapsed().expect("sim::time::now called outside a simulated host")
}

/// Round up to the whole millisecond at which tokio's timer wheel fires.
pub fn ceil_ms(d: Duration) -> Duration {
    let ns = d.as_nanos();
    let ms = ns.div_ceil(1_000_000);
    Duration::from_millis(ms as u64)
}

/// A timer that fires at `deadline` (time since the start). Registered with the
/// world while pending so the world can skip idle time up to it.
pub struct Sleep {
    key: (Duration, u64),
    inner: Pin<Box<tokio::time::Sleep>>,
    registered: bool,
}

/// Sleep until `deadline` (time since the start of the simulation).
pub fn sleep_until(deadline: Duration) -> Sleep {
    let now = now();
    let fire = ceil_ms(deadline.max(now));
    let id = TIMERS.with(|t| {
        let mut t = t.borrow_mut();
        t.next_id += 1;
        let id = t.next_id;
        t.pending.insert((fire, id), ());
        id
    });
    let inner = Box::pin(tokio::time::sleep_until(tokio::time::Instant::now() + (fire - now)));
    Sleep { key: (fire, id), inner, registered: true }
}

/// Sleep for `d`.
pub fn sleep(d: Duration) -> Sleep {
    sleep_until(now() + d)
}

impl Sleep {
    /// When this timer fires (time since the start).
    pub fn deadline(&self) -> Duration {
        self.key.0
    }

    fn unregister(&mut self) {
        if self.registered {
            self.registered = false;
            let key = self.key;
            TIMERS.with(|t| {
                t.borrow_mut().pending.remove(&key);
            });
        }
    }
}

impl Future for Sleep {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.inner.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.unregister();
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.unregister();
    }
}

thread_local! {
    static WALL_JUMPS: RefCell<BTreeMap<String, Duration>> = const { RefCell::new(BTreeMap::new()) };
}

pub(crate) fn reset_wall_jumps() {
    WALL_JUMPS.with(|j| j.borrow_mut().clear());
}

/// Move `host`'s wall clock forward by `by` (a phone asleep for hours sees its
/// wall clock jump; its monotonic clock, and everyone else's, do not).
pub fn jump_wall(host: &str, by: Duration) {
    WALL_JUMPS.with(|j| *j.borrow_mut().entry(host.to_string()).or_default() += by);
    crate::world::trace::record(host, "clock.jump", format!("wall +{}", crate::world::trace::fmt_time(by)));
}

/// `host`'s wall clock now, since the Unix epoch: the fixed epoch, plus elapsed
/// time, plus the host's jumps.
pub fn wall_since_unix(host: &str) -> Duration {
    let jump = WALL_JUMPS.with(|j| j.borrow().get(host).copied().unwrap_or_default());
    Duration::from_millis(EPOCH_UNIX_MS) + turmoil::sim_elapsed().unwrap_or_default() + jump
}

thread_local! {
    // Libraries that take `std::time::Instant`s (quinn-proto) only use their
    // differences. One base per world; its value never reaches a byte on the
    // wire (the crypto kit's tests and the process-level replay test prove it).
    static INSTANT_BASE: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// Set the base instant for this thread's world (called by `World::new`).
pub(crate) fn reset_instant_base() {
    INSTANT_BASE.with(|b| b.set(Some(tokio::time::Instant::now().into_std())));
}

pub(crate) fn instant_base() -> std::time::Instant {
    INSTANT_BASE.with(|b| b.get()).expect("instant base set by World::new")
}

/// The running host's current time as a `std::time::Instant` (base + sim time).
pub fn instant_now() -> std::time::Instant {
    instant_base() + now()
}

/// Simulated time since the start of an instant from [`instant_now`].
pub fn instant_since_start(i: std::time::Instant) -> Duration {
    i.saturating_duration_since(instant_base())
}
