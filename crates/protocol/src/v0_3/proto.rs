//! The v0.3 HTTP+JSON binding's JSON: the ProtoJSON of the 0.3 `a2a.proto`
//! (package `a2a.v1`), which differs from the 0.3 JSON-RPC JSON the rest of
//! the tool speaks: messages carry `content` instead of `parts`, parts are
//! `{text}`, `{file:{fileWithBytes|fileWithUri, mimeType, name}}` or
//! `{data:{data}}`, enums are `ROLE_USER` and `TASK_STATE_*` (with 0.3's
//! `TASK_STATE_CANCELLED`), results and stream events are wrapped
//! (`{task}`, `{message}`, `{statusUpdate}`, `{artifactUpdate}`) and push
//! configs are resources named `tasks/{id}/pushNotificationConfigs/{id}`.
//!
//! Both directions are here: the client renders its 0.3 JSON-RPC-shaped
//! parameters as request bodies, the mock renders its 0.3 results. What a
//! peer sends back is never translated: the lenient views read both shapes,
//! and the evidence keeps the bytes.

use crate::model::{Role, TaskState};
use serde_json::{json, Map, Value};

/// The 0.3 proto spelling of a state (`TASK_STATE_CANCELLED`, two Ls).
pub(crate) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Canceled => "TASK_STATE_CANCELLED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
        TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
    }
}

/// A `SendMessageRequest` body from `message/send` params
/// (`{message, configuration?, metadata?}`).
pub fn send_request(params: &Value) -> Value {
    let mut out = Map::new();
    if let Some(message) = params.get("message") {
        out.insert("message".into(), self::message(message));
    }
    if let Some(Value::Object(config)) = params.get("configuration") {
        let mut c = Map::new();
        for (key, value) in config {
            match key.as_str() {
                // The proto names the inline push config `pushNotification`.
                "pushNotificationConfig" => c.insert("pushNotification".into(), value.clone()),
                _ => c.insert(key.clone(), value.clone()),
            };
        }
        out.insert("configuration".into(), Value::Object(c));
    }
    if let Some(metadata) = params.get("metadata") {
        out.insert("metadata".into(), metadata.clone());
    }
    Value::Object(out)
}

/// A `TaskPushNotificationConfig` body from `tasks/pushNotificationConfig/set`
/// params (`{taskId, pushNotificationConfig}`): the proto's HTTP rule posts
/// the config resource itself (`body: "config"`).
pub fn push_config_resource(params: &Value) -> Value {
    let task = params.get("taskId").and_then(Value::as_str).unwrap_or("");
    let config = params
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let name = match config.get("id").and_then(Value::as_str) {
        Some(id) => format!("tasks/{task}/pushNotificationConfigs/{id}"),
        None => format!("tasks/{task}/pushNotificationConfigs"),
    };
    json!({ "name": name, "pushNotificationConfig": config })
}

