//! Noise sessions: the end-to-end box session and the outer phone-to-cloud tunnel.
//!
//! Both are `Noise_IK_25519_ChaChaPoly_SHA256` (run by `snow`):
//!
//! * **Box session** (SPEC.md §2): phone = initiator, box static key pinned at pairing,
//!   prologue `"ftw.session.v1:" || boxStaticPub` ([`session_prologue`]).
//! * **Outer tunnel** (SPEC.md §3, chosen here): phone = initiator, cloud static key pinned,
//!   prologue `"ftw.tunnel.v1:" || cloudStaticPub` ([`tunnel_prologue`]). The payload of the
//!   outer message 1 is the envelope `now.tun {box, m1}` carrying the box session's message 1,
//!   so both handshakes start in the same flight ([`PhoneDial`]). The cloud answers the outer
//!   message 2 at once (payload: empty unless the caller gives one); the box's message 2 comes
//!   back later as an outer transport message.
//!
//! **Transport** (both layers): `seq u64 BE (clear) || ChaChaPoly(key, nonce = seq, ad = seq
//! bytes, plaintext)`. snow's `StatelessTransportState` takes explicit nonces but no associated
//! data, and the public vectors authenticate the seq as associated data; so the session takes
//! the raw split keys (`risky-raw-split`) and runs snow's own ChaChaPoly `Cipher` statelessly
//! with an explicit nonce and the seq as AD. Messages may arrive out of order; the receiver's
//! [`ReplayWindow`] is checked before decryption and marked only after authentication.
//!
//! **Randomness**: [`SeededResolver`] gives snow a fresh ChaCha20 stream for every
//! `resolve_rng` call (snow calls it once per build and once per generated key pair), derived
//! from a 32-byte seed and a call counter: stream `n` of `ChaCha20Rng::from_seed(seed)`.
//! Clones share the counter, so one resolver handed to several builders never repeats a
//! stream. Nothing reads the OS.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use snow::params::{CipherChoice, DHChoice, HashChoice, NoiseParams};
use snow::resolvers::{CryptoResolver, DefaultResolver};
use snow::types::{Cipher, Dh, Hash, Random};

use crate::consts::{
    DH_LEN, NOISE_MSG_LEN_MAX, NOISE_PROTOCOL_NAME, SEQ_LEN, SEQ_RESERVED, SESSION_PROLOGUE_PREFIX, TAG_LEN, TUNNEL_PROLOGUE_PREFIX, UPLINK_AUTH_PREFIX,
};
use crate::envelope::{Msg, NowTun};
use crate::frame::{DecodeError, Frame};
use crate::replay::{Replay, ReplayWindow, WindowLen};
use crate::BugSwitches;

/// A 32-byte X25519 key.
pub type Key = [u8; DH_LEN];

// ---------------------------------------------------------------------------------------------
// Seeded resolver

/// A snow resolver whose randomness comes from a seed: call `n` of `resolve_rng` gets stream `n`
/// of ChaCha20 keyed by the seed. DH, hash and cipher come from snow's default resolver.
#[derive(Debug, Clone)]
pub struct SeededResolver {
    seed: [u8; 32],
    calls: Arc<AtomicU64>,
}

impl SeededResolver {
    /// A resolver for this seed, its counter at 0.
    pub fn new(seed: [u8; 32]) -> SeededResolver {
        SeededResolver { seed, calls: Arc::new(AtomicU64::new(0)) }
    }

    /// A resolver seeded from a caller's RNG (e.g. the simulation's `ChaCha20Rng`).
    pub fn from_rng(rng: &mut impl RngCore) -> SeededResolver {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        SeededResolver::new(seed)
    }

    /// How many streams have been handed out.
    pub fn streams_used(&self) -> u64 {
        self.calls.load(Ordering::Relaxed)
    }

    fn next_stream(&self) -> ChaCha20Rng {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let mut rng = ChaCha20Rng::from_seed(self.seed);
        rng.set_stream(n);
        rng
    }

    /// A fresh X25519 key pair from the next stream.
    pub fn generate_keypair(&self) -> Keypair {
        let mut private = [0u8; DH_LEN];
        self.next_stream().fill_bytes(&mut private);
        Keypair::from_private(private)
    }
}

struct SeededRandom(ChaCha20Rng);

impl Random for SeededRandom {
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), snow::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoResolver for SeededResolver {
    fn resolve_rng(&self) -> Option<Box<dyn Random>> {
        Some(Box::new(SeededRandom(self.next_stream())))
    }
    fn resolve_dh(&self, choice: &DHChoice) -> Option<Box<dyn Dh>> {
        DefaultResolver.resolve_dh(choice)
    }
    fn resolve_hash(&self, choice: &HashChoice) -> Option<Box<dyn Hash>> {
        DefaultResolver.resolve_hash(choice)
    }
    fn resolve_cipher(&self, choice: &CipherChoice) -> Option<Box<dyn Cipher>> {
        DefaultResolver.resolve_cipher(choice)
    }
}

