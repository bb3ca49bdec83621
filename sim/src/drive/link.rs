//! The upper layer's view of a transport, the same over QUIC and the WebSocket
//! ("nothing above the socket changes", seed 000): dial or accept, send a
//! message, send a datagram, receive, close with a code, and the transport's
//! name. Close codes are the WebSocket's numbers on both (1000 normal, 4403,
//! 4408, ...; 1005 no code, 1006 the connection died without a close).
//!
//! QUIC framing (SPEC section 3): the phone's control stream is bidirectional
//! and phone-opened; it starts with the target (the URL's path and query) and
//! then each message goes with its QUIC varint length. The target itself is
//! sent varint-length-prefixed too (chosen here). The service's bulk goes on a
//! unidirectional stream the service opens, framed the same way. Datagrams
//! carry one message each. The QUIC application error code is the close code.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use quinn_proto::StreamId;

pub use crate::drive::event::{close, CloseInfo, DialError, LinkEvent, TransportKind};
use crate::drive::quic::{Lost, QuicConn, QuicEndpoint, QuicEvent};
pub use crate::drive::ws::WsLink;
use crate::drive::ws::{WsClient, WsDoor};
use crate::world::journal::wire::{Stream as WireStream, WireStep};
use crate::world::journal::{self, Step};
use crate::world::plant::{self, Bug};
use crate::world::trace;

/// One open link.
pub enum Link {
    Quic(QuicLink),
    /// One WebSocket over TLS over the simulated TCP (`crate::drive::ws`).
    Ws(WsLink),
}

impl Link {
    pub fn transport(&self) -> TransportKind {
        match self {
            Link::Quic(_) => TransportKind::Quic,
            Link::Ws(_) => TransportKind::WebSocket,
        }
    }

    /// 0-RTT early data on this link: None when not tried (or a WebSocket), else
    /// whether the server accepted it.
    pub fn zero_rtt(&self) -> Option<bool> {
        match self {
            Link::Quic(q) => q.zero_rtt,
            Link::Ws(_) => None,
        }
    }

    /// The QUIC connection under the link (None over the WebSocket).
    pub fn quic(&self) -> Option<&QuicConn> {
        match self {
            Link::Quic(q) => Some(&q.conn),
            Link::Ws(_) => None,
        }
    }

    /// Whether the dial held a ticket's 0-RTT keys (a QUIC client's resumption).
    pub fn had_ticket(&self) -> bool {
        matches!(self, Link::Quic(q) if q.ticket)
    }

    /// Send a control message (phone: on its control stream; service: on the
    /// control stream's return direction).
    pub fn send(&mut self, msg: &[u8]) -> Result<(), String> {
        match self {
            Link::Quic(q) => q.send_on(q.control, msg),
            Link::Ws(w) => w.send(msg),
        }
    }

    /// Send `bytes` the way the protocol models ask (`ftw_box::uplink::SendKind`:
    /// a message, a bulk message, a datagram). The one mapping every driver uses.
    pub fn send_as(&mut self, kind: ftw_box::uplink::SendKind, bytes: &[u8]) -> Result<(), String> {
        use ftw_box::uplink::SendKind;
        match kind {
            SendKind::Message => self.send(bytes),
            SendKind::Bulk => self.send_bulk(bytes),
            SendKind::Datagram => self.send_datagram(bytes).map(|_| ()),
        }
    }

    /// Send bulk (service side: on the stream it opens for bulk; over the
    /// WebSocket, the same as `send`).
    pub fn send_bulk(&mut self, msg: &[u8]) -> Result<(), String> {
        match self {
            Link::Quic(q) => {
                let s = match q.bulk_out {
                    Some(s) => s,
                    None => {
                        let s = q.conn.open_uni().ok_or("no uni stream credit")?;
                        q.bulk_out = Some(s);
                        s
                    }
                };
                q.send_on(s, msg)
            }
            Link::Ws(w) => w.send(msg),
        }
    }

