//! Every law a scenario checks, declared once: its name (what users type and
//! the corpus records) and the rule in words. Scenarios list the laws they
//! judge in their [`super::def::ScenarioDef`]; `ftwsim list`, the fuzzer's
//! `--property` and the docs' tables derive from those lists.

use super::{shared, Judge, Law, Ruling};
use crate::drive::app::phone::{End, SessionRecord};
use crate::law::rules;
use crate::world::switch::Switch;

pub const ECHO_IN_ORDER: Law =
    Law::new("echo-in-order", "every stream message comes back once, in order").checks(&[&rules::CONTROL_STREAM]).judged(Judge::Echo(shared::echo_in_order));
pub const ONE_CONNECTION: Law = Law::new("one-connection", "the cloud accepts one connection: faults never force a new handshake")
    .checks(&[&rules::MIGRATION_SAME_CONNECTION])
    .judged(Judge::Accepted(shared::one_connection));
pub const DATAGRAMS_ECHOED: Law =
    Law::new("datagrams-echoed", "without loss every datagram comes back; with loss never more than were sent").checks(&[&rules::DATAGRAM_HB_LIVE]);
pub const CLEAN_CLOSE: Law =
    Law::new("clean-close", "the cloud sees the phone's close code 1000").checks(&[&rules::CLOSE_CODE_CARRIED]).judged(Judge::Close(shared::clean_close));
pub const KEEPALIVE_HOLDS: Law =
    Law::new("keepalive-holds", "a 15 s keepalive holds a 30 s NAT mapping: an idle connection lives for a day").checks(&[&rules::QUIC_PING_HOLDS_NAT]);
pub const WS_DATAGRAMS_AS_MESSAGES: Law =
    Law::new("ws-datagrams-as-messages", "over the WebSocket every datagram goes as a message and comes back, in order, even under loss")
        .checks(&[&rules::WS_DEATH_NEEDS_FAULT]);
pub const SAME_CONNECTION: Law =
    Law::new("same-connection", "through rebinds and network moves behind the reactor fleet, the same QUIC connection carries on: one handshake, every echo")
        .checks(&[&rules::FORWARD_ROUTING, &rules::MIGRATION_SAME_CONNECTION])
        .broken_by(&[Switch::NoRouting]);
pub const LONG_HEADERS_STAY: Law =
    Law::new("long-headers-stay", "a long header is read by the reactor the kernel chose: never forwarded by its client-chosen byte 0")
        .checks(&[&rules::SHORT_HEADERS_ONLY])
        .broken_by(&[Switch::ForwardLongHeaders]);
pub const OWNER_READS_WHAT_WAS_SENT: Law =
    Law::new("owner-reads-what-was-sent", "the reactor that owns a connection reads the bytes that arrived, never a reused buffer")
        .checks(&[&rules::FORWARD_ROUTING])
        .broken_by(&[Switch::ForwardReference]);
pub const ONE_PIN_PER_MOVE: Law = Law::new("one-pin-per-move", "one pin claim per address change, not one per path report")
    .checks(&[&rules::SWEEP_PINS])
    .broken_by(&[Switch::ClaimPerPathReport]);
pub const FORWARDING_STOPS_AFTER_PIN: Law =
    Law::new("forwarding-stops-after-pin", "forwarding happens only in the moments after a move: once the owner pins the new address it stops")
        .checks(&[&rules::SWEEP_PINS]);
pub const KERNEL_FILTER_FORWARDS_NOTHING: Law =
    Law::new("kernel-filter-forwards-nothing", "with the kernel filter nothing is forwarded and nothing pinned").checks(&[&rules::FORWARD_ROUTING]);
pub const STILL_FLEET_QUIET: Law =
    Law::new("still-fleet-quiet", "a fleet whose clients never move forwards none of their packets and pins nothing (strays: stateless resets)")
        .checks(&[&rules::STILL_FLEET]);
pub const CLOSE_CODE_ARRIVES: Law = Law::new("close-code-arrives", "the service's close code (4408) arrives at the box as the QUIC application error code")
    .checks(&[&rules::CLOSE_CODE_CARRIED]);
pub const BOX_RESUMES_0RTT: Law =
    Law::new("box-resumes-0rtt", "the box reconnects with 0-RTT and its first flight is answered in one round trip").checks(&[&rules::BOX_0RTT_PHONE_NEVER]);
pub const PHONE_FULL_HANDSHAKE: Law =
    Law::new("phone-full-handshake", "the phone never resumes: a full handshake, its first message answered after two round trips")
        .checks(&[&rules::COLD_CONNECT, &rules::BOX_0RTT_PHONE_NEVER]);
