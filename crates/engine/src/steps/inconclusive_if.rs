//! `inconclusive_if`: a captured answer matching a condition makes the
//! scenario inconclusive with the scenario's reason: the precondition was
//! not met (the task completed before the cancel arrived), so nothing was
//! learned about the promise.

use super::condition::{condition_step, settle_stream_error};
use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;

condition_step!(
    /// `inconclusive_if`: the capture matching makes the scenario inconclusive.
    InconclusiveStep {
        reason: Template,
    }
);

impl Primitive for InconclusiveStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.condition(&self.condition())?;
        ck.texts([&self.reason])
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let condition = self.condition();
        settle_stream_error(ctx, &self.of, &condition).await?;
        if ctx.capture(&self.of)?.matches(&condition) {
            return Err(Stop::inconclusive(ctx.text(&self.reason)?));
        }
        Ok(())
    }
}
