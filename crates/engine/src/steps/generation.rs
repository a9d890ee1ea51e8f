//! The A2A 1.1 draft's task generations (`dev-1.1` §3.2.7, §3.2.2), judged
//! by three steps of `scenarios/draft-1.1.yaml`:
//! - `expect_generations`: a task's events each carry its generation after
//!   the mutation, one more than the event before (read off a stream when
//!   the card declares streaming, off a blocking send and GetTask
//!   otherwise), and GetTask afterwards reads the last event's;
//! - `expect_long_poll`: GetTask with a `currentGeneration` the task has
//!   already passed answers at once, timed against a plain GetTask;
//! - `expect_generation_match`: a message whose `ifGenerationMatch` is not
//!   the task's generation is refused with TaskGenerationMismatchError
//!   (-32010), and one that matches is not.
//!
//! A generation of 0, or none, is the draft's own sign of a server that
//! does not implement it (§3.2.7: clients fall back): inconclusive, never
//! diverged. The 1.0 gRPC messages this tool speaks carry no generation,
//! so over gRPC the steps read inconclusive too, saying so.

use super::primitive::Primitive;
use super::send::SendStep;
use super::stream::StreamStep;
use crate::runner::calls::{malformed_end, new_message_id};
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::vars::DurationValue;
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{codes, Binding, MessagePart, Operation};
use serde::Deserialize;
use serde_json::json;
use std::time::{Duration, Instant};

/// How much longer than a plain GetTask a long-poll on a generation the
/// task has passed may take and still count as answered at once: room
/// for a loaded machine, well under any hold a server would choose.
const HOLD_MARGIN: Duration = Duration::from_secs(2);

/// `expect_generations`: a task's events carry its generation, one more
/// per event, and GetTask afterwards reads the last one's.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectGenerationsStep {
    /// The message whose task is followed.
    prompt: Template,
    /// How long its stream may take to end.
    within: DurationValue,
}

/// `expect_long_poll`: GetTask with a stale `currentGeneration` answers at once.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectLongPollStep {
    /// The captured task to read.
    task: String,
}

/// `expect_generation_match`: `ifGenerationMatch` guards a follow-up message.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectGenerationMatchStep {
    /// The captured task, waiting for input.
    task: String,
    /// The follow-up message's text.
    #[serde(default)]
    text: Option<Template>,
}

/// One event's generation, as judged: where it stood and what it carried.
struct Seen {
    /// Where it came from ("event #3 (artifact-update)", "the send's answer").
    what: String,
    generation: Option<i64>,
}

impl Primitive for ExpectGenerationsStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.texts([&self.prompt].into_iter().chain(self.within.template()))
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        spoken_here(ctx)?;
        let prompt = ctx.text(&self.prompt)?;
        let within = ctx.duration(&self.within)?;
        let (task_id, seen) = match ctx.card.streaming {
            true => streamed(ctx, &prompt, within).await?,
            false => sent(ctx, &prompt).await?,
        };
        let last = judge_sequence(&seen)?;
        let read = get(ctx, &task_id, None).await?;
        if let Some(error) = read.error() {
            return Err(Stop::inconclusive(format!(
                "GetTask after the events answered error {} {}, so the task's generation could not be set beside the last event's",
                error.code, error.message
            )));
        }
        match read.generation {
            Some(g) if g == last => Ok(()),
            Some(g) if g > last => Err(Stop::fail(format!(
                "GetTask reads generation {g} after the last event carried {last}: {} mutation{} emitted no event (each mutation maps to one event, dev-1.1 §3.2.7)",
                g - last,
                if g - last == 1 { "" } else { "s" }
            ))),
            got => Err(Stop::fail(format!(
                "GetTask reads generation {} after the last event carried {last}: a generation never goes back",
                shown(got)
            ))),
        }
    }

    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        NOMINAL_TASK
    }
}

