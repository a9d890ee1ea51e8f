//! The v0.3 gRPC binding (`a2a.v1.A2AService`, the 0.3 spec's proto,
//! compiled by the build script): each request is read as its ProtoJSON,
//! with resource names (`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{id}`)
//! turned into the ids the binding-neutral `service` reads, as the 0.3
//! HTTP+JSON binding does; answers are rendered in the 0.3 proto's JSON
//! (`rest::proto_result`, `proto::wrapped`) and read into the messages.
//! Errors travel as the official SDK's 0.3 handler sends them: the status
//! of v1.0's table, with no ErrorInfo (0.3 defines none for gRPC), and a
//! message that starts with the error's type name
//! (`TaskNotFoundError: …`), which is how a 0.3 client tells apart the
//! errors that share FAILED_PRECONDITION.

use super::{pump, status_code, GrpcPeer};
use crate::error::A2aError;
use crate::rest::proto_result;
use crate::service::{self, Reply};
use a2a_conform_protocol::v0_3::proto as json03;
use a2a_conform_protocol::Operation;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

/// The 0.3 proto's messages and server, generated at build time.
#[allow(missing_docs, clippy::all, clippy::pedantic, unreachable_pub)]
mod pb {
    include!(concat!(env!("OUT_DIR"), "/a2a.v1.rs"));
    include!(concat!(env!("OUT_DIR"), "/a2a.v1.serde.rs"));
}

pub(super) use pb::a2a_service_server::A2aServiceServer;

type EventStream = BoxStream<'static, Result<pb::StreamResponse, Status>>;

/// The id after `tasks/` in a resource name, and the config id after
/// `/pushNotificationConfigs/` when there is one.
fn resource(name: &str) -> (String, Option<String>) {
    let below = name.strip_prefix("tasks/").unwrap_or(name);
    match below.split_once("/pushNotificationConfigs") {
        Some((task, rest)) => {
            let config = rest.trim_start_matches('/');
            (
                task.to_string(),
                (!config.is_empty()).then(|| config.to_string()),
            )
        }
        None => (below.to_string(), None),
    }
}

