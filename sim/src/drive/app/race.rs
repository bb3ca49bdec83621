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

use ftw_phone::network::NetworkDesc;
use ftw_phone::race::{Action, CloudSockets};
use ftw_phone::session::SessionEnd;
use ftw_phone::Transport;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::drive::link::{DialError, Link};
use crate::world::journal::race::{memory_of, next_instance, RaceInput, RaceStep};
use crate::world::journal::{self, Step};
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
    /// This model's number on the host, for the journal.
    instance: usize,
    /// An input was journaled since the last `Polled` step.
    fed: bool,
}

impl Inner {
    /// Journal an input given to the model at `now` (never changes what it does).
    fn journal(&mut self, now: u64, what: RaceInput) {
        self.fed = true;
        journal::record_at(Duration::from_millis(now), &self.host, Step::Race(RaceStep { instance: self.instance, what }));
    }
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
    /// Start the driver on the current host with the model (new, or relaunched
    /// with its memory reloaded: `AppLife::relaunch`).
    pub fn start(host: &str, race: CloudSockets, dial: Dialer) -> Self {
        let instance = next_instance(host);
        let launched = RaceInput::Launched { memory: memory_of(race.memory()) };
        journal::record(host, Step::Race(RaceStep { instance, what: launched }));
        let inner = Rc::new(RefCell::new(Inner {
            host: host.to_string(),
            race,
            dials: BTreeMap::new(),
            results: VecDeque::new(),
            open: BTreeMap::new(),
            chosen: None,
            failed: false,
            instance,
            fed: false,
        }));
        let me = RaceDriver { inner, wake: Rc::new(Notify::new()), ready: Rc::new(Notify::new()), dial };
        let pump = me.clone();
        tokio::task::spawn_local(async move { pump.pump().await });
        me
    }

    /// Race for a session on the network the phone is `on` (named by the model); the
    /// winning transport and its link, or None when both dials failed.
    pub async fn connect(&self, on: NetworkDesc) -> Option<(Transport, Link)> {
        {
            let mut i = self.inner.borrow_mut();
            i.chosen = None;
            i.failed = false;
            let now = now_ms();
            let network = on.id();
            i.journal(now, RaceInput::Start { network: network.clone(), on });
            i.race.start(now, network);
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
        let mut i = self.inner.borrow_mut();
        let now = now_ms();
        i.journal(now, RaceInput::FirstMessage);
        i.race.first_message(now);
        drop(i);
        self.wake.notify_one();
    }

    /// The session ended.
    pub fn session_ended(&self, end: SessionEnd) {
        let mut i = self.inner.borrow_mut();
        let now = now_ms();
        i.journal(now, RaceInput::SessionEnded(end));
        i.race.session_ended(now, end);
        drop(i);
        self.wake.notify_one();
    }

    /// Read the model (memory, stats, phase).
    pub fn with_model<R>(&self, f: impl FnOnce(&CloudSockets) -> R) -> R {
        f(&self.inner.borrow().race)
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
        self.feed_results(now);
        if self.inner.borrow().race.poll_timeout().is_some_and(|d| d <= now) {
            let mut i = self.inner.borrow_mut();
            i.journal(now, RaceInput::Timeout);
            i.race.handle_timeout(now);
        }
        let mut actions = Vec::new();
        loop {
            let action = self.inner.borrow_mut().race.poll_action();
            let Some(action) = action else { break };
            actions.push(action);
            self.carry_out(action);
        }
        self.report(now, actions);
    }

    /// Each dial's result that came in, to the model, in the order they came.
    fn feed_results(&self, now: u64) {
        loop {
            let next = self.inner.borrow_mut().results.pop_front();
            let Some((t, r)) = next else { break };
            let mut i = self.inner.borrow_mut();
            match r {
                Ok(link) => {
                    i.open.insert(t, link);
                    i.journal(now, RaceInput::Opened(t));
                    i.race.opened(now, t);
                }
                Err(DialError::Refused) if t == Transport::Quic => {
                    i.journal(now, RaceInput::QuicRefused);
                    i.race.quic_refused(now);
                }
                Err(e) => {
                    let host = i.host.clone();
                    trace::record(&host, "phone.dial_failed", format!("{} {e:?}", t.name()));
                    i.journal(now, RaceInput::DialFailed(t));
                    i.race.dial_failed(now, t);
                }
            }
        }
    }

    /// One action of the model, carried out.
    fn carry_out(&self, action: Action) {
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

    /// The model's decisions traced, and the step journaled when anything was fed,
    /// done or decided.
    fn report(&self, now: u64, actions: Vec<Action>) {
        let mut i = self.inner.borrow_mut();
        let host = i.host.clone();
        let mut decisions = Vec::new();
        while let Some((at, d)) = i.race.poll_decision() {
            trace::tag("phone.race", d.kind());
            trace::record_at(Duration::from_millis(at), &host, "phone.race", d.to_string());
            decisions.push((at, d));
        }
        if i.fed || !actions.is_empty() || !decisions.is_empty() {
            i.fed = false;
            let polled =
                RaceInput::Polled { actions, decisions, deadline_ms: i.race.poll_timeout(), memory: memory_of(i.race.memory()), stats: i.race.stats() };
            journal::record_at(Duration::from_millis(now), &host, Step::Race(RaceStep { instance: i.instance, what: polled }));
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