// ---------------------------------------------------------------------------------------------
// Keys and prologues

/// An X25519 key pair.
#[derive(Clone, PartialEq, Eq)]
pub struct Keypair {
    pub private: Key,
    pub public: Key,
}

impl std::fmt::Debug for Keypair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keypair {{ public: {} }}", hex::encode(self.public))
    }
}

impl Keypair {
    /// The pair of a private key.
    pub fn from_private(private: Key) -> Keypair {
        let mut dh = DefaultResolver.resolve_dh(&DHChoice::Curve25519).expect("curve25519 is built in");
        dh.set(&private);
        let public: Key = dh.pubkey().try_into().expect("32-byte public key");
        Keypair { private, public }
    }
}

/// `"ftw.session.v1:" || boxStaticPub` (SPEC.md §2).
pub fn session_prologue(box_static_pub: &Key) -> Vec<u8> {
    [SESSION_PROLOGUE_PREFIX, box_static_pub.as_slice()].concat()
}

/// `"ftw.tunnel.v1:" || cloudStaticPub` (chosen here, SPEC.md §3).
pub fn tunnel_prologue(cloud_static_pub: &Key) -> Vec<u8> {
    [TUNNEL_PROLOGUE_PREFIX, cloud_static_pub.as_slice()].concat()
}

/// The box's answer to the cloud's uplink challenge (chosen here; the seed's
/// "challenge" on the box's uplink): SHA-256 of [`UPLINK_AUTH_PREFIX`], the X25519
/// shared secret of the box's and the cloud's static keys, the challenge's nonce and
/// the box id. Either side computes it, from its own private key and the other's
/// public key; only the holder of the box's (or the cloud's) private key can.
pub fn uplink_proof(own_private: &Key, peer_public: &Key, nonce: &[u8], box_id: &str) -> [u8; 32] {
    let mut dh = DefaultResolver.resolve_dh(&DHChoice::Curve25519).expect("curve25519 is built in");
    dh.set(own_private);
    let mut shared = [0u8; DH_LEN];
    dh.dh(peer_public, &mut shared).expect("32-byte keys");
    let mut h = DefaultResolver.resolve_hash(&HashChoice::SHA256).expect("sha-256 is built in");
    h.input(UPLINK_AUTH_PREFIX);
    h.input(&shared);
    h.input(nonce);
    h.input(box_id.as_bytes());
    let mut out = [0u8; 32];
    h.result(&mut out);
    out
}

fn params() -> NoiseParams {
    NOISE_PROTOCOL_NAME.parse().expect("protocol name parses")
}

// ---------------------------------------------------------------------------------------------
// Handshake

/// Why a handshake step failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoiseError {
    /// snow refused to build the state (bad key length, missing key).
    Build(String),
    /// A handshake message did not authenticate or is malformed (wrong pinned key, tampering).
    Handshake(String),
    /// The payload does not fit a Noise message.
    PayloadTooLarge { payload_len: usize },
    /// The outer message 1 does not carry a `now.tun`.
    NoTunnelPayload(String),
}

impl std::fmt::Display for NoiseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::error::Error for NoiseError {}

/// Everything one side needs to start a handshake.
#[derive(Debug, Clone)]
pub struct HandshakeParams {
    /// This side's static key.
    pub local: Keypair,
    /// The pinned responder static key (initiator only).
    pub remote_static: Option<Key>,
    /// Mixed into the handshake hash before anything else.
    pub prologue: Vec<u8>,
    /// Test vectors only: a fixed ephemeral private key.
    pub fixed_ephemeral: Option<Key>,
    /// Source of the ephemeral key.
    pub resolver: SeededResolver,
    /// Wire bug switches (the replay window of the resulting session).
    pub switches: BugSwitches,
}

impl HandshakeParams {
    /// Phone side of the box session: box static key pinned, session prologue.
    pub fn box_session_initiator(phone: Keypair, box_static_pub: Key, resolver: SeededResolver) -> Self {
        HandshakeParams {
            local: phone,
            remote_static: Some(box_static_pub),
            prologue: session_prologue(&box_static_pub),
            fixed_ephemeral: None,
            resolver,
            switches: BugSwitches::default(),
        }
    }

    /// Box side of the box session.
    pub fn box_session_responder(box_key: Keypair, resolver: SeededResolver) -> Self {
        let prologue = session_prologue(&box_key.public);
        HandshakeParams { local: box_key, remote_static: None, prologue, fixed_ephemeral: None, resolver, switches: BugSwitches::default() }
    }

