//! qlog of every QUIC connection of a run (`ftwsim run --qlog DIR`), in
//! simulated time, for qvis.
//!
//! Off unless the world asks ([`begin`] with `on`): then every transport
//! configuration the kit builds carries its own quinn-proto qlog stream,
//! written into memory and handed back by [`end`] with the run. A stream holds
//! the events of each connection made with that configuration, told apart by
//! their `group_id` (the original destination connection id); the command line
//! splits them into one file per connection. Event times are counted from the
//! world's base instant, so they are simulated time. quinn-proto only reads its
//! state to log it: a run's bytes are the same with qlog on (a test proves it).

use std::cell::RefCell;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use quinn_proto::{QlogConfig, QlogStream};

/// One configuration's qlog: JSON-SEQ records (RFC 7464), header first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QlogBytes {
    /// `client` or `server`.
    pub role: &'static str,
    pub bytes: Vec<u8>,
}

/// A writer into a buffer the run's sink keeps.
#[derive(Clone, Default)]
struct SharedBuf(Arc<Mutex<Vec<u8>>>);

impl io::Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("qlog buffer").extend_from_slice(b);
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

struct Sink {
    start: Instant,
    streams: Vec<(&'static str, SharedBuf)>,
}

thread_local! {
    static CURRENT: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// Start a run on this thread: qlog on if `on`, times from `start` (the world's base instant).
pub fn begin(on: bool, start: Instant) {
    CURRENT.with(|c| *c.borrow_mut() = on.then(|| Sink { start, streams: Vec::new() }));
}

/// End the run: every stream's bytes, in the order the configurations were built.
pub fn end() -> Vec<QlogBytes> {
    let sink = CURRENT.with(|c| c.borrow_mut().take());
    let streams = sink.map(|s| s.streams).unwrap_or_default();
    streams.into_iter().map(|(role, buf)| QlogBytes { role, bytes: std::mem::take(&mut *buf.0.lock().expect("qlog buffer")) }).collect()
}

/// A new stream for a configuration of `role`, if this run keeps qlog.
pub fn stream(role: &'static str) -> Option<QlogStream> {
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        let sink = c.as_mut()?;
        let buf = SharedBuf::default();
        sink.streams.push((role, buf.clone()));
        let mut config = QlogConfig::default();
        config.writer(Box::new(buf)).title(Some(format!("ftw-sim {role}"))).start_time(sink.start);
        config.into_stream()
    })
}
