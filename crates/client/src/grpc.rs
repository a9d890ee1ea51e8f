//! The gRPC binding for v1.0 (`lf.a2a.v1.A2AService`): the same operations
//! as JSON-RPC and REST, carried as protobuf. The runner's parameters are
//! read as ProtoJSON into the official message types of `a2a-pb` (generated
//! from the spec's `a2a.proto`), sent with `a2a-version` and the credentials
//! as metadata, and every answer is turned back into ProtoJSON, the JSON the
//! runner already reads. Calls are bounded in time and message size; every
//! exchange is recorded with its metadata (secrets masked), messages as
//! JSON, status, timing and a `grpcurl` line that reproduces it.
//!
//! v0.3 (`a2a.v1.A2AService`, the 0.3 proto compiled by the build script)
//! is in `v0_3`: its requests are rendered from the runner's 0.3 params and
//! go through the same bounded calls and records.

mod tls;
mod v0_3;
pub(crate) mod wire;

use super::http::TlsOptions;
use super::limits::Limits;
use super::reply::{Reply, REPLAY_MISS_HEADER};
use super::rest::code_for_reason;
use super::stream::StreamHandle;
use super::transcript::Transcript;
use crate::transcript::RecordKind;
use a2a_conform_protocol::text::{clip, human_duration};
use a2a_conform_protocol::v1_0::{method_name, GRPC_SERVICE};
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, RpcError};
use a2a_pb::protojson as pb;
use futures_util::StreamExt;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::MetadataMap;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// One gRPC call as the peer client set it up.
pub(super) struct GrpcCall {
    pub endpoint: url::Url,
    /// The metadata sent: `a2a-version`, credentials, extra headers.
    pub metadata: HeaderMap,
    /// The same metadata as evidence shows it: secrets masked or named by
    /// their environment variable.
    pub shown: Vec<(String, String)>,
    pub timeout: Duration,
    pub max_stream: Duration,
    /// The tool's caps (`--max-body-bytes` bounds each message, the stream
    /// caps each stream).
    pub limits: Limits,
    /// What the evidence says about the credentials (names, never values).
    pub note: String,
    /// The HTTP client's trust and identity, for `https` endpoints.
    pub tls: TlsOptions,
    /// The A2A version spoken: which service and messages.
    pub version: ProtocolVersion,
    /// Whether the endpoint is this machine's loopback: only then can a
    /// status be a replay's miss (a remote peer sending the marker would
    /// otherwise turn its own divergences into misses).
    pub loopback: bool,
}

/// The gRPC service of a version.
fn service(version: ProtocolVersion) -> &'static str {
    match version {
        ProtocolVersion::V1_0 => GRPC_SERVICE,
        ProtocolVersion::V0_3 => v0_3::SERVICE,
    }
}

/// The RPC an operation is in a version (ListTasks is none in 0.3).
fn rpc_name(version: ProtocolVersion, op: Operation) -> &'static str {
    match version {
        ProtocolVersion::V1_0 => method_name(op),
        ProtocolVersion::V0_3 => v0_3::method_name(op).unwrap_or("(none)"),
    }
}

