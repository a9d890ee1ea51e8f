//! `compare_bindings`: two declared interfaces of one card answer alike.
//! The same requests go to the run's interface and to the reference one
//! (`for_each: interface_pairs`): GetTask and CancelTask on an id the peer
//! never issued, compared by A2A error code (the client reads HTTP+JSON
//! and gRPC errors by their ErrorInfo reason, never by status alone), and
//! a blocking message, compared by the task's final state and what its
//! artifacts say (ids left out: each task mints its own). Content that
//! differs is set against a second task on the reference first: a peer
//! whose answers vary run to run says nothing about its bindings, so its
//! content is not compared. Then the refusals (`refusals`): an invalid
//! message, and an operation the card does not declare; and, on a card
//! declaring streaming, how a stream ends (`stream_end`). A malfunction on
//! either side stops the run as an error, as every step's does.

mod refusals;
mod stream_end;

use super::call_task::{CallTaskStep, TaskOp};
use super::primitive::Primitive;
use super::send::SendStep;
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::runner::evidence::{CONTROL_NOTE, FURTHER_NOTE, REFERENCE_SIDE, SIDE_NOTE};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::vars::DurationValue;
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use a2a_conform_client::PeerClient;
use serde::Deserialize;
use std::time::Duration;

/// The task id both interfaces are asked about: one no peer issued.
const UNKNOWN_TASK: &str = "a2a-conform-no-such-task-7f3c9a2e";

/// `compare_bindings`: the run's interface and the reference answer alike.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompareBindingsStep {
    /// The message both interfaces are sent (blocking, then on a stream).
    prompt: Template,
    /// How long each stream may take to end (default: the client's timeout).
    #[serde(default)]
    within: Option<DurationValue>,
}

/// What an answer is, as far as two bindings must agree on it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// An A2A error, by code.
    Error(i64),
    /// A task, by its state's wire name, and what its artifacts say.
    Task { state: String, said: Option<String> },
    /// Anything else (a message), by its summary.
    Other(String),
}

impl Outcome {
    fn of(capture: &Capture) -> Outcome {
        if let Some(error) = capture.error() {
            return Outcome::Error(error.code);
        }
        match capture.state() {
            Some(state) => Outcome::Task {
                state: state.as_str().to_string(),
                said: capture.said.clone(),
            },
            None => Outcome::Other(capture.summary.clone()),
        }
    }

    /// Whether two answers agree on what is compared: the error code, the
    /// task's state (content is compared apart), or the kind of answer.
    fn agrees(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Task { state: a, .. }, Outcome::Task { state: b, .. }) => a == b,
            (Outcome::Other(_), Outcome::Other(_)) => true,
            (a, b) => a == b,
        }
    }
}

/// The two interfaces of the pair, as the run's messages name them.
pub(super) struct Pair<'a> {
    reference: &'a PeerClient,
    other_label: String,
    reference_label: String,
}

impl Primitive for CompareBindingsStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        let within = self.within.as_ref().and_then(DurationValue::template);
        ck.texts(std::iter::once(&self.prompt).chain(within))
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let pair = pair(ctx)?;
        let prompt = ctx.text(&self.prompt)?;
        let within = match &self.within {
            Some(within) => ctx.duration(within)?,
            None => ctx.client.timeout(),
        };
        let mut differences = Differences::default();
        compare_answers(ctx, &pair, &prompt, &mut differences).await?;
        refusals::invalid_params(ctx, &pair, &mut differences).await?;
        refusals::unsupported(ctx, &pair, &mut differences).await?;
        stream_end::compare(ctx, &pair, &prompt, within, &mut differences).await?;
        match differences.0.is_empty() {
            true => Ok(()),
            false => Err(Stop::fail(format!(
                "the {} interface and the {} interface disagree: {}",
                pair.other_label,
                pair.reference_label,
                differences.0.join("; ")
            ))),
        }
    }

    /// Three tasks on each side: the blocking message, the control, the stream.
    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        NOMINAL_TASK * 3
    }
}

/// GetTask and CancelTask on an id the peer never issued, and a blocking
/// message, over both interfaces.
async fn compare_answers<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    prompt: &str,
    differences: &mut Differences,
) -> Result<(), Stop> {
    for (op, what) in [
        (TaskOp::Get, "GetTask on an id the peer never issued"),
        (TaskOp::Cancel, "CancelTask on an id the peer never issued"),
    ] {
        let name = format!("pair-{op:?}").to_lowercase();
        let step = CallTaskStep::on_id(op, UNKNOWN_TASK, &name);
        let (other, reference) = both(ctx, pair, &step, &name).await?;
        if !Outcome::of(&other).agrees(&Outcome::of(&reference)) {
            differences.push(ctx, differ(pair, what, &other, &reference));
        }
    }
    let step = SendStep::of_text("pair-send", prompt);
    let (other, reference) = both(ctx, pair, &step, "pair-send").await?;
    let (a, b) = (Outcome::of(&other), Outcome::of(&reference));
    if !a.agrees(&b) {
        let difference = differ(pair, "a blocking message", &other, &reference);
        differences.push(ctx, difference);
    } else if said_differs(&a, &b) && !varies_on_reference(ctx, pair, prompt, &b).await? {
        differences.push(ctx, format!(
            "a blocking message: the task's artifacts say something else over {} than over {}, while two tasks over {} said the same",
            pair.other_label, pair.reference_label, pair.reference_label
        ));
    }
    Ok(())
}

