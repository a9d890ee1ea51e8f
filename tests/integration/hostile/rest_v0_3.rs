//! Hostile answers over HTTP+JSON for A2A 0.3 (the `/v1` routes): wrong
//! content types, error bodies of neither known shape (no ErrorInfo
//! `reason` the tool knows, no A2A `code`), and 3xx redirects to another
//! origin. Each is a peer malfunction (`error`, exit 3) naming what came
//! back, never a `fail`; a redirect is not followed, so the other origin
//! sees no request and no credential.

use super::harness::*;
use serde_json::json;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

const SCENARIO: &str = "completion-stability";

/// A 0.3 peer whose only interface is HTTP+JSON at `{base}/rest`; `send`
/// answers `POST /rest/v1/message:send`, every other call a 0.3 task.
fn peer(send: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static) -> HostilePeer {
    HostilePeer::start_served(
        |base| {
            json!({
                "name": "hostile", "description": "answers badly", "version": "1",
                "protocolVersion": "0.3.0",
                "url": format!("{base}/rest"), "preferredTransport": "HTTP+JSON",
                "capabilities": {"streaming": false, "pushNotifications": false},
                "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
                "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
            })
        },
        move |call, stream| {
            if call.path.ends_with("/v1/message:send") {
                send(call, stream)
            } else {
                respond(stream, 200, "application/json", completed().as_bytes())
            }
        },
    )
}

/// A 0.3 proto-JSON SendMessage answer: a completed task.
fn completed() -> String {
    json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_COMPLETED"}}})
        .to_string()
}

fn run(peer: &HostilePeer) -> Checked {
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--scenario", SCENARIO, "--timeout", "2s"]);
    check(&[&peer.base], &args)
}

#[test]
fn the_honest_answer_passes_over_rest_0_3() {
    let peer = peer(|_, stream| respond(stream, 200, "application/json", completed().as_bytes()));
    let out = run(&peer);
    out.assert_run(SCENARIO, "pass", None);
    assert_eq!(
        out.report["peers"][0]["binding"],
        "rest",
        "{}",
        out.explain()
    );
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn wrong_content_types_and_unknown_error_shapes_are_malfunctions() {
    type Answer = fn(&Call, &mut TcpStream);
    let cases: [(&str, Answer, &str); 5] = [
        (
            "html",
            |_, stream| respond(stream, 200, "text/html", b"<html><body>hi</body></html>"),
            "HTTP 200 text/html",
        ),
        (
            "event stream",
            |_, stream| respond(stream, 200, "text/event-stream", b"data: {}\n\n"),
            "not JSON",
        ),
        (
            "500 of no known shape",
            |_, stream| respond(stream, 500, "application/json", br#"{"oops":true}"#),
            "without a known ErrorInfo reason",
        ),
        (
            "400 with an unknown reason",
            |_, stream| {
                let body = json!({"error": {"code": 400, "message": "bad",
                    "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "NOT_AN_A2A_REASON"}]}});
                respond(stream, 400, "application/json", body.to_string().as_bytes())
            },
            "NOT_AN_A2A_REASON",
        ),
        (
            "error body of plain text",
            |_, stream| respond(stream, 503, "text/plain", b"try later"),
            "non-JSON body",
        ),
    ];
    for (name, answer, cause) in cases {
        let peer = peer(answer);
        let out = run(&peer);
        let message = out.assert_run(SCENARIO, "error", Some("peer-malfunction"));
        assert!(message.contains(cause), "{name}: {message}");
        out.assert_no_false_verdict();
        assert_eq!(out.code, 3, "{name}: {}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
}

#[test]
fn a_redirect_to_another_origin_is_not_followed_and_carries_nothing_there() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let other = format!("http://{}", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            if let Some((head, body)) = read_http(&mut stream) {
                log.lock().unwrap().push(format!("{head}{body}"));
                respond(&mut stream, 200, "application/json", completed().as_bytes());
            }
        }
    });
    for status in [
        "302 Found",
        "307 Temporary Redirect",
        "308 Permanent Redirect",
    ] {
        let location = format!("{other}/rest/v1/message:send");
        let peer = peer(move |_, stream| {
            let _ = stream.write_all(
                format!("HTTP/1.1 {status}\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            );
        });
        let out = run(&peer);
        let message = out.assert_run(SCENARIO, "error", Some("peer-malfunction"));
        assert!(message.contains(&status[..3]), "{status}: {message}");
        out.assert_no_false_verdict();
        assert_eq!(out.code, 3, "{status}: {}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );
}
