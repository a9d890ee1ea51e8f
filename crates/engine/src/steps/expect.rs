//! `expect`: a captured answer must match a condition; otherwise the
//! scenario fails, in the scenario's words when it gives them.

use super::condition::{condition_step, settle_stream_error};
use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;

condition_step!(
    /// `expect`: the capture must match, else the scenario fails.
    ExpectStep {
        #[serde(default)]
        fail: Option<Template>,
    }
);

impl Primitive for ExpectStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.condition(&self.condition())?;
        ck.texts(&self.fail)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let condition = self.condition();
        settle_stream_error(ctx, &self.of, &condition).await?;
        let capture = ctx.capture(&self.of)?;
        if capture.matches(&condition) {
            return Ok(());
        }
        let message = match &self.fail {
            Some(text) => ctx.text(text)?,
            None => format!("`{}` was {}", self.of, capture.summary),
        };
        Err(Stop::fail(message))
    }
}
