//! The A2A 1.1 draft over the real wire (127.0.0.1, reqwest): generations on
//! tasks and update events, the GetTask long-poll, `ifGenerationMatch` on
//! JSON-RPC and HTTP+JSON, the timeline, nothing of it without the switch,
//! and the flaw each generation behaviour shows. Timing bounds are lower
//! bounds, or generous upper ones: CI runs on two loaded cores.

use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming, DRAFT_HOLD_CAP};
use a2a_conform_protocol::{Operation, ProtocolVersion};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const V1: ProtocolVersion = ProtocolVersion::V1_0;

/// A v1.0 peer, the draft switched on or not, paced fast.
async fn start(behaviour: Behaviour, draft_1_1: bool) -> MockPeer {
    MockPeer::start(MockConfig {
        behaviour,
        draft_1_1,
        timing: MockTiming {
            chunks: 3,
            chunk_interval: Duration::from_millis(30),
            keepalive_interval: Duration::from_millis(50),
            silence: Duration::from_millis(600),
        },
        ..MockConfig::default()
    })
    .await
    .expect("the mock peer starts")
}

fn method(op: Operation) -> &'static str {
    V1.method(op).expect("a v1.0 method")
}

fn message(text: &str) -> Value {
    json!({
        "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "ROLE_USER",
        "parts": [{"text": text}],
    })
}

/// A follow-up message on `task`.
fn follow_up(task: &Value, text: &str) -> Value {
    let mut m = message(text);
    m["taskId"] = task["id"].clone();
    m["contextId"] = task["contextId"].clone();
    m
}

/// A JSON-RPC call; the whole response (`result` or `error`).
async fn rpc(peer: &MockPeer, op: Operation, params: Value) -> Value {
    reqwest::Client::new()
        .post(peer.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method(op), "params": params}))
        .send()
        .await
        .expect("the request is answered")
        .json()
        .await
        .expect("a JSON-RPC response")
}

/// A blocking SendMessage; the task it answers.
async fn send(peer: &MockPeer, message: Value) -> Value {
    let response = rpc(peer, Operation::SendMessage, json!({ "message": message })).await;
    response["result"]["task"].clone()
}

async fn get_task(peer: &MockPeer, id: &Value, current: Option<Value>) -> Value {
    let mut params = json!({ "id": id });
    if let Some(current) = current {
        params["currentGeneration"] = current;
    }
    rpc(peer, Operation::GetTask, params).await
}

/// Every `data:` payload of a JSON-RPC stream (each frame's `result`) until
/// the peer closes it.
async fn stream(peer: &MockPeer, message: Value) -> Vec<Value> {
    let mut response = reqwest::Client::new()
        .post(peer.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1,
            "method": method(Operation::SendStreamingMessage),
            "params": {"message": message},
        }))
        .send()
        .await
        .expect("the stream is answered");
    let mut text = String::new();
    let read = async {
        while let Some(chunk) = response.chunk().await.expect("the stream reads") {
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    };
    tokio::time::timeout(Duration::from_secs(15), read)
        .await
        .expect("the stream closes");
    text.split("\n\n")
        .filter_map(|frame| frame.trim().strip_prefix("data:"))
        .map(|data| {
            let frame: Value = serde_json::from_str(data.trim()).expect("a JSON frame");
            frame["result"].clone()
        })
        .collect()
}

/// A generation as the draft writes it (ProtoJSON int64: decimal text).
fn generation(value: &Value) -> u64 {
    value["generation"]
        .as_str()
        .unwrap_or_else(|| panic!("no string generation in {value}"))
        .parse()
        .unwrap_or_else(|e| panic!("generation of {value}: {e}"))
}

/// The generation of each event of a stream: the task snapshot's first,
/// then each update's.
fn generations(events: &[Value]) -> Vec<u64> {
    events
        .iter()
        .map(|e| {
            let body = ["task", "statusUpdate", "artifactUpdate"]
                .iter()
                .find_map(|k| e.get(*k))
                .unwrap_or_else(|| panic!("an unknown event {e}"));
            generation(body)
        })
        .collect()
}