impl Primitive for ExpectLongPollStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        spoken_here(ctx)?;
        let (task_id, _) = ctx.task_of(&self.task)?;
        let started = Instant::now();
        let generation = read_generation(ctx, &task_id).await?;
        let plain_took = started.elapsed();
        let stale = generation - 1;
        let limit = plain_took + HOLD_MARGIN;
        ctx.transcript.note(format!(
            "GetTask with currentGeneration {stale}: the task is at {generation}, so it must answer at once (a plain GetTask took {})",
            human_duration(plain_took)
        ));
        let started = Instant::now();
        // Bounded: a peer that holds is judged when the limit passes, not
        // when its own hold (or the request timeout) ends.
        let polled = tokio::time::timeout(limit, get(ctx, &task_id, Some(stale))).await;
        let took = started.elapsed();
        let held = || {
            Stop::fail(format!(
                "GetTask with currentGeneration {stale} was held more than {} although the task was already at generation {generation}: a server MUST answer at once when the task has passed the value (dev-1.1 §3.2.7); a plain GetTask took {}",
                human_duration(took),
                human_duration(plain_took)
            ))
        };
        // Within the limit by construction: the timeout cut it otherwise.
        let answer = polled.map_err(|_| held())??;
        if let Some(error) = answer.error() {
            return Err(Stop::fail(format!(
                "GetTask with currentGeneration {stale} answered error {} {} instead of the task",
                error.code, error.message
            )));
        }
        match answer.generation {
            Some(g) if g > stale => Ok(()),
            got => Err(Stop::fail(format!(
                "GetTask with currentGeneration {stale} answered at once but with generation {}, not past it",
                shown(got)
            ))),
        }
    }
}

impl Primitive for ExpectGenerationMatchStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        ck.texts(&self.text)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        spoken_here(ctx)?;
        let reply = match &self.text {
            Some(text) => ctx.text(text)?,
            None => "Here is the input you asked for.".to_string(),
        };
        let (task_id, context_id) = ctx.task_of(&self.task)?;
        let task = (task_id.clone(), context_id);
        let current = read_generation(ctx, &task_id).await?;
        let wrong = current + 1000;
        let mismatched = follow_up(ctx, &task, &reply, wrong).await?;
        match mismatched.error() {
            Some(e) if e.code == codes::TASK_GENERATION_MISMATCH => {}
            Some(e) => {
                return Err(Stop::fail(format!(
                    "a message with ifGenerationMatch {wrong} (the task is at {current}) was refused with {} {} instead of TaskGenerationMismatchError (-32010)",
                    e.code, e.message
                )))
            }
            None => {
                return Err(Stop::fail(format!(
                    "a message with ifGenerationMatch {wrong} was accepted ({}) although the task is at generation {current}: it must be refused with TaskGenerationMismatchError (-32010, dev-1.1 §3.2.2)",
                    mismatched.summary
                )))
            }
        }
        let matching = follow_up(ctx, &task, &reply, current).await?;
        match matching.error() {
            Some(e) if e.code == codes::TASK_GENERATION_MISMATCH => Err(Stop::fail(format!(
                "a message with ifGenerationMatch {current}, the task's own generation, was refused with TaskGenerationMismatchError (-32010)"
            ))),
            Some(e) => Err(Stop::inconclusive(format!(
                "the message with the matching ifGenerationMatch {current} was refused ({} {}), so whether a matching value is taken is not shown",
                e.code, e.message
            ))),
            None => Ok(()),
        }
    }
}

/// Inconclusive over gRPC: the 1.0 messages this tool sends and reads
/// have no generation fields.
fn spoken_here(ctx: &RunContext<'_>) -> Result<(), Stop> {
    match ctx.client.binding {
        Binding::Grpc => Err(Stop::inconclusive(
            "the 1.1 draft is checked over JSON-RPC and HTTP+JSON only: this tool's gRPC messages are 1.0's, with no generation fields",
        )),
        Binding::Jsonrpc | Binding::Rest => Ok(()),
    }
}

/// The task's generation by a plain GetTask: inconclusive when GetTask
/// answers an error (no generation to judge) or 0 or none (not supported).
async fn read_generation(ctx: &mut RunContext<'_>, task_id: &str) -> Result<i64, Stop> {
    let read = get(ctx, task_id, None).await?;
    if let Some(error) = read.error() {
        return Err(Stop::inconclusive(format!(
            "GetTask on the task answered error {} {}, so its generation could not be read",
            error.code, error.message
        )));
    }
    supported(read.generation, "GetTask's answer")
}

