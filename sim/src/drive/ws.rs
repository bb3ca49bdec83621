//! The WebSocket door and client over the simulated TCP: TCP handshake, TLS 1.3
//! (tokio-rustls with the crypto kit's deterministic configs), the HTTP/1.1
//! upgrade (tokio-tungstenite) to the URL's path and query (the target), then
//! one binary WebSocket message per upper-layer message. The upper layer sees a
//! [`Link::Ws`], the same interface as over QUIC.
//!
//! Heartbeat: the service (the side that accepted) pings every
//! [`PING_INTERVAL`]; at each beat, if the [`BEATS_MISSED_MAX`] previous pings
//! brought no frame back, it closes the link locally with 1006 (no close frame:
//! the peer is presumed gone) instead of pinging again, i.e. 45 s after the last
//! frame. The client answers pings (tungstenite does) and gives up the same way:
//! no frame from the service for `(BEATS_MISSED_MAX + 1) * PING_INTERVAL` is
//! 1006 locally.
//!
//! Close codes as a browser or URLSession sees them: the peer's close frame's
//! code and reason (1000, 4403, 4408, ...); 1005 for a close frame with no code
//! (`close(1005, ..)` sends one); 1006 when the TCP connection ends, resets or
//! goes silent without a close frame. The side that closes first reports the
//! code of the peer's reply (tungstenite echoes it) with `by_peer: false`, or
//! its own code if no reply comes within [`CLOSE_REPLY_WAIT`].
//!
//! Exact replay: tungstenite draws the client's `Sec-WebSocket-Key` and every
//! frame's masking key from the thread RNG. The key is given here in the
//! request (from the client's seeded stream), and [`SeededMask`] re-masks each
//! outgoing client frame with a key from the same stream, so the bytes on the
//! wire are a function of the seed and have exactly a browser's layout.

use std::cell::RefCell;
use std::io;
use std::net::SocketAddrV4;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use ftw_crypto::{crypto_provider, tls_client_config, tls_server_config, ClientResumption, SeededTicketer};
use ftw_tcp::{ConnId, SharedStack, TcpStream};
use futures_util::{SinkExt, StreamExt};
use rand::RngCore;
use rand_chacha::ChaCha20Rng;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{mpsc, Notify};
use tokio_rustls::{TlsAcceptor, TlsConnector};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::drive::event::{close, CloseInfo, DialError, LinkEvent};
use crate::drive::tcp::TcpHost;
use crate::world::seed::RunSeed;
use crate::world::time;
use crate::world::trace;

/// The service pings this often (SPEC section 6: keepalive 15 s).
pub const PING_INTERVAL: Duration = Duration::from_secs(15);
/// Pings left unanswered before the service gives the peer up (chosen here).
pub const BEATS_MISSED_MAX: u32 = 2;
/// How long the side that closes first waits for the peer's close reply
/// (chosen here; RFC 6455 section 7.1.1 leaves it to the endpoint).
pub const CLOSE_REPLY_WAIT: Duration = Duration::from_secs(5);
/// ALPN of the door (HTTP/1.1 upgrade).
pub const WS_ALPN: &[u8] = ftw_crypto::consts::TCP_ALPN_HTTP1;

/// The door's TLS config for `host`: the cloud's certificates, tickets from a
/// seeded ticketer (so a client holding a ticket resumes).
pub fn door_tls(seed: RunSeed, host: &'static str) -> Arc<rustls::ServerConfig> {
    let rng = seed.crypto(host);
    let provider = crypto_provider(&rng.sub("ws/tls"));
    tls_server_config(
        &provider,
        &crate::world::host::sim_clock(host),
        &crate::world::host::cloud_certs(),
        &[WS_ALPN],
        SeededTicketer::new(&rng.sub("ws/ticket")),
    )
}

/// A client's TLS config for `host`. Keep one [`ClientResumption::Store`] across
/// reconnects to resume with a ticket (the phone does over TLS/TCP).
pub fn client_tls(seed: RunSeed, host: &'static str, resumption: ClientResumption) -> Arc<rustls::ClientConfig> {
    let rng = seed.crypto(host);
    let provider = crypto_provider(&rng.sub("ws/tls"));
    tls_client_config(&provider, &crate::world::host::sim_clock(host), &crate::world::host::cloud_certs(), &[WS_ALPN], resumption)
}