pub const VALUES_ARE_SENT_VALUES: Law = Law::new("values-are-sent-values", "every value the phone shows is one the box sent, with its liveSeq").checks(&[
    &rules::ENVELOPE_CBOR,
    &rules::CONTROL_STREAM,
    &rules::LIVE_READABLE_COPY,
    &rules::COLD_CONNECT,
]);
pub const CMD_ROUND_TRIP: Law =
    Law::new("cmd-round-trip", "a command gets cmd.ack then cmd.result, both echoing its id").checks(&[&rules::ENVELOPE_CBOR, &rules::CMD_ACK_RESULT]);
pub const LIVE_GAP_NOT_VALUE: Law = Law::new("live-gap-not-value", "a lost live shows as a gap, never as a value").checks(&[&rules::DATAGRAM_HB_LIVE]);
pub const BLIND_RELAY: Law = Law::new("blind-relay", "the cloud never sees the session's plaintext").checks(&[&rules::NOISE_SESSION, &rules::BLIND_RELAY]);
pub const STREAMS_AFTER_HEAL: Law = Law::new("streams-after-heal", "after the plan's faults heal, the phone streams again within 75 s")
    .checks(&[&rules::COLD_CONNECT, &rules::STREAMS_AFTER_HEAL]);
pub const UNPAIRED_4403: Law =
    Law::new("unpaired-4403", "a phone the cloud has not paired gets 4403").checks(&[&rules::CLOSE_CODE_CARRIED, &rules::UNPAIRED_AND_OFF]);
pub const NO_BOX_BYTES: Law = Law::new("no-box-bytes", "an unpaired phone gets no byte of box data and the box opens no session")
    .checks(&[&rules::BLIND_RELAY, &rules::UNPAIRED_AND_OFF]);
pub const SESSIONS_OFF_1013: Law = Law::new("sessions-off-1013", "with sessions off the door finishes the handshake and closes with 1013")
    .checks(&[&rules::CLOSE_CODE_CARRIED, &rules::UNPAIRED_AND_OFF]);
pub const SERVICE_CLOSE_KEEPS_QUIC: Law = Law::new("service-close-keeps-quic", "a close the service sent (4403, 1013) does not demote QUIC")
    .checks(&[&rules::SERVICE_CLOSE_NO_DEMOTION])
    .broken_by(&[Switch::EveryCloseDemotes]);
pub const REPLAYED_DATAGRAM_DROPPED: Law = Law::new("replayed-datagram-dropped", "a replay that came as a datagram is dropped: the session goes on")
    .checks(&[&rules::REPLAY_HANDLING])
    .broken_by(&[Switch::DatagramReplayEndsSession]);
pub const STREAM_REPLAY_ENDS_SESSION: Law = Law::new("stream-replay-ends-session", "a replay on a stream ends the session: it is never only dropped")
    .checks(&[&rules::REPLAY_HANDLING])
    .broken_by(&[Switch::StreamReplayOnlyDropped]);
pub const NOTHING_BROKEN_UNTAMPERED: Law = Law::new(
    "nothing-broken-untampered",
    "no message fails to open unless someone broke it: frames, buckets, envelopes and both Noise layers agree end to end, so no session ends broken",
)
.checks(&[&rules::FRAME_FORMAT, &rules::UNOPENED_NEVER_READ]);
pub const NOTHING_HELD_AFTER_END: Law = Law::new(
    "nothing-held-after-end",
    "once the phone has closed and the links settle, the box holds no session and the cloud no phone link and no relay to the box",
)
.checks(&[&rules::NOTHING_AFTER_END])
.broken_by(&[Switch::BoxKeepsClosedSessions])
.judged(Judge::Held(shared::nothing_held_after_end));
pub const LANE0_PICTURE_CURRENT: Law = Law::new("lane0-picture-current", "after every lane-0 frame a phone's picture (its snapshot and the deltas since) shows the site's value of each field it subscribed to: a delta carries only subscribed fields that changed, a tick means nothing did (SPEC section 2 lane 0; the box docs)").checks(&[&rules::LANE0_TICK_DELTA]);
pub const NO_FALSE_REPLAY: Law =
    Law::new("no-false-replay", "a burst overtaking a control message never causes a false replay: every replay the carrier saw is one the relay made")
        .checks(&[&rules::REPLAY_WINDOW])
        .broken_by(&[Switch::ReplayWindow64])
        .judged(Judge::Replays(shared::no_false_replay));
