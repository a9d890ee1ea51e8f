//! What steps capture and later steps refer to: a task answer, an error, or
//! an open stream; and the conditions `expect` and `inconclusive_if` test.

use crate::protocol::{Event, RpcError, TaskState, TaskView};
use crate::scenario::model::Condition;
use crate::scenario::template::CaptureField;
use crate::transport::StreamHandle;
use std::time::Instant;

/// A value a step captured under its `as` name.
pub struct Capture {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: Option<TaskState>,
    pub error: Option<RpcError>,
    /// A task's artifact digest, when the answer was a task.
    pub digest: Option<String>,
    /// When the answer (or event) arrived.
    pub at: Instant,
    /// What the answer was, in words, for messages.
    pub summary: String,
    pub stream: Option<StreamHandle>,
    /// Where the value came from, for messages ("the CancelTask answer").
    pub source: String,
    /// Why there is no stream where one was asked for.
    pub no_stream: Option<String>,
    /// HTTP 401/403: the peer refused the request's credentials.
    pub http_status: Option<u16>,
}

impl Capture {
    pub fn empty(at: Instant, summary: impl Into<String>) -> Capture {
        Capture {
            task_id: None,
            context_id: None,
            state: None,
            error: None,
            digest: None,
            at,
            summary: summary.into(),
            stream: None,
            source: String::new(),
            no_stream: None,
            http_status: None,
        }
    }

    /// An HTTP 401/403 refusal (`detail`: the challenge and the body's start).
    pub fn from_refusal(status: u16, detail: &str, at: Instant) -> Capture {
        Capture {
            http_status: Some(status),
            ..Capture::empty(at, format!("HTTP {status} ({detail})"))
        }
    }

    pub fn from_task(task: &TaskView, at: Instant) -> Capture {
        Capture {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            state: task.state,
            digest: Some(task.artifacts_digest()),
            summary: format!("task {}", task.summary()),
            ..Capture::empty(at, "")
        }
    }

    pub fn from_error(error: RpcError, at: Instant) -> Capture {
        let summary = format!("error {} {}", error.code, error.message);
        Capture {
            error: Some(error),
            ..Capture::empty(at, summary)
        }
    }

    /// The task this capture is about: its own id, or, for a stream, the
    /// first task id any event carried.
    pub fn task_ref(&self) -> (Option<String>, Option<String>) {
        if self.task_id.is_some() {
            return (self.task_id.clone(), self.context_id.clone());
        }
        if let Some(stream) = &self.stream {
            let (items, _) = stream.snapshot();
            for item in &items {
                if let Event::Task(task) = &item.event {
                    return (task.id.clone(), task.context_id.clone());
                }
            }
            if let Some(id) = items.iter().find_map(|i| i.event.task_id()) {
                return (Some(id.to_string()), None);
            }
        }
        (None, None)
    }

    /// A `${capture.field}` value; unknown or absent fields read as empty.
    pub fn field(&self, field: CaptureField) -> String {
        match field {
            CaptureField::State => self
                .state
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            CaptureField::Code => self
                .error
                .as_ref()
                .map(|e| format!("error {}", e.code))
                .unwrap_or_default(),
            CaptureField::Message => self
                .error
                .as_ref()
                .map(|e| e.message.clone())
                .unwrap_or_default(),
            CaptureField::HttpStatus => self
                .http_status
                .map(|s| format!("HTTP {s}"))
                .unwrap_or_default(),
            CaptureField::TaskId => self.task_ref().0.unwrap_or_default(),
            CaptureField::ContextId => self.task_ref().1.unwrap_or_default(),
        }
    }

    /// Whether any of the condition's parts holds.
    pub fn matches(&self, condition: &Condition) -> bool {
        if self
            .http_status
            .is_some_and(|s| condition.http_status.contains(&s))
        {
            return true;
        }
        if self.state.is_some_and(|s| condition.state.contains(&s)) {
            return true;
        }
        if !condition.not_state.is_empty()
            && !self.state.is_some_and(|s| condition.not_state.contains(&s))
        {
            return true;
        }
        if !condition.not_code.is_empty()
            && !self
                .error
                .as_ref()
                .is_some_and(|e| condition.not_code.contains(&e.code))
        {
            return true;
        }
        match &self.error {
            Some(error) => condition.error || condition.code.contains(&error.code),
            // A stream that opened is not an answer with a task or message.
            None => {
                condition.ok
                    && self.stream.is_none()
                    && self.no_stream.is_none()
                    && self.http_status.is_none()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(state: &[TaskState], not_state: &[TaskState], code: &[i64]) -> Condition {
        Condition {
            state: state.to_vec(),
            not_state: not_state.to_vec(),
            code: code.to_vec(),
            not_code: vec![],
            error: false,
            ok: false,
            http_status: vec![],
        }
    }

    #[test]
    fn conditions_match_state_not_state_and_code() {
        let mut c = Capture::empty(Instant::now(), "x");
        c.state = Some(TaskState::Completed);
        assert!(c.matches(&cond(&[TaskState::Completed], &[], &[])));
        assert!(!c.matches(&cond(&[TaskState::Canceled], &[], &[])));
        assert!(!c.matches(&cond(&[], &[TaskState::Completed], &[])));
        assert!(c.matches(&cond(&[], &[TaskState::InputRequired], &[])));
        let e = Capture::from_error(
            RpcError {
                code: -32602,
                message: "bad".into(),
                data: None,
            },
            Instant::now(),
        );
        assert!(e.matches(&cond(&[], &[], &[-32602])));
        assert!(e.matches(&cond(&[], &[TaskState::InputRequired], &[])));
        assert!(!e.matches(&cond(&[TaskState::Completed], &[], &[-32002])));
        assert_eq!(e.field(CaptureField::Code), "error -32602");
    }

    #[test]
    fn a_refusal_matches_http_status_and_never_ok_or_error() {
        let refused = Capture::from_refusal(401, "WWW-Authenticate: Bearer", Instant::now());
        let status = |s: &[u16]| Condition {
            http_status: s.to_vec(),
            ..Condition::default()
        };
        assert!(refused.matches(&status(&[401, 403])));
        assert!(!refused.matches(&status(&[403])));
        for other in [
            Condition {
                ok: true,
                ..Condition::default()
            },
            Condition {
                error: true,
                ..Condition::default()
            },
            cond(&[TaskState::Completed], &[], &[-32001]),
        ] {
            assert!(!refused.matches(&other), "{other:?}");
        }
        assert_eq!(refused.field(CaptureField::HttpStatus), "HTTP 401");
        let mut task = Capture::empty(Instant::now(), "task");
        task.state = Some(TaskState::Completed);
        assert!(!task.matches(&status(&[401, 403])));
        assert_eq!(task.field(CaptureField::HttpStatus), "");
    }

    #[test]
    fn not_code_matches_no_error_or_another_code() {
        let not = |codes: &[i64]| Condition {
            not_code: codes.to_vec(),
            ..Condition::default()
        };
        let error = |code| {
            Capture::from_error(
                RpcError {
                    code,
                    message: "x".into(),
                    data: None,
                },
                Instant::now(),
            )
        };
        assert!(Capture::empty(Instant::now(), "a config").matches(&not(&[-32003])));
        assert!(error(-32602).matches(&not(&[-32003])));
        assert!(!error(-32003).matches(&not(&[-32003])));
    }
}
