//! gRPC for a replay: recorded gRPC exchanges served on the replay's one
//! port (HTTP/2 cleartext, prior knowledge), next to its HTTP bindings.
//!
//! A request's length-prefixed protobuf message is read back into the
//! ProtoJSON the client recorded for it (the client crate's own proto types,
//! [`a2a_conform_client::decode_grpc_request`]), so the replay matches it as
//! it matches a JSON body. A recorded answer goes back as the method's
//! protobuf response with `grpc-status: 0` in the trailers; a recorded error
//! as its status, message and ErrorInfo reason; a stream's messages at
//! their recorded offsets, then the recorded end. A miss is UNIMPLEMENTED,
//! marked with the miss header (the client reads the mark, on loopback
//! only, as the recording's gap).
//!
//! The recording keeps what the client saw: an error's code, message and
//! ErrorInfo reason (not its domain or metadata, sent as A2A's domain), a
//! stream's messages (not how the peer split them into HTTP/2 frames).

use crate::model::Entry;
use crate::recorded::{clipped, swapped, Pace};
use a2a_conform_client::{encode_grpc_answer, grpc_status_headers, GrpcWireError};
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::StreamExt;
use http_body::Frame;
use serde_json::{json, Value};
use std::time::Duration;

/// The most bytes of one request message the replay reads (a frame
/// announcing more is refused before it is read).
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The 5 bytes before each message: a compression flag and the length.
const PREFIX: usize = 5;

/// Why an incoming gRPC request cannot be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FrameError {
    /// The body ended before its message did (or held none).
    #[error("the gRPC request is cut: {0} bytes, not one length-prefixed message")]
    Truncated(usize),
    /// The message is compressed: the replay accepts no encoding.
    #[error("the gRPC request is compressed; a replay reads uncompressed messages only")]
    Compressed,
    /// The frame announces more than the cap.
    #[error("the gRPC request message is over the replay's cap ({0} bytes)")]
    TooLarge(usize),
    /// Bytes follow the one message of a unary or server-streaming call.
    #[error("the gRPC request holds more than one message")]
    Trailing,
    /// The message is not the method's request.
    #[error(transparent)]
    Wire(#[from] GrpcWireError),
}

/// Why a recorded gRPC answer cannot be served (the request is then a miss).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unservable {
    /// The recording clipped it to the evidence cap.
    #[error(
        "the recording clipped this answer (a report's evidence cap), so it cannot be served whole"
    )]
    Clipped,
    /// Its body is not JSON.
    #[error("the recorded answer is not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    /// Its JSON is not the method's response.
    #[error(transparent)]
    Wire(#[from] GrpcWireError),
}

/// Whether a request is gRPC (`application/grpc`, `application/grpc+proto`).
pub(crate) fn is_grpc(headers: &HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/grpc"))
}

/// The request message of a call to `path`, as the ProtoJSON the client
/// records: one uncompressed length-prefixed message, within the cap.
pub(crate) async fn read_request(path: &str, body: Body) -> Result<Value, FrameError> {
    let bytes = axum::body::to_bytes(body, MAX_MESSAGE_BYTES + PREFIX)
        .await
        .map_err(|_| FrameError::TooLarge(MAX_MESSAGE_BYTES))?;
    let message = one_message(&bytes)?;
    Ok(a2a_conform_client::decode_grpc_request(path, message)?)
}

/// The one message of a request body.
fn one_message(bytes: &[u8]) -> Result<&[u8], FrameError> {
    let (head, rest) = bytes
        .split_first_chunk::<PREFIX>()
        .ok_or(FrameError::Truncated(bytes.len()))?;
    if head[0] != 0 {
        return Err(FrameError::Compressed);
    }
    let length = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if length > MAX_MESSAGE_BYTES {
        return Err(FrameError::TooLarge(MAX_MESSAGE_BYTES));
    }
    match rest.len() {
        n if n < length => Err(FrameError::Truncated(bytes.len())),
        n if n > length => Err(FrameError::Trailing),
        _ => Ok(rest),
    }
}

