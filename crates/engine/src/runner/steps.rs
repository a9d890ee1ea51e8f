//! Executes one scenario run's steps against a peer. A step either passes or
//! stops the run with a verdict and the reason; a failed check is a result,
//! never an `Err`.

use super::capture::{artifact_part_types, Capture, Captured};
use super::context::{
    client_credentials, or_list, Answered, RunContext, StepResult, Stop, StopKind,
};
use super::stream_end::Improper;
use crate::scenario::model::{
    Condition, EventKind, ExpectClosedStep, ExpectEventStep, ExpectQuietStep, OneOrMany,
    ResumeStep, SendStep, Step,
};
use crate::scenario::template::Template;
use a2a_conform_client::client::{CallOptions, Extensions};
use a2a_conform_client::stream::describe;
use a2a_conform_client::{StreamEnd, StreamItem, StreamLog, StreamOpen};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Event, MessagePart, Operation, SendResult, TaskState};
use a2a_conform_report::ErrorKind;
use std::time::Instant;

impl RunContext<'_> {
    /// Runs one step.
    pub async fn step(&mut self, step: &Step) -> StepResult {
        match step {
            Step::Send(s) => self.send(s, false).await,
            Step::Stream(s) => self.send(s, true).await,
            Step::Resume(s) => self.resume(s).await,
            Step::Cancel(s) => {
                self.task_call(&s.task, s.capture.as_deref(), Operation::CancelTask)
                    .await
            }
            Step::Get(s) => {
                self.task_call(&s.task, s.capture.as_deref(), Operation::GetTask)
                    .await
            }
            Step::Subscribe(s) => self.subscribe(&s.task, s.capture.as_deref()).await,
            Step::ExpectEvent(s) => self.expect_event(s).await,
            Step::ExpectQuiet(s) => self.expect_quiet(s).await,
            Step::ExpectClosed(s) => self.expect_closed(s).await,
            Step::PollUntilStable(s) => self.poll_until_stable(s).await,
            Step::Expect(s) => {
                let condition = s.condition();
                self.settle_stream_error(&s.of, &condition).await?;
                let capture = self.capture(&s.of)?;
                if capture.matches(&condition) {
                    return Ok(());
                }
                let message = match &s.fail {
                    Some(text) => self.text(text)?,
                    None => format!("`{}` was {}", s.of, capture.summary),
                };
                Err(Stop::fail(message))
            }
            Step::InconclusiveIf(s) => {
                let condition = s.condition();
                self.settle_stream_error(&s.of, &condition).await?;
                if self.capture(&s.of)?.matches(&condition) {
                    return Err(Stop::inconclusive(self.text(&s.reason)?));
                }
                Ok(())
            }
            Step::Sleep(d) => {
                tokio::time::sleep(self.duration(d)?).await;
                Ok(())
            }
            Step::SetPushConfig(s) => self.set_push_config(s).await,
            Step::ExpectWebhook(s) => self.expect_webhook(s).await,
            Step::CallTask(s) => self.call_task(s).await,
            Step::ListTasks(s) => self.list_tasks(s).await,
            Step::SendInTask(s) => self.send_in_task(s).await,
            Step::ExpectCount(s) => self.expect_count(s),
            Step::ExpectListed(s) => self.expect_listed(s),
            Step::VerifySignature(s) => self.verify_signature(s).await,
            Step::GetExtendedCard(s) => self.get_extended_card(s).await,
            Step::ExpectExtendedCard(s) => self.expect_extended_card(s),
            Step::ExpectOutputModes(s) => self.expect_output_modes(s),
        }
    }

    async fn send(&mut self, s: &SendStep, streaming: bool) -> StepResult {
        let text = self.text(s.text.as_ref().unwrap_or(&Template::var("prompt")))?;
        let parts = [MessagePart::Text(text)];
        let context = match &s.context_of {
            Some(name) => self.task_of(name)?.1,
            None => None,
        };
        let message = self
            .version()
            .message(&parts, &new_message_id(), None, context.as_deref());
        let params = self
            .version()
            .send_params(message, s.blocking.unwrap_or(true));
        let params = if s.push {
            self.inline_push(params).await?
        } else {
            params
        };
        let params = match &s.accepted_output_modes {
            Some(modes) => {
                let modes = comma_list(&self.text(modes)?);
                self.version().with_accepted_output_modes(params, &modes)
            }
            None => params,
        };
        let extensions = match &s.extensions {
            _ if s.without_extensions => Extensions::Without,
            Some(uris) => Extensions::Also(comma_list(&self.text(uris)?)),
            None => Extensions::Configured,
        };
        let options = CallOptions {
            a2a_version: match &s.a2a_version {
                Some(v) => Some(self.text(v)?),
                None => None,
            },
            credentials: client_credentials(s.credentials),
            extensions,
        };
        let capture = if streaming {
            self.open_with(Operation::SendStreamingMessage, params, &options)
                .await?
        } else {
            self.answer_with(Operation::SendMessage, params, &options)
                .await?
        };
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    async fn resume(&mut self, s: &ResumeStep) -> StepResult {
        let (task_id, context_id) = self.task_of(&s.task)?;
        let mode = match &s.mode {
            Some(mode) => self.text(mode)?,
            None => "text/plain".to_string(),
        };
        let text = match &s.text {
            Some(text) => self.text(text)?,
            None => "Here is the input you asked for.".to_string(),
        };
        let part = MessagePart::for_media_type(&mode, &text);
        self.transcript.note(format!(
            "resuming task {task_id} with a part of type {}",
            part.media_type()
        ));
        let message = self.version().message(
            &[part],
            &new_message_id(),
            Some(&task_id),
            context_id.as_deref(),
        );
        let params = self.version().send_params(message, true);
        let capture = if s.stream {
            self.open(Operation::SendStreamingMessage, params).await?
        } else {
            self.answer(Operation::SendMessage, params).await?
        };
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    async fn task_call(&mut self, task: &str, name: Option<&str>, op: Operation) -> StepResult {
        let (task_id, _) = self.task_of(task)?;
        let params = self.version().task_params(&task_id);
        let capture = self.answer(op, params).await?;
        if let Some(name) = name {
            self.captures.insert(name.to_string(), capture);
        }
        Ok(())
    }

    async fn subscribe(&mut self, task: &str, name: Option<&str>) -> StepResult {
        let (task_id, _) = self.task_of(task)?;
        let params = self.version().task_params(&task_id);
        let capture = self.open(Operation::SubscribeToTask, params).await?;
        if let Some(name) = name {
            self.captures.insert(name.to_string(), capture);
        }
        Ok(())
    }

    pub(super) fn task_of(&self, name: &str) -> Result<(String, Option<String>), Stop> {
        let capture = self.capture(name)?;
        match capture.task_ref() {
            (Some(id), context) => Ok((id, context)),
            (None, _) => Err(Stop::fail(format!(
                "`{name}` holds no task to act on: it was {}",
                capture.summary
            ))),
        }
    }

    /// Calls and turns the reply into a capture; malformed replies fail the run.
    pub(super) async fn answer(
        &self,
        op: Operation,
        params: serde_json::Value,
    ) -> Result<Capture, Stop> {
        self.answer_with(op, params, &CallOptions::default()).await
    }

    /// [`Self::answer`] with per-call options (`A2A-Version`, credentials).
    /// A refusal (HTTP 401/403) is the capture when the step withheld or
    /// forged the credentials; with the configured ones it stops the run.
    async fn answer_with(
        &self,
        op: Operation,
        params: serde_json::Value,
        options: &CallOptions,
    ) -> Result<Capture, Stop> {
        let reply = self
            .client
            .call_with(&self.transcript, op, params, options)
            .await;
        let at = Instant::now();
        let mut capture = match self.answered(op, reply, options.credentials)? {
            Answered::Result(result) => match SendResult::from_result(&result) {
                SendResult::Task(task) => {
                    let mut capture = Capture::from_task(&task, at);
                    capture.part_types = Some(artifact_part_types(&result));
                    capture
                }
                SendResult::Message => {
                    Capture::new(Captured::Message, at, "a direct Message (no task)")
                }
                // A success envelope whose result is no Task nor Message is
                // not a valid A2A answer: it keeps no promise and breaks none.
                SendResult::Unrecognized(reason) => return Err(Stop::malfunction(op, &reason)),
            },
            Answered::Error(error) => Capture::from_error(error, at),
            Answered::Refused { status, detail } => Capture::from_refusal(status, &detail, at),
        };
        capture.source = format!("the {op:?} answer");
        Ok(capture)
    }

    async fn open(&self, op: Operation, params: serde_json::Value) -> Result<Capture, Stop> {
        self.open_with(op, params, &CallOptions::default()).await
    }

    async fn open_with(
        &self,
        op: Operation,
        params: serde_json::Value,
        options: &CallOptions,
    ) -> Result<Capture, Stop> {
        match self
            .client
            .open_stream(&self.transcript, op, params, options)
            .await
        {
            StreamOpen::Stream(handle) => {
                let at = handle.opened_at;
                let stream = Captured::Stream {
                    handle,
                    error: None,
                };
                Ok(Capture::new(stream, at, "a stream"))
            }
            StreamOpen::Answer(reply) => {
                let at = Instant::now();
                let mut capture = match self.answered(op, reply, options.credentials)? {
                    Answered::Result(result) => {
                        let mut c = match SendResult::from_result(&result) {
                            SendResult::Task(task) => Capture::from_task(&task, at),
                            _ => Capture::new(Captured::Message, at, "a plain JSON answer"),
                        };
                        c.summary = format!(
                            "a plain JSON answer instead of an SSE stream ({})",
                            c.summary
                        );
                        c
                    }
                    Answered::Error(error) => Capture::from_error(error, at),
                    Answered::Refused { status, detail } => {
                        Capture::from_refusal(status, &detail, at)
                    }
                };
                capture.no_stream = Some(format!(
                    "the peer answered {} instead of a stream",
                    capture.summary
                ));
                Ok(capture)
            }
        }
    }

    /// A streaming call may be refused inside the stream: the SSE stream's
    /// first event is the JSON-RPC error (both official SDKs answer a v0.3
    /// resubscribe to a finished task that way). When a condition asks about
    /// errors and the capture is a stream, waits (bounded by the request
    /// timeout) for its first event and, if that is an error, records it as
    /// the capture's answer.
    async fn settle_stream_error(&mut self, name: &str, condition: &Condition) -> StepResult {
        if !condition.error && condition.code.is_empty() {
            return Ok(());
        }
        let timeout = self.client.timeout();
        let capture = self
            .captures
            .get_mut(name)
            .ok_or_else(|| Stop::error(format!("no capture named `{name}`")))?;
        let Captured::Stream {
            handle,
            error: None,
        } = &mut capture.value
        else {
            return Ok(());
        };
        handle
            .wait_until(Instant::now() + timeout, |items, end| {
                !items.is_empty() || end.is_some()
            })
            .await;
        let (items, end) = handle.snapshot();
        let first = items.first();
        // A stream that ends or speaks nonsense before its first event is
        // neither a refusal nor a served stream.
        if first.is_none() {
            if let Some(stop) = end.as_ref().and_then(malformed_end) {
                return Err(stop);
            }
        }
        if let Some(StreamItem {
            event: Event::Unrecognized { reason },
            seq,
            ..
        }) = &first
        {
            return Err(Stop::malfunction_in(format!(
                "stream event #{seq} is not a valid A2A event: {reason}"
            )));
        }
        if let Some(StreamItem {
            event: Event::Error(error),
            seq,
            ..
        }) = first
        {
            let error = error.clone();
            capture.summary = format!(
                "error {} {} (stream event #{seq}: refused inside the stream)",
                error.code, error.message
            );
            if let Captured::Stream { error: slot, .. } = &mut capture.value {
                *slot = Some(error);
            }
        }
        Ok(())
    }

    fn stream_of(&self, name: &str) -> Result<&a2a_conform_client::StreamHandle, Stop> {
        let capture = self.capture(name)?;
        capture.stream().ok_or_else(|| {
            Stop::fail(
                capture
                    .no_stream
                    .clone()
                    .unwrap_or_else(|| format!("`{name}` is not a stream")),
            )
        })
    }

    async fn expect_event(&mut self, s: &ExpectEventStep) -> StepResult {
        let within = self.duration(&s.within)?;
        let kinds = OneOrMany::all(&s.kind);
        let states = OneOrMany::all(&s.state);
        let cursor = self.cursors.get(&s.stream).copied().unwrap_or(0);
        let started = Instant::now();
        let stream = self.stream_of(&s.stream)?;
        let matches = |item: &StreamItem| {
            item.seq > cursor
                && !matches!(item.event, Event::Unrecognized { .. })
                && (kinds.is_empty()
                    || EventKind::of(item.event).is_some_and(|k| kinds.contains(&k)))
                && (states.is_empty() || item.event.state().is_some_and(|st| states.contains(&st)))
        };
        let found = stream
            .wait_until(started + within, |items, _| {
                items.iter_after(cursor).any(|i| matches(&i))
            })
            .await;
        let (items, end) = stream.snapshot();
        if found {
            let item = items.iter_after(cursor).find(|i| matches(i));
            if let Some(item) = item {
                self.cursors.insert(s.stream.clone(), item.seq);
                if let Some(name) = &s.capture {
                    let capture = Capture::from_event(&item);
                    self.captures.insert(name.clone(), capture);
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
            .find(|i| matches!(i.event, Event::Unrecognized { .. }))
        {
            return Err(Stop::malfunction_in(format!(
                "stream event #{} is not a valid A2A event: {}",
                bad.seq,
                describe(bad.event)
            )));
        }
        // A window the tool clamped did not wait as long as the card asked.
        if let Some(window) = self
            .clamped_window
            .filter(|w| end.is_none() && w.used == within)
        {
            return Err(Stop::inconclusive(format!(
                "no {} yet: {}",
                describe_wanted(&kinds, &states),
                window.waited()
            )));
        }
        let situation = Missed {
            wanted: describe_wanted(&kinds, &states),
            within,
            cursor,
            comments: stream.comments(),
        }
        .describe(self, &items, end.as_ref());
        if let Some(reason) = &s.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                self.text(reason)?
            )));
        }
        let lead = match &s.fail {
            Some(text) => format!("{}: ", self.text(text)?),
            None => String::new(),
        };
        Err(Stop::fail(format!("{lead}{situation}")))
    }

    async fn expect_quiet(&mut self, s: &ExpectQuietStep) -> StepResult {
        let duration = self.duration(&s.duration)?;
        let kinds = s.kind.items();
        let allowed = OneOrMany::all(&s.except_state);
        let (after, after_label) = match &s.after {
            Some(name) => {
                let capture = self.capture(name)?;
                let source = if capture.source.is_empty() {
                    format!("`{name}`")
                } else {
                    capture.source.clone()
                };
                (capture.at, source)
            }
            None => (Instant::now(), "the step started".to_string()),
        };
        let stream = self.stream_of(&s.stream)?;
        // Watch the whole window unless the stream ends first.
        stream
            .wait_until(Instant::now() + duration, |_, end| end.is_some())
            .await;
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
        let mut offenders = items
            .iter()
            .filter(|i| i.at > after)
            .filter(|i| EventKind::of(i.event).is_some_and(|k| kinds.contains(&k)))
            .filter(|i| !i.event.state().is_some_and(|st| allowed.contains(&st)));
        // The first few are named, the rest counted: a long stream may hold millions.
        let named: Vec<StreamItem<'_>> = offenders.by_ref().take(5).collect();
        if named.is_empty() {
            return Ok(());
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
        let lead = match &s.fail {
            Some(text) => self.text(text)?,
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

    async fn expect_closed(&mut self, s: &ExpectClosedStep) -> StepResult {
        let within = self.duration(&s.within)?;
        let version = self.version();
        let stream = self.stream_of(&s.stream)?;
        stream
            .wait_until(Instant::now() + within, |_, end| end.is_some())
            .await;
        let (items, end) = stream.snapshot();
        let lead = match &s.fail {
            Some(text) => format!("{}: ", self.text(text)?),
            None => String::new(),
        };
        let Some(end) = end else {
            return Err(Stop::fail(format!(
                "{lead}the stream was still open {} later ({} events so far)",
                human_duration(within),
                items.len()
            )));
        };
        if let Some(stop) = malformed_end(&end) {
            return Err(stop);
        }
        match super::stream_end::judge(version, &items, &end) {
            Ok(notes) => {
                for note in notes {
                    self.transcript.note(note);
                }
                Ok(())
            }
            Err(Improper::Malformed(reason)) => Err(Stop::malfunction_in(reason)),
            Err(Improper::Broken(reason)) => Err(Stop::fail(format!("{lead}{reason}"))),
        }
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
            cursor,
            comments,
        } = self;
        let seen = items.len().saturating_sub(*cursor);
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
                "no {wanted} within {} ({seen} new event(s){})",
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
            .filter(|i| matches!(i.event, Event::Unrecognized { .. }))
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

/// How a stream end stops the run before any judgement of its events: cut
/// at one of the tool's caps (an error naming the cap), or failed (the
/// connection broke, or the bytes were no event stream: a peer malfunction).
fn malformed_end(end: &StreamEnd) -> Option<Stop> {
    match end {
        StreamEnd::Closed { .. } => None,
        StreamEnd::Cut { reason, .. } => Some(Stop::cap(reason.clone())),
        StreamEnd::Failed { reason, .. } => Some(Stop::malfunction_in(format!(
            "the stream did not end properly: {reason}"
        ))),
    }
}

fn end_words(end: &StreamEnd) -> String {
    match end {
        StreamEnd::Closed { .. } => "closed".into(),
        StreamEnd::Cut { reason, .. } => format!("was cut ({reason})"),
        StreamEnd::Failed { reason, .. } => format!("failed ({reason})"),
    }
}

/// `a, b` → `["a", "b"]` (empty items dropped).
fn comma_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

pub(super) fn new_message_id() -> String {
    format!("a2a-conform-{}", uuid::Uuid::new_v4())
}
