//! `poll_until_stable`: reads a captured task until N consecutive reads agree
//! on its state and artifacts, failing at once when a terminal state is
//! resurrected or overwritten, or the artifacts change after it.

use super::capture::Capture;
use super::context::{or_list, RunContext, StepResult, Stop};
use crate::scenario::model::PollStep;
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Operation, SendResult, TaskState, TaskView};
use std::time::{Duration, Instant};

/// One read of the task.
#[derive(Clone)]
struct Read {
    at: Instant,
    state: TaskState,
    digest: String,
}

impl RunContext<'_> {
    pub(super) async fn poll_until_stable(&mut self, s: &PollStep) -> StepResult {
        let (task_id, _) = self.task_of(&s.task)?;
        let wanted = s.state.items();
        let reads = match &s.reads {
            Some(count) => self.count(count)? as usize,
            None => 2,
        };
        let interval = match &s.interval {
            Some(d) => self.duration(d)?,
            None => Duration::from_millis(500),
        };
        let within = match &s.within {
            Some(d) => self.duration(d)?,
            None => Duration::from_secs(10),
        };
        let deadline = Instant::now() + within;
        let mut history: Vec<Read> = Vec::new();
        // What the capture itself saw counts as a read: a change from it is a change.
        if let Ok(capture) = self.capture(&s.task) {
            if let (Some(state), Some(digest)) = (capture.state(), capture.digest()) {
                history.push(Read {
                    at: capture.at,
                    state,
                    digest: digest.to_string(),
                });
            }
        }
        let mut fresh = 0usize;
        loop {
            let (task, read) = self.read_task(&task_id).await?;
            self.check_settled(&history, &read, &task)?;
            let (at, state) = (read.at, read.state);
            history.push(read);
            fresh += 1;
            let tail = &history[history.len().saturating_sub(reads)..];
            let agree = fresh >= reads
                && tail
                    .iter()
                    .all(|r| r.state == tail[0].state && r.digest == tail[0].digest);
            if agree && wanted.contains(&state) {
                if let Some(name) = &s.capture {
                    self.captures
                        .insert(name.clone(), Capture::from_task(&task, at));
                }
                return Ok(());
            }
            if agree && state.is_terminal() {
                return Err(Stop::fail(format!(
                    "the task reads {state} on {reads} consecutive reads, expected {}",
                    or_list(wanted)
                )));
            }
            if Instant::now() + interval > deadline {
                return Err(Stop::fail(format!(
                    "the task did not settle in {} within {} (last read: {})",
                    or_list(wanted),
                    human_duration(within),
                    task.summary()
                )));
            }
            tokio::time::sleep(interval).await;
        }
    }

    /// One GetTask read; an error answer or a task without a readable
    /// state fails the run.
    async fn read_task(&self, task_id: &str) -> Result<(TaskView, Read), Stop> {
        let op = Operation::GetTask;
        let reply = self
            .client
            .call(&self.transcript, op, self.version().task_params(task_id))
            .await;
        let at = Instant::now();
        let task = match self.answered_configured(op, reply)? {
            Ok(result) => match SendResult::from_result(&result) {
                SendResult::Task(t) => t,
                _ => TaskView::from_json(&result),
            },
            Err(e) => {
                return Err(Stop::fail(format!(
                    "GetTask on task {task_id} answered error {} {}",
                    e.code, e.message
                )))
            }
        };
        // No readable state is no valid Task: a malfunction, not a finding.
        let Some(state) = task.state else {
            return Err(Stop::malfunction(
                op,
                &format!("the result for task {task_id} has no readable status.state"),
            ));
        };
        let digest = task.artifacts_digest();
        Ok((task, Read { at, state, digest }))
    }

    /// Once the task read a terminal state, it must keep it and its artifacts.
    fn check_settled(&self, history: &[Read], read: &Read, task: &TaskView) -> StepResult {
        let Some(first) = history.iter().find(|r| r.state.is_terminal()) else {
            return Ok(());
        };
        if read.state != first.state {
            let what = if read.state.is_terminal() {
                "overwritten"
            } else {
                "resurrected"
            };
            return Err(Stop::fail(format!(
                "the task read {} at {}, then {} at {} (terminal state {what})",
                first.state,
                self.offset(first.at),
                read.state,
                self.offset(read.at)
            )));
        }
        if read.digest != first.digest {
            return Err(Stop::fail(format!(
                "the artifacts changed after the task read {}: digest {} at {}, {} at {} ({})",
                first.state,
                first.digest,
                self.offset(first.at),
                read.digest,
                self.offset(read.at),
                task.summary()
            )));
        }
        Ok(())
    }
}
