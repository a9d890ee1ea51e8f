//! A streaming call refused *inside* the stream: HTTP 200 `text/event-stream`
//! whose only event is the JSON-RPC error (each SSE `data` is a JSON-RPC
//! response, and a response may be an error). Both official SDKs answer a
//! v0.3 resubscribe to a finished task this way. A scenario asking for the
//! error code must see it, and a peer that refuses an undeclared stream this
//! way refuses it; it does not over-deliver.

use crate::common::*;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::Json;
use serde_json::{json, Value};

/// A peer on loopback whose card declares no streaming, and whose JSON-RPC
/// endpoint refuses every streaming call with an SSE stream holding one
/// `-32004` error event (tagged `event: error` when `tagged`).
fn refusing_peer(version: &'static str, tagged: bool) -> Served {
    serve_at(|base| {
        let rpc = format!("{base}/rpc");
        let card = match version {
            "1.0" => json!({
                "name": "refuses inside the stream", "description": "test", "version": "1",
                "supportedInterfaces": [{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                "capabilities": {"streaming": false},
                "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}]
            }),
            _ => json!({
                "name": "refuses inside the stream", "description": "test", "version": "1",
                "url": rpc, "protocolVersion": "0.3.0", "preferredTransport": "JSONRPC",
                "capabilities": {"streaming": false},
                "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}]
            }),
        };
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(move || {
                    let card = card.clone();
                    async move { Json(card) }
                }),
            )
            .route(
                "/rpc",
                post(move |Json(request): Json<Value>| async move {
                    let error = json!({
                        "jsonrpc": "2.0",
                        "id": request["id"],
                        "error": {"code": -32004, "message": "Streaming is not supported"}
                    });
                    let event = if tagged { "event: error\n" } else { "" };
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        format!("{event}data: {error}\n\n"),
                    )
                        .into_response()
                }),
            )
    })
}

#[test]
fn a_stream_refused_inside_the_stream_is_a_refusal_not_an_over_delivery() {
    for (version, tagged) in [("1.0", true), ("0.3", false), ("0.3", true)] {
        let peer = refusing_peer(version, tagged);
        let out = check(
            &peer.base_url,
            &["--scenario", "streaming-refused-when-undeclared"],
        );
        let context = format!("v{version} tagged={tagged}: {}", out.explain());
        assert_eq!(
            out.report()["peers"][0]["protocol_version"],
            version,
            "{context}"
        );
        assert_eq!(
            out.scenario("streaming-refused-when-undeclared"),
            "pass",
            "{context}"
        );
        assert_eq!(
            out.declaration("capabilities.streaming"),
            "not-declared",
            "{context}"
        );
    }
}
