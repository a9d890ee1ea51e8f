//! The HTTP+JSON (REST) binding: operation → HTTP route, and REST error
//! bodies (`google.rpc.Status` with an ErrorInfo `reason`) → A2A error codes.
//! v1.0 routes sit at the interface URL (v1 §11.3); v0.3 routes carry a `/v1`
//! prefix, the extended card is `GET /v1/card`, and bodies are the 0.3
//! proto's JSON ([`a2a_conform_protocol::v0_3::proto`]).

use super::reply::Reply;
use a2a_conform_protocol::text::clip;
use a2a_conform_protocol::v0_3::proto;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, RpcError};
use serde_json::{json, Value};

/// One REST request.
#[derive(Debug)]
pub(crate) struct Route {
    pub method: reqwest::Method,
    pub url: url::Url,
    pub body: Option<Value>,
    pub label: String,
}

/// Maps an operation and its JSON-RPC-shaped params to a REST route: v1 §11.3
/// for 1.0, the `google.api.http` rules of the 0.3 `a2a.proto` for 0.3.
pub(crate) fn route(
    base: &url::Url,
    version: ProtocolVersion,
    op: Operation,
    params: &Value,
) -> Result<Route, RouteError> {
    match version {
        ProtocolVersion::V1_0 => route_v1_0(base, op, params),
        ProtocolVersion::V0_3 => route_v0_3(base, op, params),
    }
}

fn route_v1_0(base: &url::Url, op: Operation, params: &Value) -> Result<Route, RouteError> {
    use reqwest::Method;
    let task_id = || -> Result<String, RouteError> {
        params
            .get("id")
            .or_else(|| params.get("taskId"))
            .and_then(Value::as_str)
            .map(url_escape)
            .ok_or(RouteError::NoTaskId(op))
    };
    let (method, path, body) = match op {
        Operation::SendMessage => (
            Method::POST,
            "message:send".to_string(),
            Some(params.clone()),
        ),
        Operation::SendStreamingMessage => (
            Method::POST,
            "message:stream".to_string(),
            Some(params.clone()),
        ),
        Operation::GetTask => (Method::GET, format!("tasks/{}", task_id()?), None),
        Operation::ListTasks => (Method::GET, "tasks".to_string(), None),
        Operation::CancelTask => (
            Method::POST,
            format!("tasks/{}:cancel", task_id()?),
            Some(json!({})),
        ),
        Operation::SubscribeToTask => (
            Method::POST,
            format!("tasks/{}:subscribe", task_id()?),
            None,
        ),
        Operation::CreatePushConfig => (
            Method::POST,
            format!("tasks/{}/pushNotificationConfigs", task_id()?),
            Some(params.clone()),
        ),
        Operation::GetPushConfig | Operation::DeletePushConfig => {
            let config = params
                .get("id")
                .and_then(Value::as_str)
                .ok_or(RouteError::NoPushConfigId)?;
            let task = params
                .get("taskId")
                .and_then(Value::as_str)
                .ok_or(RouteError::NoPushConfigTaskId)?;
            let method = if op == Operation::GetPushConfig {
                Method::GET
            } else {
                Method::DELETE
            };
            (
                method,
                format!(
                    "tasks/{}/pushNotificationConfigs/{}",
                    url_escape(task),
                    url_escape(config)
                ),
                None,
            )
        }
        Operation::ListPushConfigs => (
            Method::GET,
            format!("tasks/{}/pushNotificationConfigs", task_id()?),
            None,
        ),
        Operation::GetExtendedCard => (Method::GET, "extendedAgentCard".to_string(), None),
    };
    let mut url = join(base, &path)?;
    if method == Method::GET {
        add_query(&mut url, params);
    }
    Ok(Route {
        label: format!("{op:?} (HTTP+JSON)"),
        method,
        url,
        body,
    })
}