fn last_state(events: &[Value]) -> String {
    events
        .iter()
        .rev()
        .find_map(|e| e["statusUpdate"]["status"]["state"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn a_blocking_send_answers_its_generation_as_text_with_a_timeline() {
    let peer = start(Behaviour::Honest, true).await;
    assert!(peer.serves_draft());
    let task = send(&peer, message("hello")).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert!(generation(&task) >= 1, "{task}");
    let timeline = task["timeline"].as_array().expect("a timeline");
    assert!(timeline.len() <= 3, "kept small: {timeline:?}");
    assert_eq!(timeline[0]["generation"], "1");
    assert_eq!(timeline[0]["message"]["parts"][0]["text"], "hello");
    assert!(timeline
        .iter()
        .any(|e| e.get("x-a2a-conform-future-kind").is_some()));
    let card: Value = reqwest::get(peer.card_url())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(card["description"].as_str().unwrap().contains("1.1 draft"));
    for interface in card["supportedInterfaces"].as_array().unwrap() {
        assert_eq!(interface["protocolVersion"], "1.0", "{interface}");
    }
}

#[tokio::test]
async fn stream_events_advance_by_one_and_get_task_agrees_on_both_bindings() {
    let peer = start(Behaviour::Honest, true).await;
    let events = stream(&peer, message("hello")).await;
    assert_eq!(last_state(&events), "TASK_STATE_COMPLETED", "{events:?}");
    let seen = generations(&events);
    assert!(
        seen.len() >= 4,
        "a snapshot, working, chunks, completed: {seen:?}"
    );
    for pair in seen.windows(2) {
        assert_eq!(pair[1], pair[0] + 1, "not one apart: {seen:?}");
    }
    let id = &events[0]["task"]["id"];
    let last = *seen.last().unwrap();
    let got = get_task(&peer, id, None).await;
    assert_eq!(generation(&got["result"]), last, "{got}");
    let url = format!(
        "{}/tasks/{}",
        peer.rest_url().unwrap(),
        id.as_str().unwrap()
    );
    let rest: Value = reqwest::Client::new()
        .get(url)
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(generation(&rest), last, "{rest}");
    let listed = rpc(&peer, Operation::ListTasks, json!({})).await;
    assert_eq!(generation(&listed["result"]["tasks"][0]), last, "{listed}");
}

#[tokio::test]
async fn a_stale_long_poll_answers_at_once_and_a_current_one_waits_for_the_cap() {
    let peer = start(Behaviour::Honest, true).await;
    let task = send(&peer, message("hello")).await;
    let now = generation(&task);
    let started = Instant::now();
    let stale = get_task(&peer, &task["id"], Some(json!(now - 1))).await;
    assert_eq!(generation(&stale["result"]), now, "{stale}");
    assert!(
        started.elapsed() < DRAFT_HOLD_CAP,
        "a stale poll is answered at once, took {:?}",
        started.elapsed()
    );
    // Completed: nothing will advance it, so the poll is held for the cap.
    let started = Instant::now();
    let held = get_task(&peer, &task["id"], Some(json!(now.to_string()))).await;
    assert!(
        started.elapsed() >= DRAFT_HOLD_CAP,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(generation(&held["result"]), now, "{held}");
}

#[tokio::test]
async fn a_long_poll_on_running_work_returns_once_the_task_advances() {
    let peer = start(Behaviour::Honest, true).await;
    let params = json!({"message": message("hello"), "configuration": {"returnImmediately": true}});
    let sent = rpc(&peer, Operation::SendMessage, params).await;
    let task = &sent["result"]["task"];
    let at = generation(task);
    let got = get_task(&peer, &task["id"], Some(json!(at))).await;
    assert!(generation(&got["result"]) > at, "{got}");
}

#[tokio::test]
async fn a_non_numeric_generation_is_invalid_params_on_both_bindings() {
    let peer = start(Behaviour::Honest, true).await;
    let task = send(&peer, message("need-input")).await;
    let got = get_task(&peer, &task["id"], Some(json!("soon"))).await;
    assert_eq!(got["error"]["code"], -32602, "{got}");
    let url = format!(
        "{}/tasks/{}?currentGeneration=soon",
        peer.rest_url().unwrap(),
        task["id"].as_str().unwrap()
    );
    let rest = reqwest::Client::new()
        .get(url)
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 400);
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": {"n": 1}},
    });
    let sent = rpc(&peer, Operation::SendMessage, params).await;
    assert_eq!(sent["error"]["code"], -32602, "{sent}");
}

#[tokio::test]
async fn if_generation_match_refuses_a_mismatch_and_takes_a_match() {
    let peer = start(Behaviour::Honest, true).await;
    let task = send(&peer, message("need-input")).await;
    assert_eq!(
        task["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{task}"
    );
    let now = generation(&task);
    let wrong = now + 2;
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": wrong},
    });
    let refused = rpc(&peer, Operation::SendMessage, params).await;
    assert_eq!(refused["error"]["code"], -32010, "{refused}");
    let info = &refused["error"]["data"][0];
    assert_eq!(info["reason"], "TASK_GENERATION_MISMATCH", "{refused}");
    assert_eq!(info["metadata"]["currentGeneration"], now.to_string());
    assert_eq!(info["metadata"]["expectedGeneration"], wrong.to_string());
    let rest = reqwest::Client::new()
        .post(format!("{}/message:send", peer.rest_url().unwrap()))
        .header("A2A-Version", "1.0")
        .json(&json!({
            "message": follow_up(&task, "more"),
            "configuration": {"ifGenerationMatch": wrong.to_string()},
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(rest.status(), 409);
    let body: Value = rest.json().await.unwrap();
    assert_eq!(body["error"]["status"], "ABORTED", "{body}");
    assert_eq!(
        body["error"]["details"][0]["reason"],
        "TASK_GENERATION_MISMATCH"
    );
    assert_eq!(
        body["error"]["details"][0]["metadata"]["taskId"],
        task["id"]
    );
    // Refused messages changed nothing: the generation named still matches.
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": now.to_string()},
    });
    let taken = rpc(&peer, Operation::SendMessage, params).await;
    let resumed = &taken["result"]["task"];
    assert_eq!(
        resumed["status"]["state"], "TASK_STATE_COMPLETED",
        "{taken}"
    );
    assert!(generation(resumed) > now, "{taken}");
    // A message creating a task ignores the field.
    let params = json!({"message": message("hello"), "configuration": {"ifGenerationMatch": 999}});
    let created = rpc(&peer, Operation::SendMessage, params).await;
    assert_eq!(
        created["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{created}"
    );
}

#[tokio::test]
async fn without_the_switch_nothing_of_the_draft_is_served() {
    let peer = start(Behaviour::Honest, false).await;
    assert!(!peer.serves_draft());
    let mut seen = Vec::new();
    let task = send(&peer, message("need-input")).await;
    seen.push(task.clone());
    // Both fields are ignored: no refusal, no hold, no error for bad text.
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": "not a number"},
    });
    let taken = rpc(&peer, Operation::SendMessage, params).await;
    assert_eq!(
        taken["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{taken}"
    );
    seen.push(taken);
    let started = Instant::now();
    seen.push(get_task(&peer, &task["id"], Some(json!(1_000))).await);
    seen.push(get_task(&peer, &task["id"], Some(json!("soon"))).await);
    assert!(
        started.elapsed() < DRAFT_HOLD_CAP,
        "{:?}",
        started.elapsed()
    );
    seen.extend(stream(&peer, message("hello")).await);
    seen.push(rpc(&peer, Operation::ListTasks, json!({})).await);
    let card: Value = reqwest::get(peer.card_url())
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    seen.push(card);
    for value in &seen {
        let text = value.to_string();
        assert!(
            !text.contains("generation") && !text.contains("timeline"),
            "{text}"
        );
    }
}

#[tokio::test]
async fn the_draft_over_v0_3_is_refused_and_a_generation_behaviour_there_is_plain() {
    let refused = MockPeer::start(MockConfig {
        protocol: ProtocolVersion::V0_3,
        draft_1_1: true,
        ..MockConfig::default()
    })
    .await;
    let error = refused.err().expect("refused");
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
    assert!(error.to_string().contains("1.0"), "{error}");
    let plain = MockPeer::start(MockConfig {
        protocol: ProtocolVersion::V0_3,
        behaviour: Behaviour::GenerationSkips,
        ..MockConfig::default()
    })
    .await
    .expect("starts");
    assert!(!plain.serves_draft());
}

#[tokio::test]
async fn generation_skips_advances_two_per_artifact_update_and_agrees_with_get_task() {
    // No switch: the behaviour serves the draft by itself.
    let peer = start(Behaviour::GenerationSkips, false).await;
    assert!(peer.serves_draft());
    let events = stream(&peer, message("hello")).await;
    let seen = generations(&events);
    let gaps: Vec<u64> = seen.windows(2).map(|p| p[1] - p[0]).collect();
    for (event, gap) in events.iter().skip(1).zip(&gaps) {
        let expected = if event.get("artifactUpdate").is_some() {
            2
        } else {
            1
        };
        assert_eq!(*gap, expected, "{seen:?} at {event}");
    }
    assert!(gaps.contains(&2), "{seen:?}");
    let got = get_task(&peer, &events[0]["task"]["id"], None).await;
    assert_eq!(generation(&got["result"]), *seen.last().unwrap(), "{got}");
}

#[tokio::test]
async fn generation_repeats_gives_the_status_after_an_artifact_its_generation() {
    let peer = start(Behaviour::GenerationRepeats, false).await;
    let events = stream(&peer, message("hello")).await;
    assert_eq!(last_state(&events), "TASK_STATE_COMPLETED", "{events:?}");
    let seen = generations(&events);
    let repeated = events.windows(2).zip(seen.windows(2)).any(|(e, g)| {
        e[0].get("artifactUpdate").is_some() && e[1].get("statusUpdate").is_some() && g[0] == g[1]
    });
    assert!(
        repeated,
        "no artifact then status with one generation: {seen:?}"
    );
    assert!(seen.windows(2).all(|g| g[1] >= g[0]), "{seen:?}");
}

#[tokio::test]
async fn generation_held_holds_a_stale_poll_for_the_cap() {
    let peer = start(Behaviour::GenerationHeld, false).await;
    let task = send(&peer, message("hello")).await;
    let now = generation(&task);
    let started = Instant::now();
    let held = get_task(&peer, &task["id"], Some(json!(now - 1))).await;
    assert!(
        started.elapsed() >= DRAFT_HOLD_CAP,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(generation(&held["result"]), now, "{held}");
    // A poll without currentGeneration is answered at once, as honest.
    let started = Instant::now();
    let plain = get_task(&peer, &task["id"], None).await;
    assert!(
        started.elapsed() < DRAFT_HOLD_CAP,
        "{:?}",
        started.elapsed()
    );
    assert_eq!(generation(&plain["result"]), now);
}

#[tokio::test]
async fn generation_match_ignored_takes_a_mismatch_but_still_refuses_a_bad_value() {
    let peer = start(Behaviour::GenerationMatchIgnored, false).await;
    let task = send(&peer, message("need-input")).await;
    let now = generation(&task);
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": now + 5},
    });
    let taken = rpc(&peer, Operation::SendMessage, params).await;
    assert!(taken.get("error").is_none(), "{taken}");
    assert!(generation(&taken["result"]["task"]) > now, "{taken}");
    let params = json!({
        "message": follow_up(&task, "more"),
        "configuration": {"ifGenerationMatch": "five"},
    });
    let bad = rpc(&peer, Operation::SendMessage, params).await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

/// A gRPC request with the v1.0 version metadata.
fn versioned<T>(message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        "a2a-version",
        tonic::metadata::MetadataValue::from_static("1.0"),
    );
    request
}

