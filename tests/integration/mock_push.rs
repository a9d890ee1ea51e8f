//! The mock peer's push notifications over real HTTP: peers that do not
//! declare push refuse all four config methods with -32003; the `push`
//! behaviour keeps configs and POSTs each status change to a webhook (a plain
//! axum collector here, independent of the runner's receiver) with each
//! version's headers and body; `push-silent` never posts; nothing is ever
//! posted off loopback.

use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, TaskState};
use axum::http::HeaderMap;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
/// The bound on any single wait in these tests.
const WAIT: Duration = Duration::from_secs(10);

struct Peer {
    peer: MockPeer,
    version: ProtocolVersion,
    http: reqwest::Client,
}

async fn start(version: ProtocolVersion, behaviour: Behaviour) -> Peer {
    let peer = MockPeer::start(MockConfig {
        protocol: version,
        behaviour,
        port: 0,
        // 600 ms a task: the push config set right after the send lands
        // while it is still working, even on a loaded machine.
        timing: MockTiming {
            chunks: 10,
            chunk_interval: Duration::from_millis(60),
            ..MockTiming::default()
        },
        auth_token: None,
        ..MockConfig::default()
    })
    .await
    .expect("mock peer starts");
    Peer {
        peer,
        version,
        http: reqwest::Client::builder().timeout(WAIT).build().unwrap(),
    }
}

impl Peer {
    async fn call(&self, op: Operation, params: Value) -> Value {
        let method = self.version.method(op).expect("method exists");
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self.http.post(self.peer.jsonrpc_url()).json(&body);
        if self.version == ProtocolVersion::V1_0 {
            request = request.header("A2A-Version", "1.0");
        }
        let response = request.send().await.expect("the peer answers");
        response.json().await.expect("a JSON answer")
    }

    async fn card(&self) -> Value {
        let response = self.http.get(self.peer.card_url()).send().await.unwrap();
        response.json().await.unwrap()
    }

    /// A task still running (non-blocking send).
    async fn task(&self) -> String {
        let message = self.version.message(
            &[a2a_conform_protocol::MessagePart::Text("hello".into())],
            &uuid::Uuid::new_v4().to_string(),
            None,
            None,
        );
        let answer = self
            .call(
                Operation::SendMessage,
                self.version.send_params(message, false),
            )
            .await;
        let task = answer["result"].get("task").unwrap_or(&answer["result"]);
        task["id"].as_str().expect("a task id").to_string()
    }

    /// Params naming a config for get/delete, in the version's shape.
    fn config_ref(&self, task: &str, id: &str) -> Value {
        match self.version {
            ProtocolVersion::V1_0 => json!({"taskId": task, "id": id}),
            ProtocolVersion::V0_3 => json!({"id": task, "pushNotificationConfigId": id}),
        }
    }

    fn task_ref(&self, task: &str) -> Value {
        match self.version {
            ProtocolVersion::V1_0 => json!({"taskId": task}),
            ProtocolVersion::V0_3 => json!({"id": task}),
        }
    }
}

fn code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error: {answer}"))
}

/// One POST the collector got.
#[derive(Debug, Clone)]
struct Post {
    headers: HeaderMap,
    body: Value,
}

/// A webhook on loopback that keeps every POST.
async fn collector() -> (String, Arc<Mutex<Vec<Post>>>) {
    let posts: Arc<Mutex<Vec<Post>>> = Arc::default();
    let kept = posts.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: String| {
            let kept = kept.clone();
            async move {
                let body = serde_json::from_str(&body).unwrap_or(Value::Null);
                kept.lock().unwrap().push(Post { headers, body });
                "ok"
            }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, posts)
}

/// The state a notification body carries, in either version's shape.
fn state_of(body: &Value) -> Option<TaskState> {
    let status = body
        .get("statusUpdate")
        .or_else(|| body.get("task"))
        .unwrap_or(body)
        .get("status")?;
    TaskState::from_wire(status.get("state")?)
}

