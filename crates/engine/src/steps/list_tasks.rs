//! `list_tasks`: one ListTasks call (v1.0), optionally filtered on a
//! captured task's `contextId`; the capture is the listed task ids. An entry
//! that is no Task is a malfunction, not a task the peer failed to list.

use super::primitive::Primitive;
use crate::runner::capture::{Capture, Captured};
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use a2a_conform_protocol::Operation;
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Instant;

/// `list_tasks`: one ListTasks call (v1.0).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListTasksStep {
    #[serde(rename = "as")]
    capture: String,
    #[serde(default)]
    page_size: Option<u32>,
    /// Filter on the `contextId` of this captured task.
    #[serde(default)]
    context_of: Option<String>,
    #[serde(default)]
    history_length: Option<u32>,
}

impl Primitive for ListTasksStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        if let Some(task) = &self.context_of {
            ck.reads(task)?;
        }
        ck.defines(&self.capture, CaptureKind::Answer);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let op = Operation::ListTasks;
        let mut params = json!({});
        if let Some(n) = self.page_size {
            params["pageSize"] = json!(n);
        }
        if let Some(n) = self.history_length {
            params["historyLength"] = json!(n);
        }
        if let Some(task) = &self.context_of {
            match ctx.task_of(task)?.1 {
                Some(context) => params["contextId"] = json!(context),
                None => {
                    return Err(Stop::inconclusive(format!(
                        "`{task}` carries no contextId to filter ListTasks on"
                    )))
                }
            }
        }
        let reply = ctx.client.call(&ctx.transcript, op, params).await;
        let at = Instant::now();
        let mut capture = match ctx.answered_configured(op, reply)? {
            Ok(result) => {
                let Some(tasks) = result.get("tasks").and_then(Value::as_array) else {
                    return Err(Stop::malfunction(op, "the result has no `tasks` list"));
                };
                // Every entry is a Task, whose `id` is a string: an entry
                // that is not is no valid ListTasks answer (a malfunction),
                // not a task the peer failed to list.
                let mut task_ids = Vec::with_capacity(tasks.len());
                for (i, task) in tasks.iter().enumerate() {
                    let Some(id) = task.get("id").and_then(Value::as_str) else {
                        let reason = format!("`tasks[{i}]` is not a Task (no string `id`)");
                        return Err(Stop::malfunction(op, &reason));
                    };
                    task_ids.push(id.to_string());
                }
                let summary = format!("a list of {} task(s)", tasks.len());
                Capture::new(Captured::TaskList { task_ids }, at, summary)
            }
            Err(error) => Capture::from_error(error, at),
        };
        capture.source = "the ListTasks answer".to_string();
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }
}
