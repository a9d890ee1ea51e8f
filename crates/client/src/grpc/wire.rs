//! The gRPC wire the other way round, for a replay serving recorded gRPC
//! exchanges (`a2a-conform replay`): a request's protobuf message read into
//! the ProtoJSON the client records for it, a recorded ProtoJSON answer
//! written back as the method's protobuf response, and a recorded error
//! status (`{code, message, reason}`, as [`super::record_status`] writes
//! it) as the status metadata a peer sends. The proto knowledge stays here,
//! with the types the calls use, so the replay needs none of its own.

use super::v0_3::pb as pb03;
use a2a_conform_protocol::ProtocolVersion;
use a2a_pb::protojson as pb;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tonic::codegen::http::HeaderMap;
use tonic::Code;
use tonic_types::{ErrorDetails, StatusExt};

/// The ErrorInfo domain of A2A errors (v1 §5.4): the recording keeps the
/// reason only.
const ERROR_DOMAIN: &str = "a2a-protocol.org";

/// Why a gRPC message or status could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum GrpcWireError {
    /// The path names no A2A method of either version's service.
    #[error("`{0}` is no A2A gRPC method (lf.a2a.v1.A2AService or a2a.v1.A2AService)")]
    UnknownMethod(String),
    /// The request's bytes are not the method's protobuf request.
    #[error("the {method} request is not its protobuf message: {reason}")]
    Decode {
        /// `service/Method`.
        method: String,
        /// What the decoder said.
        reason: String,
    },
    /// The recorded answer does not read as the method's response.
    #[error("the recorded {method} answer is not its ProtoJSON response: {reason}")]
    Encode {
        /// `service/Method`.
        method: String,
        /// What failed.
        reason: String,
    },
    /// A recorded status names no gRPC code, or cannot be a header.
    #[error("the recorded gRPC status cannot be sent: {0}")]
    Status(String),
}