/// A 0.3 JSON-RPC Message as ProtoJSON: `content`, proto parts, `ROLE_*`.
pub(crate) fn message(message: &Value) -> Value {
    let Some(obj) = message.as_object() else {
        return message.clone();
    };
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "kind" => {}
            "parts" => {
                let parts = value
                    .as_array()
                    .map(|parts| parts.iter().map(part).collect())
                    .unwrap_or_default();
                out.insert("content".into(), Value::Array(parts));
            }
            "role" => {
                // The 0.3 proto spells its Role enum as v1.0 does (`ROLE_USER`).
                let role = value
                    .as_str()
                    .and_then(|name| {
                        <Role as strum::VariantArray>::VARIANTS
                            .iter()
                            .find(|r| super::role_name(**r) == name)
                    })
                    .map_or_else(|| value.clone(), |r| json!(crate::v1_0::role_name(*r)));
                out.insert("role".into(), role);
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// A 0.3 JSON-RPC part (`kind`-tagged) as a proto `Part`.
pub(crate) fn part(part: &Value) -> Value {
    let mut out = Map::new();
    if let Some(metadata) = part.get("metadata") {
        out.insert("metadata".into(), metadata.clone());
    }
    match part.get("kind").and_then(Value::as_str) {
        Some("text") => {
            out.insert("text".into(), part.get("text").cloned().unwrap_or_default());
        }
        Some("data") => {
            let data = part.get("data").cloned().unwrap_or_else(|| json!({}));
            out.insert("data".into(), json!({ "data": data }));
        }
        Some("file") => {
            let file = part.get("file").cloned().unwrap_or_default();
            let mut f = Map::new();
            if let Some(bytes) = file.get("bytes") {
                f.insert("fileWithBytes".into(), bytes.clone());
            }
            if let Some(uri) = file.get("uri") {
                f.insert("fileWithUri".into(), uri.clone());
            }
            for key in ["mimeType", "name"] {
                if let Some(v) = file.get(key) {
                    f.insert(key.into(), v.clone());
                }
            }
            out.insert("file".into(), Value::Object(f));
        }
        _ => return part.clone(),
    }
    Value::Object(out)
}

/// A 0.3 JSON-RPC Task as ProtoJSON.
pub fn task(task: &Value) -> Value {
    let Some(obj) = task.as_object() else {
        return task.clone();
    };
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "kind" => {}
            "status" => {
                out.insert("status".into(), status(value));
            }
            "history" => {
                let history = value
                    .as_array()
                    .map(|list| list.iter().map(message).collect())
                    .unwrap_or_default();
                out.insert("history".into(), Value::Array(history));
            }
            "artifacts" => {
                let artifacts = value
                    .as_array()
                    .map(|list| list.iter().map(artifact).collect())
                    .unwrap_or_default();
                out.insert("artifacts".into(), Value::Array(artifacts));
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

fn status(status: &Value) -> Value {
    let mut out = status.as_object().cloned().unwrap_or_default();
    if let Some(state) = out.get("state").and_then(TaskState::from_wire) {
        out.insert("state".into(), json!(state_name(state)));
    }
    if let Some(m) = out.get("message").map(message) {
        out.insert("message".into(), m);
    }
    Value::Object(out)
}

fn artifact(artifact: &Value) -> Value {
    let mut out = artifact.as_object().cloned().unwrap_or_default();
    if let Some(parts) = out.get("parts").and_then(Value::as_array) {
        let parts: Vec<Value> = parts.iter().map(part).collect();
        out.insert("parts".into(), Value::Array(parts));
    }
    Value::Object(out)
}

/// A `message/send` result (a bare Task or Message with `kind`) as a
/// `SendMessageResponse`, or a stream event as a `StreamResponse`:
/// `{task}`, `{message}`, `{statusUpdate}` or `{artifactUpdate}`.
pub fn wrapped(result: &Value) -> Value {
    let strip = |value: &Value| {
        let mut out = value.as_object().cloned().unwrap_or_default();
        out.remove("kind");
        out
    };
    match result.get("kind").and_then(Value::as_str) {
        Some("task") => json!({ "task": task(result) }),
        Some("message") => json!({ "message": message(result) }),
        Some("status-update") => {
            let mut body = strip(result);
            if let Some(s) = body.get("status").map(status) {
                body.insert("status".into(), s);
            }
            json!({ "statusUpdate": body })
        }
        Some("artifact-update") => {
            let mut body = strip(result);
            if let Some(a) = body.get("artifact").map(artifact) {
                body.insert("artifact".into(), a);
            }
            json!({ "artifactUpdate": body })
        }
        _ => result.clone(),
    }
}

/// A `{taskId, pushNotificationConfig}` result as the proto's
/// `TaskPushNotificationConfig` resource (`{name, pushNotificationConfig}`).
pub fn push_config_result(result: &Value) -> Value {
    let task = result.get("taskId").and_then(Value::as_str).unwrap_or("");
    let config = result
        .get("pushNotificationConfig")
        .cloned()
        .unwrap_or_else(|| json!({}));
    let id = config.get("id").and_then(Value::as_str).unwrap_or("");
    json!({
        "name": format!("tasks/{task}/pushNotificationConfigs/{id}"),
        "pushNotificationConfig": config,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v0_3;
    use crate::MessagePart;

    #[test]
    fn send_requests_use_content_and_proto_parts() {
        let message = v0_3::message(
            &[
                MessagePart::Text("hi".into()),
                MessagePart::Data(json!({"a": 1})),
                MessagePart::File {
                    media_type: "image/png".into(),
                    base64: "aGk=".into(),
                    name: "x".into(),
                },
            ],
            "m1",
            Some("t1"),
            None,
        );
        let params = v0_3::with_inline_push(v0_3::send_params(message, false), "http://h");
        let body = send_request(&params);
        assert_eq!(
            body,
            json!({
                "message": {"messageId": "m1", "role": "ROLE_USER", "taskId": "t1",
                    "content": [
                        {"text": "hi"},
                        {"data": {"data": {"a": 1}}},
                        {"file": {"fileWithBytes": "aGk=", "mimeType": "image/png", "name": "x"}},
                    ]},
                "configuration": {"blocking": false, "pushNotification": {"url": "http://h"}},
            })
        );
    }

    #[test]
    fn results_and_events_are_wrapped_with_proto_enums() {
        let task = json!({"kind": "task", "id": "t", "contextId": "c",
            "status": {"state": "canceled", "message": {"kind": "message", "messageId": "m",
                "role": "agent", "parts": [{"kind": "text", "text": "bye"}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]}]});
        let wrapped_task = wrapped(&task);
        assert_eq!(
            wrapped_task["task"]["status"]["state"],
            "TASK_STATE_CANCELLED"
        );
        assert_eq!(
            wrapped_task["task"]["status"]["message"]["content"][0]["text"],
            "bye"
        );
        assert_eq!(
            wrapped_task["task"]["status"]["message"]["role"],
            "ROLE_AGENT"
        );
        assert_eq!(
            wrapped_task["task"]["artifacts"][0]["parts"][0],
            json!({"text": "x"})
        );
        assert!(wrapped_task["task"].get("kind").is_none());
        let update = json!({"kind": "status-update", "taskId": "t", "contextId": "c",
            "status": {"state": "completed"}, "final": true});
        assert_eq!(
            wrapped(&update),
            json!({"statusUpdate": {"taskId": "t", "contextId": "c",
                "status": {"state": "TASK_STATE_COMPLETED"}, "final": true}})
        );
        // What is not a 0.3 result stays as it was.
        assert_eq!(wrapped(&json!({"x": 1})), json!({"x": 1}));
    }

    #[test]
    fn push_configs_are_named_resources() {
        let params = v0_3::push_config_params("t1", "http://h", Some("tok"));
        assert_eq!(
            push_config_resource(&params),
            json!({"name": "tasks/t1/pushNotificationConfigs",
                "pushNotificationConfig": {"url": "http://h", "token": "tok"}})
        );
        let result =
            json!({"taskId": "t1", "pushNotificationConfig": {"id": "c1", "url": "http://h"}});
        assert_eq!(
            push_config_result(&result)["name"],
            "tasks/t1/pushNotificationConfigs/c1"
        );
    }
}
