//! The phone's race, bound to the network: the IO-free `CloudSockets` model
//! (crate ftw-phone) decides; this driver dials, cancels, times out and hands
//! the winning link to the app. A learning dial that is still under way when
//! the WebSocket wins goes on in the background and reports to the model.
//! Every decision of the model goes into the trace as a `phone.race` event.

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use ftw_phone::memory::CloudTransportMemory;
use ftw_phone::network::NetworkId;
use ftw_phone::race::{Action, CloudSockets};
use ftw_phone::session::SessionEnd;
use ftw_phone::{Switches as PhoneSwitches, Transport};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::drive::link::{DialError, Link};
use crate::world::time;
use crate::world::trace;

/// Dials one transport.
pub type Dialer = Rc<dyn Fn(Transport) -> Pin<Box<dyn Future<Output = Result<Link, DialError>>>>>;

struct Inner {
    host: String,
    race: CloudSockets,
    dials: BTreeMap<Transport, JoinHandle<()>>,
    results: VecDeque<(Transport, Result<Link, DialError>)>,
    open: BTreeMap<Transport, Link>,
    chosen: Option<(Transport, Link)>,
    failed: bool,
}

/// The phone's transport race on one host.
#[derive(Clone)]
pub struct RaceDriver {
    inner: Rc<RefCell<Inner>>,
    wake: Rc<Notify>,
    ready: Rc<Notify>,
    dial: Dialer,
}

fn now_ms() -> u64 {
    time::now().as_millis() as u64
}

impl RaceDriver {
    /// Start the driver on the current host with the model's memory.
    pub fn start(host: &str, switches: PhoneSwitches, memory: CloudTransportMemory, dial: Dialer) -> Self {
        let inner = Rc::new(RefCell::new(Inner {
            host: host.to_string(),
            race: CloudSockets::with_memory(switches, memory),
            dials: BTreeMap::new(),
            results: VecDeque::new(),
            open: BTreeMap::new(),
            chosen: None,
            failed: false,
        }));
        let me = RaceDriver { inner, wake: Rc::new(Notify::new()), ready: Rc::new(Notify::new()), dial };
        let pump = me.clone();
        tokio::task::spawn_local(async move { pump.pump().await });
        me
    }

    /// Race for a session on `network`; the winning transport and its link, or
    /// None when both dials failed.
    pub async fn connect(&self, network: NetworkId) -> Option<(Transport, Link)> {
        {
            let mut i = self.inner.borrow_mut();
            i.chosen = None;
            i.failed = false;
            i.race.start(now_ms(), network);
        }
        self.wake.notify_one();
        loop {
            {
                let mut i = self.inner.borrow_mut();
                if let Some(c) = i.chosen.take() {
                    return Some(c);
                }
                if i.failed {
                    return None;
                }
            }
            self.ready.notified().await;
        }
    }

    /// The session carried its first message.
    pub fn first_message(&self) {
        self.inner.borrow_mut().race.first_message(now_ms());
        self.wake.notify_one();
    }

    /// The session ended.
    pub fn session_ended(&self, end: SessionEnd) {
        self.inner.borrow_mut().race.session_ended(now_ms(), end);
        self.wake.notify_one();
    }

    /// Read the model (memory, stats, phase).
    pub fn with_model<R>(&self, f: impl FnOnce(&CloudSockets) -> R) -> R {
        f(&self.inner.borrow().race)
    }

    /// Whether a dial (e.g. the learning dial) is still under way.
    pub fn dialing(&self) -> bool {
        !self.inner.borrow().dials.is_empty()
    }

    fn spawn_dial(&self, t: Transport) {
        let dial = self.dial.clone();
        let inner = self.inner.clone();
        let wake = self.wake.clone();
        let h = tokio::task::spawn_local(async move {
            let r = dial(t).await;
            let mut i = inner.borrow_mut();
            i.dials.remove(&t);
            i.results.push_back((t, r));
            drop(i);
            wake.notify_one();
        });
        self.inner.borrow_mut().dials.insert(t, h);
    }

    /// Feed results and timers to the model; carry out its actions.
    fn step(&self) {
        let now = now_ms();
        loop {
            let next = self.inner.borrow_mut().results.pop_front();
            let Some((t, r)) = next else { break };
            let mut i = self.inner.borrow_mut();
            match r {
                Ok(link) => {
                    i.open.insert(t, link);
                    i.race.opened(now, t);
                }
                Err(DialError::Refused) if t == Transport::Quic => i.race.quic_refused(now),
                Err(e) => {
                    let host = i.host.clone();
                    trace::record(&host, "phone.dial_failed", format!("{} {e:?}", t.name()));
                    i.race.dial_failed(now, t);
                }
            }
        }
        if self.inner.borrow().race.poll_timeout().is_some_and(|d| d <= now) {
            self.inner.borrow_mut().race.handle_timeout(now);
        }
        loop {
            let action = self.inner.borrow_mut().race.poll_action();
            let Some(action) = action else { break };
            match action {
                Action::StartDial(t) => self.spawn_dial(t),
                Action::CloseDial(t) => {
                    let mut i = self.inner.borrow_mut();
                    if let Some(h) = i.dials.remove(&t) {
                        h.abort();
                    }
                    if let Some(mut link) = i.open.remove(&t) {
                        link.close(crate::drive::link::close::NORMAL, "race");
                    }
                }
                Action::UseSession(t) => {
                    let mut i = self.inner.borrow_mut();
                    if let Some(link) = i.open.remove(&t) {
                        i.chosen = Some((t, link));
                    }
                    drop(i);
                    self.ready.notify_one();
                }
                Action::RaceFailed => {
                    self.inner.borrow_mut().failed = true;
                    self.ready.notify_one();
                }
            }
        }
        let mut i = self.inner.borrow_mut();
        let host = i.host.clone();
        while let Some((at, d)) = i.race.poll_decision() {
            trace::tag("phone.race", d.kind());
            trace::record_at(Duration::from_millis(at), &host, "phone.race", d.to_string());
        }
    }

    async fn pump(&self) {
        loop {
            self.step();
            let deadline = self.inner.borrow().race.poll_timeout();
            let sleep = async {
                match deadline {
                    Some(d) => time::sleep_until(Duration::from_millis(d)).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                _ = self.wake.notified() => {}
                _ = sleep => {}
            }
        }
    }
}