/// A 0.3 request's ProtoJSON as the params `service` reads for `op`.
fn params_of(op: Operation, request: Value) -> Map<String, Value> {
    let mut body = match request {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let text = |body: &Map<String, Value>, key: &str| {
        body.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut params = Map::new();
    match op {
        Operation::SendMessage | Operation::SendStreamingMessage => {
            // The proto names the inline push config `pushNotification`.
            if let Some(Value::Object(config)) = body.get_mut("configuration") {
                if let Some(push) = config.remove("pushNotification") {
                    config.insert("pushNotificationConfig".into(), push);
                }
            }
            params = body;
        }
        Operation::GetTask | Operation::CancelTask | Operation::SubscribeToTask => {
            let (task, _) = resource(&text(&body, "name"));
            params.insert("id".into(), json!(task));
            if let Some(n) = body.get("historyLength") {
                params.insert("historyLength".into(), n.clone());
            }
        }
        Operation::CreatePushConfig => {
            let (task, _) = resource(&text(&body, "parent"));
            params.insert("taskId".into(), json!(task));
            let mut config = body
                .get("config")
                .and_then(|c| c.get("pushNotificationConfig"))
                .cloned()
                .unwrap_or_else(|| json!({}));
            let config_id = text(&body, "configId");
            if !config_id.is_empty() && config.get("id").is_none() {
                config["id"] = json!(config_id);
            }
            params.insert("pushNotificationConfig".into(), config);
        }
        Operation::GetPushConfig | Operation::DeletePushConfig => {
            let (task, config) = resource(&text(&body, "name"));
            params.insert("taskId".into(), json!(task));
            if let Some(config) = config {
                params.insert("pushNotificationConfigId".into(), json!(config));
            }
        }
        Operation::ListPushConfigs => {
            let (task, _) = resource(&text(&body, "parent"));
            params.insert("taskId".into(), json!(task));
        }
        Operation::ListTasks | Operation::GetExtendedCard => {}
    }
    params
}

/// The status a v0.3 A2A error travels as: named in its message, no ErrorInfo.
fn status(error: &A2aError) -> Status {
    Status::new(
        status_code(error),
        format!("{}: {}", error.type_name(), error.message),
    )
}

/// A 0.3 stream event as the StreamResponse message.
fn stream_response(value: Value) -> Result<pb::StreamResponse, Status> {
    serde_json::from_value(json03::wrapped(&value))
        .map_err(|e| Status::internal(format!("not a 0.3 StreamResponse: {e}")))
}

impl GrpcPeer {
    async fn unary_v0_3<P, R>(
        &self,
        op: Operation,
        request: Request<P>,
    ) -> Result<Response<R>, Status>
    where
        P: Serialize,
        R: DeserializeOwned,
    {
        self.admit(&request)?;
        let json = serde_json::to_value(request.get_ref())
            .map_err(|e| Status::internal(format!("cannot read the request: {e}")))?;
        let params = params_of(op, json);
        match service::call(&self.peer, op, &params, false)
            .await
            .map_err(|e| status(&e))?
        {
            Reply::Json(value) => {
                let answer = serde_json::from_value(proto_result(op, &value)).map_err(|e| {
                    Status::internal(format!("the mock's answer is not 0.3 ProtoJSON: {e}"))
                })?;
                Ok(Response::new(answer))
            }
            Reply::Stream { .. } => Err(Status::internal("a stream where an answer was due")),
        }
    }

    async fn stream_v0_3<P: Serialize>(
        &self,
        op: Operation,
        request: Request<P>,
    ) -> Result<Response<EventStream>, Status> {
        self.admit(&request)?;
        let json = serde_json::to_value(request.get_ref())
            .map_err(|e| Status::internal(format!("cannot read the request: {e}")))?;
        let params = params_of(op, json);
        match service::call(&self.peer, op, &params, false)
            .await
            .map_err(|e| status(&e))?
        {
            Reply::Stream { opened, view } => {
                let (tx, rx) = mpsc::channel(16);
                tokio::spawn(pump(self.peer.clone(), opened, view, tx, stream_response));
                Ok(Response::new(ReceiverStream::new(rx).boxed()))
            }
            Reply::Json(_) => Err(Status::internal("an answer where a stream was due")),
        }
    }
}

#[tonic::async_trait]
impl pb::a2a_service_server::A2aService for GrpcPeer {
    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        self.unary_v0_3(Operation::SendMessage, request).await
    }

    type SendStreamingMessageStream = EventStream;

    async fn send_streaming_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<EventStream>, Status> {
        self.stream_v0_3(Operation::SendStreamingMessage, request)
            .await
    }

    async fn get_task(
        &self,
        request: Request<pb::GetTaskRequest>,
    ) -> Result<Response<pb::Task>, Status> {
        self.unary_v0_3(Operation::GetTask, request).await
    }

    async fn cancel_task(
        &self,
        request: Request<pb::CancelTaskRequest>,
    ) -> Result<Response<pb::Task>, Status> {
        self.unary_v0_3(Operation::CancelTask, request).await
    }

    type TaskSubscriptionStream = EventStream;

    async fn task_subscription(
        &self,
        request: Request<pb::TaskSubscriptionRequest>,
    ) -> Result<Response<EventStream>, Status> {
        self.stream_v0_3(Operation::SubscribeToTask, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<pb::CreateTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        self.unary_v0_3(Operation::CreatePushConfig, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<pb::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::TaskPushNotificationConfig>, Status> {
        self.unary_v0_3(Operation::GetPushConfig, request).await
    }

    async fn list_task_push_notification_config(
        &self,
        request: Request<pb::ListTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pb::ListTaskPushNotificationConfigResponse>, Status> {
        self.unary_v0_3(Operation::ListPushConfigs, request).await
    }

    async fn get_agent_card(
        &self,
        request: Request<pb::GetAgentCardRequest>,
    ) -> Result<Response<pb::AgentCard>, Status> {
        self.unary_v0_3(Operation::GetExtendedCard, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<pb::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<pbjson_types::Empty>, Status> {
        self.unary_v0_3(Operation::DeletePushConfig, request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names_become_the_ids_service_reads() {
        let get = params_of(
            Operation::GetTask,
            json!({"name": "tasks/t1", "historyLength": 2}),
        );
        assert_eq!(Value::Object(get), json!({"id": "t1", "historyLength": 2}));
        let create = params_of(
            Operation::CreatePushConfig,
            json!({"parent": "tasks/t1", "configId": "c1",
                "config": {"name": "tasks/t1/pushNotificationConfigs/c1",
                    "pushNotificationConfig": {"url": "http://h"}}}),
        );
        assert_eq!(
            Value::Object(create),
            json!({"taskId": "t1", "pushNotificationConfig": {"url": "http://h", "id": "c1"}})
        );
        let delete = params_of(
            Operation::DeletePushConfig,
            json!({"name": "tasks/t1/pushNotificationConfigs/c1"}),
        );
        assert_eq!(
            Value::Object(delete),
            json!({"taskId": "t1", "pushNotificationConfigId": "c1"})
        );
        let send = params_of(
            Operation::SendMessage,
            json!({"message": {"messageId": "m"}, "configuration": {"pushNotification": {"url": "u"}}}),
        );
        assert_eq!(
            send["configuration"],
            json!({"pushNotificationConfig": {"url": "u"}})
        );
    }
}
