//! A panic inside a run (a model's own assertion, a driver's `expect`) is a
//! finding, not a crash: [`catch`] runs a closure, and when it panics returns
//! the message and the source location instead of unwinding further, without
//! printing the default panic report (the run's verdict carries it).

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

/// What a caught panic said, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panicked {
    pub message: String,
    /// `file:line:column` of the panic.
    pub location: String,
}

impl std::fmt::Display for Panicked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "panicked at {}: {}", self.location, self.message)
    }
}

thread_local! {
    static CATCHING: Cell<u32> = const { Cell::new(0) };
    static CAUGHT: RefCell<Option<Panicked>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Install (once per process) a hook that records a panic on a thread inside
/// [`catch`] and leaves every other panic to the hook that was there before.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CATCHING.with(|c| c.get()) == 0 {
                return previous(info);
            }
            let message = match (info.payload().downcast_ref::<&str>(), info.payload().downcast_ref::<String>()) {
                (Some(s), _) => (*s).to_string(),
                (_, Some(s)) => s.clone(),
                _ => "a panic without a message".to_string(),
            };
            let location = info.location().map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column())).unwrap_or_default();
            // The first panic is the finding; what unwinds after it (tokio's
            // "a spawned task panicked" in the LocalSet) only reports it.
            CAUGHT.with(|c| {
                c.borrow_mut().get_or_insert(Panicked { message, location });
            });
        }));
    });
}

/// Run `f`; a panic inside it comes back as `Err` with its message and location.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, Panicked> {
    install_hook();
    CAUGHT.with(|c| c.borrow_mut().take());
    CATCHING.with(|c| c.set(c.get() + 1));
    let r = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get() - 1));
    r.map_err(|_| CAUGHT.with(|c| c.borrow_mut().take()).unwrap_or(Panicked { message: "a panic".into(), location: String::new() }))
}
