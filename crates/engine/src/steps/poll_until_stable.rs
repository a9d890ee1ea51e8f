//! `poll_until_stable`: reads a captured task until N consecutive reads
//! agree on its state and artifacts (ids and content, by digest), failing
//! at once when a terminal state is resurrected or overwritten, or the
//! artifacts change after it.

use super::primitive::Primitive;
use crate::runner::capture::Capture;
use crate::runner::context::{or_list, RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::values::OneOrMany;
use crate::scenario::vars::{Count, DurationValue};
use crate::steps::estimate::Estimate;
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Operation, SendResult, TaskState, TaskView};
use serde::Deserialize;
use std::time::{Duration, Instant};

/// How many consecutive reads must agree when the step does not say.
const DEFAULT_READS: u32 = 2;
/// The pause between reads when the step does not say.
const DEFAULT_INTERVAL: Duration = Duration::from_millis(500);

/// `poll_until_stable`: read a task until it settles.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PollStep {
    /// The captured task to read.
    task: String,
    /// States the stable reads must show.
    state: OneOrMany<TaskState>,
    /// How many consecutive reads must agree (default 2).
    #[serde(default)]
    reads: Option<Count>,
    /// The pause between reads (default 500ms).
    #[serde(default)]
    interval: Option<DurationValue>,
    /// The bound on the whole poll (default 10s).
    #[serde(default)]
    within: Option<DurationValue>,
    #[serde(rename = "as", default)]
    capture: Option<String>,
}

/// One read of the task.
#[derive(Clone)]
struct Read {
    at: Instant,
    state: TaskState,
    digest: String,
}

impl Primitive for PollStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        ck.texts(
            self.interval
                .iter()
                .filter_map(|d| d.template())
                .chain(self.within.iter().filter_map(|d| d.template()))
                .chain(self.reads.iter().filter_map(|r| r.template())),
        )?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Answer);
        }
        Ok(())
    }

    /// A task that is settled already takes `reads - 1` pauses to prove it.
    fn expected(&self, estimate: &Estimate<'_>) -> Duration {
        let reads = estimate.count(self.reads.as_ref(), DEFAULT_READS);
        let interval = estimate.duration(self.interval.as_ref(), DEFAULT_INTERVAL);
        interval * reads.saturating_sub(1)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let (task_id, _) = ctx.task_of(&self.task)?;
        let wanted = self.state.items();
        let reads = match &self.reads {
            Some(count) => ctx.count(count)? as usize,
            None => DEFAULT_READS as usize,
        };
        let interval = match &self.interval {
            Some(d) => ctx.duration(d)?,
            None => DEFAULT_INTERVAL,
        };
        let within = match &self.within {
            Some(d) => ctx.duration(d)?,
            None => Duration::from_secs(10),
        };
        let deadline = Instant::now() + within;
        let mut history: Vec<Read> = Vec::new();
        // What the capture itself saw counts as a read: a change from it is a change.
        if let Ok(capture) = ctx.capture(&self.task) {
            if let (Some(state), Some(digest)) = (capture.state(), capture.digest()) {
                history.push(Read {
                    at: capture.at,
                    state,
                    digest: digest.to_string(),
                });
            }
        }
        let mut fresh = 0usize;
        loop {
            let (task, read) = read_task(ctx, &task_id).await?;
            check_settled(ctx, &history, &read, &task)?;
            let (at, state) = (read.at, read.state);
            history.push(read);
            fresh += 1;
            let tail = &history[history.len().saturating_sub(reads)..];
            let agree = fresh >= reads
                && tail
                    .iter()
                    .all(|r| r.state == tail[0].state && r.digest == tail[0].digest);
            if agree && wanted.contains(&state) {
                if let Some(name) = &self.capture {
                    ctx.captures
                        .insert(name.clone(), Capture::from_task(&task, at));
                }
                return Ok(());
            }
            if agree && state.is_terminal() {
                return Err(Stop::fail(format!(
                    "the task reads {state} on {reads} consecutive reads, expected {}",
                    or_list(wanted)
                )));
            }
            if Instant::now() + interval > deadline {
                return Err(Stop::fail(format!(
                    "the task did not settle in {} within {} (last read: {})",
                    or_list(wanted),
                    human_duration(within),
                    task.summary()
                )));
            }
            tokio::time::sleep(interval).await;
        }
    }
}

/// One GetTask read; an error answer or a task without a readable
/// state fails the run.
async fn read_task(ctx: &RunContext<'_>, task_id: &str) -> Result<(TaskView, Read), Stop> {
    let op = Operation::GetTask;
    let reply = ctx
        .client
        .call(&ctx.transcript, op, ctx.version().task_params(task_id))
        .await;
    let at = Instant::now();
    let task = match ctx.answered_configured(op, reply)? {
        Ok(result) => match SendResult::from_result(&result) {
            SendResult::Task(t) => t,
            _ => TaskView::from_json(&result),
        },
        Err(e) => {
            return Err(Stop::fail(format!(
                "GetTask on task {task_id} answered error {} {}",
                e.code, e.message
            )))
        }
    };
    // No readable state is no valid Task: a malfunction, not a finding.
    let Some(state) = task.state else {
        return Err(Stop::malfunction(
            op,
            &format!("the result for task {task_id} has no readable status.state"),
        ));
    };
    let digest = task.artifacts_digest();
    Ok((task, Read { at, state, digest }))
}

/// Once the task read a terminal state, it must keep it and its artifacts.
fn check_settled(
    ctx: &RunContext<'_>,
    history: &[Read],
    read: &Read,
    task: &TaskView,
) -> StepResult {
    let Some(first) = history.iter().find(|r| r.state.is_terminal()) else {
        return Ok(());
    };
    if read.state != first.state {
        let what = if read.state.is_terminal() {
            "overwritten"
        } else {
            "resurrected"
        };
        return Err(Stop::fail(format!(
            "the task read {} at {}, then {} at {} (terminal state {what})",
            first.state,
            ctx.offset(first.at),
            read.state,
            ctx.offset(read.at)
        )));
    }
    if read.digest != first.digest {
        return Err(Stop::fail(format!(
            "the artifacts changed after the task read {}: digest {} at {}, {} at {} ({})",
            first.state,
            first.digest,
            ctx.offset(first.at),
            read.digest,
            ctx.offset(read.at),
            task.summary()
        )));
    }
    Ok(())
}
