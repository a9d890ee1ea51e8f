//! The task-basics rows (`protocol.*`) against a peer that malfunctions on
//! exactly the calls they make: a GetTask answered by an HTML 500, a
//! CancelTask by non-JSON, a ListTasks by a result with no `tasks`. Each run
//! is an `error` naming the malfunction, never a `fail`.

use super::harness::*;
use serde_json::json;

fn answer(call: &Call, stream: &mut std::net::TcpStream) {
    match call.rpc.as_str() {
        "SendMessage" => {
            let body = rpc_result(call, task("TASK_STATE_COMPLETED"));
            respond(stream, 200, "application/json", &body);
        }
        "GetTask" => respond(stream, 500, "text/html", b"<html>oops</html>"),
        "CancelTask" => respond(stream, 200, "application/json", b"not json at all"),
        "ListTasks" => {
            let body = rpc_result(call, json!({"nope": 1}));
            respond(stream, 200, "application/json", &body);
        }
        _ => respond(stream, 500, "text/html", b"<html>no</html>"),
    }
}

#[test]
fn malfunctions_on_task_basics_are_errors_not_divergences() {
    let peer = HostilePeer::start(json!({}), answer);
    let scenarios = [
        "unknown-task-get",
        "unknown-task-cancel",
        "list-tasks-lists-new-task",
    ];
    let mut args: Vec<&str> = FAST.to_vec();
    for id in scenarios {
        args.extend(["--scenario", id]);
    }
    let out = check(&[&peer.base], &args);
    let get = out.assert_run("unknown-task-get", "error", Some("peer-malfunction"));
    assert!(get.contains("HTTP 500 text/html on GetTask"), "{get}");
    let cancel = out.assert_run("unknown-task-cancel", "error", Some("peer-malfunction"));
    assert!(cancel.contains("CancelTask"), "{cancel}");
    let list = out.assert_run(
        "list-tasks-lists-new-task",
        "error",
        Some("peer-malfunction"),
    );
    assert!(list.contains("no `tasks` list"), "{list}");
    for id in ["protocol.unknownTask", "protocol.listTasks"] {
        assert_eq!(out.row(id), "unverified", "{id}");
    }
    out.assert_no_false_verdict();
    assert_eq!(out.code, 3, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}
