//! The mock peer over real HTTP: card shapes, the honest lifecycle in v1.0 and
//! v0.3, each behaviour's distinguishing trait, and the REST binding.

use a2a_conform::mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform::protocol::{codes, Operation, ProtocolVersion, TaskState};
use serde_json::{json, Value};
use std::future::Future;
use std::time::Duration;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
const CHUNKS: u32 = 4;
/// Chunks for tests that must act while the task still runs (about 1 s of
/// work, so a loaded machine does not finish the task first).
const LONG_CHUNKS: u32 = 25;
const INTERVAL: Duration = Duration::from_millis(40);
/// The bound on any single wait in these tests.
const WAIT: Duration = Duration::from_secs(10);

/// Awaits `fut`, failing the test if it takes longer than `limit`.
async fn within<T>(limit: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out after {limit:?}: {what}"))
}

fn timing() -> MockTiming {
    MockTiming {
        chunks: CHUNKS,
        chunk_interval: INTERVAL,
        keepalive_interval: Duration::from_millis(50),
        silence: Duration::from_millis(600),
    }
}

/// A started peer and a client speaking its version.
struct Peer {
    peer: MockPeer,
    version: ProtocolVersion,
    http: reqwest::Client,
}

async fn start(version: ProtocolVersion, behaviour: Behaviour) -> Peer {
    start_with(version, behaviour, timing()).await
}

async fn start_long(version: ProtocolVersion, behaviour: Behaviour) -> Peer {
    let long = MockTiming {
        chunks: LONG_CHUNKS,
        ..timing()
    };
    start_with(version, behaviour, long).await
}

async fn start_with(version: ProtocolVersion, behaviour: Behaviour, timing: MockTiming) -> Peer {
    let peer = MockPeer::start(MockConfig {
        protocol: version,
        behaviour,
        port: 0,
        timing,
        auth_token: None,
    })
    .await
    .expect("mock peer starts");
    Peer {
        peer,
        version,
        http: reqwest::Client::new(),
    }
}

fn method(version: ProtocolVersion, op: Operation) -> &'static str {
    version
        .method(op)
        .expect("operation exists in this version")
}

/// A user message in the version's shape.
fn message(version: ProtocolVersion, text: &str) -> Value {
    match version {
        ProtocolVersion::V1_0 => json!({
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": "ROLE_USER",
            "parts": [{"text": text}],
        }),
        ProtocolVersion::V0_3 => json!({
            "kind": "message",
            "messageId": uuid::Uuid::new_v4().to_string(),
            "role": "user",
            "parts": [{"kind": "text", "text": text}],
        }),
    }
}

fn data_message(version: ProtocolVersion) -> Value {
    let mut m = message(version, "");
    m["parts"] = match version {
        ProtocolVersion::V1_0 => json!([{"data": {"answer": 42}}]),
        ProtocolVersion::V0_3 => json!([{"kind": "data", "data": {"answer": 42}}]),
    };
    m
}

fn follow_up(mut message: Value, task: &Value) -> Value {
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    message
}

fn state(value: &Value) -> TaskState {
    TaskState::from_wire(&value["status"]["state"])
        .unwrap_or_else(|| panic!("no readable state in {value}"))
}

