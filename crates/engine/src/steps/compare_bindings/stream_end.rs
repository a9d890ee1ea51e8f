//! How a stream ends, over two bindings: on a card declaring streaming, the
//! same streaming message goes to both interfaces, one after the other,
//! and each stream is read to its end (bounded) before the next opens. What is compared is how it ended, never when: the
//! state the last event with a state carried, and whether the peer closed
//! the stream after a terminal or interrupted state. A stream refused
//! (an error, or a first event that is one) is compared by its code. A
//! stream cut at the tool's cap, reset or broken is an error (the truth
//! rule), never a difference.

use super::{on_reference, side_note, take, Differences, Pair};
use crate::runner::calls::malformed_end;
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, Stop};
use crate::runner::stream_end::{self, Improper};
use crate::steps::primitive::Primitive;
use crate::steps::send::SendStep;
use crate::steps::stream::StreamStep;
use a2a_conform_client::{StreamEnd, StreamLog};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Event, ProtocolVersion, TaskState};
use std::time::{Duration, Instant};

/// How a streaming message ended, as far as two bindings must agree on it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ending {
    /// Refused with an A2A error, by code.
    Refused(i64),
    /// A plain answer instead of a stream.
    NoStream,
    /// The stream was still open when the window ran out.
    Open,
    /// The peer closed it after a Message (no task).
    Message,
    /// The peer closed it; the last state an event carried, and whether it
    /// was terminal or interrupted (the stream ended properly).
    Closed {
        last: Option<TaskState>,
        settled: bool,
    },
}

impl Ending {
    /// Whether two endings agree: the same kind, state and closing; a
    /// refusal by the same code.
    fn agrees(&self, other: &Ending) -> bool {
        self == other
    }

    /// Whether two endings can be compared at all. A stream still open
    /// when the window ran out has not ended yet: beside one that closed
    /// it says only that the tool stopped waiting (the truth rule: the
    /// tool's own bound is never the peer's difference). Beside a refusal
    /// or a plain answer it is a difference already: one interface served
    /// a stream and the other did not.
    fn comparable(&self, other: &Ending) -> bool {
        let closed = |e: &Ending| matches!(e, Ending::Message | Ending::Closed { .. });
        !(matches!(self, Ending::Open) && closed(other)
            || matches!(other, Ending::Open) && closed(self))
    }

    fn describe(&self, within: Duration) -> String {
        match self {
            Ending::Refused(code) => format!("refused with error {code}"),
            Ending::NoStream => "a plain answer instead of a stream".into(),
            Ending::Open => format!("a stream still open {} later", human_duration(within)),
            Ending::Message => "a stream that closed after a Message".into(),
            Ending::Closed { last: None, .. } => "a stream that closed with no task state".into(),
            Ending::Closed {
                last: Some(state),
                settled: true,
            } => format!("a stream that closed after the task was {}", state.as_str()),
            Ending::Closed {
                last: Some(state), ..
            } => format!(
                "a stream that closed while the task was {}, not terminal",
                state.as_str()
            ),
        }
    }
}

/// The same streaming message over both interfaces, each read to its end
/// within `within`; skipped (saying so) on a card without streaming.
pub(super) async fn compare<'a>(
    ctx: &mut RunContext<'a>,
    pair: &Pair<'a>,
    prompt: &str,
    within: Duration,
    differences: &mut Differences,
) -> Result<(), Stop> {
    if !ctx.card.streaming {
        ctx.remarks.push(
            "the end of a stream was not compared: the card does not declare streaming".into(),
        );
        return Ok(());
    }
    // One stream at a time, each read to its end before the next opens:
    // their events never interleave in the evidence, and a recording
    // replays them in order.
    let step = StreamStep(SendStep::of_text(STREAM, prompt));
    let version = ctx.version();
    let reference = on_reference(ctx, pair, &step, STREAM).await?;
    let b = ending(version, &reference, Instant::now() + within).await?;
    ctx.transcript.note(side_note(&pair.other_label));
    step.run(ctx).await?;
    let other = take(ctx, STREAM)?;
    let a = ending(version, &other, Instant::now() + within).await?;
    if !a.comparable(&b) {
        let open = if a == Ending::Open {
            &pair.other_label
        } else {
            &pair.reference_label
        };
        ctx.remarks.push(format!(
            "the end of a stream was not compared: the stream over {open} did not end within {}",
            human_duration(within)
        ));
        return Ok(());
    }
    if !a.agrees(&b) {
        differences.push(
            ctx,
            format!(
                "a streaming message ended as {} over {} but as {} over {}",
                a.describe(within),
                pair.other_label,
                b.describe(within),
                pair.reference_label
            ),
        );
    }
    Ok(())
}