/// Calls a unary operation and waits (bounded) for its answer.
pub(super) async fn unary(
    call: &GrpcCall,
    transcript: &Transcript,
    op: Operation,
    params: Value,
) -> Reply {
    if call.version == ProtocolVersion::V0_3 {
        return v0_3::unary(call, transcript, op, params).await;
    }
    match op {
        Operation::SendMessage => {
            unary_as::<pb::SendMessageRequest, pb::SendMessageResponse>(
                call, transcript, op, params,
            )
            .await
        }
        Operation::GetTask => {
            unary_as::<pb::GetTaskRequest, pb::Task>(call, transcript, op, params).await
        }
        Operation::ListTasks => {
            unary_as::<pb::ListTasksRequest, pb::ListTasksResponse>(call, transcript, op, params)
                .await
        }
        Operation::CancelTask => {
            unary_as::<pb::CancelTaskRequest, pb::Task>(call, transcript, op, params).await
        }
        Operation::CreatePushConfig => {
            unary_as::<pb::TaskPushNotificationConfig, pb::TaskPushNotificationConfig>(
                call, transcript, op, params,
            )
            .await
        }
        Operation::GetPushConfig => {
            unary_as::<pb::GetTaskPushNotificationConfigRequest, pb::TaskPushNotificationConfig>(
                call, transcript, op, params,
            )
            .await
        }
        Operation::ListPushConfigs => {
            unary_as::<
                pb::ListTaskPushNotificationConfigsRequest,
                pb::ListTaskPushNotificationConfigsResponse,
            >(call, transcript, op, params)
            .await
        }
        Operation::DeletePushConfig => {
            unary_as::<pb::DeleteTaskPushNotificationConfigRequest, ()>(
                call, transcript, op, params,
            )
            .await
        }
        Operation::GetExtendedCard => {
            unary_as::<pb::GetExtendedAgentCardRequest, pb::AgentCard>(call, transcript, op, params)
                .await
        }
        Operation::SendStreamingMessage | Operation::SubscribeToTask => Reply::Broken(format!(
            "{} is a server-streaming method; it is opened as a stream",
            method_name(op)
        )),
    }
}

/// Opens a server-streaming operation; the stream is read in the background.
/// An error status before the first message is the answer instead.
pub(super) async fn open_stream(
    call: &GrpcCall,
    transcript: &Arc<Transcript>,
    version: ProtocolVersion,
    op: Operation,
    params: Value,
) -> Result<StreamHandle, Reply> {
    match (version, op) {
        (ProtocolVersion::V0_3, _) => {
            v0_3::open_stream(call, transcript, version, op, params).await
        }
        (_, Operation::SendStreamingMessage) => {
            stream_as::<pb::SendMessageRequest, pb::StreamResponse>(
                call, transcript, version, op, params,
            )
            .await
        }
        (_, Operation::SubscribeToTask) => {
            stream_as::<pb::SubscribeToTaskRequest, pb::StreamResponse>(
                call, transcript, version, op, params,
            )
            .await
        }
        (_, other) => Err(Reply::Broken(format!(
            "{} is not a server-streaming method",
            method_name(other)
        ))),
    }
}

/// One server-streaming call with its request and event types.
async fn stream_as<Req, Resp>(
    call: &GrpcCall,
    transcript: &Arc<Transcript>,
    version: ProtocolVersion,
    op: Operation,
    params: Value,
) -> Result<StreamHandle, Reply>
where
    Req: prost::Message + Serialize + DeserializeOwned + Default + Send + 'static,
    Resp: prost::Message + Serialize + Default + Send + 'static,
{
    let (path, request) = prepare::<Req>(call, op, params)?;
    let sent_at = record_request(call, transcript, op, &request);
    let mut grpc = connect(call, transcript).await?;
    let message: Req = decode_again(&request)?;
    let codec = tonic_prost::ProstCodec::<Req, Resp>::default();
    let opened = tokio::time::timeout(
        call.timeout,
        grpc.server_streaming(with_metadata(call, message), path, codec),
    )
    .await;
    let response = match opened {
        Err(_) => return Err(no_answer(call, transcript, sent_at)),
        Ok(Err(status)) => return Err(record_status(call, transcript, sent_at, &status)),
        Ok(Ok(response)) => response,
    };
    transcript.record(
        RecordKind::Response,
        Instant::now(),
        format!(
            "← gRPC stream opened after {}",
            human_duration(sent_at.elapsed())
        ),
        None,
        None,
    );
    let messages = response
        .into_inner()
        .map(move |item| match item {
            Ok(message) => serde_json::to_string(&message).map_err(StreamMessageError::Render),
            Err(status) => match classify_status(&status, version) {
                // An error status ending the stream is an error event, as
                // an SSE error frame would be.
                Reply::Err(error) => Ok(json!({ "error": error }).to_string()),
                _ => Err(StreamMessageError::Ended {
                    code: code_name(status.code()),
                    message: clip(status.message(), 200),
                }),
            },
        })
        .boxed();
    let mut handle = StreamHandle::spawn_messages(
        messages,
        transcript.clone(),
        version,
        call.max_stream,
        call.limits,
    );
    handle.sent_at = sent_at;
    Ok(handle)
}

