//! Lenient, version-neutral views of what a peer sent: tasks, artifacts, stream
//! events and errors. Parsing keeps the raw JSON and never fails outright: what
//! cannot be understood becomes `Unrecognized` with a reason, so that the
//! runner can report it as a finding instead of stopping. Stream events of
//! the common shapes are read the fast way, straight from their text
//! ([`stream_event`](super::wire::stream_event), in `wire`).

use super::model::{ProtocolVersion, TaskState};
use base64::{engine::general_purpose::STANDARD as BASE64, Engine};
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A task as read from a response or event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskView {
    /// The task's `id`.
    pub id: Option<String>,
    /// Its `contextId`.
    pub context_id: Option<String>,
    /// `status.state` in either version's spelling; `None` when missing or unknown.
    pub state: Option<TaskState>,
    /// Its artifacts, each with a content digest.
    pub artifacts: Vec<ArtifactView>,
    /// The 1.1 draft's `generation` (ProtoJSON writes an int64 as a string;
    /// a number is read too); `None` when absent or unreadable. A 1.0 peer
    /// sends none, or 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
}

impl TaskView {
    /// Reads a Task object (either version's shape).
    pub fn from_json(value: &Value) -> TaskView {
        let state = value
            .get("status")
            .and_then(|s| s.get("state"))
            .and_then(TaskState::from_wire);
        let artifacts = value
            .get("artifacts")
            .and_then(Value::as_array)
            .map(|list| list.iter().map(ArtifactView::from_json).collect())
            .unwrap_or_default();
        TaskView {
            id: str_field(value, "id"),
            context_id: str_field(value, "contextId"),
            state,
            artifacts,
            generation: generation_field(value),
        }
    }

    /// A digest of the artifact set, ids and content, order-insensitive. Two
    /// reads with equal digests saw the same artifacts with the same parts.
    pub fn artifacts_digest(&self) -> String {
        let mut items: Vec<String> = self
            .artifacts
            .iter()
            .map(|a| format!("{}={}", a.artifact_id.as_deref().unwrap_or(""), a.digest))
            .collect();
        items.sort();
        let mut hasher = Sha256::new();
        for item in items {
            hasher.update(item.as_bytes());
            hasher.update([0]);
        }
        hex(&hasher.finalize()[..8])
    }

    /// A digest of what the artifacts say, ids left out and order ignored
    /// ([`ArtifactView::said`]): equal for two tasks, from two bindings or
    /// versions, that produced the same content.
    pub fn said_digest(&self) -> String {
        let mut items: Vec<&str> = self.artifacts.iter().map(|a| a.said.as_str()).collect();
        items.sort_unstable();
        let mut hasher = Sha256::new();
        for item in items {
            hasher.update(item.as_bytes());
            hasher.update([0]);
        }
        hex(&hasher.finalize()[..8])
    }

    /// A short description for evidence: "state=completed, 1 artifact".
    pub fn summary(&self) -> String {
        let state = self
            .state
            .map(|s| s.as_str().to_string())
            .unwrap_or_else(|| "?".into());
        format!(
            "state={state}, {} artifact{}",
            self.artifacts.len(),
            if self.artifacts.len() == 1 { "" } else { "s" }
        )
    }
}

/// An artifact with a digest of its content (parts, name, metadata excluded).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArtifactView {
    /// The artifact's `artifactId`.
    pub artifact_id: Option<String>,
    /// A digest of its `parts` ([`content_digest`]): equal parts, equal digest.
    pub digest: String,
    /// A digest of what its parts say, in either version's shape: the text
    /// of text parts and the value of data parts, in order (file parts
    /// count as one each). Two bindings, or two versions, that answered the
    /// same content give the same digest, whatever ids they minted.
    pub said: String,
}

impl ArtifactView {
    /// Reads an Artifact object (either version's shape).
    pub fn from_json(value: &Value) -> ArtifactView {
        ArtifactView {
            artifact_id: str_field(value, "artifactId"),
            digest: content_digest(value.get("parts").unwrap_or(&Value::Null)),
            said: said_digest(value.get("parts")),
        }
    }
}

/// A JSON-RPC (or REST-mapped) error answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RpcError {
    /// The error code (see [`crate::codes`]).
    pub code: i64,
    /// The peer's message (empty when it gave none).
    pub message: String,
    /// The error's `data`, as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// Reads an error object: `None` unless `code` is an integer.
    pub fn from_json(value: &Value) -> Option<RpcError> {
        Some(RpcError {
            code: value.get("code")?.as_i64()?,
            message: value
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            data: value.get("data").cloned(),
        })
    }
}

