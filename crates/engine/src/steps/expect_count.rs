//! `expect_count`: a count in a capture (a task answer's history
//! messages, a ListTasks answer's tasks) must lie within bounds; with
//! `otherwise_inconclusive` a miss is a precondition not met.

use super::primitive::Primitive;
use crate::runner::capture::Captured;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use serde::Deserialize;

/// What `expect_count` counts in a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Counted {
    /// The messages of a task answer's `history`.
    History,
    /// The tasks of a ListTasks answer.
    Tasks,
}

impl Counted {
    fn as_str(self) -> &'static str {
        match self {
            Counted::History => "history message(s)",
            Counted::Tasks => "task(s)",
        }
    }
}

/// `expect_count`: a count in a capture must lie within bounds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectCountStep {
    of: String,
    count: Counted,
    #[serde(default)]
    at_least: Option<u32>,
    #[serde(default)]
    at_most: Option<u32>,
    #[serde(default)]
    fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason (a
    /// precondition, e.g. a history long enough to bound).
    #[serde(default)]
    otherwise_inconclusive: Option<Template>,
}

impl Primitive for ExpectCountStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        if self.at_least.is_none() && self.at_most.is_none() {
            return Err(ck.error("`expect_count` needs `at_least`, `at_most` or both"));
        }
        ck.texts(self.fail.iter().chain(&self.otherwise_inconclusive))
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let capture = ctx.capture(&self.of)?;
        let counted = match (self.count, &capture.value) {
            (Counted::Tasks, Captured::TaskList { task_ids }) => Some(task_ids.len()),
            (Counted::History, _) => capture.history,
            _ => None,
        };
        let Some(n) = counted else {
            return Err(Stop::fail(format!(
                "`{}` holds no {} to count: it was {}",
                self.of,
                self.count.as_str(),
                capture.summary
            )));
        };
        let low = self.at_least.is_some_and(|min| n < min as usize);
        let high = self.at_most.is_some_and(|max| n > max as usize);
        if !low && !high {
            return Ok(());
        }
        let bound = match (low, self.at_least, self.at_most) {
            (true, Some(min), _) => format!("at least {min}"),
            (_, _, Some(max)) => format!("at most {max}"),
            _ => String::new(),
        };
        let situation = format!(
            "{} held {n} {}, not {bound}",
            capture.source_or(&self.of),
            self.count.as_str()
        );
        if let Some(reason) = &self.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                ctx.text(reason)?
            )));
        }
        Err(Stop::fail(match &self.fail {
            Some(text) => format!("{}: {situation}", ctx.text(text)?),
            None => situation,
        }))
    }
}
