//! Every number of the table rig, each with its source.

use std::time::Duration;

/// One-way delay of every shaped leg: 20 ms each way, a 40 ms round trip. Seed 000
/// ("20 ms each way, so every leg has a 40 ms round trip"); SPEC.md section 6.
pub const ONE_WAY_MS: u64 = 20;
/// Table 2's phone leg with the `rig` profile: seed 000, "netem shapes only the phone's
/// leg, 20 ms each way plus OrbStack's own few ms (ping 56–100 ms)": netem's 20 ms plus
/// 1 ms of OrbStack fixed, and up to 2 ms more drawn per packet, in order (the rest of "a
/// few ms"). The ping is not the app's path (an ICMP echo into a VM's network), so it
/// bounds OrbStack's crossing from above and sets nothing here (issue 34 section 1;
/// docs/table-derivations.md section 1, docs/table.md). Was 28 + 0..22 from the ping.
pub const PHONE_LEG_ONE_WAY_MS: u64 = 21;
pub const PHONE_LEG_JITTER_MS: u64 = 2;
/// The rig's legs are the Mac's loopback ("20 ms each way" by netem on `lo`, seed 000), whose
/// MTU is 65,536 (Linux `drivers/net/loopback.c`): a write of up to about 64 KB is one TCP
/// segment. Here 65,507, the largest IP packet the simulated network's UDP tunnel carries
/// (an IPv4 UDP payload's limit); table 2's phone leg keeps Ethernet's 1,500 (issue 34,
/// docs/table-derivations.md section 3 item 1).
pub const LOOPBACK_MTU_BYTES: usize = 65_507;
/// Connects and taps per row by default. Seed 000 ("30 connects and 30 taps per row").
pub const SAMPLES_DEFAULT: usize = 30;
/// The table's default seed. Chosen here (the brief).
pub const SEED_DEFAULT: u64 = 1;
/// The streaming window. Seed 000 ("90 s of frames").
pub const STREAM: Duration = Duration::from_secs(90);
/// A sample that has not finished after this long counts as failed. Chosen here
/// (TCP's backoff under 5 % loss stays far below it).
pub const SAMPLE_BOUND: Duration = Duration::from_secs(60);
/// The Go phone's path probe on a network switch: the first try's wait before the next,
/// doubled after each (quic-go `connection.go` `AddPath`: "200*time.Millisecond, //
/// initial RTT estimate"; `path_manager_outgoing.go` `Path.Probe`: "nextProbeDur *= 2").
pub const GO_PATH_PROBE_FIRST: Duration = Duration::from_millis(200);
/// Pause between one measured connect and the next. Chosen here.
pub const GAP: Duration = Duration::from_secs(1);
/// After a network switch sample, the session streams this long before the next. Chosen here.
pub const SETTLE: Duration = Duration::from_secs(3);
/// Grid of the newest value's age. Chosen here (a hundredth of the 1 Hz cadence).
pub const AGE_STEP_MS: u64 = 10;
/// Taps of the phone's own view, this far apart. Chosen here.
pub const TAP_EVERY: Duration = Duration::from_secs(2);
/// A return from the background: hidden this long, past the 30 s NAT mapping, so
/// the app races again (ftw-phone AppLife; SPEC.md section 6). Chosen here.
pub const BACKGROUND: Duration = Duration::from_secs(40);
/// How long the box waits at most for its uplink before the phone starts. Chosen here.
pub const BOX_READY_BOUND: Duration = Duration::from_secs(120);
/// An idle box's byte count covers one day.
pub const IDLE_DAY: Duration = Duration::from_secs(24 * 3600);
/// Every run stops here at the latest. Chosen here.
pub const RUN_LIMIT: Duration = Duration::from_secs(8 * 3600);

const _: () = assert!(BACKGROUND.as_millis() > 30_000, "a return from the background must outlive the NAT mapping");
