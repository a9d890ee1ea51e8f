//! `send_in_task`: a non-blocking message to a captured task carrying
//! another `contextId` than the task's own: a peer must refuse the
//! contradiction (or at least not mix the contexts).

use super::primitive::Primitive;
use crate::runner::calls::new_message_id;
use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::{MessagePart, Operation};
use serde::Deserialize;

/// `send_in_task`: a non-blocking message to a captured task, carrying the
/// given `contextId` instead of the task's own.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SendInTaskStep {
    task: String,
    context_id: Template,
    #[serde(default)]
    text: Option<Template>,
    #[serde(rename = "as")]
    capture: String,
}

impl Primitive for SendInTaskStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.task)?;
        ck.texts([&self.context_id].into_iter().chain(&self.text))?;
        ck.defines(&self.capture, CaptureKind::Answer);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let (task_id, _) = ctx.task_of(&self.task)?;
        let context_id = ctx.text(&self.context_id)?;
        let text = ctx.text(self.text.as_ref().unwrap_or(&Template::var("prompt")))?;
        ctx.transcript.note(format!(
            "a message to task {task_id} with contextId {context_id}"
        ));
        let message = ctx.version().message(
            &[MessagePart::Text(text)],
            &new_message_id(),
            Some(&task_id),
            Some(&context_id),
        );
        let params = ctx.version().send_params(message, false);
        let capture = ctx.answer(Operation::SendMessage, params).await?;
        ctx.same_task(
            Operation::SendMessage,
            &task_id,
            capture.task_ref().0.as_deref(),
        )
        .await?;
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }
}
