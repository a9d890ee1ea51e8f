//! The mock peer's version-neutral task model, the lenient reading of incoming
//! messages (either version's part shapes) and the rendering of tasks and
//! stream events into v1.0 or v0.3 JSON.

use a2a_conform_protocol::{ProtocolVersion, Role, TaskState};
use serde_json::{json, Map, Value};
use std::time::{SystemTime, UNIX_EPOCH};

/// What a part carries; the member present on the wire decides it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Content {
    Text(String),
    Data(Value),
    /// Base64 bytes (`raw` in v1.0, `file.bytes` in v0.3).
    Raw(String),
    /// A reference (`url` in v1.0, `file.uri` in v0.3).
    Url(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    pub content: Content,
    /// The media type the sender gave, if any.
    pub media_type: Option<String>,
    pub filename: Option<String>,
}

impl Part {
    pub(crate) fn text(text: impl Into<String>) -> Part {
        Part {
            content: Content::Text(text.into()),
            media_type: None,
            filename: None,
        }
    }

    /// The media type the part counts as: the declared one, else the natural
    /// one of its kind (text/plain, application/json, application/octet-stream).
    pub(crate) fn effective_media_type(&self) -> String {
        if let Some(declared) = &self.media_type {
            return media_essence(declared);
        }
        match self.content {
            Content::Text(_) => "text/plain".into(),
            Content::Data(_) => "application/json".into(),
            Content::Raw(_) | Content::Url(_) => "application/octet-stream".into(),
        }
    }
}

/// `Text/Plain; charset=utf-8` → `text/plain`.
pub(crate) fn media_essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub message_id: String,
    pub role: Role,
    pub parts: Vec<Part>,
    pub context_id: Option<String>,
    pub task_id: Option<String>,
}

impl Message {
    /// An agent message about a task (status messages).
    pub(crate) fn agent(task: &Task, text: &str) -> Message {
        Message {
            message_id: uuid::Uuid::new_v4().to_string(),
            role: Role::Agent,
            parts: vec![Part::text(text)],
            context_id: Some(task.context_id.clone()),
            task_id: Some(task.id.clone()),
        }
    }

