//! The one trait every step primitive implements: its load-time check and
//! its run. The `Step` table (`steps/mod.rs`) dispatches to it; each
//! primitive's file implements it for its struct.

use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{Checked, StepCheck};
use crate::steps::estimate::Estimate;
use std::time::Duration;

/// What every step primitive does: check itself when the suite loads, and
/// run against the peer.
pub(crate) trait Primitive {
    /// The checks serde cannot make: every capture the step reads was made
    /// by an earlier step, every `${…}` text names something that exists,
    /// and what it captures is known to the steps after it.
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked;

    /// Runs the step: it passes, or stops the run saying why.
    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult;

    /// How long the step is expected to take, read from the plan before the
    /// run starts (what orders the runs' starts, `runner::order`): nothing
    /// unless it waits for a task or a window.
    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        Duration::ZERO
    }
}
