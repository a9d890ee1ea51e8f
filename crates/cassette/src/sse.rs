//! A recorded SSE stream served again: its events and keep-alive comments
//! at their recorded offsets (scaled by the pace), then the recorded end
//! (closed, broken, or still open).

use crate::matching::with_id;
use crate::model::Entry;
use crate::recorded::{swapped, Pace};
use axum::body::Body;
use axum::http::HeaderValue;
use axum::response::Response;
use futures_util::StreamExt;
use serde_json::Value;
use std::time::Duration;

/// One recorded stream item as SSE bytes, when it is due.
fn sse_item(entry: &Entry, swaps: &[(String, String)], incoming: Option<&Value>) -> Option<String> {
    match entry.kind.as_str() {
        "event" => {
            let data = with_id(
                swapped(entry.body.as_deref().unwrap_or_default(), swaps),
                incoming,
            );
            let lines: String = data.lines().map(|l| format!("data: {l}\n")).collect();
            Some(lines + "\n")
        }
        "comment" => {
            let text = entry
                .summary
                .strip_prefix("SSE comment `:")
                .and_then(|t| t.rsplit_once("` (not a protocol event)"))
                .map(|(t, _)| t)
                .unwrap_or("");
            Some(format!(":{text}\n\n"))
        }
        _ => None,
    }
}

/// A recorded event stream (its events and how it ended) from `opened`,
/// each event at its offset scaled by `pace`.
pub(crate) fn stream(
    opened: u64,
    (events, end): (&[Entry], Option<&Entry>),
    incoming: Option<&Value>,
    swaps: &[(String, String)],
    pace: Pace,
) -> Response {
    let mut timed: Vec<(Duration, Option<String>)> = events
        .iter()
        .filter_map(|e| {
            let item = sse_item(e, swaps, incoming)?;
            Some((pace.delay(e.at_ms.saturating_sub(opened)), Some(item)))
        })
        .collect();
    // How it ended: closed by the peer (the body ends), broken (the body
    // fails), or still open when the tool stopped reading (it stays open).
    let end = end.map(|e| {
        let at = pace.delay(e.at_ms.saturating_sub(opened));
        (
            at,
            e.summary.contains("closed by the peer"),
            e.summary.contains("connection broke"),
        )
    });
    let ending = match end {
        Some((at, true, _)) => Ending::Close(at),
        Some((at, _, true)) => Ending::Break(at),
        _ => Ending::Open,
    };
    timed.sort_by_key(|(at, _)| *at);
    let started = tokio::time::Instant::now();
    let events = futures_util::stream::iter(timed).then(move |(at, item)| async move {
        tokio::time::sleep_until(started + at).await;
        Ok::<bytes::Bytes, std::io::Error>(bytes::Bytes::from(item.unwrap_or_default()))
    });
    let tail = futures_util::stream::once(async move {
        match ending {
            Ending::Close(at) => {
                tokio::time::sleep_until(started + at).await;
                Ok(bytes::Bytes::new())
            }
            Ending::Break(at) => {
                tokio::time::sleep_until(started + at).await;
                Err(std::io::Error::other("the recorded stream broke"))
            }
            Ending::Open => {
                std::future::pending::<()>().await;
                Ok(bytes::Bytes::new())
            }
        }
    });
    let mut response = Response::new(Body::from_stream(events.chain(tail)));
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

#[derive(Clone, Copy)]
enum Ending {
    Close(Duration),
    Break(Duration),
    Open,
}
