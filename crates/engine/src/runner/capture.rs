//! What steps capture and later steps refer to: a task answer, a message, an
//! error, an open stream or a refusal; and the conditions `expect` and
//! `inconclusive_if` test.

use crate::scenario::template::CaptureField;
use crate::scenario::values::Condition;
use a2a_conform_client::stream::describe;
use a2a_conform_client::{StreamHandle, StreamItem};
use a2a_conform_protocol::{Event, RpcError, TaskState, TaskView};
use std::time::Instant;

/// What a capture holds, by where it came from.
pub(crate) enum Captured {
    /// An answer about a task: the task itself, a stream event or webhook
    /// notification carrying its state, or a push config naming it.
    Task {
        task_id: Option<String>,
        context_id: Option<String>,
        state: Option<TaskState>,
        /// The artifacts' digest, when the answer was the whole task.
        digest: Option<String>,
    },
    /// A direct Message: an answer with no task.
    Message,
    /// A protocol error.
    Error(RpcError),
    /// An open stream; `error` once its first event proved to be a protocol
    /// error (a refusal inside the stream).
    Stream {
        handle: StreamHandle,
        error: Option<RpcError>,
    },
    /// HTTP 401/403: the peer refused the request's credentials.
    Refusal { status: u16 },
    /// A ListTasks answer: the ids of the tasks it listed, in order.
    TaskList { task_ids: Vec<String> },
    /// An agent card a call answered (GetExtendedAgentCard), as received.
    Card(serde_json::Value),
}

/// A value a step captured under its `as` name.
pub(crate) struct Capture {
    pub(crate) value: Captured,
    /// When the answer (or event) arrived.
    pub(crate) at: Instant,
    /// What the answer was, in words, for messages.
    pub(crate) summary: String,
    /// Where the value came from, for messages ("the CancelTask answer").
    pub(crate) source: String,
    /// Why there is no stream where one was asked for (the peer answered
    /// with `value` instead).
    pub(crate) no_stream: Option<String>,
    /// How many messages a task answer's `history` held (`call_task`).
    pub(crate) history: Option<usize>,
    /// For a send answered with a task: the media type of every artifact
    /// part, in order (`expect_output_modes` judges them).
    pub(crate) part_types: Option<Vec<String>>,
    /// For an answer with a task: the text of its status message, if any
    /// (why a task failed, what an input-required task asks).
    pub(crate) status_text: Option<String>,
    /// For an answer with a whole task: what its artifacts say, ids left
    /// out (`compare_bindings` sets two bindings' answers side by side).
    pub(crate) said: Option<String>,
    /// For an answer with a whole task: its 1.1 draft `generation`, if it
    /// carries one (`steps::generation`).
    pub(crate) generation: Option<i64>,
}

impl Capture {
    pub(crate) fn new(value: Captured, at: Instant, summary: impl Into<String>) -> Capture {
        Capture {
            value,
            at,
            summary: summary.into(),
            source: String::new(),
            no_stream: None,
            history: None,
            part_types: None,
            status_text: None,
            said: None,
            generation: None,
        }
    }

    /// An HTTP 401/403 refusal (`detail`: the challenge and the body's start).
    pub(crate) fn from_refusal(status: u16, detail: &str, at: Instant) -> Capture {
        Capture::new(
            Captured::Refusal { status },
            at,
            format!("HTTP {status} ({detail})"),
        )
    }

    pub(crate) fn from_task(task: &TaskView, at: Instant) -> Capture {
        let mut capture = Capture::new(
            Captured::Task {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                state: task.state,
                digest: Some(task.artifacts_digest()),
            },
            at,
            format!("task {}", task.summary()),
        );
        capture.said = Some(task.said_digest());
        capture.generation = task.generation;
        capture
    }

    pub(crate) fn from_error(error: RpcError, at: Instant) -> Capture {
        let summary = format!("error {} {}", error.code, error.message);
        Capture::new(Captured::Error(error), at, summary)
    }

