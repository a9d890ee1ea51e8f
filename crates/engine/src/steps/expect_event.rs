//! `expect_event`: waits, within a window, for an event of a kind and
//! state on a captured stream, past the events earlier steps consumed. A
//! stream cut at a cap, broken, or carrying events that are not A2A events
//! is an error, not a fail; a window the tool clamped (`--max-probe-window`)
//! that saw nothing is inconclusive.

use super::primitive::Primitive;
use crate::runner::calls::malformed_end;
use crate::runner::capture::Capture;
use crate::runner::context::{or_list, RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::values::{EventKind, OneOrMany};
use crate::scenario::vars::DurationValue;
use a2a_conform_client::stream::describe;
use a2a_conform_client::{StreamEnd, StreamItem, StreamLog};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Event, TaskState};
use serde::Deserialize;
use std::time::Instant;

/// `expect_event`: an event must arrive on a stream within a window.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectEventStep {
    /// The captured stream to watch.
    pub(crate) stream: String,
    /// Event kinds that count: task, message, status-update, artifact-update.
    #[serde(default)]
    kind: Option<OneOrMany<EventKind>>,
    /// States that count (for task and status-update events).
    #[serde(default)]
    state: Option<OneOrMany<TaskState>>,
    /// How long to wait, from the step's start; for a stream's first event,
    /// from when the request that opened it was sent.
    within: DurationValue,
    #[serde(rename = "as", default)]
    capture: Option<String>,
    /// What a failure means, in the scenario's words.
    #[serde(default)]
    fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// the event does not come (e.g. a precondition the peer never reached).
    #[serde(default)]
    pub(crate) otherwise_inconclusive: Option<Template>,
}

impl Primitive for ExpectEventStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads_stream(&self.stream)?;
        ck.texts(
            self.within
                .template()
                .into_iter()
                .chain(&self.fail)
                .chain(&self.otherwise_inconclusive),
        )?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Answer);
        }
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let within = ctx.duration(&self.within)?;
        let kinds = OneOrMany::all(&self.kind);
        let states = OneOrMany::all(&self.state);
        let cursor = ctx.cursors.get(&self.stream).copied().unwrap_or(0);
        let stream = ctx.stream_of(&self.stream)?;
        // The first event's window runs from the request, not from the
        // response head: a peer silent before its status line has used the
        // window up as surely as one silent after its first frame.
        let started = if cursor == 0 {
            stream.sent_at
        } else {
            Instant::now()
        };
        let deadline = started + within;
        let matches = |item: &StreamItem| {
            item.seq > cursor
                && item.at <= deadline
                && !matches!(item.event, Event::Unrecognized { .. })
                && (kinds.is_empty()
                    || EventKind::of(item.event).is_some_and(|k| kinds.contains(&k)))
                && (states.is_empty() || item.event.state().is_some_and(|st| states.contains(&st)))
        };
        let found = stream
            .wait_until(deadline, |items, _| {
                items.iter_after(cursor).any(|i| matches(&i))
            })
            .await;
        let (items, end) = stream.snapshot();
        // Judged as of the deadline: what came after it (right after a late
        // response head, say) was too late, and its count varies.
        let end = end.filter(|e| e.at() <= deadline);
        if found {
            let item = items.iter_after(cursor).find(|i| matches(i));
            if let Some(item) = item {
                ctx.cursors.insert(self.stream.clone(), item.seq);
                if let Some(name) = &self.capture {
                    let capture = Capture::from_event(&item);
                    ctx.captures.insert(name.clone(), capture);
                }
                return Ok(());
            }
        }
        // Nothing the peer said broke the promise if the stream was cut at
        // the tool's cap, broke, or carried events that are not A2A events.
        if let Some(stop) = end.as_ref().and_then(malformed_end) {
            return Err(stop);
        }
        if let Some(bad) = items
            .iter_after(cursor)
            .find(|i| i.at <= deadline && matches!(i.event, Event::Unrecognized { .. }))
        {
            return Err(Stop::malfunction_in(format!(
                "stream event #{} is not a valid A2A event: {}",
                bad.seq,
                describe(bad.event)
            )));
        }
        // A window the tool clamped did not wait as long as the card asked.
        if let Some(window) = ctx
            .clamped_window
            .filter(|w| end.is_none() && w.used == within)
        {
            return Err(Stop::inconclusive(format!(
                "no {} yet: {}",
                describe_wanted(&kinds, &states).trim_start_matches("any "),
                window.waited()
            )));
        }
        let mut situation = Missed {
            wanted: describe_wanted(&kinds, &states),
            within,
            deadline,
            cursor,
            comments: stream.comments(),
        }
        .describe(ctx, &items, end.as_ref());
        let head_after = stream.opened_at.saturating_duration_since(stream.sent_at);
        if cursor == 0 && head_after >= within {
            situation.push_str(&format!(
                "; the peer sent nothing, not even its HTTP status line, for {} after the request, and the window runs from the request",
                human_duration(head_after)
            ));
        }
        if let Some(reason) = &self.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                ctx.text(reason)?
            )));
        }
        let lead = match &self.fail {
            Some(text) => format!("{}: ", ctx.text(text)?),
            None => String::new(),
        };
        Err(Stop::fail(format!("{lead}{situation}")))
    }
}

