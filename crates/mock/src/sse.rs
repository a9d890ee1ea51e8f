//! Server-Sent Events responses: a pump task per stream writes the task
//! snapshot, then the task's events, framed for JSON-RPC (a response per
//! `data:` line) or REST (a bare StreamResponse), and closes the stream when
//! the lifecycle says so, the client leaves, or the peer shuts down. The
//! stream-silent, stream-reset and stream-lag behaviours are applied here.

use super::behaviour::Behaviour;
use super::draft;
use super::error::jsonrpc_result;
use super::lifecycle::Opened;
use super::model::{self, Event, TaskView};
use super::shared::Shared;
use a2a_conform_protocol::ProtocolVersion;
use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

/// How each `data:` payload is wrapped.
#[derive(Debug, Clone)]
pub(crate) enum Framing {
    /// A JSON-RPC response carrying the request's `id`.
    JsonRpc { id: Value },
    /// The bare StreamResponse (HTTP+JSON binding).
    Rest,
    /// The 0.3 HTTP+JSON binding: the 0.3 proto's StreamResponse JSON.
    RestV0_3,
}

impl Framing {
    fn frame(&self, payload: Value) -> Bytes {
        let value = match self {
            Framing::JsonRpc { id } => jsonrpc_result(id, payload),
            Framing::Rest => payload,
            Framing::RestV0_3 => a2a_conform_protocol::v0_3::proto::wrapped(&payload),
        };
        Bytes::from(format!("data: {value}\n\n"))
    }
}

/// An SSE response for an opened task.
pub(crate) fn respond(
    peer: &Arc<Shared>,
    opened: Opened,
    view: TaskView,
    framing: Framing,
) -> Response {
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    let resets = peer.behaviour.resets_streams();
    let (peer_, linger) = (peer.clone(), peer.timing.chunk_interval * 3);
    tokio::spawn(async move {
        pump(peer_, opened, view, framing, tx.clone()).await;
        if resets {
            // The reset comes three chunk intervals after the last event:
            // an RST discards what the client has not read yet, and the
            // events sent are meant to arrive.
            tokio::time::sleep(linger).await;
        }
        drop(tx);
    });
    let events = ReceiverStream::new(rx).map(Ok::<_, std::io::Error>);
    let body = if resets {
        // stream-reset: once the pump is done, the body fails; hyper then
        // drops the connection, and the zero linger its socket was accepted
        // with (see `lib.rs`) turns that close into an RST.
        Body::from_stream(events.chain(tokio_stream::once(Err(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "stream-reset: the mock resets the connection mid-stream",
        )))))
    } else {
        Body::from_stream(events)
    };
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/event-stream"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}

async fn pump(
    peer: Arc<Shared>,
    opened: Opened,
    view: TaskView,
    framing: Framing,
    tx: mpsc::Sender<Bytes>,
) {
    let version = peer.protocol;
    let Opened { task, mut feed } = opened;
    if peer.behaviour == Behaviour::SilentBeforeStatus {
        // A breath between the late status line and the first frame: a
        // runner whose window ran out before the status line has judged by
        // then, so what it shows does not race the frames.
        tokio::time::sleep(peer.timing.chunk_interval.saturating_mul(3)).await;
    }
    let first = draft::task_event_json(&task, version, view, peer.draft);
    if tx.send(framing.frame(first)).await.is_err() {
        return;
    }
    if let Some(fast) = super::bench::FastStream::requested(&task) {
        super::bench::pump(&task, version, fast, |v| framing.frame(v), &tx).await;
        return;
    }
    if task.status.state.is_terminal() {
        // Nothing more will happen. v0.3 ends a stream with `final: true`.
        if version == ProtocolVersion::V0_3 {
            let last = Event::Status {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                status: task.status.clone(),
            };
            let _ = tx
                .send(framing.frame(model::event_json(&last, version)))
                .await;
        }
        return;
    }
    if peer.behaviour.silences_streams() {
        stay_silent(&peer, &tx).await;
        return;
    }
    // stream-reset: the snapshot and one more event, then the reset;
    // binding-disagrees-stream-end: the same over HTTP+JSON, then a clean
    // close mid-task (the other bindings stream the task to its end).
    let rest = matches!(framing, Framing::Rest | Framing::RestV0_3);
    let cut_short = rest && peer.behaviour.rest_cuts_streams_short();
    let mut left = (peer.behaviour.resets_streams() || cut_short).then_some(1usize);
    let lag = peer.behaviour.stream_lag(peer.timing.chunk_interval);
    loop {
        if left == Some(0) {
            return;
        }
        tokio::select! {
            received = feed.recv() => match received {
                Ok(b) => {
                    if !lag.is_zero() {
                        tokio::time::sleep_until(b.at + lag).await;
                    }
                    let payload = draft::event_json(&b.event, b.generation, version, peer.draft);
                    if tx.send(framing.frame(payload)).await.is_err() {
                        return;
                    }
                    if b.close {
                        if rest && peer.behaviour.rest_ends_streams_late() {
                            hold_open(&peer, &tx).await;
                        }
                        return;
                    }
                    left = left.map(|n| n - 1);
                }
                // A stream that fell behind ends rather than skip events.
                Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return,
            },
            _ = tx.closed() => return,
            _ = peer.stopped() => return,
        }
    }
}

/// binding-slow-stream-end: the stream stays open, sending nothing, for the
/// silence (or until the client goes), then closes.
async fn hold_open(peer: &Shared, tx: &mpsc::Sender<Bytes>) {
    tokio::select! {
        _ = tokio::time::sleep(peer.timing.silence) => {}
        _ = tx.closed() => {}
        _ = peer.stopped() => {}
    }
}

/// stream-silent: keep-alive comments only; stream-silent-nothing: nothing.
/// Either way the stream closes after `timing.silence` without another event.
async fn stay_silent(peer: &Shared, tx: &mpsc::Sender<Bytes>) {
    let deadline = tokio::time::Instant::now() + peer.timing.silence;
    let keepalive = (peer.behaviour == Behaviour::StreamSilent)
        .then(|| peer.timing.keepalive_interval.max(Duration::from_millis(1)));
    let mut next = keepalive.map(|k| tokio::time::Instant::now() + k);
    loop {
        let wake = match next {
            Some(at) if at < deadline => at,
            _ => deadline,
        };
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => {
                if wake >= deadline {
                    return;
                }
                if tx.send(Bytes::from_static(b": keep-alive\n\n")).await.is_err() {
                    return;
                }
                next = keepalive.map(|k| wake + k);
            }
            _ = tx.closed() => return,
            _ = peer.stopped() => return,
        }
    }
}
