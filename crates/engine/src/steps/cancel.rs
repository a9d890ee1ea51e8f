//! `cancel`: CancelTask on a captured task. The answer alone proves
//! nothing; the scenarios read the task afterwards (`poll_until_stable`)
//! and watch its streams (`expect_quiet`). A streamed task that last showed
//! an interrupted state is not canceled: the run is inconclusive, since a
//! cancel of a task waiting for input cancels no running work.

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use a2a_conform_protocol::{Operation, TaskState};
use serde::Deserialize;

/// `cancel`: cancel a captured task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CancelStep {
    /// The captured task to cancel.
    pub(crate) task: String,
    /// Capture name for the answer.
    #[serde(rename = "as", default)]
    pub(crate) capture: Option<String>,
}

impl Primitive for CancelStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Answer);
        }
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        if let Some(state) = interrupted(ctx, &self.task) {
            return Err(Stop::inconclusive(interrupted_message(state)));
        }
        ctx.task_call(&self.task, self.capture.as_deref(), Operation::CancelTask)
            .await
    }
}

/// The state a streamed task last showed, when it is interrupted
/// (input-required, auth-required): a cancel then meets no running work,
/// so it would prove nothing about canceling work.
fn interrupted(ctx: &RunContext<'_>, name: &str) -> Option<TaskState> {
    let stream = ctx.captures.get(name)?.stream()?;
    let (items, _) = stream.snapshot();
    let last = items.iter().filter_map(|i| i.event.state()).last()?;
    last.is_interrupted().then_some(last)
}

/// Why a cancel of an interrupted task was not sent.
fn interrupted_message(state: TaskState) -> String {
    format!(
        "the task stopped to ask for input ({}) before the cancel could be sent, so no running work was there to cancel",
        state.as_str()
    )
}
