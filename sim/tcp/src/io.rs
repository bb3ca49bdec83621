//! The tokio adapter: `TcpStream` (AsyncRead + AsyncWrite), `TcpListener`, and the driver
//! `run_stack` that moves packets between a [`TcpStack`] and the outside world.
//!
//! Everything is single-threaded (`Rc<RefCell<..>>`): run it on a current-thread runtime
//! inside a `LocalSet` (the simulator's hosts are such runtimes).

use core::future::poll_fn;
use core::pin::Pin;
use core::task::{Context, Poll};
use core::time::Duration;
use std::cell::RefCell;
use std::io;
use std::net::SocketAddrV4;
use std::rc::Rc;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::consts;
use crate::stack::{ConnId, TcpStack};

/// A stack shared between its driver and its streams.
pub type SharedStack = Rc<RefCell<TcpStack>>;

/// Wrap a stack for the adapter.
pub fn shared(stack: TcpStack) -> SharedStack {
    Rc::new(RefCell::new(stack))
}

/// Where IP packets go to and come from (the sim: its UDP network).
#[allow(async_fn_in_trait)]
pub trait PacketPipe {
    /// Send one IPv4 packet.
    async fn send(&mut self, pkt: Vec<u8>) -> io::Result<()>;
    /// The next received IPv4 packet; `None` when the pipe is closed for good (the
    /// driver then returns). Must be cancel-safe: a dropped call loses no packet.
    async fn recv(&mut self) -> Option<Vec<u8>>;
}

/// The clock. In the sim every timer must go through it so idle time can be skipped.
#[allow(async_fn_in_trait)]
pub trait Sleeper {
    /// Time since sim start.
    fn now(&self) -> Duration;
    /// Return once `now() >= deadline` (at once if already past).
    async fn sleep_until(&self, deadline: Duration);
}

/// Drive `stack` for ever (until `pipe.recv()` yields `None` or a send fails): poll it,
/// send what it produced, then sleep until the next packet, the next app call on a stream,
/// or its next deadline, whichever comes first. No fixed-interval wakeups.
pub async fn run_stack<P: PacketPipe, S: Sleeper>(stack: SharedStack, mut pipe: P, sleeper: S) -> io::Result<()> {
    let mut immediate_polls = 0u32;
    let mut last_now = None;
    loop {
        let now = sleeper.now();
        let (out, deadline) = {
            let mut s = stack.borrow_mut();
            s.poll(now);
            let mut out = Vec::new();
            while let Some(pkt) = s.pop_tx() {
                out.push(pkt);
            }
            (out, s.poll_at(now))
        };
        for pkt in out {
            pipe.send(pkt).await?;
        }
        // Guard against a stack that keeps reporting work due at this very instant.
        let mut deadline = deadline;
        if deadline.is_some_and(|d| d <= now) {
            immediate_polls = if last_now == Some(now) { immediate_polls + 1 } else { 0 };
            if immediate_polls >= consts::IMMEDIATE_POLLS_MAX {
                stack.borrow_mut().note_stall();
                deadline = Some(now + consts::STALL_BACKOFF);
                immediate_polls = 0;
            } else {
                last_now = Some(now);
                continue;
            }
        }
        last_now = Some(now);
        let dirty = poll_fn(|cx| if stack.borrow_mut().poll_dirty(cx.waker()) { Poll::Ready(()) } else { Poll::Pending });
        tokio::select! {
            biased;
            () = dirty => {}
            pkt = pipe.recv() => match pkt {
                Some(pkt) => stack.borrow_mut().push_rx(pkt),
                None => return Ok(()),
            },
            () = sleeper.sleep_until(deadline.unwrap_or(now)), if deadline.is_some() => {}
        }
    }
}

/// A TCP connection over a [`TcpStack`]: `AsyncRead + AsyncWrite + Unpin`.
///
/// Dropping it closes the connection as Linux `close()` does (FIN, or RST if received data
/// was left unread); the stack keeps the socket until the close completes.
#[derive(Debug)]
pub struct TcpStream {
    stack: SharedStack,
    id: ConnId,
}

