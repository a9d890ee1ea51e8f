//! A2A v0.3 wire shapes: slash-style JSON-RPC methods, kebab-case states,
//! `kind` discriminators, bare `message/send` results and `final` on status updates.

pub mod proto;

use super::model::{Operation, Role, TaskState};
use super::view::MessagePart;
use serde_json::{json, Value};

/// The v0.3 JSON-RPC method name of an operation (ListTasks does not exist in 0.3).
pub(crate) fn method(op: Operation) -> Option<&'static str> {
    Some(match op {
        Operation::SendMessage => "message/send",
        Operation::SendStreamingMessage => "message/stream",
        Operation::GetTask => "tasks/get",
        Operation::ListTasks => return None,
        Operation::CancelTask => "tasks/cancel",
        Operation::SubscribeToTask => "tasks/resubscribe",
        Operation::CreatePushConfig => "tasks/pushNotificationConfig/set",
        Operation::GetPushConfig => "tasks/pushNotificationConfig/get",
        Operation::ListPushConfigs => "tasks/pushNotificationConfig/list",
        Operation::DeletePushConfig => "tasks/pushNotificationConfig/delete",
        Operation::GetExtendedCard => "agent/getAuthenticatedExtendedCard",
    })
}

/// The v0.3 spelling of a state: v0.3 spells states with the neutral
/// kebab-case names ([`TaskState::as_str`]), so there is no second table.
pub(crate) fn state_name(state: TaskState) -> &'static str {
    state.as_str()
}

/// The v0.3 spelling of a role.
pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Agent => "agent",
    }
}

/// A v0.3 user message: `kind: message`, `role: user`, `kind`-tagged parts.
pub(crate) fn message(
    parts: &[MessagePart],
    message_id: &str,
    task_id: Option<&str>,
    context_id: Option<&str>,
) -> Value {
    let parts: Vec<Value> = parts
        .iter()
        .map(|part| match part {
            MessagePart::Text(text) => json!({ "kind": "text", "text": text }),
            MessagePart::Data(data) => json!({ "kind": "data", "data": data }),
            MessagePart::File {
                media_type,
                base64,
                name,
            } => json!({ "kind": "file", "file": { "bytes": base64, "mimeType": media_type, "name": name } }),
        })
        .collect();
    let mut message = json!({ "kind": "message", "messageId": message_id, "role": role_name(Role::User), "parts": parts });
    if let Some(id) = task_id {
        message["taskId"] = json!(id);
    }
    if let Some(id) = context_id {
        message["contextId"] = json!(id);
    }
    message
}

/// `message/send`/`message/stream` params with an explicit `blocking` flag (the
/// 0.3 default is unspecified, so the tool always says what it wants).
pub(crate) fn send_params(message: Value, blocking: bool) -> Value {
    json!({ "message": message, "configuration": { "blocking": blocking } })
}

/// Params naming one task (`tasks/get`, `tasks/cancel`, `tasks/resubscribe`).
pub(crate) fn task_params(task_id: &str) -> Value {
    json!({ "id": task_id })
}

/// `tasks/pushNotificationConfig/set` params: the nested
/// `{taskId, pushNotificationConfig: {url, token?}}`.
pub(crate) fn push_config_params(task_id: &str, url: &str, token: Option<&str>) -> Value {
    let mut config = json!({ "url": url });
    if let Some(token) = token {
        config["token"] = json!(token);
    }
    json!({ "taskId": task_id, "pushNotificationConfig": config })
}

/// Adds an inline push config to send params: `configuration.pushNotificationConfig`.
pub(crate) fn with_inline_push(mut params: Value, url: &str) -> Value {
    params["configuration"]["pushNotificationConfig"] = json!({ "url": url });
    params
}
