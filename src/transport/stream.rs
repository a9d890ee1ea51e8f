//! An open SSE stream read in the background: every event is parsed, timed
//! and recorded as it arrives, so steps can ask "what arrived, and when?"
//! without racing the socket. Reading is bounded in time, bytes and events.

use super::http::describe_reqwest_error;
use super::jsonrpc::classify_envelope;
use super::limits::{MAX_SSE_EVENT_BYTES, MAX_STREAM_BYTES, MAX_STREAM_EVENTS, RECORDED_COMMENTS};
use super::reply::Reply;
use super::sse::{SseItem, SseParser};
use super::text::human_duration;
use super::transcript::Transcript;
use crate::protocol::{Event, ProtocolVersion, RpcError};
use crate::report::transcript::EvidenceKind;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// One protocol event with its arrival time.
#[derive(Debug, Clone)]
pub struct StreamItem {
    pub at: Instant,
    /// 1-based position among the stream's protocol events.
    pub seq: usize,
    pub event: Event,
}

/// How a stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEnd {
    /// The peer closed the connection.
    Closed { at: Instant },
    /// The tool stopped reading: a cap was reached.
    Cut { at: Instant, reason: String },
    /// The connection failed or the bytes were not a valid event stream.
    Failed { at: Instant, reason: String },
}

impl StreamEnd {
    pub fn at(&self) -> Instant {
        match self {
            StreamEnd::Closed { at } | StreamEnd::Cut { at, .. } | StreamEnd::Failed { at, .. } => {
                *at
            }
        }
    }
}

#[derive(Default)]
struct Shared {
    items: Vec<StreamItem>,
    /// Comment lines seen, and their bytes: counted, only the first
    /// [`RECORDED_COMMENTS`] recorded one by one.
    comments: usize,
    comment_bytes: u64,
    end: Option<StreamEnd>,
}

/// A handle on a stream being read in the background. Dropping it stops the reader.
pub struct StreamHandle {
    shared: Arc<Mutex<Shared>>,
    changes: watch::Receiver<u64>,
    reader: tokio::task::JoinHandle<()>,
    pub opened_at: Instant,
}

impl Drop for StreamHandle {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl StreamHandle {
    pub(super) fn spawn(
        response: reqwest::Response,
        transcript: Arc<Transcript>,
        version: ProtocolVersion,
        expect_id: Option<u64>,
        max_duration: Duration,
    ) -> StreamHandle {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (tx, rx) = watch::channel(0u64);
        let reader = Reader {
            transcript,
            version,
            expect_id,
            shared: shared.clone(),
            changes: tx,
        };
        let reader = tokio::spawn(read_stream(response, reader, max_duration));
        StreamHandle {
            shared,
            changes: rx,
            reader,
            opened_at: Instant::now(),
        }
    }

    /// The events so far and the end, if the stream has ended.
    pub fn snapshot(&self) -> (Vec<StreamItem>, Option<StreamEnd>) {
        let shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        (shared.items.clone(), shared.end.clone())
    }

    /// How many comment (keep-alive) lines arrived.
    pub fn comments(&self) -> usize {
        self.shared
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .comments
    }

    /// Waits until `ready` holds for the stream's state or `deadline` passes;
    /// returns whether it held. The check runs on every new event and at the end.
    pub async fn wait_until<F>(&self, deadline: Instant, mut ready: F) -> bool
    where
        F: FnMut(&[StreamItem], Option<&StreamEnd>) -> bool,
    {
        let mut changes = self.changes.clone();
        loop {
            {
                let shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
                if ready(&shared.items, shared.end.as_ref()) {
                    return true;
                }
                if shared.end.is_some() {
                    return false;
                }
            }
            let deadline = tokio::time::Instant::from_std(deadline);
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => continue,
                // The reader is gone: one last look, then give up.
                Ok(Err(_)) => {
                    let shared = self.shared.lock().unwrap_or_else(|p| p.into_inner());
                    return ready(&shared.items, shared.end.as_ref());
                }
                Err(_) => return false,
            }
        }
    }
}