/// A WebSocket client: the host's TCP, its TLS config (with the session store
/// kept across reconnects) and its seeded stream for handshake and masking keys.
pub struct WsClient {
    tcp: TcpHost,
    tls: TlsConnector,
    rng: RefCell<ChaCha20Rng>,
}

impl WsClient {
    pub fn new(tcp: TcpHost, tls: Arc<rustls::ClientConfig>, seed: RunSeed) -> Self {
        let rng = seed.stream(&format!("host.{}.ws", tcp.name));
        WsClient { tcp, tls: TlsConnector::from(tls), rng: RefCell::new(rng) }
    }
}

/// The WebSocket door: a TCP listener and the TLS acceptor. Cheap to clone.
#[derive(Clone)]
pub struct WsDoor {
    host: String,
    listener: Rc<ftw_tcp::TcpListener>,
    tls: TlsAcceptor,
    stack: SharedStack,
}

impl WsDoor {
    /// Listen on `port` of `tcp`.
    pub fn bind(tcp: &TcpHost, port: u16, tls: Arc<rustls::ServerConfig>) -> io::Result<WsDoor> {
        let listener = tcp.listen(port)?;
        Ok(WsDoor { host: tcp.name.clone(), listener: Rc::new(listener), tls: TlsAcceptor::from(tls), stack: tcp.stack.clone() })
    }

    /// The next TCP connection (hand it to [`accept_ws`], e.g. in its own task).
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddrV4)> {
        let (s, peer) = self.listener.accept().await?;
        trace::record(&self.host, "tcp.accept", format!("{peer}"));
        Ok((s, peer))
    }
}

/// What the reason of a dial whose TCP handshake failed starts with.
const TCP_FAILED: &str = "tcp: ";
/// What the reason of a dial whose TCP, connected, aborted starts with.
const TCP_ABORTED: &str = "tcp aborted: ";
/// What the reason of a dial whose TCP, connected, the door reset starts with.
const TCP_RESET: &str = "tcp reset: ";

/// Where a WebSocket dial's TCP gave up (never a refusal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TcpGaveUp {
    /// In its handshake, as Linux's `connect` does when its SYN retransmissions
    /// (`tcp_syn_retries` = 6, 127 s) all went unanswered: no connection.
    Connecting,
    /// Connected, with its TLS or upgrade bytes unacknowledged until it aborted,
    /// as Linux does `tcp_retries2` = 15 (924.6 s) after the last segment heard.
    Connected,
    /// Connected, then reset by the door before it accepted the connection: the
    /// door's SYN-ACK got through only on its last retry, the phone's ACK and
    /// first bytes were lost, and the phone's next bytes came after the door had
    /// given the half-open connection up (63 s after its SYN, `tcp_synack_retries`
    /// = 5), so its listener answered them with an RST, as Linux's does to an ACK
    /// it holds no request for (`tcp_rcv_state_process` in LISTEN, then
    /// `tcp_v4_send_reset`). The phone's next bytes wait a tail loss probe of 2 SRTT
    /// plus 200 ms, and that SRTT was sampled across the SYN's retransmissions from
    /// the SYN-ACK's timestamp echo (RFC 7323 section 4.1), so tens of seconds:
    /// docs/findings/ws-dial-reset-after-half-open-given-up.md.
    Reset,
}

/// Where a WebSocket dial's TCP gave up, if that is how it failed.
pub fn tcp_gave_up(e: &DialError) -> Option<TcpGaveUp> {
    match e {
        DialError::Closed(c) if c.reason.starts_with(TCP_ABORTED) => Some(TcpGaveUp::Connected),
        DialError::Closed(c) if c.reason.starts_with(TCP_FAILED) => Some(TcpGaveUp::Connecting),
        DialError::Closed(c) if c.reason.starts_with(TCP_RESET) => Some(TcpGaveUp::Reset),
        _ => None,
    }
}

