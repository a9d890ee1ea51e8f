//! The HTTP+JSON (REST) binding under `/a2a/rest`: v1.0's routes (v1 §11.3),
//! or v0.3's under `/v1` with the 0.3 proto's JSON (`GET /v1/card` for the
//! extended card). axum cannot route `/tasks/{id}:cancel`, so one catch-all
//! handler splits the path itself. Errors are google.rpc.Status bodies with
//! an ErrorInfo, in both versions (as the official SDKs answer).

use super::declared::{self, Refusal};
use super::error::A2aError;
use super::jsonrpc::{check_version, MAX_BODY};
use super::published::REST_PATH;
use super::service::{self, Reply};
use super::shared::Shared;
use super::sse::{self, Framing};
use a2a_conform_protocol::v0_3::proto;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion};
use axum::body::{to_bytes, Body};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The REST content type (v1 §11: SHOULD); v0.3 used plain JSON.
fn content_type(version: ProtocolVersion) -> HeaderValue {
    HeaderValue::from_static(match version {
        ProtocolVersion::V1_0 => "application/a2a+json",
        ProtocolVersion::V0_3 => "application/json",
    })
}

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
        Err(error) => error_response(&error, peer.protocol),
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
    let version = peer.protocol;
    let (op, mut params) = match version {
        ProtocolVersion::V1_0 => route(rest, method)?,
        ProtocolVersion::V0_3 => route_v0_3(rest, method)?,
    };
    if version == ProtocolVersion::V1_0 && peer.behaviour.negotiates_version() {
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
    if version == ProtocolVersion::V0_3 {
        // The 0.3 proto names the inline push config `pushNotification`.
        if let Some(Value::Object(config)) = params.get_mut("configuration") {
            if let Some(push) = config.remove("pushNotification") {
                config.insert("pushNotificationConfig".into(), push);
            }
        }
    }
    if let Some(crash) = super::stale::crash_on_unknown_task(peer, op, &params) {
        return Ok(crash);
    }
    let answer = service::call(peer, op, &params, peer.draft).await;
    let answer = answer.map_err(|e| disagree(peer, op, e));
    Ok(match answer? {
        Reply::Json(value) => {
            let value = match version {
                ProtocolVersion::V1_0 => value,
                ProtocolVersion::V0_3 => proto_result(op, &value),
            };
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, content_type(version))],
                value.to_string(),
            )
                .into_response()
        }
        Reply::Stream { opened, view } => {
            let framing = match version {
                ProtocolVersion::V1_0 => Framing::Rest,
                ProtocolVersion::V0_3 => Framing::RestV0_3,
            };
            sse::respond(peer, opened, view, framing)
        }
    })
}

/// The `binding-disagrees*` behaviours: this binding alone answers an
/// error with another A2A code than the other bindings, so the bindings'
/// answers differ in their code (TaskNotFound on GetTask becomes
/// InvalidParams; InvalidParams on a send, ContentTypeNotSupported;
/// PushNotificationNotSupported, UnsupportedOperation).
fn disagree(peer: &Shared, op: Operation, e: A2aError) -> A2aError {
    let b = peer.behaviour;
    let send = matches!(op, Operation::SendMessage | Operation::SendStreamingMessage);
    match e.code {
        codes::TASK_NOT_FOUND if op == Operation::GetTask && b.rest_disagrees_on_unknown_task() => {
            A2aError::new(codes::INVALID_PARAMS, "invalid task id")
        }
        codes::INVALID_PARAMS if send && b.rest_disagrees_on_invalid_params() => A2aError::new(
            codes::CONTENT_TYPE_NOT_SUPPORTED,
            format!("content type not supported: {}", e.message),
        ),
        codes::PUSH_NOT_SUPPORTED if b.rest_disagrees_on_unsupported() => {
            A2aError::new(codes::UNSUPPORTED_OPERATION, e.message)
        }
        _ => e,
    }
}

/// A 0.3 result in the 0.3 proto's JSON: SendMessageResponse, Task,
/// TaskPushNotificationConfig, ListTaskPushNotificationConfigResponse, Empty.
pub(crate) fn proto_result(op: Operation, value: &Value) -> Value {
    match op {
        Operation::SendMessage => proto::wrapped(value),
        Operation::GetTask | Operation::CancelTask => proto::task(value),
        Operation::CreatePushConfig | Operation::GetPushConfig => proto::push_config_result(value),
        Operation::ListPushConfigs => {
            let configs: Vec<Value> = value
                .as_array()
                .map(|list| list.iter().map(proto::push_config_result).collect())
                .unwrap_or_default();
            serde_json::json!({ "configs": configs })
        }
        Operation::DeletePushConfig => serde_json::json!({}),
        _ => value.clone(),
    }
}

/// The 0.3 routes: the 1.0 ones under `v1/`, the extended card at
/// `v1/card`, no ListTasks, and 0.3 JSON-RPC's names for the ids.
fn route_v0_3(rest: &str, method: &Method) -> Result<(Operation, Map<String, Value>), A2aError> {
    let Some(below) = rest.trim_start_matches('/').strip_prefix("v1/") else {
        return Err(not_found(rest));
    };
    if below == "card" {
        return match *method {
            Method::GET => Ok((Operation::GetExtendedCard, Map::new())),
            _ => Err(not_allowed(method, rest)),
        };
    }
    if below.starts_with("extendedAgentCard") || below.trim_end_matches('/') == "tasks" {
        return Err(not_found(rest));
    }
    let (op, mut params) = route(below, method)?;
    if matches!(op, Operation::GetPushConfig | Operation::DeletePushConfig) {
        if let Some(config) = params.remove("id") {
            params.insert("pushNotificationConfigId".into(), config);
        }
    }
    Ok((op, params))
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
fn error_response(error: &A2aError, version: ProtocolVersion) -> Response {
    let (mut http, _) = error.http_status();
    let mut body = error.rest_body();
    if error.code == WRONG_VERB {
        http = StatusCode::METHOD_NOT_ALLOWED;
        body["error"]["code"] = Value::from(405);
        body["error"]["status"] = Value::from("UNIMPLEMENTED");
    }
    (
        http,
        [(header::CONTENT_TYPE, content_type(version))],
        body.to_string(),
    )
        .into_response()
}