fn describe_wanted(kinds: &[EventKind], states: &[TaskState]) -> String {
    let kinds = if kinds.is_empty() {
        "any event".to_string()
    } else {
        or_list(kinds)
    };
    if states.is_empty() {
        kinds
    } else {
        format!("{kinds} with state {}", or_list(states))
    }
}

/// An event `expect_event` waited for in vain, and what the stream did instead.
struct Missed {
    wanted: String,
    within: std::time::Duration,
    /// The end of the window: events after it do not count, nor are counted.
    deadline: Instant,
    /// The last event an earlier step consumed.
    cursor: usize,
    /// Keep-alive comments seen (they never count as events).
    comments: usize,
}

impl Missed {
    fn describe(&self, ctx: &RunContext, items: &StreamLog, end: Option<&StreamEnd>) -> String {
        let Missed {
            wanted,
            within,
            deadline,
            cursor,
            comments,
        } = self;
        let seen = items
            .iter_after(*cursor)
            .filter(|i| i.at <= *deadline)
            .count();
        let situation = match end {
            Some(end) if seen == 0 => format!(
                "the stream {} at {} before any new event",
                end_words(end),
                ctx.offset(end.at())
            ),
            Some(end) => format!(
                "the stream {} at {} after {seen} more event(s), none of them {wanted}",
                end_words(end),
                ctx.offset(end.at())
            ),
            None => format!(
                "no {} within {} ({seen} new event(s){})",
                wanted.strip_prefix("any ").unwrap_or(wanted),
                human_duration(*within),
                if *comments > 0 {
                    format!(", {comments} keep-alive comment(s), which do not count")
                } else {
                    String::new()
                }
            ),
        };
        let invalid: Vec<String> = items
            .iter_after(*cursor)
            .filter(|i| i.at <= *deadline && matches!(i.event, Event::Unrecognized { .. }))
            .take(3)
            .map(|i| format!("event #{} {}", i.seq, describe(i.event)))
            .collect();
        if invalid.is_empty() {
            situation
        } else {
            format!("{situation}; invalid events: {}", invalid.join("; "))
        }
    }
}

fn end_words(end: &StreamEnd) -> String {
    match end {
        StreamEnd::Closed { .. } => "closed".into(),
        StreamEnd::Cut { reason, .. } => format!("was cut ({reason})"),
        StreamEnd::Reset { reason, .. } | StreamEnd::Failed { reason, .. } => {
            format!("failed ({reason})")
        }
    }
}
