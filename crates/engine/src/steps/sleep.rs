//! `sleep`: waits a duration (`sleep: 2s`, or a `${…}` duration variable).

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::vars::DurationValue;
use crate::steps::estimate::Estimate;
use serde::Deserialize;
use std::time::Duration;

/// `sleep`: the duration to wait.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub(crate) struct SleepStep(DurationValue);

impl Primitive for SleepStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.texts(self.0.template())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        tokio::time::sleep(ctx.duration(&self.0)?).await;
        Ok(())
    }

    fn expected(&self, estimate: &Estimate<'_>) -> Duration {
        estimate.duration(Some(&self.0), Duration::ZERO)
    }
}