/// A generation the draft's rules can be judged on: 1 or more.
fn supported(generation: Option<i64>, what: &str) -> Result<i64, Stop> {
    match generation {
        Some(g) if g >= 1 => Ok(g),
        got => Err(not_supported(what, got)),
    }
}

fn not_supported(what: &str, got: Option<i64>) -> Stop {
    Stop::inconclusive(format!(
        "not supported: {what} carried generation {}; a server that does not implement the 1.1 draft's generations returns 0 or none (dev-1.1 §3.2.7)",
        shown(got)
    ))
}

fn shown(generation: Option<i64>) -> String {
    generation.map_or_else(|| "none".to_string(), |g| g.to_string())
}

/// Judges a task's events in order; gives the last generation.
fn judge_sequence(seen: &[Seen]) -> Result<i64, Stop> {
    if seen.iter().all(|s| matches!(s.generation, None | Some(0))) {
        let what = match seen.len() {
            1 => seen[0].what.clone(),
            n => format!("every one of the task's {n} events"),
        };
        return Err(not_supported(
            &what,
            seen.first().and_then(|s| s.generation),
        ));
    }
    let mut previous: Option<(&Seen, i64)> = None;
    for event in seen {
        let Some(g) = event.generation.filter(|g| *g >= 1) else {
            return Err(Stop::fail(format!(
                "{} carried generation {} while other events of the task carry one: a server implementing generations starts at 1 and numbers every event",
                event.what,
                shown(event.generation)
            )));
        };
        if let Some((before, p)) = previous {
            if g == p {
                return Err(Stop::fail(format!(
                    "{} and {} both carry generation {g}: a server MUST NOT emit two events with one generation (dev-1.1 §3.2.7)",
                    before.what, event.what
                )));
            }
            if g != p + 1 {
                return Err(Stop::fail(format!(
                    "{} carries generation {g} right after {} carried {p}: each event is exactly one more than the one before (a gap reads as a missed event, dev-1.1 §3.2.7)",
                    event.what, before.what
                )));
            }
        }
        previous = Some((event, g));
    }
    Ok(previous.map_or(0, |(_, g)| g))
}

/// The task's events off a stream, read to its end (or `within`).
async fn streamed(
    ctx: &mut RunContext<'_>,
    prompt: &str,
    within: Duration,
) -> Result<(String, Vec<Seen>), Stop> {
    StreamStep(SendStep::of_text("generation-stream", prompt))
        .run(ctx)
        .await?;
    let capture = ctx.capture("generation-stream")?;
    if let Some(error) = capture.error() {
        return Err(Stop::inconclusive(format!(
            "the stream was refused ({} {}), so no events showed generations",
            error.code, error.message
        )));
    }
    let stream = ctx.stream_of("generation-stream")?;
    stream
        .wait_until(Instant::now() + within, |_, end| end.is_some())
        .await;
    let (items, end) = stream.snapshot();
    if let Some(stop) = end.as_ref().and_then(malformed_end) {
        return Err(stop);
    }
    let mut task_id = None;
    let mut seen = Vec::new();
    for item in items.iter() {
        let kind = item.event.kind();
        if !matches!(kind, "task" | "status-update" | "artifact-update") {
            continue;
        }
        task_id = task_id.or_else(|| item.event.task_id().map(str::to_string));
        seen.push(Seen {
            what: format!("event #{} ({kind})", item.seq),
            generation: item.event.generation(),
        });
    }
    let Some(task_id) = task_id else {
        return Err(Stop::inconclusive(
            "the stream carried no task event, so no generation to judge",
        ));
    };
    if end.is_none() {
        // What arrived is judged; a clean partial sequence says nothing of
        // the rest.
        judge_sequence(&seen)?;
        return Err(Stop::inconclusive(format!(
            "the stream was still open {} later: its generations so far are in order, the rest unseen",
            human_duration(within)
        )));
    }
    Ok((task_id, seen))
}

/// Without streaming: the blocking send's task is the one snapshot.
async fn sent(ctx: &mut RunContext<'_>, prompt: &str) -> Result<(String, Vec<Seen>), Stop> {
    let task = send(ctx, prompt).await?;
    let task_id = task_id(&task)?;
    let seen = vec![Seen {
        what: "the blocking send's answer".to_string(),
        generation: task.generation,
    }];
    Ok((task_id, seen))
}