    /// Send as a datagram where the transport has them; returns whether it went
    /// as a datagram (false: sent as a message instead).
    pub fn send_datagram(&mut self, msg: &[u8]) -> Result<bool, String> {
        match self {
            Link::Quic(q) => q.conn.send_datagram(Bytes::copy_from_slice(msg)).map(|_| true),
            Link::Ws(w) => w.send(msg).map(|_| false),
        }
    }

    /// The next event.
    pub async fn recv(&mut self) -> LinkEvent {
        match self {
            Link::Quic(q) => q.recv().await,
            Link::Ws(w) => w.recv().await,
        }
    }

    pub fn close(&mut self, code: u16, reason: &str) {
        match self {
            Link::Quic(q) => {
                q.conn.close(code as u32, reason);
                // quinn-proto reports no event for a local close: report it here,
                // as the WebSocket does (own code, not by the peer).
                if !q.closed {
                    q.closed = true;
                    q.ready.push_back(LinkEvent::Closed(CloseInfo { code, reason: reason.to_string(), by_peer: false }));
                }
            }
            Link::Ws(w) => w.close(code, reason),
        }
    }
}

/// Append `v` as a QUIC varint (RFC 9000 section 16).
pub fn put_varint(out: &mut BytesMut, v: u64) {
    if v < 1 << 6 {
        out.put_u8(v as u8);
    } else if v < 1 << 14 {
        out.put_u16(0x4000 | v as u16);
    } else if v < 1 << 30 {
        out.put_u32(0x8000_0000 | v as u32);
    } else {
        assert!(v < 1 << 62, "varint range");
        out.put_u64(0xc000_0000_0000_0000 | v);
    }
}

/// Take one varint-length-prefixed message from the front of `buf`, if whole.
pub fn take_framed(buf: &mut BytesMut) -> Option<Bytes> {
    if buf.is_empty() {
        return None;
    }
    let len_len = 1usize << (buf[0] >> 6);
    if buf.len() < len_len {
        return None;
    }
    let mut v = (buf[0] & 0x3f) as u64;
    for b in &buf[1..len_len] {
        v = (v << 8) | *b as u64;
    }
    if buf.len() < len_len + v as usize {
        return None;
    }
    buf.advance(len_len);
    Some(buf.split_to(v as usize).freeze())
}

fn framed(msg: &[u8]) -> BytesMut {
    let mut out = BytesMut::with_capacity(msg.len() + 8);
    if plant::on(Bug::WireVarintCountsItself) {
        let n = msg.len() as u64;
        let width = if n < 1 << 6 {
            1
        } else if n < 1 << 14 {
            2
        } else {
            4
        };
        put_varint(&mut out, n + width);
    } else {
        put_varint(&mut out, msg.len() as u64);
    }
    out.extend_from_slice(msg);
    out
}

/// Write `msg` to `stream` with its varint length, journaling what was written
/// (the wire's reference reads the length back from the bytes).
fn write_framed(conn: &QuicConn, stream: StreamId, msg: &[u8], what: WireStream) -> Result<(), String> {
    let bytes = framed(msg);
    if journal::is_on() {
        let head = bytes[..bytes.len().min(9)].to_vec();
        let step = WireStep::Framed { stream: what, head, written: bytes.len(), msg_len: msg.len() };
        journal::record(&conn.host(), Step::Wire(step));
    }
    conn.write(stream, &bytes)
}

/// A link over one QUIC connection.
pub struct QuicLink {
    conn: QuicConn,
    control: StreamId,
    bulk_out: Option<StreamId>,
    bufs: BTreeMap<StreamId, BytesMut>,
    ready: std::collections::VecDeque<LinkEvent>,
    closed: bool,
    /// Early data: None when not tried, else whether the cloud accepted it.
    zero_rtt: Option<bool>,
    /// The dial had a ticket's 0-RTT keys (whether or not it used them).
    ticket: bool,
}

