//! The gRPC binding for v0.3 (`a2a.v1.A2AService`): the 0.3 specification's
//! `a2a.proto`, vendored in `proto/` and compiled by the build script (protox,
//! no `protoc`). The runner's 0.3 params (the JSON-RPC shapes) are rendered
//! as the proto's JSON first — `content` for parts, `ROLE_USER`, resource
//! names `tasks/{id}` and `tasks/{id}/pushNotificationConfigs/{id}` — the
//! same rendering the 0.3 HTTP+JSON binding sends; answers come back as the
//! proto's JSON, which the runner's lenient views read as they read REST's.

use super::{stream_as, unary_as, GrpcCall};
use crate::reply::Reply;
use crate::stream::StreamHandle;
use crate::transcript::Transcript;
use a2a_conform_protocol::v0_3::proto as json03;
use a2a_conform_protocol::{Operation, ProtocolVersion};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// The 0.3 proto's messages and client, generated at build time.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    unreachable_pub,
    dead_code
)]
pub(super) mod pb {
    include!(concat!(env!("OUT_DIR"), "/a2a.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/a2a.v1.serde.rs"));
}

/// The 0.3 service (the proto's package is `a2a.v1`).
pub(super) const SERVICE: &str = "a2a.v1.A2AService";

/// The 0.3 RPC of an operation (ListTasks does not exist in 0.3).
pub(super) fn method_name(op: Operation) -> Option<&'static str> {
    Some(match op {
        Operation::SendMessage => "SendMessage",
        Operation::SendStreamingMessage => "SendStreamingMessage",
        Operation::GetTask => "GetTask",
        Operation::ListTasks => return None,
        Operation::CancelTask => "CancelTask",
        Operation::SubscribeToTask => "TaskSubscription",
        Operation::CreatePushConfig => "CreateTaskPushNotificationConfig",
        Operation::GetPushConfig => "GetTaskPushNotificationConfig",
        Operation::ListPushConfigs => "ListTaskPushNotificationConfig",
        Operation::DeletePushConfig => "DeleteTaskPushNotificationConfig",
        Operation::GetExtendedCard => "GetAgentCard",
    })
}

/// Calls a unary 0.3 operation.
pub(super) async fn unary(
    call: &GrpcCall,
    transcript: &Transcript,
    op: Operation,
    params: Value,
) -> Reply {
    let body = match request_of(op, &params) {
        Ok(body) => body,
        Err(reply) => return reply,
    };
    match op {
        Operation::SendMessage => {
            unary_as::<pb::SendMessageRequest, pb::SendMessageResponse>(call, transcript, op, body)
                .await
        }
        Operation::GetTask => {
            unary_as::<pb::GetTaskRequest, pb::Task>(call, transcript, op, body).await
        }
        Operation::CancelTask => {
            unary_as::<pb::CancelTaskRequest, pb::Task>(call, transcript, op, body).await
        }
        Operation::CreatePushConfig => {
            unary_as::<pb::CreateTaskPushNotificationConfigRequest, pb::TaskPushNotificationConfig>(
                call, transcript, op, body,
            )
            .await
        }
        Operation::GetPushConfig => {
            unary_as::<pb::GetTaskPushNotificationConfigRequest, pb::TaskPushNotificationConfig>(
                call, transcript, op, body,
            )
            .await
        }
        Operation::ListPushConfigs => {
            unary_as::<
                pb::ListTaskPushNotificationConfigRequest,
                pb::ListTaskPushNotificationConfigResponse,
            >(call, transcript, op, body)
            .await
        }
        Operation::DeletePushConfig => {
            unary_as::<pb::DeleteTaskPushNotificationConfigRequest, pbjson_types::Empty>(
                call, transcript, op, body,
            )
            .await
        }
        Operation::GetExtendedCard => {
            unary_as::<pb::GetAgentCardRequest, pb::AgentCard>(call, transcript, op, body).await
        }
        Operation::SendStreamingMessage | Operation::SubscribeToTask => Reply::Broken(format!(
            "{} is a server-streaming method; it is opened as a stream",
            method_name(op).unwrap_or_default()
        )),
        Operation::ListTasks => unreachable_in_0_3(op),
    }
}

/// Opens a server-streaming 0.3 operation.
pub(super) async fn open_stream(
    call: &GrpcCall,
    transcript: &Arc<Transcript>,
    version: ProtocolVersion,
    op: Operation,
    params: Value,
) -> Result<StreamHandle, Reply> {
    let body = request_of(op, &params)?;
    match op {
        Operation::SendStreamingMessage => {
            stream_as::<pb::SendMessageRequest, pb::StreamResponse>(
                call, transcript, version, op, body,
            )
            .await
        }
        Operation::SubscribeToTask => {
            stream_as::<pb::TaskSubscriptionRequest, pb::StreamResponse>(
                call, transcript, version, op, body,
            )
            .await
        }
        other => Err(Reply::Broken(format!(
            "{} is not a server-streaming method",
            method_name(other).unwrap_or("ListTasks")
        ))),
    }
}

