//! The version-neutral A2A names: protocol versions, bindings, operations,
//! task states and error codes. Each enum's own spelling (reports, scenarios,
//! the CLI) is derived in one place here; the per-version wire spellings
//! (`v1_0`, `v0_3`) map onto these types and are stitched together in the
//! parent module. A leaf: it imports nothing of the crate.

use serde::{Deserialize, Serialize};

/// An A2A protocol version the tool speaks. Its name (`1.0`) is also how it
/// serializes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(into = "&'static str", try_from = "String")]
pub enum ProtocolVersion {
    /// A2A 1.0: PascalCase methods, `TASK_STATE_*`, `supportedInterfaces`,
    /// the `A2A-Version` header; JSON-RPC, HTTP+JSON and gRPC.
    #[strum(serialize = "1.0")]
    V1_0,
    /// A2A 0.3: slash-style methods, kebab-case states, `kind` tags, a
    /// top-level card `url`; JSON-RPC and HTTP+JSON.
    #[strum(serialize = "0.3")]
    V0_3,
}

impl ProtocolVersion {
    /// The version's name (`1.0`, `0.3`): what `--protocol` takes and
    /// reports print.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Reads a declared version, comparing on Major.Minor only ("0.3.0" is 0.3).
    pub fn from_declared(text: &str) -> Option<Self> {
        let mut parts = text.trim().trim_start_matches('v').split('.');
        let major = parts.next()?;
        let minor = parts.next().unwrap_or("0");
        format!("{major}.{minor}").parse().ok()
    }
}

impl TryFrom<String> for ProtocolVersion {
    type Error = strum::ParseError;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        name.parse()
    }
}

/// The transport binding used to reach a peer.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::Display,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (`JSONRPC` on the card).
    Jsonrpc,
    /// HTTP+JSON, the REST binding (`HTTP+JSON` on the card).
    Rest,
    /// gRPC (`GRPC` on the card), v1.0's `lf.a2a.v1.A2AService`.
    Grpc,
}

impl Binding {
    /// The tool's own name (`jsonrpc`, `rest`, `grpc`): what `--binding`
    /// takes and reports print.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The card's spelling (`protocolBinding`, v0.3 `transport` and
    /// `preferredTransport`): `JSONRPC`, `HTTP+JSON`, `GRPC`. The one place
    /// these are spelled: parsing, lint and messages all read it.
    pub fn card_name(self) -> &'static str {
        match self {
            Binding::Jsonrpc => "JSONRPC",
            Binding::Rest => "HTTP+JSON",
            Binding::Grpc => "GRPC",
        }
    }

    /// Reads a card's binding name: the spec's spelling ([`Binding::card_name`])
    /// in any case, or a common variant (`JSON-RPC`, `REST`) that a lint
    /// warns about. `None` for a binding the spec does not define.
    pub fn from_card(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase();
        let spelled = <Binding as strum::VariantArray>::VARIANTS
            .iter()
            .copied()
            .find(|b| b.card_name() == upper);
        spelled.or(match upper.as_str() {
            "JSON-RPC" => Some(Binding::Jsonrpc),
            "REST" => Some(Binding::Rest),
            _ => None,
        })
    }

    /// Whether `name` is exactly a spelling the spec defines (no lint needed).
    pub fn is_card_spelling(name: &str) -> bool {
        <Binding as strum::VariantArray>::VARIANTS
            .iter()
            .any(|b| b.card_name() == name)
    }
}

/// An A2A operation, named independently of any version's wire spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray)]
pub enum Operation {
    /// Send a message; the answer is a task or a message.
    SendMessage,
    /// Send a message and read the answer as a stream of events.
    SendStreamingMessage,
    /// Read a task (`historyLength` bounds the history returned).
    GetTask,
    /// List tasks (v1.0 only).
    ListTasks,
    /// Ask the peer to cancel a task.
    CancelTask,
    /// Re-open the event stream of a task (v0.3 `tasks/resubscribe`).
    SubscribeToTask,
    /// Register a push notification config (a webhook) for a task.
    CreatePushConfig,
    /// Read one push notification config of a task.
    GetPushConfig,
    /// List a task's push notification configs.
    ListPushConfigs,
    /// Remove a push notification config.
    DeletePushConfig,
    /// Read the extended agent card an authenticated client may see.
    GetExtendedCard,
}

/// Who wrote a message: the user (the tool) or the agent (the peer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray)]
pub enum Role {
    /// The client's side: `ROLE_USER` in v1.0, `user` in v0.3.
    User,
    /// The peer's side: `ROLE_AGENT` in v1.0, `agent` in v0.3.
    Agent,
}

/// The lifecycle state of a task, version-neutral. Its name (`input-required`)
/// is the one scenarios and reports use, and also v0.3's wire spelling.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::Display,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum TaskState {
    /// Accepted, not yet started.
    Submitted,
    /// In progress.
    Working,
    /// Interrupted: the agent waits for more input from the user.
    InputRequired,
    /// Interrupted: the agent waits for the user to authenticate.
    AuthRequired,
    /// Terminal: finished successfully.
    Completed,
    /// Terminal: finished with an error.
    Failed,
    /// Terminal: canceled on request.
    Canceled,
    /// Terminal: the agent declined the task.
    Rejected,
    /// A state the peer did not name (v1.0 `TASK_STATE_UNSPECIFIED`).
    Unknown,
}