/// One message as a gRPC frame (uncompressed).
fn frame(message: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(PREFIX + message.len());
    out.put_u8(0);
    out.put_u32(message.len() as u32);
    out.put_slice(message);
    out.freeze()
}

/// A miss: UNIMPLEMENTED with the miss mark, in a trailers-only answer
/// (the client reads the mark with the status).
pub(crate) fn miss(header: &'static str, mark: &'static str, message: &str) -> Response {
    let status = json!({"code": "UNIMPLEMENTED", "message": message, "reason": null});
    let mut response = trailers_only(&status);
    response
        .headers_mut()
        .insert(header, HeaderValue::from_static(mark));
    response
}

/// An answer that is only a status (an error, or a miss).
fn trailers_only(status: &Value) -> Response {
    let mut response = Response::new(Body::empty());
    let headers = response.headers_mut();
    headers.insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/grpc"),
    );
    match grpc_status_headers(status) {
        Ok(status) => headers.extend(status),
        // A recorded status that cannot be sent as one (a hostile cassette):
        // UNKNOWN, naming why, rather than a status the peer never sent.
        Err(e) => {
            let unknown = json!({"code": "UNKNOWN", "message": e.to_string(), "reason": null});
            if let Ok(status) = grpc_status_headers(&unknown) {
                headers.extend(status);
            }
        }
    }
    response
}

/// What the recorded answer of a gRPC call was.
pub(crate) enum Answer {
    /// `← gRPC OK`: one message.
    Ok,
    /// `← gRPC stream opened`.
    Stream,
    /// `← gRPC CODE …`: a status, its body `{code, message, reason}`.
    Status,
}

/// How a recorded gRPC answer reads (`None`: not a gRPC answer).
pub(crate) fn answer_kind(entry: &Entry) -> Option<Answer> {
    let rest = entry.summary.strip_prefix("← gRPC ")?;
    Some(if rest.starts_with("OK ") {
        Answer::Ok
    } else if rest.starts_with("stream opened") {
        Answer::Stream
    } else {
        Answer::Status
    })
}

/// The recorded body of an answer with this check's fresh values, as JSON;
/// why not, if the recording clipped it or it is not JSON.
fn recorded_json(entry: &Entry, swaps: &[(String, String)]) -> Result<Value, Unservable> {
    let body = entry.body.as_deref().unwrap_or("null");
    if clipped(body) {
        return Err(Unservable::Clipped);
    }
    Ok(serde_json::from_str(&swapped(body, swaps))?)
}

/// A recorded unary answer (a message or a status) to a call to `path`.
pub(crate) fn unary(
    path: &str,
    response: &Entry,
    swaps: &[(String, String)],
) -> Result<Response, Unservable> {
    let body = recorded_json(response, swaps)?;
    match answer_kind(response) {
        Some(Answer::Status) => Ok(trailers_only(&body)),
        _ => {
            let message = encode_grpc_answer(path, &body)?;
            let items = vec![
                (Duration::ZERO, Item::Data(frame(&message))),
                (Duration::ZERO, Item::Trailers(ok_trailers())),
            ];
            Ok(streamed(items))
        }
    }
}

/// One timed part of an answer's body.
enum Item {
    Data(Bytes),
    Trailers(HeaderMap),
    Break,
    Open,
}

fn ok_trailers() -> HeaderMap {
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static("0"));
    trailers
}

/// A recorded stream: every message of `events` at its offset from
/// `opened` (scaled by `pace`), then the recorded end. An error event ends
/// the stream with its status, as the peer's did.
pub(crate) fn stream(
    path: &str,
    opened: u64,
    events: &[Entry],
    end: Option<&Entry>,
    swaps: &[(String, String)],
    pace: Pace,
) -> Result<Response, Unservable> {
    let mut items = Vec::new();
    for event in events.iter().filter(|e| e.kind == "event") {
        let at = pace.delay(event.at_ms.saturating_sub(opened));
        let body = recorded_json(event, swaps)?;
        if let Some(error) = body.get("error") {
            items.push((at, Item::Trailers(error_trailers(error))));
            return Ok(streamed(items));
        }
        let message = encode_grpc_answer(path, &body)?;
        items.push((at, Item::Data(frame(&message))));
    }
    let last = items.last().map_or(Duration::ZERO, |(at, _)| *at);
    let ending = match end {
        Some(e) => {
            let at = pace.delay(e.at_ms.saturating_sub(opened)).max(last);
            (at, stream_end(&e.summary))
        }
        None => (last, Item::Open),
    };
    items.push(ending);
    Ok(streamed(items))
}