    /// Phone side of the outer tunnel: cloud static key pinned, tunnel prologue.
    pub fn tunnel_initiator(phone: Keypair, cloud_static_pub: Key, resolver: SeededResolver) -> Self {
        HandshakeParams {
            local: phone,
            remote_static: Some(cloud_static_pub),
            prologue: tunnel_prologue(&cloud_static_pub),
            fixed_ephemeral: None,
            resolver,
            switches: BugSwitches::default(),
        }
    }

    /// Cloud side of the outer tunnel.
    pub fn tunnel_responder(cloud: Keypair, resolver: SeededResolver) -> Self {
        let prologue = tunnel_prologue(&cloud.public);
        HandshakeParams { local: cloud, remote_static: None, prologue, fixed_ephemeral: None, resolver, switches: BugSwitches::default() }
    }

    /// With these bug switches.
    pub fn with_switches(mut self, switches: BugSwitches) -> Self {
        self.switches = switches;
        self
    }

    fn build(&self, initiator: bool) -> Result<snow::HandshakeState, NoiseError> {
        let build_err = |e: snow::Error| NoiseError::Build(e.to_string());
        let mut b = snow::Builder::with_resolver(params(), Box::new(self.resolver.clone()))
            .local_private_key(&self.local.private)
            .map_err(build_err)?
            .prologue(&self.prologue)
            .map_err(build_err)?;
        if let Some(rs) = &self.remote_static {
            b = b.remote_public_key(rs).map_err(build_err)?;
        }
        if let Some(e) = &self.fixed_ephemeral {
            b = b.fixed_ephemeral_key_for_testing_only(e);
        }
        if initiator { b.build_initiator() } else { b.build_responder() }.map_err(build_err)
    }
}

fn write_step(hs: &mut snow::HandshakeState, payload: &[u8]) -> Result<Vec<u8>, NoiseError> {
    if payload.len() + 2 * DH_LEN + 2 * TAG_LEN > NOISE_MSG_LEN_MAX {
        return Err(NoiseError::PayloadTooLarge { payload_len: payload.len() });
    }
    let mut buf = vec![0u8; NOISE_MSG_LEN_MAX];
    let n = hs.write_message(payload, &mut buf).map_err(|e| NoiseError::Handshake(e.to_string()))?;
    buf.truncate(n);
    work::note(|w| w.handshake_msgs += 1);
    Ok(buf)
}

/// What the Noise layer did on this thread: the real work a run cannot avoid,
/// which `ftwsim bench` prices as the run's floor. Counted only; no model reads it.
pub mod work {
    use std::cell::Cell;

    /// Handshake messages written, and transport messages sealed with their plaintext bytes.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub struct Work {
        pub handshake_msgs: u64,
        pub sealed: u64,
        pub sealed_bytes: u64,
    }

    thread_local! {
        static WORK: Cell<Work> = const { Cell::new(Work { handshake_msgs: 0, sealed: 0, sealed_bytes: 0 }) };
    }

    pub(crate) fn note(f: impl FnOnce(&mut Work)) {
        WORK.with(|c| {
            let mut w = c.get();
            f(&mut w);
            c.set(w);
        });
    }

    /// The work so far on this thread, counting from zero again.
    pub fn take() -> Work {
        WORK.with(|c| c.take())
    }
}

fn read_step(hs: &mut snow::HandshakeState, msg: &[u8]) -> Result<Vec<u8>, NoiseError> {
    if msg.len() > NOISE_MSG_LEN_MAX {
        return Err(NoiseError::Handshake(format!("message of {} bytes", msg.len())));
    }
    let mut buf = vec![0u8; msg.len()];
    let n = hs.read_message(msg, &mut buf).map_err(|e| NoiseError::Handshake(e.to_string()))?;
    buf.truncate(n);
    Ok(buf)
}

/// Initiator before message 1.
pub struct Initiator {
    hs: snow::HandshakeState,
    switches: BugSwitches,
}

/// Initiator after message 1, waiting for message 2.
pub struct InitiatorAwaitingMsg2 {
    hs: snow::HandshakeState,
    switches: BugSwitches,
}

/// Responder before message 1.
pub struct Responder {
    hs: snow::HandshakeState,
    switches: BugSwitches,
}

/// Responder after message 1: knows the initiator's static key, must write message 2.
pub struct ResponderGotMsg1 {
    hs: snow::HandshakeState,
    switches: BugSwitches,
}

impl std::fmt::Debug for InitiatorAwaitingMsg2 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("InitiatorAwaitingMsg2")
    }
}
impl std::fmt::Debug for ResponderGotMsg1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResponderGotMsg1")
    }
}

