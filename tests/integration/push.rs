//! Push notifications end to end: the built binary hosts its webhook receiver
//! on loopback and real peers POST to it — the mock peer's `push` behaviours,
//! and small hand-written peers for what the mock never does (serving push
//! while not declaring it; delivering the way the Python SDK 1.x does, with
//! only `X-A2A-Notification-Token`). The push token is a secret: it never
//! appears in any report.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use axum::routing::{get, post};
use axum::Json;
use serde_json::{json, Value};
use std::time::Duration;

/// A suite whose only scenario gets notifications, then fails on purpose so
/// the report keeps the run's evidence (passing runs keep none).
const EVIDENCE_SUITE: &str = r#"
vars:
  hook_token: null
scenarios:
  - id: push-evidence
    title: Gets push notifications, then fails on purpose to keep the evidence
    verifies: [capabilities.pushNotifications]
    steps:
      - send: { as: t, blocking: false }
      - set_push_config: { task: t, as: c, token: "${hook_token}" }
      - expect: { of: c, not_state: [unknown], fail: "the config was refused: ${c.code} ${c.message}" }
      - expect_webhook: { within: 5s, state: [completed], as: w }
      - expect: { of: w, state: [canceled], fail: "deliberately failing after ${w.state} to keep the evidence" }
"#;

#[test]
fn the_push_token_never_appears_in_a_report_and_the_evidence_says_whether_it_matched() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("evidence.yaml");
    std::fs::write(&suite, EVIDENCE_SUITE).unwrap();
    let suite = suite.to_str().unwrap();
    let secret = "s3cret-push-token-6f1c2a";
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::Push);
        let var = format!("hook_token={secret}");
        let md = dir.path().join(format!("report-{version}.md"));
        let junit = dir.path().join(format!("report-{version}.xml"));
        let out = check(
            &peer.card_url(),
            &[
                "--suite",
                suite,
                "--no-default-suite",
                "--var",
                &var,
                "--markdown",
                md.to_str().unwrap(),
                "--junit",
                junit.to_str().unwrap(),
                "-v",
            ],
        );
        let context = format!("v{version}: {}", out.explain());
        assert_eq!(out.scenario("push-evidence"), "fail", "{context}");
        let run = out.run("push-evidence");
        assert!(
            run["message"]
                .as_str()
                .unwrap()
                .contains("deliberately failing after completed"),
            "{context}"
        );
        // Nowhere: not in the JSON, the terminal, the Markdown or the JUnit report.
        let json = serde_json::to_string(out.report()).unwrap();
        for (what, text) in [
            ("JSON", json.clone()),
            ("stdout", out.stdout.clone()),
            ("stderr", out.stderr.clone()),
            ("Markdown", std::fs::read_to_string(&md).unwrap()),
            ("JUnit", std::fs::read_to_string(&junit).unwrap()),
        ] {
            assert!(
                !text.contains(secret),
                "v{version}: the token is in the {what} report:\n{text}"
            );
        }
        let evidence = run["evidence"].as_array().expect("evidence");
        let hooks: Vec<&Value> = evidence
            .iter()
            .filter(|e| e["summary"].as_str().unwrap().starts_with("webhook POST #"))
            .collect();
        assert!(!hooks.is_empty(), "no webhook evidence: {context}");
        let last = hooks.last().unwrap();
        let summary = last["summary"].as_str().unwrap();
        assert!(summary.contains("state=completed"), "{summary}");
        let body = last["body"].as_str().unwrap();
        match version {
            ProtocolVersion::V1_0 => {
                assert!(
                    summary.contains("application/a2a+json"),
                    "v1.0 content type: {summary}"
                );
                assert!(
                    summary.contains("Authorization present, matches the token set"),
                    "{summary}"
                );
                assert!(
                    body.contains("authorization: «redacted» (present, matches the token set)"),
                    "{body}"
                );
                assert!(
                    body.contains("\"statusUpdate\""),
                    "a StreamResponse: {body}"
                );
            }
            ProtocolVersion::V0_3 => {
                assert!(
                    summary.contains("X-A2A-Notification-Token present, matches the token set"),
                    "{summary}"
                );
                assert!(
                    body.contains(
                        "x-a2a-notification-token: «redacted» (present, matches the token set)"
                    ),
                    "{body}"
                );
                assert!(body.contains("\"kind\":\"task\""), "the Task: {body}");
            }
        }
        // The token was sent (redacted) in the config request.
        let set = evidence
            .iter()
            .find(|e| {
                e["kind"] == "request"
                    && e["body"].as_str().is_some_and(|b| {
                        b.contains("PushNotificationConfig")
                            || b.contains("pushNotificationConfig/set")
                    })
            })
            .unwrap_or_else(|| panic!("no config request: {context}"));
        assert!(
            set["body"].as_str().unwrap().contains("«redacted»"),
            "{set:#}"
        );
    }
}