pub const OPENS_ONCE_FORGED_NEVER: Law = Law::new("opens-once-forged-never", "a transport message opens at most once, and a forged one never opens nor moves the replay window (SPEC section 2: seq in clear as associated data; section 4: replays are refused)").checks(&[&rules::NOISE_SESSION]).broken_by(&[Switch::ForgedMarksWindow]);
pub const FRAME_TAKES_ITS_BUCKET: Law = Law::new("frame-takes-its-bucket", "every frame is ver 1, its lane, rsvd 0, its length, its payload and zero padding to its lane's bucket (lane 0: the session's 256 or 512 B; lane 1: the smallest of 1024, 4096, 16384 that holds it); one that fits no bucket is refused; each opens as sealed (SPEC section 2)").checks(&[&rules::FRAME_FORMAT, &rules::LANE_PER_TYPE]);
pub const LATE_LIVE_TABLE_KEPT: Law =
    Law::new("late-live-table-kept", "a late live's newer table is kept and the newer values stay (Freshness case 17); the view never goes back")
        .checks(&[&rules::LATE_LIVE])
        .broken_by(&[Switch::LateLiveTableDropped]);
pub const DEMOTED_GOES_WS_FIRST: Law = Law::new(
    "demoted-goes-ws-first",
    "after a QUIC path drop within a minute of the first message (or before it) the WebSocket goes first on that network for a day",
)
.checks(&[&rules::DEMOTION, &rules::SERVICE_CLOSE_NO_DEMOTION])
.broken_by(&[Switch::NoCloseDemotes])
.judged(Judge::PhoneSessions(demoted_goes_ws_first));
pub const NO_SESSION_PAST_ITS_MAPPING: Law = Law::new("no-session-past-its-mapping", "the app never keeps using a session across a silence longer than the 30 s NAT mapping lives (SPEC section 6; a hidden app sends no keepalive): a return after more than 30 s hidden or a clock jump of more than 30 s connects afresh").checks(&[&rules::NO_SESSION_PAST_MAPPING]);
pub const NEVER_TWO_SESSIONS: Law = Law::new("never-two-sessions", "the phone never holds two sessions at once")
    .checks(&[&rules::ONE_SESSION])
    .judged(Judge::Sessions(shared::never_two_sessions));
pub const WS_AFTER_250MS_WITHOUT_UDP: Law =
    Law::new("ws-after-250ms-without-udp", "with UDP blocked the WebSocket opens 250 ms after a QUIC-first start, once per network per day")
        .checks(&[&rules::RACE_START]);
pub const QUIC_BACK_WITHIN_A_DAY: Law =
    Law::new("quic-back-within-a-day", "after a transient QUIC failure ends, QUIC carries the session again within a day and one reconnect")
        .checks(&[&rules::LEARNING_DIAL, &rules::WS_WIN_AT_MOST_A_DAY])
        .broken_by(&[Switch::WsFirstCancelsProbe, Switch::LosingDialCancelled]);
pub const MEMORY_PER_NETWORK: Law =
    Law::new("memory-per-network", "a phone that moves networks keeps a memory entry for each network of the last day").checks(&[&rules::MEMORY_PER_NETWORK]);
pub const QUIC_FIRST_AFTER_DEMOTION: Law =
    Law::new("quic-first-after-demotion", "a day after a demotion, QUIC goes first again on that network within one reconnect")
        .checks(&[&rules::MEMORY_PER_NETWORK, &rules::DEMOTION])
        .broken_by(&[Switch::WsFirstCancelsProbe]);