    /// Whether any text part contains `needle`.
    pub(crate) fn text_contains(&self, needle: &str) -> bool {
        self.parts
            .iter()
            .any(|p| matches!(&p.content, Content::Text(t) if t.contains(needle)))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Artifact {
    pub artifact_id: String,
    pub name: String,
    pub parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Status {
    pub state: TaskState,
    pub message: Option<Message>,
    /// Milliseconds since the Unix epoch.
    pub timestamp_ms: u64,
}

impl Status {
    pub(crate) fn now(state: TaskState, message: Option<Message>) -> Status {
        Status {
            state,
            message,
            timestamp_ms: now_ms(),
        }
    }

    /// Terminal or interrupted: a blocking send returns, a stream ends.
    pub(crate) fn settles(&self) -> bool {
        self.state.is_terminal() || self.state.is_interrupted()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Task {
    pub id: String,
    pub context_id: String,
    pub status: Status,
    pub history: Vec<Message>,
    pub artifacts: Vec<Artifact>,
    /// The 1.1 draft's `Task.generation`: 1 at creation, advanced by the
    /// store with every mutation (served only under the draft).
    pub generation: u64,
}

/// One event on a task's streams.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    Status {
        task_id: String,
        context_id: String,
        status: Status,
    },
    Artifact {
        task_id: String,
        context_id: String,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    },
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// ISO 8601 UTC with milliseconds and `Z` (v1 §5.6.1).
pub(crate) fn iso_timestamp(ms: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
    humantime::format_rfc3339_millis(at).to_string()
}

/// Reads `YYYY-MM-DDTHH:MM:SS[.fff]Z` (or `+00:00`) into epoch milliseconds.
pub(crate) fn parse_iso_timestamp(text: &str) -> Option<u64> {
    let text = text.trim();
    let zulu = match text.strip_suffix("+00:00") {
        Some(body) => format!("{body}Z"),
        None => text.to_string(),
    };
    let at = humantime::parse_rfc3339(&zulu).ok()?;
    let ms = at.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
    u64::try_from(ms).ok()
}

// ---------------------------------------------------------------------------
// Reading what a client sent
// ---------------------------------------------------------------------------

/// Why a client's message cannot be read: the text of the InvalidParams
/// answer the mock gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvalidMessage(pub String);

impl From<&str> for InvalidMessage {
    fn from(text: &str) -> Self {
        InvalidMessage(text.to_string())
    }
}

/// Reads a message leniently: either version's part shapes, `mediaType` or
/// `mimeType`.
pub(crate) fn parse_message(value: &Value) -> Result<Message, InvalidMessage> {
    let obj = value.as_object().ok_or("`message` must be an object")?;
    let message_id = obj
        .get("messageId")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or("`message.messageId` is required")?
        .to_string();
    let role = match obj
        .get("role")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
    {
        Some(r) if r.contains("agent") => Role::Agent,
        _ => Role::User,
    };
    let parts_json = obj
        .get("parts")
        .or_else(|| obj.get("content"))
        .and_then(Value::as_array)
        .ok_or("`message.parts` must be an array")?;
    if parts_json.is_empty() {
        return Err("`message.parts` must not be empty".into());
    }
    let parts = parts_json
        .iter()
        .enumerate()
        .map(|(i, p)| {
            parse_part(p).map_err(|e| InvalidMessage(format!("message.parts[{i}]: {}", e.0)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let id_field = |name: &str| {
        obj.get(name)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    Ok(Message {
        message_id,
        role,
        parts,
        context_id: id_field("contextId"),
        task_id: id_field("taskId"),
    })
}

fn parse_part(value: &Value) -> Result<Part, InvalidMessage> {
    let obj = value.as_object().ok_or("a part must be an object")?;
    let text_field = |o: &Map<String, Value>, name: &str| {
        o.get(name).and_then(Value::as_str).map(str::to_string)
    };
    let mut media_type = text_field(obj, "mediaType").or_else(|| text_field(obj, "mimeType"));
    let mut filename = text_field(obj, "filename").or_else(|| text_field(obj, "name"));
    let content = if let Some(text) = obj.get("text") {
        Content::Text(text.as_str().ok_or("`text` must be a string")?.to_string())
    } else if let Some(data) = obj.get("data") {
        // v0.3 proto JSON nests `{data:{data}}`; JSON-RPC has `{kind:"data", data}`.
        Content::Data(data.clone())
    } else if let Some(raw) = obj.get("raw") {
        Content::Raw(raw.as_str().ok_or("`raw` must be base64 text")?.to_string())
    } else if let Some(url) = obj.get("url") {
        Content::Url(url.as_str().ok_or("`url` must be a string")?.to_string())
    } else if let Some(file) = obj.get("file").and_then(Value::as_object) {
        media_type = media_type
            .or_else(|| text_field(file, "mimeType"))
            .or_else(|| text_field(file, "mediaType"));
        filename = filename.or_else(|| text_field(file, "name"));
        if let Some(bytes) = text_field(file, "bytes").or_else(|| text_field(file, "fileWithBytes"))
        {
            Content::Raw(bytes)
        } else if let Some(uri) =
            text_field(file, "uri").or_else(|| text_field(file, "fileWithUri"))
        {
            Content::Url(uri)
        } else {
            return Err("`file` needs `bytes` or `uri`".into());
        }
    } else {
        return Err("a part needs one of `text`, `data`, `raw`, `url` or `file`".into());
    };
    Ok(Part {
        content,
        media_type,
        filename,
    })
}

// ---------------------------------------------------------------------------
// Rendering for a version
// ---------------------------------------------------------------------------

pub(crate) fn part_json(part: &Part, version: ProtocolVersion) -> Value {
    let mut out = Map::new();
    match version {
        ProtocolVersion::V1_0 => {
            match &part.content {
                Content::Text(t) => out.insert("text".into(), json!(t)),
                Content::Data(d) => out.insert("data".into(), d.clone()),
                Content::Raw(r) => out.insert("raw".into(), json!(r)),
                Content::Url(u) => out.insert("url".into(), json!(u)),
            };
            if let Some(m) = &part.media_type {
                out.insert("mediaType".into(), json!(m));
            }
            if let Some(f) = &part.filename {
                out.insert("filename".into(), json!(f));
            }
        }
        ProtocolVersion::V0_3 => match &part.content {
            Content::Text(t) => {
                out.insert("kind".into(), json!("text"));
                out.insert("text".into(), json!(t));
            }
            Content::Data(d) => {
                out.insert("kind".into(), json!("data"));
                out.insert("data".into(), d.clone());
            }
            Content::Raw(_) | Content::Url(_) => {
                let mut file = Map::new();
                match &part.content {
                    Content::Raw(r) => file.insert("bytes".into(), json!(r)),
                    Content::Url(u) => file.insert("uri".into(), json!(u)),
                    _ => None,
                };
                if let Some(m) = &part.media_type {
                    file.insert("mimeType".into(), json!(m));
                }
                if let Some(f) = &part.filename {
                    file.insert("name".into(), json!(f));
                }
                out.insert("kind".into(), json!("file"));
                out.insert("file".into(), Value::Object(file));
            }
        },
    }
    Value::Object(out)
}

pub(crate) fn message_json(message: &Message, version: ProtocolVersion) -> Value {
    let mut out = Map::new();
    if version == ProtocolVersion::V0_3 {
        out.insert("kind".into(), json!("message"));
    }
    out.insert("messageId".into(), json!(message.message_id));
    out.insert("role".into(), json!(message.role.wire_name(version)));
    let parts: Vec<Value> = message
        .parts
        .iter()
        .map(|p| part_json(p, version))
        .collect();
    out.insert("parts".into(), Value::Array(parts));
    if let Some(c) = &message.context_id {
        out.insert("contextId".into(), json!(c));
    }
    if let Some(t) = &message.task_id {
        out.insert("taskId".into(), json!(t));
    }
    Value::Object(out)
}

pub(crate) fn status_json(status: &Status, version: ProtocolVersion) -> Value {
    let mut out = Map::new();
    out.insert("state".into(), json!(status.state.wire_name(version)));
    if let Some(m) = &status.message {
        out.insert("message".into(), message_json(m, version));
    }
    out.insert(
        "timestamp".into(),
        json!(iso_timestamp(status.timestamp_ms)),
    );
    Value::Object(out)
}

pub(crate) fn artifact_json(artifact: &Artifact, version: ProtocolVersion) -> Value {
    let parts: Vec<Value> = artifact
        .parts
        .iter()
        .map(|p| part_json(p, version))
        .collect();
    json!({"artifactId": artifact.artifact_id, "name": artifact.name, "parts": parts})
}

/// How much of a task to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskView {
    /// `None`: all history; `Some(0)`: none; `Some(n)`: the n most recent.
    pub history_length: Option<usize>,
    pub include_artifacts: bool,
}

impl Default for TaskView {
    fn default() -> Self {
        TaskView {
            history_length: None,
            include_artifacts: true,
        }
    }
}

/// A bare Task (v0.3 adds `kind:"task"`).
pub(crate) fn task_json(task: &Task, version: ProtocolVersion, view: TaskView) -> Value {
    let mut out = Map::new();
    if version == ProtocolVersion::V0_3 {
        out.insert("kind".into(), json!("task"));
    }
    out.insert("id".into(), json!(task.id));
    out.insert("contextId".into(), json!(task.context_id));
    out.insert("status".into(), status_json(&task.status, version));
    let keep = view.history_length.unwrap_or(usize::MAX);
    if keep > 0 && !task.history.is_empty() {
        let skip = task.history.len().saturating_sub(keep);
        let history: Vec<Value> = task.history[skip..]
            .iter()
            .map(|m| message_json(m, version))
            .collect();
        out.insert("history".into(), Value::Array(history));
    }
    if view.include_artifacts && !task.artifacts.is_empty() {
        let artifacts: Vec<Value> = task
            .artifacts
            .iter()
            .map(|a| artifact_json(a, version))
            .collect();
        out.insert("artifacts".into(), Value::Array(artifacts));
    }
    Value::Object(out)
}

/// The first event of a stream: `{"task":{..}}` in v1.0, the bare Task in v0.3.
pub(crate) fn task_event_json(task: &Task, version: ProtocolVersion, view: TaskView) -> Value {
    let body = task_json(task, version, view);
    match version {
        ProtocolVersion::V1_0 => json!({ "task": body }),
        ProtocolVersion::V0_3 => body,
    }
}

/// A stream event: a v1.0 StreamResponse member, or a v0.3 event with `kind`
/// (status updates carry `final`, true at a terminal or interrupted state).
pub(crate) fn event_json(event: &Event, version: ProtocolVersion) -> Value {
    match event {
        Event::Status {
            task_id,
            context_id,
            status,
        } => match version {
            ProtocolVersion::V1_0 => json!({"statusUpdate": {
                "taskId": task_id,
                "contextId": context_id,
                "status": status_json(status, version),
            }}),
            ProtocolVersion::V0_3 => json!({
                "kind": "status-update",
                "taskId": task_id,
                "contextId": context_id,
                "status": status_json(status, version),
                "final": status.settles(),
            }),
        },
        Event::Artifact {
            task_id,
            context_id,
            artifact,
            append,
            last_chunk,
        } => {
            let mut body = Map::new();
            if version == ProtocolVersion::V0_3 {
                body.insert("kind".into(), json!("artifact-update"));
            }
            body.insert("taskId".into(), json!(task_id));
            body.insert("contextId".into(), json!(context_id));
            body.insert("artifact".into(), artifact_json(artifact, version));
            body.insert("append".into(), json!(append));
            body.insert("lastChunk".into(), json!(last_chunk));
            match version {
                ProtocolVersion::V1_0 => json!({ "artifactUpdate": body }),
                ProtocolVersion::V0_3 => Value::Object(body),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso_utc_with_millis() {
        assert_eq!(iso_timestamp(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_timestamp(951_827_696_789), "2000-02-29T12:34:56.789Z");
        assert_eq!(iso_timestamp(1_798_761_599_000), "2026-12-31T23:59:59.000Z");
        for ms in [0, 951_827_696_789, 1_798_761_599_000, now_ms()] {
            assert_eq!(parse_iso_timestamp(&iso_timestamp(ms)), Some(ms));
        }
        assert_eq!(
            parse_iso_timestamp("2000-02-29T12:34:56Z"),
            Some(951_827_696_000)
        );
        assert_eq!(parse_iso_timestamp("yesterday"), None);
    }

    #[test]
    fn parts_parse_in_both_shapes() {
        let v1 = json!({"messageId":"m","role":"ROLE_USER","parts":[
            {"text":"hi"},{"data":{"a":1}},{"raw":"AAE=","mediaType":"image/png"},
            {"url":"https://x/y","mediaType":"text/csv; charset=utf-8"}]});
        let m = parse_message(&v1).unwrap();
        let types: Vec<String> = m.parts.iter().map(Part::effective_media_type).collect();
        assert_eq!(
            types,
            ["text/plain", "application/json", "image/png", "text/csv"]
        );
        let v03 = json!({"kind":"message","messageId":"m","role":"user","parts":[
            {"kind":"text","text":"hi"},{"kind":"data","data":{"a":1}},
            {"kind":"file","file":{"uri":"https://x/y","mimeType":"image/png"}}]});
        let m = parse_message(&v03).unwrap();
        assert_eq!(m.parts[2].content, Content::Url("https://x/y".into()));
        assert_eq!(m.parts[2].effective_media_type(), "image/png");
        assert!(parse_message(&json!({"messageId":"m","parts":[]})).is_err());
        assert!(parse_message(&json!({"parts":[{"text":"x"}]})).is_err());
        assert!(parse_message(&json!({"messageId":"m","parts":[{"x":1}]})).is_err());
    }

    #[test]
    fn events_render_per_version() {
        let status = Status::now(TaskState::Completed, None);
        let event = Event::Status {
            task_id: "t".into(),
            context_id: "c".into(),
            status,
        };
        let v1 = event_json(&event, ProtocolVersion::V1_0);
        assert_eq!(
            v1["statusUpdate"]["status"]["state"],
            "TASK_STATE_COMPLETED"
        );
        assert!(v1["statusUpdate"].get("final").is_none());
        let v03 = event_json(&event, ProtocolVersion::V0_3);
        assert_eq!(v03["kind"], "status-update");
        assert_eq!(v03["final"], true);
        assert_eq!(v03["status"]["state"], "completed");
    }
}
