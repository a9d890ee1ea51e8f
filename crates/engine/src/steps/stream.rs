//! `stream`: the message of `send` (the same keys) on a stream
//! (SendStreamingMessage); the stream is read in the background and later
//! steps (`expect_event`, `expect_quiet`, `expect_closed`) judge it.

use super::primitive::Primitive;
use super::send::{check_message, send, SendStep};
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{Checked, StepCheck};
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use serde::Deserialize;
use std::time::Duration;

/// `stream`: the keys of `send`, but `a2a_version`.
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub(crate) struct StreamStep(pub(crate) SendStep);

impl Primitive for StreamStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        check_message(&self.0, ck, true)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        send(ctx, &self.0, true).await
    }

    /// The run reads the stream to the task's end (the steps after wait on it).
    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        NOMINAL_TASK
    }
}