/// A v1.0 GET carries its parameters in the query (`historyLength`,
/// `pageSize`, `contextId`, …): every scalar one except the ids already in
/// the path.
fn add_query(url: &mut url::Url, params: &Value) {
    let Some(params) = params.as_object() else {
        return;
    };
    let pairs: Vec<(&String, String)> = params
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), "id" | "taskId" | "name"))
        .filter_map(|(key, value)| match value {
            Value::String(s) => Some((key, s.clone())),
            Value::Number(n) => Some((key, n.to_string())),
            Value::Bool(b) => Some((key, b.to_string())),
            _ => None,
        })
        .collect();
    if !pairs.is_empty() {
        url.query_pairs_mut().extend_pairs(pairs);
    }
}

/// The 0.3 routes (`/v1/...`), with 0.3 proto JSON bodies. 0.3 JSON-RPC
/// names the task `id` (or `taskId` for push configs) and the push config
/// `pushNotificationConfigId`.
fn route_v0_3(base: &url::Url, op: Operation, params: &Value) -> Result<Route, RouteError> {
    use reqwest::Method;
    let task_id = || -> Result<String, RouteError> {
        params
            .get("taskId")
            .or_else(|| params.get("id"))
            .and_then(Value::as_str)
            .map(url_escape)
            .ok_or(RouteError::NoTaskId(op))
    };
    let config_id = || -> Result<String, RouteError> {
        params
            .get("pushNotificationConfigId")
            .and_then(Value::as_str)
            .map(url_escape)
            .ok_or(RouteError::NoPushConfigId)
    };
    let (method, path, body) = match op {
        Operation::SendMessage => (
            Method::POST,
            "v1/message:send".to_string(),
            Some(proto::send_request(params)),
        ),
        Operation::SendStreamingMessage => (
            Method::POST,
            "v1/message:stream".to_string(),
            Some(proto::send_request(params)),
        ),
        Operation::GetTask => {
            let mut path = format!("v1/tasks/{}", task_id()?);
            if let Some(n) = params.get("historyLength").and_then(Value::as_u64) {
                path.push_str(&format!("?historyLength={n}"));
            }
            (Method::GET, path, None)
        }
        Operation::ListTasks => return Err(RouteError::NotInVersion(op)),
        Operation::CancelTask => {
            let id = task_id()?;
            let name = json!({ "name": format!("tasks/{id}") });
            (Method::POST, format!("v1/tasks/{id}:cancel"), Some(name))
        }
        // The 0.3 proto says GET, the 0.3 spec text POST; the SDKs serve both
        // and their clients send POST, as the 1.0 binding does.
        Operation::SubscribeToTask => (
            Method::POST,
            format!("v1/tasks/{}:subscribe", task_id()?),
            None,
        ),
        Operation::CreatePushConfig => (
            Method::POST,
            format!("v1/tasks/{}/pushNotificationConfigs", task_id()?),
            Some(proto::push_config_resource(params)),
        ),
        Operation::GetPushConfig => (
            Method::GET,
            format!(
                "v1/tasks/{}/pushNotificationConfigs/{}",
                task_id()?,
                config_id()?
            ),
            None,
        ),
        Operation::DeletePushConfig => (
            Method::DELETE,
            format!(
                "v1/tasks/{}/pushNotificationConfigs/{}",
                task_id()?,
                config_id()?
            ),
            None,
        ),
        Operation::ListPushConfigs => (
            Method::GET,
            format!("v1/tasks/{}/pushNotificationConfigs", task_id()?),
            None,
        ),
        Operation::GetExtendedCard => (Method::GET, "v1/card".to_string(), None),
    };
    Ok(Route {
        label: format!("{op:?} (HTTP+JSON 0.3)"),
        method,
        url: join(base, &path)?,
        body,
    })
}

fn join(base: &url::Url, path: &str) -> Result<url::Url, RouteError> {
    let joined = format!("{}/{}", base.as_str().trim_end_matches('/'), path);
    url::Url::parse(&joined).map_err(|source| RouteError::BadUrl {
        url: joined.clone(),
        source,
    })
}