/// The texts of a task's artifact parts.
fn artifact_texts(task: &Value) -> Vec<String> {
    task["artifacts"]
        .as_array()
        .map(|artifacts| {
            artifacts
                .iter()
                .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
                .filter_map(|p| p["text"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

impl Peer {
    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let request = self.http.post(self.peer.jsonrpc_url()).json(body);
        match self.version {
            ProtocolVersion::V1_0 => request.header("A2A-Version", "1.0"),
            ProtocolVersion::V0_3 => request,
        }
    }

    fn envelope(&self, op: Operation, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method(self.version, op), "params": params})
    }

    /// A JSON-RPC call; the whole response.
    async fn call(&self, op: Operation, params: Value) -> Value {
        let body = self.envelope(op, params);
        let response = within(WAIT, "JSON-RPC call", self.post(&body).send())
            .await
            .expect("request sent");
        assert_eq!(response.status(), 200);
        let value: Value = within(WAIT, "JSON-RPC body", response.json())
            .await
            .expect("JSON body");
        assert_eq!(value["jsonrpc"], "2.0");
        assert_eq!(value["id"], 7, "id echoed: {value}");
        assert!(
            value.get("result").is_some() != value.get("error").is_some(),
            "exactly one of result/error: {value}"
        );
        value
    }

    async fn result(&self, op: Operation, params: Value) -> Value {
        let response = self.call(op, params).await;
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{op:?} failed: {response}"))
    }

    async fn error_code(&self, op: Operation, params: Value) -> i64 {
        let response = self.call(op, params).await;
        let error = response
            .get("error")
            .unwrap_or_else(|| panic!("{op:?} should fail: {response}"));
        if self.version == ProtocolVersion::V1_0 && error["code"].as_i64().unwrap() > -32100 {
            let info = &error["data"][0];
            assert_eq!(
                info["@type"], "type.googleapis.com/google.rpc.ErrorInfo",
                "{error}"
            );
            assert_eq!(info["domain"], "a2a-protocol.org", "{error}");
        }
        error["code"].as_i64().expect("numeric code")
    }

    /// SendMessage; the Task (unwrapped in v1.0).
    async fn send(&self, message: Value, blocking: bool) -> Value {
        let configuration = match self.version {
            ProtocolVersion::V1_0 => json!({"returnImmediately": !blocking}),
            ProtocolVersion::V0_3 => json!({"blocking": blocking}),
        };
        let result = self
            .result(
                Operation::SendMessage,
                json!({"message": message, "configuration": configuration}),
            )
            .await;
        match self.version {
            ProtocolVersion::V1_0 => result["task"].clone(),
            ProtocolVersion::V0_3 => {
                assert_eq!(result["kind"], "task", "{result}");
                result
            }
        }
    }

    async fn get(&self, task: &Value) -> Value {
        self.result(Operation::GetTask, json!({"id": task["id"]}))
            .await
    }

    async fn stream(&self, op: Operation, params: Value) -> Sse {
        let body = self.envelope(op, params);
        let response = within(WAIT, "stream opens", self.post(&body).send())
            .await
            .expect("request sent");
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Sse::new(response, self.version, true)
    }

    async fn stream_message(&self, message: Value) -> Sse {
        self.stream(Operation::SendStreamingMessage, json!({"message": message}))
            .await
    }
}

/// What a stream event is.
#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Task(Value),
    Status(TaskState, Value),
    Artifact(Value),
}

/// A minimal SSE reader over a live response.
struct Sse {
    response: reqwest::Response,
    version: ProtocolVersion,
    jsonrpc: bool,
    buffer: String,
    comments: usize,
}

impl Sse {
    fn new(response: reqwest::Response, version: ProtocolVersion, jsonrpc: bool) -> Sse {
        Sse {
            response,
            version,
            jsonrpc,
            buffer: String::new(),
            comments: 0,
        }
    }

    /// The next data payload, or `None` when the server closed the stream.
    async fn next_raw(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut data = Vec::new();
                for line in block.lines() {
                    if line.starts_with(':') {
                        self.comments += 1;
                    } else if let Some(d) = line.strip_prefix("data:") {
                        data.push(d.trim_start().to_string());
                    }
                }
                if data.is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&data.join("\n")).expect("JSON data"));
            }
            let chunk = self.response.chunk().await.expect("stream readable")?;
            self.buffer
                .push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
        }
    }

    async fn next(&mut self) -> Option<Ev> {
        let raw = within(WAIT, "next stream event", self.next_raw()).await?;
        let payload = if self.jsonrpc {
            assert_eq!(raw["id"], 7, "stream frames echo the id: {raw}");
            raw.get("result")
                .cloned()
                .unwrap_or_else(|| panic!("stream frame without result: {raw}"))
        } else {
            raw
        };
        Some(classify(self.version, payload))
    }

    /// Every remaining event up to the close.
    async fn rest(&mut self) -> Vec<Ev> {
        let mut events = Vec::new();
        while let Some(e) = self.next().await {
            events.push(e);
        }
        events
    }
}

fn classify(version: ProtocolVersion, payload: Value) -> Ev {
    match version {
        ProtocolVersion::V1_0 => {
            assert!(payload.get("kind").is_none(), "no kind in v1.0: {payload}");
            if let Some(t) = payload.get("task") {
                Ev::Task(t.clone())
            } else if let Some(s) = payload.get("statusUpdate") {
                assert!(s.get("final").is_none(), "no final in v1.0: {s}");
                Ev::Status(state(s), s.clone())
            } else if let Some(a) = payload.get("artifactUpdate") {
                Ev::Artifact(a.clone())
            } else {
                panic!("not a StreamResponse: {payload}")
            }
        }
        ProtocolVersion::V0_3 => match payload["kind"].as_str() {
            Some("task") => Ev::Task(payload),
            Some("status-update") => {
                assert!(payload["final"].is_boolean(), "final present: {payload}");
                Ev::Status(state(&payload), payload)
            }
            Some("artifact-update") => Ev::Artifact(payload),
            _ => panic!("unknown v0.3 event: {payload}"),
        },
    }
}

fn is_artifact(e: &Ev) -> bool {
    matches!(e, Ev::Artifact(_))
}

// ---------------------------------------------------------------------------
// The card
// ---------------------------------------------------------------------------