impl Initiator {
    /// Start (`-> e, es, s, ss` next). Needs `remote_static`.
    pub fn new(p: &HandshakeParams) -> Result<Initiator, NoiseError> {
        Ok(Initiator { hs: p.build(true)?, switches: p.switches })
    }

    /// Write message 1 carrying `payload`.
    pub fn write_msg1(mut self, payload: &[u8]) -> Result<(InitiatorAwaitingMsg2, Vec<u8>), NoiseError> {
        let m1 = write_step(&mut self.hs, payload)?;
        Ok((InitiatorAwaitingMsg2 { hs: self.hs, switches: self.switches }, m1))
    }
}

impl InitiatorAwaitingMsg2 {
    /// Read message 2 (`<- e, ee, se`): its payload and the session.
    pub fn read_msg2(mut self, msg2: &[u8]) -> Result<(Vec<u8>, Session), NoiseError> {
        let payload = read_step(&mut self.hs, msg2)?;
        Ok((payload, Session::from_handshake(self.hs, self.switches)))
    }
}

impl Responder {
    /// Start (message 1 next).
    pub fn new(p: &HandshakeParams) -> Result<Responder, NoiseError> {
        Ok(Responder { hs: p.build(false)?, switches: p.switches })
    }

    /// Read message 1: its payload. Fails if the initiator pinned another static key.
    pub fn read_msg1(mut self, msg1: &[u8]) -> Result<(ResponderGotMsg1, Vec<u8>), NoiseError> {
        let payload = read_step(&mut self.hs, msg1)?;
        Ok((ResponderGotMsg1 { hs: self.hs, switches: self.switches }, payload))
    }
}

impl ResponderGotMsg1 {
    /// The initiator's static key, as message 1 authenticated it.
    pub fn remote_static(&self) -> Key {
        self.hs.get_remote_static().expect("IK message 1 carries s").try_into().expect("32 bytes")
    }

    /// Write message 2 carrying `payload`: the message and the session.
    pub fn write_msg2(mut self, payload: &[u8]) -> Result<(Vec<u8>, Session), NoiseError> {
        let m2 = write_step(&mut self.hs, payload)?;
        Ok((m2, Session::from_handshake(self.hs, self.switches)))
    }
}

// ---------------------------------------------------------------------------------------------
// Transport

/// Why a received transport message was not accepted. The carrier decides what follows
/// (SPEC.md §4: a replay on a datagram is dropped, on a stream it ends the session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// Sequence number already accepted.
    Replay { seq: u64 },
    /// Sequence number older than the replay window.
    TooOld { seq: u64, highest: u64 },
    /// Shorter than seq + tag, reserved seq, or the AEAD did not authenticate. Nothing moved.
    Broken,
    /// Authenticated, but the plaintext is not a frame (the window did move).
    BadFrame(DecodeError),
}

/// Why a message could not be sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SealError {
    /// The sequence space is used up (2^64-1 is reserved).
    Exhausted,
    /// Plaintext too large for one Noise message.
    TooLarge { len: usize },
}

/// What the receive window said of one message's sequence number, kept for lockstep checks
/// (see [`Session::keep_judged`]). A record only: keeping it changes nothing the session does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judged {
    pub seq: u64,
    /// The window's check, before decryption.
    pub window: Result<(), Replay>,
    /// Whether the window was marked with `seq` (it passed the check and authenticated).
    pub marked: bool,
}

/// An established session: send key and counter, receive key and replay window.
#[derive(Clone)]
pub struct Session {
    send_key: [u8; 32],
    recv_key: [u8; 32],
    next_seq: u64,
    window: ReplayWindow,
    /// Planted bug: mark the window before the message authenticated.
    marks_unauthenticated: bool,
    /// Every seq the window judged, while [`Session::keep_judged`] is on (`None`: off).
    judged: Option<Vec<Judged>>,
    handshake_hash: [u8; 32],
    remote_static: Key,
    initiator: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("initiator", &self.initiator)
            .field("next_seq", &self.next_seq)
            .field("handshake_hash", &hex::encode(self.handshake_hash))
            .field("window", &self.window)
            .finish()
    }
}

fn cipher(key: &[u8; 32]) -> Box<dyn Cipher> {
    let mut c = DefaultResolver.resolve_cipher(&CipherChoice::ChaChaPoly).expect("chachapoly is built in");
    c.set(key);
    c
}

