//! `expect_listed`: a ListTasks capture must list a captured task.

use super::primitive::Primitive;
use crate::runner::capture::Captured;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use serde::Deserialize;

/// `expect_listed`: a ListTasks capture must list a captured task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectListedStep {
    of: String,
    task: String,
    #[serde(default)]
    fail: Option<Template>,
}

impl Primitive for ExpectListedStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.reads(&self.task)?;
        ck.texts(&self.fail)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let (task_id, _) = ctx.task_of(&self.task)?;
        let capture = ctx.capture(&self.of)?;
        let Captured::TaskList { task_ids } = &capture.value else {
            return Err(Stop::fail(format!(
                "`{}` is no task list: it was {}",
                self.of, capture.summary
            )));
        };
        if task_ids.contains(&task_id) {
            return Ok(());
        }
        let situation = format!(
            "{} listed {} task(s), none of them {task_id}",
            capture.source_or(&self.of),
            task_ids.len()
        );
        Err(Stop::fail(match &self.fail {
            Some(text) => format!("{}: {situation}", ctx.text(text)?),
            None => situation,
        }))
    }
}
