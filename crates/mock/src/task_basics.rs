//! The task-basics divergences that need more than a flag in the lifecycle:
//! `unknown-task-lenient` answers an id it never issued with a made-up task.

use super::error::A2aError;
use super::model::{Status, Task};
use super::shared::Shared;
use a2a_conform_protocol::{codes, TaskState};

/// The lifecycle's answer about a task, or, under `unknown-task-lenient`
/// and for an id the peer never issued, a made-up completed task.
pub(crate) fn or_made_up(
    peer: &Shared,
    id: &str,
    answer: Result<Task, A2aError>,
) -> Result<Task, A2aError> {
    match answer {
        Err(error)
            if error.code == codes::TASK_NOT_FOUND && peer.behaviour.invents_unknown_tasks() =>
        {
            Ok(Task {
                id: id.to_string(),
                context_id: uuid::Uuid::new_v4().to_string(),
                status: Status::now(TaskState::Completed, None),
                history: Vec::new(),
                artifacts: Vec::new(),
                generation: 1,
            })
        }
        other => other,
    }
}
