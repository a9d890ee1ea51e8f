//! The step structs of the task-basics scenarios (`scenarios/protocol.yaml`):
//! calls on a task id of the scenario's choosing, ListTasks, a message whose
//! `contextId` contradicts its task, expectations on counts and lists, and
//! the card-signature check.
//! The `Step` variants that hold them live in `model`.

use super::template::Template;
use serde::Deserialize;

/// `call_task`: GetTask or CancelTask on a captured task (`task:`) or on an
/// id the scenario names (`id:`, e.g. one the peer never issued).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallTaskStep {
    pub op: TaskOp,
    /// The captured task to call about.
    #[serde(default)]
    pub task: Option<String>,
    /// A task id of the scenario's own.
    #[serde(default)]
    pub id: Option<Template>,
    /// GetTask's `historyLength`.
    #[serde(default)]
    pub history_length: Option<u32>,
    #[serde(rename = "as")]
    pub capture: String,
}

/// The task operations `call_task` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskOp {
    Get,
    Cancel,
}

/// `list_tasks`: one ListTasks call (v1.0).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListTasksStep {
    #[serde(rename = "as")]
    pub capture: String,
    #[serde(default)]
    pub page_size: Option<u32>,
    /// Filter on the `contextId` of this captured task.
    #[serde(default)]
    pub context_of: Option<String>,
    #[serde(default)]
    pub history_length: Option<u32>,
}

/// `send_in_task`: a non-blocking message to a captured task, carrying the
/// given `contextId` instead of the task's own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendInTaskStep {
    pub task: String,
    pub context_id: Template,
    #[serde(default)]
    pub text: Option<Template>,
    #[serde(rename = "as")]
    pub capture: String,
}

/// What `expect_count` counts in a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Counted {
    /// The messages of a task answer's `history`.
    History,
    /// The tasks of a ListTasks answer.
    Tasks,
}

impl Counted {
    pub fn as_str(self) -> &'static str {
        match self {
            Counted::History => "history message(s)",
            Counted::Tasks => "task(s)",
        }
    }
}

/// `expect_count`: a count in a capture must lie within bounds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectCountStep {
    pub of: String,
    pub count: Counted,
    #[serde(default)]
    pub at_least: Option<u32>,
    #[serde(default)]
    pub at_most: Option<u32>,
    #[serde(default)]
    pub fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason (a
    /// precondition, e.g. a history long enough to bound).
    #[serde(default)]
    pub otherwise_inconclusive: Option<Template>,
}

/// `expect_listed`: a ListTasks capture must list a captured task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectListedStep {
    pub of: String,
    pub task: String,
    #[serde(default)]
    pub fail: Option<Template>,
}

/// `verify_signature`: the card signature at a position (`${signature}`
/// under `for_each: signatures`) verifies against the card as served, with
/// the `--trusted-key` keys and those of its `jku`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifySignatureStep {
    pub signature: Template,
}