impl TcpStream {
    /// Connect from the next ephemeral port.
    pub async fn connect(stack: &SharedStack, remote: SocketAddrV4) -> io::Result<TcpStream> {
        Self::connect_from(stack, 0, remote).await
    }

    /// Connect from `local_port` (0: the next ephemeral port).
    pub async fn connect_from(stack: &SharedStack, local_port: u16, remote: SocketAddrV4) -> io::Result<TcpStream> {
        let id = stack.borrow_mut().connect(local_port, remote)?;
        // Built first, so a cancelled connect still releases the socket.
        let stream = TcpStream { stack: stack.clone(), id };
        poll_fn(|cx| stream.stack.borrow_mut().poll_connect(id, Some(cx.waker()))).await?;
        Ok(stream)
    }

    /// The stack's id of this connection.
    pub fn id(&self) -> ConnId {
        self.id
    }

    /// Local address.
    pub fn local_addr(&self) -> io::Result<SocketAddrV4> {
        self.stack.borrow().local_addr(self.id)
    }

    /// Remote address.
    pub fn peer_addr(&self) -> io::Result<SocketAddrV4> {
        self.stack.borrow().peer_addr(self.id)
    }

    /// TCP_NODELAY (`true`: Nagle off).
    pub fn set_nodelay(&self, nodelay: bool) -> io::Result<()> {
        self.stack.borrow_mut().set_nodelay(self.id, nodelay)
    }

    /// Whether Nagle is off.
    pub fn nodelay(&self) -> io::Result<bool> {
        self.stack.borrow().nodelay(self.id)
    }

    /// Keep-alive interval (None: off, the default).
    pub fn set_keep_alive(&self, interval: Option<Duration>) -> io::Result<()> {
        self.stack.borrow_mut().set_keep_alive(self.id, interval)
    }

    /// Retransmitted segments sent on this connection so far.
    pub fn retransmits(&self) -> u64 {
        self.stack.borrow().retransmits(self.id)
    }

    /// Reset the connection (an RST goes to the peer at once).
    pub fn abort(self) {
        let _ = self.stack.borrow_mut().abort(self.id);
    }
}

impl AsyncRead for TcpStream {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let mut s = this.stack.borrow_mut();
        match s.poll_recv(this.id, buf.initialize_unfilled(), Some(cx.waker())) {
            Poll::Ready(Ok(n)) => {
                buf.advance(n);
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncWrite for TcpStream {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.stack.borrow_mut().poll_send(this.id, data, Some(cx.waker()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // As tokio's TcpStream: bytes in the send buffer are the kernel's business.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        Poll::Ready(this.stack.borrow_mut().shutdown_write(this.id))
    }
}

impl Drop for TcpStream {
    fn drop(&mut self) {
        self.stack.borrow_mut().release(self.id);
    }
}

/// Accepts any number of connections on one port.
#[derive(Debug)]
pub struct TcpListener {
    stack: SharedStack,
    port: u16,
}

impl TcpListener {
    /// Listen on `port` of the stack's address.
    pub fn bind(stack: &SharedStack, port: u16) -> io::Result<TcpListener> {
        stack.borrow_mut().listen(port)?;
        Ok(TcpListener { stack: stack.clone(), port })
    }

    /// The port listened on.
    pub fn local_port(&self) -> u16 {
        self.port
    }

    /// The next established connection and its peer's address.
    pub async fn accept(&self) -> io::Result<(TcpStream, SocketAddrV4)> {
        let (id, peer) = poll_fn(|cx| self.stack.borrow_mut().poll_accept(self.port, Some(cx.waker()))).await?;
        Ok((TcpStream { stack: self.stack.clone(), id }, peer))
    }
}

impl Drop for TcpListener {
    fn drop(&mut self) {
        self.stack.borrow_mut().unlisten(self.port);
    }
}
