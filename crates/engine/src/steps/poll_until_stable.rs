//! `poll_until_stable`: reads a captured task until N consecutive reads
//! agree on its state and artifacts (ids and content, by digest), failing
//! at once when a terminal state is resurrected or overwritten, or the
//! artifacts change after it. Its GetTask read is shared with
//! [`poll_to_settled`], which a blocking send answered too early (a task
//! still `submitted` or `working`) uses to reach the state the send should
//! have waited for.

use super::primitive::Primitive;
use crate::runner::capture::{artifact_part_types, Capture};
use crate::runner::context::{or_list, RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::values::OneOrMany;
use crate::scenario::vars::{Count, DurationValue};
use crate::steps::estimate::Estimate;
use a2a_conform_client::{RecordKind, Transcript};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Operation, SendResult, TaskState, TaskView};
use serde::Deserialize;
use std::sync::Arc;
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
            let (task, read, _) = read_task(ctx, &ctx.transcript, &task_id).await?;
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

/// The first pause of [`poll_to_settled`]; each next one doubles, up to
/// [`SETTLE_INTERVAL_MAX`].
const SETTLE_INTERVAL_MIN: Duration = Duration::from_millis(25);
/// The longest pause between two reads of [`poll_to_settled`] (the default
/// interval of `poll_until_stable`).
const SETTLE_INTERVAL_MAX: Duration = Duration::from_millis(500);

/// Where [`poll_to_settled`] left a task: its last read, the raw GetTask
/// result, and when it was read.
pub(crate) struct Settled {
    pub(crate) task: TaskView,
    pub(crate) result: serde_json::Value,
    pub(crate) at: Instant,
    /// Whether the last read is terminal or interrupted (else `within` ran out).
    pub(crate) settled: bool,
}

/// Reads task `task_id` (GetTask, the read `poll_until_stable` makes) until
/// it is terminal or interrupted, or `within` has passed: the pause between
/// reads starts short (a peer that answered too early usually moves on in
/// milliseconds) and doubles up to `poll_until_stable`'s default interval.
/// An error answer or a task with no readable state stops the run as it
/// stops `poll_until_stable`.
pub(crate) async fn poll_to_settled(
    ctx: &RunContext<'_>,
    transcript: &Arc<Transcript>,
    task_id: &str,
    within: Duration,
) -> Result<Settled, Stop> {
    let deadline = Instant::now() + within;
    let mut interval = SETTLE_INTERVAL_MIN;
    loop {
        tokio::time::sleep(interval.min(deadline.saturating_duration_since(Instant::now()))).await;
        let (task, read, result) = read_task(ctx, transcript, task_id).await?;
        let settled = read.state.is_terminal() || read.state.is_interrupted();
        if settled || Instant::now() >= deadline {
            return Ok(Settled {
                task,
                result,
                at: read.at,
                settled,
            });
        }
        interval = (interval * 2).min(SETTLE_INTERVAL_MAX);
    }
}

/// The bound on [`settle_answer`]'s poll: the run's `task_window` (how long
/// a task may take to reach a terminal or interrupted state), else its
/// built-in default (a context with no variables: the precondition search).
fn settle_window(ctx: &RunContext<'_>) -> Duration {
    let parse = |text: &str| crate::scenario::vars::parse_duration(text).ok();
    let default = crate::scenario::vars::builtin("task_window")
        .and_then(|b| b.default)
        .and_then(parse)
        .unwrap_or(Duration::from_secs(60));
    match ctx.vars.get("task_window") {
        Some(Some(text)) => parse(text).unwrap_or(default),
        _ => default,
    }
}

/// A blocking send (or resume) must return only once its task is terminal
/// or interrupted (v1 §3.2.2; 0.3 with `blocking: true`). When its answer
/// carries a task still `submitted` or `working`, the breach is noted (the
/// `protocol.blocking` row judges it) and the task is polled with GetTask,
/// within the run's `task_window`, until it settles: the capture becomes
/// its last read, so every later step judges what the task really did.
/// Any other answer is returned as it is.
pub(crate) async fn settle_answer(ctx: &RunContext<'_>, capture: Capture) -> Result<Capture, Stop> {
    let Some(early) = capture
        .state()
        .filter(|s| matches!(s, TaskState::Submitted | TaskState::Working))
    else {
        return Ok(capture);
    };
    let (Some(task_id), _) = capture.task_ref() else {
        return Ok(capture);
    };
    let within = settle_window(ctx);
    ctx.transcript.note(format!(
        "{} carried task {task_id} still {early}: a blocking send must return only once \
         the task is terminal or interrupted (protocol.blocking); polling GetTask for up \
         to {} (task_window) until it is",
        if capture.source.is_empty() {
            "the answer"
        } else {
            &capture.source
        },
        human_duration(within)
    ));
    // The reads before the last one show the same unsettled task, a number
    // of times that depends on timing: only the last read is kept in the
    // evidence (all of them when one stops the run).
    let scratch = ctx.transcript.scratch();
    let polled = poll_to_settled(ctx, &scratch, &task_id, within).await;
    let entries = scratch.entries();
    let keep = match &polled {
        // Recorded (`check --record`): every read, for a replay to answer.
        _ if ctx.transcript.keeps_every_exchange() => 0,
        Ok(_) => entries
            .iter()
            .rposition(|r| r.kind == RecordKind::Request)
            .unwrap_or(0),
        Err(_) => 0,
    };
    for r in entries.into_iter().skip(keep) {
        let at = ctx.transcript.start() + Duration::from_millis(r.at_ms);
        ctx.transcript.record(r.kind, at, r.summary, r.body, r.curl);
    }
    let settled = polled?;
    let state = settled
        .task
        .state
        .map_or_else(|| "no state".to_string(), |s| s.to_string());
    ctx.transcript.note(if settled.settled {
        format!(
            "task {task_id} read {state} by GetTask (the last read of the poll is kept above): \
             the run goes on with it"
        )
    } else {
        format!(
            "task {task_id} still read {state} after {} of GetTask reads: the run goes on with the last read",
            human_duration(within)
        )
    });
    let mut out = Capture::from_task(&settled.task, settled.at);
    out.part_types = Some(artifact_part_types(&settled.result));
    out.source = capture.source;
    out.summary = format!(
        "{} (the blocking send answered {early} at once; read by GetTask)",
        out.summary
    );
    Ok(out)
}

/// One GetTask read (the task, the read, the raw result); an error answer
/// or a task without a readable state fails the run.
async fn read_task(
    ctx: &RunContext<'_>,
    transcript: &Arc<Transcript>,
    task_id: &str,
) -> Result<(TaskView, Read, serde_json::Value), Stop> {
    let op = Operation::GetTask;
    let reply = ctx
        .client
        .call(transcript, op, ctx.version().task_params(task_id))
        .await;
    let at = Instant::now();
    let (task, result) = match ctx.answered_configured(op, reply)? {
        Ok(result) => match SendResult::from_result(&result) {
            SendResult::Task(t) => (t, result),
            _ => (TaskView::from_json(&result), result),
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
    Ok((task, Read { at, state, digest }, result))
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
