//! Shared helpers: starting the mock, calling it raw, and reading its SSE.

use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::{Operation, ProtocolVersion, TaskState};
use serde_json::{json, Value};
use std::future::Future;
use std::time::Duration;

pub(crate) const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
pub(crate) const CHUNKS: u32 = 4;
/// Chunks for tests that must act while the task still runs (about 1 s of
/// work, so a loaded machine does not finish the task first).
pub(crate) const LONG_CHUNKS: u32 = 25;
pub(crate) const INTERVAL: Duration = Duration::from_millis(40);
/// The bound on any single wait in these tests.
pub(crate) const WAIT: Duration = Duration::from_secs(10);

/// Awaits `fut`, failing the test if it takes longer than `limit`.
pub(crate) async fn within<T>(limit: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, fut)
        .await
        .unwrap_or_else(|_| panic!("timed out after {limit:?}: {what}"))
}

pub(crate) fn timing() -> MockTiming {
    MockTiming {
        chunks: CHUNKS,
        chunk_interval: INTERVAL,
        keepalive_interval: Duration::from_millis(50),
        silence: Duration::from_millis(600),
    }
}

/// A started peer and a client speaking its version.
pub(crate) struct Peer {
    pub(crate) peer: MockPeer,
    pub(crate) version: ProtocolVersion,
    pub(crate) http: reqwest::Client,
}

pub(crate) async fn start(version: ProtocolVersion, behaviour: Behaviour) -> Peer {
    start_with(version, behaviour, timing()).await
}

pub(crate) async fn start_long(version: ProtocolVersion, behaviour: Behaviour) -> Peer {
    let long = MockTiming {
        chunks: LONG_CHUNKS,
        ..timing()
    };
    start_with(version, behaviour, long).await
}

pub(crate) async fn start_with(
    version: ProtocolVersion,
    behaviour: Behaviour,
    timing: MockTiming,
) -> Peer {
    let peer = MockPeer::start(MockConfig {
        protocol: version,
        behaviour,
        port: 0,
        timing,
        auth_token: None,
        ..MockConfig::default()
    })
    .await
    .expect("mock peer starts");
    Peer {
        peer,
        version,
        http: reqwest::Client::new(),
    }
}

pub(crate) fn method(version: ProtocolVersion, op: Operation) -> &'static str {
    version
        .method(op)
        .expect("operation exists in this version")
}

/// A user message in the version's shape.
pub(crate) fn message(version: ProtocolVersion, text: &str) -> Value {
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

pub(crate) fn data_message(version: ProtocolVersion) -> Value {
    let mut m = message(version, "");
    m["parts"] = match version {
        ProtocolVersion::V1_0 => json!([{"data": {"answer": 42}}]),
        ProtocolVersion::V0_3 => json!([{"kind": "data", "data": {"answer": 42}}]),
    };
    m
}

pub(crate) fn follow_up(mut message: Value, task: &Value) -> Value {
    message["taskId"] = task["id"].clone();
    message["contextId"] = task["contextId"].clone();
    message
}

pub(crate) fn state(value: &Value) -> TaskState {
    TaskState::from_wire(&value["status"]["state"])
        .unwrap_or_else(|| panic!("no readable state in {value}"))
}

/// The texts of a task's artifact parts.
pub(crate) fn artifact_texts(task: &Value) -> Vec<String> {
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
    pub(crate) fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let request = self.http.post(self.peer.jsonrpc_url()).json(body);
        match self.version {
            ProtocolVersion::V1_0 => request.header("A2A-Version", "1.0"),
            ProtocolVersion::V0_3 => request,
        }
    }

    pub(crate) fn envelope(&self, op: Operation, params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": method(self.version, op), "params": params})
    }

    /// A JSON-RPC call; the whole response.
    pub(crate) async fn call(&self, op: Operation, params: Value) -> Value {
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

    pub(crate) async fn result(&self, op: Operation, params: Value) -> Value {
        let response = self.call(op, params).await;
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("{op:?} failed: {response}"))
    }

    pub(crate) async fn error_code(&self, op: Operation, params: Value) -> i64 {
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
    pub(crate) async fn send(&self, message: Value, blocking: bool) -> Value {
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

    pub(crate) async fn get(&self, task: &Value) -> Value {
        self.result(Operation::GetTask, json!({"id": task["id"]}))
            .await
    }

    pub(crate) async fn stream(&self, op: Operation, params: Value) -> Sse {
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

    pub(crate) async fn stream_message(&self, message: Value) -> Sse {
        self.stream(Operation::SendStreamingMessage, json!({"message": message}))
            .await
    }
}

/// What a stream event is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ev {
    Task(Value),
    Status(TaskState, Value),
    Artifact(Value),
}

/// A minimal SSE reader over a live response.
pub(crate) struct Sse {
    pub(crate) response: reqwest::Response,
    pub(crate) version: ProtocolVersion,
    pub(crate) jsonrpc: bool,
    pub(crate) buffer: String,
    pub(crate) comments: usize,
}

impl Sse {
    pub(crate) fn new(response: reqwest::Response, version: ProtocolVersion, jsonrpc: bool) -> Sse {
        Sse {
            response,
            version,
            jsonrpc,
            buffer: String::new(),
            comments: 0,
        }
    }

    /// The next data payload, or `None` when the server closed the stream.
    pub(crate) async fn next_raw(&mut self) -> Option<Value> {
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

    pub(crate) async fn next(&mut self) -> Option<Ev> {
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
    pub(crate) async fn rest(&mut self) -> Vec<Ev> {
        let mut events = Vec::new();
        while let Some(e) = self.next().await {
            events.push(e);
        }
        events
    }
}

pub(crate) fn classify(version: ProtocolVersion, payload: Value) -> Ev {
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

pub(crate) fn is_artifact(e: &Ev) -> bool {
    matches!(e, Ev::Artifact(_))
}

impl Peer {
    pub(crate) async fn call_raw(&self, body: Value) -> Value {
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
