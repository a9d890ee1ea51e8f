//! A2A v1.0 wire shapes: PascalCase JSON-RPC methods, `TASK_STATE_*` enums,
//! wrapped `SendMessage` results and `StreamResponse` events without `kind`.

use super::model::{Operation, Role, TaskState};
use super::view::MessagePart;
use serde_json::{json, Value};

/// The v1.0 gRPC service (`a2a.proto`): where every operation's gRPC method lives.
pub const GRPC_SERVICE: &str = "lf.a2a.v1.A2AService";

/// The v1.0 method name of an operation. JSON-RPC and gRPC share it (a JSON-RPC
/// method is the `a2a.proto` RPC's name), so both bindings read this one table.
pub fn method_name(op: Operation) -> &'static str {
    match op {
        Operation::SendMessage => "SendMessage",
        Operation::SendStreamingMessage => "SendStreamingMessage",
        Operation::GetTask => "GetTask",
        Operation::ListTasks => "ListTasks",
        Operation::CancelTask => "CancelTask",
        Operation::SubscribeToTask => "SubscribeToTask",
        Operation::CreatePushConfig => "CreateTaskPushNotificationConfig",
        Operation::GetPushConfig => "GetTaskPushNotificationConfig",
        Operation::ListPushConfigs => "ListTaskPushNotificationConfigs",
        Operation::DeletePushConfig => "DeleteTaskPushNotificationConfig",
        Operation::GetExtendedCard => "GetExtendedAgentCard",
    }
}

/// The v1.0 JSON-RPC method name of an operation: every operation exists in v1.0.
pub(crate) fn method(op: Operation) -> Option<&'static str> {
    Some(method_name(op))
}

/// The ProtoJSON enum name of a role.
pub(crate) fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "ROLE_USER",
        Role::Agent => "ROLE_AGENT",
    }
}

/// The ProtoJSON enum name of a state.
pub(crate) fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "TASK_STATE_SUBMITTED",
        TaskState::Working => "TASK_STATE_WORKING",
        TaskState::InputRequired => "TASK_STATE_INPUT_REQUIRED",
        TaskState::AuthRequired => "TASK_STATE_AUTH_REQUIRED",
        TaskState::Completed => "TASK_STATE_COMPLETED",
        TaskState::Failed => "TASK_STATE_FAILED",
        TaskState::Canceled => "TASK_STATE_CANCELED",
        TaskState::Rejected => "TASK_STATE_REJECTED",
        TaskState::Unknown => "TASK_STATE_UNSPECIFIED",
    }
}

/// The proto enum number of a state (ProtoJSON parsers accept integers).
pub(crate) fn state_from_number(n: i64) -> Option<TaskState> {
    Some(match n {
        0 => TaskState::Unknown,
        1 => TaskState::Submitted,
        2 => TaskState::Working,
        3 => TaskState::Completed,
        4 => TaskState::Failed,
        5 => TaskState::Canceled,
        6 => TaskState::InputRequired,
        7 => TaskState::Rejected,
        8 => TaskState::AuthRequired,
        _ => return None,
    })
}

/// A v1.0 user message: `ROLE_USER`, parts without `kind`.
pub(crate) fn message(
    parts: &[MessagePart],
    message_id: &str,
    task_id: Option<&str>,
    context_id: Option<&str>,
) -> Value {
    let parts: Vec<Value> = parts
        .iter()
        .map(|part| match part {
            MessagePart::Text(text) => json!({ "text": text }),
            MessagePart::Data(data) => json!({ "data": data, "mediaType": "application/json" }),
            MessagePart::File {
                media_type,
                base64,
                name,
            } => json!({ "raw": base64, "mediaType": media_type, "filename": name }),
        })
        .collect();
    let mut message =
        json!({ "messageId": message_id, "role": role_name(Role::User), "parts": parts });
    if let Some(id) = task_id {
        message["taskId"] = json!(id);
    }
    if let Some(id) = context_id {
        message["contextId"] = json!(id);
    }
    message
}

/// `SendMessage`/`SendStreamingMessage` params; `blocking` maps to the inverted
/// `returnImmediately`.
pub(crate) fn send_params(message: Value, blocking: bool) -> Value {
    json!({ "message": message, "configuration": { "returnImmediately": !blocking } })
}

/// Params naming one task (`GetTask`, `CancelTask`, `SubscribeToTask`).
pub(crate) fn task_params(task_id: &str) -> Value {
    json!({ "id": task_id })
}

/// `CreateTaskPushNotificationConfig` params: the flat TaskPushNotificationConfig
/// (`{taskId, url, token?, authentication?}`). A token is also sent as the
/// `authentication` credentials (`Bearer`), from which v1 §4.3.3 builds the
/// `Authorization` header every delivery MUST carry.
pub(crate) fn push_config_params(task_id: &str, url: &str, token: Option<&str>) -> Value {
    let mut params = json!({ "taskId": task_id, "url": url });
    if let Some(token) = token {
        params["token"] = json!(token);
        params["authentication"] = json!({ "scheme": "Bearer", "credentials": token });
    }
    params
}

/// Adds an inline push config to send params:
/// `configuration.taskPushNotificationConfig` (with `taskId` left out: the
/// task does not exist yet).
pub(crate) fn with_inline_push(mut params: Value, url: &str) -> Value {
    params["configuration"]["taskPushNotificationConfig"] = json!({ "url": url });
    params
}
