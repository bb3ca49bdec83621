//! Every constant of the TCP layer, each with where it comes from.
//!
//! "Linux" below means the defaults of a stock Linux 6.x kernel as documented in
//! `Documentation/networking/ip-sysctl.rst` and `include/net/tcp.h`.

use core::time::Duration;

/// IP MTU of the simulated path (Ethernet). The MSS is derived from it by smoltcp
/// (`socket/tcp.rs`: `ip_mtu - ip header - TCP_HEADER_LEN`, so 1460 at 1500).
pub const MTU_BYTES_DEFAULT: usize = 1500;

/// Smallest MTU we accept (IPv4 minimum datagram every host must accept, RFC 791).
pub const MTU_BYTES_MIN: usize = 576;

/// Receive buffer per socket. Linux `tcp_rmem` default is 131072 (it then autotunes up to
/// 6 MiB; smoltcp buffers are fixed). Its size also sets smoltcp's window-scale shift.
pub const RX_BUFFER_LEN_DEFAULT: usize = 128 * 1024;

/// Send buffer per socket. Linux `tcp_wmem` default is 16384 but autotunes; a fixed 128 KiB
/// is closer to what an established Linux socket has after a few round trips.
pub const TX_BUFFER_LEN_DEFAULT: usize = 128 * 1024;

/// Give up a connect after this long without an answer. Linux `tcp_syn_retries = 6`
/// with a 1 s initial RTO: 1+2+4+8+16+32+64 = 127 s (ip-sysctl.rst). smoltcp's initial RTO
/// is also 1 s and doubles (`RTTE_INITIAL_RTO`), so the SYNs go at the same times.
pub const CONNECT_TIMEOUT_DEFAULT: Duration = Duration::from_secs(127);

/// Give up a half-open passive connection (SYN-RECEIVED) after this long. Linux
/// `tcp_synack_retries = 5`: 1+2+4+8+16+32 = 63 s (ip-sysctl.rst).
pub const SYNACK_TIMEOUT_DEFAULT: Duration = Duration::from_secs(63);
/// At most one SYN-ACK sent again for repeated SYNs per this long (Linux's
/// `tcp_oow_rate_limited`, `net.ipv4.tcp_invalid_ratelimit` = 500 ms).
pub const REPEATED_SYN_ANSWER_GAP: Duration = Duration::from_millis(500);

/// Abort an established connection whose unacknowledged data (or FIN) got no packet from
/// the peer for this long. Linux `tcp_retries2 = 15`: "a hypothetical timeout of 924.6
/// seconds" (ip-sysctl.rst).
pub const RETRANSMIT_TIMEOUT_DEFAULT: Duration = Duration::from_millis(924_600);

/// An orphaned (stream dropped) socket in FIN-WAIT-2 is aborted after this long. Linux
/// `tcp_fin_timeout = 60` (ip-sysctl.rst).
pub const FIN_WAIT2_ORPHAN_TIMEOUT: Duration = Duration::from_secs(60);

/// Delayed ACK. smoltcp's default is 10 ms (`ACK_DELAY_DEFAULT` in socket/tcp.rs); Linux
/// uses `TCP_DELACK_MIN` = 40 ms (include/net/tcp.h, HZ/25) outside quick-ack mode, and acks
/// at once in quick-ack mode (connection start, out-of-order data). 40 ms is the steady
/// state figure; both ack at once every second full segment and on out-of-order data.
pub const ACK_DELAY_DEFAULT: Duration = Duration::from_millis(40);

/// Ephemeral ports: Linux `ip_local_port_range = 32768 60999` (ip-sysctl.rst). Linux picks
/// a hashed offset inside it; here a counter walks it so the choice is deterministic.
pub const EPHEMERAL_PORT_FIRST: u16 = 32768;
/// Last ephemeral port (inclusive), see [`EPHEMERAL_PORT_FIRST`].
pub const EPHEMERAL_PORT_LAST: u16 = 60999;

/// Connections a listener holds that are established but not yet accepted. Linux caps the
/// `listen()` backlog at `somaxconn = 4096`; the apps here pass small backlogs, so 128
/// (the pre-5.4 `somaxconn`).
pub const ACCEPT_BACKLOG_MAX: usize = 128;

/// Live sockets per stack (a limit on everything). A simulated host opens a handful.
pub const SOCKETS_PER_STACK_MAX: usize = 4096;

/// Packets waiting in the stack's receive queue before it drops new ones (a NIC ring).
pub const RX_QUEUE_LEN_MAX: usize = 4096;

/// Consecutive polls at the same instant that still report work due "now" before the
/// driver assumes smoltcp is stuck and sleeps one millisecond (counted in
/// `StackCounters::stalled_polls`; never seen in tests).
pub const IMMEDIATE_POLLS_MAX: u32 = 64;

/// The sleep taken when [`IMMEDIATE_POLLS_MAX`] is hit.
pub const STALL_BACKOFF: Duration = Duration::from_millis(1);

/// Linux's retransmission timer (`include/net/tcp.h`): `TCP_TIMEOUT_INIT` = 1 s before the
/// first RTT sample, `TCP_RTO_MIN` = 200 ms, `TCP_RTO_MAX` = 120 s. Linux's RTO is
/// SRTT + max(4 x RTTVAR, `TCP_RTO_MIN`) (`tcp_set_rto`), so the variance term has the same
/// 200 ms floor ([`LINUX_RTO_MIN_MARGIN`]): about RTT + 200 ms on a steady path.
pub const LINUX_RTO_INITIAL: Duration = Duration::from_secs(1);
/// See [`LINUX_RTO_INITIAL`].
pub const LINUX_RTO_MIN: Duration = Duration::from_millis(200);
/// See [`LINUX_RTO_INITIAL`].
pub const LINUX_RTO_MAX: Duration = Duration::from_secs(120);
/// See [`LINUX_RTO_INITIAL`].
pub const LINUX_RTO_MIN_MARGIN: Duration = Duration::from_millis(200);

/// Linux's initial congestion window, in segments (`TCP_INIT_CWND`, RFC 6928).
pub const LINUX_INIT_CWND_SEGMENTS: usize = 10;

/// Linux's quick-ack mode at connection start: up to `TCP_MAX_QUICKACKS` = 16 data
/// segments acknowledged at once (`tcp_incr_quickack`), before delayed ACKs begin.
pub const LINUX_QUICKACK_SEGMENTS: u8 = 16;