async fn wait_for(posts: &Arc<Mutex<Vec<Post>>>, done: impl Fn(&[Post]) -> bool) -> Vec<Post> {
    let deadline = Instant::now() + WAIT;
    loop {
        let now = posts.lock().unwrap().clone();
        if done(&now) || Instant::now() > deadline {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn peers_that_do_not_declare_push_refuse_every_config_method_with_32003() {
    for version in VERSIONS {
        for behaviour in [Behaviour::Honest, Behaviour::CancelLeak, Behaviour::Instant] {
            let p = start(version, behaviour).await;
            assert_eq!(p.card().await["capabilities"]["pushNotifications"], false);
            let task = p.task().await;
            let create = version.push_config_params(&task, "http://127.0.0.1:9/hook", None);
            for (op, params) in [
                (Operation::CreatePushConfig, create),
                (Operation::GetPushConfig, p.config_ref(&task, "c1")),
                (Operation::ListPushConfigs, p.task_ref(&task)),
                (Operation::DeletePushConfig, p.config_ref(&task, "c1")),
            ] {
                let answer = p.call(op, params).await;
                assert_eq!(
                    code(&answer),
                    codes::PUSH_NOT_SUPPORTED,
                    "{behaviour} {version} {op:?}"
                );
            }
        }
    }
}

#[tokio::test]
async fn push_configs_round_trip_and_delete_is_idempotent() {
    for version in VERSIONS {
        let p = start(version, Behaviour::PushSilent).await;
        assert_eq!(p.card().await["capabilities"]["pushNotifications"], true);
        let task = p.task().await;
        let params = version.push_config_params(&task, "http://127.0.0.1:9/hook", Some("tok-1"));
        let created = p.call(Operation::CreatePushConfig, params).await;
        let config = match version {
            ProtocolVersion::V1_0 => created["result"].clone(),
            ProtocolVersion::V0_3 => created["result"]["pushNotificationConfig"].clone(),
        };
        assert_eq!(config["url"], "http://127.0.0.1:9/hook", "{created}");
        assert_eq!(config["token"], "tok-1", "{created}");
        let id = config["id"].as_str().expect("a config id").to_string();
        let got = p
            .call(Operation::GetPushConfig, p.config_ref(&task, &id))
            .await;
        assert!(got.get("result").is_some(), "{got}");
        let listed = p.call(Operation::ListPushConfigs, p.task_ref(&task)).await;
        let list = match version {
            ProtocolVersion::V1_0 => listed["result"]["configs"].clone(),
            ProtocolVersion::V0_3 => listed["result"].clone(),
        };
        assert_eq!(list.as_array().map(Vec::len), Some(1), "{listed}");
        for _ in 0..2 {
            let deleted = p
                .call(Operation::DeletePushConfig, p.config_ref(&task, &id))
                .await;
            assert!(deleted.get("error").is_none(), "{deleted}");
        }
        let missing = p
            .call(Operation::GetPushConfig, p.config_ref(&task, &id))
            .await;
        assert_eq!(code(&missing), codes::TASK_NOT_FOUND, "{missing}");
        let unknown = version.push_config_params("no-such-task", "http://127.0.0.1:9/h", None);
        let answer = p.call(Operation::CreatePushConfig, unknown).await;
        assert_eq!(code(&answer), codes::TASK_NOT_FOUND, "{answer}");
    }
}

#[tokio::test]
async fn the_mock_never_posts_off_loopback() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Push).await;
        let task = p.task().await;
        for url in [
            "http://10.0.0.1/hook",
            "https://example.com/hook",
            "ftp://127.0.0.1/x",
        ] {
            let params = version.push_config_params(&task, url, None);
            let answer = p.call(Operation::CreatePushConfig, params).await;
            assert_eq!(code(&answer), codes::INVALID_PARAMS, "{url}: {answer}");
        }
        let p = start(version, Behaviour::PushRefusesLoopback).await;
        let task = p.task().await;
        let params = version.push_config_params(&task, "http://127.0.0.1:9/hook", None);
        let answer = p.call(Operation::CreatePushConfig, params).await;
        assert_eq!(code(&answer), codes::INVALID_PARAMS, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap()
                .contains("SSRF"),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn push_posts_every_status_change_with_each_versions_headers_and_body() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Push).await;
        let (url, posts) = collector().await;
        let task = p.task().await;
        let params = version.push_config_params(&task, &url, Some("tok-42"));
        let answer = p.call(Operation::CreatePushConfig, params).await;
        assert!(answer.get("result").is_some(), "{answer}");
        let got = wait_for(&posts, |all| {
            all.iter()
                .any(|post| state_of(&post.body) == Some(TaskState::Completed))
        })
        .await;
        let states: Vec<Option<TaskState>> = got.iter().map(|post| state_of(&post.body)).collect();
        assert_eq!(
            states.last(),
            Some(&Some(TaskState::Completed)),
            "{version}: {got:#?}"
        );
        for post in &got {
            let header = |name: &str| {
                post.headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            match version {
                ProtocolVersion::V1_0 => {
                    assert_eq!(
                        header("content-type").as_deref(),
                        Some("application/a2a+json")
                    );
                    assert_eq!(header("authorization").as_deref(), Some("Bearer tok-42"));
                    assert!(post.body.get("statusUpdate").is_some(), "{:#}", post.body);
                }
                ProtocolVersion::V0_3 => {
                    assert_eq!(header("content-type").as_deref(), Some("application/json"));
                    assert_eq!(
                        header("x-a2a-notification-token").as_deref(),
                        Some("tok-42")
                    );
                    assert_eq!(post.body["kind"], "task", "{:#}", post.body);
                    assert_eq!(post.body["id"], task.as_str());
                }
            }
        }
        // Nothing more after the terminal state.
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(posts.lock().unwrap().len(), got.len());
    }
}

#[tokio::test]
async fn a_config_set_on_a_finished_task_gets_the_final_task_once() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Push).await;
        let (url, posts) = collector().await;
        let task = p.task().await;
        // Wait (bounded) for the task to finish.
        let deadline = Instant::now() + WAIT;
        loop {
            let got = p.call(Operation::GetTask, version.task_params(&task)).await;
            if TaskState::from_wire(&got["result"]["status"]["state"]) == Some(TaskState::Completed)
            {
                break;
            }
            assert!(Instant::now() < deadline, "the task never completed: {got}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let params = version.push_config_params(&task, &url, None);
        p.call(Operation::CreatePushConfig, params).await;
        let got = wait_for(&posts, |all| !all.is_empty()).await;
        assert_eq!(got.len(), 1, "{got:#?}");
        assert_eq!(state_of(&got[0].body), Some(TaskState::Completed));
        if version == ProtocolVersion::V1_0 {
            assert!(got[0].body.get("task").is_some(), "{:#}", got[0].body);
        }
    }
}

#[tokio::test]
async fn push_silent_accepts_a_config_and_never_posts() {
    for version in VERSIONS {
        let p = start(version, Behaviour::PushSilent).await;
        let (url, posts) = collector().await;
        let task = p.task().await;
        let params = version.push_config_params(&task, &url, Some("tok-1"));
        let answer = p.call(Operation::CreatePushConfig, params).await;
        assert!(answer.get("result").is_some(), "{answer}");
        // The task takes about 600 ms; give it ample time to have posted.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(posts.lock().unwrap().is_empty(), "{version}");
    }
}
