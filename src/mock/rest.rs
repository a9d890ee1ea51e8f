//! The v1.0 HTTP+JSON (REST) binding under `/a2a/rest` (v1 §11.3). axum
//! cannot route `/tasks/{id}:cancel`, so one catch-all handler splits the
//! path itself. Errors are google.rpc.Status bodies with an ErrorInfo.

use super::declared::{self, Refusal};
use super::error::A2aError;
use super::jsonrpc::{check_version, MAX_BODY};
use super::published::REST_PATH;
use super::service::{self, Reply};
use super::shared::Shared;
use super::sse::{self, Framing};
use crate::protocol::{codes, Operation};
use axum::body::{to_bytes, Body};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The REST content type (v1 §11: SHOULD).
const CONTENT_TYPE: &str = "application/a2a+json";

pub(crate) async fn handle(
    State(peer): State<Arc<Shared>>,
    Path(rest): Path<String>,
    method: Method,
    headers: HeaderMap,
    uri: Uri,
    body: Body,
) -> Response {
    match serve(&peer, &rest, &method, &headers, &uri, body).await {
        Ok(response) => response,
        Err(error) => error_response(&error),
    }
}

async fn serve(
    peer: &Arc<Shared>,
    rest: &str,
    method: &Method,
    headers: &HeaderMap,
    uri: &Uri,
    body: Body,
) -> Result<Response, A2aError> {
    let (op, mut params) = route(rest, method)?;
    if peer.behaviour.negotiates_version() {
        check_version(headers, uri)?;
    }
    match declared::admit(peer, op, headers) {
        Ok(()) => {}
        Err(Refusal::Unauthorized(response)) => return Ok(*response),
        Err(Refusal::Error(error)) => return Err(error),
    }
    for (key, value) in url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes()) {
        if !key.eq_ignore_ascii_case("A2A-Version") {
            params
                .entry(key.into_owned())
                .or_insert(Value::String(value.into_owned()));
        }
    }
    if *method == Method::POST {
        let bytes = to_bytes(body, MAX_BODY).await.map_err(|_| {
            A2aError::new(
                codes::INVALID_REQUEST,
                format!("request body larger than {MAX_BODY} bytes"),
            )
        })?;
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            match serde_json::from_slice::<Value>(&bytes) {
                Ok(Value::Object(obj)) => {
                    for (key, value) in obj {
                        params.entry(key).or_insert(value);
                    }
                }
                Ok(_) => return Err(A2aError::invalid_params("the body must be a JSON object")),
                Err(e) => {
                    return Err(A2aError::new(
                        codes::PARSE_ERROR,
                        format!("invalid JSON: {e}"),
                    ))
                }
            }
        }
    }
    Ok(match service::call(peer, op, &params).await? {
        Reply::Json(value) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
            value.to_string(),
        )
            .into_response(),
        Reply::Stream { opened, view } => sse::respond(peer, opened, view, Framing::Rest),
    })
}

/// Maps a path below `/a2a/rest/` and a verb to an operation and the
/// parameters the path carries. A leading tenant segment is skipped.
fn route(rest: &str, method: &Method) -> Result<(Operation, Map<String, Value>), A2aError> {
    let segments: Vec<&str> = rest.trim_matches('/').split('/').collect();
    let known = |s: &str| s.starts_with("message:") || s == "tasks" || s == "extendedAgentCard";
    let segments = match segments.as_slice() {
        [first, tail @ ..] if !known(first) && tail.first().is_some_and(|s| known(s)) => tail,
        all => all,
    };
    let mut params = Map::new();
    let mut with_id = |key: &str, id: &str| {
        params.insert(key.into(), Value::String(id.to_string()));
    };
    let get = *method == Method::GET;
    let post = *method == Method::POST;
    let op = match segments {
        ["message:send"] if post => Operation::SendMessage,
        ["message:stream"] if post => Operation::SendStreamingMessage,
        ["tasks"] if get => Operation::ListTasks,
        ["extendedAgentCard"] if get => Operation::GetExtendedCard,
        ["tasks", task, "pushNotificationConfigs"] => {
            with_id("taskId", task);
            match *method {
                Method::POST => Operation::CreatePushConfig,
                Method::GET => Operation::ListPushConfigs,
                _ => return Err(not_allowed(method, rest)),
            }
        }
        ["tasks", task, "pushNotificationConfigs", config] => {
            with_id("taskId", task);
            with_id("id", config);
            match *method {
                Method::GET => Operation::GetPushConfig,
                Method::DELETE => Operation::DeletePushConfig,
                _ => return Err(not_allowed(method, rest)),
            }
        }
        ["tasks", task] => match task.rsplit_once(':') {
            Some((id, "cancel")) if post => {
                with_id("id", id);
                Operation::CancelTask
            }
            Some((id, "subscribe")) if post || get => {
                with_id("id", id);
                Operation::SubscribeToTask
            }
            None if get => {
                with_id("id", task);
                Operation::GetTask
            }
            Some((_, "cancel" | "subscribe")) | None => return Err(not_allowed(method, rest)),
            Some(_) => return Err(not_found(rest)),
        },
        ["message:send" | "message:stream"] | ["tasks"] | ["extendedAgentCard"] => {
            return Err(not_allowed(method, rest))
        }
        _ => return Err(not_found(rest)),
    };
    Ok((op, params))
}

fn not_found(rest: &str) -> A2aError {
    A2aError::new(
        codes::METHOD_NOT_FOUND,
        format!("no operation at `{REST_PATH}/{rest}`"),
    )
}

/// Not an A2A code: marks a known path called with the wrong verb (HTTP 405).
const WRONG_VERB: i64 = 0;

fn not_allowed(method: &Method, rest: &str) -> A2aError {
    A2aError::new(
        WRONG_VERB,
        format!("{method} is not allowed on `{REST_PATH}/{rest}`"),
    )
}

/// A google.rpc.Status body with the HTTP status of v1 §5.4.
fn error_response(error: &A2aError) -> Response {
    let (mut http, _) = error.http_status();
    let mut body = error.rest_body();
    if error.code == WRONG_VERB {
        http = StatusCode::METHOD_NOT_ALLOWED;
        body["error"]["code"] = Value::from(405);
        body["error"]["status"] = Value::from("UNIMPLEMENTED");
    }
    (
        http,
        [(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE))],
        body.to_string(),
    )
        .into_response()
}