/// One unary call with its request and response types.
async fn unary_as<Req, Resp>(
    call: &GrpcCall,
    transcript: &Transcript,
    op: Operation,
    params: Value,
) -> Reply
where
    Req: prost::Message + Serialize + DeserializeOwned + Default + Send + 'static,
    Resp: prost::Message + Serialize + Default + Send + 'static,
{
    let (path, request) = match prepare::<Req>(call, op, params) {
        Ok(p) => p,
        Err(reply) => return reply,
    };
    let sent_at = record_request(call, transcript, op, &request);
    let mut grpc = match connect(call, transcript).await {
        Ok(g) => g,
        Err(reply) => return reply,
    };
    let message: Req = match decode_again(&request) {
        Ok(m) => m,
        Err(reply) => return reply,
    };
    let codec = tonic_prost::ProstCodec::<Req, Resp>::default();
    let answer = tokio::time::timeout(
        call.timeout,
        grpc.unary(with_metadata(call, message), path, codec),
    )
    .await;
    match answer {
        Err(_) => no_answer(call, transcript, sent_at),
        Ok(Err(status)) => record_status(call, transcript, sent_at, &status),
        Ok(Ok(response)) => {
            let value = match serde_json::to_value(response.get_ref()) {
                Ok(v) => v,
                Err(e) => return Reply::Broken(format!("cannot render the answer as JSON: {e}")),
            };
            transcript.record(
                RecordKind::Response,
                Instant::now(),
                format!(
                    "← gRPC OK ({} bytes in {})",
                    response.get_ref().encoded_len(),
                    human_duration(sent_at.elapsed())
                ),
                Some(value.to_string()),
                None,
            );
            Reply::Ok(value)
        }
    }
}

/// The method path and the request as it goes on the wire (ProtoJSON of the
/// parsed message: what the peer receives, unknown keys dropped).
fn prepare<Req>(
    call: &GrpcCall,
    op: Operation,
    params: Value,
) -> Result<(PathAndQuery, Value), Reply>
where
    Req: prost::Message + Serialize + DeserializeOwned,
{
    let (service, method) = (service(call.version), rpc_name(call.version, op));
    let message: Req = serde_json::from_value(params).map_err(|e| {
        Reply::Broken(format!(
            "the tool cannot encode these parameters as the {method} request of {service}: {e}"
        ))
    })?;
    let value = serde_json::to_value(&message)
        .map_err(|e| Reply::Broken(format!("cannot render the request as JSON: {e}")))?;
    let path = PathAndQuery::try_from(format!("/{service}/{method}"))
        .map_err(|e| Reply::Broken(format!("invalid gRPC path: {e}")))?;
    Ok((path, value))
}

fn decode_again<Req: DeserializeOwned>(value: &Value) -> Result<Req, Reply> {
    serde_json::from_value(value.clone())
        .map_err(|e| Reply::Broken(format!("cannot read back the request: {e}")))
}

fn with_metadata<T>(call: &GrpcCall, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    *request.metadata_mut() = MetadataMap::from_headers(call.metadata.clone());
    request
}

/// A bounded channel to the endpoint: connect within the timeout, messages
/// capped at `--max-body-bytes` both ways. TLS for `https` endpoints, with
/// the HTTP client's roots, `--cacert`, `--cert`/`--key` and `--insecure`.
async fn connect(
    call: &GrpcCall,
    transcript: &Transcript,
) -> Result<tonic::client::Grpc<Channel>, Reply> {
    let unreachable = |reason: String| {
        let reason = format!("could not reach {}: {reason}", call.endpoint);
        transcript.note(reason.clone());
        Reply::Unreachable(reason)
    };
    if !crate::http::may_connect(&call.endpoint) {
        return Err(unreachable(
            "not connected: this process is confined to one origin (rejudge is offline)".into(),
        ));
    }
    let secure = call.endpoint.scheme() == "https";
    // tonic is given the `http` form: TLS is the connector's (see `tls`).
    let mut plain = call.endpoint.clone();
    if secure {
        let _ = plain.set_scheme("http");
    }
    let endpoint = Endpoint::from_shared(plain.to_string())
        .map_err(|e| unreachable(e.to_string()))?
        .connect_timeout(call.timeout);
    let connected = if secure {
        tokio::time::timeout(call.timeout, async {
            tls::connect(endpoint, &call.tls)
                .await
                .map_err(|e| describe_error(&e))
        })
        .await
    } else {
        tokio::time::timeout(call.timeout, async {
            endpoint.connect().await.map_err(|e| describe_error(&e))
        })
        .await
    };
    let channel = match connected {
        Err(_) => return Err(unreachable("connect timed out".into())),
        Ok(Err(reason)) => return Err(unreachable(reason)),
        Ok(Ok(channel)) => channel,
    };
    let mut grpc = tonic::client::Grpc::new(channel)
        .max_decoding_message_size(call.limits.max_body_bytes)
        .max_encoding_message_size(call.limits.max_body_bytes);
    match tokio::time::timeout(call.timeout, grpc.ready()).await {
        Err(_) => Err(unreachable("the channel was not ready in time".into())),
        Ok(Err(e)) => Err(unreachable(describe_error(&e))),
        Ok(Ok(())) => Ok(grpc),
    }
}

