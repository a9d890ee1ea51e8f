//! `close-after-500`: a server that answers a GetTask for a task it never
//! issued with HTTP 500 (a task store that throws on a missing key), then
//! drops that kept-alive connection without saying so — no
//! `Connection: close` — as some real servers do after an error. The next
//! request sent on the connection, whichever run sent it, is reset before
//! any byte of an answer.
//!
//! The dropping is done below HTTP, by the listener: each connection watches
//! the responses written on it, and once one opened with `HTTP/1.1 500`, the
//! next request that arrives on it is read and answered with a TCP reset
//! (a zero linger, then the close). The connection stays open until then, so
//! the client cannot see it close while it sits idle in its pool: the stale
//! connection is reused every time, not by luck.

use super::behaviour::Behaviour;
use super::lifecycle;
use super::shared::Shared;
use a2a_conform_protocol::Operation;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// How a response that poisons its connection opens on the wire.
const POISON: &[u8] = b"HTTP/1.1 500 ";

/// Under `close-after-500`, the HTTP 500 a GetTask for an unknown task
/// gets instead of TaskNotFound; `None` for every other request.
pub(crate) fn crash_on_unknown_task(
    peer: &Shared,
    op: Operation,
    params: &Map<String, Value>,
) -> Option<Response> {
    if peer.behaviour != Behaviour::CloseAfter500 || op != Operation::GetTask {
        return None;
    }
    let id = params
        .get("id")
        .or_else(|| params.get("name"))
        .and_then(Value::as_str)?;
    let id = id.strip_prefix("tasks/").unwrap_or(id);
    if lifecycle::get(peer, id).is_ok() {
        return None;
    }
    Some(
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "text/plain")],
            "Internal Server Error",
        )
            .into_response(),
    )
}

/// The plain-HTTP listener of `close-after-500`: connections that reset
/// the request after a 500.
pub(crate) struct StaleListener(pub(crate) TcpListener);

impl axum::serve::Listener for StaleListener {
    type Io = StaleConnection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.0.accept().await {
                Ok((stream, addr)) => {
                    return (
                        StaleConnection {
                            stream,
                            poisoned: false,
                        },
                        addr,
                    )
                }
                // Out of descriptors or similar: back off rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.0.local_addr()
    }
}

/// One connection: poisoned once a response written on it was a 500.
pub(crate) struct StaleConnection {
    stream: TcpStream,
    poisoned: bool,
}

impl AsyncRead for StaleConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if !this.poisoned || !matches!(polled, Poll::Ready(Ok(()))) {
            return polled;
        }
        if buf.filled().len() == before {
            // The client closed the connection itself: nothing to reset.
            return polled;
        }
        // A request arrived on the poisoned connection: drop it unread and
        // reset the connection (a zero linger turns the close into a RST).
        buf.set_filled(before);
        let _ = this.stream.set_zero_linger();
        Poll::Ready(Err(io::Error::from(io::ErrorKind::ConnectionReset)))
    }
}

impl AsyncWrite for StaleConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        // Writes are not vectored (see below), so a response head opens a write.
        if data.starts_with(POISON) {
            self.poisoned = true;
        }
        Pin::new(&mut self.stream).poll_write(cx, data)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        // hyper then writes each response's head and body as one buffer.
        false
    }
}