#[tokio::test]
async fn v1_card_declares_interfaces_in_order_with_caching_headers() {
    let p = start(ProtocolVersion::V1_0, Behaviour::Honest).await;
    let response = within(WAIT, "card", p.http.get(p.peer.card_url()).send())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(headers["cache-control"], "max-age=300");
    let etag = headers["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.len() > 2);
    let card: Value = response.json().await.unwrap();
    let base = p.peer.base_url();
    assert_eq!(base, format!("http://127.0.0.1:{}", p.peer.addr().port()));
    assert_eq!(
        p.peer.card_url(),
        format!("{base}/.well-known/agent-card.json")
    );
    for field in ["name", "description", "version"] {
        assert!(card[field].is_string(), "{field}: {card}");
    }
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(interfaces.len(), 2);
    assert_eq!(interfaces[0]["url"], format!("{base}/a2a/jsonrpc"));
    assert_eq!(interfaces[0]["protocolBinding"], "JSONRPC");
    assert_eq!(interfaces[0]["protocolVersion"], "1.0");
    assert_eq!(interfaces[1]["url"], format!("{base}/a2a/rest"));
    assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(
        card["capabilities"],
        json!({"streaming": true, "pushNotifications": false})
    );
    assert_eq!(
        card["defaultInputModes"],
        json!(["text/plain", "application/json"])
    );
    assert_eq!(card["defaultOutputModes"], json!(["text/plain"]));
    assert_eq!(card["skills"][0]["id"], "echo");
    assert!(card["skills"][0]["tags"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    for legacy in ["url", "protocolVersion", "preferredTransport"] {
        assert!(card.get(legacy).is_none(), "no {legacy} in a 1.0 card");
    }
    let again = p
        .http
        .get(p.peer.card_url())
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
}

#[tokio::test]
async fn v03_card_uses_the_legacy_layout() {
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let card: Value = p
        .http
        .get(p.peer.card_url())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], format!("{}/a2a/jsonrpc", p.peer.base_url()));
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert!(card.get("supportedInterfaces").is_none());
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(
        card["skills"][0]["inputModes"],
        json!(["text/plain", "application/json"])
    );
    assert!(p.peer.rest_url().is_none());
}

#[tokio::test]
async fn undeclared_streaming_behaviours_declare_no_streaming() {
    for behaviour in [
        Behaviour::UndeclaredStreaming,
        Behaviour::UndeclaredStreamingRefused,
    ] {
        for version in VERSIONS {
            let p = start(version, behaviour).await;
            let card: Value = p
                .http
                .get(p.peer.card_url())
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(
                card["capabilities"]["streaming"], false,
                "{behaviour} {version}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Honest lifecycle
// ---------------------------------------------------------------------------

#[tokio::test]
async fn blocking_send_returns_the_completed_task_with_its_whole_artifact() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        let task = p.send(message(version, "hello"), true).await;
        assert_eq!(state(&task), TaskState::Completed, "{version}: {task}");
        assert!(uuid::Uuid::parse_str(task["id"].as_str().unwrap()).is_ok());
        assert!(uuid::Uuid::parse_str(task["contextId"].as_str().unwrap()).is_ok());
        let expected: Vec<String> = (1..=CHUNKS)
            .map(|i| format!("chunk {i} of {CHUNKS}"))
            .collect();
        assert_eq!(artifact_texts(&task), expected, "{version}");
        assert_eq!(task["artifacts"][0]["name"], "result");
        let ts = task["status"]["timestamp"].as_str().unwrap();
        assert!(ts.ends_with('Z') && ts.contains('T'), "{ts}");
        let history = task["history"].as_array().unwrap();
        assert_eq!(history[0]["parts"][0]["text"], "hello");
        assert_eq!(p.get(&task).await["artifacts"], task["artifacts"]);
    }
}

#[tokio::test]
async fn non_blocking_send_returns_at_once_and_completes_later() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        let task = p.send(message(version, "hello"), false).await;
        assert_eq!(state(&task), TaskState::Submitted, "{version}");
        let done = within(WAIT, "task completes", async {
            loop {
                let now = p.get(&task).await;
                if state(&now) == TaskState::Completed {
                    return now;
                }
                tokio::time::sleep(INTERVAL).await;
            }
        })
        .await;
        assert_eq!(artifact_texts(&done).len(), CHUNKS as usize);
    }
}

#[tokio::test]
async fn stream_runs_task_first_then_chunks_then_completed_and_closes() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        let mut sse = p.stream_message(message(version, "hello")).await;
        let first = sse.next().await.expect("first event");
        let Ev::Task(task) = first else {
            panic!("{version}: first event must be the Task, got {first:?}")
        };
        assert_eq!(state(&task), TaskState::Submitted);
        let events = sse.rest().await;
        assert!(
            matches!(events[0], Ev::Status(TaskState::Working, _)),
            "{events:?}"
        );
        let artifacts: Vec<&Value> = events
            .iter()
            .filter_map(|e| match e {
                Ev::Artifact(a) => Some(a),
                _ => None,
            })
            .collect();
        assert_eq!(artifacts.len(), CHUNKS as usize);
        for (i, a) in artifacts.iter().enumerate() {
            assert_eq!(a["append"], i > 0, "{a}");
            assert_eq!(a["lastChunk"], i + 1 == CHUNKS as usize, "{a}");
            assert_eq!(a["taskId"], task["id"]);
            assert_eq!(
                a["artifact"]["artifactId"],
                artifacts[0]["artifact"]["artifactId"]
            );
        }
        let Some(Ev::Status(TaskState::Completed, last)) = events.last() else {
            panic!("{version}: stream must end at completed: {events:?}")
        };
        if version == ProtocolVersion::V0_3 {
            assert_eq!(last["final"], true);
        }
        // rest() returned: the server closed the stream.
    }
}