/// A dial's failure after TCP connected, in `stage` (TLS or the upgrade), from
/// the TCP error under it if any: TCP's own abort when it timed out, the door's
/// reset, else the stage's error.
fn failed_in(stage: &str, e: &dyn std::fmt::Display, tcp: Option<io::ErrorKind>) -> DialError {
    let prefix = match tcp {
        Some(io::ErrorKind::TimedOut) => TCP_ABORTED,
        Some(io::ErrorKind::ConnectionReset) => TCP_RESET,
        _ => "",
    };
    DialError::Closed(CloseInfo { code: close::ABNORMAL, reason: format!("{prefix}{stage}: {e}"), by_peer: true })
}

/// The TCP error under a tungstenite error, if it is one.
fn ws_io_kind(e: &tokio_tungstenite::tungstenite::Error) -> Option<io::ErrorKind> {
    match e {
        tokio_tungstenite::tungstenite::Error::Io(io) => Some(io.kind()),
        _ => None,
    }
}

/// Dial the door at `remote`: TCP, TLS 1.3 to `server_name`, the upgrade to
/// `target` (path and query). A door with no listener refuses at once
/// ([`DialError::Refused`]).
pub async fn dial(client: &WsClient, remote: SocketAddrV4, server_name: &str, target: &str) -> Result<WsLink, DialError> {
    let host = client.tcp.name.clone();
    trace::record(&host, "ws.dial", format!("{remote}{target}"));
    let tcp = client.tcp.connect(remote).await.map_err(|e| match e.kind() {
        io::ErrorKind::ConnectionRefused => DialError::Refused,
        _ => DialError::Closed(CloseInfo { code: close::ABNORMAL, reason: format!("{TCP_FAILED}{e}"), by_peer: true }),
    })?;
    let conn = tcp.id();
    let name = rustls::pki_types::ServerName::try_from(server_name.to_string()).map_err(|e| DialError::Other(e.to_string()))?;
    let tls = client.tls.connect(name, tcp).await.map_err(|e| failed_in("tls", &e, Some(e.kind())))?;
    let resumed = tls.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    let (key, mask_rng) = {
        let mut rng = client.rng.borrow_mut();
        let mut key = [0u8; 16];
        rng.fill_bytes(&mut key);
        let mut mask_seed = [0u8; 32];
        rng.fill_bytes(&mut mask_seed);
        (key, <ChaCha20Rng as rand::SeedableRng>::from_seed(mask_seed))
    };
    let request = Request::builder()
        .method("GET")
        .uri(format!("wss://{server_name}{target}"))
        .header("Host", server_name)
        .header("Connection", "Upgrade")
        .header("Upgrade", "websocket")
        .header("Sec-WebSocket-Version", "13")
        .header("Sec-WebSocket-Key", base64(&key))
        .body(())
        .map_err(|e| DialError::Other(e.to_string()))?;
    let masked = SeededMask { inner: tls, framing: false, state: MaskState::new(mask_rng) };
    let (mut ws, _resp) = tokio_tungstenite::client_async(request, masked).await.map_err(|e| failed_in("upgrade", &e, ws_io_kind(&e)))?;
    // Everything written from now on is frames.
    ws.get_mut().framing = true;
    trace::record(&host, "ws.open", format!("{remote}{target} tls={}", if resumed { "resumed" } else { "full" }));
    Ok(WsLink::start(host, ws, false, client.tcp.stack.clone(), conn, resumed))
}

