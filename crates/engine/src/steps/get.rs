//! `get`: one GetTask read of a captured task.

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use a2a_conform_protocol::Operation;
use serde::Deserialize;

/// `get`: read a captured task once.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetStep {
    /// The captured task to read.
    task: String,
    /// Capture name for the answer.
    #[serde(rename = "as", default)]
    capture: Option<String>,
}

impl Primitive for GetStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Answer);
        }
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        ctx.task_call(&self.task, self.capture.as_deref(), Operation::GetTask)
            .await
    }
}
