//! A2A v0.3 wire shapes: slash-style JSON-RPC methods, kebab-case states,
//! `kind` discriminators, bare `message/send` results and `final` on status updates.

use super::{Operation, TaskState};

/// The v0.3 JSON-RPC method name of an operation (ListTasks does not exist in 0.3).
pub fn method(op: Operation) -> Option<&'static str> {
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

/// The v0.3 spelling of a state; also the neutral name used in reports.
pub fn state_name(state: TaskState) -> &'static str {
    match state {
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::InputRequired => "input-required",
        TaskState::AuthRequired => "auth-required",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::Rejected => "rejected",
        TaskState::Unknown => "unknown",
    }
}
