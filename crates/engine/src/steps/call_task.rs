//! `call_task`: GetTask or CancelTask on a captured task (`task:`) or on
//! an id the scenario names (`id:`, e.g. one the peer never issued), with
//! an optional `historyLength`; the capture counts the answer's history.

use super::primitive::Primitive;
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::{Operation, SendResult};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Instant;

/// `call_task`: GetTask or CancelTask on a captured task (`task:`) or on an
/// id the scenario names (`id:`, e.g. one the peer never issued).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CallTaskStep {
    op: TaskOp,
    /// The captured task to call about.
    #[serde(default)]
    task: Option<String>,
    /// A task id of the scenario's own.
    #[serde(default)]
    id: Option<Template>,
    /// GetTask's `historyLength`.
    #[serde(default)]
    history_length: Option<u32>,
    #[serde(rename = "as")]
    capture: String,
}

/// The task operations `call_task` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TaskOp {
    Get,
    Cancel,
}

impl CallTaskStep {
    /// `op` on the scenario's own task `id` (one the peer never issued).
    pub(crate) fn on_id(op: TaskOp, id: &str, capture: &str) -> CallTaskStep {
        CallTaskStep {
            op,
            task: None,
            id: Some(Template::literal(id)),
            history_length: None,
            capture: capture.into(),
        }
    }
}

impl Primitive for CallTaskStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        match (&self.task, &self.id) {
            (Some(task), None) => ck.reads(task)?,
            (None, Some(id)) => ck.texts([id])?,
            _ => {
                return Err(ck.error(
                    "`call_task` takes exactly one of `task` (a capture) and `id` (a task id)",
                ))
            }
        }
        ck.defines(&self.capture, CaptureKind::Answer);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let task_id = match (&self.task, &self.id) {
            (Some(task), _) => ctx.task_of(task)?.0,
            (None, Some(id)) => ctx.text(id)?,
            (None, None) => return Err(Stop::error("`call_task` names no task")),
        };
        let op = match self.op {
            TaskOp::Get => Operation::GetTask,
            TaskOp::Cancel => Operation::CancelTask,
        };
        let mut params = ctx.version().task_params(&task_id);
        if let Some(n) = self.history_length {
            params["historyLength"] = json!(n);
        }
        let reply = ctx.client.call(&ctx.transcript, op, params).await;
        let at = Instant::now();
        let mut capture = match ctx.answered_configured(op, reply)? {
            Ok(result) => match SendResult::from_result(&result) {
                SendResult::Task(task) => {
                    let mut capture = Capture::from_task(&task, at);
                    capture.history = Some(history_len(&result));
                    capture
                }
                // A task operation answers a Task; anything else is no
                // valid A2A answer to it.
                SendResult::Message | SendResult::Unrecognized(_) => {
                    return Err(Stop::malfunction(op, "the result is not a Task"))
                }
            },
            Err(error) => Capture::from_error(error, at),
        };
        // Only a captured task is the peer's own: an `id:` of the scenario's
        // (one it never issued) is about no task to continue.
        if self.task.is_some() {
            ctx.same_task(op, &task_id, capture.task_ref().0.as_deref())
                .await?;
        }
        capture.source = format!("the {op:?} answer");
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }
}

/// How many messages a task answer's `history` holds (the task bare, or
/// wrapped as `{"task": …}`); none when it has no `history`.
fn history_len(result: &Value) -> usize {
    let task = result.get("task").unwrap_or(result);
    task.get("history")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}