/// The capture name of the streams compared.
const STREAM: &str = "pair-stream";

/// How the captured streaming answer ended, waiting for its end until
/// `deadline`; a malformed end is the run's error.
async fn ending(
    version: ProtocolVersion,
    capture: &Capture,
    deadline: Instant,
) -> Result<Ending, Stop> {
    let Some(stream) = capture.stream() else {
        return Ok(match capture.error() {
            Some(error) => Ending::Refused(error.code),
            None => Ending::NoStream,
        });
    };
    stream.wait_until(deadline, |_, end| end.is_some()).await;
    let (items, end) = stream.snapshot();
    if let Some(Event::Error(error)) = items.first().map(|item| item.event) {
        return Ok(Ending::Refused(error.code));
    }
    let Some(end) = end else {
        return Ok(Ending::Open);
    };
    if let Some(stop) = malformed_end(&end) {
        return Err(stop);
    }
    ended(version, &items, &end)
}

/// How a stream the peer closed ended (pure: the tests read it).
fn ended(version: ProtocolVersion, items: &StreamLog, end: &StreamEnd) -> Result<Ending, Stop> {
    // Events that are no A2A events are a malfunction; every other
    // judgement of the stream is the streaming scenarios', not this one's.
    if let Err(Improper::Malformed(reason)) = stream_end::judge(version, items, end) {
        return Err(Stop::malfunction_in(reason));
    }
    if let Some(Event::Message { .. }) = items.first().map(|item| item.event) {
        return Ok(Ending::Message);
    }
    let last = items.iter().filter_map(|item| item.event.state()).last();
    let settled = last.is_some_and(|s| s.is_terminal() || s.is_interrupted());
    Ok(Ending::Closed { last, settled })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::TaskView;
    use TaskState::{Completed, Submitted, Working};

    fn task(state: TaskState) -> Event {
        Event::Task(TaskView {
            id: Some("t".into()),
            context_id: Some("c".into()),
            state: Some(state),
            artifacts: vec![],
            generation: None,
        })
    }

    fn status(state: TaskState) -> Event {
        Event::StatusUpdate {
            task_id: Some("t".into()),
            state: Some(state),
            final_flag: None,
            generation: None,
        }
    }

    fn closed(events: Vec<Event>) -> Result<Ending, Stop> {
        let at = Instant::now();
        let items = StreamLog::from_events(events.into_iter().map(|event| (at, event)));
        ended(ProtocolVersion::V1_0, &items, &StreamEnd::Closed { at })
    }

    #[test]
    fn streams_agree_by_last_state_and_closing_not_by_their_events() {
        let full = closed(vec![task(Submitted), status(Working), status(Completed)]).unwrap();
        let short = closed(vec![task(Submitted), status(Completed)]).unwrap();
        assert!(full.agrees(&short), "{full:?} {short:?}");
        let cut = closed(vec![task(Submitted), status(Working)]).unwrap();
        assert_eq!(
            cut,
            Ending::Closed {
                last: Some(Working),
                settled: false
            }
        );
        assert!(!full.agrees(&cut));
        let within = Duration::from_secs(1);
        assert!(cut.describe(within).contains("while the task was working"));
        assert!(full
            .describe(within)
            .contains("after the task was completed"));
        assert!(!Ending::Refused(-32004).agrees(&Ending::Refused(-32602)));
        assert!(!Ending::Open.agrees(&full));
    }

    #[test]
    fn a_stream_still_open_is_compared_only_with_one_that_never_streamed() {
        let full = closed(vec![task(Submitted), status(Completed)]).unwrap();
        // The window ran out on one side only: not the peer's difference.
        assert!(!Ending::Open.comparable(&full));
        assert!(!full.comparable(&Ending::Open));
        assert!(!Ending::Open.comparable(&Ending::Message));
        // Both still open agree; a refusal or a plain answer beside a
        // stream differs whenever that stream ends.
        assert!(Ending::Open.comparable(&Ending::Open));
        assert!(Ending::Open.agrees(&Ending::Open));
        assert!(Ending::Open.comparable(&Ending::Refused(-32004)));
        assert!(Ending::NoStream.comparable(&Ending::Open));
        assert!(full.comparable(&Ending::Refused(-32004)));
    }

    #[test]
    fn a_stream_of_events_that_are_not_a2a_is_a_malfunction() {
        let bad = Event::Unrecognized { reason: "x".into() };
        assert!(closed(vec![task(Submitted), bad]).is_err());
    }
}
