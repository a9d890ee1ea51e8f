//! The task-basics steps (`scenarios/protocol.yaml`): GetTask/CancelTask on
//! an id of the scenario's choosing or with a `historyLength`, ListTasks, a
//! message whose `contextId` contradicts its task, and the expectations on
//! what they captured (`expect_count`, `expect_listed`). Every reply goes
//! through [`RunContext::answered`], so a malfunction is an `error`, never a
//! `fail`.

use super::capture::{Capture, Captured};
use super::context::{RunContext, StepResult, Stop};
use super::steps::new_message_id;
use crate::scenario::model::{
    CallTaskStep, Counted, ExpectCountStep, ExpectListedStep, ListTasksStep, SendInTaskStep, TaskOp,
};
use crate::scenario::template::Template;
use a2a_conform_protocol::{MessagePart, Operation, SendResult};
use serde_json::{json, Value};
use std::time::Instant;

impl RunContext<'_> {
    pub(super) async fn call_task(&mut self, s: &CallTaskStep) -> StepResult {
        let task_id = match (&s.task, &s.id) {
            (Some(task), _) => self.task_of(task)?.0,
            (None, Some(id)) => self.text(id)?,
            (None, None) => return Err(Stop::error("`call_task` names no task")),
        };
        let op = match s.op {
            TaskOp::Get => Operation::GetTask,
            TaskOp::Cancel => Operation::CancelTask,
        };
        let mut params = self.version().task_params(&task_id);
        if let Some(n) = s.history_length {
            params["historyLength"] = json!(n);
        }
        let reply = self.client.call(&self.transcript, op, params).await;
        let at = Instant::now();
        let mut capture = match self.answered_configured(op, reply)? {
            Ok(result) => match SendResult::from_result(&result) {
                SendResult::Task(task) => {
                    let mut capture = Capture::from_task(&task, at);
                    capture.history = Some(history_len(&result));
                    capture
                }
                // A task operation answers a Task; anything else is no
                // valid A2A answer to it.
                SendResult::Message | SendResult::Unrecognized(_) => {
                    return Err(Stop::malfunction(op, "the result is not a Task"))
                }
            },
            Err(error) => Capture::from_error(error, at),
        };
        capture.source = format!("the {op:?} answer");
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    pub(super) async fn list_tasks(&mut self, s: &ListTasksStep) -> StepResult {
        let op = Operation::ListTasks;
        let mut params = json!({});
        if let Some(n) = s.page_size {
            params["pageSize"] = json!(n);
        }
        if let Some(n) = s.history_length {
            params["historyLength"] = json!(n);
        }
        if let Some(task) = &s.context_of {
            match self.task_of(task)?.1 {
                Some(context) => params["contextId"] = json!(context),
                None => {
                    return Err(Stop::inconclusive(format!(
                        "`{task}` carries no contextId to filter ListTasks on"
                    )))
                }
            }
        }
        let reply = self.client.call(&self.transcript, op, params).await;
        let at = Instant::now();
        let mut capture = match self.answered_configured(op, reply)? {
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
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    pub(super) async fn send_in_task(&mut self, s: &SendInTaskStep) -> StepResult {
        let (task_id, _) = self.task_of(&s.task)?;
        let context_id = self.text(&s.context_id)?;
        let text = self.text(s.text.as_ref().unwrap_or(&Template::var("prompt")))?;
        self.transcript.note(format!(
            "a message to task {task_id} with contextId {context_id}"
        ));
        let message = self.version().message(
            &[MessagePart::Text(text)],
            &new_message_id(),
            Some(&task_id),
            Some(&context_id),
        );
        let params = self.version().send_params(message, false);
        let capture = self.answer(Operation::SendMessage, params).await?;
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    pub(super) fn expect_count(&self, s: &ExpectCountStep) -> StepResult {
        let capture = self.capture(&s.of)?;
        let counted = match (s.count, &capture.value) {
            (Counted::Tasks, Captured::TaskList { task_ids }) => Some(task_ids.len()),
            (Counted::History, _) => capture.history,
            _ => None,
        };
        let Some(n) = counted else {
            return Err(Stop::fail(format!(
                "`{}` holds no {} to count: it was {}",
                s.of,
                s.count.as_str(),
                capture.summary
            )));
        };
        let low = s.at_least.is_some_and(|min| n < min as usize);
        let high = s.at_most.is_some_and(|max| n > max as usize);
        if !low && !high {
            return Ok(());
        }
        let bound = match (low, s.at_least, s.at_most) {
            (true, Some(min), _) => format!("at least {min}"),
            (_, _, Some(max)) => format!("at most {max}"),
            _ => String::new(),
        };
        let situation = format!(
            "{} held {n} {}, not {bound}",
            capture.source_or(&s.of),
            s.count.as_str()
        );
        if let Some(reason) = &s.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                self.text(reason)?
            )));
        }
        Err(Stop::fail(match &s.fail {
            Some(text) => format!("{}: {situation}", self.text(text)?),
            None => situation,
        }))
    }

    pub(super) fn expect_listed(&self, s: &ExpectListedStep) -> StepResult {
        let (task_id, _) = self.task_of(&s.task)?;
        let capture = self.capture(&s.of)?;
        let Captured::TaskList { task_ids } = &capture.value else {
            return Err(Stop::fail(format!(
                "`{}` is no task list: it was {}",
                s.of, capture.summary
            )));
        };
        if task_ids.contains(&task_id) {
            return Ok(());
        }
        let situation = format!(
            "{} listed {} task(s), none of them {task_id}",
            capture.source_or(&s.of),
            task_ids.len()
        );
        Err(Stop::fail(match &s.fail {
            Some(text) => format!("{}: {situation}", self.text(text)?),
            None => situation,
        }))
    }
}

impl Capture {
    /// Where the capture came from, for messages, or its name.
    fn source_or(&self, name: &str) -> String {
        if self.source.is_empty() {
            format!("`{name}`")
        } else {
            self.source.clone()
        }
    }
}

/// How many messages a task answer's `history` holds (the task bare, or
/// wrapped as `{"task": …}`); none when it has no `history`.
fn history_len(result: &Value) -> usize {
    let task = result.get("task").unwrap_or(result);
    task.get("history")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}