/// Why an operation has no REST route: its params lack an id the path needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RouteError {
    #[error("{0:?} needs a task id")]
    NoTaskId(Operation),
    #[error("push config operations need a config id")]
    NoPushConfigId,
    #[error("push config operations need a task id")]
    NoPushConfigTaskId,
    #[error("{0:?} does not exist in A2A 0.3")]
    NotInVersion(Operation),
    #[error("bad REST URL {url}: {source}")]
    BadUrl {
        url: String,
        source: url::ParseError,
    },
}

fn url_escape(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            other => format!("%{other:02X}"),
        })
        .collect()
}

/// Judges a REST answer: 2xx JSON is a result; an error status carries a
/// `google.rpc.Status` body whose ErrorInfo `reason` names the A2A error.
pub(crate) fn classify(status: u16, body: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(body);
    if (200..300).contains(&status) {
        if text.trim().is_empty() {
            return Reply::Ok(Value::Null);
        }
        return match serde_json::from_slice(body) {
            Ok(v) => Reply::Ok(v),
            Err(e) => Reply::Broken(format!("the body is not JSON ({e})")),
        };
    }
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(_) if text.trim().is_empty() => {
            return Reply::Broken("an error status with an empty body".to_string())
        }
        Err(_) => {
            return Reply::Broken(format!(
                "an error status with a non-JSON body: {}",
                clip(&text, 120)
            ))
        }
    };
    let error = value.get("error").unwrap_or(&value);
    let reason = error
        .get("details")
        .and_then(Value::as_array)
        .and_then(|details| {
            details
                .iter()
                .find_map(|d| d.get("reason").and_then(Value::as_str))
        });
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    // 0.3 peers may instead name the A2A code itself (`{code: -32001,
    // message}`, as @a2a-js/sdk's 0.3 binding does): the spec left 0.3 REST
    // error bodies open. An HTTP status in `code` is not one.
    let a2a_code = error
        .get("code")
        .and_then(Value::as_i64)
        .filter(|c| (-32768..=-32000).contains(c));
    // -32602 has no ErrorInfo reason of its own (v1 §5.4): a 400 whose
    // status names INVALID_ARGUMENT is a valid invalid-params answer.
    let invalid_params = (status == 400
        && error.get("status").and_then(Value::as_str) == Some("INVALID_ARGUMENT"))
    .then_some(codes::INVALID_PARAMS);
    match reason
        .and_then(code_for_reason)
        .or(a2a_code)
        .or(invalid_params)
    {
        Some(code) => Reply::Err(RpcError {
            code,
            message,
            data: Some(value.clone()),
        }),
        None => Reply::Broken(format!(
            "an error status without a known ErrorInfo reason ({}): {}",
            reason.unwrap_or("none"),
            clip(&text, 160)
        )),
    }
}

