//! An open stream read in the background: every event is parsed, timed
//! and recorded as it arrives, so steps can ask "what arrived, and when?"
//! without racing the socket. Reading is bounded in time, bytes and events.
//! The source is an SSE body (JSON-RPC, HTTP+JSON) or a sequence of
//! already-framed messages (gRPC server streaming); both end up as the same
//! events.

use super::http::describe_reqwest_error;
use super::limits::{Limits, RECORDED_COMMENTS};
use super::sse::{SseFrame, SseItem, SseParser};
use super::stream_log::StreamLog;
use super::transcript::Transcript;
use crate::transcript::RecordKind;
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::ProtocolVersion;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;

mod decode;
pub use decode::describe;
use decode::{decode_items, Decoded};

/// How a stream ended.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEnd {
    /// The peer closed the connection.
    Closed {
        /// When the end was read.
        at: Instant,
    },
    /// The tool stopped reading: one of its caps was reached. The reason
    /// names the cap and the flag that raises it; never the peer's fault.
    Cut {
        /// When the reader stopped.
        at: Instant,
        /// Which cap, and its flag.
        reason: String,
    },
    /// The connection broke before the stream ended (a TCP reset, or the
    /// body cut off mid-chunk): a peer malfunction of its own kind. Nothing
    /// after the break was seen, so nothing the stream would have shown
    /// (quiet, its end) can be judged.
    Reset {
        /// When the break was read.
        at: Instant,
        /// What broke, as the transport said it.
        reason: String,
    },
    /// The stream failed otherwise (the binding reported a failure, or the
    /// bytes were not a valid event stream): a peer malfunction.
    Failed {
        /// When it failed.
        at: Instant,
        /// What went wrong.
        reason: String,
    },
}

impl StreamEnd {
    /// When the stream ended, whichever way.
    pub fn at(&self) -> Instant {
        match self {
            StreamEnd::Closed { at }
            | StreamEnd::Cut { at, .. }
            | StreamEnd::Reset { at, .. }
            | StreamEnd::Failed { at, .. } => *at,
        }
    }
}

#[derive(Default)]
struct Shared {
    items: StreamLog,
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
    /// When the stream's response arrived (its events are timed from the run's start).
    pub opened_at: Instant,
    /// When the request that opened the stream was sent: a window for its
    /// first event runs from here, so a peer silent before its status line
    /// is not given that silence for free. `opened_at` unless the opener
    /// knows better.
    pub sent_at: Instant,
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
        limits: Limits,
    ) -> StreamHandle {
        Self::start(transcript, version, expect_id, limits, |reader| {
            read_stream(response, reader, max_duration)
        })
    }

    /// A stream of messages the binding already framed (gRPC server
    /// streaming): each item is one StreamResponse as JSON text, or how the
    /// stream failed. Bounded like SSE: time, bytes and events.
    pub(super) fn spawn_messages<E: std::fmt::Display + Send + 'static>(
        messages: BoxStream<'static, Result<String, E>>,
        transcript: Arc<Transcript>,
        version: ProtocolVersion,
        max_duration: Duration,
        limits: Limits,
    ) -> StreamHandle {
        Self::start(transcript, version, None, limits, |reader| {
            read_messages(messages, reader, max_duration)
        })
    }

    fn start<F>(
        transcript: Arc<Transcript>,
        version: ProtocolVersion,
        expect_id: Option<u64>,
        limits: Limits,
        read: impl FnOnce(Reader) -> F,
    ) -> StreamHandle
    where
        F: std::future::Future<Output = ()> + Send + 'static,
    {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (tx, rx) = watch::channel(0u64);
        let reader = Reader {
            transcript,
            version,
            expect_id,
            limits,
            shared: shared.clone(),
            changes: tx,
        };
        let reader = tokio::spawn(read(reader));
        let opened_at = Instant::now();
        StreamHandle {
            shared,
            changes: rx,
            reader,
            opened_at,
            sent_at: opened_at,
        }
    }

    /// The events so far and the end, if the stream has ended. A copy of
    /// the log, whose size follows the stream's changes of shape and socket
    /// reads, not its events ([`StreamLog`]).
    pub fn snapshot(&self) -> (StreamLog, Option<StreamEnd>) {
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
        F: FnMut(&StreamLog, Option<&StreamEnd>) -> bool,
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
    limits: Limits,
    shared: Arc<Mutex<Shared>>,
    changes: watch::Sender<u64>,
}

/// How many chunks are decoded at once, ahead of the one being recorded.
const DECODE_AHEAD: usize = 2;

