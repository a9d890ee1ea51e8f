//! `cancel`: CancelTask on a captured task. The answer alone proves
//! nothing; the scenarios read the task afterwards (`poll_until_stable`)
//! and watch its streams (`expect_quiet`).

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use a2a_conform_protocol::Operation;
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
        ctx.task_call(&self.task, self.capture.as_deref(), Operation::CancelTask)
            .await
    }
}
