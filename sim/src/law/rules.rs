//! The rules the laws check, each declared once: where it is written (a SPEC
//! section, a seed, a page of docs/) and its words. A law names the rules it
//! checks (`Law::checks`); the rule table (`ftwsim rules`, docs/rules.md)
//! derives from the laws, so a law and its rule are declared together.

/// One rule: where it is written and its words.
#[derive(Debug)]
pub struct Rule {
    /// `SPEC §4`, `seed 000` (the QUIC pull request), `seed 002` (the fleet's),
    /// or the page of docs/ that states it.
    pub source: &'static str,
    pub words: &'static str,
}

/// Rules are one by their words.
impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.words == other.words
    }
}

impl Eq for Rule {}

/// Each row a rule's name, source and words: declares the constant and lists
/// it in `RULES`, in the table's order.
macro_rules! rules {
    ($($name:ident = ($source:expr, $words:expr),)*) => {
        $(pub const $name: Rule = Rule { source: $source, words: $words };)*
        /// Every rule, in the table's order.
        pub const RULES: &[&Rule] = &[$(&$name),*];
    };
}

rules! {
    FRAME_FORMAT = ("SPEC §2", "a frame is ver 1, lane, flags, rsvd 0, len u16 BE, CBOR payload, zero pad to its bucket; lane 0 keeps one bucket (256 or 512) for a session's life, lane 1 steps 1024 / 4096 / 16384"),
    LANE_PER_TYPE = ("SPEC §2", "each type goes on its lane (lane 0: tick, delta, cmd, cmd.ack, cmd.result, event; lane 1: snap, history, hello_ok), and TRUNC (0x02) is set exactly when the message did not fit its bucket whole"),
    ENVELOPE_CBOR = ("SPEC §2", "the envelope is deterministic CBOR {t, id?, b?}; unknown keys and types are ignored both ways"),
    REPLY_ECHOES_ID = ("SPEC §2", "replies echo their request's envelope id, so each request of a session carries its own"),
    NOISE_SESSION = ("SPEC §2", "the session phone to box is Noise IK (box key pinned, prologue with the box's key); a transport message is seq u64 BE in clear as associated data, AEAD(frame), nonce = seq"),
    UNOPENED_NEVER_READ = ("SPEC §2", "a transport message that does not open (a bit flipped on the way, at the phone or at the box) is never read: at the phone it breaks at most its session, the box drops it and answers nothing"),
    CONTROL_STREAM = ("SPEC §3", "the control stream starts with the target; each message after it goes with its QUIC varint length"),
    DATAGRAM_HB_LIVE = ("SPEC §3", "hb and live may come as datagrams; hb carries the latest liveSeq so a lost live shows as a gap, never as a value"),
    LIVE_READABLE_COPY = ("SPEC §3", "live is the readable copy: values the cloud may read, stamped with wallMs, liveSeq and the srcRev of its table"),
    QUIC_PING_HOLDS_NAT = ("SPEC §3", "a QUIC PING every 15 s holds a 30 s NAT mapping"),
    CLOSE_CODE_CARRIED = ("SPEC §3", "the service's close code comes back as the QUIC application error code: close handling is the same on both transports"),
    COLD_CONNECT = ("SPEC §3", "cold connect: QUIC handshake, outer Noise (its first message carries now.tun), the box session, hello, snapshot, first live; the session opens only once the QUIC handshake is done"),
    BOX_0RTT_PHONE_NEVER = ("SPEC §3", "the box's uplink resumes with 0-RTT and its challenge comes back in the first flight; the phone never uses 0-RTT"),
    RACE_START = ("SPEC §4", "race: QUIC starts first, the WebSocket 250 ms later, or at once if QUIC is refused"),
    ONE_SESSION = ("SPEC §4", "the first transport to open carries the session and the other is closed: never two sessions"),
    MEMORY_PER_NETWORK = ("SPEC §4", "the memory keeps the winner per network for a day, only the last day's networks; the remembered winner goes first"),
    NETWORK_NAMED = ("SPEC §4", "a network is named by its interfaces and gateways and stored only as a hash: the same network always the same name, two networks never one"),
    DEMOTION = ("SPEC §4", "a QUIC session that ends before its first message, or whose path drops within a minute of it, demotes QUIC on that network for a day: the WebSocket goes first and no QUIC win moves QUIC back meanwhile"),
    SERVICE_CLOSE_NO_DEMOTION = ("SPEC §4", "closes from 1000 up other than 1005 and 1006 do not count toward demotion (the service spoke)"),
    LEARNING_DIAL = ("SPEC §4", "learning dial: when the WebSocket wins, a QUIC dial under way goes on and, if it opens and QUIC is not demoted, records QUIC as the winner, then closes"),
    WS_WIN_AT_MOST_A_DAY = ("SPEC §4", "a WebSocket win never keeps QUIC second for longer than a day (the learning probe stays scheduled when the WebSocket goes first)"),
    REPLAY_WINDOW = ("SPEC §4", "the replay window is 1024 sequence numbers: a burst overtaking a control message never causes a false replay"),
    REPLAY_HANDLING = ("SPEC §4", "a replay that came as a datagram is dropped; a replay or a broken message on a stream ends the session"),
    LATE_LIVE = ("SPEC §4", "a late live whose srcRev is newer gives the view its table and keeps the newer values (Freshness case 17); the view never goes back"),
    SETTINGS_LINE = ("SPEC §4", "the settings line reads \"Connected · QUIC\" or \"Connected · WebSocket\", naming the transport that carries the session"),
    STREAMS_AFTER_HEAL = ("SPEC §4", "after the plan's faults heal the phone streams again (box backoff at most 60 s, a race, the handshakes)"),
    BLIND_RELAY = ("SPEC §1", "the cloud relays between phone and box and never reads the end-to-end session"),
    NOTHING_AFTER_END = ("SPEC §1", "the cloud relays between a phone and its box only while the phone is there: once it has closed, the box holds no session and the cloud no link or relay for it (the state after the end)"),
    UNPAIRED_AND_OFF = ("SPEC §1", "a phone the cloud has not paired gets 4403 and no byte of box data; sessions off: the door finishes the handshake and closes with 1013"),
    KERNEL_HASH_CID_OWNER = ("SPEC §5", "the kernel picks a reactor by hashing the sender's address and port; every server-minted connection id carries its owner (cid[0] % N)"),
    FORWARD_ROUTING = ("SPEC §5", "Forward: a short header for an id a reactor does not hold goes, as a copy, to the owner byte 0 names; KernelFilter: nothing forwarded; no routing is the bug"),
    SHORT_HEADERS_ONLY = ("SPEC §5", "only short headers are forwarded: a long header's id is the client's choice"),
    SWEEP_PINS = ("SPEC §5", "the owner's 250 ms sweep pins a moved client's new address: one claim per address change, forwarding stops once pinned"),
    PIN_CEILING = ("SPEC §5", "at most 512 pins per reactor, past that keep forwarding; pins only receive; a pin is released when its connection ends"),
    STILL_FLEET = ("SPEC §5", "a fleet whose clients never move forwards nothing and pins nothing; the counters count what happened"),
    MIGRATION_SAME_CONNECTION = ("SPEC §5", "a migrated connection is the same connection: same state, no new handshake"),
    LANE0_RATE = ("SPEC §6", "lane 0 goes at 1 Hz with the app in view and 0.2 Hz hidden"),
    NO_SESSION_PAST_MAPPING = ("SPEC §6", "a session is never used across a silence longer than the 30 s NAT mapping: a return from the background after more than 30 s hidden, a clock jump of more than 30 s and a relaunch each connect afresh"),
    LANE0_TICK_DELTA = ("SPEC §2", "lane 0 carries tick and delta: a delta the subscribed fields that changed, a tick that nothing did, so the phone's picture is the site's current values after each frame"),
    CMD_ACK_RESULT = ("seed 000", "a command gets cmd.ack then cmd.result, both echoing its id"),
    WS_DEATH_NEEDS_FAULT = ("seed 000", "a WebSocket dies, or its dial fails, only when the network could kill it (a heartbeat 1006, a reset or a TCP handshake given up after every SYN was lost needs loss or an outage)"),
    NAT_BEHAVIOUR = ("network-and-tcp.md", "a NAT keeps one mapping per inside address and port whatever the remote (RFC 4787 REQ-1), lets in only what comes from remotes a mapping sent to, forgets a UDP mapping idle past 30 s and a TCP one past 2 h 4 min established or 4 min transitory (RFC 5382 REQ-5), and a rebind moves every flow of the host to a new outside port"),
    LEG_PLAN = ("fault-plans.md", "each direction of a leg applies its plan: outages in their windows, the MTU, the one-way delay plus the jitter (in order if asked), and loss, duplication and reordering at the plan's rates"),
    HOST_SERVICE_TIME = ("fault-plans.md", "a host pays a service time per datagram it receives, uniform within the spread of the plan's UDP or TCP median, pipelined, ten times the profile while it is slow"),
    TCP_RTO = ("tcp/README.md", "TCP's retransmission timer follows RFC 6298 from the connection's own RTT samples, with Linux's 1 s initial, 200 ms floor and 120 s ceiling: started for the current RTO, never early, doubled on each expiry"),
    TCP_DELAYED_ACK = ("tcp/README.md", "TCP acknowledges data within Linux's 40 ms delayed ACK, at once when more than one full segment waits (Linux: more than rcv_mss, its estimate of the peer's segment size) or data came out of order, and (Linux) for a connection's first 16 data segments and after a silence longer than the RTO, except in pingpong mode, and when the application's read empties the buffer after a small pushed segment"),
    TCP_SYN_RECEIVED = ("tcp/README.md", "a passive TCP connection in SYN-RECEIVED answers a repeated SYN with the SYN-ACK again, at most once per 500 ms, and is forgotten silently 63 s after its SYN, as Linux (tcp_check_req, tcp_synack_retries = 5): a peer still trying is never refused"),
    RUNS_COMPLETE = ("brief", "every run completes within its limit, and nothing panics"),
}
