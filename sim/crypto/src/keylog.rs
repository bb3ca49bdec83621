//! The TLS secrets of one run, in the NSS key log format, for Wireshark and
//! tshark (`ftwsim run --keylog`, and the pcapng's Decryption Secrets Block).
//!
//! Every rustls configuration the kit builds, TLS over TCP and QUIC alike, logs
//! through [`RunKeyLog`] into the sink of the run on this thread: the world
//! calls [`begin`] when it is made and [`end`] when it finishes, as it does for
//! the trace, so nothing leaks from one run into the next. Logging reads the
//! secrets rustls computes anyway: it draws no randomness and changes no byte.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The lines of one run, in the order rustls logged them, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeyLogLines {
    lines: Vec<String>,
    seen: BTreeSet<String>,
}

impl KeyLogLines {
    fn push(&mut self, line: String) {
        // Client and server both log a connection's secrets: keep one copy.
        if self.seen.insert(line.clone()) {
            self.lines.push(line);
        }
    }

    /// The lines, one secret each (`LABEL client_random secret`, hex).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The NSS key log file: one line each, newline-terminated.
    pub fn to_text(&self) -> String {
        self.lines.iter().fold(String::new(), |mut s, l| {
            let _ = writeln!(s, "{l}");
            s
        })
    }
}

thread_local! {
    static CURRENT: RefCell<Option<KeyLogLines>> = const { RefCell::new(None) };
}

/// Start collecting the secrets of a new run on this thread.
pub fn begin() {
    CURRENT.with(|c| *c.borrow_mut() = Some(KeyLogLines::default()));
}

/// Stop collecting and hand the run's secrets back.
pub fn end() -> KeyLogLines {
    CURRENT.with(|c| c.borrow_mut().take()).unwrap_or_default()
}

/// rustls's `KeyLog` writing into the current run's sink (nothing outside a run).
#[derive(Debug, Default)]
pub struct RunKeyLog;

impl rustls::KeyLog for RunKeyLog {
    fn log(&self, label: &str, client_random: &[u8], secret: &[u8]) {
        let line = format!("{label} {} {}", hex(client_random), hex(secret));
        CURRENT.with(|c| {
            if let Some(sink) = c.borrow_mut().as_mut() {
                sink.push(line);
            }
        });
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::KeyLog;

    #[test]
    fn a_run_keeps_its_own_lines_once_each() {
        begin();
        RunKeyLog.log("CLIENT_TRAFFIC_SECRET_0", &[1, 2], &[0xab]);
        RunKeyLog.log("CLIENT_TRAFFIC_SECRET_0", &[1, 2], &[0xab]);
        let lines = end();
        assert_eq!(lines.to_text(), "CLIENT_TRAFFIC_SECRET_0 0102 ab\n");
        RunKeyLog.log("SERVER_TRAFFIC_SECRET_0", &[1], &[2]);
        begin();
        assert!(end().is_empty(), "nothing from outside a run, nothing from the last one");
    }
}