#[tokio::test]
async fn a_late_subscriber_gets_the_snapshot_then_the_same_events() {
    for version in VERSIONS {
        let p = start_long(version, Behaviour::Honest).await;
        let mut original = p.stream_message(message(version, "hello")).await;
        let Some(Ev::Task(task)) = original.next().await else {
            panic!("task first")
        };
        // Wait for the first chunk, then subscribe.
        let mut seen = Vec::new();
        while let Some(e) = original.next().await {
            let done = is_artifact(&e);
            seen.push(e);
            if done {
                break;
            }
        }
        let mut late = p
            .stream(Operation::SubscribeToTask, json!({"id": task["id"]}))
            .await;
        let Some(Ev::Task(snapshot)) = late.next().await else {
            panic!("snapshot first")
        };
        assert_eq!(state(&snapshot), TaskState::Working);
        let late_events = late.rest().await;
        let original_rest = original.rest().await;
        assert!(!late_events.is_empty());
        assert_eq!(
            late_events,
            original_rest[original_rest.len() - late_events.len()..],
            "{version}: subscribers see the same events in the same order"
        );
        assert!(matches!(
            late_events.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));
        // Subscribing to the now-terminal task is refused.
        let code = p
            .error_code(Operation::SubscribeToTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION);
    }
}

/// Opens a stream, waits for the first artifact, cancels; returns the cancel
/// result, the events after the cancel was acknowledged, and the task id.
async fn cancel_mid_stream(p: &Peer) -> (Value, Vec<Ev>, Value) {
    let mut sse = p.stream_message(message(p.version, "long work")).await;
    let Some(Ev::Task(task)) = sse.next().await else {
        panic!("task first")
    };
    loop {
        match sse.next().await {
            Some(e) if is_artifact(&e) => break,
            Some(_) => {}
            None => panic!("stream ended before any artifact"),
        }
    }
    let canceled = p
        .result(Operation::CancelTask, json!({"id": task["id"]}))
        .await;
    let after = sse.rest().await;
    (canceled, after, task)
}

#[tokio::test]
async fn honest_cancel_stops_the_stream_and_freezes_the_task() {
    for version in VERSIONS {
        let p = start_long(version, Behaviour::Honest).await;
        let (canceled, after, task) = cancel_mid_stream(&p).await;
        assert_eq!(state(&canceled), TaskState::Canceled, "{version}");
        let cancel_at = after
            .iter()
            .position(|e| matches!(e, Ev::Status(TaskState::Canceled, _)))
            .unwrap_or_else(|| panic!("{version}: canceled status on the stream: {after:?}"));
        assert!(
            !after[cancel_at..].iter().any(is_artifact),
            "{version}: no artifact after cancel: {after:?}"
        );
        assert_eq!(cancel_at + 1, after.len(), "the stream closes at canceled");
        if let Ev::Status(_, s) = &after[cancel_at] {
            if version == ProtocolVersion::V0_3 {
                assert_eq!(s["final"], true);
            }
        }
        let first = p.get(&task).await;
        tokio::time::sleep(INTERVAL * 5).await;
        let second = p.get(&task).await;
        assert_eq!(state(&second), TaskState::Canceled);
        assert_eq!(
            first["artifacts"], second["artifacts"],
            "artifact set frozen"
        );
        assert!(artifact_texts(&second).len() < LONG_CHUNKS as usize);
        let code = p
            .error_code(Operation::CancelTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::TASK_NOT_CANCELABLE);
    }
}

#[tokio::test]
async fn cancel_leak_keeps_streaming_and_ends_completed_with_a_partial_artifact() {
    for version in VERSIONS {
        let p = start_long(version, Behaviour::CancelLeak).await;
        let (canceled, after, task) = cancel_mid_stream(&p).await;
        assert_eq!(state(&canceled), TaskState::Canceled, "{version}");
        let cancel_at = after
            .iter()
            .position(|e| matches!(e, Ev::Status(TaskState::Canceled, _)))
            .expect("canceled status on the stream");
        assert!(
            after[cancel_at..].iter().any(is_artifact),
            "{version}: artifacts leak after the cancel: {after:?}"
        );
        assert!(matches!(
            after.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));
        let later = p.get(&task).await;
        assert_eq!(state(&later), TaskState::Completed, "{version}");
        let texts = artifact_texts(&later);
        assert!(
            !texts.is_empty() && texts.len() < LONG_CHUNKS as usize,
            "partial: {texts:?}"
        );
    }
}

