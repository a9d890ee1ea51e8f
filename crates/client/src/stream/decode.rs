//! A stream frame's data read into an [`Event`], and the words evidence
//! uses for one. A frame of a common shape is read the fast way
//! ([`a2a_conform_protocol::wire::stream_event`]: typed, borrowing, only what the runner reads);
//! any other frame the lenient way, over a `serde_json::Value`, which
//! decides what an unusual frame means. Both read a common frame alike.

use super::super::jsonrpc::classify_envelope;
use super::super::reply::Reply;
use super::super::sse::SseItem;
use a2a_conform_protocol::{wire, Event, ProtocolVersion, RpcError};
use serde_json::Value;
use std::fmt::{self, Write};

/// A stream item once its JSON is read: a comment, or an event with its
/// evidence summary (`event #SEQ …`) and its data.
pub(super) enum Decoded {
    Comment(String),
    Event {
        /// Its number in the stream (its summary says it too).
        seq: usize,
        event: Event,
        summary: String,
        data: String,
    },
}

/// Reads a chunk's items; its first event is number `first_seq` of the stream.
pub(super) fn decode_items(
    items: Vec<SseItem>,
    first_seq: usize,
    version: ProtocolVersion,
    expect_id: Option<u64>,
) -> Vec<Decoded> {
    let mut seq = first_seq;
    items
        .into_iter()
        .map(|item| match item {
            SseItem::Comment(text) => Decoded::Comment(text),
            SseItem::Frame(frame) => {
                let event = decode_frame(version, expect_id, frame.event.as_deref(), &frame.data);
                let mut summary = String::with_capacity(64);
                // Writing into a String cannot fail.
                let _ = write!(summary, "event #{seq} ");
                let _ = write_description(&mut summary, &event);
                seq += 1;
                Decoded::Event {
                    seq: seq - 1,
                    event,
                    summary,
                    data: frame.data,
                }
            }
        })
        .collect()
}

/// Decodes one SSE data payload: a JSON-RPC envelope (JSON-RPC binding) or a
/// bare StreamResponse (REST), or an error object.
fn decode_frame(
    version: ProtocolVersion,
    expect_id: Option<u64>,
    event_name: Option<&str>,
    data: &str,
) -> Event {
    wire::stream_event(expect_id, event_name, data)
        .unwrap_or_else(|| lenient_frame(version, expect_id, event_name, data))
}

/// [`decode_frame`] over a `Value`: reads every frame, whatever its shape.
fn lenient_frame(
    version: ProtocolVersion,
    expect_id: Option<u64>,
    event_name: Option<&str>,
    data: &str,
) -> Event {
    let mut value: Value = match serde_json::from_str(data) {
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
        // The result is read in place: the envelope is judged with a null
        // standing in for it, so a large result is never copied.
        let result = value
            .get_mut("result")
            .map(|r| std::mem::replace(r, Value::Null));
        return match classify_envelope(expect_id, &value) {
            Ok(Reply::Ok(_)) => {
                Event::from_result(version, result.as_ref().unwrap_or(&Value::Null))
            }
            Ok(Reply::Err(error)) => Event::Error(error),
            Ok(_) => Event::Unrecognized {
                reason: "unexpected envelope".into(),
            },
            Err(e) => Event::Unrecognized {
                reason: e.to_string(),
            },
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
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = write_description(&mut text, event);
    text
}

/// Writes [`describe`]'s account of an event.
fn write_description(out: &mut impl Write, event: &Event) -> fmt::Result {
    // The 1.1 draft's generation, when the event carries one, right after
    // its kind: a gap or repeat reads down the evidence's event lines.
    let generation = match event.generation() {
        Some(g) => format!(" generation={g}"),
        None => String::new(),
    };
    match event {
        Event::Task(task) => write!(out, "task{generation} {}", task.summary()),
        Event::Message { .. } => out.write_str("message"),
        Event::StatusUpdate {
            state, final_flag, ..
        } => write!(
            out,
            "status-update{generation} state={}{}",
            state.map(|s| s.as_str()).unwrap_or("?"),
            match final_flag {
                Some(true) => " final=true",
                _ => "",
            }
        ),
        Event::ArtifactUpdate {
            artifact_id,
            append,
            last_chunk,
            ..
        } => write!(
            out,
            "artifact-update{generation} artifactId={}{}{}",
            artifact_id.as_deref().unwrap_or("?"),
            if *append { " append" } else { "" },
            if *last_chunk { " lastChunk" } else { "" }
        ),
        Event::Error(e) => write!(out, "error {} {}", e.code, e.message),
        Event::Unrecognized { reason } => write!(out, "unrecognized: {reason}"),
    }
}

#[cfg(test)]
mod tests;
