//! The JSON-RPC 2.0 binding at `POST /a2a/jsonrpc`: envelope checks, the v1.0
//! `A2A-Version` check, method lookup through `protocol`, and framing of
//! results, errors and SSE streams.

use super::declared::{self, Refusal};
use super::error::{jsonrpc_error_response, jsonrpc_result, A2aError};
use super::service::{self, Reply};
use super::shared::Shared;
use super::sse::{self, Framing};
use a2a_conform_protocol::{codes, ProtocolVersion};
use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The largest request body accepted.
pub(crate) const MAX_BODY: usize = 1024 * 1024;
/// The version header (v1 §3.6), also accepted as a query parameter.
pub(crate) const VERSION_HEADER: &str = "A2A-Version";

pub(crate) async fn handle(
    State(peer): State<Arc<Shared>>,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    let version = peer.protocol;
    let fail = |status: StatusCode, id: &Value, error: A2aError| {
        json_response(status, jsonrpc_error_response(id, &error, version))
    };
    let Ok(bytes) = to_bytes(body, MAX_BODY).await else {
        let error = A2aError::new(
            codes::INVALID_REQUEST,
            format!("request body larger than {MAX_BODY} bytes"),
        );
        return fail(StatusCode::PAYLOAD_TOO_LARGE, &Value::Null, error);
    };
    let request: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            let error = A2aError::new(codes::PARSE_ERROR, format!("invalid JSON: {e}"));
            return fail(StatusCode::OK, &Value::Null, error);
        }
    };
    let envelope = match Envelope::read(request) {
        Ok(envelope) => envelope,
        Err((id, error)) => return fail(StatusCode::OK, &id, error),
    };
    let id = envelope.id;
    if version == ProtocolVersion::V1_0 && peer.behaviour.negotiates_version() {
        if let Err(error) = check_version(&headers, &uri) {
            return fail(StatusCode::OK, &id, error);
        }
    }
    let Some(op) = version.operation(&envelope.method) else {
        let error = A2aError::new(
            codes::METHOD_NOT_FOUND,
            format!(
                "method `{}` does not exist in A2A {version}",
                envelope.method
            ),
        );
        return fail(StatusCode::OK, &id, error);
    };
    match declared::admit(&peer, op, &headers) {
        Ok(()) => {}
        Err(Refusal::Unauthorized(response)) => return *response,
        Err(Refusal::Error(error)) => return fail(StatusCode::OK, &id, error),
    }
    if let Some(crash) = super::stale::crash_on_unknown_task(&peer, op, &envelope.params) {
        return crash;
    }
    match service::call(&peer, op, &envelope.params, peer.draft).await {
        Ok(Reply::Json(result)) => json_response(StatusCode::OK, jsonrpc_result(&id, result)),
        Ok(Reply::Stream { opened, view }) => {
            sse::respond(&peer, opened, view, Framing::JsonRpc { id })
        }
        // Errors found before the first event are plain JSON, not SSE.
        Err(error) => fail(StatusCode::OK, &id, error),
    }
}

/// A checked JSON-RPC request.
struct Envelope {
    id: Value,
    method: String,
    params: Map<String, Value>,
}

impl Envelope {
    /// Checks the envelope; an error carries the id to echo (null if unusable).
    fn read(request: Value) -> Result<Envelope, (Value, A2aError)> {
        let invalid = |id: Value, why: &str| Err((id, A2aError::new(codes::INVALID_REQUEST, why)));
        let Value::Object(mut obj) = request else {
            return invalid(
                Value::Null,
                "a request must be a JSON object (batches are not supported)",
            );
        };
        let id = match obj.remove("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id,
            Some(Value::Null) | None => {
                return invalid(
                    Value::Null,
                    "`id` is required (notifications are not supported)",
                )
            }
            Some(_) => return invalid(Value::Null, "`id` must be a string or a number"),
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return invalid(id, "`jsonrpc` must be \"2.0\"");
        }
        let Some(method) = obj
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return invalid(id, "`method` must be a string");
        };
        let params = match obj.remove("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(p)) => p,
            Some(Value::Array(_)) => {
                let error = A2aError::invalid_params("`params` must be an object, not an array");
                return Err((id, error));
            }
            Some(_) => return invalid(id, "`params` must be an object"),
        };
        Ok(Envelope { id, method, params })
    }
}

/// v1.0 requires `A2A-Version: 1.0`; a missing or empty value means 0.3
/// (v1 §3.6.2), which this peer does not speak: -32009 either way.
pub(crate) fn check_version(headers: &HeaderMap, uri: &Uri) -> Result<(), A2aError> {
    let from_header = headers
        .get(VERSION_HEADER)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string());
    let from_query = || {
        url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
            .find(|(k, _)| k.eq_ignore_ascii_case(VERSION_HEADER))
            .map(|(_, v)| v.trim().to_string())
    };
    let requested = from_header
        .filter(|v| !v.is_empty())
        .or_else(from_query)
        .filter(|v| !v.is_empty());
    match requested {
        Some(v) if ProtocolVersion::from_declared(&v) == Some(ProtocolVersion::V1_0) => Ok(()),
        Some(v) => Err(A2aError::new(
            codes::VERSION_NOT_SUPPORTED,
            format!("A2A-Version `{v}` is not supported; this peer speaks 1.0"),
        )),
        None => Err(A2aError::new(
            codes::VERSION_NOT_SUPPORTED,
            "no A2A-Version header: the request is read as 0.3, which this peer does not \
             speak; send `A2A-Version: 1.0`",
        )),
    }
}

pub(crate) fn json_response(status: StatusCode, body: Value) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body.to_string(),
    )
        .into_response()
}
