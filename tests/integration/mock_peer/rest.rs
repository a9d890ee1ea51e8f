//! The HTTP+JSON binding (v1.0).

use super::support::*;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{ProtocolVersion, TaskState};
use serde_json::{json, Value};

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

/// v0.3: the `/v1` routes under `/a2a/rest`, in the 0.3 proto's JSON.
#[tokio::test]
async fn v0_3_rest_binding_speaks_the_0_3_proto_json() {
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let base = p.peer.rest_url().expect("REST served for 0.3");
    let http = &p.http;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER",
        "content": [{"text": "hi"}]}, "configuration": {"blocking": true}});
    let response = within(
        WAIT,
        "send",
        http.post(format!("{base}/v1/message:send"))
            .json(&body)
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let answer: Value = response.json().await.unwrap();
    let task = &answer["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{answer}");
    assert!(task.get("kind").is_none(), "{answer}");
    assert_eq!(task["history"][0]["role"], "ROLE_USER", "{answer}");
    assert_eq!(task["history"][0]["content"][0], json!({"text": "hi"}));
    assert!(
        task["artifacts"][0]["parts"][0]["text"].is_string(),
        "{answer}"
    );

    let id = task["id"].as_str().unwrap();
    let got: Value = http
        .get(format!("{base}/v1/tasks/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], id, "a bare Task: {got}");
    // A terminal task is not cancelable: a google.rpc.Status with its reason.
    let refused = http
        .post(format!("{base}/v1/tasks/{id}:cancel"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 400);
    let error: Value = refused.json().await.unwrap();
    assert_eq!(
        error["error"]["details"][0]["reason"],
        "TASK_NOT_CANCELABLE"
    );
    // 1.0's paths are not 0.3's, and 0.3 has no ListTasks.
    for path in ["/message:send", "/v1/tasks"] {
        let status = http
            .post(format!("{base}{path}"))
            .json(&body)
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 404, "{path}");
    }
}