fn describe_error(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if text.contains("UnknownIssuer") || text.contains("invalid peer certificate") {
        text.push_str(
            "; the peer's TLS certificate is not trusted: pass the CA that issued it \
             with --cacert FILE (PEM), or skip verification with --insecure",
        );
    }
    text
}

fn record_request(
    call: &GrpcCall,
    transcript: &Transcript,
    op: Operation,
    request: &Value,
) -> Instant {
    let at = Instant::now();
    let metadata = call
        .shown
        .iter()
        .map(|(name, value)| format!("{name}: {value}"))
        .collect::<Vec<_>>()
        .join(", ");
    transcript.record(
        RecordKind::Request,
        at,
        format!(
            "→ gRPC {}/{} at {} [metadata: {metadata}]{}",
            service(call.version),
            rpc_name(call.version, op),
            target(&call.endpoint),
            call.note
        ),
        Some(request.to_string()),
        Some(grpcurl_line(call, op, request)),
    );
    at
}

/// `host:port` of an endpoint, as grpcurl takes it.
fn target(endpoint: &url::Url) -> String {
    let host = endpoint.host_str().unwrap_or("?");
    match endpoint.port_or_known_default() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    }
}

/// A grpcurl command reproducing the call (the peer may not serve
/// reflection, so the official `a2a.proto` is named); secrets stay in the
/// environment.
fn grpcurl_line(call: &GrpcCall, op: Operation, request: &Value) -> String {
    let mut line = String::from("grpcurl");
    if call.endpoint.scheme() != "https" {
        line.push_str(" -plaintext");
    }
    line.push_str(" -proto a2a.proto");
    for (name, value) in &call.shown {
        let header = format!("{name}: {value}");
        if value.contains('$') {
            line.push_str(&format!(" -H \"{header}\""));
        } else {
            line.push_str(&format!(" -H '{header}'"));
        }
    }
    line.push_str(&format!(
        " -d '{}' {} {}/{}",
        request.to_string().replace('\'', "'\\''"),
        target(&call.endpoint),
        service(call.version),
        rpc_name(call.version, op)
    ));
    line
}

/// `--timeout` ran out before an answer: the tool's own cap, never a malfunction.
fn no_answer(call: &GrpcCall, transcript: &Transcript, sent_at: Instant) -> Reply {
    let reason = crate::http::timeout_reason(call.timeout);
    transcript.record(
        RecordKind::Response,
        sent_at + call.timeout,
        reason.clone(),
        None,
        None,
    );
    Reply::Capped(reason)
}

/// Records an error status and classifies it; a replay's miss is the
/// recording's gap, never the peer's answer.
fn record_status(
    call: &GrpcCall,
    transcript: &Transcript,
    sent_at: Instant,
    status: &Status,
) -> Reply {
    if let Some(reply) = replay_miss(call, transcript, status) {
        return reply;
    }
    let version = call.version;
    let reason = status
        .get_details_error_info()
        .map(|info| info.reason)
        .filter(|r| !r.is_empty());
    let body = json!({
        "code": code_name(status.code()),
        "message": status.message(),
        "reason": reason,
    });
    transcript.record(
        RecordKind::Response,
        Instant::now(),
        format!(
            "← gRPC {}{} in {}",
            code_name(status.code()),
            reason
                .as_deref()
                .map(|r| format!(" (ErrorInfo reason {r})"))
                .unwrap_or_default(),
            human_duration(sent_at.elapsed())
        ),
        Some(body.to_string()),
        None,
    );
    classify_status(status, version)
}

