//! The rule table (issue 14 section 1): every rule of SPEC sections 2 to 6 and
//! of the seeds, declared once, with the laws that check it. Which scenarios
//! judge each law, the faults those scenarios draw, and the switches that
//! break it all derive from the scenarios' definitions and the references;
//! `ftwsim rules` prints the table and `docs/rules.md` is its output (a test
//! keeps the two the same).

use std::collections::BTreeSet;

use ftw_sim::domain::Kind;
use ftw_sim::scenario::SCENARIOS;

/// One rule: where it is written, its words, the laws that check it.
pub struct Rule {
    /// `SPEC §4`, `seed 000` (the QUIC pull request), `seed 002` (the fleet's).
    pub source: &'static str,
    pub rule: &'static str,
    pub laws: &'static [&'static str],
}

const fn r(source: &'static str, rule: &'static str, laws: &'static [&'static str]) -> Rule {
    Rule { source, rule, laws }
}

/// Every rule, in the SPEC's order.
pub const RULES: &[Rule] = &[
    r("SPEC §2", "a frame is ver 1, lane, flags, rsvd 0, len u16 BE, CBOR payload, zero pad to its bucket; lane 0 keeps one bucket (256 or 512) for a session's life, lane 1 steps 1024 / 4096 / 16384", &["nothing-broken-untampered", "frame-takes-its-bucket", "wire-agrees-with-spec"]),
    r("SPEC §2", "each type goes on its lane (lane 0: tick, delta, cmd, cmd.ack, cmd.result, event; lane 1: snap, history, hello_ok), and TRUNC (0x02) is set exactly when the message did not fit its bucket whole", &["frame-takes-its-bucket", "wire-agrees-with-spec"]),
    r("SPEC §2", "the envelope is deterministic CBOR {t, id?, b?}; unknown keys and types are ignored both ways", &["values-are-sent-values", "cmd-round-trip"]),
    r("SPEC §2", "replies echo their request's envelope id, so each request of a session carries its own", &["request-ids-distinct", "box-agrees-with-spec"]),
    r("SPEC §2", "the session phone to box is Noise IK (box key pinned, prologue with the box's key); a transport message is seq u64 BE in clear as associated data, AEAD(frame), nonce = seq", &["blind-relay", "replay-window-agrees-with-spec", "opens-once-forged-never"]),
    r("SPEC §2", "a transport message that does not open (a bit flipped on the way, at the phone or at the box) is never read: at the phone it breaks at most its session, the box drops it and answers nothing", &["nothing-broken-untampered", "box-agrees-with-spec"]),
    r("SPEC §3", "the control stream starts with the target; each message after it goes with its QUIC varint length", &["echo-in-order", "values-are-sent-values", "wire-agrees-with-spec"]),
    r("SPEC §3", "hb and live may come as datagrams; hb carries the latest liveSeq so a lost live shows as a gap, never as a value", &["live-gap-not-value", "datagrams-echoed", "view-agrees-with-spec", "wire-agrees-with-spec"]),
    r("SPEC §3", "live is the readable copy: values the cloud may read, stamped with wallMs, liveSeq and the srcRev of its table", &["values-are-sent-values", "box-agrees-with-spec"]),
    r("SPEC §3", "a QUIC PING every 15 s holds a 30 s NAT mapping", &["keepalive-holds"]),
    r("SPEC §3", "the service's close code comes back as the QUIC application error code: close handling is the same on both transports", &["close-code-arrives", "clean-close", "unpaired-4403", "sessions-off-1013", "cloud-agrees-with-spec"]),
    r("SPEC §3", "cold connect: QUIC handshake, outer Noise (its first message carries now.tun), the box session, hello, snapshot, first live; the session opens only once the QUIC handshake is done", &["phone-full-handshake", "values-are-sent-values", "streams-after-heal"]),
    r("SPEC §3", "the box's uplink resumes with 0-RTT and its challenge comes back in the first flight; the phone never uses 0-RTT", &["box-resumes-0rtt", "phone-full-handshake", "box-challenge-in-first-flight", "rejected-0rtt-loses-nothing", "phone-never-0rtt", "cloud-agrees-with-spec", "box-agrees-with-spec"]),
    r("SPEC §4", "race: QUIC starts first, the WebSocket 250 ms later, or at once if QUIC is refused", &["ws-after-250ms-without-udp", "ws-at-once-when-refused", "race-agrees-with-spec"]),
    r("SPEC §4", "the first transport to open carries the session and the other is closed: never two sessions", &["never-two-sessions", "race-agrees-with-spec"]),
    r("SPEC §4", "the memory keeps the winner per network for a day, only the last day's networks; the remembered winner goes first", &["memory-per-network", "quic-first-after-demotion", "race-agrees-with-spec"]),
    r("SPEC §4", "a QUIC session that ends before its first message, or whose path drops within a minute of it, demotes QUIC on that network for a day: the WebSocket goes first and no QUIC win moves QUIC back meanwhile", &["demoted-goes-ws-first", "quic-first-after-demotion", "race-agrees-with-spec"]),
    r("SPEC §4", "closes from 1000 up other than 1005 and 1006 do not count toward demotion (the service spoke)", &["service-close-keeps-quic", "demoted-goes-ws-first", "race-agrees-with-spec"]),
    r("SPEC §4", "learning dial: when the WebSocket wins, a QUIC dial under way goes on and, if it opens and QUIC is not demoted, records QUIC as the winner, then closes", &["quic-back-within-a-day", "race-agrees-with-spec"]),
    r("SPEC §4", "a WebSocket win never keeps QUIC second for longer than a day (the learning probe stays scheduled when the WebSocket goes first)", &["quic-back-within-a-day", "race-agrees-with-spec"]),
    r("SPEC §4", "the replay window is 1024 sequence numbers: a burst overtaking a control message never causes a false replay", &["no-false-replay", "replay-window-agrees-with-spec"]),
    r("SPEC §4", "a replay that came as a datagram is dropped; a replay or a broken message on a stream ends the session", &["replayed-datagram-dropped", "stream-replay-ends-session", "carrier-agrees-with-spec"]),
    r("SPEC §4", "a late live whose srcRev is newer gives the view its table and keeps the newer values (Freshness case 17); the view never goes back", &["late-live-table-kept", "view-agrees-with-spec"]),
    r("SPEC §4", "the settings line reads \"Connected · QUIC\" or \"Connected · WebSocket\", naming the transport that carries the session", &["carrier-agrees-with-spec"]),
    r("SPEC §4", "after the plan's faults heal the phone streams again (box backoff at most 60 s, a race, the handshakes)", &["streams-after-heal"]),
    r("SPEC §1", "the cloud relays between phone and box and never reads the end-to-end session", &["blind-relay", "no-box-bytes", "cloud-agrees-with-spec"]),
    r("SPEC §1", "the cloud relays between a phone and its box only while the phone is there: once it has closed, the box holds no session and the cloud no link or relay for it (the state after the end)", &["nothing-held-after-end", "cloud-agrees-with-spec", "box-agrees-with-spec"]),
    r("SPEC §1", "a phone the cloud has not paired gets 4403 and no byte of box data; sessions off: the door finishes the handshake and closes with 1013", &["unpaired-4403", "no-box-bytes", "sessions-off-1013", "cloud-agrees-with-spec"]),
    r("SPEC §5", "the kernel picks a reactor by hashing the sender's address and port; every server-minted connection id carries its owner (cid[0] % N)", &["fleet-agrees-with-spec"]),
    r("SPEC §5", "Forward: a short header for an id a reactor does not hold goes, as a copy, to the owner byte 0 names; KernelFilter: nothing forwarded; no routing is the bug", &["same-connection", "owner-reads-what-was-sent", "kernel-filter-forwards-nothing", "fleet-agrees-with-spec"]),
    r("SPEC §5", "only short headers are forwarded: a long header's id is the client's choice", &["long-headers-stay", "fleet-agrees-with-spec"]),
    r("SPEC §5", "the owner's 250 ms sweep pins a moved client's new address: one claim per address change, forwarding stops once pinned", &["one-pin-per-move", "forwarding-stops-after-pin", "fleet-agrees-with-spec"]),
    r("SPEC §5", "at most 512 pins per reactor, past that keep forwarding; pins only receive; a pin is released when its connection ends", &["pins-within-ceiling", "forged-moves-keep-connections", "fleet-agrees-with-spec"]),
    r("SPEC §5", "a fleet whose clients never move forwards nothing and pins nothing; the counters count what happened", &["still-fleet-quiet", "fleet-agrees-with-spec"]),
    r("SPEC §5", "a migrated connection is the same connection: same state, no new handshake", &["same-connection", "one-connection", "move-recovers-within-pto", "moves-keep-the-session"]),
    r("SPEC §6", "lane 0 goes at 1 Hz with the app in view and 0.2 Hz hidden", &["box-agrees-with-spec", "life-agrees-with-spec"]),
    r("SPEC §6", "a session is never used across a silence longer than the 30 s NAT mapping: a return from the background after more than 30 s hidden, a clock jump of more than 30 s and a relaunch each connect afresh", &["life-agrees-with-spec", "no-session-past-its-mapping"]),
    r("SPEC §2", "lane 0 carries tick and delta: a delta the subscribed fields that changed, a tick that nothing did, so the phone's picture is the site's current values after each frame", &["lane0-picture-current"]),
    r("seed 000", "a command gets cmd.ack then cmd.result, both echoing its id", &["cmd-round-trip", "box-agrees-with-spec"]),
    r("seed 000", "a WebSocket dies only when the network could kill it (a heartbeat 1006 or a reset needs loss or an outage)", &["death-needs-a-fault", "ws-datagrams-as-messages"]),
    r("network-and-tcp.md", "a NAT keeps one mapping per inside address and port whatever the remote (RFC 4787 REQ-1), lets in only what comes from remotes a mapping sent to, forgets a UDP mapping idle past 30 s and a TCP one past 2 h 4 min established or 4 min transitory (RFC 5382 REQ-5), and a rebind moves every flow of the host to a new outside port", &["nat-agrees-with-spec"]),
    r("fault-plans.md", "each direction of a leg applies its plan: outages in their windows, the MTU, the one-way delay plus the jitter (in order if asked), and loss, duplication and reordering at the plan's rates", &["link-agrees-with-spec"]),
    r("fault-plans.md", "a host pays a service time per datagram it receives, uniform within the spread of the plan's UDP or TCP median, pipelined, ten times the profile while it is slow", &["processing-agrees-with-spec"]),
    r("tcp/README.md", "TCP's retransmission timer follows RFC 6298 from the connection's own RTT samples, with Linux's 1 s initial, 200 ms floor and 120 s ceiling: started for the current RTO, never early, doubled on each expiry", &["tcp-agrees-with-spec"]),
    r("tcp/README.md", "TCP acknowledges data within Linux's 40 ms delayed ACK, at once when more than one full segment waits (Linux: more than rcv_mss, its estimate of the peer's segment size) or data came out of order, and (Linux) for a connection's first 16 data segments and after a silence longer than the RTO, except in pingpong mode, and when the application's read empties the buffer after a small pushed segment", &["tcp-agrees-with-spec"]),
    r("tcp/README.md", "a passive TCP connection in SYN-RECEIVED answers a repeated SYN with the SYN-ACK again, at most once per 500 ms, and is forgotten silently 63 s after its SYN, as Linux (tcp_check_req, tcp_synack_retries = 5): a peer still trying is never refused", &["tcp-agrees-with-spec"]),
    r("brief", "every run completes within its limit, and nothing panics", &["run", "no-panic"]),
];

