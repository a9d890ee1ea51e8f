//! The mock peer's protocol errors and their rendering: JSON-RPC error objects
//! (v1.0 with a google.rpc.ErrorInfo `data` array) and REST google.rpc.Status
//! bodies with the HTTP status of v1 §5.4.

use a2a_conform_protocol::{codes, ProtocolVersion};
use axum::http::StatusCode;
use serde_json::{json, Map, Value};

/// An A2A or JSON-RPC error the peer answers with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct A2aError {
    pub code: i64,
    pub message: String,
    /// What the 1.1 draft's generation mismatch names in its ErrorInfo
    /// `metadata`; `None` for every other error (boxed: they are most).
    pub mismatch: Option<Box<Mismatch>>,
}

/// The task and both generations of a TaskGenerationMismatchError.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mismatch {
    pub task_id: String,
    pub expected: i64,
    pub current: u64,
}

pub(crate) const ERROR_DOMAIN: &str = "a2a-protocol.org";
pub(crate) const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

impl A2aError {
    pub(crate) fn new(code: i64, message: impl Into<String>) -> A2aError {
        A2aError {
            code,
            message: message.into(),
            mismatch: None,
        }
    }

    /// The 1.1 draft's TaskGenerationMismatchError: `ifGenerationMatch`
    /// named `expected`, the task is at `current`.
    pub(crate) fn generation_mismatch(task_id: &str, expected: i64, current: u64) -> A2aError {
        A2aError {
            mismatch: Some(Box::new(Mismatch {
                task_id: task_id.to_string(),
                expected,
                current,
            })),
            ..A2aError::new(
                codes::TASK_GENERATION_MISMATCH,
                format!(
                    "Task generation mismatch: expected {expected} but current generation is {current}"
                ),
            )
        }
    }

    pub(crate) fn invalid_params(message: impl Into<String>) -> A2aError {
        A2aError::new(codes::INVALID_PARAMS, message)
    }

    pub(crate) fn task_not_found(id: &str) -> A2aError {
        A2aError::new(codes::TASK_NOT_FOUND, format!("task `{id}` not found"))
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> A2aError {
        A2aError::new(codes::UNSUPPORTED_OPERATION, message)
    }

    /// The error's type name as the official SDKs spell it
    /// (`TaskNotFoundError`): the v0.3 gRPC binding's errors start their
    /// message with it, as a2a-python's 0.3 `CompatGrpcHandler` does.
    pub(crate) fn type_name(&self) -> &'static str {
        match self.code {
            codes::TASK_NOT_FOUND => "TaskNotFoundError",
            codes::TASK_NOT_CANCELABLE => "TaskNotCancelableError",
            codes::PUSH_NOT_SUPPORTED => "PushNotificationNotSupportedError",
            codes::UNSUPPORTED_OPERATION => "UnsupportedOperationError",
            codes::CONTENT_TYPE_NOT_SUPPORTED => "ContentTypeNotSupportedError",
            codes::INVALID_AGENT_RESPONSE => "InvalidAgentResponseError",
            codes::EXTENDED_CARD_NOT_CONFIGURED => "AuthenticatedExtendedCardNotConfiguredError",
            codes::INVALID_PARAMS => "InvalidParamsError",
            codes::INVALID_REQUEST => "InvalidRequestError",
            codes::METHOD_NOT_FOUND => "MethodNotFoundError",
            codes::PARSE_ERROR => "JSONParseError",
            codes::TASK_GENERATION_MISMATCH => "TaskGenerationMismatchError",
            _ => "InternalError",
        }
    }