/// A replay's miss (a status marked with [`REPLAY_MISS_HEADER`] on a
/// loopback endpoint), recorded as the HTTP bindings record one.
fn replay_miss(call: &GrpcCall, transcript: &Transcript, status: &Status) -> Option<Reply> {
    let mark = status.metadata().get(REPLAY_MISS_HEADER)?;
    if !call.loopback {
        return None;
    }
    let reason = clip(status.message(), 64 * 1024);
    transcript.replay_miss(&reason);
    Some(Reply::NotRecorded {
        reason,
        unverified: mark.as_bytes() == b"unverified",
    })
}

/// Maps a gRPC error status to the A2A error it stands for: the ErrorInfo
/// `reason` first (v1 §5.4, as REST does), then, in v0.3 only, the error's
/// name at the start of the message ([`code_for_v0_3_name`]), then the
/// status codes the table maps one to one; UNAUTHENTICATED and
/// PERMISSION_DENIED are refusals, as HTTP 401 and 403 are.
pub(crate) fn classify_status(status: &Status, version: ProtocolVersion) -> Reply {
    // A status tonic made up from a transport failure (an HTTP/2 protocol
    // error, a reset stream) carries its cause; one the peer sent does not.
    // The former is a broken answer, never the peer's A2A error.
    if let Some(cause) = std::error::Error::source(status) {
        return Reply::Broken(format!(
            "the gRPC exchange broke ({}): {}",
            status.message(),
            describe_error(cause)
        ));
    }
    let message = status.message().to_string();
    let reason = status
        .get_details_error_info()
        .map(|info| info.reason)
        .filter(|r| !r.is_empty());
    let error = |code: i64| {
        Reply::Err(RpcError {
            code,
            message: message.clone(),
            data: Some(json!({
                "grpcStatus": code_name(status.code()),
                "reason": reason,
            })),
        })
    };
    match status.code() {
        Code::Unauthenticated => {
            return Reply::Refused {
                status: 401,
                detail: format!("gRPC UNAUTHENTICATED: {}", clip(&message, 120)),
            }
        }
        Code::PermissionDenied => {
            return Reply::Refused {
                status: 403,
                detail: format!("gRPC PERMISSION_DENIED: {}", clip(&message, 120)),
            }
        }
        _ => {}
    }
    if let Some(code) = reason.as_deref().and_then(code_for_reason) {
        return error(code);
    }
    if version == ProtocolVersion::V0_3 && reason.is_none() {
        if let Some((code, name)) = code_for_v0_3_name(&message) {
            return Reply::Err(RpcError {
                code,
                message: message.clone(),
                data: Some(json!({
                    "grpcStatus": code_name(status.code()),
                    "errorName": name,
                })),
            });
        }
    }
    match status.code() {
        Code::InvalidArgument => error(codes::INVALID_PARAMS),
        Code::Internal => error(codes::INTERNAL_ERROR),
        Code::NotFound => error(codes::TASK_NOT_FOUND),
        Code::Unimplemented => error(codes::METHOD_NOT_FOUND),
        other => Reply::Broken(format!(
            "gRPC {} without a known ErrorInfo reason ({}): {}",
            code_name(other),
            reason.as_deref().unwrap_or("none"),
            clip(&message, 160)
        )),
    }
}