/// What the socket gave, in order: a chunk's items, or how the stream ended
/// (with a note on what was left undispatched, if anything).
enum Read {
    Items(Instant, Vec<SseItem>),
    End(StreamEnd, Option<String>),
}

/// Reads the stream until it ends or a cap is reached, recording every
/// comment and event as it arrives and the end last.
///
/// Parsing the events' JSON is most of the work on a fast stream, so it is
/// done off this task, [`DECODE_AHEAD`] chunks at a time, while the socket
/// is read on; the chunks are recorded strictly in the order they came.
async fn read_stream(response: reqwest::Response, reader: Reader, max_duration: Duration) {
    let limits = reader.limits;
    let (version, expect_id) = (reader.version, reader.expect_id);
    let deadline = tokio::time::Instant::now() + max_duration;
    let start = (Some(response), SseParser::new(limits.max_event_bytes));
    let reads = futures_util::stream::unfold(start, move |(response, mut parser)| async move {
        let mut response = response?;
        let read = next_read(&mut response, &mut parser, limits, deadline, max_duration).await;
        let response = matches!(read, Read::Items(..)).then_some(response);
        Some((read, (response, parser)))
    });
    // Events are numbered here, in the order the chunks came, so that each
    // decode can write its evidence summaries whole.
    let mut events = 0usize;
    let mut decoded = std::pin::pin!(reads
        .map(|read| {
            let first_seq = events + 1;
            if let Read::Items(_, items) = &read {
                events += items
                    .iter()
                    .filter(|i| matches!(i, SseItem::Frame(_)))
                    .count();
            }
            async move {
                match read {
                    Read::Items(at, items) => {
                        let decode = move || decode_items(items, first_seq, version, expect_id);
                        match tokio::task::spawn(async move { decode() }).await {
                            Ok(items) => Ok((at, items)),
                            Err(failed) => std::panic::resume_unwind(failed.into_panic()),
                        }
                    }
                    Read::End(end, note) => Err((end, note)),
                }
            }
        })
        .buffered(DECODE_AHEAD));
    let mut counter = 0u64;
    let end = loop {
        let (at, items) = match decoded.next().await {
            Some(Ok(chunk)) => chunk,
            Some(Err((end, note))) => {
                if let Some(note) = note {
                    reader.transcript.note(note);
                }
                break end;
            }
            None => break StreamEnd::Closed { at: Instant::now() },
        };
        let stop = reader.take(items, at);
        counter += 1;
        let _ = reader.changes.send(counter);
        if let Some(end) = stop {
            break end;
        }
    };
    reader.finish(end, counter + 1);
}

/// The next chunk's items, or how the stream ended.
async fn next_read(
    response: &mut reqwest::Response,
    parser: &mut SseParser,
    limits: Limits,
    deadline: tokio::time::Instant,
    max_duration: Duration,
) -> Read {
    let chunk = match next_chunk(response, deadline, max_duration).await {
        Ok(Some(chunk)) => chunk,
        Ok(None) => {
            let note = parser
                .finish()
                .map(|rest| format!("the stream ended inside an event: {rest}"));
            return Read::End(StreamEnd::Closed { at: Instant::now() }, note);
        }
        Err(end) => return Read::End(end, None),
    };
    let at = Instant::now();
    let items = match parser.feed(&chunk) {
        Ok(items) => items,
        // The only way the parser fails is an event past the size cap.
        Err(_) => {
            let reason = format!(
                "an event passed the tool's cap of {} bytes per event; raise it with --max-event-bytes",
                limits.max_event_bytes
            );
            return Read::End(StreamEnd::Cut { at, reason }, None);
        }
    };
    if parser.bytes_seen() > limits.max_stream_bytes {
        let reason = format!(
            "the tool's cap of {} stream bytes was reached; raise it with --max-stream-bytes",
            limits.max_stream_bytes
        );
        return Read::End(StreamEnd::Cut { at, reason }, None);
    }
    Read::Items(at, items)
}