impl QuicLink {
    fn send_on(&mut self, s: StreamId, msg: &[u8]) -> Result<(), String> {
        let what = if s == self.control { WireStream::Control } else { WireStream::Bulk };
        write_framed(&self.conn, s, msg, what)
    }

    async fn recv(&mut self) -> LinkEvent {
        loop {
            if let Some(ev) = self.ready.pop_front() {
                return ev;
            }
            if self.closed {
                return LinkEvent::Closed(CloseInfo { code: close::ABNORMAL, reason: "closed".into(), by_peer: false });
            }
            match self.conn.next_event().await {
                QuicEvent::Data { stream, data } => {
                    let buf = self.bufs.entry(stream).or_default();
                    buf.extend_from_slice(&data);
                    while let Some(m) = take_framed(buf) {
                        self.ready.push_back(LinkEvent::Message(m));
                    }
                }
                QuicEvent::Datagram(d) => self.ready.push_back(LinkEvent::Datagram(d)),
                QuicEvent::Lost(l) => {
                    self.closed = true;
                    self.ready.push_back(LinkEvent::Closed(close_of(&l)));
                }
                _ => {}
            }
        }
    }
}

/// The WebSocket-numbered close a QUIC loss means.
pub fn close_of(l: &Lost) -> CloseInfo {
    match l {
        Lost::Closed { code, by_peer } => CloseInfo { code: (*code).min(u16::MAX as u64) as u16, reason: String::new(), by_peer: *by_peer },
        Lost::TimedOut | Lost::Refused | Lost::Other(_) => CloseInfo { code: close::ABNORMAL, reason: format!("{l:?}"), by_peer: true },
    }
}

/// Whether a dial sends its target as 0-RTT early data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyData {
    /// Never: the control stream opens once the handshake is done (the phone; SPEC §3).
    Never,
    /// With a ticket's 0-RTT keys, in the first flight (the box's reconnect; SPEC §3).
    /// If the cloud rejects it (quinn-proto then resets every stream opened in
    /// 0-RTT), the target goes again over 1-RTT unless `resend` is off (switch
    /// `rejected-0rtt-not-resent`).
    IfTicket { resend: bool },
}

/// Dial QUIC and open the control stream with `target` (path and query).
/// The target goes out once the handshake is done; the link is returned then.
pub async fn dial_quic(ep: &QuicEndpoint, config: quinn_proto::ClientConfig, remote: SocketAddr, server_name: &str, target: &str) -> Result<Link, DialError> {
    dial_quic_with(ep, config, remote, server_name, target, EarlyData::Never).await
}

/// [`dial_quic`], the target sent as `early` says. What the cloud sends before the
/// handshake completes at the dialer (its first flight's 1-RTT data) is kept for
/// the link. The link's [`Link::zero_rtt`] says what became of early data.
pub async fn dial_quic_with(
    ep: &QuicEndpoint,
    config: quinn_proto::ClientConfig,
    remote: SocketAddr,
    server_name: &str,
    target: &str,
    early: EarlyData,
) -> Result<Link, DialError> {
    let conn = ep.connect(config, remote, server_name).map_err(DialError::Other)?;
    let ticket = conn.has_0rtt();
    let tried = matches!(early, EarlyData::IfTicket { .. }) && ticket;
    let mut control = None;
    if tried {
        let s = conn.open_bi().ok_or_else(|| DialError::Other("no 0-RTT stream credit".into()))?;
        write_framed(&conn, s, target.as_bytes(), WireStream::Target).map_err(DialError::Other)?;
        control = Some(s);
    }
    let (mut bufs, mut ready) = (BTreeMap::<StreamId, BytesMut>::new(), std::collections::VecDeque::new());
    loop {
        match conn.next_event().await {
            QuicEvent::Connected => break,
            QuicEvent::Lost(Lost::Refused) => return Err(DialError::Refused),
            QuicEvent::Lost(l) => return Err(DialError::Closed(close_of(&l))),
            QuicEvent::Data { stream, data } => {
                let buf = bufs.entry(stream).or_default();
                buf.extend_from_slice(&data);
                while let Some(m) = take_framed(buf) {
                    ready.push_back(LinkEvent::Message(m));
                }
            }
            QuicEvent::Datagram(d) => ready.push_back(LinkEvent::Datagram(d)),
            _ => {}
        }
    }
    let zero_rtt = tried.then(|| conn.accepted_0rtt());
    let resend = matches!(early, EarlyData::IfTicket { resend: true }) || control.is_none();
    let control = match control {
        Some(s) if zero_rtt == Some(true) || !resend => s,
        _ => {
            let s = conn.open_bi().ok_or_else(|| DialError::Other("no stream credit".into()))?;
            write_framed(&conn, s, target.as_bytes(), WireStream::Target).map_err(DialError::Other)?;
            s
        }
    };
    if zero_rtt == Some(false) {
        trace::record(&ep.host(), "quic.0rtt_rejected", format!("h={} target sent again: {resend}", conn.id()));
    }
    Ok(Link::Quic(QuicLink { conn, control, bulk_out: None, bufs, ready, closed: false, zero_rtt, ticket }))
}