/// What a decoder or encoder met (its words go into [`GrpcWireError`]).
#[derive(Debug, thiserror::Error)]
enum Fault {
    #[error("{0}")]
    Proto(#[from] prost::DecodeError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

type Decode = fn(&[u8]) -> Result<Value, Fault>;
type Encode = fn(&Value) -> Result<Vec<u8>, Fault>;

/// The version a gRPC method path (`/service/Method` or `service/Method`)
/// speaks, and its method name; `None` for a path of neither service.
pub fn grpc_method(path: &str) -> Option<(ProtocolVersion, &str)> {
    let (service, method) = path.trim_start_matches('/').split_once('/')?;
    let version = match service {
        s if s == super::service(ProtocolVersion::V1_0) => ProtocolVersion::V1_0,
        s if s == super::service(ProtocolVersion::V0_3) => ProtocolVersion::V0_3,
        _ => return None,
    };
    Some((version, method))
}

/// A request message (the gRPC frame's payload) for the method at `path`,
/// as the ProtoJSON the client records for that request.
pub fn decode_grpc_request(path: &str, message: &[u8]) -> Result<Value, GrpcWireError> {
    let (decode, _) = codec(path)?;
    decode(message).map_err(|fault| GrpcWireError::Decode {
        method: path.trim_start_matches('/').to_string(),
        reason: fault.to_string(),
    })
}

/// A recorded ProtoJSON answer (or stream event) of the method at `path`,
/// as its protobuf response message (a gRPC frame's payload).
pub fn encode_grpc_answer(path: &str, answer: &Value) -> Result<Vec<u8>, GrpcWireError> {
    let (_, encode) = codec(path)?;
    encode(answer).map_err(|fault| GrpcWireError::Encode {
        method: path.trim_start_matches('/').to_string(),
        reason: fault.to_string(),
    })
}

/// The status metadata (`grpc-status`, `grpc-message` and, with a reason,
/// `grpc-status-details-bin` holding a google.rpc.Status with its
/// ErrorInfo) of a recorded error answer `{code, message, reason}`.
pub fn grpc_status_headers(recorded: &Value) -> Result<HeaderMap, GrpcWireError> {
    let name = recorded["code"].as_str().unwrap_or_default();
    let code = code_named(name)
        .ok_or_else(|| GrpcWireError::Status(format!("`{name}` is no gRPC status code")))?;
    let message = recorded["message"].as_str().unwrap_or_default();
    let status = match recorded["reason"].as_str() {
        Some(reason) => tonic::Status::with_error_details(
            code,
            message,
            ErrorDetails::with_error_info(reason, ERROR_DOMAIN, []),
        ),
        None => tonic::Status::new(code, message),
    };
    let mut headers = HeaderMap::new();
    status
        .add_header(&mut headers)
        .map_err(|e| GrpcWireError::Status(e.message().to_string()))?;
    Ok(headers)
}

/// The status code of a canonical name (`NOT_FOUND`).
fn code_named(name: &str) -> Option<Code> {
    (0..=16)
        .map(Code::from_i32)
        .find(|code| super::code_name(*code) == name)
}

fn decode_as<M: prost::Message + Default + Serialize>(bytes: &[u8]) -> Result<Value, Fault> {
    let message = M::decode(bytes)?;
    Ok(serde_json::to_value(&message)?)
}

fn encode_as<M: prost::Message + DeserializeOwned>(value: &Value) -> Result<Vec<u8>, Fault> {
    let message: M = serde_json::from_value(value.clone())?;
    Ok(message.encode_to_vec())
}

/// The request decoder and response encoder of a method: the same types
/// the calls in `grpc` and `v0_3` use.
fn codec(path: &str) -> Result<(Decode, Encode), GrpcWireError> {
    let unknown = || GrpcWireError::UnknownMethod(path.trim_start_matches('/').to_string());
    let (version, method) = grpc_method(path).ok_or_else(unknown)?;
    let found = match version {
        ProtocolVersion::V1_0 => codec_1_0(method),
        ProtocolVersion::V0_3 => codec_0_3(method),
    };
    found.ok_or_else(unknown)
}

fn codec_1_0(method: &str) -> Option<(Decode, Encode)> {
    Some(match method {
        "SendMessage" => (
            decode_as::<pb::SendMessageRequest>,
            encode_as::<pb::SendMessageResponse>,
        ),
        "SendStreamingMessage" => (
            decode_as::<pb::SendMessageRequest>,
            encode_as::<pb::StreamResponse>,
        ),
        "GetTask" => (decode_as::<pb::GetTaskRequest>, encode_as::<pb::Task>),
        "ListTasks" => (
            decode_as::<pb::ListTasksRequest>,
            encode_as::<pb::ListTasksResponse>,
        ),
        "CancelTask" => (decode_as::<pb::CancelTaskRequest>, encode_as::<pb::Task>),
        "SubscribeToTask" => (
            decode_as::<pb::SubscribeToTaskRequest>,
            encode_as::<pb::StreamResponse>,
        ),
        "CreateTaskPushNotificationConfig" => (
            decode_as::<pb::TaskPushNotificationConfig>,
            encode_as::<pb::TaskPushNotificationConfig>,
        ),
        "GetTaskPushNotificationConfig" => (
            decode_as::<pb::GetTaskPushNotificationConfigRequest>,
            encode_as::<pb::TaskPushNotificationConfig>,
        ),
        "ListTaskPushNotificationConfigs" => (
            decode_as::<pb::ListTaskPushNotificationConfigsRequest>,
            encode_as::<pb::ListTaskPushNotificationConfigsResponse>,
        ),
        "DeleteTaskPushNotificationConfig" => (
            decode_as::<pb::DeleteTaskPushNotificationConfigRequest>,
            encode_as::<()>,
        ),
        "GetExtendedAgentCard" => (
            decode_as::<pb::GetExtendedAgentCardRequest>,
            encode_as::<pb::AgentCard>,
        ),
        _ => return None,
    })
}

fn codec_0_3(method: &str) -> Option<(Decode, Encode)> {
    Some(match method {
        "SendMessage" => (
            decode_as::<pb03::SendMessageRequest>,
            encode_as::<pb03::SendMessageResponse>,
        ),
        "SendStreamingMessage" => (
            decode_as::<pb03::SendMessageRequest>,
            encode_as::<pb03::StreamResponse>,
        ),
        "GetTask" => (decode_as::<pb03::GetTaskRequest>, encode_as::<pb03::Task>),
        "CancelTask" => (
            decode_as::<pb03::CancelTaskRequest>,
            encode_as::<pb03::Task>,
        ),
        "TaskSubscription" => (
            decode_as::<pb03::TaskSubscriptionRequest>,
            encode_as::<pb03::StreamResponse>,
        ),
        "CreateTaskPushNotificationConfig" => (
            decode_as::<pb03::CreateTaskPushNotificationConfigRequest>,
            encode_as::<pb03::TaskPushNotificationConfig>,
        ),
        "GetTaskPushNotificationConfig" => (
            decode_as::<pb03::GetTaskPushNotificationConfigRequest>,
            encode_as::<pb03::TaskPushNotificationConfig>,
        ),
        "ListTaskPushNotificationConfig" => (
            decode_as::<pb03::ListTaskPushNotificationConfigRequest>,
            encode_as::<pb03::ListTaskPushNotificationConfigResponse>,
        ),
        "DeleteTaskPushNotificationConfig" => (
            decode_as::<pb03::DeleteTaskPushNotificationConfigRequest>,
            encode_as::<pbjson_types::Empty>,
        ),
        "GetAgentCard" => (
            decode_as::<pb03::GetAgentCardRequest>,
            encode_as::<pb03::AgentCard>,
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;
    use serde_json::json;

    #[test]
    fn requests_and_answers_cross_the_wire_as_the_client_records_them() {
        let path = "/lf.a2a.v1.A2AService/SendMessage";
        let sent = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
            "parts": [{"text": "hi"}]}, "configuration": {}});
        let message: pb::SendMessageRequest = serde_json::from_value(sent.clone()).unwrap();
        let read = decode_grpc_request(path, &message.encode_to_vec()).unwrap();
        assert_eq!(read, serde_json::to_value(&message).unwrap());
        let answer = json!({"task": {"id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_COMPLETED"}}});
        let bytes = encode_grpc_answer(path, &answer).unwrap();
        let back = pb::SendMessageResponse::decode(&bytes[..]).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap()["task"]["id"], "t1");
        let v03 = "a2a.v1.A2AService/TaskSubscription";
        assert_eq!(
            grpc_method(v03),
            Some((ProtocolVersion::V0_3, "TaskSubscription"))
        );
        assert!(decode_grpc_request(v03, &[0xff, 0xff, 0xff]).is_err());
        assert!(matches!(
            decode_grpc_request("/other.Service/GetTask", &[]),
            Err(GrpcWireError::UnknownMethod(_))
        ));
        assert!(matches!(
            encode_grpc_answer(path, &json!({"task": 7})),
            Err(GrpcWireError::Encode { .. })
        ));
    }

    #[test]
    fn a_recorded_error_status_is_sent_with_its_error_info() {
        let headers = grpc_status_headers(&json!({"code": "NOT_FOUND",
            "message": "task `x` not found", "reason": "TASK_NOT_FOUND"}))
        .unwrap();
        let status = tonic::Status::from_header_map(&headers).unwrap();
        assert_eq!(status.code(), Code::NotFound);
        assert_eq!(status.message(), "task `x` not found");
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "TASK_NOT_FOUND"
        );
        assert!(grpc_status_headers(&json!({"code": "NOPE"})).is_err());
    }
}
