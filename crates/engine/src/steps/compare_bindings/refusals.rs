//! The refusals two bindings must agree on, compared by A2A error code
//! (HTTP+JSON and gRPC errors read by their ErrorInfo reason, never by
//! status alone):
//!
//! - **invalid params**: a message with no parts (a valid proto message,
//!   so gRPC carries it as the JSON bindings do), sent non-blocking: the
//!   answer alone says whether it was refused. Both refusing with one code
//!   agree; one accepting while the other refuses, or two codes, disagree.
//!   Both accepting agree on this (the bindings do alike; whether the
//!   message should have been refused is no question of equivalence).
//! - **unsupported operation**: only where the card gives a reason to
//!   expect a refusal. No push notifications declared: CreatePushConfig for
//!   an id the peer never issued (no task is started for it; -32003 is the
//!   spec's answer, and a peer that looks the task up first answers -32001:
//!   either way, the same over both); else no streaming
//!   declared: a streaming message (-32004). A card declaring both gives no
//!   operation to expect refused: the comparison is skipped, and the run's
//!   message says so.

use super::{both, differ, on_reference, side_note, take, Differences, Pair, UNKNOWN_TASK};
use crate::runner::calls::{malformed_end, new_message_id};
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::steps::primitive::Primitive;
use crate::steps::send::SendStep;
use crate::steps::stream::StreamStep;
use a2a_conform_protocol::{Event, Operation};
use std::time::Instant;

/// How a request that may be refused was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// An A2A error, by code.
    Refused(i64),
    /// Anything else: a task, a message, a config, a stream.
    Accepted,
}

impl Refusal {
    /// A plain answer: its error's code, or accepted.
    pub(super) fn of(capture: &Capture) -> Refusal {
        match capture.error() {
            Some(error) => Refusal::Refused(error.code),
            None => Refusal::Accepted,
        }
    }
}

/// A message with no parts over both interfaces: the same refusal, or the
/// same acceptance.
pub(super) async fn invalid_params<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    differences: &mut Differences,
) -> Result<(), Stop> {
    let (other, reference) = both(ctx, pair, &EmptyMessage, EMPTY).await?;
    if Refusal::of(&other) != Refusal::of(&reference) {
        let what = "a message with no parts (invalid params)";
        differences.push(ctx, differ(pair, what, &other, &reference));
    }
    Ok(())
}

/// An operation the card does not declare over both interfaces, when the
/// card gives one: the same refusal (or the same acceptance).
pub(super) async fn unsupported<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    differences: &mut Differences,
) -> Result<(), Stop> {
    if !ctx.card.push_notifications {
        let (other, reference) = both(ctx, pair, &PushConfig, PUSH).await?;
        if Refusal::of(&other) != Refusal::of(&reference) {
            let what = "a push notification config (the card declares no push notifications)";
            differences.push(ctx, differ(pair, what, &other, &reference));
        }
        return Ok(());
    }
    if !ctx.card.streaming {
        undeclared_stream(ctx, pair, differences).await?;
        return Ok(());
    }
    ctx.remarks.push(
        "the unsupported-operation codes were not compared: the card declares both streaming and push notifications, so no operation is expected refused"
            .into(),
    );
    Ok(())
}

/// The text of the undeclared stream (what it says does not matter).
const UNDECLARED_STREAM: &str = "a2a-conform: a stream the card does not declare";

/// Capture names of the probes (taken out of the run's once compared).
const EMPTY: &str = "pair-invalid";
const PUSH: &str = "pair-push";
const STREAM: &str = "pair-unsupported-stream";

/// A message with no parts, non-blocking.
struct EmptyMessage;

impl Primitive for EmptyMessage {
    fn check(&self, _ck: &mut StepCheck<'_>) -> Checked {
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let version = ctx.version();
        let message = version.message(&[], &new_message_id(), None, None);
        // Non-blocking: a peer that accepts it anyway is not waited on.
        let params = version.send_params(message, false);
        let mut capture = ctx.answer(Operation::SendMessage, params).await?;
        capture.source = "the SendMessage answer".into();
        ctx.captures.insert(EMPTY.into(), capture);
        Ok(())
    }
}