    /// What a step read about a task (an event, a notification): its id and state.
    pub(crate) fn about_task(
        task_id: Option<String>,
        state: Option<TaskState>,
        at: Instant,
        summary: impl Into<String>,
    ) -> Capture {
        Capture::new(
            Captured::Task {
                task_id,
                context_id: None,
                state,
                digest: None,
            },
            at,
            summary,
        )
    }

    /// A stream event a step waited for: an error, or what it says of its task.
    pub(crate) fn from_event(item: &StreamItem<'_>) -> Capture {
        let summary = format!("event #{} {}", item.seq, describe(item.event));
        let mut capture = match item.event {
            Event::Error(e) => Capture::new(Captured::Error(e.clone()), item.at, summary),
            event => Capture::about_task(
                event.task_id().map(str::to_string),
                event.state(),
                item.at,
                summary,
            ),
        };
        capture.source = format!("stream event #{}", item.seq);
        capture
    }

    /// Where the capture came from, for messages, or its name.
    pub(crate) fn source_or(&self, name: &str) -> String {
        if self.source.is_empty() {
            format!("`{name}`")
        } else {
            self.source.clone()
        }
    }

    pub(crate) fn state(&self) -> Option<TaskState> {
        match &self.value {
            Captured::Task { state, .. } => *state,
            _ => None,
        }
    }

    /// The artifacts' digest, when the capture was a whole task.
    pub(crate) fn digest(&self) -> Option<&str> {
        match &self.value {
            Captured::Task { digest, .. } => digest.as_deref(),
            _ => None,
        }
    }

    pub(crate) fn error(&self) -> Option<&RpcError> {
        match &self.value {
            Captured::Error(error)
            | Captured::Stream {
                error: Some(error), ..
            } => Some(error),
            _ => None,
        }
    }

    pub(crate) fn stream(&self) -> Option<&StreamHandle> {
        match &self.value {
            Captured::Stream { handle, .. } => Some(handle),
            _ => None,
        }
    }

    pub(crate) fn http_status(&self) -> Option<u16> {
        match self.value {
            Captured::Refusal { status } => Some(status),
            _ => None,
        }
    }

    /// The task this capture is about: its own id, or, for a stream, the
    /// first task id any event carried.
    pub(crate) fn task_ref(&self) -> (Option<String>, Option<String>) {
        match &self.value {
            Captured::Task {
                task_id: Some(id),
                context_id,
                ..
            } => (Some(id.clone()), context_id.clone()),
            Captured::Stream { handle, .. } => {
                let (items, _) = handle.snapshot();
                for item in items.iter() {
                    if let Event::Task(task) = item.event {
                        return (task.id.clone(), task.context_id.clone());
                    }
                }
                let id = items.iter().find_map(|i| i.event.task_id());
                (id.map(str::to_string), None)
            }
            _ => (None, None),
        }
    }

    /// A `${capture.field}` value; absent fields read as empty.
    pub(crate) fn field(&self, field: CaptureField) -> String {
        match field {
            CaptureField::State => self
                .state()
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            CaptureField::Code => self
                .error()
                .map(|e| format!("error {}", e.code))
                .unwrap_or_default(),
            CaptureField::Message => self.error().map(|e| e.message.clone()).unwrap_or_default(),
            CaptureField::HttpStatus => self
                .http_status()
                .map(|s| format!("HTTP {s}"))
                .unwrap_or_default(),
            CaptureField::TaskId => self.task_ref().0.unwrap_or_default(),
            CaptureField::ContextId => self.task_ref().1.unwrap_or_default(),
            CaptureField::Answer => self.answer(),
        }
    }

    /// What was answered, in words: the error, or the task's state with its
    /// status message; else the summary.
    pub(crate) fn answer(&self) -> String {
        if let Some(error) = self.error() {
            return format!("error {} {}", error.code, error.message)
                .trim_end()
                .to_string();
        }
        match (self.state(), &self.status_text) {
            (Some(state), Some(text)) => format!("{} ({text})", state.as_str()),
            (Some(state), None) => state.as_str().to_string(),
            (None, _) => self.summary.clone(),
        }
    }