pub const WS_AT_ONCE_WHEN_REFUSED: Law = Law::new(
    "ws-at-once-when-refused",
    "with QUIC refused, a race that starts with QUIC dials the WebSocket at once: it opens within its own three round trips, not after the lead",
)
.checks(&[&rules::RACE_START])
.broken_by(&[Switch::RefusedWaitsForLead]);
pub const PINS_WITHIN_CEILING: Law = Law::new(
    "pins-within-ceiling",
    "a flood of forged moves never makes a reactor hold more than 512 pins, and reaches that ceiling when more of its connections moved",
)
.checks(&[&rules::PIN_CEILING]);
pub const MOVE_RECOVERS_WITHIN_PTO: Law = Law::new("move-recovers-within-pto", "after the phone moves under loss below 10 %, its QUIC session's next message crosses the new path within three PTOs of the new path (RFC 9002, RTT estimator reset) plus the box's cadence and a round trip, from when the cloud first hears the phone there").checks(&[&rules::MIGRATION_SAME_CONNECTION]).broken_by(&[Switch::MtudOnUnvalidatedPath]);
pub const MOVES_KEEP_THE_SESSION: Law = Law::new("moves-keep-the-session", "a QUIC session open when the phone rebinds or moves networks carries on through the cloud's reactor fleet: the same session (no new Noise handshake, no new hello) until the phone closes it").checks(&[&rules::MIGRATION_SAME_CONNECTION]).broken_by(&[Switch::NoRouting]);
pub const BOX_CHALLENGE_IN_FIRST_FLIGHT: Law = Law::new(
    "box-challenge-in-first-flight",
    "a box reconnect with a ticket sends its target as 0-RTT early data: the cloud's challenge comes back one round trip after its first flight",
)
.checks(&[&rules::BOX_0RTT_PHONE_NEVER])
.broken_by(&[Switch::BoxWaitsForHandshake]);
pub const REJECTED_0RTT_LOSES_NOTHING: Law = Law::new(
    "rejected-0rtt-loses-nothing",
    "when the cloud rejects the box's 0-RTT (it lost its tickets) the target goes again over 1-RTT: every uplink gets its challenge, none is refused",
)
.checks(&[&rules::BOX_0RTT_PHONE_NEVER])
.broken_by(&[Switch::RejectedZeroRttNotResent]);
pub const PHONE_NEVER_0RTT: Law = Law::new("phone-never-0rtt", "the phone never sends 0-RTT early data: a full handshake on every reconnect (SPEC section 3)")
    .checks(&[&rules::BOX_0RTT_PHONE_NEVER])
    .broken_by(&[Switch::PhoneUsesZeroRtt]);
pub const FORGED_MOVES_KEEP_CONNECTIONS: Law =
    Law::new("forged-moves-keep-connections", "under forged moves every client's connection carries on: one handshake each, every echo back")
        .checks(&[&rules::PIN_CEILING]);
pub const DEATH_NEEDS_A_FAULT: Law = Law::new(
    "death-needs-a-fault",
    "a WebSocket dies (a heartbeat 1006 or a reset), or never opens because TCP gave up its handshake, only when the plan has loss or an outage that could kill it: never on a clean link",
)
.checks(&[&rules::WS_DEATH_NEEDS_FAULT]);
/// Whether a QUIC session's end demotes QUIC (SPEC section 4, judged from the
/// log alone): not the app's close, not a close the service spoke (from 1000,
/// other than 1005 and 1006), and before its first message or within a
/// minute of it. Replays and broken messages end a session without a path drop.
pub fn should_demote(r: &SessionRecord) -> bool {
    // SPEC section 4's numbers, not the phone model's constants (the laws judge the model):
    // "within a minute of the first message"; "Closes from 1000 up other than 1005 and
    // 1006 do not count".
    const DEMOTION_WINDOW_MS: u64 = 60_000;
    const SERVICE_CLOSE_CODE_MIN: u16 = 1000;
    const CLOSE_NO_STATUS: u16 = 1005;
    const CLOSE_ABNORMAL: u16 = 1006;
    let (Some(end), Some(ended)) = (&r.end, r.ended_at_ms) else { return false };
    if r.transport != ftw_phone::Transport::Quic || matches!(end, End::Local(_)) {
        return false;
    }
    let path_like = match end {
        End::Code(code) => *code < SERVICE_CLOSE_CODE_MIN || *code == CLOSE_NO_STATUS || *code == CLOSE_ABNORMAL,
        _ => false, // a replay or a broken message: the carrier ended it
    };
    match r.first_message_ms {
        None => path_like || matches!(end, End::Replay | End::Broken),
        Some(first) => path_like && ended - first < DEMOTION_WINDOW_MS,
    }
}

/// After a demotion (a QUIC session whose path dropped within a minute of its
/// first message, or that ended before it) the WebSocket goes first on that
/// network for a day.
pub fn demoted_goes_ws_first(sessions: &[SessionRecord]) -> Ruling {
    // SPEC section 4: a demotion lasts "for a day" (section 6: 24 h).
    let day_ms = 24 * 60 * 60 * 1000;
    let mut bad = Vec::new();
    let mut demotions = 0;
    for d in sessions.iter().filter(|r| should_demote(r)) {
        demotions += 1;
        let ended = d.ended_at_ms.expect("ended");
        for r in sessions.iter().filter(|r| r.network == d.network && r.race_start_ms >= ended && r.race_start_ms < ended + day_ms) {
            if r.first != ftw_phone::Transport::WebSocket {
                bad.push(format!("session #{} ended {:?} at {ended} ms; the race at {} ms went {} first", d.no, d.end, r.race_start_ms, r.first.name()));
            }
        }
    }
    (bad.is_empty(), format!("{demotions} sessions should demote QUIC; {}", bad.first().cloned().unwrap_or_default()))
}
