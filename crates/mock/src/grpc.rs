//! The v1.0 gRPC binding (`lf.a2a.v1.A2AService`) on a second loopback port,
//! for the gRPC behaviours. Each method turns its protobuf request into the
//! ProtoJSON object the binding-neutral `service` reads, and the JSON it
//! answers back into protobuf; errors are a status plus a
//! `google.rpc.ErrorInfo` with the A2A reason. `grpc-refused` answers every
//! method UNIMPLEMENTED. A v0.3 peer serves the 0.3 service instead
//! (`a2a.v1.A2AService`, in `v0_3`).

mod v0_3;

use super::behaviour::Behaviour;
use super::error::{A2aError, ERROR_DOMAIN};
use super::jsonrpc::{check_version, MAX_BODY};
use super::lifecycle::Opened;
use super::model::{self, TaskView};
use super::service::{self, Reply};
use super::shared::Shared;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion};
use a2a_pb::proto;
use a2a_pb::proto::a2a_service_server::{A2aService, A2aServiceServer};
use a2a_pb::protojson as pb;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use prost::Message;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status};
use tonic_types::{ErrorDetails, StatusExt};

type EventStream = BoxStream<'static, Result<proto::StreamResponse, Status>>;

/// Serves gRPC on `listener` until the peer shuts down: the service of the
/// version the peer speaks.
pub(crate) async fn serve(peer: Arc<Shared>, listener: tokio::net::TcpListener) {
    let incoming = tonic::transport::server::TcpIncoming::from(listener);
    let grpc = GrpcPeer { peer: peer.clone() };
    let router = match peer.protocol {
        ProtocolVersion::V1_0 => tonic::transport::Server::builder().add_service(
            A2aServiceServer::new(grpc)
                .max_decoding_message_size(MAX_BODY)
                .max_encoding_message_size(MAX_BODY),
        ),
        ProtocolVersion::V0_3 => tonic::transport::Server::builder().add_service(
            v0_3::A2aServiceServer::new(grpc)
                .max_decoding_message_size(MAX_BODY)
                .max_encoding_message_size(MAX_BODY),
        ),
    };
    let stopped = async move { peer.stopped().await };
    // A serve error ends the server; the interface then reads as unserved.
    let _ = router.serve_with_incoming_shutdown(incoming, stopped).await;
}

struct GrpcPeer {
    peer: Arc<Shared>,
}

/// The status an A2A error travels as (the reference's error table).
fn status(error: &A2aError) -> Status {
    let code = status_code(error);
    match error.reason() {
        Some(reason) => Status::with_error_details(
            code,
            error.message.clone(),
            ErrorDetails::with_error_info(reason, ERROR_DOMAIN, []),
        ),
        None => Status::new(code, error.message.clone()),
    }
}

/// The gRPC status code of an A2A error (the reference's error table).
fn status_code(error: &A2aError) -> Code {
    match error.code {
        codes::INVALID_PARAMS
        | codes::CONTENT_TYPE_NOT_SUPPORTED
        | codes::PARSE_ERROR
        | codes::INVALID_REQUEST => Code::InvalidArgument,
        codes::INTERNAL_ERROR | codes::INVALID_AGENT_RESPONSE => Code::Internal,
        codes::TASK_NOT_FOUND => Code::NotFound,
        codes::METHOD_NOT_FOUND => Code::Unimplemented,
        _ => Code::FailedPrecondition,
    }
}

/// Protobuf to protobuf: the generated service types and the ProtoJSON
/// ones are the same messages from the same proto.
fn transcode<S: Message, D: Message + Default>(source: &S) -> Result<D, Status> {
    D::decode(source.encode_to_vec().as_slice())
        .map_err(|e| Status::internal(format!("transcoding failed: {e}")))
}