/// Accept a QUIC link: wait for the phone's control stream and its target.
pub async fn accept_quic(conn: QuicConn) -> Result<(Link, String), DialError> {
    let mut buf = BytesMut::new();
    let mut control = None;
    let mut early = std::collections::VecDeque::new();
    loop {
        match conn.next_event().await {
            QuicEvent::Data { stream, data } if control.is_none() || control == Some(stream) => {
                control = Some(stream);
                buf.extend_from_slice(&data);
                if let Some(t) = take_framed(&mut buf) {
                    let target = String::from_utf8_lossy(&t).into_owned();
                    let mut bufs = BTreeMap::new();
                    let mut ready = std::collections::VecDeque::new();
                    while let Some(m) = take_framed(&mut buf) {
                        ready.push_back(LinkEvent::Message(m));
                    }
                    ready.extend(early);
                    bufs.insert(stream, buf);
                    // The target came as 0-RTT early data when it arrived before the
                    // handshake completed here (1-RTT data follows the client's Finished).
                    let ticket = conn.is_handshaking();
                    let zero_rtt = ticket.then_some(true);
                    let link = QuicLink { conn, control: stream, bulk_out: None, bufs, ready, closed: false, zero_rtt, ticket };
                    return Ok((Link::Quic(link), target));
                }
            }
            QuicEvent::Datagram(d) => early.push_back(LinkEvent::Datagram(d)),
            QuicEvent::Lost(l) => return Err(DialError::Closed(close_of(&l))),
            _ => {}
        }
    }
}

/// Dial the cloud's WebSocket door (TCP, TLS 1.3, upgrade) and open a [`Link::Ws`].
pub async fn dial_ws(client: &WsClient, remote: std::net::SocketAddrV4, server_name: &str, target: &str) -> Result<Link, DialError> {
    crate::drive::ws::dial(client, remote, server_name, target).await.map(Link::Ws)
}

/// Serve one WebSocket the door accepted: the [`Link::Ws`] and its target.
pub async fn accept_ws(door: &WsDoor, tcp: ftw_tcp::TcpStream) -> Result<(Link, String), DialError> {
    crate::drive::ws::accept(door, tcp).await.map(|(l, t)| (Link::Ws(l), t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_framing_round_trips_at_every_width() {
        for len in [0usize, 1, 63, 64, 16_383, 16_384, 70_000] {
            let msg = vec![7u8; len];
            let mut buf = framed(&msg);
            buf.extend_from_slice(&framed(b"next"));
            assert_eq!(take_framed(&mut buf).unwrap().len(), len);
            assert_eq!(&take_framed(&mut buf).unwrap()[..], b"next");
            assert!(take_framed(&mut buf).is_none());
        }
        let mut partial = framed(&[1, 2, 3]);
        partial.truncate(3);
        assert!(take_framed(&mut partial).is_none());
    }
}
