//! The honest lifecycle: sends, streams, subscribers, cancel, input-required, errors.

use super::support::*;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, TaskState};
use serde_json::{json, Value};

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