/// Reads framed messages until the peer ends the stream or a cap is reached;
/// each message is recorded as the event an SSE `data:` line would be.
async fn read_messages<E: std::fmt::Display>(
    mut messages: BoxStream<'static, Result<String, E>>,
    reader: Reader,
    max_duration: Duration,
) {
    let deadline = tokio::time::Instant::now() + max_duration;
    let mut counter = 0u64;
    let mut bytes = 0u64;
    let end = loop {
        let data = match tokio::time::timeout_at(deadline, messages.next()).await {
            Err(_) => {
                break StreamEnd::Cut {
                    at: Instant::now(),
                    reason: format!(
                        "the stream was still open after {}; the tool stopped reading",
                        human_duration(max_duration)
                    ),
                }
            }
            Ok(None) => break StreamEnd::Closed { at: Instant::now() },
            Ok(Some(Err(failure))) => {
                break StreamEnd::Failed {
                    at: Instant::now(),
                    reason: failure.to_string(),
                }
            }
            Ok(Some(Ok(data))) => data,
        };
        let at = Instant::now();
        bytes += data.len() as u64;
        if bytes > reader.limits.max_stream_bytes {
            break StreamEnd::Cut {
                at,
                reason: format!(
                    "the tool's cap of {} stream bytes was reached; raise it with --max-stream-bytes",
                    reader.limits.max_stream_bytes
                ),
            };
        }
        let frame = SseFrame {
            event: None,
            data,
            id: None,
            retry: None,
        };
        let items = decode_items(
            vec![SseItem::Frame(frame)],
            counter as usize + 1,
            reader.version,
            None,
        );
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
                "the stream was still open after the tool's cap of {}; the tool stopped reading",
                human_duration(max_duration)
            ),
        }),
        Ok(Err(e)) => Err(StreamEnd::Reset {
            at: Instant::now(),
            reason: format!("the connection broke: {}", describe_reqwest_error(&e)),
        }),
        Ok(Ok(chunk)) => Ok(chunk),
    }
}

impl Reader {
    /// Records one chunk's comments and events; how the stream ends if the
    /// event cap was reached.
    fn take(&self, items: Vec<Decoded>, at: Instant) -> Option<StreamEnd> {
        let mut state = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        for item in items {
            match item {
                Decoded::Comment(text) => {
                    // A keep-alive flood must not become millions of entries:
                    // the first few are recorded, the rest counted.
                    state.comments += 1;
                    state.comment_bytes += text.len() as u64 + 1;
                    if state.comments <= RECORDED_COMMENTS {
                        self.transcript.record(
                            RecordKind::Comment,
                            at,
                            format!("SSE comment `:{text}` (not a protocol event)"),
                            None,
                            None,
                        );
                    }
                    if state.items.len() + state.comments >= self.limits.max_stream_events {
                        return Some(comment_cap(at, self.limits.max_stream_events));
                    }
                }
                Decoded::Event {
                    seq,
                    event,
                    summary,
                    data,
                } => {
                    debug_assert_eq!(seq, state.items.len() + 1, "events numbered in order");
                    self.transcript
                        .record(RecordKind::Event, at, summary, Some(data), None);
                    state.items.push(at, event);
                    if state.comments > 0
                        && state.items.len() + state.comments >= self.limits.max_stream_events
                    {
                        return Some(comment_cap(at, self.limits.max_stream_events));
                    }
                    if state.items.len() >= self.limits.max_stream_events {
                        return Some(StreamEnd::Cut {
                            at,
                            reason: format!(
                                "the tool's cap of {} events was reached; raise it with --max-stream-events",
                                self.limits.max_stream_events
                            ),
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
        let summary = match &end {
            StreamEnd::Closed { .. } => "stream closed by the peer".to_string(),
            StreamEnd::Cut { reason, .. } => format!("stream cut: {reason}"),
            StreamEnd::Reset { reason, .. } | StreamEnd::Failed { reason, .. } => {
                format!("stream failed: {reason}")
            }
        };
        self.transcript
            .record(RecordKind::StreamEnd, end.at(), summary, None, None);
        // Noted after the end is recorded: entries are ordered by time, and
        // a note taken first could tie with the (earlier) end and swap
        // places with it from run to run.
        if comments > RECORDED_COMMENTS {
            self.transcript.note(format!(
                "{comments} keep-alive comments ({comment_bytes} bytes) in all: SSE comments, not events; the first {RECORDED_COMMENTS} are recorded, the rest counted"
            ));
        }
        self.shared.lock().unwrap_or_else(|p| p.into_inner()).end = Some(end);
        let _ = self.changes.send(counter);
    }
}

/// The cut when comments plus events reach the event cap: comments count
/// against it, so a keep-alive flood ends like an event flood.
fn comment_cap(at: Instant, max: usize) -> StreamEnd {
    StreamEnd::Cut {
        at,
        reason: format!(
            "the tool's cap of {max} events (keep-alive comments included) was reached; raise it with --max-stream-events"
        ),
    }
}