/// The A2A error a v0.3 gRPC status names at the start of its message
/// (`TaskNotCancelableError: Task cannot be canceled`), with that name.
/// v0.3 defines no ErrorInfo for gRPC, and several A2A errors share
/// FAILED_PRECONDITION: the 0.3 SDKs tell them apart by this name
/// (a2a-python's `CompatGrpcHandler` writes it and its 0.3 gRPC client reads
/// it back; a2a-java's 0.3 `GrpcErrorMapper` reads the description too).
/// v1.0 makes the ErrorInfo a MUST, so this is never read there.
fn code_for_v0_3_name(message: &str) -> Option<(i64, &str)> {
    let (name, _) = message.split_once(':')?;
    let name = name.trim();
    let code = match name {
        "TaskNotFoundError" => codes::TASK_NOT_FOUND,
        "TaskNotCancelableError" => codes::TASK_NOT_CANCELABLE,
        "PushNotificationNotSupportedError" => codes::PUSH_NOT_SUPPORTED,
        "UnsupportedOperationError" => codes::UNSUPPORTED_OPERATION,
        "ContentTypeNotSupportedError" => codes::CONTENT_TYPE_NOT_SUPPORTED,
        "InvalidAgentResponseError" => codes::INVALID_AGENT_RESPONSE,
        // The 0.3 name, and the 1.0 name a 1.0 handler behind the 0.3
        // service raises (a2a-python's compat layer passes it through).
        "AuthenticatedExtendedCardNotConfiguredError" | "ExtendedAgentCardNotConfiguredError" => {
            codes::EXTENDED_CARD_NOT_CONFIGURED
        }
        "InvalidParamsError" => codes::INVALID_PARAMS,
        "InvalidRequestError" => codes::INVALID_REQUEST,
        "MethodNotFoundError" => codes::METHOD_NOT_FOUND,
        "InternalError" => codes::INTERNAL_ERROR,
        _ => return None,
    };
    Some((code, name))
}