/// The A2A error code an ErrorInfo `reason` stands for (v1 §5.4).
pub(crate) fn code_for_reason(reason: &str) -> Option<i64> {
    Some(match reason {
        "TASK_NOT_FOUND" => codes::TASK_NOT_FOUND,
        "TASK_NOT_CANCELABLE" => codes::TASK_NOT_CANCELABLE,
        "PUSH_NOTIFICATION_NOT_SUPPORTED" => codes::PUSH_NOT_SUPPORTED,
        "UNSUPPORTED_OPERATION" => codes::UNSUPPORTED_OPERATION,
        "CONTENT_TYPE_NOT_SUPPORTED" => codes::CONTENT_TYPE_NOT_SUPPORTED,
        "INVALID_AGENT_RESPONSE" => codes::INVALID_AGENT_RESPONSE,
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED" => codes::EXTENDED_CARD_NOT_CONFIGURED,
        "EXTENSION_SUPPORT_REQUIRED" => codes::EXTENSION_SUPPORT_REQUIRED,
        "VERSION_NOT_SUPPORTED" => codes::VERSION_NOT_SUPPORTED,
        "TASK_GENERATION_MISMATCH" => codes::TASK_GENERATION_MISMATCH,
        "INVALID_PARAMS" | "INVALID_ARGUMENT" => codes::INVALID_PARAMS,
        "INTERNAL" | "INTERNAL_ERROR" => codes::INTERNAL_ERROR,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_follow_the_rest_binding() {
        let base = url::Url::parse("http://h/a2a/rest").unwrap();
        let v1 = ProtocolVersion::V1_0;
        let r = route(&base, v1, Operation::CancelTask, &json!({"id": "t 1"})).unwrap();
        assert_eq!(r.method, reqwest::Method::POST);
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/tasks/t%201:cancel");
        let r = route(&base, v1, Operation::GetTask, &json!({"id": "t1"})).unwrap();
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/tasks/t1");
        assert!(r.body.is_none());
        assert!(route(&base, v1, Operation::GetTask, &json!({})).is_err());
        let params = json!({"id": "t1", "historyLength": 1});
        let r = route(&base, v1, Operation::GetTask, &params).unwrap();
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/tasks/t1?historyLength=1");
        let params = json!({"pageSize": 1, "contextId": "c 1"});
        let r = route(&base, v1, Operation::ListTasks, &params).unwrap();
        assert_eq!(
            r.url.as_str(),
            "http://h/a2a/rest/tasks?pageSize=1&contextId=c+1"
        );
    }

    #[test]
    fn v0_3_routes_carry_the_v1_prefix_and_proto_bodies() {
        let base = url::Url::parse("http://h/a2a/rest/").unwrap();
        let v03 = ProtocolVersion::V0_3;
        let r = route(&base, v03, Operation::CancelTask, &json!({"id": "t1"})).unwrap();
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/v1/tasks/t1:cancel");
        assert_eq!(r.body, Some(json!({"name": "tasks/t1"})));
        let r = route(
            &base,
            v03,
            Operation::GetTask,
            &json!({"id": "t1", "historyLength": 2}),
        )
        .unwrap();
        assert_eq!(
            r.url.as_str(),
            "http://h/a2a/rest/v1/tasks/t1?historyLength=2"
        );
        let r = route(&base, v03, Operation::GetExtendedCard, &json!({})).unwrap();
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/v1/card");
        let send = json!({"message": {"kind": "message", "messageId": "m", "role": "user",
            "parts": [{"kind": "text", "text": "hi"}]}, "configuration": {"blocking": true}});
        let r = route(&base, v03, Operation::SendMessage, &send).unwrap();
        assert_eq!(r.url.as_str(), "http://h/a2a/rest/v1/message:send");
        assert_eq!(
            r.body.unwrap()["message"]["content"],
            json!([{"text": "hi"}])
        );
        assert_eq!(
            route(&base, v03, Operation::ListTasks, &json!({})).unwrap_err(),
            RouteError::NotInVersion(Operation::ListTasks)
        );
    }

    #[test]
    fn rest_errors_map_by_reason() {
        let body = br#"{"error":{"code":404,"status":"NOT_FOUND","message":"no task","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#;
        assert!(matches!(classify(404, body), Reply::Err(e) if e.code == codes::TASK_NOT_FOUND));
        assert!(
            matches!(classify(500, b"<h1>down</h1>"), Reply::Broken(r) if r.contains("non-JSON"))
        );
        assert!(matches!(classify(200, br#"{"id":"t"}"#), Reply::Ok(_)));
        let bare =
            br#"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"bad contextId"}}"#;
        assert!(matches!(classify(400, bare), Reply::Err(e) if e.code == codes::INVALID_PARAMS));
        let internal = br#"{"error":{"code":500,"status":"INTERNAL","message":"boom"}}"#;
        assert!(matches!(classify(500, internal), Reply::Broken(_)));
        // A 0.3 body naming the A2A code (@a2a-js/sdk); an HTTP code is none.
        assert!(matches!(
            classify(404, br#"{"code":-32001,"message":"no task"}"#),
            Reply::Err(e) if e.code == codes::TASK_NOT_FOUND
        ));
        assert!(matches!(
            classify(404, br#"{"code":404,"message":"no route"}"#),
            Reply::Broken(_)
        ));
    }
}
