//! Bugs planted in the world's own elements (the NAT, the link's pieces) for
//! the duration of a test, to show that the references judging the world can
//! fail (issue 32 section 3). Unlike the bug switches of SPEC section 7 these
//! are not the product's bugs: they break the simulator itself, so no fault
//! plan, corpus entry or command line can turn one on. A test holds a [`Plant`]
//! for as long as the bug should live; dropping it takes the bug out, so it
//! cannot leak into the next run on the thread.

use std::cell::Cell;

/// One planted bug of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bug {
    /// A NAT's rebind leaves the old outside port mapped too (RFC 4787's
    /// rebinding is a lost mapping: the old port must stop working).
    NatRebindKeepsOldPort,
    /// A NAT never holds a TCP flow as established, so it expires after the
    /// transitory 4 minutes (RFC 5382 REQ-5: 2 h 4 min once established).
    NatTcpNeverEstablished,
    /// A NAT keeps the mappings of a host that left its network (a network
    /// switch: RFC 4787's mappings belong to the network the host is on).
    NatKeepsLeftHost,
    /// The loss piece drops twice the share its plan says.
    LossDoubled,
    /// The jitter piece adds up to twice the plan's jitter.
    JitterDoubled,
    /// A host's processing lets a datagram be ready before the one that
    /// arrived ahead of it (docs/fault-plans.md: pipelined, never ahead).
    ProcessingReorders,
    /// TCP's retransmission timer keeps its RTO when it expires instead of
    /// doubling it (RFC 6298 5.5; planted in the vendored smoltcp's `rto_log`).
    RtoNoBackoff,
    /// The Linux flavour's TCP has no quick-ack mode: a connection's first data
    /// segments wait for the delayed ACK (planted in the vendored smoltcp's `rto_log`).
    TcpNoQuickAck,
    /// The Linux flavour's SYN-RECEIVED is stock smoltcp's: a repeated SYN dropped
    /// unanswered, the half-open connection given up with an RST (Linux answers with
    /// the SYN-ACK again and forgets it silently at 63 s; sim/tcp/README.md).
    TcpSynRecvAsStock,
    /// The box pads a frame with a non-zero last byte (SPEC §2: zero pad to the bucket).
    WirePadNotZeroed,
    /// The box sends `cmd.ack` on lane 1 (SPEC §2 puts it on lane 0).
    WireAckOnBulkLane,
    /// The box sets TRUNC on a `delta` that fit whole (SPEC §2).
    WireTruncOnWholeDelta,
    /// The box sends `cmd.ack` as a QUIC datagram (SPEC §3: only `hb` and `live`).
    WireAckAsDatagram,
    /// A stream message's varint length counts the varint's own bytes too (SPEC §3).
    WireVarintCountsItself,
    /// The fleet's kernel hashes the sender's address but not its port, so a rebind never
    /// re-hashes the client (SPEC §5: the kernel hashes "the sender's address and port").
    KernelHashIgnoresPort,
}

impl Bug {
    /// Every planted bug (each must make some reference fail: tested).
    pub const ALL: &'static [Bug] = &[
        Bug::NatRebindKeepsOldPort,
        Bug::NatTcpNeverEstablished,
        Bug::NatKeepsLeftHost,
        Bug::LossDoubled,
        Bug::JitterDoubled,
        Bug::ProcessingReorders,
        Bug::RtoNoBackoff,
        Bug::TcpNoQuickAck,
        Bug::TcpSynRecvAsStock,
        Bug::WirePadNotZeroed,
        Bug::WireAckOnBulkLane,
        Bug::WireTruncOnWholeDelta,
        Bug::WireAckAsDatagram,
        Bug::WireVarintCountsItself,
        Bug::KernelHashIgnoresPort,
    ];

    /// The bug's name, as the rule table shows it.
    pub fn name(self) -> &'static str {
        match self {
            Bug::NatRebindKeepsOldPort => "nat-rebind-keeps-old-port",
            Bug::NatTcpNeverEstablished => "nat-tcp-never-established",
            Bug::NatKeepsLeftHost => "nat-keeps-left-host",
            Bug::LossDoubled => "loss-doubled",
            Bug::JitterDoubled => "jitter-doubled",
            Bug::ProcessingReorders => "processing-reorders",
            Bug::RtoNoBackoff => "rto-no-backoff",
            Bug::TcpNoQuickAck => "tcp-no-quick-ack",
            Bug::TcpSynRecvAsStock => "tcp-synrecv-as-stock",
            Bug::WirePadNotZeroed => "wire-pad-not-zeroed",
            Bug::WireAckOnBulkLane => "wire-ack-on-bulk-lane",
            Bug::WireTruncOnWholeDelta => "wire-trunc-on-whole-delta",
            Bug::WireAckAsDatagram => "wire-ack-as-datagram",
            Bug::WireVarintCountsItself => "wire-varint-counts-itself",
            Bug::KernelHashIgnoresPort => "kernel-hash-ignores-port",
        }
    }
}

thread_local! {
    /// One bit a bug (a lookup per datagram must cost nothing).
    static PLANTED: Cell<u32> = const { Cell::new(0) };
}

fn bit(bug: Bug) -> u32 {
    1 << (bug as u32)
}

/// Whether `bug` is planted on this thread now.
pub fn on(bug: Bug) -> bool {
    PLANTED.with(|p| p.get() & bit(bug) != 0)
}

/// Bugs planted until this value is dropped.
#[must_use = "the bugs are taken out when the Plant is dropped"]
pub struct Plant(Vec<Bug>);

impl Plant {
    pub fn new(bugs: &[Bug]) -> Plant {
        PLANTED.with(|p| p.set(bugs.iter().fold(p.get(), |m, b| m | bit(*b))));
        tell_smoltcp();
        Plant(bugs.to_vec())
    }
}

impl Drop for Plant {
    fn drop(&mut self) {
        PLANTED.with(|p| p.set(self.0.iter().fold(p.get(), |m, b| m & !bit(*b))));
        tell_smoltcp();
    }
}

/// The bugs planted in the vendored smoltcp, which keeps its own switches.
fn tell_smoltcp() {
    smoltcp::socket::tcp::rto_log::plant_no_backoff(on(Bug::RtoNoBackoff));
    smoltcp::socket::tcp::rto_log::plant_no_quickack(on(Bug::TcpNoQuickAck));
    smoltcp::socket::tcp::rto_log::plant_synrecv_as_stock(on(Bug::TcpSynRecvAsStock));
}
