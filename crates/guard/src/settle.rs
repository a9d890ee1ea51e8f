//! `await_terminal`: a task is done only when `GetTask` reads it terminal
//! with the same state and the same artifact set — ids *and* content,
//! [`TaskView::artifacts_digest`] — on two consecutive reads. Two reads,
//! not three: the first terminal read is the first of the two. An
//! interrupted task (`input-required`, `auth-required`) is answered at once:
//! it waits on the caller, not on the peer. A `completed` task whose
//! artifacts change between reads broke `lifecycle.completion`.

use crate::error::GuardError;
use crate::guard::Guard;
use a2a_conform_client::{Record, Transcript};
use a2a_conform_protocol::{DeclarationId, TaskState, TaskView};
use serde_json::Value;
use std::time::Instant;

/// A task as the guard let it go: terminal and stable, or interrupted.
#[derive(Debug, Clone, PartialEq)]
pub struct Settled {
    /// The task.
    pub task_id: String,
    /// Its state: terminal, or interrupted ([`Settled::is_interrupted`]).
    pub state: TaskState,
    /// The last read, viewed.
    pub task: TaskView,
    /// The last read, as the peer sent it.
    pub raw: Value,
    /// How many `GetTask` reads it took.
    pub reads: u32,
    /// Every exchange of the wait, redacted.
    pub exchanges: Vec<Record>,
}

impl Settled {
    /// Whether the task waits on the caller (input- or auth-required).
    pub fn is_interrupted(&self) -> bool {
        self.state.is_interrupted()
    }
}

impl Guard {
    /// Polls `GetTask` until the task is terminal and stable over two
    /// consecutive reads, or interrupted. Bounded by
    /// [`GuardOptions::max_wait`](crate::GuardOptions::max_wait).
    ///
    /// Costs at least two reads and one poll interval for a finished task.
    pub async fn await_terminal(&self, task_id: &str) -> Result<Settled, GuardError> {
        let transcript = self.transcript();
        self.settle(&transcript, task_id).await
    }

    /// [`Guard::await_terminal`], recording into `transcript`.
    pub(crate) async fn settle(
        &self,
        transcript: &Transcript,
        task_id: &str,
    ) -> Result<Settled, GuardError> {
        let started = Instant::now();
        let mut last: Option<(TaskState, String)> = None;
        let mut reads = 0u32;
        loop {
            let (view, raw) = self.read_task(transcript, task_id).await?;
            reads += 1;
            let state = view.state.unwrap_or(TaskState::Unknown);
            let digest = view.artifacts_digest();
            let done = |state| Settled {
                task_id: task_id.to_string(),
                state,
                task: view.clone(),
                raw: raw.clone(),
                reads,
                exchanges: transcript.entries(),
            };
            if state.is_interrupted() {
                return Ok(done(state));
            }
            if let Some((before, before_digest)) = &last {
                if *before == TaskState::Completed && (state != *before || digest != *before_digest)
                {
                    let reason = format!(
                        "read completed with artifacts {before_digest}, then {state} with artifacts {digest}: a completed task changed"
                    );
                    let violation = self
                        .violation(DeclarationId::Completion, Some(task_id), reason, transcript)
                        .await?;
                    return Err(violation.into());
                }
                if state.is_terminal() && state == *before && digest == *before_digest {
                    transcript.note(format!(
                        "guard: {state} with artifacts {digest} on two consecutive reads"
                    ));
                    return Ok(done(state));
                }
            }
            last = Some((state, digest));
            if started.elapsed() + self.options.poll_interval > self.options.max_wait {
                return Err(GuardError::Timeout {
                    task: task_id.to_string(),
                    waited: started.elapsed(),
                    last: Some(state),
                });
            }
            tokio::time::sleep(self.options.poll_interval).await;
        }
    }
}