#[test]
fn an_inline_push_config_on_send_and_stream_gets_notifications() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("inline.yaml");
    std::fs::write(
        &suite,
        r#"
scenarios:
  - id: inline-send
    title: A push config given with the message
    verifies: [capabilities.pushNotifications]
    steps:
      - send: { as: t, blocking: false, push: true }
      - expect: { of: t, state: [submitted, working], fail: "the send answered ${t.state}${t.code} ${t.message}" }
      - expect_webhook: { within: 5s, state: [completed], as: w }
      - expect: { of: w, state: [completed] }
  - id: inline-stream
    title: A push config given with a streamed message
    verifies: [capabilities.pushNotifications]
    steps:
      - stream: { as: s, push: true }
      - expect_webhook: { within: 5s, state: [completed] }
"#,
    )
    .unwrap();
    let suite = suite.to_str().unwrap();
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::Push);
        let out = check(&peer.card_url(), &["--suite", suite, "--no-default-suite"]);
        let context = format!("v{version}: {}", out.explain());
        assert_eq!(out.scenario("inline-send"), "pass", "{context}");
        assert_eq!(out.scenario("inline-stream"), "pass", "{context}");
        // A peer that does not declare push refuses the inline config.
        let honest = start_peer(version, Behaviour::Honest);
        let out = check(
            &honest.card_url(),
            &[
                "--suite",
                suite,
                "--no-default-suite",
                "--scenario",
                "inline-send",
            ],
        );
        let message = out.run("inline-send")["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(out.scenario("inline-send"), "fail", "{}", out.explain());
        assert!(message.contains("-32003"), "{message}");
    }
}

#[test]
fn push_is_honoured_over_the_rest_binding_too() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Push);
    let out = check(
        &peer.card_url(),
        &["--binding", "rest", "--scenario", "push-delivers"],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.report()["peers"][0]["binding"], "rest");
    assert_eq!(
        out.declaration("capabilities.pushNotifications"),
        "honoured"
    );
}

#[test]
fn a_refused_loopback_webhook_is_inconclusive_and_names_ssrf() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::PushRefusesLoopback);
        let out = check(&peer.card_url(), &["--scenario", "push-delivers"]);
        let context = format!("v{version}: {}", out.explain());
        assert_eq!(out.scenario("push-delivers"), "inconclusive", "{context}");
        let message = out.run("push-delivers")["message"].as_str().unwrap();
        assert!(message.contains("-32602"), "{message}");
        assert!(message.contains("SSRF"), "{message}");
        assert!(message.contains("loopback"), "{message}");
        assert_eq!(
            out.declaration("capabilities.pushNotifications"),
            "unverified",
            "{context}"
        );
        // Nothing verified at all: exit 4, never a pass.
        assert_eq!(out.code, 4, "{context}");
    }
}

#[test]
fn a_peer_that_accepts_push_configs_but_never_delivers_diverges() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::PushSilent);
    let started = std::time::Instant::now();
    let out = check(
        &peer.card_url(),
        &["--scenario", "push-delivers", "--var", "task_window=2s"],
    );
    assert_eq!(out.code, 1, "{}", out.explain());
    let message = out.run("push-delivers")["message"].as_str().unwrap();
    assert!(
        message.contains("no push notification with state completed"),
        "{message}"
    );
    assert!(message.contains("within 2.00 s"), "{message}");
    // The wait is the window, not more.
    assert!(started.elapsed() < Duration::from_secs(30));
}

/// How a hand-written v1.0 peer handles push.
#[derive(Clone, Copy)]
enum Hand {
    /// Declares no push, yet accepts configs (and delivers nothing).
    ServesUndeclared,
    /// Declares push and delivers like the Python SDK 1.x: `application/json`,
    /// `X-A2A-Notification-Token`, no `Authorization`.
    TokenHeaderOnly,
}