/// One protocol event read from a stream, version-neutral. Its kind name
/// ([`Event::kind`], derived) is the serde `kind` tag, the one scenarios use.
#[derive(Debug, Clone, PartialEq, Serialize, strum::IntoStaticStr)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Event {
    /// A whole task (the first event of a stream, or a snapshot).
    Task(TaskView),
    /// A message from the agent.
    Message {
        /// The task it belongs to, if any.
        task_id: Option<String>,
    },
    /// A task's status changed.
    StatusUpdate {
        /// The task.
        task_id: Option<String>,
        /// Its new state.
        state: Option<TaskState>,
        /// v0.3 only: the `final` flag; v1.0 has none.
        #[serde(rename = "final")]
        final_flag: Option<bool>,
        /// The 1.1 draft's `generation` after the update.
        #[serde(skip_serializing_if = "Option::is_none")]
        generation: Option<i64>,
    },
    /// The artifact's content is not kept: no step reads it from a stream
    /// (a task's artifacts are compared through `GetTask` answers).
    ArtifactUpdate {
        /// The task.
        task_id: Option<String>,
        /// The artifact updated.
        artifact_id: Option<String>,
        /// Whether the parts append to the artifact instead of replacing it.
        append: bool,
        /// Whether this is the artifact's last chunk.
        last_chunk: bool,
        /// The 1.1 draft's `generation` after the update.
        #[serde(skip_serializing_if = "Option::is_none")]
        generation: Option<i64>,
    },
    /// An error in the stream (a JSON-RPC error frame).
    Error(RpcError),
    /// A frame the tool cannot read as an event, and why.
    Unrecognized {
        /// What is wrong with it.
        reason: String,
    },
}

impl Event {
    /// The neutral kind name used in scenarios: `task`, `message`,
    /// `status-update`, `artifact-update`, `error`, `unrecognized`.
    pub fn kind(&self) -> &'static str {
        self.into()
    }

    /// The task state the event carries, if any.
    pub fn state(&self) -> Option<TaskState> {
        match self {
            Event::Task(t) => t.state,
            Event::StatusUpdate { state, .. } => *state,
            _ => None,
        }
    }

    /// The 1.1 draft's `generation` the event carries (a task snapshot's,
    /// or an update's after it applied), if any.
    pub fn generation(&self) -> Option<i64> {
        match self {
            Event::Task(t) => t.generation,
            Event::StatusUpdate { generation, .. } | Event::ArtifactUpdate { generation, .. } => {
                *generation
            }
            _ => None,
        }
    }

    /// The task the event is about, if it names one.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Event::Task(t) => t.id.as_deref(),
            Event::Message { task_id }
            | Event::StatusUpdate { task_id, .. }
            | Event::ArtifactUpdate { task_id, .. } => task_id.as_deref(),
            _ => None,
        }
    }

    /// Whether the event tells the stream is over by its own content (a terminal
    /// state, or v0.3's `final: true`).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Event::StatusUpdate {
                final_flag: Some(true),
                ..
            }
        )
    }

    /// Reads a streaming result: v1.0 `StreamResponse` (`{task}|{message}|
    /// {statusUpdate}|{artifactUpdate}`) or v0.3 `kind`-tagged objects. Both
    /// shapes are accepted whatever the version; `wire_note` says when the shape
    /// did not match the version spoken.
    pub fn from_result(version: ProtocolVersion, result: &Value) -> Event {
        let Some(obj) = result.as_object() else {
            return Event::Unrecognized {
                reason: "stream result is not a JSON object".into(),
            };
        };
        let (kind, body) = if let Some(kind) = obj.get("kind").and_then(Value::as_str) {
            (kind.to_string(), result)
        } else if let Some((key, body)) = obj.iter().find(|(k, _)| {
            matches!(
                k.as_str(),
                "task" | "message" | "statusUpdate" | "artifactUpdate"
            )
        }) {
            let kind = match key.as_str() {
                "statusUpdate" => "status-update",
                "artifactUpdate" => "artifact-update",
                other => other,
            };
            (kind.to_string(), body)
        } else {
            return Event::Unrecognized {
                reason: format!(
                    "stream result has neither `kind` (0.3) nor one of task/message/statusUpdate/artifactUpdate (1.0); keys: {}",
                    obj.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            };
        };
        let _ = version;
        match kind.as_str() {
            "task" => Event::Task(TaskView::from_json(body)),
            "message" => Event::Message {
                task_id: str_field(body, "taskId"),
            },
            "status-update" => Event::StatusUpdate {
                task_id: str_field(body, "taskId"),
                state: body
                    .get("status")
                    .and_then(|s| s.get("state"))
                    .and_then(TaskState::from_wire),
                final_flag: body.get("final").and_then(Value::as_bool),
                generation: generation_field(body),
            },
            "artifact-update" => Event::ArtifactUpdate {
                task_id: str_field(body, "taskId"),
                artifact_id: body
                    .get("artifact")
                    .and_then(|artifact| str_field(artifact, "artifactId")),
                append: body.get("append").and_then(Value::as_bool).unwrap_or(false),
                last_chunk: body
                    .get("lastChunk")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                generation: generation_field(body),
            },
            other => Event::Unrecognized {
                reason: format!("unknown event kind `{other}`"),
            },
        }
    }
}