/// What the background reader records into, besides the response it reads.
struct Reader {
    transcript: Arc<Transcript>,
    version: ProtocolVersion,
    expect_id: Option<u64>,
    shared: Arc<Mutex<Shared>>,
    changes: watch::Sender<u64>,
}

/// Reads the stream until it ends or a cap is reached, recording every
/// comment and event as it arrives and the end last.
async fn read_stream(mut response: reqwest::Response, reader: Reader, max_duration: Duration) {
    let mut parser = SseParser::new(MAX_SSE_EVENT_BYTES);
    let deadline = tokio::time::Instant::now() + max_duration;
    let mut counter = 0u64;
    let end = loop {
        let chunk = match next_chunk(&mut response, deadline, max_duration).await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => {
                if let Some(rest) = parser.finish() {
                    reader
                        .transcript
                        .note(format!("the stream ended inside an event: {rest}"));
                }
                break StreamEnd::Closed { at: Instant::now() };
            }
            Err(end) => break end,
        };
        let at = Instant::now();
        let items = match parser.feed(&chunk) {
            Ok(items) => items,
            Err(e) => {
                break StreamEnd::Failed {
                    at,
                    reason: e.to_string(),
                }
            }
        };
        if parser.bytes_seen() > MAX_STREAM_BYTES {
            break StreamEnd::Cut {
                at,
                reason: format!("the stream passed the {MAX_STREAM_BYTES}-byte cap"),
            };
        }
        let stop = reader.take(items, at);
        counter += 1;
        let _ = reader.changes.send(counter);
        if let Some(end) = stop {
            break end;
        }
    };
    reader.finish(end, counter + 1);
}

/// The next chunk of the body; `None` once the peer closed it, or how the
/// stream ended when the time cap passed or the connection broke.
async fn next_chunk(
    response: &mut reqwest::Response,
    deadline: tokio::time::Instant,
    max_duration: Duration,
) -> Result<Option<bytes::Bytes>, StreamEnd> {
    match tokio::time::timeout_at(deadline, response.chunk()).await {
        Err(_) => Err(StreamEnd::Cut {
            at: Instant::now(),
            reason: format!(
                "the stream was still open after {}; the tool stopped reading",
                human_duration(max_duration)
            ),
        }),
        Ok(Err(e)) => Err(StreamEnd::Failed {
            at: Instant::now(),
            reason: format!("the connection broke: {}", describe_reqwest_error(&e)),
        }),
        Ok(Ok(chunk)) => Ok(chunk),
    }
}

impl Reader {
    /// Records one chunk's comments and events; how the stream ends if the
    /// event cap was reached.
    fn take(&self, items: Vec<SseItem>, at: Instant) -> Option<StreamEnd> {
        let mut state = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        for item in items {
            match item {
                SseItem::Comment(text) => {
                    // A keep-alive flood must not become millions of entries:
                    // the first few are recorded, the rest counted.
                    state.comments += 1;
                    state.comment_bytes += text.len() as u64 + 1;
                    if state.comments <= RECORDED_COMMENTS {
                        self.transcript.record(
                            EvidenceKind::Comment,
                            at,
                            format!("SSE comment `:{text}` (not a protocol event)"),
                            None,
                            None,
                        );
                    }
                    if state.items.len() + state.comments >= MAX_STREAM_EVENTS {
                        return Some(comment_cap(at));
                    }
                }
                SseItem::Frame(frame) => {
                    let seq = state.items.len() + 1;
                    let event = decode_frame(
                        self.version,
                        self.expect_id,
                        frame.event.as_deref(),
                        &frame.data,
                    );
                    self.transcript.record(
                        EvidenceKind::Event,
                        at,
                        format!("event #{seq} {}", describe(&event)),
                        Some(frame.data.clone()),
                        None,
                    );
                    state.items.push(StreamItem { at, seq, event });
                    if state.comments > 0 && state.items.len() + state.comments >= MAX_STREAM_EVENTS
                    {
                        return Some(comment_cap(at));
                    }
                    if state.items.len() >= MAX_STREAM_EVENTS {
                        return Some(StreamEnd::Cut {
                            at,
                            reason: format!("the stream passed {MAX_STREAM_EVENTS} events"),
                        });
                    }
                }
            }
        }
        None
    }