/// A blocking send of `prompt`, its answer settled; inconclusive unless a task.
async fn send(ctx: &mut RunContext<'_>, prompt: &str) -> Result<Capture, Stop> {
    SendStep::of_text("generation-send", prompt)
        .run(ctx)
        .await?;
    let capture = ctx
        .captures
        .remove("generation-send")
        .ok_or_else(|| Stop::error("the send captured nothing"))?;
    if let Some(error) = capture.error() {
        return Err(Stop::inconclusive(format!(
            "the send was refused ({} {}), so there was no task to read",
            error.code, error.message
        )));
    }
    Ok(capture)
}

fn task_id(capture: &Capture) -> Result<String, Stop> {
    capture.task_ref().0.ok_or_else(|| {
        Stop::inconclusive(format!(
            "the peer answered {} instead of a task, so there was no generation to read",
            capture.summary
        ))
    })
}

/// GetTask on the task, with `currentGeneration` when given.
async fn get(
    ctx: &mut RunContext<'_>,
    task_id: &str,
    current: Option<i64>,
) -> Result<Capture, Stop> {
    let mut params = ctx.version().task_params(task_id);
    if let Some(g) = current {
        params["currentGeneration"] = json!(g);
    }
    let capture = ctx.answer(Operation::GetTask, params).await?;
    ctx.same_task(Operation::GetTask, task_id, capture.task_ref().0.as_deref())
        .await?;
    Ok(capture)
}

/// A follow-up message in the task (its id and context) carrying
/// `ifGenerationMatch`.
async fn follow_up(
    ctx: &mut RunContext<'_>,
    task: &(String, Option<String>),
    text: &str,
    generation: i64,
) -> Result<Capture, Stop> {
    let (task_id, context_id) = task;
    let message = ctx.version().message(
        &[MessagePart::Text(text.to_string())],
        &new_message_id(),
        Some(task_id),
        context_id.as_deref(),
    );
    let mut params = ctx.version().send_params(message, false);
    params["configuration"]["ifGenerationMatch"] = json!(generation);
    ctx.transcript.note(format!(
        "a message to the task with ifGenerationMatch {generation}"
    ));
    ctx.answer(Operation::SendMessage, params).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(generations: &[Option<i64>]) -> Vec<Seen> {
        generations
            .iter()
            .enumerate()
            .map(|(n, g)| Seen {
                what: format!("event #{}", n + 1),
                generation: *g,
            })
            .collect()
    }

    fn reason(stop: Stop) -> String {
        stop.message
    }

    #[test]
    fn a_sequence_one_more_per_event_is_kept() {
        assert_eq!(
            judge_sequence(&events(&[Some(1), Some(2), Some(3)])).ok(),
            Some(3)
        );
        // A stream may open after the task was created (the first event at 2).
        assert_eq!(judge_sequence(&events(&[Some(2), Some(3)])).ok(), Some(3));
    }

    #[test]
    fn gaps_repeats_and_holes_diverge_and_zero_reads_not_supported() {
        let gap = reason(judge_sequence(&events(&[Some(1), Some(3)])).unwrap_err());
        assert!(
            gap.contains("generation 3 right after event #1 carried 1"),
            "{gap}"
        );
        let repeat = reason(judge_sequence(&events(&[Some(1), Some(2), Some(2)])).unwrap_err());
        assert!(repeat.contains("both carry generation 2"), "{repeat}");
        let back = reason(judge_sequence(&events(&[Some(2), Some(1)])).unwrap_err());
        assert!(back.contains("right after"), "{back}");
        let hole = reason(judge_sequence(&events(&[Some(1), None])).unwrap_err());
        assert!(hole.contains("event #2 carried generation none"), "{hole}");
        for unsupported in [vec![None, None], vec![Some(0), Some(0)], vec![None]] {
            let stop = judge_sequence(&events(&unsupported)).unwrap_err();
            assert!(matches!(
                stop.kind,
                crate::runner::context::StopKind::Inconclusive
            ));
            assert!(reason(stop).starts_with("not supported"));
        }
    }
}
