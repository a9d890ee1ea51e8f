//! `cancel_and_confirm`: a cancel's answer proves nothing. After it, the
//! task must read `canceled` with the same artifact set on two consecutive
//! `GetTask` reads, and a stream the guard holds on the task must carry no
//! artifact frame after the cancel (it closes, or stays quiet for the quiet
//! window). Anything else — artifacts after the cancel, the task reading
//! another terminal state — broke `lifecycle.cancel`, and the violation
//! names the orphaned task so the caller can alert on its cost.
//!
//! A frame counts as after the cancel when it follows the stream's own
//! `canceled` status, or arrives a poll interval after the acknowledgement:
//! a frame already in flight when the cancel was answered is no leak.

use crate::error::GuardError;
use crate::guard::Guard;
use crate::settle::Settled;
use a2a_conform_client::{Record, StreamHandle, StreamLog, Transcript};
use a2a_conform_protocol::{codes, DeclarationId, Event, Operation, TaskState, TaskView};
use std::time::Instant;

/// How a guarded cancel ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CancelOutcome {
    /// The task reads `canceled`, stable, and no stream leaked.
    Confirmed {
        /// The task.
        task_id: String,
        /// Its last read.
        task: TaskView,
        /// `GetTask` reads after the cancel.
        reads: u32,
        /// Every exchange, redacted.
        exchanges: Vec<Record>,
    },
    /// The peer refused the cancel because the task had already finished
    /// (`TaskNotCancelable`): here is how it settled.
    AlreadyTerminal(Settled),
}

impl Guard {
    /// Cancels `task_id` and confirms it by reads (no stream held).
    pub async fn cancel_and_confirm(&self, task_id: &str) -> Result<CancelOutcome, GuardError> {
        let transcript = self.transcript();
        self.cancel_confirmed(&transcript, task_id, None).await
    }

    /// Cancels and confirms, watching `stream` (a stream on the task) too.
    pub(crate) async fn cancel_confirmed(
        &self,
        transcript: &Transcript,
        task_id: &str,
        stream: Option<&StreamHandle>,
    ) -> Result<CancelOutcome, GuardError> {
        let params = self.client.version.task_params(task_id);
        match self.call(transcript, Operation::CancelTask, params).await {
            Ok(answer) => {
                // The cancel answers a task: it must be this one.
                let view = TaskView::from_json(&answer);
                self.same_task(transcript, Operation::CancelTask, task_id, &view)
                    .await?;
            }
            Err(GuardError::Rejected { error, .. }) if error.code == codes::TASK_NOT_CANCELABLE => {
                transcript.note("guard: the task was already terminal; confirming how it ended");
                return Ok(CancelOutcome::AlreadyTerminal(
                    self.settle(transcript, task_id).await?,
                ));
            }
            Err(other) => return Err(other),
        }
        let acked = Instant::now();
        let mut last: Option<(TaskState, String)> = None;
        let mut reads = 0u32;
        loop {
            let (view, _) = self.read_task(transcript, task_id).await?;
            reads += 1;
            let state = view.state.unwrap_or(TaskState::Unknown);
            let digest = view.artifacts_digest();
            let leak = match stream {
                Some(s) => self.stream_leak(s, acked),
                None => None,
            }
            .or_else(|| read_leak(last.as_ref(), state, &digest));
            if let Some(reason) = leak {
                let reason = format!("{reason}; the task may still be running at the peer");
                let violation = self
                    .violation(DeclarationId::Cancel, Some(task_id), reason, transcript)
                    .await?;
                return Err(violation.into());
            }
            let stable = last.as_ref() == Some(&(TaskState::Canceled, digest.clone()));
            if stable && state == TaskState::Canceled {
                if let Some(s) = stream {
                    if let Some(reason) = self.stream_stays_quiet(s, acked).await {
                        let violation = self
                            .violation(DeclarationId::Cancel, Some(task_id), reason, transcript)
                            .await?;
                        return Err(violation.into());
                    }
                }
                transcript
                    .note("guard: canceled, with no artifact change, on two consecutive reads");
                return Ok(CancelOutcome::Confirmed {
                    task_id: task_id.to_string(),
                    task: view,
                    reads,
                    exchanges: transcript.entries(),
                });
            }
            last = Some((state, digest));
            if acked.elapsed() + self.options.poll_interval > self.options.max_wait {
                return Err(GuardError::Timeout {
                    task: task_id.to_string(),
                    waited: acked.elapsed(),
                    last: Some(state),
                });
            }
            tokio::time::sleep(self.options.poll_interval).await;
        }
    }

    /// An artifact frame on `stream` after the cancel, if one came.
    fn stream_leak(&self, stream: &StreamHandle, acked: Instant) -> Option<String> {
        let (log, _) = stream.snapshot();
        leaked_frame(&log, acked + self.options.poll_interval)
    }

    /// Waits until the stream closes or the quiet window passes; a frame
    /// after the cancel meanwhile is a leak.
    async fn stream_stays_quiet(&self, stream: &StreamHandle, acked: Instant) -> Option<String> {
        let deadline = acked + self.options.quiet_window;
        let grace = acked + self.options.poll_interval;
        stream
            .wait_until(deadline, |log, end| {
                end.is_some() || leaked_frame(log, grace).is_some()
            })
            .await;
        self.stream_leak(stream, acked)
    }
}

/// The first artifact frame that follows the stream's `canceled` status,
/// or arrives after `grace`.
fn leaked_frame(log: &StreamLog, grace: Instant) -> Option<String> {
    let mut canceled_seen = false;
    for item in log.iter() {
        match item.event {
            Event::StatusUpdate {
                state: Some(TaskState::Canceled),
                ..
            } => canceled_seen = true,
            Event::ArtifactUpdate { artifact_id, .. } if canceled_seen || item.at > grace => {
                return Some(format!(
                    "artifact update #{} (artifact {}) arrived on the open stream after the cancel was acknowledged",
                    item.seq,
                    artifact_id.as_deref().unwrap_or("?")
                ));
            }
            _ => {}
        }
    }
    None
}

/// What a read after the cancel shows that a confirmed cancel cannot.
fn read_leak(last: Option<&(TaskState, String)>, state: TaskState, digest: &str) -> Option<String> {
    if state.is_terminal() && state != TaskState::Canceled {
        return Some(format!(
            "the peer acknowledged the cancel, then GetTask read {state}"
        ));
    }
    match last {
        Some((TaskState::Canceled, before)) if state != TaskState::Canceled => Some(format!(
            "GetTask read canceled, then {state} (artifacts {before} → {digest})"
        )),
        Some((TaskState::Canceled, before)) if before != digest => Some(format!(
            "the canceled task's artifacts changed between two reads ({before} → {digest})"
        )),
        _ => None,
    }
}