impl Session {
    fn from_handshake(mut hs: snow::HandshakeState, switches: BugSwitches) -> Session {
        assert!(hs.is_handshake_finished(), "session from an unfinished handshake");
        let initiator = hs.is_initiator();
        let handshake_hash: [u8; 32] = hs.get_handshake_hash().try_into().expect("SHA-256 hash");
        let remote_static: Key = hs.get_remote_static().expect("IK knows both statics").try_into().expect("32 bytes");
        let (i_to_r, r_to_i) = hs.dangerously_get_raw_split();
        let (send_key, recv_key) = if initiator { (i_to_r, r_to_i) } else { (r_to_i, i_to_r) };
        Session {
            send_key,
            recv_key,
            next_seq: 0,
            window: ReplayWindow::new(WindowLen::from_switches(&switches)),
            marks_unauthenticated: switches.forged_marks_window,
            judged: None,
            handshake_hash,
            remote_static,
            initiator,
        }
    }

    /// From now on keep a [`Judged`] record of every seq the receive window judges, for
    /// [`take_judged`](Self::take_judged). Off by default; changes no decision.
    pub fn keep_judged(&mut self) {
        self.judged.get_or_insert_with(Vec::new);
    }

    /// The records kept since the last call, oldest first (empty when not kept).
    pub fn take_judged(&mut self) -> Vec<Judged> {
        self.judged.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn note(&mut self, j: Judged) {
        if let Some(v) = self.judged.as_mut() {
            v.push(j);
        }
    }

    /// The handshake hash (session id).
    pub fn handshake_hash(&self) -> [u8; 32] {
        self.handshake_hash
    }

    /// The peer's static key as the handshake authenticated it.
    pub fn remote_static(&self) -> Key {
        self.remote_static
    }

    /// Whether this side initiated.
    pub fn is_initiator(&self) -> bool {
        self.initiator
    }

    /// The key this side seals with, for the simulator's judges of the wire (the world holds
    /// every key: a reference opens what was sent with it). Reading it changes nothing.
    pub fn send_key(&self) -> [u8; 32] {
        self.send_key
    }

    /// The seq the next sealed message will carry.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The receive window (read-only).
    pub fn window(&self) -> &ReplayWindow {
        &self.window
    }

    /// `seq || AEAD(plaintext)` with the next seq.
    pub fn seal(&mut self, plaintext: &[u8]) -> Result<Vec<u8>, SealError> {
        let seq = self.next_seq;
        if seq == SEQ_RESERVED {
            return Err(SealError::Exhausted);
        }
        if plaintext.len() + TAG_LEN > NOISE_MSG_LEN_MAX {
            return Err(SealError::TooLarge { len: plaintext.len() });
        }
        let ad = seq.to_be_bytes();
        let mut out = vec![0u8; SEQ_LEN + plaintext.len() + TAG_LEN];
        out[..SEQ_LEN].copy_from_slice(&ad);
        let n = cipher(&self.send_key).encrypt(seq, &ad, plaintext, &mut out[SEQ_LEN..]);
        assert_eq!(n, plaintext.len() + TAG_LEN);
        self.next_seq += 1;
        work::note(|w| (w.sealed, w.sealed_bytes) = (w.sealed + 1, w.sealed_bytes + plaintext.len() as u64));
        Ok(out)
    }

    /// Open one message: check the window, authenticate, then mark the window.
    pub fn open_raw(&mut self, msg: &[u8]) -> Result<Vec<u8>, OpenError> {
        if msg.len() < SEQ_LEN + TAG_LEN || msg.len() > SEQ_LEN + NOISE_MSG_LEN_MAX {
            return Err(OpenError::Broken);
        }
        let ad: [u8; SEQ_LEN] = msg[..SEQ_LEN].try_into().expect("8 bytes");
        let seq = u64::from_be_bytes(ad);
        if seq == SEQ_RESERVED {
            return Err(OpenError::Broken);
        }
        let window = self.window.check(seq);
        match window {
            Ok(()) => {}
            Err(Replay::Duplicate { seq }) => {
                self.note(Judged { seq, window, marked: false });
                return Err(OpenError::Replay { seq });
            }
            Err(Replay::TooOld { seq, highest }) => {
                self.note(Judged { seq, window, marked: false });
                return Err(OpenError::TooOld { seq, highest });
            }
        }
        let body = &msg[SEQ_LEN..];
        let mut out = vec![0u8; body.len() - TAG_LEN];
        let decrypted = cipher(&self.recv_key).decrypt(seq, &ad, body, &mut out);
        if decrypted.is_err() && self.marks_unauthenticated {
            self.note(Judged { seq, window, marked: true });
            self.window.mark(seq);
            return Err(OpenError::Broken);
        }
        self.note(Judged { seq, window, marked: decrypted.is_ok() });
        let n = decrypted.map_err(|_| OpenError::Broken)?;
        assert_eq!(n, out.len());
        // Only an authenticated message moves the window.
        self.window.mark(seq);
        Ok(out)
    }

    /// Open one message and decode its frame.
    pub fn open(&mut self, msg: &[u8]) -> Result<Frame, OpenError> {
        let plain = self.open_raw(msg)?;
        Frame::decode(&plain).map_err(OpenError::BadFrame)
    }
}

// ---------------------------------------------------------------------------------------------
// Overlapped outer + inner handshake

/// The phone's cold dial: the outer tunnel handshake and the box session handshake in flight
/// together.
#[derive(Debug)]
pub struct PhoneDial {
    /// Outer (phone to cloud), waiting for the cloud's message 2.
    pub outer: InitiatorAwaitingMsg2,
    /// Inner (phone to box), waiting for the box's message 2 (which arrives through the tunnel).
    pub inner: InitiatorAwaitingMsg2,
}

impl PhoneDial {
    /// Write the box session's message 1 (with `inner_payload`), wrap it as `now.tun` and write
    /// the outer message 1 with it. Returns the dial and the outer message 1.
    pub fn start(outer: &HandshakeParams, inner: &HandshakeParams, box_id: &str, inner_payload: &[u8]) -> Result<(PhoneDial, Vec<u8>), NoiseError> {
        let (inner, m1_inner) = Initiator::new(inner)?.write_msg1(inner_payload)?;
        let tun = Msg::NowTun(NowTun { box_id: box_id.to_string(), m1: m1_inner }).encode(None);
        let (outer, m1_outer) = Initiator::new(outer)?.write_msg1(&tun)?;
        Ok((PhoneDial { outer, inner }, m1_outer))
    }
}

/// The cloud's side of message 1: read the outer message 1 and take out the `now.tun`.
pub fn cloud_read_msg1(responder: Responder, outer_msg1: &[u8]) -> Result<(ResponderGotMsg1, NowTun), NoiseError> {
    let (got, payload) = responder.read_msg1(outer_msg1)?;
    match Msg::decode(&payload) {
        Ok((_, Msg::NowTun(tun))) => Ok((got, tun)),
        Ok((_, other)) => Err(NoiseError::NoTunnelPayload(format!("type {}", other.type_name()))),
        Err(e) => Err(NoiseError::NoTunnelPayload(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> (Session, Session) {
        let r = SeededResolver::new([6; 32]);
        let phone = r.generate_keypair();
        let boxk = r.generate_keypair();
        let (i, m1) = Initiator::new(&HandshakeParams::box_session_initiator(phone, boxk.public, r.clone())).unwrap().write_msg1(b"").unwrap();
        let (g, _) = Responder::new(&HandshakeParams::box_session_responder(boxk, r)).unwrap().read_msg1(&m1).unwrap();
        let (m2, b) = g.write_msg2(b"").unwrap();
        (i.read_msg2(&m2).unwrap().1, b)
    }

    #[test]
    fn uplink_proof_agrees_across_the_pair_and_only_for_the_pair() {
        let r = SeededResolver::new([7; 32]);
        let (boxk, cloud, other) = (r.generate_keypair(), r.generate_keypair(), r.generate_keypair());
        let nonce = [9u8; crate::consts::UPLINK_NONCE_LEN];
        let by_box = uplink_proof(&boxk.private, &cloud.public, &nonce, "box-1");
        assert_eq!(by_box, uplink_proof(&cloud.private, &boxk.public, &nonce, "box-1"));
        assert_ne!(by_box, uplink_proof(&other.private, &cloud.public, &nonce, "box-1"), "another key");
        assert_ne!(by_box, uplink_proof(&boxk.private, &cloud.public, &[8; 16], "box-1"), "another nonce");
        assert_ne!(by_box, uplink_proof(&boxk.private, &cloud.public, &nonce, "box-2"), "another box");
    }

    #[test]
    fn reserved_seq_never_seals_nor_opens() {
        let (mut a, mut b) = pair();
        a.next_seq = SEQ_RESERVED - 1;
        let last = a.seal(b"x").unwrap();
        assert_eq!(b.open_raw(&last).unwrap(), b"x");
        assert_eq!(a.seal(b"y"), Err(SealError::Exhausted));
        let mut forged = last.clone();
        forged[..8].copy_from_slice(&SEQ_RESERVED.to_be_bytes());
        assert_eq!(b.open_raw(&forged), Err(OpenError::Broken));
    }

    #[test]
    fn directions_use_different_keys() {
        let (mut a, mut b) = pair();
        let m = a.seal(b"same").unwrap();
        let n = b.seal(b"same").unwrap();
        assert_ne!(m, n);
        // A message reflected back to its sender does not open.
        assert_eq!(a.open_raw(&m), Err(OpenError::Broken));
        assert_eq!(b.open_raw(&m).unwrap(), b"same");
    }

    #[test]
    fn authenticated_non_frame_is_bad_frame_and_counts() {
        let (mut a, mut b) = pair();
        let m = a.seal(&[9, 0, 0, 0, 0, 0]).unwrap();
        assert_eq!(b.open(&m), Err(OpenError::BadFrame(DecodeError::BadVersion(9))));
        assert_eq!(b.window().highest(), Some(0));
    }

    /// The largest handshake payload, IK message 1's: a Noise message (65535) less two keys
    /// and two tags.
    const HANDSHAKE_PAYLOAD_LEN_MAX: usize = NOISE_MSG_LEN_MAX - 2 * DH_LEN - 2 * TAG_LEN;

    /// The handshake start of `pair`: the initiator before message 1 and the box's responder.
    fn handshake() -> (Initiator, Responder, Keypair) {
        let r = SeededResolver::new([6; 32]);
        let phone = r.generate_keypair();
        let boxk = r.generate_keypair();
        let i = Initiator::new(&HandshakeParams::box_session_initiator(phone.clone(), boxk.public, r.clone())).unwrap();
        let resp = Responder::new(&HandshakeParams::box_session_responder(boxk, r)).unwrap();
        (i, resp, phone)
    }

    /// A key pair's Debug shows its public key and never its private key.
    #[test]
    fn keypair_debug_hides_the_private_key() {
        let k = SeededResolver::new([1; 32]).generate_keypair();
        let shown = format!("{k:?}");
        assert!(shown.contains(&hex::encode(k.public)), "{shown}");
        assert!(!shown.contains(&hex::encode(k.private)), "{shown}");
    }

    /// The half-done handshake states print their name, and nothing of the handshake's secrets.
    #[test]
    fn handshake_state_debug_names_the_state() {
        let (i, resp, phone) = handshake();
        let (waiting, m1) = i.write_msg1(b"").unwrap();
        let (got, _) = resp.read_msg1(&m1).unwrap();
        assert_eq!(format!("{waiting:?}"), "InitiatorAwaitingMsg2");
        assert_eq!(format!("{got:?}"), "ResponderGotMsg1");
        assert!(!format!("{got:?}").contains(&hex::encode(phone.private)));
    }

    /// A session's Debug shows its role, seq and handshake hash, never its transport keys.
    #[test]
    fn session_debug_hides_the_keys() {
        let (a, _) = pair();
        let shown = format!("{a:?}");
        assert!(shown.contains("Session") && shown.contains("initiator: true"), "{shown}");
        assert!(shown.contains(&hex::encode(a.handshake_hash())), "{shown}");
        assert!(!shown.contains(&hex::encode(a.send_key)) && !shown.contains(&hex::encode(a.recv_key)), "{shown}");
    }

    /// A Noise error prints a message naming the error and its value.
    #[test]
    fn noise_error_display_names_it() {
        let shown = NoiseError::PayloadTooLarge { payload_len: 70_000 }.to_string();
        assert!(shown.contains("PayloadTooLarge") && shown.contains("70000"), "{shown}");
        assert!(NoiseError::Handshake("decrypt".into()).to_string().contains("decrypt"));
    }

    /// A handshake message is at most 65535 bytes: message 1 carries a payload up to 65535 less
    /// two keys and two tags, and one byte more is PayloadTooLarge (refused before writing).
    #[test]
    fn handshake_payload_limit_is_exact() {
        let (i, resp, _) = handshake();
        let payload = vec![3u8; HANDSHAKE_PAYLOAD_LEN_MAX];
        let (_, m1) = i.write_msg1(&payload).unwrap();
        assert_eq!(m1.len(), NOISE_MSG_LEN_MAX);
        // The message of exactly 65535 bytes is read, not refused for its length.
        let (_, got) = resp.read_msg1(&m1).unwrap();
        assert_eq!(got, payload);

        let (i, _, _) = handshake();
        let too_large = vec![3u8; HANDSHAKE_PAYLOAD_LEN_MAX + 1];
        assert_eq!(i.write_msg1(&too_large).unwrap_err(), NoiseError::PayloadTooLarge { payload_len: HANDSHAKE_PAYLOAD_LEN_MAX + 1 });
    }

    /// A handshake message of more than 65535 bytes is refused for its length.
    #[test]
    fn handshake_message_over_the_noise_limit_is_refused() {
        let (i, resp, _) = handshake();
        let (_, mut m1) = i.write_msg1(&vec![3u8; HANDSHAKE_PAYLOAD_LEN_MAX]).unwrap();
        m1.push(0);
        match resp.read_msg1(&m1) {
            Err(NoiseError::Handshake(why)) => assert_eq!(why, "message of 65536 bytes"),
            other => panic!("{other:?}"),
        }
    }

    /// With keep_judged on, every seq the window judges is recorded once, in order, with its
    /// verdict; take_judged drains them; with it off nothing is kept.
    #[test]
    fn judged_records_every_verdict_only_when_kept() {
        let (mut a, mut b) = pair();
        let m0 = a.seal(b"0").unwrap();
        let m1 = a.seal(b"1").unwrap();
        b.open_raw(&m0).unwrap();
        assert_eq!(b.take_judged(), vec![], "off by default");

        b.keep_judged();
        b.open_raw(&m1).unwrap();
        assert_eq!(b.open_raw(&m1), Err(OpenError::Replay { seq: 1 }));
        let mut forged = a.seal(b"2").unwrap();
        *forged.last_mut().unwrap() ^= 1;
        assert_eq!(b.open_raw(&forged), Err(OpenError::Broken));
        assert_eq!(
            b.take_judged(),
            vec![
                Judged { seq: 1, window: Ok(()), marked: true },
                Judged { seq: 1, window: Err(Replay::Duplicate { seq: 1 }), marked: false },
                Judged { seq: 2, window: Ok(()), marked: false },
            ]
        );
        assert_eq!(b.take_judged(), vec![], "taken");
    }

    /// The session knows its role: the phone (initiator) says true, the box false.
    #[test]
    fn is_initiator_follows_the_role() {
        let (a, b) = pair();
        assert!(a.is_initiator());
        assert!(!b.is_initiator());
    }

    /// A transport ciphertext is at most one Noise message: 65535 - 16 bytes of plaintext seal,
    /// one more is TooLarge.
    #[test]
    fn seal_limit_is_exact() {
        let (mut a, mut b) = pair();
        let most = vec![4u8; NOISE_MSG_LEN_MAX - TAG_LEN];
        let m = a.seal(&most).unwrap();
        assert_eq!(m.len(), SEQ_LEN + NOISE_MSG_LEN_MAX);
        // ... and opens on the peer (a message of exactly seq + 65535 bytes).
        assert_eq!(b.open_raw(&m).unwrap(), most);
        assert_eq!(a.seal(&[4u8; NOISE_MSG_LEN_MAX - TAG_LEN + 1]), Err(SealError::TooLarge { len: NOISE_MSG_LEN_MAX - TAG_LEN + 1 }));
    }

    /// Sealed frame bytes open on the peer to the same frame.
    #[test]
    fn sealed_frame_bytes_open_to_the_frame() {
        let (mut a, mut b) = pair();
        let f = Frame::control(vec![0xa1, 0x61, 0x74, 0x62, 0x68, 0x62]);
        let wire = f.encode(crate::ControlBucket::Small256).unwrap();
        let m = a.seal(&wire).unwrap();
        assert_eq!(m.len(), SEQ_LEN + wire.len() + TAG_LEN);
        assert_eq!(b.open(&m), Ok(f));
        let m = a.seal(&wire).unwrap();
        assert_eq!(b.open_raw(&m).unwrap(), wire);
    }

    /// open_raw refuses by length only what no peer can send: less than seq + tag, or more than
    /// seq + one Noise message (even if it authenticates).
    #[test]
    fn open_length_limits_are_exact() {
        let (mut a, mut b) = pair();
        // Exactly seq + tag: an empty plaintext.
        let empty = a.seal(b"").unwrap();
        assert_eq!(empty.len(), SEQ_LEN + TAG_LEN);
        assert_eq!(b.open_raw(&empty).unwrap(), b"");
        // One byte short of that.
        assert_eq!(b.open_raw(&empty[..SEQ_LEN + TAG_LEN - 1]), Err(OpenError::Broken));
        // Exactly seq + 65535: the largest plaintext the peer may seal.
        let most = vec![4u8; NOISE_MSG_LEN_MAX - TAG_LEN];
        let full = a.seal(&most).unwrap();
        assert_eq!(full.len(), SEQ_LEN + NOISE_MSG_LEN_MAX);
        assert_eq!(b.open_raw(&full).unwrap(), most);

        // One byte over seq + 65535, sealed with the real key as a peer ignoring the limit would.
        let seq: u64 = 7;
        let ad = seq.to_be_bytes();
        let plaintext = vec![5u8; NOISE_MSG_LEN_MAX - TAG_LEN + 1];
        let mut over = vec![0u8; SEQ_LEN + plaintext.len() + TAG_LEN];
        over[..SEQ_LEN].copy_from_slice(&ad);
        cipher(&a.send_key).encrypt(seq, &ad, &plaintext, &mut over[SEQ_LEN..]);
        assert_eq!(over.len(), SEQ_LEN + NOISE_MSG_LEN_MAX + 1);
        assert_eq!(b.open_raw(&over), Err(OpenError::Broken));
        assert_eq!(b.window().highest(), Some(1), "the window did not move");
    }
}