/// CreatePushConfig for an id the peer never issued, naming the run's
/// webhook receiver (a peer that accepts it anyway is heard there).
struct PushConfig;

impl Primitive for PushConfig {
    fn check(&self, _ck: &mut StepCheck<'_>) -> Checked {
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let task_id = UNKNOWN_TASK.to_string();
        let version = ctx.version();
        let url = ctx.receiver().await?.url().to_string();
        let params = version.push_config_params(&task_id, &url, None);
        let op = Operation::CreatePushConfig;
        let reply = ctx.client.call(&ctx.transcript, op, params).await;
        let at = Instant::now();
        let mut capture = match ctx.answered_configured(op, reply)? {
            Ok(_) => Capture::about_task(Some(task_id), None, at, "a push notification config"),
            Err(error) => Capture::from_error(error, at),
        };
        capture.source = "the CreatePushConfig answer".into();
        ctx.captures.insert(PUSH.into(), capture);
        Ok(())
    }
}

/// How a streaming message was answered, and in words: refused (a plain
/// error, or a stream whose first event is one), or served. A stream that
/// broke before its first event is a malfunction; one silent until
/// `deadline` counts as served (it opened).
async fn stream_refusal(capture: &Capture, deadline: Instant) -> Result<(Refusal, String), Stop> {
    let Some(stream) = capture.stream() else {
        return Ok((Refusal::of(capture), capture.answer()));
    };
    stream
        .wait_until(deadline, |items, end| !items.is_empty() || end.is_some())
        .await;
    let (items, end) = stream.snapshot();
    match items.first().map(|item| item.event) {
        Some(Event::Error(error)) => Ok((
            Refusal::Refused(error.code),
            format!(
                "a stream whose first event is error {} {}",
                error.code, error.message
            ),
        )),
        Some(_) => Ok((Refusal::Accepted, "a stream".into())),
        None => match end.as_ref().and_then(malformed_end) {
            Some(stop) => Err(stop),
            None => Ok((Refusal::Accepted, "a stream (no event yet)".into())),
        },
    }
}

/// A streaming message over both interfaces, one side at a time: a stream
/// served anyway is dropped (its reading stops) before the other side is
/// asked, so the two never interleave in the evidence.
async fn undeclared_stream<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    differences: &mut Differences,
) -> Result<(), Stop> {
    let step = StreamStep(SendStep::of_text(STREAM, UNDECLARED_STREAM));
    let timeout = ctx.client.timeout();
    let reference = on_reference(ctx, pair, &step, STREAM).await?;
    let (b, said_b) = stream_refusal(&reference, Instant::now() + timeout).await?;
    drop(reference);
    ctx.transcript.note(side_note(&pair.other_label));
    step.run(ctx).await?;
    let other = take(ctx, STREAM)?;
    let (a, said_a) = stream_refusal(&other, Instant::now() + timeout).await?;
    if a != b {
        differences.push(
            ctx,
            format!(
                "a streaming message (the card declares no streaming) answered {said_a} over {} but {said_b} over {}",
                pair.other_label, pair.reference_label
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::RpcError;

    #[test]
    fn refusals_agree_by_code_and_acceptance_by_kind() {
        let at = Instant::now();
        let error = |code| {
            Capture::from_error(
                RpcError {
                    code,
                    message: "no".into(),
                    data: None,
                },
                at,
            )
        };
        let task = Capture::about_task(Some("t".into()), None, at, "a task");
        assert_eq!(Refusal::of(&error(-32602)), Refusal::of(&error(-32602)));
        assert_ne!(Refusal::of(&error(-32602)), Refusal::of(&error(-32005)));
        // One side accepting while the other refuses is a disagreement.
        assert_ne!(Refusal::of(&task), Refusal::of(&error(-32602)));
        assert_eq!(Refusal::of(&task), Refusal::Accepted);
    }
}
