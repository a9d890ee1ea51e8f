//! What can go wrong under a guard: a [`ContractViolation`] (the peer broke
//! a declaration, shown by the exchanges), or trouble that is no finding
//! (a protocol error answer, a malfunction, a bound reached, the cache).
//! A violation is a value with the declaration and the evidence, never a
//! string.

use crate::cache::{CacheError, PeerKey};
use a2a_conform_client::card_fetch::CardFetchError;
use a2a_conform_client::{ClientError, Record};
use a2a_conform_protocol::{DeclarationId, RpcError, TaskState};
use serde::Serialize;
use std::time::Duration;

/// A peer's runtime broke what its card declares: which declaration, which
/// peer, which task (an orphaned one, for a leaked cancel), what was seen,
/// and the exchanges that show it (the same records a report shows).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContractViolation {
    /// The declaration broken (now demoted in the cache).
    pub declaration: DeclarationId,
    /// The peer that broke it.
    pub peer: PeerKey,
    /// The task it happened on; for a leaked cancel, the orphaned task
    /// that may still be running (and costing) at the peer.
    pub task: Option<String>,
    /// What was observed, in a sentence.
    pub reason: String,
    /// The exchanges, redacted and clipped.
    pub evidence: Vec<Record>,
}

impl std::fmt::Display for ContractViolation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} broke `{}`", self.peer.card_url, self.declaration)?;
        if let Some(task) = &self.task {
            write!(f, " on task {task}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// Why a guarded operation did not reach its outcome.
#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    /// The peer broke a declaration the operation relied on (it is demoted).
    #[error("{0}")]
    Violation(Box<ContractViolation>),
    /// The peer answered with a protocol error where the guard needed a
    /// result (an unknown task, a refused message).
    #[error("{operation} was answered with error {}: {}", .error.code, .error.message)]
    Rejected {
        /// The operation (`GetTask`).
        operation: &'static str,
        /// The error answer.
        error: RpcError,
    },
    /// The answer was no valid A2A answer, or there was none (unreachable,
    /// cut at a cap, refused credentials): a malfunction, not a finding.
    #[error("{operation}: {reason}")]
    Malfunction {
        /// The operation.
        operation: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// A send was answered with a message, not a task: there is nothing to
    /// follow.
    #[error("the peer answered with a message, not a task")]
    NoTask,
    /// Every part offered (and the fallback) is of a mode the peer was seen
    /// to refuse.
    #[error("the peer was seen to refuse {}; no fallback part is of another mode", .modes.join(", "))]
    NoAcceptedMode {
        /// The refused media types.
        modes: Vec<String>,
    },
    /// The peer refused a part of a media type its card never declares as
    /// an input mode (`defaultInputModes`): its valid answer, no divergence,
    /// and nothing is demoted. The caller sent what the card does not offer.
    #[error("the peer refused {} ({reason}), which its card never declares as an input mode; its defaultInputModes are: {}", .modes.join(", "), if .declared.is_empty() { "(none)".to_string() } else { .declared.join(", ") })]
    UndeclaredMode {
        /// The refused media types, none of them declared.
        modes: Vec<String>,
        /// The card's `defaultInputModes`.
        declared: Vec<String>,
        /// The refusal as the peer gave it.
        reason: String,
    },
    /// A wait reached its bound.
    #[error("task {task} did not settle within {} (last read: {})", humantime::format_duration(*.waited), .last.map_or("nothing", TaskState::as_str))]
    Timeout {
        /// The task waited on.
        task: String,
        /// How long the guard waited.
        waited: Duration,
        /// The last state read, if any.
        last: Option<TaskState>,
    },
    /// The card could not be fetched.
    #[error(transparent)]
    Card(Box<CardFetchError>),
    /// No client could be set up for the card's endpoint.
    #[error(transparent)]
    Client(Box<ClientError>),
    /// The card's endpoint is no URL.
    #[error("the card's endpoint `{url}` is not a URL: {source}")]
    Endpoint {
        /// The endpoint as the card gives it.
        url: String,
        /// Why it does not parse.
        source: url::ParseError,
    },
    /// The capability cache could not be read or written.
    #[error(transparent)]
    Cache(#[from] CacheError),
}

impl From<ContractViolation> for GuardError {
    fn from(violation: ContractViolation) -> Self {
        GuardError::Violation(Box::new(violation))
    }
}

impl From<CardFetchError> for GuardError {
    fn from(error: CardFetchError) -> Self {
        GuardError::Card(Box::new(error))
    }
}

impl From<ClientError> for GuardError {
    fn from(error: ClientError) -> Self {
        GuardError::Client(Box::new(error))
    }
}

impl GuardError {
    /// The violation, when the error is one.
    pub fn violation(&self) -> Option<&ContractViolation> {
        match self {
            GuardError::Violation(v) => Some(v),
            _ => None,
        }
    }
}
