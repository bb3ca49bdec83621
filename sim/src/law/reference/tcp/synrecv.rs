//! The half-open connection of `tcp-agrees-with-spec`: what a passive connection
//! does in SYN-RECEIVED, from the Linux figures sim/tcp/README.md names (its rows "a
//! SYN for a 4-tuple a connection already holds" and "SYN-ACK timeout"), not from
//! the stack's code:
//!
//! - Linux answers a SYN repeated for a connection in SYN-RECEIVED with the SYN-ACK
//!   again (`tcp_check_req`), at most once per 500 ms of that connection
//!   (`tcp_oow_rate_limited`, `net.ipv4.tcp_invalid_ratelimit` = 500 ms); stock
//!   smoltcp never does;
//! - Linux gives a half-open connection up 63 s after its SYN came
//!   (`tcp_synack_retries` = 5: 1+2+4+8+16+32 s) and drops it silently
//!   (`inet_csk_reqsk_queue_drop_and_put`): no RST, so a peer still in SYN-SENT
//!   goes on trying rather than being refused.

use super::super::{differs, R};

/// Linux `net.ipv4.tcp_invalid_ratelimit` (ip-sysctl.rst): 500 ms.
const ANSWER_GAP_MS: i64 = 500;
/// Linux `tcp_synack_retries` = 5: the sixth timeout, 1+2+4+8+16+32 s after the SYN.
const GIVE_UP_MS: i64 = 63_000;

/// One connection's time in SYN-RECEIVED.
#[derive(Clone, Debug, Default)]
pub struct HalfOpen {
    /// When the SYN that opened it came.
    syn_at: Option<i64>,
    /// When a repeated SYN was last answered.
    answered_at: Option<i64>,
}

impl HalfOpen {
    /// A SYN moved a listening socket to SYN-RECEIVED at `at` (a new connection on
    /// this 4-tuple: what an earlier one did is forgotten).
    pub fn syn_in(&mut self, at: i64) {
        *self = HalfOpen { syn_at: Some(at), answered_at: None };
    }

    /// A repeated SYN came at `at`; the stack `answered` it or not.
    pub fn syn_again(&mut self, linux: bool, at: i64, answered: bool) -> R {
        let due = linux && self.answered_at.is_none_or(|a| at >= a + ANSWER_GAP_MS);
        if answered != due {
            let spec = match (linux, due) {
                (false, _) => "dropped: stock smoltcp has no answer for it".to_string(),
                (true, true) => "the SYN-ACK again (Linux tcp_check_req)".to_string(),
                (true, false) => format!("dropped: the last was answered at {:?} ms, under 500 ms before (tcp_invalid_ratelimit)", self.answered_at),
            };
            let model = if answered { "answered with the SYN-ACK" } else { "dropped" };
            return differs(format!("a repeated SYN in SYN-RECEIVED {model}"), spec);
        }
        if answered {
            self.answered_at = Some(at);
        }
        Ok(())
    }

    /// The connection gave up in SYN-RECEIVED at `at`, with an RST or without.
    pub fn gave_up(&mut self, linux: bool, at: i64, reset: bool) -> R {
        let syn_at = self.syn_at.take();
        if !linux {
            return Ok(());
        }
        let Some(syn_at) = syn_at else {
            return differs("a half-open connection given up", "a SYN that opened it first");
        };
        if reset || !(syn_at + GIVE_UP_MS..=syn_at + GIVE_UP_MS + 1).contains(&at) {
            let how = if reset { "with an RST" } else { "silently" };
            return differs(
                format!("given up {how} at {at} ms, its SYN at {syn_at} ms"),
                format!("silently at {} ms, 63 s after its SYN (Linux tcp_synack_retries = 5, inet_csk_reqsk_queue_drop_and_put)", syn_at + GIVE_UP_MS),
            );
        }
        Ok(())
    }
}