/// The scenarios that declare `law` (a reference model's too: it judges their
/// runs that journal its model).
pub fn scenarios_judging(law: &str) -> Vec<&'static str> {
    SCENARIOS.iter().filter(|s| s.judges(law)).map(|s| s.name).collect()
}

/// The fault kinds the scenarios judging `law` may draw.
pub fn faults_for(law: &str) -> BTreeSet<Kind> {
    SCENARIOS.iter().filter(|s| s.judges(law)).flat_map(|s| s.domain.kinds.iter().copied()).collect()
}

/// The switches that break `law` in some scenario.
pub fn switches_breaking(law: &str) -> BTreeSet<&'static str> {
    let from_scenarios = SCENARIOS.iter().flat_map(|s| s.laws.iter()).filter(|l| l.name == law).flat_map(|l| l.broken_by.iter().map(|w| w.name()));
    let references = ftw_sim::law::reference::REFERENCES.iter().filter(|r| r.law.name == law);
    let from_references = references.clone().flat_map(|r| r.law.broken_by.iter().map(|w| w.name()));
    let planted = references.flat_map(|r| r.planted.iter().map(|b| b.name()));
    from_scenarios.chain(from_references).chain(planted).collect()
}

/// The table as Markdown: one row per rule and law.
pub fn markdown() -> String {
    let mut out = String::from(
        "# The rule table\n\nEvery rule of SPEC sections 1 to 6 and of the seeds, the laws that check it, the scenarios that judge each law, \
         the faults those scenarios draw, and the switches that show the law can fail. Generated by `cargo sim rules` from \
         `properties/src/rules.rs` and the scenarios' definitions; `cargo test` fails when this file is stale.\n\n\
         Laws named `*-agrees-with-spec` are reference models in lockstep (`sim/src/law/reference/`): each judges the runs of the \
         scenarios that declare it whose journal has a step of its model.\n\n\
         | source | rule | law | judged in | faults drawn | broken by |\n|---|---|---|---|---|---|\n",
    );
    for rule in RULES {
        for law in rule.laws {
            out.push_str(&row(rule, law));
        }
    }
    out
}

fn row(rule: &Rule, law: &str) -> String {
    let scenarios = if ftw_sim::scenario::UNIVERSAL.iter().any(|l| l.name == law) { "every scenario".to_string() } else { scenarios_judging(law).join(", ") };
    let faults: Vec<&str> = faults_for(law).into_iter().map(|k| k.name()).collect();
    let switches: Vec<&str> = switches_breaking(law).into_iter().collect();
    let dash = |s: String| if s.is_empty() { "-".to_string() } else { s };
    format!("| {} | {} | `{law}` | {} | {} | {} |\n", rule.source, rule.rule, dash(scenarios), dash(faults.join(", ")), dash(switches.join(", ")))
}
