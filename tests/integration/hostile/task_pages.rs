//! Hostile answers to the `protocol.*` task-basics calls: a ListTasks page
//! of tens of thousands of tasks, a `nextPageToken` that points at itself,
//! tasks of the wrong shape, and GetTask histories of a million entries.
//! A malfunction (wrong shapes, an answer past the body cap) makes the run
//! an `error` naming it; a valid answer that breaks the card (a page that
//! ignores `pageSize`, a history past `historyLength`) diverges; memory and
//! time stay bounded either way.

use super::harness::*;
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// SendMessage answers a completed task (`t-1` in `c-1`); `list` answers
/// ListTasks, `get` GetTask; anything else is a 500.
fn peer(
    list: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static,
    get: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static,
) -> HostilePeer {
    HostilePeer::start(json!({}), move |call, stream| match call.rpc.as_str() {
        "SendMessage" => {
            let body = rpc_result(call, task("TASK_STATE_COMPLETED"));
            respond(stream, 200, "application/json", &body);
        }
        "ListTasks" => list(call, stream),
        "GetTask" => get(call, stream),
        _ => respond(stream, 500, "text/html", b"<html>no</html>"),
    })
}

fn nothing(_: &Call, stream: &mut TcpStream) {
    respond(stream, 500, "text/html", b"<html>no</html>")
}

fn run(peer: &HostilePeer, scenarios: &[&str]) -> Checked {
    let mut args: Vec<&str> = FAST.to_vec();
    for id in scenarios {
        args.extend(["--scenario", id]);
    }
    check(&[&peer.base], &args)
}

/// A task of the listing: `t-<n>` in `c-1`.
fn listed(n: usize) -> Value {
    json!({"id": format!("t-{n}"), "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}})
}

#[test]
fn a_page_of_tens_of_thousands_of_tasks_ignoring_page_size_diverges_within_bounds() {
    let peer = peer(
        |call, stream| {
            let tasks: Vec<Value> = (0..45_000).map(listed).collect();
            let body = rpc_result(call, json!({"tasks": tasks, "nextPageToken": ""}));
            respond(stream, 200, "application/json", &body)
        },
        nothing,
    );
    let out = run(&peer, &["list-tasks-page-size"]);
    let message = out.assert_run("list-tasks-page-size", "fail", None);
    assert!(message.contains("ignored pageSize 1"), "{message}");
    assert_eq!(out.row("protocol.listTasks"), "diverged");
    assert_eq!(out.code, 1, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    assert!(
        out.json_text.len() < 2 * 1024 * 1024,
        "the report holds the page: {} bytes",
        out.json_text.len()
    );
}

#[test]
fn a_next_page_token_that_loops_is_not_followed_forever() {
    let lists = Arc::new(AtomicUsize::new(0));
    let counted = lists.clone();
    let peer = peer(
        move |call, stream| {
            counted.fetch_add(1, Ordering::SeqCst);
            let body = rpc_result(
                call,
                json!({"tasks": [listed(1)], "nextPageToken": "same-page-again", "pageSize": 1}),
            );
            respond(stream, 200, "application/json", &body)
        },
        nothing,
    );
    let out = run(
        &peer,
        &["list-tasks-lists-new-task", "list-tasks-page-size"],
    );
    out.assert_run("list-tasks-lists-new-task", "pass", None);
    out.assert_run("list-tasks-page-size", "pass", None);
    assert!(
        lists.load(Ordering::SeqCst) <= 4,
        "{} ListTasks calls",
        lists.load(Ordering::SeqCst)
    );
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn tasks_of_the_wrong_shape_are_a_malfunction_not_a_divergence() {
    for tasks in [
        json!([1, "t-1", null]),
        json!([{"id": 1}, {"contextId": "c-1"}]),
        json!({"t-1": {}}),
    ] {
        let shape = tasks.clone();
        let peer = peer(
            move |call, stream| {
                let body = rpc_result(call, json!({"tasks": shape, "nextPageToken": ""}));
                respond(stream, 200, "application/json", &body)
            },
            nothing,
        );
        let out = run(&peer, &["list-tasks-lists-new-task"]);
        let message = out.assert_run(
            "list-tasks-lists-new-task",
            "error",
            Some("peer-malfunction"),
        );
        assert!(
            message.contains("ListTasks") && message.contains("tasks"),
            "{tasks}: {message}"
        );
        assert_eq!(out.row("protocol.listTasks"), "unverified");
        out.assert_no_false_verdict();
        assert_eq!(out.code, 3, "{tasks}: {}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
}

/// Writes a GetTask answer for `call` whose task has `entries` history
/// messages, streamed with no Content-Length (the body ends with the
/// connection), as a peer that never built it in memory would.
fn huge_history(call: &Call, stream: &mut TcpStream, entries: usize) {
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n",
    );
    let open = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"task":{{"id":"a2a-conform-no-such-task-7f3c9a2e","contextId":"c-1","status":{{"state":"TASK_STATE_COMPLETED"}},"history":["#,
        call.id
    );
    if stream.write_all(open.as_bytes()).is_err() {
        return;
    }
    let message = br#"{"role":"ROLE_AGENT","parts":[{"text":"x"}],"messageId":"m"}"#;
    let mut chunk = Vec::with_capacity(64 * 1024);
    for n in 0..entries {
        if n > 0 {
            chunk.push(b',');
        }
        chunk.extend_from_slice(message);
        if chunk.len() >= 60 * 1024 {
            if stream.write_all(&chunk).is_err() {
                return;
            }
            chunk.clear();
        }
    }
    chunk.extend_from_slice(b"]}}}");
    let _ = stream.write_all(&chunk);
}

#[test]
fn a_get_task_history_of_a_million_entries_is_capped() {
    let peer = peer(nothing, |call, stream| {
        huge_history(call, stream, 1_000_000)
    });
    let out = run(&peer, &["unknown-task-get"]);
    let message = out.assert_run("unknown-task-get", "error", Some("tool-cap"));
    assert!(message.contains("--max-body-bytes"), "{message}");
    assert_eq!(out.row("protocol.unknownTask"), "unverified");
    out.assert_no_false_verdict();
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn a_made_up_task_with_a_long_history_under_the_cap_diverges_within_bounds() {
    let peer = peer(nothing, |call, stream| huge_history(call, stream, 60_000));
    let out = run(&peer, &["unknown-task-get"]);
    out.assert_run("unknown-task-get", "fail", None);
    assert_eq!(out.row("protocol.unknownTask"), "diverged");
    assert_eq!(out.code, 1, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    assert!(
        out.json_text.len() < 2 * 1024 * 1024,
        "the report holds the history: {} bytes",
        out.json_text.len()
    );
}
