//! `send` against hostile peers: a peer that echoes the bearer token in an
//! error message (redacted by value on stdout, stderr and `--json`), a peer
//! whose reads answer another task or another context (a violation, never
//! the result; paired with the same peer answering its own task), and a
//! peer that refuses a declared JSON resume and then malfunctions (the
//! demotion is still a violation: exit 1, listed).

use super::harness::{respond, rpc_result, Call, HostilePeer};
use serde_json::{json, Value};
use std::net::TcpStream;

const TOKEN: &str = "send-echoed-token-5b1e77";
const TOKEN_VAR: &str = "A2A_SEND_HOSTILE_TOKEN";

/// Runs `send` on `peer` with the token configured and `--json`; answers
/// the outcome and the JSON written.
fn send(peer: &HostilePeer, extra: &[&str]) -> (crate::common::Outcome, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("send.json");
    let card = format!("{}/.well-known/agent-card.json", peer.base);
    let mut args = vec![
        "send",
        &card,
        "--bearer-env",
        TOKEN_VAR,
        "--json",
        json.to_str().expect("utf-8 path"),
    ];
    args.extend_from_slice(extra);
    let out = crate::common::run_env(&args, &[(TOKEN_VAR, TOKEN)]);
    let written = std::fs::read_to_string(&json).unwrap_or_default();
    (out, written)
}

fn rpc_error(call: &Call, code: i64, message: &str) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": call.id, "error": {"code": code, "message": message}})
        .to_string()
        .into_bytes()
}

fn answer(stream: &mut TcpStream, body: Vec<u8>) {
    respond(stream, 200, "application/json", &body);
}

/// A v1.0 task, as GetTask answers it.
fn task(id: &str, context: &str, state: &str, artifacts: Value) -> Value {
    json!({"id": id, "contextId": context, "status": {"state": state}, "artifacts": artifacts})
}

/// A v1.0 task, as SendMessage answers it.
fn sent(id: &str, context: &str, state: &str) -> Value {
    json!({"task": task(id, context, state, json!([]))})
}

/// The bearer the request carried, as a peer echoing it would read it.
fn bearer(call: &Call) -> String {
    call.head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("authorization")
                .then(|| v.trim().trim_start_matches("Bearer ").to_string())
        })
        .unwrap_or_default()
}

#[test]
fn a_token_the_peer_echoes_in_an_error_is_redacted_everywhere_send_prints() {
    let peer = HostilePeer::start(json!({"capabilities": {"streaming": false}}), |call, s| {
        let message = format!("bad token {} (Bearer {})", bearer(call), bearer(call));
        answer(s, rpc_error(call, -32603, &message));
    });
    let (out, written) = send(&peer, &["--text", "hello"]);
    assert_eq!(out.code, 3, "{}{}", out.stdout, out.stderr);
    assert!(
        peer.calls().iter().any(|c| bearer(c) == TOKEN),
        "the token was sent"
    );
    assert!(
        out.stderr.contains("bad token «redacted»"),
        "{}",
        out.stderr
    );
    assert!(written.contains("bad token «redacted»"), "{written}");
    for (name, text) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("--json", &written),
    ] {
        assert!(
            !text.contains(TOKEN),
            "the token leaked into {name}:\n{text}"
        );
    }
}

/// A peer whose send opens t-1 in c-1 and whose every read answers `read`.
fn reads_answering(read: Value) -> HostilePeer {
    HostilePeer::start(
        json!({"capabilities": {"streaming": false}}),
        move |call, s| {
            let result = match call.rpc.as_str() {
                "SendMessage" => sent("t-1", "c-1", "TASK_STATE_WORKING"),
                _ => read.clone(),
            };
            answer(s, rpc_result(call, result));
        },
    )
}

fn artifact(text: &str) -> Value {
    json!([{"artifactId": "a-1", "parts": [{"text": text}]}])
}

#[test]
fn a_read_answering_another_task_is_a_violation_never_the_result() {
    let honest = reads_answering(task("t-1", "c-1", "TASK_STATE_COMPLETED", artifact("mine")));
    let (out, _) = send(&honest, &["--text", "hello"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("outcome: completed"), "{}", out.stdout);

    let other_task = reads_answering(task(
        "t-other",
        "c-1",
        "TASK_STATE_COMPLETED",
        artifact("theirs"),
    ));
    let (out, written) = send(&other_task, &["--text", "hello"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("demoted: lifecycle.completion — GetTask of task t-1 answered task t-other"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("outcome: no outcome to trust"),
        "{}",
        out.stdout
    );
    let json: Value = serde_json::from_str(&written).expect("--json");
    assert_eq!(json["outcome"], "no outcome to trust", "{written}");
    assert_eq!(json["violations"][0]["task"], "t-1", "{written}");

    let other_context = reads_answering(task(
        "t-1",
        "c-2",
        "TASK_STATE_COMPLETED",
        artifact("theirs"),
    ));
    let (out, _) = send(&other_context, &["--text", "hello"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("answered context c-2, where the task was answered in context c-1"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("outcome: completed"), "{}", out.stdout);
}

#[test]
fn a_demotion_before_a_malfunction_is_a_violation_and_listed() {
    // Declares JSON input, refuses the JSON resume (-32602), then fails the
    // text fallback with an internal error: the demotion stands.
    let card = json!({
        "capabilities": {"streaming": false},
        "defaultInputModes": ["text/plain", "application/json"],
    });
    let peer = HostilePeer::start(card, |call, s| {
        let follow_up = call.body.contains("\"taskId\"");
        let body = match call.rpc.as_str() {
            "SendMessage" if !follow_up => {
                rpc_result(call, sent("t-1", "c-1", "TASK_STATE_INPUT_REQUIRED"))
            }
            "SendMessage" if call.body.contains("\"data\":") => {
                rpc_error(call, -32602, "json parts are not accepted")
            }
            "SendMessage" => rpc_error(call, -32603, "internal error"),
            _ => rpc_result(
                call,
                task("t-1", "c-1", "TASK_STATE_INPUT_REQUIRED", json!([])),
            ),
        };
        answer(s, body);
    });
    let (out, written) = send(&peer, &["--text", "hello", "--resume-data", r#"{"n": 1}"#]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("demoted: defaultInputModes[application/json]"),
        "{}",
        out.stdout
    );
    let json: Value = serde_json::from_str(&written).expect("--json");
    let violations = json["violations"].as_array().expect("violations");
    assert_eq!(violations.len(), 1, "{written}");
    assert_eq!(
        violations[0]["declaration"], "defaultInputModes[application/json]",
        "{written}"
    );
}
