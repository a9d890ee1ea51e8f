//! How steps talk to the peer and read what came back, shared by the step
//! primitives: a call or a stream turned into a [`Capture`] (every reply
//! through [`RunContext::answered`], so a broken answer is a malfunction,
//! never a fail), the task a capture names, a capture's stream, and how a
//! stream's end stops a run before any judgement of its events.

use super::capture::{artifact_part_types, Capture, Captured};
use super::context::{Answered, RunContext, StepResult, Stop};
use a2a_conform_client::client::CallOptions;
use a2a_conform_client::transcript::RecordKind;
use a2a_conform_client::{StreamEnd, StreamHandle, StreamOpen};
use a2a_conform_protocol::text::clip;
use a2a_conform_protocol::{Operation, SendResult};
use std::time::Instant;

impl RunContext<'_> {
    pub(crate) fn task_of(&self, name: &str) -> Result<(String, Option<String>), Stop> {
        let capture = self.capture(name)?;
        match capture.task_ref() {
            (Some(id), context) => Ok((id, context)),
            (None, _) => Err(Stop::fail(format!(
                "`{name}` holds no task to act on: it was {}",
                capture.summary
            ))),
        }
    }

    /// GetTask or CancelTask on the task a capture names; the answer is
    /// captured as `name`, if given.
    pub(crate) async fn task_call(
        &mut self,
        task: &str,
        name: Option<&str>,
        op: Operation,
    ) -> StepResult {
        let (task_id, _) = self.task_of(task)?;
        let params = self.version().task_params(&task_id);
        let capture = self.answer(op, params).await?;
        self.same_task(op, &task_id, capture.task_ref().0.as_deref())
            .await?;
        if let Some(name) = name {
            self.captures.insert(name.to_string(), capture);
        }
        Ok(())
    }

    /// Checks that a valid answer to a call naming task `asked` is about
    /// that task: `answered` is the task id the answer carries, if any.
    ///
    /// Another id is a `fail`, not an `error`. The truth rule makes `error`
    /// of answers that are no valid A2A answer (its "wrong id" is the
    /// JSON-RPC envelope's, an answer not matched to its request); this one
    /// is a well-formed Task, correlated to our request, that breaks the
    /// promise the call relies on: a message carrying a `taskId` continues
    /// that task (or is refused, -32001 for an unknown one, -32004 for a
    /// terminal one; v1 §3.4.2, §3.1.1), and GetTask, CancelTask,
    /// SubscribeToTask and the push-config calls act on the task they name.
    /// A peer that forks a new task leaves the asked one orphaned, which must
    /// never pass; the asked task is re-read (GetTask) so the reason says
    /// what really happened to it.
    pub(crate) async fn same_task(
        &self,
        op: Operation,
        asked: &str,
        answered: Option<&str>,
    ) -> Result<(), Stop> {
        let Some(other) = answered.filter(|id| !id.is_empty() && *id != asked) else {
            return Ok(());
        };
        let (asked_id, other_id) = (clip(asked, ID_CLIP), clip(other, ID_CLIP));
        // The request that got the other task is the one to reproduce, not
        // the re-read below: the last reproduction line before it.
        let culprit = self
            .transcript
            .entries()
            .into_iter()
            .rev()
            .find_map(|record| record.curl);
        self.transcript.note(format!(
            "the {op:?} answer is about task {other_id}, not {asked_id}: re-reading task {asked_id}"
        ));
        let params = self.version().task_params(asked);
        let reread = match self.answer(Operation::GetTask, params).await {
            Ok(capture) => capture.summary,
            Err(stop) => stop.message,
        };
        if let Some(curl) = culprit {
            // Reports reproduce a run with its last reproduction line.
            self.transcript.record(
                RecordKind::Note,
                Instant::now(),
                format!("reproduce: the {op:?} request answered with task {other_id}"),
                None,
                Some(curl),
            );
        }
        Err(Stop::fail(format!(
            "{op:?} on task {asked_id} answered with task {other_id} instead of {asked_id}: \
             the task named was not the one acted on; a re-read of task {asked_id} (GetTask) found {reread}"
        )))
    }

    /// The task a capture's answer is about: for a stream, the task its
    /// first event names, waiting for that event (bounded by the client's
    /// timeout), so a stream opened on a named task is checked by
    /// [`Self::same_task`] as a plain answer is.
    pub(crate) async fn answered_task(&self, capture: &Capture) -> Option<String> {
        if let Some(handle) = capture.stream() {
            let deadline = Instant::now() + self.client.timeout();
            handle
                .wait_until(deadline, |items, end| !items.is_empty() || end.is_some())
                .await;
        }
        capture.task_ref().0
    }

    /// Calls and turns the reply into a capture; malformed replies fail the run.
    pub(crate) async fn answer(
        &self,
        op: Operation,
        params: serde_json::Value,
    ) -> Result<Capture, Stop> {
        self.answer_with(op, params, &CallOptions::default()).await
    }

    /// [`Self::answer`] with per-call options (`A2A-Version`, credentials).
    /// A refusal (HTTP 401/403) is the capture when the step withheld or
    /// forged the credentials; with the configured ones it stops the run.
    pub(crate) async fn answer_with(
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
                    capture.status_text = status_text(&result);
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

    /// Opens a stream; a plain answer instead is the capture, saying so.
    pub(crate) async fn open(
        &self,
        op: Operation,
        params: serde_json::Value,
    ) -> Result<Capture, Stop> {
        self.open_with(op, params, &CallOptions::default()).await
    }

    /// [`Self::open`] with per-call options.
    pub(crate) async fn open_with(
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

    /// The open stream capture `name` holds; a capture that is none fails
    /// the run, saying what the peer answered instead.
    pub(crate) fn stream_of(&self, name: &str) -> Result<&StreamHandle, Stop> {
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
}

/// How a stream end stops the run before any judgement of its events: cut
/// at one of the tool's caps (an error naming the cap), reset (the
/// connection broke: a malfunction of kind `stream-reset`), or failed (the
/// bytes were no event stream: a peer malfunction).
pub(crate) fn malformed_end(end: &StreamEnd) -> Option<Stop> {
    match end {
        StreamEnd::Closed { .. } => None,
        StreamEnd::Cut { reason, .. } => Some(Stop::cap(reason.clone())),
        StreamEnd::Reset { reason, .. } => Some(Stop::stream_reset(reason)),
        StreamEnd::Failed { reason, .. } => Some(Stop::malfunction_in(format!(
            "the stream did not end properly: {reason}"
        ))),
    }
}

/// How many characters of a task id a reason shows.
const ID_CLIP: usize = 40;

/// A fresh message id for a message the run sends.
pub(crate) fn new_message_id() -> String {
    format!("a2a-conform-{}", uuid::Uuid::new_v4())
}

/// The text parts of a task answer's status message (v1.0 wraps the task
/// in `task`; v0.3 answers it bare), joined, clipped; `None` when empty.
fn status_text(result: &serde_json::Value) -> Option<String> {
    let task = result.get("task").unwrap_or(result);
    let parts = task
        .get("status")?
        .get("message")?
        .get("parts")?
        .as_array()?;
    let text = parts
        .iter()
        .filter_map(|p| p.get("text").and_then(serde_json::Value::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let text = text.trim();
    (!text.is_empty()).then(|| clip(text, 200))
}
