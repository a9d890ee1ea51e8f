//! What the benchmark (`bench/`) needs from the mock: many distinct peers
//! from one process (`/peers/N/.well-known/agent-card.json`, each card named
//! `… #N`, all served by the same endpoints), and a stream as fast and as
//! long as asked. A message whose text is `fast-stream EVENTS SIZE` is
//! answered on `message/stream` with EVENTS artifact updates of about SIZE
//! bytes each (the whole `data:` frame), then `completed`; the frames are
//! built once and shared, so the mock's memory stays flat for any length.

use super::model::{self, Artifact, Event, Part, Status, Task};
use super::shared::Shared;
use a2a_conform_protocol::{ProtocolVersion, TaskState};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use bytes::Bytes;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The router pattern of the numbered cards.
pub(crate) const FLEET_CARD_ROUTE: &str = "/peers/{n}/.well-known/agent-card.json";

/// The card of peer `n`: this peer's card, named `… #n`.
pub(crate) async fn serve_card(
    State(peer): State<Arc<Shared>>,
    Path(n): Path<u32>,
    headers: HeaderMap,
) -> Response {
    let mut card = super::card::card_json(&peer);
    let name = card["name"].as_str().unwrap_or_default().to_string();
    card["name"] = json!(format!("{name} #{n}"));
    super::card::respond(card.to_string(), &headers)
}

/// About how many bytes of frames each write of a fast stream carries.
const BLOCK_BYTES: usize = 64 * 1024;

/// The text that asks for a fast stream.
pub(crate) const FAST_STREAM: &str = "fast-stream";

/// A fast stream's shape: how many artifact updates, of about how many bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FastStream {
    pub events: u64,
    pub size: usize,
}

impl FastStream {
    /// `fast-stream EVENTS SIZE` in the task's first message, if there.
    pub(crate) fn requested(task: &Task) -> Option<FastStream> {
        let message = task.history.first()?;
        message.parts.iter().find_map(|part| match &part.content {
            model::Content::Text(text) => {
                let mut words = text.split_whitespace();
                (words.next()? == FAST_STREAM).then_some(())?;
                let events = words.next()?.parse().ok()?;
                let size = words.next()?.parse().ok()?;
                Some(FastStream { events, size })
            }
            _ => None,
        })
    }
}

/// Sends the fast stream's updates, then `completed`, through `frame`.
pub(crate) async fn pump(
    task: &Task,
    version: ProtocolVersion,
    fast: FastStream,
    frame: impl Fn(Value) -> Bytes,
    tx: &mpsc::Sender<Bytes>,
) {
    let update = |text: String, last_chunk: bool| Event::Artifact {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        artifact: Artifact {
            artifact_id: "fast".into(),
            name: "fast".into(),
            parts: vec![Part::text(text)],
        },
        append: true,
        last_chunk,
    };
    // Pad the text so the whole frame is about `size` bytes.
    let overhead = frame(model::event_json(&update(String::new(), false), version)).len();
    let text = "x".repeat(fast.size.saturating_sub(overhead).max(1));
    let one = frame(model::event_json(&update(text, false), version));
    // Frames go out in blocks of about 64 KiB, built once: a write per
    // frame would make the mock, not the client, the bottleneck.
    let per_block = (BLOCK_BYTES / one.len().max(1)).max(1) as u64;
    let block = Bytes::from(one.repeat(per_block as usize));
    let mut left = fast.events;
    while left > 0 {
        let (chunk, sent) = if left >= per_block {
            (block.clone(), per_block)
        } else {
            (Bytes::from(one.repeat(left as usize)), left)
        };
        if tx.send(chunk).await.is_err() {
            return;
        }
        left -= sent;
    }
    let done = Event::Status {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: Status::now(TaskState::Completed, None),
    };
    let _ = tx.send(frame(model::event_json(&done, version))).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_is_read_from_the_first_message() {
        let mut task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: Status::now(TaskState::Working, None),
            history: vec![],
            artifacts: vec![],
            generation: 1,
        };
        assert_eq!(FastStream::requested(&task), None);
        let mut message = model::Message::agent(&task, "fast-stream 10 1024");
        task.history.push(message.clone());
        assert_eq!(
            FastStream::requested(&task),
            Some(FastStream {
                events: 10,
                size: 1024
            })
        );
        message.parts = vec![Part::text("hello")];
        task.history[0] = message;
        assert_eq!(FastStream::requested(&task), None);
    }
}
