//! `open_task` and the task handle. A stream is used only after a probe:
//! when the card declares streaming and the cache does not hold it
//! demoted, the message goes out on a stream and the first status or
//! artifact update must come within the probe window (twice the card's
//! `defaultTimeout`, else 15 s). None — or a declared stream refused with
//! `-32004` — demotes `capabilities.streaming`, and the task goes on by
//! polling `GetTask`. A stream that falls silent later while reads show the
//! task moving is demoted the same way.
//!
//! A message refused with `-32005` (content type not supported) demotes
//! the declared modes of its parts; for a mode the card never declares the
//! refusal is the peer's valid answer ([`GuardError::UndeclaredMode`]).
//!
//! The caller holds one [`TaskHandle`] whichever way the events come: from
//! the stream, or from reads (a new state, a changed artifact set).

use crate::cancel::CancelOutcome;
use crate::error::{ContractViolation, GuardError};
use crate::guard::{judge, Guard};
use crate::resume::mode_ids;
use crate::settle::Settled;
use a2a_conform_client::{CallOptions, Record, StreamHandle, StreamLog, StreamOpen, Transcript};
use a2a_conform_protocol::declaration::Capability;
use a2a_conform_protocol::{
    codes, DeclarationId, Event, MessagePart, Operation, SendResult, TaskState, TaskView,
};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;

/// Where a task event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSource {
    /// The probed stream.
    Stream,
    /// A `GetTask` read that differed from the one before.
    Poll,
}

/// One thing that happened to the task, version-neutral.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskEvent {
    /// The task is in this state (a stream's snapshot or status update,
    /// or a read showing a new state).
    Status {
        /// The state.
        state: TaskState,
        /// Where it was seen.
        from: EventSource,
    },
    /// An artifact arrived or changed.
    Artifact {
        /// Its id, when the peer gave one.
        artifact_id: Option<String>,
        /// Where it was seen.
        from: EventSource,
    },
}

/// A task opened under the guard: its events, its cancel and its end.
pub struct TaskHandle<'g> {
    guard: &'g Guard,
    task_id: String,
    transcript: Arc<Transcript>,
    stream: Option<StreamHandle>,
    /// The last stream event turned into task events.
    seen: usize,
    /// The last state and artifact digest known (from either source).
    last: (Option<TaskState>, Option<String>),
    pending: VecDeque<TaskEvent>,
    done: bool,
    violations: Vec<ContractViolation>,
}