    /// Records how the stream ended and wakes every waiter a last time.
    fn finish(&self, end: StreamEnd, counter: u64) {
        let (comments, comment_bytes) = {
            let state = self.shared.lock().unwrap_or_else(|p| p.into_inner());
            (state.comments, state.comment_bytes)
        };
        if comments > RECORDED_COMMENTS {
            self.transcript.note(format!(
                "{comments} keep-alive comments ({comment_bytes} bytes) in all: SSE comments, not events; the first {RECORDED_COMMENTS} are recorded, the rest counted"
            ));
        }
        let summary = match &end {
            StreamEnd::Closed { .. } => "stream closed by the peer".to_string(),
            StreamEnd::Cut { reason, .. } => format!("stream cut: {reason}"),
            StreamEnd::Failed { reason, .. } => format!("stream failed: {reason}"),
        };
        self.transcript
            .record(EvidenceKind::StreamEnd, end.at(), summary, None, None);
        self.shared.lock().unwrap_or_else(|p| p.into_inner()).end = Some(end);
        let _ = self.changes.send(counter);
    }
}

/// The cut when comments plus events reach the event cap: comments count
/// against it, so a keep-alive flood ends like an event flood.
fn comment_cap(at: Instant) -> StreamEnd {
    StreamEnd::Cut {
        at,
        reason: format!("the stream passed {MAX_STREAM_EVENTS} events and comments"),
    }
}

/// Decodes one SSE data payload: a JSON-RPC envelope (JSON-RPC binding) or a
/// bare StreamResponse (REST), or an error object.
fn decode_frame(
    version: ProtocolVersion,
    expect_id: Option<u64>,
    event_name: Option<&str>,
    data: &str,
) -> Event {
    let value: Value = match serde_json::from_str(data) {
        Ok(v) => v,
        Err(e) => {
            return Event::Unrecognized {
                reason: format!("event data is not JSON ({e})"),
            }
        }
    };
    let is_envelope = value.get("jsonrpc").is_some()
        || (expect_id.is_some() && (value.get("result").is_some() || value.get("error").is_some()));
    if is_envelope {
        return match classify_envelope(expect_id, &value) {
            Ok(Reply::Ok(result)) => Event::from_result(version, &result),
            Ok(Reply::Err(error)) => Event::Error(error),
            Ok(_) => Event::Unrecognized {
                reason: "unexpected envelope".into(),
            },
            Err(reason) => Event::Unrecognized { reason },
        };
    }
    if event_name == Some("error") || value.get("error").is_some() {
        let error = value.get("error").unwrap_or(&value);
        if let Some(error) = RpcError::from_json(error) {
            return Event::Error(error);
        }
    }
    Event::from_result(version, &value)
}

/// A one-line account of an event for evidence and messages.
pub fn describe(event: &Event) -> String {
    match event {
        Event::Task(task) => format!("task {}", task.summary()),
        Event::Message { .. } => "message".into(),
        Event::StatusUpdate {
            state, final_flag, ..
        } => format!(
            "status-update state={}{}",
            state.map(|s| s.as_str()).unwrap_or("?"),
            match final_flag {
                Some(true) => " final=true",
                _ => "",
            }
        ),
        Event::ArtifactUpdate {
            artifact,
            append,
            last_chunk,
            ..
        } => format!(
            "artifact-update artifactId={}{}{}",
            artifact.artifact_id.as_deref().unwrap_or("?"),
            if *append { " append" } else { "" },
            if *last_chunk { " lastChunk" } else { "" }
        ),
        Event::Error(e) => format!("error {} {}", e.code, e.message),
        Event::Unrecognized { reason } => format!("unrecognized: {reason}"),
    }
}