/// Accept a WebSocket link on a TCP connection from [`WsDoor::accept`]: TLS,
/// then the upgrade; returns the link and the target (path and query).
// The upgrade callback's error type is tungstenite's (`ErrorResponse`), not ours.
#[allow(clippy::result_large_err)]
pub async fn accept(door: &WsDoor, tcp: TcpStream) -> Result<(WsLink, String), DialError> {
    let peer = tcp.peer_addr().map_err(|e| DialError::Other(e.to_string()))?;
    let conn = tcp.id();
    let tls = door.tls.accept(tcp).await.map_err(|e| DialError::Closed(CloseInfo { code: close::ABNORMAL, reason: format!("tls: {e}"), by_peer: true }))?;
    let resumed = tls.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed);
    let target = Rc::new(RefCell::new(String::new()));
    let t = target.clone();
    let callback = move |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        *t.borrow_mut() = req.uri().path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
        Ok(resp)
    };
    let ws = tokio_tungstenite::accept_hdr_async(tls, callback)
        .await
        .map_err(|e| DialError::Closed(CloseInfo { code: close::ABNORMAL, reason: format!("upgrade: {e}"), by_peer: true }))?;
    let target = target.borrow().clone();
    trace::record(&door.host, "ws.accept", format!("{peer}{target} tls={}", if resumed { "resumed" } else { "full" }));
    Ok((WsLink::start(door.host.clone(), ws, true, door.stack.clone(), conn, resumed), target))
}

/// Standard base64 with padding (RFC 4648), for the handshake key.
fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

enum Cmd {
    Send(Bytes),
    Close(u16, String),
}

struct LinkState {
    host: String,
    /// Pings sent since the last frame came in (service side).
    unanswered: u32,
    last_rx: Duration,
    /// This side closed first: code, reason, when.
    local_close: Option<(u16, String, Duration)>,
    /// The close already reported (reported once, then repeated by `recv`).
    ended: Option<CloseInfo>,
    events: mpsc::UnboundedSender<LinkEvent>,
}

impl LinkState {
    fn finish(&mut self, info: CloseInfo) {
        if self.ended.is_none() {
            trace::record(&self.host, "ws.closed", format!("{} {:?} by_peer={}", info.code, info.reason, info.by_peer));
            self.ended = Some(info.clone());
            let _ = self.events.send(LinkEvent::Closed(info));
        }
    }
}

/// A link over one WebSocket connection.
pub struct WsLink {
    cmds: mpsc::UnboundedSender<Cmd>,
    events: mpsc::UnboundedReceiver<LinkEvent>,
    st: Rc<RefCell<LinkState>>,
    /// Read by the tests' `abort` and `tls_resumed`.
    #[cfg_attr(not(test), allow(dead_code))]
    stack: SharedStack,
    #[cfg_attr(not(test), allow(dead_code))]
    conn: ConnId,
    #[cfg_attr(not(test), allow(dead_code))]
    resumed: bool,
    /// Tells the reader its deadline changed (a local close starts the wait for
    /// the reply; without this the reader slept on the heartbeat deadline it had
    /// and closed only when the next frame came: found by `ftwsim fuzz`,
    /// corpus/ws-echo-close-reply-wait.toml).
    rearm: Rc<Notify>,
}

type Shared = Rc<RefCell<LinkState>>;

impl WsLink {
    fn start<S>(host: String, ws: WebSocketStream<S>, service: bool, stack: SharedStack, conn: ConnId, resumed: bool) -> WsLink
    where
        S: AsyncRead + AsyncWrite + Unpin + 'static,
    {
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let st = Rc::new(RefCell::new(LinkState { host, unanswered: 0, last_rx: time::now(), local_close: None, ended: None, events: ev_tx }));
        let (sink, stream) = ws.split();
        let stop_reader = Rc::new(Notify::new());
        let stop_writer = Rc::new(Notify::new());
        let rearm = Rc::new(Notify::new());
        tokio::task::spawn_local(read_loop(stream, st.clone(), service, stop_reader.clone(), stop_writer.clone(), rearm.clone()));
        tokio::task::spawn_local(write_loop(sink, cmd_rx, st.clone(), service, stop_writer, stop_reader));
        WsLink { cmds: cmd_tx, events: ev_rx, st, stack, conn, resumed, rearm }
    }

    pub fn send(&mut self, msg: &[u8]) -> Result<(), String> {
        if let Some(e) = &self.st.borrow().ended {
            return Err(format!("link closed ({})", e.code));
        }
        self.cmds.send(Cmd::Send(Bytes::copy_from_slice(msg))).map_err(|_| "link closed".to_string())
    }