/// Why a gRPC server stream stopped short of a clean end.
#[derive(Debug, thiserror::Error)]
pub(super) enum StreamMessageError {
    #[error("cannot render a StreamResponse as JSON: {0}")]
    Render(#[source] serde_json::Error),
    /// A non-A2A status ended the stream (an A2A error becomes an event).
    #[error("the stream ended with gRPC {code}: {message}")]
    Ended { code: &'static str, message: String },
}

/// The canonical name of a status code (`NOT_FOUND`).
pub(crate) fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::{ErrorDetails, StatusExt};

    #[test]
    fn statuses_map_by_reason_then_code() {
        let with_reason = |code, reason: &str| {
            Status::with_error_details(
                code,
                "m",
                ErrorDetails::with_error_info(reason, "a2a-protocol.org", []),
            )
        };
        let code_of = |s: &Status| match classify_status(s, ProtocolVersion::V1_0) {
            Reply::Err(e) => Some(e.code),
            _ => None,
        };
        assert_eq!(
            code_of(&with_reason(
                Code::FailedPrecondition,
                "TASK_NOT_CANCELABLE"
            )),
            Some(codes::TASK_NOT_CANCELABLE)
        );
        assert_eq!(
            code_of(&with_reason(
                Code::FailedPrecondition,
                "UNSUPPORTED_OPERATION"
            )),
            Some(codes::UNSUPPORTED_OPERATION)
        );
        assert_eq!(
            code_of(&Status::not_found("gone")),
            Some(codes::TASK_NOT_FOUND)
        );
        assert_eq!(
            code_of(&Status::invalid_argument("bad")),
            Some(codes::INVALID_PARAMS)
        );
        assert!(matches!(
            classify_status(&Status::failed_precondition("which?"), ProtocolVersion::V1_0),
            Reply::Broken(r) if r.contains("FAILED_PRECONDITION")
        ));
        assert!(matches!(
            classify_status(&Status::unauthenticated("no token"), ProtocolVersion::V1_0),
            Reply::Refused { status: 401, .. }
        ));
    }

    #[test]
    fn a_v0_3_status_without_error_info_is_read_by_the_error_name_it_starts_with() {
        let named = Status::failed_precondition(
            "PushNotificationNotSupportedError: Push notifications are not supported by the agent",
        );
        let code_of = |s: &Status, v| match classify_status(s, v) {
            Reply::Err(e) => Some(e.code),
            _ => None,
        };
        assert_eq!(
            code_of(&named, ProtocolVersion::V0_3),
            Some(codes::PUSH_NOT_SUPPORTED)
        );
        assert_eq!(
            code_of(
                &Status::failed_precondition("ExtendedAgentCardNotConfiguredError: none"),
                ProtocolVersion::V0_3
            ),
            Some(codes::EXTENDED_CARD_NOT_CONFIGURED)
        );
        // v1.0 makes the ErrorInfo a MUST: a name alone is no A2A error there.
        assert!(matches!(
            classify_status(&named, ProtocolVersion::V1_0),
            Reply::Broken(r) if r.contains("without a known ErrorInfo reason")
        ));
        // A name the table does not know, or none, still tells nothing.
        for message in ["SomethingElseError: x", "which?"] {
            assert!(matches!(
                classify_status(&Status::failed_precondition(message), ProtocolVersion::V0_3),
                Reply::Broken(_)
            ));
        }
        // An ErrorInfo reason wins over the name.
        let both = Status::with_error_details(
            Code::FailedPrecondition,
            "UnsupportedOperationError: x",
            ErrorDetails::with_error_info("TASK_NOT_CANCELABLE", "a2a-protocol.org", []),
        );
        assert_eq!(
            code_of(&both, ProtocolVersion::V0_3),
            Some(codes::TASK_NOT_CANCELABLE)
        );
    }

    #[test]
    fn a_marked_status_is_a_replay_miss_only_from_loopback() {
        let call = |loopback| GrpcCall {
            endpoint: url::Url::parse("http://127.0.0.1:50051").unwrap(),
            metadata: HeaderMap::new(),
            shown: Vec::new(),
            timeout: Duration::from_secs(1),
            max_stream: Duration::from_secs(1),
            limits: Limits::default(),
            note: String::new(),
            tls: TlsOptions::default(),
            version: ProtocolVersion::V1_0,
            loopback,
        };
        let mut status = Status::unimplemented("a2a-conform replay: not in the recording: run `x`");
        status
            .metadata_mut()
            .insert(REPLAY_MISS_HEADER, "unverified".parse().unwrap());
        let transcript = Transcript::new(Arc::new(crate::Redactor::default()));
        let read = record_status(&call(true), &transcript, Instant::now(), &status);
        assert!(
            matches!(&read, Reply::NotRecorded { reason, unverified: true } if reason.contains("run `x`")),
            "{read:?}"
        );
        // A remote peer's marker is its own answer: UNIMPLEMENTED, as any.
        let remote = record_status(&call(false), &transcript, Instant::now(), &status);
        assert!(matches!(remote, Reply::Err(_)), "{remote:?}");
    }

    #[test]
    fn requests_are_read_as_protojson_and_reproduced_without_secrets() {
        let call = GrpcCall {
            endpoint: url::Url::parse("http://127.0.0.1:50051").unwrap(),
            metadata: HeaderMap::new(),
            shown: vec![
                ("a2a-version".into(), "1.0".into()),
                ("authorization".into(), "Bearer $TOKEN".into()),
            ],
            timeout: Duration::from_secs(1),
            max_stream: Duration::from_secs(1),
            limits: Limits::default(),
            note: String::new(),
            tls: TlsOptions::default(),
            version: ProtocolVersion::V1_0,
            loopback: true,
        };
        let params = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
            "parts": [{"text": "hi"}]}, "unknownKey": 1});
        let (path, sent) =
            prepare::<pb::SendMessageRequest>(&call, Operation::SendMessage, params).unwrap();
        assert_eq!(path.as_str(), "/lf.a2a.v1.A2AService/SendMessage");
        assert_eq!(sent["message"]["parts"][0]["text"], "hi");
        assert!(sent.get("unknownKey").is_none(), "{sent}");
        let line = grpcurl_line(&call, Operation::SendMessage, &sent);
        assert!(
            line.starts_with("grpcurl -plaintext -proto a2a.proto"),
            "{line}"
        );
        assert!(line.contains("\"authorization: Bearer $TOKEN\""), "{line}");
        assert!(
            line.ends_with("127.0.0.1:50051 lf.a2a.v1.A2AService/SendMessage"),
            "{line}"
        );
        assert!(matches!(
            prepare::<pb::GetTaskRequest>(&call, Operation::GetTask, json!({"id": 7})),
            Err(Reply::Broken(r)) if r.contains("GetTask")
        ));
    }
}
