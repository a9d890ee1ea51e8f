//! The A2A protocol as a2a-conform reads it, with every wire spelling in
//! one place: versions, bindings, operations, roles, task states and error
//! codes; the agent card (fetched elsewhere, parsed, linted and read for
//! its declarations here); and the declaration ids that suites, the
//! planner, reports and baselines share. Pure logic: nothing here does
//! I/O — the client crate fetches, this crate reads.
//!
//! # API
//!
//! - Names: [`ProtocolVersion`], [`Binding`], [`Operation`], [`Role`],
//!   [`TaskState`] and [`codes`]. Each version's spelling is reached through
//!   them ([`ProtocolVersion::method`], [`TaskState::wire_name`],
//!   [`Binding::card_name`]); [`v1_0`] and [`v0_3`] hold each version's
//!   tables behind them, and in the open what a binding needs beyond them
//!   (v1.0's gRPC names, v0.3's proto JSON); [`view`] and [`wire`] read
//!   what a peer sent ([`Event`], [`TaskView`], [`RpcError`]).
//! - The card: [`discovery_url`] turns what a user typed into the URL to
//!   fetch, [`parse_card`] reads the fetched bytes into a [`Card`] (or a
//!   [`CardError`]), choosing the interface a run talks to; [`card`] has the
//!   rest (signatures, hygiene, interfaces).
//! - Declarations: a [`DeclarationId`] names one promise a card makes
//!   (`capabilities.streaming`, `skills[echo].inputModes[text/plain]`); a
//!   [`Gate`] is a scenario's `when:`; [`Card::declarations`] and
//!   [`Card::is_declared`] answer them.
//! - [`text`]: clipping and durations as reports print them.
//!
//! ```
//! use a2a_conform_protocol::{discovery_url, parse_card, Binding, DeclarationId, Operation};
//! use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
//! use a2a_conform_protocol::ProtocolVersion;
//!
//! let url = discovery_url("https://agent.example/a2a").unwrap();
//! assert_eq!(url.as_str(), "https://agent.example/a2a/.well-known/agent-card.json");
//!
//! let body = br#"{
//!     "name": "echo", "description": "echoes", "version": "1",
//!     "supportedInterfaces": [{"url": "https://agent.example/rpc",
//!         "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
//!     "capabilities": {"streaming": true},
//!     "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
//!     "skills": [{"id": "echo", "name": "Echo", "description": "d", "tags": []}]
//! }"#;
//! let card = parse_card(&url, body, ProtocolChoice::Auto, BindingChoice::Auto).unwrap();
//! assert_eq!(card.binding(), Binding::Jsonrpc);
//! let streaming: DeclarationId = "capabilities.streaming".parse().unwrap();
//! assert!(card.is_declared(&streaming));
//!
//! let version = card.protocol_version();
//! assert_eq!(version.method(Operation::SendMessage), Some("SendMessage"));
//! assert_eq!(ProtocolVersion::V0_3.method(Operation::SendMessage), Some("message/send"));
//! ```
//!
//! Layout: `model` names the neutral types (a leaf), `v1_0` and `v0_3` map
//! them to each version's wire spelling, `view` reads what a peer sent,
//! `wire` reads stream frames into borrowed typed fields. This file
//! stitches the versions together; none of them imports it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod card;
pub mod declaration;
pub mod text;

mod model;
pub mod v0_3;
pub mod v1_0;
pub mod view;
pub mod wire;

pub use card::{discovery_url, parse_card, Card, CardError};
pub use declaration::{DeclarationId, Gate};
pub use model::{codes, Binding, Operation, ProtocolVersion, Role, TaskState};
pub use view::{ArtifactView, Event, MessagePart, RpcError, SendResult, TaskView};

use strum::VariantArray;

impl ProtocolVersion {
    /// The JSON-RPC method name of an operation, if the version has one.
    pub fn method(self, op: Operation) -> Option<&'static str> {
        match self {
            ProtocolVersion::V1_0 => v1_0::method(op),
            ProtocolVersion::V0_3 => v0_3::method(op),
        }
    }

    /// Which operation a JSON-RPC method name stands for in this version.
    pub fn operation(self, method: &str) -> Option<Operation> {
        Operation::VARIANTS
            .iter()
            .copied()
            .find(|op| self.method(*op) == Some(method))
    }
}

impl ProtocolVersion {
    /// A user message in this version's shape.
    pub fn message(
        self,
        parts: &[MessagePart],
        message_id: &str,
        task_id: Option<&str>,
        context_id: Option<&str>,
    ) -> serde_json::Value {
        match self {
            ProtocolVersion::V1_0 => v1_0::message(parts, message_id, task_id, context_id),
            ProtocolVersion::V0_3 => v0_3::message(parts, message_id, task_id, context_id),
        }
    }

    /// Send params in this version's shape.
    pub fn send_params(self, message: serde_json::Value, blocking: bool) -> serde_json::Value {
        match self {
            ProtocolVersion::V1_0 => v1_0::send_params(message, blocking),
            ProtocolVersion::V0_3 => v0_3::send_params(message, blocking),
        }
    }

    /// Params naming one task.
    pub fn task_params(self, task_id: &str) -> serde_json::Value {
        match self {
            ProtocolVersion::V1_0 => v1_0::task_params(task_id),
            ProtocolVersion::V0_3 => v0_3::task_params(task_id),
        }
    }

    /// Params creating a push notification config for a task, in this
    /// version's shape (flat in 1.0, nested in 0.3).
    pub fn push_config_params(
        self,
        task_id: &str,
        url: &str,
        token: Option<&str>,
    ) -> serde_json::Value {
        match self {
            ProtocolVersion::V1_0 => v1_0::push_config_params(task_id, url, token),
            ProtocolVersion::V0_3 => v0_3::push_config_params(task_id, url, token),
        }
    }