#[tokio::test]
async fn need_input_stops_at_input_required_and_resumes_with_text_or_data() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        // Streamed: the stream ends at input-required.
        let mut sse = p
            .stream_message(message(version, "please need-input"))
            .await;
        let Some(Ev::Task(task)) = sse.next().await else {
            panic!("task first")
        };
        let events = sse.rest().await;
        let Some(Ev::Status(TaskState::InputRequired, last)) = events.last() else {
            panic!("{version}: ends at input-required: {events:?}")
        };
        assert!(last["status"]["message"]["parts"][0]["text"].is_string());
        if version == ProtocolVersion::V0_3 {
            assert_eq!(last["final"], true);
        }
        let resumed = p
            .send(follow_up(message(version, "more"), &task), true)
            .await;
        assert_eq!(
            state(&resumed),
            TaskState::Completed,
            "{version}: {resumed}"
        );
        assert_eq!(artifact_texts(&resumed).len(), CHUNKS as usize);
        // Blocking: returns at input-required; a data part resumes it.
        let waiting = p.send(message(version, "need-input"), true).await;
        assert_eq!(state(&waiting), TaskState::InputRequired);
        let resumed = p
            .send(follow_up(data_message(version), &waiting), true)
            .await;
        assert_eq!(
            state(&resumed),
            TaskState::Completed,
            "{version}: {resumed}"
        );
        // A completed task takes no more messages.
        let code = p
            .error_code(
                Operation::SendMessage,
                json!({"message": follow_up(message(version, "again"), &resumed)}),
            )
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION);
    }
}

#[tokio::test]
async fn message_errors_unknown_task_mismatched_context_undeclared_media_type() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        let ghost = json!({"id": uuid::Uuid::new_v4().to_string(), "contextId": "c"});
        for op in [
            Operation::GetTask,
            Operation::CancelTask,
            Operation::SubscribeToTask,
        ] {
            let code = p.error_code(op, json!({"id": ghost["id"]})).await;
            assert_eq!(code, codes::TASK_NOT_FOUND, "{version} {op:?}");
        }
        let mut to_ghost = message(version, "hi");
        to_ghost["taskId"] = ghost["id"].clone();
        let code = p
            .error_code(Operation::SendMessage, json!({"message": to_ghost}))
            .await;
        assert_eq!(code, codes::TASK_NOT_FOUND);

        let waiting = p.send(message(version, "need-input"), true).await;
        let mut wrong = follow_up(message(version, "more"), &waiting);
        wrong["contextId"] = json!("another-context");
        let code = p
            .error_code(Operation::SendMessage, json!({"message": wrong}))
            .await;
        assert_eq!(code, codes::INVALID_PARAMS);

        let mut image = message(version, "");
        image["parts"] = match version {
            ProtocolVersion::V1_0 => json!([{"raw": "iVBORw0KGgo=", "mediaType": "image/png"}]),
            ProtocolVersion::V0_3 => {
                json!([{"kind": "file", "file": {"bytes": "iVBORw0KGgo=", "mimeType": "image/png"}}])
            }
        };
        let code = p
            .error_code(Operation::SendMessage, json!({"message": image}))
            .await;
        assert_eq!(code, codes::CONTENT_TYPE_NOT_SUPPORTED);

        let code = p
            .error_code(Operation::SendMessage, json!({"message": {"parts": []}}))
            .await;
        assert_eq!(code, codes::INVALID_PARAMS);
        let code = p.error_code(Operation::CreatePushConfig, json!({})).await;
        assert_eq!(code, codes::PUSH_NOT_SUPPORTED);
        let code = p.error_code(Operation::GetPushConfig, json!({})).await;
        assert_eq!(code, codes::PUSH_NOT_SUPPORTED);
    }
}