fn unreachable_in_0_3(op: Operation) -> Reply {
    Reply::Broken(format!("{op:?} does not exist in A2A 0.3"))
}

/// The runner's 0.3 params (JSON-RPC shapes) as the proto request's JSON.
fn request_of(op: Operation, params: &Value) -> Result<Value, Reply> {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|key| params.get(*key))
            .map(|value| match value {
                Value::String(s) => Ok(s.clone()),
                other => Err(Reply::Broken(format!(
                    "the tool cannot encode these parameters as the {} request of {SERVICE}: \
                     a resource id must be a string, got {other}",
                    method_name(op).unwrap_or_default()
                ))),
            })
            .transpose()
            .map(Option::unwrap_or_default)
    };
    let task_name = |keys: &[&str]| text(keys).map(|id| format!("tasks/{id}"));
    Ok(match op {
        Operation::SendMessage | Operation::SendStreamingMessage => json03::send_request(params),
        Operation::GetTask => {
            let mut body = Map::new();
            body.insert("name".into(), json!(task_name(&["id"])?));
            if let Some(n) = params.get("historyLength") {
                body.insert("historyLength".into(), n.clone());
            }
            Value::Object(body)
        }
        Operation::CancelTask | Operation::SubscribeToTask => {
            json!({ "name": task_name(&["id"])? })
        }
        Operation::CreatePushConfig => {
            let config = json03::push_config_resource(params);
            let config_id = params
                .get("pushNotificationConfig")
                .and_then(|c| c.get("id"))
                .cloned()
                .unwrap_or_else(|| json!(""));
            json!({
                "parent": task_name(&["taskId", "id"])?,
                "configId": config_id,
                "config": config,
            })
        }
        Operation::GetPushConfig | Operation::DeletePushConfig => json!({
            "name": format!(
                "{}/pushNotificationConfigs/{}",
                task_name(&["taskId", "id"])?,
                text(&["pushNotificationConfigId"])?
            ),
        }),
        Operation::ListPushConfigs => json!({ "parent": task_name(&["taskId", "id"])? }),
        Operation::GetExtendedCard => json!({}),
        Operation::ListTasks => return Err(unreachable_in_0_3(op)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_become_0_3_proto_requests_with_resource_names() {
        let get = request_of(Operation::GetTask, &json!({"id": "t1", "historyLength": 1})).unwrap();
        assert_eq!(get, json!({"name": "tasks/t1", "historyLength": 1}));
        let get: pb::GetTaskRequest = serde_json::from_value(get).unwrap();
        assert_eq!(get.history_length, 1);
        let create = request_of(
            Operation::CreatePushConfig,
            &json!({"taskId": "t1", "pushNotificationConfig": {"url": "http://h", "token": "x"}}),
        )
        .unwrap();
        let create: pb::CreateTaskPushNotificationConfigRequest =
            serde_json::from_value(create).unwrap();
        assert_eq!(create.parent, "tasks/t1");
        let config = create.config.unwrap().push_notification_config.unwrap();
        assert_eq!(
            (config.url.as_str(), config.token.as_str()),
            ("http://h", "x")
        );
        assert_eq!(
            request_of(
                Operation::DeletePushConfig,
                &json!({"id": "t1", "pushNotificationConfigId": "c1"})
            )
            .unwrap(),
            json!({"name": "tasks/t1/pushNotificationConfigs/c1"})
        );
        assert!(matches!(
            request_of(Operation::CancelTask, &json!({"id": 7})),
            Err(Reply::Broken(r)) if r.contains("CancelTask")
        ));
        assert!(matches!(
            request_of(Operation::ListTasks, &json!({})),
            Err(Reply::Broken(r)) if r.contains("0.3")
        ));
    }

    #[test]
    fn a_0_3_message_is_read_into_the_proto_with_its_enums_and_parts() {
        let message = json03::send_request(&json!({
            "message": {"kind": "message", "messageId": "m1", "role": "user",
                "parts": [{"kind": "text", "text": "hi"},
                          {"kind": "data", "data": {"a": 1}}]},
            "configuration": {"blocking": true}
        }));
        let request: pb::SendMessageRequest = serde_json::from_value(message).unwrap();
        let sent = request.request.unwrap();
        assert_eq!(sent.role, pb::Role::User as i32);
        assert_eq!(sent.content.len(), 2);
        assert!(request.configuration.unwrap().blocking);
        let back = serde_json::to_value(pb::SendMessageResponse {
            payload: Some(pb::send_message_response::Payload::Msg(pb::Message {
                message_id: "m2".into(),
                role: pb::Role::Agent as i32,
                ..Default::default()
            })),
        })
        .unwrap();
        assert_eq!(back["message"]["role"], "ROLE_AGENT", "{back}");
    }
}
