//! `resume`: a follow-up message on a captured task, with a part of a
//! given media type (`${mode}` under `for_each: input_modes`), blocking or
//! on a stream; a declared mode the peer refuses is what the input-mode
//! scenarios catch. A blocking resume answered by the task still
//! `submitted` or `working` is polled until it settles (`settle_answer`).

use super::primitive::Primitive;
use crate::runner::calls::new_message_id;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use a2a_conform_protocol::{MessagePart, Operation, TaskState};
use serde::Deserialize;
use std::time::Duration;

/// `resume`: continue a captured task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResumeStep {
    /// The captured task to continue.
    task: String,
    #[serde(rename = "as")]
    capture: String,
    /// The media type of the part to send (default `text/plain`).
    #[serde(default)]
    mode: Option<Template>,
    #[serde(default)]
    text: Option<Template>,
    /// Send the follow-up on a stream instead of a blocking send.
    #[serde(default)]
    stream: bool,
}

impl ResumeStep {
    /// A blocking text resume of the task captured as `task`, answered
    /// into `capture` (the control of `expect_resumed`).
    pub(super) fn with_text(task: &str, capture: &str) -> ResumeStep {
        ResumeStep {
            task: task.into(),
            capture: capture.into(),
            mode: None,
            text: None,
            stream: false,
        }
    }
}

impl Primitive for ResumeStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        ck.texts(self.text.iter().chain(&self.mode))?;
        let kind = if self.stream {
            CaptureKind::Stream
        } else {
            CaptureKind::Answer
        };
        ck.defines(&self.capture, kind);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let (task_id, context_id) = ctx.task_of(&self.task)?;
        let mode = match &self.mode {
            Some(mode) => ctx.text(mode)?,
            None => "text/plain".to_string(),
        };
        let text = match &self.text {
            Some(text) => ctx.text(text)?,
            None => "Here is the input you asked for.".to_string(),
        };
        let part = MessagePart::for_media_type(&mode, &text);
        let media = part.media_type().to_string();
        ctx.transcript.note(format!(
            "resuming task {task_id} with a part of type {}",
            part.media_type()
        ));
        let message = ctx.version().message(
            &[part],
            &new_message_id(),
            Some(&task_id),
            context_id.as_deref(),
        );
        let params = ctx.version().send_params(message, true);
        let capture = if self.stream {
            ctx.open(Operation::SendStreamingMessage, params).await?
        } else {
            ctx.answer(Operation::SendMessage, params).await?
        };
        // A stream is judged on the task its first event names.
        let op = if self.stream {
            Operation::SendStreamingMessage
        } else {
            Operation::SendMessage
        };
        let answered = ctx.answered_task(&capture).await;
        ctx.same_task(op, &task_id, answered.as_deref()).await?;
        let capture = if self.stream {
            capture
        } else {
            super::settle_answer(ctx, capture).await?
        };
        if capture.state() == Some(TaskState::InputRequired) {
            // A re-prompt keeps the task, but proves no progress: say so.
            let asked = capture
                .status_text
                .as_ref()
                .map(|t| format!(": {t}"))
                .unwrap_or_default();
            ctx.transcript.note(format!(
                "re-prompt: the resume of task {task_id} was answered input-required again{asked}"
            ));
            ctx.remarks.push(format!(
                "the resume with a {media} part was answered input-required again (a re-prompt)"
            ));
        }
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }

    /// A follow-up waits for the task it resumes.
    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        NOMINAL_TASK
    }
}