#[tokio::test]
async fn envelope_errors_follow_json_rpc() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Honest).await;
        let raw = |body: &'static str| {
            let r = p
                .http
                .post(p.peer.jsonrpc_url())
                .header("A2A-Version", "1.0");
            async move {
                let v: Value = r.body(body).send().await.unwrap().json().await.unwrap();
                v
            }
        };
        let v = within(WAIT, "bad json", raw("{not json")).await;
        assert_eq!(v["error"]["code"], codes::PARSE_ERROR);
        assert_eq!(v["id"], Value::Null);
        let v = within(WAIT, "array", raw("[1,2]")).await;
        assert_eq!(v["error"]["code"], codes::INVALID_REQUEST);
        let v = within(WAIT, "no method", raw(r#"{"jsonrpc":"2.0","id":"x"}"#)).await;
        assert_eq!(v["error"]["code"], codes::INVALID_REQUEST);
        assert_eq!(v["id"], "x");
        let other = match version {
            ProtocolVersion::V1_0 => "message/send",
            ProtocolVersion::V0_3 => "SendMessage",
        };
        let v = p
            .call_raw(json!({"jsonrpc":"2.0","id":1,"method": other, "params": {}}))
            .await;
        assert_eq!(v["error"]["code"], codes::METHOD_NOT_FOUND, "{version}");
        let v = p
            .call_raw(json!({"jsonrpc":"2.0","id":1,"method": method(version, Operation::GetTask), "params": [1]}))
            .await;
        assert_eq!(v["error"]["code"], codes::INVALID_PARAMS);
        let huge =
            json!({"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"a".repeat(1_200_000)}});
        let response = p.post(&huge).send().await.unwrap();
        assert_eq!(response.status(), 413);
    }
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let v = p
        .call_raw(json!({"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}))
        .await;
    assert_eq!(
        v["error"]["code"],
        codes::METHOD_NOT_FOUND,
        "no ListTasks in 0.3"
    );
}

impl Peer {
    async fn call_raw(&self, body: Value) -> Value {
        within(WAIT, "raw call", async {
            self.post(&body)
                .send()
                .await
                .unwrap()
                .json::<Value>()
                .await
                .unwrap()
        })
        .await
    }
}

#[tokio::test]
async fn v1_requires_the_version_header() {
    let p = start(ProtocolVersion::V1_0, Behaviour::Honest).await;
    let body = p.envelope(Operation::GetTask, json!({"id": "x"}));
    for header in [None, Some(""), Some("0.3"), Some("0.5")] {
        let mut request = p.http.post(p.peer.jsonrpc_url()).json(&body);
        if let Some(h) = header {
            request = request.header("A2A-Version", h);
        }
        let v: Value = within(WAIT, "call", async {
            request.send().await.unwrap().json().await.unwrap()
        })
        .await;
        assert_eq!(
            v["error"]["code"],
            codes::VERSION_NOT_SUPPORTED,
            "{header:?}: {v}"
        );
        assert_eq!(v["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
        assert_eq!(v["id"], 7);
    }
    let url = format!("{}?A2A-Version=1.0", p.peer.jsonrpc_url());
    let v: Value = p
        .http
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        v["error"]["code"],
        codes::TASK_NOT_FOUND,
        "query parameter accepted: {v}"
    );
    assert_eq!(v["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
}

#[tokio::test]
async fn history_length_and_list_tasks() {
    let version = ProtocolVersion::V1_0;
    let p = start(version, Behaviour::Honest).await;
    let waiting = p.send(message(version, "need-input"), true).await;
    let full = p.get(&waiting).await;
    assert_eq!(
        full["history"].as_array().unwrap().len(),
        2,
        "user message + agent prompt"
    );
    let none = p
        .result(
            Operation::GetTask,
            json!({"id": waiting["id"], "historyLength": 0}),
        )
        .await;
    assert!(none.get("history").is_none());
    let one = p
        .result(
            Operation::GetTask,
            json!({"id": waiting["id"], "historyLength": 1}),
        )
        .await;
    assert_eq!(one["history"].as_array().unwrap().len(), 1);
    assert_eq!(one["history"][0]["role"], "ROLE_AGENT");
    let done = p.send(message(version, "hi"), true).await;
    let list = p.result(Operation::ListTasks, json!({})).await;
    assert_eq!(list["totalSize"], 2);
    assert_eq!(list["nextPageToken"], "");
    assert_eq!(list["tasks"][0]["id"], done["id"], "newest first");
    assert!(list["tasks"][0].get("artifacts").is_none());
    let page = p
        .result(
            Operation::ListTasks,
            json!({"pageSize": 1, "includeArtifacts": true}),
        )
        .await;
    assert_eq!(page["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(page["nextPageToken"], "1");
    assert!(page["tasks"][0]["artifacts"].is_array());
    let filtered = p
        .result(
            Operation::ListTasks,
            json!({"status": "TASK_STATE_INPUT_REQUIRED"}),
        )
        .await;
    assert_eq!(filtered["totalSize"], 1);
    assert_eq!(filtered["tasks"][0]["id"], waiting["id"]);
}

// ---------------------------------------------------------------------------
// Behaviours
// ---------------------------------------------------------------------------

#[tokio::test]
async fn input_overdeclared_refuses_a_declared_data_part_on_resume() {
    for version in VERSIONS {
        let p = start(version, Behaviour::InputOverdeclared).await;
        let waiting = p.send(message(version, "need-input"), true).await;
        let code = p
            .error_code(
                Operation::SendMessage,
                json!({"message": follow_up(data_message(version), &waiting)}),
            )
            .await;
        assert_eq!(code, codes::INVALID_PARAMS, "{version}");
        assert_eq!(state(&p.get(&waiting).await), TaskState::InputRequired);
        let resumed = p
            .send(follow_up(message(version, "text"), &waiting), true)
            .await;
        assert_eq!(state(&resumed), TaskState::Completed, "text still resumes");
    }
}

#[tokio::test]
async fn input_overdeclared_fails_turns_a_data_resume_into_failed() {
    for version in VERSIONS {
        let p = start(version, Behaviour::InputOverdeclaredFails).await;
        let waiting = p.send(message(version, "need-input"), true).await;
        let failed = p
            .send(follow_up(data_message(version), &waiting), true)
            .await;
        assert_eq!(state(&failed), TaskState::Failed, "{version}: {failed}");
        let note = failed["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(note.contains("unsupported input"), "{note}");
    }
}

#[tokio::test]
async fn stream_silent_sends_the_task_then_only_keep_alives_while_the_task_completes() {
    for (behaviour, keepalives) in [
        (Behaviour::StreamSilent, true),
        (Behaviour::StreamSilentNothing, false),
    ] {
        for version in VERSIONS {
            let p = start(version, behaviour).await;
            let mut sse = p.stream_message(message(version, "hello")).await;
            let Some(Ev::Task(task)) = sse.next().await else {
                panic!("task first")
            };
            let rest = sse.rest().await;
            assert!(
                rest.is_empty(),
                "{behaviour} {version}: no events after the Task: {rest:?}"
            );
            assert_eq!(
                sse.comments > 0,
                keepalives,
                "{behaviour}: {} comments",
                sse.comments
            );
            let later = p.get(&task).await;
            assert_eq!(
                state(&later),
                TaskState::Completed,
                "work goes on in the background"
            );
        }
    }
}

#[tokio::test]
async fn unstable_completion_changes_artifacts_after_completed() {
    for version in VERSIONS {
        let p = start(version, Behaviour::UnstableCompletion).await;
        let mut sse = p.stream_message(message(version, "hello")).await;
        let Some(Ev::Task(task)) = sse.next().await else {
            panic!("task first")
        };
        let events = sse.rest().await;
        assert!(matches!(
            events.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));
        // What the stream delivered before `completed`.
        let streamed: Vec<&Value> = events
            .iter()
            .filter_map(|e| match e {
                Ev::Artifact(a) => Some(&a["artifact"]),
                _ => None,
            })
            .collect();
        let result_id = streamed[0]["artifactId"].clone();
        let streamed_parts: Vec<Value> = streamed
            .iter()
            .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
            .collect();
        // Reads stay `completed` while the artifact set keeps changing.
        let later = within(WAIT, "artifacts change after completion", async {
            loop {
                let now = p.get(&task).await;
                assert_eq!(state(&now), TaskState::Completed, "{version}");
                let artifacts = now["artifacts"].as_array().cloned().unwrap_or_default();
                let rewritten = artifacts
                    .iter()
                    .any(|a| a["artifactId"] == result_id && a["parts"] != json!(streamed_parts));
                if artifacts.len() == 2 && rewritten {
                    return now;
                }
                tokio::time::sleep(INTERVAL / 2).await;
            }
        })
        .await;
        let ids: Vec<&Value> = later["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| &a["artifactId"])
            .collect();
        assert!(
            ids.contains(&&result_id),
            "{version}: result artifact kept its id"
        );
        assert_ne!(ids[0], ids[1], "{version}: an artifact was added");
    }
}

#[tokio::test]
async fn instant_tasks_are_completed_from_the_first_snapshot() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Instant).await;
        let task = p.send(message(version, "hello"), false).await;
        assert_eq!(state(&task), TaskState::Completed, "{version}");
        assert_eq!(artifact_texts(&task).len(), CHUNKS as usize);
        let code = p
            .error_code(Operation::CancelTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::TASK_NOT_CANCELABLE);
        let mut sse = p.stream_message(message(version, "hello")).await;
        let Some(Ev::Task(first)) = sse.next().await else {
            panic!("task first")
        };
        assert_eq!(state(&first), TaskState::Completed);
        let rest = sse.rest().await;
        match version {
            ProtocolVersion::V1_0 => assert!(rest.is_empty(), "{rest:?}"),
            ProtocolVersion::V0_3 => {
                let [Ev::Status(TaskState::Completed, s)] = rest.as_slice() else {
                    panic!("v0.3 ends with a final status: {rest:?}")
                };
                assert_eq!(s["final"], true);
            }
        }
    }
}

#[tokio::test]
async fn undeclared_streaming_serves_streams_and_refused_answers_unsupported() {
    for version in VERSIONS {
        let p = start(version, Behaviour::UndeclaredStreaming).await;
        let mut sse = p.stream_message(message(version, "hello")).await;
        assert!(matches!(sse.next().await, Some(Ev::Task(_))));
        assert!(matches!(
            sse.rest().await.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));

        let p = start(version, Behaviour::UndeclaredStreamingRefused).await;
        let code = p
            .error_code(
                Operation::SendStreamingMessage,
                json!({"message": message(version, "x")}),
            )
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION, "{version}");
        let task = p.send(message(version, "need-input"), true).await;
        let code = p
            .error_code(Operation::SubscribeToTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION);
    }
}

// ---------------------------------------------------------------------------
// Lifecycle of the peer itself
// ---------------------------------------------------------------------------

#[tokio::test]
async fn shutdown_ends_open_streams_and_frees_the_port() {
    let slow = MockTiming {
        silence: Duration::from_secs(300),
        ..timing()
    };
    let p = start_with(ProtocolVersion::V1_0, Behaviour::StreamSilentNothing, slow).await;
    let mut sse = p.stream_message(message(p.version, "hello")).await;
    assert!(matches!(sse.next().await, Some(Ev::Task(_))));
    let url = p.peer.card_url();
    within(WAIT, "shutdown", p.peer.shutdown()).await;
    let ended = within(WAIT, "stream ends", async {
        loop {
            match sse.response.chunk().await {
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => return,
            }
        }
    })
    .await;
    let () = ended;
    assert!(
        p.http.get(url).send().await.is_err(),
        "nothing listens any more"
    );
}

#[tokio::test]
async fn dropping_the_peer_stops_it() {
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let url = p.peer.card_url();
    drop(p.peer);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(p.http.get(url).send().await.is_err());
}

// ---------------------------------------------------------------------------
// HTTP+JSON binding (v1.0)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn rest_binding_runs_the_same_lifecycle() {
    let p = start_long(ProtocolVersion::V1_0, Behaviour::Honest).await;
    let base = p.peer.rest_url().expect("REST served for 1.0");
    let http = &p.http;
    let send = |path: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .header("A2A-Version", "1.0")
            .json(&body)
            .send()
    };
    let response = within(
        WAIT,
        "send",
        send(
            "/message:send",
            json!({"message": message(p.version, "hi")}),
        ),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 200);
    let task = response.json::<Value>().await.unwrap()["task"].clone();
    assert_eq!(state(&task), TaskState::Completed);

    let got: Value = http
        .get(format!(
            "{base}/tasks/{}?historyLength=0",
            task["id"].as_str().unwrap()
        ))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], task["id"]);
    assert!(got.get("history").is_none());

    let response = send(
        "/message:stream",
        json!({"message": message(p.version, "hi")}),
    )
    .await
    .unwrap();
    let mut sse = Sse::new(response, p.version, false);
    let Some(Ev::Task(streamed)) = sse.next().await else {
        panic!("task first")
    };
    let Some(Ev::Status(TaskState::Working, _)) = sse.next().await else {
        panic!("working")
    };
    let id = streamed["id"].as_str().unwrap().to_string();
    let canceled = send(&format!("/tasks/{id}:cancel"), json!({}))
        .await
        .unwrap();
    assert_eq!(canceled.status(), 200);
    assert_eq!(
        state(&canceled.json::<Value>().await.unwrap()),
        TaskState::Canceled
    );
    let rest = sse.rest().await;
    assert!(
        matches!(rest.last(), Some(Ev::Status(TaskState::Canceled, _))),
        "{rest:?}"
    );

    let again = send(&format!("/tasks/{id}:cancel"), json!({}))
        .await
        .unwrap();
    assert_eq!(again.status(), 400);
    let body: Value = again.json().await.unwrap();
    assert_eq!(body["error"]["status"], "FAILED_PRECONDITION");
    assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_CANCELABLE");

    let missing = http
        .get(format!("{base}/tasks/nope"))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], 404);
    assert_eq!(body["error"]["status"], "NOT_FOUND");
    assert_eq!(body["error"]["details"][0]["domain"], "a2a-protocol.org");

    let unversioned = http.get(format!("{base}/tasks/nope")).send().await.unwrap();
    assert_eq!(unversioned.status(), 400);
    let body: Value = unversioned.json().await.unwrap();
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "VERSION_NOT_SUPPORTED"
    );

    // Subscribe by GET too, on an input-required task.
    let waiting = send(
        "/message:send",
        json!({"message": message(p.version, "need-input")}),
    )
    .await
    .unwrap()
    .json::<Value>()
    .await
    .unwrap()["task"]
        .clone();
    let sub = http
        .get(format!(
            "{base}/tasks/{}:subscribe",
            waiting["id"].as_str().unwrap()
        ))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(sub.status(), 200);
    let mut sse = Sse::new(sub, p.version, false);
    let Some(Ev::Task(snapshot)) = sse.next().await else {
        panic!("task first")
    };
    assert_eq!(state(&snapshot), TaskState::InputRequired);

    let push = send(
        &format!(
            "/tasks/{}/pushNotificationConfigs",
            task["id"].as_str().unwrap()
        ),
        json!({}),
    )
    .await
    .unwrap();
    assert_eq!(push.status(), 400);
    let body: Value = push.json().await.unwrap();
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "PUSH_NOTIFICATION_NOT_SUPPORTED"
    );
}