    /// Whether any of the condition's parts holds.
    pub(crate) fn matches(&self, condition: &Condition) -> bool {
        if self
            .http_status()
            .is_some_and(|s| condition.http_status.contains(&s))
        {
            return true;
        }
        let state = self.state();
        if state.is_some_and(|s| condition.state.contains(&s)) {
            return true;
        }
        if !condition.not_state.is_empty()
            && !state.is_some_and(|s| condition.not_state.contains(&s))
        {
            return true;
        }
        let error = self.error();
        if !condition.not_code.is_empty()
            && !error.is_some_and(|e| condition.not_code.contains(&e.code))
        {
            return true;
        }
        match error {
            Some(error) => condition.error || condition.code.contains(&error.code),
            // Only an answer with a task or message is `ok`: not a stream
            // that opened, nor a refusal, nor an answer where a stream was asked for.
            None => {
                condition.ok
                    && matches!(
                        self.value,
                        Captured::Task { .. }
                            | Captured::Message
                            | Captured::TaskList { .. }
                            | Captured::Card(_)
                    )
                    && self.no_stream.is_none()
            }
        }
    }
}

/// The media type of every artifact part of a send result (v1.0 `{task}` or
/// a bare task; v0.3 `kind`-tagged parts), in order. A part says its type in
/// `mediaType` (v1.0) or `file.mimeType` (v0.3); otherwise its kind does:
/// text is `text/plain`, data `application/json`, bytes or a URL
/// `application/octet-stream`. Types are lowercased, parameters dropped.
pub(crate) fn artifact_part_types(result: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let task = result.get("task").unwrap_or(result);
    let artifacts = task.get("artifacts").and_then(Value::as_array);
    let parts = artifacts
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("parts").and_then(Value::as_array))
        .flatten();
    parts.map(part_type).collect()
}

fn part_type(part: &serde_json::Value) -> String {
    use serde_json::Value;
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let file = part.get("file");
    let declared = text(part.get("mediaType"))
        .or_else(|| text(file.and_then(|f| f.get("mimeType"))))
        .or_else(|| text(file.and_then(|f| f.get("mediaType"))));
    let natural = match part.get("kind").and_then(Value::as_str) {
        Some("text") => "text/plain",
        Some("data") => "application/json",
        Some(_) => "application/octet-stream",
        None if part.get("text").is_some() => "text/plain",
        None if part.get("data").is_some() => "application/json",
        None => "application/octet-stream",
    };
    let full = declared.unwrap_or_else(|| natural.to_string());
    full.split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
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
        let c = Capture::about_task(None, Some(TaskState::Completed), Instant::now(), "x");
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
        let task = Capture::about_task(None, Some(TaskState::Completed), Instant::now(), "task");
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
        let config = Capture::about_task(Some("t".into()), None, Instant::now(), "a config");
        assert!(config.matches(&not(&[-32003])));
        assert!(error(-32602).matches(&not(&[-32003])));
        assert!(!error(-32003).matches(&not(&[-32003])));
    }

    #[test]
    fn part_types_read_both_versions_shapes() {
        let v1 = serde_json::json!({"task": {"artifacts": [
            {"parts": [{"text": "a"}, {"data": {}}, {"raw": "AA==", "mediaType": "Image/PNG; q=1"}]}
        ]}});
        assert_eq!(
            artifact_part_types(&v1),
            ["text/plain", "application/json", "image/png"]
        );
        let v03 = serde_json::json!({"kind": "task", "artifacts": [
            {"parts": [{"kind": "text", "text": "a"}, {"kind": "file", "file": {"mimeType": "audio/wav"}}]}
        ]});
        assert_eq!(artifact_part_types(&v03), ["text/plain", "audio/wav"]);
        assert!(artifact_part_types(&serde_json::json!({"task": {}})).is_empty());
    }
}