impl GrpcPeer {
    /// Refusals and checks every method shares: `grpc-refused`, the
    /// `a2a-version` metadata, the bearer token when the peer enforces one.
    fn admit<T>(&self, request: &Request<T>) -> Result<(), Status> {
        if self.peer.behaviour == Behaviour::GrpcRefused {
            return Err(Status::unimplemented(
                "this peer declares gRPC but serves none of it",
            ));
        }
        let headers = request.metadata().clone().into_headers();
        // v0.3 has no version negotiation (its REST binding checks none either).
        if self.peer.protocol == ProtocolVersion::V1_0 && self.peer.behaviour.negotiates_version() {
            check_version(&headers, &"/".parse().unwrap_or_default()).map_err(|e| status(&e))?;
        }
        if let Some(token) = self
            .peer
            .auth_token
            .as_deref()
            .filter(|_| self.peer.behaviour.enforces_security())
        {
            let presented = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().strip_prefix("Bearer "));
            if presented != Some(token) {
                return Err(Status::unauthenticated("a valid bearer token is required"));
            }
        }
        Ok(())
    }

    /// The request as the JSON object `service` reads.
    fn params<P: Message, J: Message + Default + Serialize>(
        &self,
        request: &Request<P>,
    ) -> Result<Map<String, Value>, Status> {
        self.admit(request)?;
        let json: J = transcode(request.get_ref())?;
        match serde_json::to_value(json) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Ok(Map::new()),
            Err(e) => Err(Status::internal(format!("cannot read the request: {e}"))),
        }
    }

    async fn unary<P, J, RJ, RP>(
        &self,
        op: Operation,
        request: Request<P>,
    ) -> Result<Response<RP>, Status>
    where
        P: Message,
        J: Message + Default + Serialize,
        RJ: Message + DeserializeOwned,
        RP: Message + Default,
    {
        let params = self.params::<P, J>(&request)?;
        // `false`: plain 1.0 even under the 1.1 draft, since a2a-pb's
        // messages have no generation or timeline to carry.
        match service::call(&self.peer, op, &params, false)
            .await
            .map_err(|e| status(&e))?
        {
            Reply::Json(value) => {
                let json: RJ = serde_json::from_value(value).map_err(|e| {
                    Status::internal(format!("the mock's answer is not valid ProtoJSON: {e}"))
                })?;
                Ok(Response::new(transcode(&json)?))
            }
            Reply::Stream { .. } => Err(Status::internal("a stream where an answer was due")),
        }
    }

    async fn stream<P, J>(
        &self,
        op: Operation,
        request: Request<P>,
    ) -> Result<Response<EventStream>, Status>
    where
        P: Message,
        J: Message + Default + Serialize,
    {
        let params = self.params::<P, J>(&request)?;
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

/// A v1.0 stream event as the StreamResponse the generated service sends.
fn stream_response(value: Value) -> Result<proto::StreamResponse, Status> {
    serde_json::from_value::<pb::StreamResponse>(value)
        .map_err(|e| Status::internal(format!("not a StreamResponse: {e}")))
        .and_then(|json| transcode::<_, proto::StreamResponse>(&json))
}

/// Writes the task snapshot, then its events, until the lifecycle closes
/// the stream, the client leaves or the peer shuts down.
/// `render` turns an event's JSON into the version's `StreamResponse`.
async fn pump<T>(
    peer: Arc<Shared>,
    opened: Opened,
    view: TaskView,
    tx: mpsc::Sender<Result<T, Status>>,
    render: fn(Value) -> Result<T, Status>,
) {
    let version = peer.protocol;
    let Opened { task, mut feed } = opened;
    let send = render;
    let first = send(model::task_event_json(&task, version, view));
    let failed = first.is_err();
    if tx.send(first).await.is_err() || failed || task.status.state.is_terminal() {
        return;
    }
    let lag = peer.behaviour.stream_lag(peer.timing.chunk_interval);
    loop {
        tokio::select! {
            received = feed.recv() => match received {
                Ok(b) => {
                    if !lag.is_zero() {
                        tokio::time::sleep_until(b.at + lag).await;
                    }
                    let event = send(model::event_json(&b.event, version));
                    let failed = event.is_err();
                    if tx.send(event).await.is_err() || failed || b.close {
                        return;
                    }
                }
                Err(RecvError::Lagged(_)) | Err(RecvError::Closed) => return,
            },
            _ = tx.closed() => return,
            _ = peer.stopped() => return,
        }
    }
}

#[tonic::async_trait]
impl A2aService for GrpcPeer {
    async fn send_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<proto::SendMessageResponse>, Status> {
        self.unary::<_, pb::SendMessageRequest, pb::SendMessageResponse, _>(
            Operation::SendMessage,
            request,
        )
        .await
    }

    type SendStreamingMessageStream = EventStream;

    async fn send_streaming_message(
        &self,
        request: Request<proto::SendMessageRequest>,
    ) -> Result<Response<EventStream>, Status> {
        self.stream::<_, pb::SendMessageRequest>(Operation::SendStreamingMessage, request)
            .await
    }

    async fn get_task(
        &self,
        request: Request<proto::GetTaskRequest>,
    ) -> Result<Response<proto::Task>, Status> {
        self.unary::<_, pb::GetTaskRequest, pb::Task, _>(Operation::GetTask, request)
            .await
    }

    async fn list_tasks(
        &self,
        request: Request<proto::ListTasksRequest>,
    ) -> Result<Response<proto::ListTasksResponse>, Status> {
        self.unary::<_, pb::ListTasksRequest, pb::ListTasksResponse, _>(
            Operation::ListTasks,
            request,
        )
        .await
    }

    async fn cancel_task(
        &self,
        request: Request<proto::CancelTaskRequest>,
    ) -> Result<Response<proto::Task>, Status> {
        self.unary::<_, pb::CancelTaskRequest, pb::Task, _>(Operation::CancelTask, request)
            .await
    }

    type SubscribeToTaskStream = EventStream;

    async fn subscribe_to_task(
        &self,
        request: Request<proto::SubscribeToTaskRequest>,
    ) -> Result<Response<EventStream>, Status> {
        self.stream::<_, pb::SubscribeToTaskRequest>(Operation::SubscribeToTask, request)
            .await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<proto::TaskPushNotificationConfig>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        self.unary::<_, pb::TaskPushNotificationConfig, pb::TaskPushNotificationConfig, _>(
            Operation::CreatePushConfig,
            request,
        )
        .await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<proto::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<proto::TaskPushNotificationConfig>, Status> {
        self.unary::<_, pb::GetTaskPushNotificationConfigRequest, pb::TaskPushNotificationConfig, _>(
            Operation::GetPushConfig,
            request,
        )
        .await
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<proto::ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<proto::ListTaskPushNotificationConfigsResponse>, Status> {
        self.unary::<
            _,
            pb::ListTaskPushNotificationConfigsRequest,
            pb::ListTaskPushNotificationConfigsResponse,
            _,
        >(Operation::ListPushConfigs, request)
        .await
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<proto::GetExtendedAgentCardRequest>,
    ) -> Result<Response<proto::AgentCard>, Status> {
        self.unary::<_, pb::GetExtendedAgentCardRequest, pb::AgentCard, _>(
            Operation::GetExtendedCard,
            request,
        )
        .await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<proto::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        self.unary::<_, pb::DeleteTaskPushNotificationConfigRequest, (), ()>(
            Operation::DeletePushConfig,
            request,
        )
        .await
    }
}