/// What a `SendMessage` answered: a task, a direct message, or something else.
#[derive(Debug, Clone, PartialEq)]
pub enum SendResult {
    /// A task (new or continued).
    Task(TaskView),
    /// A direct message: the agent answered without a task.
    Message,
    /// Neither, and why.
    Unrecognized(String),
}

impl SendResult {
    /// v1.0 wraps the result (`{"task":…}`/`{"message":…}`); v0.3 returns it
    /// bare with `kind`. Both are read whatever the version.
    pub fn from_result(result: &Value) -> SendResult {
        if let Some(task) = result.get("task") {
            return SendResult::Task(TaskView::from_json(task));
        }
        if result.get("message").is_some() {
            return SendResult::Message;
        }
        match result.get("kind").and_then(Value::as_str) {
            Some("task") => SendResult::Task(TaskView::from_json(result)),
            Some("message") => SendResult::Message,
            _ if result.get("status").is_some() && result.get("id").is_some() => {
                SendResult::Task(TaskView::from_json(result))
            }
            _ => SendResult::Unrecognized("result is neither a Task nor a Message".into()),
        }
    }
}

/// A part of an outgoing message, version-neutral.
#[derive(Debug, Clone, PartialEq)]
pub enum MessagePart {
    /// A text part.
    Text(String),
    /// A structured JSON part (`application/json`).
    Data(Value),
    /// Bytes of a media type, sent as base64 (`raw` in 1.0, `file.bytes` in 0.3).
    File {
        /// Its media type.
        media_type: String,
        /// The bytes, base64.
        base64: String,
        /// A file name for it.
        name: String,
    },
}

impl MessagePart {
    /// A part fit for a media type: text for `text/*`, data for JSON, a file otherwise.
    pub fn for_media_type(media_type: &str, text: &str) -> MessagePart {
        let essence = media_type
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if essence == "application/json" || essence.ends_with("+json") {
            MessagePart::Data(serde_json::json!({ "text": text }))
        } else if essence.starts_with("text/") {
            MessagePart::Text(text.to_string())
        } else {
            MessagePart::File {
                media_type: media_type.to_string(),
                base64: BASE64.encode(text.as_bytes()),
                name: "a2a-conform-input".into(),
            }
        }
    }

    /// The media type the part carries (what the peer should judge it by).
    pub fn media_type(&self) -> String {
        match self {
            MessagePart::Text(_) => "text/plain".into(),
            MessagePart::Data(_) => "application/json".into(),
            MessagePart::File { media_type, .. } => media_type.clone(),
        }
    }
}

fn str_field(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The 1.1 draft's `generation`: an int64, which ProtoJSON writes as a
/// string (`"3"`) and other writers as a number.
fn generation_field(value: &Value) -> Option<i64> {
    match value.get("generation")? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

/// The digest of what a `parts` array says, shape left out: a text part as
/// its text, a data part as its value, any other part as a file.
fn said_digest(parts: Option<&Value>) -> String {
    let said: Vec<Value> = parts
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .map(|part| match (part.get("text"), part.get("data")) {
                    (Some(text), _) => serde_json::json!({ "text": text }),
                    (None, Some(data)) => serde_json::json!({ "data": data }),
                    (None, None) => serde_json::json!("file"),
                })
                .collect()
        })
        .unwrap_or_default();
    content_digest(&Value::Array(said))
}

