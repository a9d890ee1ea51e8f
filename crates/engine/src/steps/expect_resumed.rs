//! `expect_resumed`: the answer to a resume in a declared input mode took
//! the part (re-prompted, working or completed). An error refuses the
//! mode: a divergence. A task that failed after the resume diverges only
//! when a control — another task driven to input-required and resumed
//! with text — does not fail too: a peer whose resumed tasks fail whatever
//! they are sent says nothing about the mode (the same rule
//! `expect_output_modes` applies to output modes). A text resume that
//! failed has no control to set it against, so it is inconclusive.

use super::primitive::Primitive;
use super::resume::ResumeStep;
use super::send::SendStep;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::runner::evidence::CONTROL_NOTE;
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::TaskState;
use serde::Deserialize;

/// The captures the control is kept under: its task, then its resume.
const CONTROL_TASK: &str = "input-mode-control";
const CONTROL_RESUME: &str = "input-mode-control-resume";

/// `expect_resumed`: judge the answer to a resume in a declared mode.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectResumedStep {
    /// The resume's answer.
    of: String,
    /// The media type the resume's part was of.
    mode: Template,
    /// The text that drove the judged task to input-required: sent again
    /// for the control when the judged task failed.
    prompt: Template,
}

impl Primitive for ExpectResumedStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.texts([&self.mode, &self.prompt])
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let mode = ctx.text(&self.mode)?;
        let capture = ctx.capture(&self.of)?;
        if capture.error().is_some() {
            return Err(Stop::fail(format!(
                "the declared input mode {mode} was refused on resume: {}",
                capture.answer()
            )));
        }
        match capture.state() {
            Some(state) if progressed(state) => Ok(()),
            Some(state @ (TaskState::Failed | TaskState::Rejected)) => {
                let answer = capture.answer();
                Err(self.judge_failed(ctx, &mode, state, answer).await)
            }
            _ => Err(Stop::fail(format!(
                "the declared input mode {mode} was not taken on resume: {}",
                capture.answer()
            ))),
        }
    }
}

/// A resume answer that took the part: asked again, or got on with it.
fn progressed(state: TaskState) -> bool {
    matches!(
        state,
        TaskState::InputRequired | TaskState::Submitted | TaskState::Working | TaskState::Completed
    )
}

/// Whether a part of `mode` is what the control would send anyway.
fn is_text(mode: &str) -> bool {
    mode.trim().to_ascii_lowercase().starts_with("text/")
}

impl ExpectResumedStep {
    /// The verdict on a task that ended `state` after a resume in `mode`:
    /// a fail when a text resume of another task (the control) got on
    /// with it; inconclusive when the control failed too, never reached
    /// input-required, or would have sent the same kind of part.
    async fn judge_failed(
        &self,
        ctx: &mut RunContext<'_>,
        mode: &str,
        state: TaskState,
        answer: String,
    ) -> Stop {
        let ended =
            format!("the task ended {state} after a resume with a part of type {mode} ({answer})");
        if is_text(mode) {
            return Stop::inconclusive(format!(
                "{ended}: the peer took the text and failed the work, which says nothing about the input mode"
            ));
        }
        match self.control(ctx).await {
            Ok(Some(control)) => Stop::fail(format!(
                "{ended}, while a text resume of another task answered {control}: the declared mode is taken but not handled"
            )),
            Ok(None) => Stop::inconclusive(format!(
                "{ended}, and a text resume of another task failed too: resumed tasks fail whatever they are sent, so nothing was learned about the input mode"
            )),
            Err(stop) => stop,
        }
    }

    /// Drives another task to input-required and resumes it with text:
    /// `Some(answer)` when that got on with it, `None` when it failed too.
    async fn control(&self, ctx: &mut RunContext<'_>) -> Result<Option<String>, Stop> {
        let prompt = ctx.text(&self.prompt)?;
        ctx.transcript.note(format!(
            "{CONTROL_NOTE}another task, driven to input-required and resumed with text, tells a refused mode from a task that fails anyway"
        ));
        SendStep::of_text(CONTROL_TASK, &prompt).run(ctx).await?;
        let task = ctx.capture(CONTROL_TASK)?;
        if task.state() != Some(TaskState::InputRequired) {
            return Err(Stop::inconclusive(format!(
                "the task failed after the resume, and the control task meant to tell why never reached input-required (it answered {})",
                task.answer()
            )));
        }
        ResumeStep::with_text(CONTROL_TASK, CONTROL_RESUME)
            .run(ctx)
            .await?;
        let resumed = ctx.capture(CONTROL_RESUME)?;
        Ok(match resumed.state() {
            Some(state) if progressed(state) => Some(resumed.answer()),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_text_modes_are_their_own_control() {
        assert!(is_text("text/plain"));
        assert!(is_text(" Text/Markdown"));
        assert!(!is_text("application/json"));
        assert!(!is_text("image/png"));
    }

    #[test]
    fn a_resume_progressed_unless_it_ended_without_the_work() {
        assert!(progressed(TaskState::InputRequired));
        assert!(progressed(TaskState::Completed));
        assert!(!progressed(TaskState::Failed));
        assert!(!progressed(TaskState::Canceled));
    }
}
