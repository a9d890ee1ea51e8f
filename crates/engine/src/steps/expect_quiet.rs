//! `expect_quiet`: no event of the given kinds may arrive on a captured
//! stream for a duration (counted after a capture's answer, or the step's
//! start); status updates in allowed states (the canceled status itself)
//! do not count, nor (with `in_flight_before`) events the stream put before
//! its first status in a given state, which were in flight when it happened. The first offenders are named, the rest counted. A
//! stream whose connection broke inside the window proves no quiet: with no
//! offender seen before the break, the run is an error (`stream-reset`).

use super::primitive::Primitive;
use crate::runner::calls::malformed_end;
use crate::runner::context::{RunContext, StepResult, Stop, StopKind};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::values::{EventKind, OneOrMany};
use crate::scenario::vars::DurationValue;
use a2a_conform_client::stream::describe;
use a2a_conform_client::{StreamEnd, StreamItem};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::TaskState;
use a2a_conform_report::ErrorKind;
use serde::Deserialize;
use std::time::Instant;

/// `expect_quiet`: a stream stays quiet of some kinds for a while.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectQuietStep {
    /// The captured stream to watch.
    stream: String,
    /// Event kinds that must not arrive.
    kind: OneOrMany<EventKind>,
    /// Status updates in these states are allowed (e.g. the canceled status itself).
    #[serde(default)]
    except_state: Option<OneOrMany<TaskState>>,
    /// Count events arriving after this capture's answer (default: the step's start).
    #[serde(default)]
    after: Option<String>,
    /// Events the stream put before its first status in one of these states
    /// were in flight when it happened (the canceled status, say): not
    /// counted, however late they arrived. Order within one stream is the
    /// peer's; arrival time against another connection's answer is the
    /// network's.
    #[serde(default)]
    in_flight_before: Option<OneOrMany<TaskState>>,
    /// How long to watch.
    #[serde(rename = "for")]
    duration: DurationValue,
    #[serde(default)]
    fail: Option<Template>,
}

impl Primitive for ExpectQuietStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads_stream(&self.stream)?;
        if let Some(after) = &self.after {
            ck.reads(after)?;
        }
        ck.texts(self.duration.template().into_iter().chain(&self.fail))
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let duration = ctx.duration(&self.duration)?;
        let kinds = self.kind.items();
        let allowed = OneOrMany::all(&self.except_state);
        let (after, after_label) = match &self.after {
            Some(name) => {
                let capture = ctx.capture(name)?;
                let source = if capture.source.is_empty() {
                    format!("`{name}`")
                } else {
                    capture.source.clone()
                };
                (capture.at, source)
            }
            None => (Instant::now(), "the step started".to_string()),
        };
        let stream = ctx.stream_of(&self.stream)?;
        // Watch the whole window unless the stream ends first.
        let window_end = Instant::now() + duration;
        stream.wait_until(window_end, |_, end| end.is_some()).await;
        let (items, end) = stream.snapshot();
        if let Some(
            stop @ Stop {
                kind: StopKind::Error(ErrorKind::ToolCap),
                ..
            },
        ) = end.as_ref().and_then(malformed_end)
        {
            return Err(stop);
        }
        // The stream's own order settles what was in flight: an event before
        // the first status in `in_flight_before` was sent before that state.
        let boundary = self.in_flight_before.as_ref().map(|states| {
            let states = states.items();
            items
                .iter()
                .find(|i| i.event.state().is_some_and(|st| states.contains(&st)))
                .map_or(0, |i| i.seq)
        });
        let mut offenders = items
            .iter()
            .filter(|i| i.at > after)
            .filter(|i| boundary.is_none_or(|seq| i.seq > seq))
            .filter(|i| EventKind::of(i.event).is_some_and(|k| kinds.contains(&k)))
            .filter(|i| !i.event.state().is_some_and(|st| allowed.contains(&st)));
        // The first few are named, the rest counted: a long stream may hold millions.
        let named: Vec<StreamItem<'_>> = offenders.by_ref().take(5).collect();
        if named.is_empty() {
            // Silence after a reset is no quiet the peer kept: what it would
            // have sent was never read.
            return match &end {
                Some(StreamEnd::Reset { at, reason }) if *at <= window_end => {
                    Err(Stop::stream_reset(reason))
                }
                _ => Ok(()),
            };
        }
        let more = offenders.count();
        let lines: Vec<String> = named
            .iter()
            .map(|i| {
                format!(
                    "{} (event #{}) at {} after {after_label}",
                    describe(i.event),
                    i.seq,
                    human_duration(i.at.saturating_duration_since(after))
                )
            })
            .collect();
        let lead = match &self.fail {
            Some(text) => ctx.text(text)?,
            None => "events arrived that must not".into(),
        };
        Err(Stop::fail(format!(
            "{lead}: {} event(s): {}{}",
            named.len() + more,
            lines.join("; "),
            if more > 0 {
                format!("; and {more} more")
            } else {
                String::new()
            }
        )))
    }
}