    /// The ErrorInfo `reason` of an A2A error (none for plain JSON-RPC errors).
    pub(crate) fn reason(&self) -> Option<&'static str> {
        Some(match self.code {
            codes::TASK_NOT_FOUND => "TASK_NOT_FOUND",
            codes::TASK_NOT_CANCELABLE => "TASK_NOT_CANCELABLE",
            codes::PUSH_NOT_SUPPORTED => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            codes::UNSUPPORTED_OPERATION => "UNSUPPORTED_OPERATION",
            codes::CONTENT_TYPE_NOT_SUPPORTED => "CONTENT_TYPE_NOT_SUPPORTED",
            codes::INVALID_AGENT_RESPONSE => "INVALID_AGENT_RESPONSE",
            codes::EXTENDED_CARD_NOT_CONFIGURED => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            codes::EXTENSION_SUPPORT_REQUIRED => "EXTENSION_SUPPORT_REQUIRED",
            codes::VERSION_NOT_SUPPORTED => "VERSION_NOT_SUPPORTED",
            codes::TASK_GENERATION_MISMATCH => "TASK_GENERATION_MISMATCH",
            _ => return None,
        })
    }

    /// The HTTP status and google.rpc status name of the REST binding.
    pub(crate) fn http_status(&self) -> (StatusCode, &'static str) {
        match self.code {
            codes::TASK_NOT_FOUND | codes::METHOD_NOT_FOUND => (StatusCode::NOT_FOUND, "NOT_FOUND"),
            codes::INVALID_PARAMS
            | codes::INVALID_REQUEST
            | codes::PARSE_ERROR
            | codes::CONTENT_TYPE_NOT_SUPPORTED => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
            codes::INTERNAL_ERROR | codes::INVALID_AGENT_RESPONSE => {
                (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL")
            }
            // The draft's optimistic-concurrency failure: google.rpc ABORTED.
            codes::TASK_GENERATION_MISMATCH => (StatusCode::CONFLICT, "ABORTED"),
            _ => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        }
    }

    fn error_info(&self) -> Option<Value> {
        let reason = self.reason()?;
        let mut info = json!({"@type": ERROR_INFO_TYPE, "reason": reason, "domain": ERROR_DOMAIN});
        if let Some(m) = &self.mismatch {
            // google.rpc.ErrorInfo metadata is a string map: int64s as text.
            info["metadata"] = json!({
                "taskId": m.task_id,
                "expectedGeneration": m.expected.to_string(),
                "currentGeneration": m.current.to_string(),
            });
        }
        Some(info)
    }

    /// The JSON-RPC `error` object. v1.0 carries `data: [ErrorInfo]` for A2A
    /// errors; v0.3 leaves `data` out.
    pub(crate) fn jsonrpc_error(&self, version: ProtocolVersion) -> Value {
        let mut out = Map::new();
        out.insert("code".into(), json!(self.code));
        out.insert("message".into(), json!(self.message));
        if version == ProtocolVersion::V1_0 {
            if let Some(info) = self.error_info() {
                out.insert("data".into(), json!([info]));
            }
        }
        Value::Object(out)
    }

    /// The REST body, `{"error":{code,status,message,details:[ErrorInfo]}}`.
    pub(crate) fn rest_body(&self) -> Value {
        let (http, status) = self.http_status();
        let details: Vec<Value> = self.error_info().into_iter().collect();
        json!({"error": {
            "code": http.as_u16(),
            "status": status,
            "message": self.message,
            "details": details,
        }})
    }
}

/// A full JSON-RPC error response echoing `id`.
pub(crate) fn jsonrpc_error_response(
    id: &Value,
    error: &A2aError,
    version: ProtocolVersion,
) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error.jsonrpc_error(version)})
}

/// A full JSON-RPC success response echoing `id`.
pub(crate) fn jsonrpc_result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_errors_carry_error_info() {
        let e = A2aError::task_not_found("x");
        let v1 = e.jsonrpc_error(ProtocolVersion::V1_0);
        assert_eq!(v1["code"], codes::TASK_NOT_FOUND);
        assert_eq!(v1["data"][0]["@type"], ERROR_INFO_TYPE);
        assert_eq!(v1["data"][0]["reason"], "TASK_NOT_FOUND");
        assert_eq!(v1["data"][0]["domain"], ERROR_DOMAIN);
        assert!(e.jsonrpc_error(ProtocolVersion::V0_3).get("data").is_none());
        let rest = e.rest_body();
        assert_eq!(rest["error"]["code"], 404);
        assert_eq!(rest["error"]["status"], "NOT_FOUND");
        let plain = A2aError::invalid_params("bad");
        assert!(plain
            .jsonrpc_error(ProtocolVersion::V1_0)
            .get("data")
            .is_none());
        assert_eq!(plain.http_status().0, StatusCode::BAD_REQUEST);
    }

    #[test]
    fn a_generation_mismatch_is_409_aborted_with_both_generations() {
        let e = A2aError::generation_mismatch("t-1", 3, 5);
        let rest = e.rest_body();
        assert_eq!(rest["error"]["code"], 409);
        assert_eq!(rest["error"]["status"], "ABORTED");
        assert_eq!(
            rest["error"]["message"],
            "Task generation mismatch: expected 3 but current generation is 5"
        );
        let info = &rest["error"]["details"][0];
        assert_eq!(info["reason"], "TASK_GENERATION_MISMATCH");
        assert_eq!(info["domain"], ERROR_DOMAIN);
        assert_eq!(
            info["metadata"],
            json!({"taskId": "t-1", "expectedGeneration": "3", "currentGeneration": "5"})
        );
        let rpc = e.jsonrpc_error(ProtocolVersion::V1_0);
        assert_eq!(rpc["code"], -32010);
        assert_eq!(rpc["data"][0], *info);
        // Other errors carry no metadata.
        assert!(
            A2aError::task_not_found("x").rest_body()["error"]["details"][0]
                .get("metadata")
                .is_none()
        );
    }
}