/// A short digest of a JSON value's canonical text (object keys sorted).
///
/// The canonical text is compact JSON with every object's keys in sorted
/// order; it is fed to the hasher piece by piece as it is produced, so no
/// copy of the value or of its text is ever built.
pub fn content_digest(value: &Value) -> String {
    let mut hasher = Sha256::new();
    hash_canonical(value, &mut hasher);
    hex(&hasher.finalize()[..8])
}

fn hash_canonical(value: &Value, hasher: &mut Sha256) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            hasher.update(b"{");
            for (n, (key, item)) in entries.into_iter().enumerate() {
                if n > 0 {
                    hasher.update(b",");
                }
                hash_json_str(key, hasher);
                hasher.update(b":");
                hash_canonical(item, hasher);
            }
            hasher.update(b"}");
        }
        Value::Array(items) => {
            hasher.update(b"[");
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    hasher.update(b",");
                }
                hash_canonical(item, hasher);
            }
            hasher.update(b"]");
        }
        Value::String(text) => hash_json_str(text, hasher),
        other => hash_json_text(other, hasher),
    }
}

/// Hashes a string as JSON text. Most strings need no escape, and then
/// their text is hashed as it stands (serde_json escapes only `"`, `\`
/// and control characters).
fn hash_json_str(text: &str, hasher: &mut Sha256) {
    // Folded without an early exit, 32 bytes at a time, so it vectorizes.
    let plain = text.as_bytes().chunks(32).all(|block| {
        block.iter().fold(true, |plain, &b| {
            plain & (b >= 0x20) & (b != b'"') & (b != b'\\')
        })
    });
    if !plain {
        hash_json_text(text, hasher);
        return;
    }
    hasher.update(b"\"");
    hasher.update(text.as_bytes());
    hasher.update(b"\"");
}

/// Hashes the compact JSON text of a leaf (or an object key as a string).
fn hash_json_text<T: Serialize + ?Sized>(leaf: &T, hasher: &mut Sha256) {
    // Writing into a hasher cannot fail, nor can serializing a JSON leaf.
    let _ = serde_json::to_writer(HashWriter(hasher), leaf);
}