/// A v1.0 JSON-RPC peer on loopback: SendMessage answers a working task,
/// CreateTaskPushNotificationConfig accepts the config and (for
/// `TokenHeaderOnly`) POSTs one completed status update to its URL.
fn hand_peer(hand: Hand) -> Served {
    serve_at(|base| {
        let card = json!({
            "name": "hand-written push peer", "description": "test", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": false, "pushNotifications": matches!(hand, Hand::TokenHeaderOnly)},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "s", "tags": []}]
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(move || {
                    let card = card.clone();
                    async move { Json(card) }
                }),
            )
            .route(
                "/rpc",
                post(move |Json(request): Json<Value>| async move {
                    let id = request["id"].clone();
                    let params = &request["params"];
                    let task = |state: &str| json!({"id": "task-1", "contextId": "ctx-1", "status": {"state": state}});
                    let result = match request["method"].as_str().unwrap_or("") {
                        "SendMessage" => json!({"task": task("TASK_STATE_WORKING")}),
                        // Still working when read right after the config: it finishes with
                        // the notification, 100 ms later.
                        "GetTask" => task("TASK_STATE_WORKING"),
                        "CreateTaskPushNotificationConfig" => {
                            if let Hand::TokenHeaderOnly = hand {
                                let url = params["url"].as_str().unwrap_or("").to_string();
                                let token = params["token"].as_str().unwrap_or("").to_string();
                                tokio::spawn(async move {
                                    tokio::time::sleep(Duration::from_millis(100)).await;
                                    let body = json!({"statusUpdate": {"taskId": "task-1", "contextId": "ctx-1",
                                        "status": {"state": "TASK_STATE_COMPLETED"}}});
                                    let _ = reqwest::Client::new()
                                        .post(url)
                                        .timeout(Duration::from_secs(10))
                                        .header("Content-Type", "application/json")
                                        .header("X-A2A-Notification-Token", token)
                                        .body(body.to_string())
                                        .send()
                                        .await;
                                });
                            }
                            let mut config = params.clone();
                            config["id"] = json!("cfg-1");
                            config
                        }
                        _ => {
                            return Json(json!({"jsonrpc": "2.0", "id": id,
                                "error": {"code": -32601, "message": "not here"}}))
                        }
                    };
                    Json(json!({"jsonrpc": "2.0", "id": id, "result": result}))
                }),
            )
    })
}

#[test]
fn a_peer_serving_push_it_does_not_declare_over_delivers() {
    let peer = hand_peer(Hand::ServesUndeclared);
    let out = check(
        &peer.base_url,
        &["--scenario", "push-refused-when-undeclared"],
    );
    assert_eq!(
        out.scenario("push-refused-when-undeclared"),
        "fail",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration("capabilities.pushNotifications"),
        "over-delivers",
        "{}",
        out.explain()
    );
}

#[test]
fn a_v1_0_notification_without_authorization_diverges() {
    let peer = hand_peer(Hand::TokenHeaderOnly);
    let out = check(&peer.base_url, &["--scenario", "push-delivers"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    let message = out.run("push-delivers")["message"].as_str().unwrap();
    assert!(message.contains("no Authorization header"), "{message}");
    assert!(message.contains("v1.0.1 removed"), "{message}");
    assert_eq!(
        out.declaration("capabilities.pushNotifications"),
        "diverged"
    );
    // The token the peer echoed is redacted like every secret.
    let json = serde_json::to_string(out.report()).unwrap();
    assert!(!json.contains("a2a-conform-push-token"), "{json}");
}

#[test]
fn the_default_suites_push_token_is_masked_in_the_cassette_and_in_config_show() {
    let secret = "PUSHSEKRET77-b9e1";
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Push);
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("push.cassette");
    let var = format!("push_token={secret}");
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "push-delivers",
            "--var",
            &var,
            "--record",
            cassette.to_str().unwrap(),
        ],
    );
    assert_eq!(out.scenario("push-delivers"), "pass", "{}", out.explain());
    let recorded = std::fs::read_to_string(&cassette).expect("the cassette");
    assert!(recorded.contains("push_token"), "the variable is recorded");
    assert!(!recorded.contains(secret), "the push token in the cassette");
    let json = serde_json::to_string(out.report()).unwrap();
    assert!(!json.contains(secret) && !out.stdout.contains(secret));
    // config show names the variable, never its value.
    let shown = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["--no-config", "config", "show"])
        .env("A2A_CONFORM_VAR", &var)
        .output()
        .expect("config show runs");
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("push_token=(redacted)"), "{shown}");
    assert!(!shown.contains(secret), "{shown}");
}