impl TaskState {
    /// Every state, in declaration order (strum's derived list).
    pub const ALL: &'static [TaskState] = <TaskState as strum::VariantArray>::VARIANTS;

    /// The neutral name used in scenarios and reports (`input-required`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether the task is over (completed, failed, canceled, rejected): a
    /// terminal task must not change again.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Whether the task waits on the user (input- or auth-required): a
    /// stream ends there in v1.0, and a resume continues it.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }
}

/// JSON-RPC and A2A error codes (v1 §5.4).
pub mod codes {
    /// JSON-RPC: the request is not valid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON-RPC: the JSON is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// JSON-RPC: no such method (in this version).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// JSON-RPC: the params are invalid (also a refused part on resume).
    pub const INVALID_PARAMS: i64 = -32602;
    /// JSON-RPC: the server failed.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A2A TaskNotFound: no task with that id.
    pub const TASK_NOT_FOUND: i64 = -32001;
    /// A2A TaskNotCancelable: the task is already terminal.
    pub const TASK_NOT_CANCELABLE: i64 = -32002;
    /// A2A PushNotificationNotSupported.
    pub const PUSH_NOT_SUPPORTED: i64 = -32003;
    /// A2A UnsupportedOperation (an undeclared stream, a terminal subscribe).
    pub const UNSUPPORTED_OPERATION: i64 = -32004;
    /// A2A ContentTypeNotSupported: no accepted output mode can be produced.
    pub const CONTENT_TYPE_NOT_SUPPORTED: i64 = -32005;
    /// A2A InvalidAgentResponse.
    pub const INVALID_AGENT_RESPONSE: i64 = -32006;
    /// A2A ExtendedAgentCardNotConfigured.
    pub const EXTENDED_CARD_NOT_CONFIGURED: i64 = -32007;
    /// A2A ExtensionSupportRequired: a required extension was not asked for.
    pub const EXTENSION_SUPPORT_REQUIRED: i64 = -32008;
    /// A2A VersionNotSupported: the `A2A-Version` is not one the peer speaks.
    pub const VERSION_NOT_SUPPORTED: i64 = -32009;
    /// A2A 1.1 draft TaskGenerationMismatch: a send's `ifGenerationMatch`
    /// is not the task's current generation (HTTP 409, gRPC ABORTED).
    pub const TASK_GENERATION_MISMATCH: i64 = -32010;

    /// The error's name as the spec spells it (v1 §5.4; JSON-RPC 2.0 for
    /// the -327xx/-326xx codes), for messages that quote a code:
    /// `-32004 (UnsupportedOperationError)`. `None` for a code neither names.
    pub fn name(code: i64) -> Option<&'static str> {
        Some(match code {
            PARSE_ERROR => "JSONParseError",
            INVALID_REQUEST => "InvalidRequestError",
            METHOD_NOT_FOUND => "MethodNotFoundError",
            INVALID_PARAMS => "InvalidParamsError",
            INTERNAL_ERROR => "InternalError",
            TASK_NOT_FOUND => "TaskNotFoundError",
            TASK_NOT_CANCELABLE => "TaskNotCancelableError",
            PUSH_NOT_SUPPORTED => "PushNotificationNotSupportedError",
            UNSUPPORTED_OPERATION => "UnsupportedOperationError",
            CONTENT_TYPE_NOT_SUPPORTED => "ContentTypeNotSupportedError",
            INVALID_AGENT_RESPONSE => "InvalidAgentResponseError",
            EXTENDED_CARD_NOT_CONFIGURED => "ExtendedAgentCardNotConfiguredError",
            EXTENSION_SUPPORT_REQUIRED => "ExtensionSupportRequiredError",
            VERSION_NOT_SUPPORTED => "VersionNotSupportedError",
            TASK_GENERATION_MISMATCH => "TaskGenerationMismatchError",
            _ => return None,
        })
    }

    /// A code with its name, as messages quote it: `-32004
    /// (UnsupportedOperationError)`, or the bare code when it has none.
    pub fn named(code: i64) -> String {
        match name(code) {
            Some(name) => format!("{code} ({name})"),
            None => code.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strum::VariantArray;

    /// The serde spelling and the derived name must agree, variant by variant.
    fn same_names<T: Serialize + Copy + Into<&'static str>>(all: &[T]) {
        for v in all {
            let name: &'static str = (*v).into();
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(name));
        }
    }

    #[test]
    fn names_are_the_serialized_spellings() {
        same_names(ProtocolVersion::VARIANTS);
        same_names(Binding::VARIANTS);
        same_names(TaskState::VARIANTS);
        assert_eq!(ProtocolVersion::V1_0.to_string(), "1.0");
        assert_eq!(ProtocolVersion::V0_3.as_str(), "0.3");
        assert_eq!(Binding::Jsonrpc.to_string(), "jsonrpc");
        assert_eq!(TaskState::InputRequired.to_string(), "input-required");
        assert_eq!(TaskState::Unknown.as_str(), "unknown");
        let read: ProtocolVersion = serde_json::from_str("\"0.3\"").unwrap();
        assert_eq!(read, ProtocolVersion::V0_3);
        assert!(serde_json::from_str::<ProtocolVersion>("\"2.0\"").is_err());
    }
}