    pub async fn recv(&mut self) -> LinkEvent {
        match self.events.recv().await {
            Some(ev) => ev,
            None => LinkEvent::Closed(self.st.borrow().ended.clone().unwrap_or(CloseInfo { code: close::ABNORMAL, reason: "closed".into(), by_peer: false })),
        }
    }

    /// Close with `code` and `reason` (1005: a close frame with no code).
    pub fn close(&mut self, code: u16, reason: &str) {
        let mut st = self.st.borrow_mut();
        if st.ended.is_some() || st.local_close.is_some() {
            return;
        }
        trace::record(&st.host, "ws.close", format!("{code} {reason:?}"));
        st.local_close = Some((code, reason.to_string(), time::now()));
        drop(st);
        let _ = self.cmds.send(Cmd::Close(code, reason.to_string()));
        self.rearm.notify_one();
    }

    /// Reset the TCP connection without a close frame (a killed app, a crashed
    /// service): this side reports 1006 at once, the peer on the RST.
    #[cfg(test)]
    pub fn abort(&mut self) {
        let mut st = self.st.borrow_mut();
        trace::record(&st.host, "ws.abort", String::new());
        st.finish(CloseInfo { code: close::ABNORMAL, reason: "aborted".into(), by_peer: false });
        drop(st);
        let _ = self.stack.borrow_mut().abort(self.conn);
    }

    /// Whether TLS resumed a session with a ticket.
    #[cfg(test)]
    pub fn tls_resumed(&self) -> bool {
        self.resumed
    }
}

fn code_of(frame: Option<CloseFrame<'_>>) -> (u16, String) {
    match frame {
        Some(f) => (u16::from(f.code), f.reason.into_owned()),
        None => (close::NO_STATUS, String::new()),
    }
}

/// When the read loop gives up waiting: the close reply's wait after a close (ours
/// or the link's end), three missed beats on a client, never on the service's side.
fn read_deadline(st: &Shared, service: bool) -> Option<Duration> {
    let s = st.borrow();
    match &s.local_close {
        Some((_, _, at)) => Some(*at + CLOSE_REPLY_WAIT),
        None if s.ended.is_some() => Some(time::now() + CLOSE_REPLY_WAIT),
        None if service => None,
        None => Some(s.last_rx + PING_INTERVAL * (BEATS_MISSED_MAX + 1)),
    }
}

/// A frame read: any frame counts as a beat; a data frame is a message, a close
/// frame ends the link (tungstenite then sends the reply and the stream ends).
fn on_frame(s: &mut LinkState, msg: Message) {
    s.last_rx = time::now();
    s.unanswered = 0;
    match msg {
        Message::Binary(b) => {
            let _ = s.events.send(LinkEvent::Message(Bytes::from(b)));
        }
        Message::Text(t) => {
            let _ = s.events.send(LinkEvent::Message(Bytes::from(t.into_bytes())));
        }
        Message::Close(frame) => {
            let (code, reason) = code_of(frame);
            let by_peer = s.local_close.is_none();
            s.finish(CloseInfo { code, reason, by_peer });
            // Keep reading: tungstenite sends the reply, then the stream ends.
        }
        Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => {}
    }
}