impl Guard {
    /// Sends `parts` as a new task: on a probed stream when the card
    /// declares streaming and the cache does not hold it demoted, else
    /// (or when the probe fails) by a send and `GetTask` reads.
    pub async fn open_task(&self, parts: &[MessagePart]) -> Result<TaskHandle<'_>, GuardError> {
        self.refresh_cache().await?;
        let transcript = self.transcript();
        let streaming = DeclarationId::Capability(Capability::Streaming);
        let version = self.client.version;
        let message = version.message(parts, &uuid::Uuid::new_v4().to_string(), None, None);
        let mut violations = Vec::new();
        if self.options.streaming
            && self.card.capabilities.streaming == Some(true)
            && self.cache.is_trusted(&self.peer, &streaming)
        {
            let params = version.send_params(message.clone(), true);
            let opened = self
                .client
                .open_stream(
                    &transcript,
                    Operation::SendStreamingMessage,
                    params,
                    &CallOptions::default(),
                )
                .await;
            match opened {
                StreamOpen::Stream(stream) => {
                    let handle = self.probe(transcript, stream, parts).await?;
                    return Ok(handle);
                }
                StreamOpen::Answer(a2a_conform_client::Reply::Err(e))
                    if e.code == codes::UNSUPPORTED_OPERATION =>
                {
                    let reason = format!(
                        "the card declares streaming, but a stream was refused with {}: {}",
                        e.code, e.message
                    );
                    violations.push(self.violation(streaming, None, reason, &transcript).await?);
                }
                StreamOpen::Answer(reply) => {
                    let answer = judge(Operation::SendStreamingMessage, reply);
                    let result = self.opened(answer, &transcript, parts).await?;
                    return self.polling(transcript, &result, parts, violations).await;
                }
            }
        } else if self.options.streaming && self.card.capabilities.streaming == Some(true) {
            transcript.note("guard: streaming is demoted for this peer; polling instead");
        }
        let params = version.send_params(message, false);
        let answer = self.call(&transcript, Operation::SendMessage, params).await;
        let result = self.opened(answer, &transcript, parts).await?;
        self.polling(transcript, &result, parts, violations).await
    }

    /// A new task's send as answered. A refusal of the parts' media type
    /// (`-32005`) is a violation demoting the declared modes refused, or,
    /// for modes the card never declares, the peer's valid answer
    /// ([`GuardError::UndeclaredMode`], nothing demoted).
    async fn opened(
        &self,
        answer: Result<serde_json::Value, GuardError>,
        transcript: &Transcript,
        parts: &[MessagePart],
    ) -> Result<serde_json::Value, GuardError> {
        match answer {
            Err(GuardError::Rejected { error, .. })
                if error.code == codes::CONTENT_TYPE_NOT_SUPPORTED =>
            {
                let reason = format!(
                    "the message was refused with {}: {}",
                    error.code, error.message
                );
                let violations = self.demote_modes(transcript, None, parts, &reason).await?;
                Err(self.refusal(violations, parts, &reason))
            }
            other => other,
        }
    }

    /// Waits the probe window for the stream's first update.
    async fn probe(
        &self,
        transcript: Arc<Transcript>,
        stream: StreamHandle,
        parts: &[MessagePart],
    ) -> Result<TaskHandle<'_>, GuardError> {
        let window = self.probe_window();
        let deadline = Instant::now() + window;
        stream
            .wait_until(deadline, |log, end| proves_stream(log) || end.is_some())
            .await;
        let (log, end) = stream.snapshot();
        let task_id = log
            .iter()
            .find_map(|item| item.event.task_id().map(str::to_string));
        let streaming = DeclarationId::Capability(Capability::Streaming);
        if proves_stream(&log) {
            let Some(task_id) = task_id else {
                return Err(GuardError::NoTask);
            };
            let mut trusted = mode_ids(parts);
            trusted.push(streaming);
            self.trusted(trusted).await?;
            return Ok(TaskHandle::new(
                self,
                task_id,
                transcript,
                Some(stream),
                Vec::new(),
            ));
        }
        let reason = match end {
            Some(_) => "the stream ended with no status or artifact update".to_string(),
            None => format!(
                "no status or artifact update within the probe window ({})",
                humantime::format_duration(window)
            ),
        };
        let violation = self
            .violation(streaming, task_id.as_deref(), reason, &transcript)
            .await?;
        let Some(task_id) = task_id else {
            // No task id: nothing to poll, and a new send could duplicate the task.
            return Err(violation.into());
        };
        drop(stream);
        self.trusted(mode_ids(parts)).await?;
        transcript.note("guard: going on by polling GetTask");
        let mut handle = TaskHandle::new(self, task_id, transcript, None, vec![violation]);
        handle.pull_poll().await?;
        Ok(handle)
    }

    /// A handle following the task a send answered, by reads.
    async fn polling(
        &self,
        transcript: Arc<Transcript>,
        result: &serde_json::Value,
        parts: &[MessagePart],
        violations: Vec<ContractViolation>,
    ) -> Result<TaskHandle<'_>, GuardError> {
        let SendResult::Task(task) = SendResult::from_result(result) else {
            return Err(GuardError::NoTask);
        };
        let Some(task_id) = task.id.clone() else {
            return Err(GuardError::NoTask);
        };
        // The send's answer names the task and its context: every later
        // answer is checked against them.
        self.same_task(&transcript, Operation::SendMessage, &task_id, &task)
            .await?;
        self.trusted(mode_ids(parts)).await?;
        let mut handle = TaskHandle::new(self, task_id, transcript, None, violations);
        handle.take_read(&task);
        Ok(handle)
    }
}

/// Whether a stream has shown it works: a status or artifact update, or
/// a first snapshot already terminal or interrupted (nothing more to send).
fn proves_stream(log: &StreamLog) -> bool {
    log.iter().any(|item| match item.event {
        Event::StatusUpdate { .. } | Event::ArtifactUpdate { .. } => true,
        Event::Task(task) => task
            .state
            .is_some_and(|s| s.is_terminal() || s.is_interrupted()),
        _ => false,
    })
}

impl<'g> TaskHandle<'g> {
    fn new(
        guard: &'g Guard,
        task_id: String,
        transcript: Arc<Transcript>,
        stream: Option<StreamHandle>,
        violations: Vec<ContractViolation>,
    ) -> TaskHandle<'g> {
        TaskHandle {
            guard,
            task_id,
            transcript,
            stream,
            seen: 0,
            last: (None, None),
            pending: VecDeque::new(),
            done: false,
            violations,
        }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// Whether events still come from the stream (false once polling).
    pub fn is_streaming(&self) -> bool {
        self.stream.is_some()
    }

    /// The divergences seen so far and routed around (each now demoted).
    pub fn violations(&self) -> &[ContractViolation] {
        &self.violations
    }

    /// Every exchange so far, redacted.
    pub fn exchanges(&self) -> Vec<Record> {
        self.transcript.entries()
    }