/// The differences found so far. The first one's requests are what the
/// run's reproduce line sends: the comparisons after it are noted as
/// further ones (`runner::evidence`).
#[derive(Default)]
pub(super) struct Differences(Vec<String>);

impl Differences {
    pub(super) fn push(&mut self, ctx: &RunContext<'_>, difference: String) {
        if self.0.is_empty() {
            ctx.transcript.note(format!(
                "{FURTHER_NOTE}the comparisons after the first difference (the reproduce line sends that difference's request over the interface compared)"
            ));
        }
        self.0.push(difference);
    }
}

/// The pair a run compares, or an error when it is no interface pair's run.
fn pair<'a>(ctx: &RunContext<'a>) -> Result<Pair<'a>, Stop> {
    let Some(reference) = ctx.reference else {
        return Err(Stop::error(
            "`compare_bindings` runs only in a scenario `for_each: interface_pairs`",
        ));
    };
    let var = |name: &str| ctx.vars.get(name).cloned().flatten().unwrap_or_default();
    Ok(Pair {
        reference,
        other_label: var("interface"),
        reference_label: var("reference"),
    })
}

/// Runs `step` over the reference, then over the run's interface (so that
/// a difference's last request is the compared interface's); gives both
/// captures, the compared one's first (taken out of the run's: no later
/// step reads them).
pub(super) async fn both<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    step: &impl Primitive,
    name: &str,
) -> Result<(Capture, Capture), Stop> {
    let reference = on_reference(ctx, pair, step, name).await?;
    ctx.transcript.note(side_note(&pair.other_label));
    step.run(ctx).await?;
    Ok((take(ctx, name)?, reference))
}

/// The note before the compared interface's requests (`over HTTP+JSON 1.0:`),
/// which reports read to set the two sides' evidence side by side.
pub(super) fn side_note(label: &str) -> String {
    format!("{SIDE_NOTE}{label}:")
}

/// The capture a step just made, taken out of the run's.
pub(super) fn take(ctx: &mut RunContext<'_>, name: &str) -> Result<Capture, Stop> {
    ctx.captures
        .remove(name)
        .ok_or_else(|| Stop::error(format!("no answer was captured as `{name}`")))
}

/// Runs `step` over the reference interface and gives its capture.
pub(super) async fn on_reference<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    step: &impl Primitive,
    name: &str,
) -> Result<Capture, Stop> {
    ctx.transcript.note(format!(
        "{SIDE_NOTE}{}{REFERENCE_SIDE}",
        pair.reference_label
    ));
    let own = ctx.client;
    ctx.client = pair.reference;
    let ran = step.run(ctx).await;
    ctx.client = own;
    ran?;
    take(ctx, name)
}

/// Whether two agreeing task answers differ in what their artifacts say.
fn said_differs(a: &Outcome, b: &Outcome) -> bool {
    match (a, b) {
        (Outcome::Task { said: Some(a), .. }, Outcome::Task { said: Some(b), .. }) => a != b,
        _ => false,
    }
}

/// Sends the message over the reference once more: whether that second
/// task said something else than the first (`reference`), i.e. the content
/// varies run to run and cannot tell the bindings apart.
async fn varies_on_reference<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    prompt: &str,
    reference: &Outcome,
) -> Result<bool, Stop> {
    ctx.transcript.note(format!(
        "{CONTROL_NOTE}the same message over {} again tells content that varies run to run from content that depends on the binding",
        pair.reference_label
    ));
    let again = on_reference(
        ctx,
        pair,
        &SendStep::of_text("pair-again", prompt),
        "pair-again",
    )
    .await?;
    let again = Outcome::of(&again);
    let varies = !again.agrees(reference) || said_differs(&again, reference);
    if varies {
        ctx.remarks.push(format!(
            "the artifacts' content was not compared: two tasks over {} said different things",
            pair.reference_label
        ));
    }
    Ok(varies)
}

/// One difference: what was asked, and each interface's answer.
pub(super) fn differ(pair: &Pair<'_>, what: &str, other: &Capture, reference: &Capture) -> String {
    format!(
        "{what} answered {} over {} but {} over {}",
        other.answer(),
        pair.other_label,
        reference.answer(),
        pair.reference_label
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(state: &str, said: &str) -> Outcome {
        Outcome::Task {
            state: state.into(),
            said: Some(said.into()),
        }
    }

    #[test]
    fn errors_agree_by_code_and_tasks_by_state() {
        assert!(Outcome::Error(-32001).agrees(&Outcome::Error(-32001)));
        assert!(!Outcome::Error(-32001).agrees(&Outcome::Error(-32602)));
        assert!(!Outcome::Error(-32001).agrees(&task("completed", "x")));
        assert!(task("completed", "x").agrees(&task("completed", "y")));
        assert!(!task("completed", "x").agrees(&task("failed", "x")));
        assert!(Outcome::Other("a".into()).agrees(&Outcome::Other("b".into())));
    }

    #[test]
    fn content_differs_only_between_two_tasks_that_said_something() {
        assert!(said_differs(
            &task("completed", "x"),
            &task("completed", "y")
        ));
        assert!(!said_differs(
            &task("completed", "x"),
            &task("completed", "x")
        ));
        assert!(!said_differs(&Outcome::Error(1), &task("completed", "y")));
    }
}