async fn read_loop<S>(
    mut stream: futures_util::stream::SplitStream<WebSocketStream<S>>,
    st: Shared,
    service: bool,
    stop: Rc<Notify>,
    stop_writer: Rc<Notify>,
    rearm: Rc<Notify>,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    loop {
        let deadline = read_deadline(&st, service);
        let sleep = async {
            match deadline {
                Some(d) => time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = stop.notified() => break,
            () = rearm.notified() => continue,
            m = stream.next() => {
                let mut s = st.borrow_mut();
                match m {
                    Some(Ok(msg)) => on_frame(&mut s, msg),
                    Some(Err(_)) | None => {
                        s.finish(CloseInfo { code: close::ABNORMAL, reason: "connection ended without a close frame".into(), by_peer: true });
                        break;
                    }
                }
            }
            () = sleep => {
                let mut s = st.borrow_mut();
                let info = match &s.local_close {
                    Some((code, reason, _)) => CloseInfo { code: *code, reason: reason.clone(), by_peer: false },
                    None => CloseInfo { code: close::ABNORMAL, reason: "no frame from the service for three beats".into(), by_peer: true },
                };
                s.finish(info);
                break;
            }
        }
    }
    stop_writer.notify_one();
}

async fn write_loop<S>(
    mut sink: futures_util::stream::SplitSink<WebSocketStream<S>, Message>,
    mut cmds: mpsc::UnboundedReceiver<Cmd>,
    st: Shared,
    service: bool,
    stop: Rc<Notify>,
    stop_reader: Rc<Notify>,
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut next_ping = time::now() + PING_INTERVAL;
    loop {
        let sleep = async {
            if service {
                time::sleep_until(next_ping).await
            } else {
                std::future::pending().await
            }
        };
        tokio::select! {
            biased;
            () = stop.notified() => break,
            cmd = cmds.recv() => match cmd {
                Some(Cmd::Send(b)) => {
                    if sink.send(Message::Binary(b.to_vec())).await.is_err() {
                        break;
                    }
                }
                Some(Cmd::Close(code, reason)) => {
                    let frame = (code != close::NO_STATUS).then(|| CloseFrame { code: CloseCode::from(code), reason: reason.into() });
                    let _ = sink.send(Message::Close(frame)).await;
                    // The reader waits for the reply; nothing more is sent.
                    stop.notified().await;
                    break;
                }
                None => {
                    // The link was dropped without a close: drop the connection.
                    stop_reader.notify_one();
                    break;
                }
            },
            () = sleep => {
                let dead = {
                    let mut s = st.borrow_mut();
                    if s.ended.is_some() {
                        true
                    } else if s.unanswered >= BEATS_MISSED_MAX {
                        s.finish(CloseInfo { code: close::ABNORMAL, reason: format!("{BEATS_MISSED_MAX} pings unanswered"), by_peer: true });
                        stop_reader.notify_one();
                        true
                    } else {
                        s.unanswered += 1;
                        false
                    }
                };
                if dead {
                    break;
                }
                if sink.send(Message::Ping(Vec::new())).await.is_err() {
                    break;
                }
                next_ping += PING_INTERVAL;
            }
        }
    }
}

/// Where the masking-key rewrite is in the client's outgoing frame stream.
#[derive(Clone)]
struct MaskState {
    rng: ChaCha20Rng,
    /// Header bytes seen of the current frame (0: at a frame start).
    at: usize,
    /// Bytes of extended payload length (0, 2 or 8), known after header byte 1.
    ext: usize,
    len: u64,
    key_in: [u8; 4],
    key_out: [u8; 4],
    /// Payload bytes of the current frame still to come, and how many passed.
    left: u64,
    pos: u64,
}

impl MaskState {
    fn new(rng: ChaCha20Rng) -> Self {
        MaskState { rng, at: 0, ext: 0, len: 0, key_in: [0; 4], key_out: [0; 4], left: 0, pos: 0 }
    }

    /// Re-mask `buf` (tungstenite's frames, masked with its random key) with
    /// seeded keys, writing the result to `out`.
    fn apply(&mut self, buf: &[u8], out: &mut Vec<u8>) {
        for &b in buf {
            if self.left > 0 {
                let k = (self.pos % 4) as usize;
                out.push(b ^ self.key_in[k] ^ self.key_out[k]);
                self.pos += 1;
                self.left -= 1;
                if self.left == 0 {
                    self.at = 0;
                }
                continue;
            }
            let i = self.at;
            self.at += 1;
            match i {
                0 => {
                    self.rng.fill_bytes(&mut self.key_out);
                    out.push(b);
                }
                1 => {
                    assert!(b & 0x80 != 0, "a client frame is masked (RFC 6455 section 5.3)");
                    let len7 = b & 0x7f;
                    self.ext = match len7 {
                        126 => 2,
                        127 => 8,
                        _ => 0,
                    };
                    self.len = len7 as u64;
                    if self.ext > 0 {
                        self.len = 0;
                    }
                    out.push(b);
                }
                _ if i < 2 + self.ext => {
                    self.len = (self.len << 8) | b as u64;
                    out.push(b);
                }
                _ => {
                    let j = i - 2 - self.ext;
                    self.key_in[j] = b;
                    out.push(self.key_out[j]);
                    if j == 3 {
                        self.left = self.len;
                        self.pos = 0;
                        if self.left == 0 {
                            self.at = 0;
                        }
                    }
                }
            }
        }
    }
}

/// Under the client's WebSocket: passes the upgrade through, then gives every
/// frame a masking key from the client's seeded stream instead of tungstenite's
/// thread-RNG key (same layout and length, payload re-masked).
pub struct SeededMask<S> {
    inner: S,
    framing: bool,
    state: MaskState,
}

impl<S: AsyncRead + Unpin> AsyncRead for SeededMask<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for SeededMask<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.framing {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        }
        // Transform on a copy of the state; commit only what the inner stream took.
        let mut trial = this.state.clone();
        let mut out = Vec::with_capacity(buf.len());
        trial.apply(buf, &mut out);
        match Pin::new(&mut this.inner).poll_write(cx, &out) {
            Poll::Ready(Ok(n)) => {
                if n == buf.len() {
                    this.state = trial;
                } else {
                    let mut again = Vec::with_capacity(n);
                    this.state.apply(&buf[..n], &mut again);
                }
                Poll::Ready(Ok(n))
            }
            other => other,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn base64_matches_rfc_4648() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        // RFC 6455 section 1.3's sample nonce.
        assert_eq!(base64(b"the sample nonce"), "dGhlIHNhbXBsZSBub25jZQ==");
    }

    /// A masked client frame as tungstenite would write it.
    fn frame(payload: &[u8], key: [u8; 4]) -> Vec<u8> {
        let mut f = vec![0x82];
        match payload.len() {
            n if n < 126 => f.push(0x80 | n as u8),
            n if n < 65536 => {
                f.push(0x80 | 126);
                f.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                f.push(0x80 | 127);
                f.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        f.extend_from_slice(&key);
        f.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        f
    }

    fn unmask(f: &[u8]) -> (Vec<u8>, [u8; 4]) {
        let len7 = (f[1] & 0x7f) as usize;
        let ext = match len7 {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let k: [u8; 4] = f[2 + ext..6 + ext].try_into().unwrap();
        (f[6 + ext..].iter().enumerate().map(|(i, b)| b ^ k[i % 4]).collect(), k)
    }

    #[test]
    fn remasking_keeps_payloads_and_depends_only_on_the_seed() {
        let payloads: Vec<Vec<u8>> = vec![vec![], b"hello".to_vec(), vec![7u8; 300], vec![9u8; 70_000]];
        let run = |tungstenite_keys: [u8; 4], seed: u64, chunk: usize| {
            let mut st = MaskState::new(ChaCha20Rng::seed_from_u64(seed));
            let mut out = Vec::new();
            let mut wire = Vec::new();
            for p in &payloads {
                wire.extend(frame(p, tungstenite_keys));
            }
            for c in wire.chunks(chunk) {
                st.apply(c, &mut out);
            }
            out
        };
        let a = run([1, 2, 3, 4], 9, 7);
        let b = run([200, 100, 50, 25], 9, 1000);
        assert_eq!(a, b, "the wire is independent of tungstenite's random keys and of write sizes");
        assert_ne!(a, run([1, 2, 3, 4], 10, 7), "another seed, other keys");
        // Split back into frames and check each payload.
        let mut rest = &a[..];
        let mut keys = Vec::new();
        for p in &payloads {
            let hdr =
                2 + match rest[1] & 0x7f {
                    126 => 2,
                    127 => 8,
                    _ => 0,
                } + 4;
            let n = hdr + p.len();
            let (got, k) = unmask(&rest[..n]);
            assert_eq!(&got, p);
            keys.push(k);
            rest = &rest[n..];
        }
        assert!(rest.is_empty());
        assert_ne!(keys[0], keys[1], "a fresh key per frame");
    }
}