    /// The next event, from the stream or from reads; `None` once the task
    /// was seen terminal or interrupted. Bounded by the guard's `max_wait`.
    pub async fn next_event(&mut self) -> Result<Option<TaskEvent>, GuardError> {
        let started = Instant::now();
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            if self.done {
                return Ok(None);
            }
            if started.elapsed() > self.guard.options.max_wait {
                return Err(GuardError::Timeout {
                    task: self.task_id.clone(),
                    waited: started.elapsed(),
                    last: self.last.0,
                });
            }
            if self.stream.is_some() {
                self.pull_stream().await?;
            } else {
                tokio::time::sleep(self.guard.options.poll_interval).await;
                self.pull_poll().await?;
            }
        }
    }

    /// Waits for the task to settle: terminal and stable on two reads, or
    /// interrupted ([`Guard::await_terminal`]).
    pub async fn await_terminal(&self) -> Result<Settled, GuardError> {
        self.guard.settle(&self.transcript, &self.task_id).await
    }

    /// Cancels the task and confirms it by reads and on the stream, if
    /// one is held ([`Guard::cancel_and_confirm`]).
    pub async fn cancel_and_confirm(&self) -> Result<CancelOutcome, GuardError> {
        self.guard
            .cancel_confirmed(&self.transcript, &self.task_id, self.stream.as_ref())
            .await
    }

    /// Waits (one probe window at most) for stream events; on silence,
    /// reads the task, and demotes streaming if it moved unseen.
    async fn pull_stream(&mut self) -> Result<(), GuardError> {
        let Some(stream) = &self.stream else {
            return Ok(());
        };
        let window = self.guard.probe_window();
        let seen = self.seen;
        stream
            .wait_until(Instant::now() + window, |log, end| {
                log.len() > seen || end.is_some()
            })
            .await;
        let (log, end) = stream.snapshot();
        let mut foreign = None;
        for item in log.iter_after(seen) {
            self.seen = item.seq;
            match item.event.task_id() {
                Some(id) if id != self.task_id => {
                    foreign.get_or_insert((item.seq, id.to_string()));
                }
                _ => self.take_stream_event(item.event),
            }
        }
        if let Some((seq, other)) = foreign {
            return Err(self.foreign_event(seq, &other).await);
        }
        if !self.pending.is_empty() || self.done {
            return Ok(());
        }
        if end.is_some() {
            self.transcript
                .note("guard: the stream ended before the task settled; polling");
            self.stream = None;
            return Ok(());
        }
        let before = self.last.0;
        let (view, _) = self
            .guard
            .read_task(&self.transcript, &self.task_id)
            .await?;
        if view.state != before {
            let reason = format!(
                "the stream stayed silent for {} while GetTask read {}",
                humantime::format_duration(window),
                view.state.map_or("?", TaskState::as_str)
            );
            let streaming = DeclarationId::Capability(Capability::Streaming);
            let violation = self
                .guard
                .violation(streaming, Some(&self.task_id), reason, &self.transcript)
                .await?;
            self.violations.push(violation);
            self.stream = None;
            self.take_read(&view);
        }
        Ok(())
    }

    /// A stream event about another task: never this task's progress, and
    /// never its result.
    async fn foreign_event(&self, seq: usize, other: &str) -> GuardError {
        let reason = format!(
            "stream event #{seq} on task {} was about task {other}: an answer about another task is not this task's result",
            self.task_id
        );
        match self
            .guard
            .violation(
                DeclarationId::Completion,
                Some(&self.task_id),
                reason,
                &self.transcript,
            )
            .await
        {
            Ok(violation) => violation.into(),
            Err(e) => e,
        }
    }

    /// One read, queued as events where it differs from the last known.
    async fn pull_poll(&mut self) -> Result<(), GuardError> {
        let (view, _) = self
            .guard
            .read_task(&self.transcript, &self.task_id)
            .await?;
        self.take_read(&view);
        Ok(())
    }

    fn take_read(&mut self, view: &TaskView) {
        let digest = view.artifacts_digest();
        if self.last.1.as_deref() != Some(digest.as_str()) && !view.artifacts.is_empty() {
            for artifact in &view.artifacts {
                self.pending.push_back(TaskEvent::Artifact {
                    artifact_id: artifact.artifact_id.clone(),
                    from: EventSource::Poll,
                });
            }
        }
        self.last.1 = Some(digest);
        if let Some(state) = view.state {
            self.take_state(state, EventSource::Poll);
        }
    }

    fn take_stream_event(&mut self, event: &Event) {
        match event {
            Event::Task(task) => {
                if let Some(state) = task.state {
                    self.take_state(state, EventSource::Stream);
                }
            }
            Event::StatusUpdate {
                state: Some(state), ..
            } => {
                self.take_state(*state, EventSource::Stream);
            }
            Event::ArtifactUpdate { artifact_id, .. } => {
                self.pending.push_back(TaskEvent::Artifact {
                    artifact_id: artifact_id.clone(),
                    from: EventSource::Stream,
                });
            }
            _ => {}
        }
    }

    fn take_state(&mut self, state: TaskState, from: EventSource) {
        if self.last.0 != Some(state) {
            self.pending.push_back(TaskEvent::Status { state, from });
        }
        self.last.0 = Some(state);
        if state.is_terminal() || state.is_interrupted() {
            self.done = true;
        }
    }
}