    /// Send params that accept output in these media types only:
    /// `configuration.acceptedOutputModes`, spelled the same in both versions.
    pub fn with_accepted_output_modes(
        self,
        mut params: serde_json::Value,
        modes: &[String],
    ) -> serde_json::Value {
        params["configuration"]["acceptedOutputModes"] = serde_json::json!(modes);
        params
    }

    /// Send params with a push config registered inline for the new task.
    pub fn with_inline_push(self, params: serde_json::Value, url: &str) -> serde_json::Value {
        match self {
            ProtocolVersion::V1_0 => v1_0::with_inline_push(params, url),
            ProtocolVersion::V0_3 => v0_3::with_inline_push(params, url),
        }
    }
}

impl Role {
    /// The role's wire spelling for a version.
    pub fn wire_name(self, version: ProtocolVersion) -> &'static str {
        match version {
            ProtocolVersion::V1_0 => v1_0::role_name(self),
            ProtocolVersion::V0_3 => v0_3::role_name(self),
        }
    }
}

impl TaskState {
    /// Reads a state in either version's spelling: `completed`,
    /// `TASK_STATE_COMPLETED`, `task_state_completed`, or the proto integer.
    /// ProtoJSON parsers must accept all of these (v1 §5.5).
    pub fn from_wire(value: &serde_json::Value) -> Option<TaskState> {
        if let Some(n) = value.as_i64() {
            return TaskState::from_wire_number(n);
        }
        TaskState::from_wire_text(value.as_str()?)
    }

    /// Reads a state's proto integer.
    pub fn from_wire_number(n: i64) -> Option<TaskState> {
        v1_0::state_from_number(n)
    }

    /// Reads a state's name in either version's spelling (see [`TaskState::from_wire`]).
    pub fn from_wire_text(text: &str) -> Option<TaskState> {
        let upper = text.to_ascii_uppercase();
        if upper.starts_with("TASK_STATE_") {
            // 0.3's proto spells one state differently (`TASK_STATE_CANCELLED`).
            return TaskState::VARIANTS
                .iter()
                .copied()
                .find(|s| v1_0::state_name(*s) == upper || v0_3::proto::state_name(*s) == upper);
        }
        text.parse().ok()
    }

    /// The wire spelling for a version.
    pub fn wire_name(self, version: ProtocolVersion) -> &'static str {
        match version {
            ProtocolVersion::V1_0 => v1_0::state_name(self),
            ProtocolVersion::V0_3 => v0_3::state_name(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn states_read_in_every_spelling() {
        assert_eq!(
            TaskState::from_wire(&json!("completed")),
            Some(TaskState::Completed)
        );
        assert_eq!(
            TaskState::from_wire(&json!("TASK_STATE_INPUT_REQUIRED")),
            Some(TaskState::InputRequired)
        );
        assert_eq!(
            TaskState::from_wire(&json!("task_state_canceled")),
            Some(TaskState::Canceled)
        );
        assert_eq!(TaskState::from_wire(&json!(5)), Some(TaskState::Canceled));
        assert_eq!(
            TaskState::from_wire(&json!("TASK_STATE_CANCELLED")),
            Some(TaskState::Canceled)
        );
        assert_eq!(TaskState::from_wire(&json!("finished")), None);
    }

    #[test]
    fn methods_round_trip_per_version() {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            for &op in Operation::VARIANTS {
                if let Some(name) = version.method(op) {
                    assert_eq!(version.operation(name), Some(op), "{version} {name}");
                }
            }
        }
        assert_eq!(
            ProtocolVersion::V1_0.method(Operation::SendMessage),
            Some("SendMessage")
        );
        assert_eq!(
            ProtocolVersion::V0_3.method(Operation::SendMessage),
            Some("message/send")
        );
        assert_eq!(ProtocolVersion::V0_3.method(Operation::ListTasks), None);
    }

    #[test]
    fn push_config_params_are_flat_in_1_0_and_nested_in_0_3() {
        let v1 =
            ProtocolVersion::V1_0.push_config_params("t1", "http://127.0.0.1:9/h", Some("tok"));
        assert_eq!(
            v1,
            json!({"taskId": "t1", "url": "http://127.0.0.1:9/h", "token": "tok",
                   "authentication": {"scheme": "Bearer", "credentials": "tok"}})
        );
        let v03 = ProtocolVersion::V0_3.push_config_params("t1", "http://127.0.0.1:9/h", None);
        assert_eq!(
            v03,
            json!({"taskId": "t1", "pushNotificationConfig": {"url": "http://127.0.0.1:9/h"}})
        );
        let send = ProtocolVersion::V1_0.send_params(json!({}), false);
        let inline = ProtocolVersion::V1_0.with_inline_push(send, "http://h");
        assert_eq!(inline["configuration"]["returnImmediately"], true);
        assert_eq!(
            inline["configuration"]["taskPushNotificationConfig"]["url"],
            "http://h"
        );
        let send = ProtocolVersion::V0_3.send_params(json!({}), false);
        let inline = ProtocolVersion::V0_3.with_inline_push(send, "http://h");
        assert_eq!(inline["configuration"]["blocking"], false);
        assert_eq!(
            inline["configuration"]["pushNotificationConfig"]["url"],
            "http://h"
        );
    }

    #[test]
    fn declared_versions_compare_on_major_minor() {
        assert_eq!(
            ProtocolVersion::from_declared("0.3.0"),
            Some(ProtocolVersion::V0_3)
        );
        assert_eq!(
            ProtocolVersion::from_declared("1.0"),
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(ProtocolVersion::from_declared("0.2.5"), None);
    }
}