#[tokio::test]
async fn grpc_stays_plain_1_0_under_the_draft() {
    use a2a_pb::proto;
    let peer = MockPeer::start(MockConfig {
        draft_1_1: true,
        grpc: true,
        ..MockConfig::default()
    })
    .await
    .expect("the mock peer starts");
    let addr = peer.grpc_addr().expect("gRPC served");
    let mut client = proto::a2a_service_client::A2aServiceClient::connect(format!("http://{addr}"))
        .await
        .expect("gRPC connects");
    let sent = client
        .send_message(versioned(proto::SendMessageRequest {
            message: Some(proto::Message {
                message_id: uuid::Uuid::new_v4().to_string(),
                role: proto::Role::User as i32,
                parts: vec![proto::Part {
                    content: Some(proto::part::Content::Text("hello".into())),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }))
        .await
        .expect("a send is answered over gRPC under the draft");
    let Some(proto::send_message_response::Payload::Task(task)) = sent.into_inner().payload else {
        panic!("no task in the answer");
    };
    let got = client
        .get_task(versioned(proto::GetTaskRequest {
            id: task.id.clone(),
            ..Default::default()
        }))
        .await
        .expect("GetTask is answered over gRPC under the draft");
    assert_eq!(got.into_inner().id, task.id);
}