/// Lets serde_json write straight into the hasher.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn what_artifacts_say_ignores_ids_and_version_shapes_but_not_content() {
        let v1 = TaskView::from_json(&json!({"artifacts": [
            {"artifactId": "a-1", "parts": [{"text": "hi"}, {"data": {"n": 1}, "mediaType": "application/json"}]}
        ]}));
        let v03 = TaskView::from_json(&json!({"artifacts": [
            {"artifactId": "b-2", "parts": [{"kind": "text", "text": "hi"}, {"kind": "data", "data": {"n": 1}}]}
        ]}));
        assert_eq!(v1.said_digest(), v03.said_digest());
        assert_ne!(v1.artifacts_digest(), v03.artifacts_digest());
        let other = TaskView::from_json(&json!({"artifacts": [
            {"artifactId": "a-1", "parts": [{"text": "hi!"}, {"data": {"n": 1}}]}
        ]}));
        assert_ne!(v1.said_digest(), other.said_digest());
        let none = TaskView::from_json(&json!({}));
        assert_ne!(v1.said_digest(), none.said_digest());
    }

    /// The 1.1 draft's int64 `generation` is read as ProtoJSON writes it (a
    /// string) and as a number; anything else is none, and none is left
    /// out when an event is serialized (a 1.0 report is unchanged).
    #[test]
    fn generations_are_read_from_strings_and_numbers() {
        let v = ProtocolVersion::V1_0;
        let task = TaskView::from_json(&json!({"id": "t", "generation": "3"}));
        assert_eq!(task.generation, Some(3));
        let update = Event::from_result(
            v,
            &json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}, "generation": 4}}),
        );
        assert_eq!(update.generation(), Some(4));
        let artifact = Event::from_result(
            v,
            &json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a"}, "generation": "5"}}),
        );
        assert_eq!(artifact.generation(), Some(5));
        for odd in [json!("x"), json!(1.5), json!(null), json!([1])] {
            let task = TaskView::from_json(&json!({"id": "t", "generation": odd}));
            assert_eq!(task.generation, None, "{odd}");
        }
        let plain = Event::from_result(
            v,
            &json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}),
        );
        assert_eq!(plain.generation(), None);
        assert!(!serde_json::to_string(&plain)
            .unwrap()
            .contains("generation"));
    }

    #[test]
    fn kinds_are_the_serialized_tags() {
        let events = [
            Event::Task(TaskView::from_json(&json!({}))),
            Event::Message { task_id: None },
            Event::StatusUpdate {
                task_id: None,
                state: None,
                final_flag: None,
                generation: None,
            },
            Event::ArtifactUpdate {
                task_id: None,
                artifact_id: None,
                append: false,
                last_chunk: false,
                generation: None,
            },
            Event::Error(RpcError {
                code: 1,
                message: String::new(),
                data: None,
            }),
            Event::Unrecognized {
                reason: String::new(),
            },
        ];
        let kinds: Vec<&str> = events.iter().map(Event::kind).collect();
        assert_eq!(
            kinds,
            [
                "task",
                "message",
                "status-update",
                "artifact-update",
                "error",
                "unrecognized"
            ]
        );
        for event in &events {
            assert_eq!(serde_json::to_value(event).unwrap()["kind"], event.kind());
        }
    }

    #[test]
    fn reads_both_stream_shapes() {
        let v1 =
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}});
        let e = Event::from_result(ProtocolVersion::V1_0, &v1);
        assert_eq!(e.kind(), "status-update");
        assert_eq!(e.state(), Some(TaskState::Working));
        let v03 = json!({"kind": "status-update", "taskId": "t", "status": {"state": "completed"}, "final": true});
        let e = Event::from_result(ProtocolVersion::V0_3, &v03);
        assert!(e.is_final());
        assert_eq!(e.state(), Some(TaskState::Completed));
        let junk = json!({"foo": 1});
        assert_eq!(
            Event::from_result(ProtocolVersion::V1_0, &junk).kind(),
            "unrecognized"
        );
    }

    #[test]
    fn artifact_digest_sees_content_not_only_ids() {
        let a = TaskView::from_json(&json!({"id": "t", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "x", "parts": [{"text": "one"}]}]}));
        let b = TaskView::from_json(&json!({"id": "t", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "x", "parts": [{"text": "two"}]}]}));
        let a2 = TaskView::from_json(&json!({"id": "t", "status": {"state": "completed"},
            "artifacts": [{"parts": [{"text": "one"}], "artifactId": "x"}]}));
        assert_ne!(a.artifacts_digest(), b.artifacts_digest());
        assert_eq!(a.artifacts_digest(), a2.artifacts_digest());
    }

    #[test]
    fn content_digest_hashes_the_sorted_compact_text() {
        // The digest is of this exact text: reports written before the
        // digest was streamed must keep their values.
        let value = json!({"b": [1, 2.5, "x\"y", null, true, "t\u{1}\\\n\u{7f}"], "a": {"d": {}, "c": []}, "é": "ü"});
        let text = "{\"a\":{\"c\":[],\"d\":{}},\"b\":[1,2.5,\"x\\\"y\",null,true,\"t\\u0001\\\\\\n\u{7f}\"],\"é\":\"ü\"}";
        let mut hasher = Sha256::new();
        hasher.update(text.as_bytes());
        assert_eq!(content_digest(&value), hex(&hasher.finalize()[..8]));
        assert_eq!(hex(&[0x00, 0xab, 0xff]), "00abff");
    }

    #[test]
    fn send_result_wrapped_and_bare() {
        let wrapped = json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
        assert!(
            matches!(SendResult::from_result(&wrapped), SendResult::Task(t) if t.state == Some(TaskState::Completed))
        );
        let bare = json!({"kind": "task", "id": "t", "status": {"state": "working"}});
        assert!(
            matches!(SendResult::from_result(&bare), SendResult::Task(t) if t.state == Some(TaskState::Working))
        );
        assert!(matches!(
            SendResult::from_result(&json!({"x": 1})),
            SendResult::Unrecognized(_)
        ));
    }

    #[test]
    fn parts_follow_media_type() {
        assert!(matches!(
            MessagePart::for_media_type("text/plain", "hi"),
            MessagePart::Text(_)
        ));
        assert!(matches!(
            MessagePart::for_media_type("application/json", "hi"),
            MessagePart::Data(_)
        ));
        match MessagePart::for_media_type("image/png", "hi") {
            MessagePart::File { base64, .. } => assert_eq!(base64, "aGk="),
            other => panic!("expected a file part, got {other:?}"),
        }
    }
}