/// How a recorded stream ended, as the item that ends the replayed one.
fn stream_end(summary: &str) -> Item {
    if summary.contains("closed by the peer") {
        return Item::Trailers(ok_trailers());
    }
    // A status that was no A2A error (`the stream ended with gRPC CODE: …`).
    if let Some((code, message)) = summary
        .split_once("the stream ended with gRPC ")
        .and_then(|(_, rest)| rest.split_once(": "))
    {
        let status = json!({"code": code, "message": message, "reason": null});
        if let Ok(trailers) = grpc_status_headers(&status) {
            return Item::Trailers(trailers);
        }
    }
    if summary.contains("stream failed") {
        return Item::Break;
    }
    // Cut: still open when the tool stopped reading.
    Item::Open
}

/// The status of a recorded error event (`{code, message, data:
/// {grpcStatus, reason}}`, as the client turns an A2A error status ending
/// a stream into an event).
fn error_trailers(error: &Value) -> HeaderMap {
    let status = json!({
        "code": error["data"]["grpcStatus"].as_str().unwrap_or("UNKNOWN"),
        "message": error["message"].as_str().unwrap_or_default(),
        "reason": error["data"]["reason"],
    });
    grpc_status_headers(&status).unwrap_or_else(|_| {
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", HeaderValue::from_static("2"));
        trailers
    })
}

/// An answer whose body is `items`, each when due: messages, then the
/// trailers (or a break, or a stream that stays open).
fn streamed(items: Vec<(Duration, Item)>) -> Response {
    let started = tokio::time::Instant::now();
    let frames = futures_util::stream::iter(items).then(move |(at, item)| async move {
        tokio::time::sleep_until(started + at).await;
        match item {
            Item::Data(bytes) => Ok(Frame::data(bytes)),
            Item::Trailers(trailers) => Ok(Frame::trailers(trailers)),
            Item::Break => Err(std::io::Error::other("the recorded stream broke")),
            Item::Open => {
                std::future::pending::<()>().await;
                Err(std::io::Error::other("never"))
            }
        }
    });
    let mut response = Response::new(Body::new(http_body_util::StreamBody::new(frames)));
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/grpc"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_body_is_one_uncompressed_message_within_the_cap() {
        let good = frame(b"abc");
        assert_eq!(one_message(&good).unwrap(), b"abc");
        assert!(matches!(
            one_message(&good[..4]),
            Err(FrameError::Truncated(4))
        ));
        assert!(matches!(
            one_message(&good[..6]),
            Err(FrameError::Truncated(6))
        ));
        let mut compressed = good.to_vec();
        compressed[0] = 1;
        assert!(matches!(
            one_message(&compressed),
            Err(FrameError::Compressed)
        ));
        let mut two = good.to_vec();
        two.extend_from_slice(&good);
        assert!(matches!(one_message(&two), Err(FrameError::Trailing)));
        let huge = [0, 0xff, 0xff, 0xff, 0xff];
        assert!(matches!(one_message(&huge), Err(FrameError::TooLarge(_))));
    }

    #[test]
    fn recorded_stream_ends_become_trailers_breaks_or_an_open_stream() {
        assert!(
            matches!(stream_end("stream closed by the peer"), Item::Trailers(t)
            if t.get("grpc-status").is_some_and(|v| v == "0"))
        );
        assert!(matches!(
            stream_end("stream failed: the stream ended with gRPC INTERNAL: boom"),
            Item::Trailers(t) if t.get("grpc-status").is_some_and(|v| v == "13")
        ));
        assert!(matches!(
            stream_end("stream failed: the connection broke: reset"),
            Item::Break
        ));
        assert!(matches!(
            stream_end("stream cut: the stream was still open after 10 s"),
            Item::Open
        ));
    }
}
