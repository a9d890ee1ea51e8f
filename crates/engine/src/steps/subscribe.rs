//! `subscribe`: SubscribeToTask (v0.3 `tasks/resubscribe`) on a captured
//! task; the capture is the stream, read in the background.

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use a2a_conform_protocol::Operation;
use serde::Deserialize;

/// `subscribe`: a stream of a captured task's events.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SubscribeStep {
    /// The captured task to subscribe to.
    task: String,
    /// Capture name for the stream.
    #[serde(rename = "as", default)]
    capture: Option<String>,
}

impl Primitive for SubscribeStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Stream);
        }
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let (task_id, _) = ctx.task_of(&self.task)?;
        let params = ctx.version().task_params(&task_id);
        let capture = ctx.open(Operation::SubscribeToTask, params).await?;
        // Judged on the task the stream's first event names.
        let answered = ctx.answered_task(&capture).await;
        ctx.same_task(Operation::SubscribeToTask, &task_id, answered.as_deref())
            .await?;
        if let Some(name) = &self.capture {
            ctx.captures.insert(name.clone(), capture);
        }
        Ok(())
    }
}
