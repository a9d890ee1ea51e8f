//! Peers that answer with something that is not a valid A2A answer: HTTP
//! 500 with HTML, a wrong JSON-RPC id, silence, a reset, non-JSON, an
//! invalid result, garbage events. Each is a peer malfunction: the run is
//! `error` naming it, no declaration diverges or over-delivers, and the
//! check exits 3.

use super::harness::*;
use serde_json::json;
use std::io::Write;
use std::time::Duration;

fn html_500(call: &Call, stream: &mut std::net::TcpStream) {
    // The page reflects the request head, credentials included: a hostile
    // peer echoing secrets must not get them into any report. The bearer
    // token is placed to straddle the 120-character clip of the message.
    let auth = call
        .head
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
        .unwrap_or("");
    let page = format!(
        "<html>{}{auth}<pre>{}</pre></html>",
        ".".repeat(80),
        call.head
    );
    respond(stream, 500, "text/html", page.as_bytes());
}

/// Asserts the malfunction contract on one run and the whole check.
fn assert_malfunction(out: &Checked, run: &str, says: &str) {
    let message = out.assert_run(run, "error", Some("peer-malfunction"));
    assert!(message.starts_with("peer malfunction"), "{message}");
    assert!(message.contains(says), "{message}");
    out.assert_no_false_verdict();
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.junit.contains("<error"), "{}", out.junit);
    assert!(
        out.markdown.contains("peer malfunction"),
        "{}",
        out.markdown
    );
    assert!(
        out.stderr.contains("fails the run (exit 3)"),
        "{}",
        out.explain()
    );
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn http_500_html_on_every_call_is_a_malfunction_not_a_divergence() {
    let peer = HostilePeer::start(json!({}), html_500);
    let out = check(&[&peer.base], FAST);
    assert_malfunction(
        &out,
        "completion-stability",
        "peer malfunction: HTTP 500 text/html on SendMessage",
    );
    assert_malfunction(
        &out,
        "streaming-probe",
        "HTTP 500 text/html on SendStreamingMessage",
    );
    // Every declared capability the suite verifies reads unverified, naming it.
    for id in ["capabilities.streaming", "lifecycle.completion"] {
        assert_eq!(out.row(id), "unverified", "{id}");
        let reason = out.row_of(0, id)["reason"].as_str().unwrap().to_string();
        assert!(reason.contains("peer malfunction"), "{id}: {reason}");
    }
    assert!(out.stdout.contains("peer malfunction"), "{}", out.stdout);
}

#[test]
fn undeclared_push_answered_by_a_malfunction_does_not_over_deliver() {
    // The send before the push config already fails: the peer never saw a
    // push-config request, so it cannot have served one.
    let peer = HostilePeer::start(json!({}), html_500);
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "push-refused-when-undeclared"]].concat(),
    );
    assert_malfunction(&out, "push-refused-when-undeclared", "on SendMessage");
    assert_eq!(out.row("capabilities.pushNotifications"), "unverified");
    assert!(
        !peer
            .methods()
            .iter()
            .any(|m| m.contains("PushNotificationConfig")),
        "{:?}",
        peer.methods()
    );
}

#[test]
fn a_wrong_jsonrpc_id_is_a_malfunction() {
    let peer = HostilePeer::start(json!({}), |call, stream| {
        let body =
            json!({"jsonrpc": "2.0", "id": "someone-else", "result": task("TASK_STATE_COMPLETED")});
        let _ = call;
        respond(stream, 200, "application/json", body.to_string().as_bytes());
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(&out, "completion-stability", "does not match request id");
    assert_eq!(out.row("lifecycle.completion"), "unverified");
}

#[test]
fn a_peer_that_never_answers_is_bounded_by_the_timeout_the_tools_cap() {
    let peer = HostilePeer::start(json!({}), |_, _| {
        std::thread::sleep(Duration::from_secs(30))
    });
    let out = check(
        &[&peer.base],
        &[
            FAST,
            &["--scenario", "completion-stability", "--timeout", "3s"],
        ]
        .concat(),
    );
    // --timeout is the tool's own bound: running out of it is no finding
    // about the peer (a correct blocking send may take longer), so no
    // malfunction either.
    let message = out.assert_run("completion-stability", "error", Some("tool-cap"));
    assert!(
        message.contains("no answer within 3.00 s (--timeout)"),
        "{message}"
    );
    assert!(!message.contains("peer malfunction"), "{message}");
    out.assert_no_false_verdict();
    assert_eq!(out.code, 4, "{}", out.explain());
    // The run ended on the tool's bound, not on the peer's 30 s sleep.
    assert!(out.elapsed < Duration::from_secs(25), "{}", out.explain());
}

#[test]
fn a_reset_mid_body_is_a_malfunction() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":",
        );
        hang_up(stream);
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(&out, "completion-stability", "connection broke");
}

#[test]
fn a_non_json_200_is_a_malfunction() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        respond(
            stream,
            200,
            "application/json",
            b"certainly, here is your task!",
        );
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(
        &out,
        "completion-stability",
        "HTTP 200 application/json on SendMessage: the body is not JSON",
    );
}

#[test]
fn a_valid_envelope_with_an_invalid_result_is_a_malfunction() {
    let peer = HostilePeer::start(json!({}), |call, stream| {
        respond(
            stream,
            200,
            "application/json",
            &rpc_result(call, json!(42)),
        );
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(&out, "completion-stability", "neither a Task nor a Message");
}

#[test]
fn garbage_sse_events_are_a_malfunction_not_a_streaming_divergence() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        open_sse(stream);
        let _ = stream.write_all(b"data: {not json at all\n\ndata: <html>\n\n");
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "streaming-probe"]].concat(),
    );
    assert_malfunction(&out, "streaming-probe", "not a valid A2A event");
    assert_eq!(out.row("capabilities.streaming"), "unverified");
}

#[test]
fn an_html_502_is_a_malfunction_with_its_status() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        respond(stream, 502, "text/html", b"<h1>bad gateway</h1>");
    });
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(
        &out,
        "completion-stability",
        "HTTP 502 text/html on SendMessage",
    );
}

#[test]
fn a_malfunction_on_one_feature_only_still_fails_the_check() {
    // Sends and reads are honest; only streaming answers HTML.
    let peer = HostilePeer::start(json!({}), |call, stream| match call.rpc.as_str() {
        "SendStreamingMessage" => html_500(call, stream),
        _ => respond(
            stream,
            200,
            "application/json",
            &rpc_result(call, task("TASK_STATE_COMPLETED")),
        ),
    });
    let out = check(
        &[&peer.base],
        &[
            FAST,
            &[
                "--scenario",
                "completion-stability",
                "--scenario",
                "streaming-probe",
            ],
        ]
        .concat(),
    );
    out.assert_run("completion-stability", "pass", None);
    assert_eq!(out.row("lifecycle.completion"), "honoured");
    assert_malfunction(&out, "streaming-probe", "on SendStreamingMessage");
}

#[test]
fn a_connection_dropped_before_any_answer_is_a_malfunction() {
    let peer = HostilePeer::start(json!({}), |_, stream| hang_up(stream));
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_malfunction(
        &out,
        "completion-stability",
        "the connection broke before an answer",
    );
}

#[test]
fn nothing_served_at_the_url_leaves_capabilities_unverified_but_diverges_the_interface() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        respond(stream, 404, "text/html", b"<h1>Not Found</h1>");
    });
    let out = check(
        &[&peer.base],
        &[
            FAST,
            &[
                "--scenario",
                "completion-stability",
                "--scenario",
                "interface-served",
            ],
        ]
        .concat(),
    );
    let message = out.assert_run("completion-stability", "error", Some("not-served"));
    assert!(
        message.starts_with("peer malfunction: HTTP 404 text/html on SendMessage"),
        "{message}"
    );
    assert_eq!(out.row("lifecycle.completion"), "unverified");
    // The interface row promises A2A at that URL: nothing served is its divergence.
    assert_eq!(out.row("interfaces[JSONRPC 1.0]"), "diverged");
    let message = out.assert_run("interface-served[JSONRPC 1.0]", "fail", None);
    assert!(
        message.starts_with("the interface does not speak A2A: HTTP 404 text/html"),
        "{message}"
    );
    assert_eq!(out.code, 1, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn a_mixed_check_prints_every_class_and_exits_with_the_documented_winner() {
    // One peer diverges (it leaks cancels), the other answers HTTP 500 to
    // every call: a divergence (exit 1), peer malfunctions (exit 3) and,
    // under --fail-on-unverified, unverified rows (exit 4) at once.
    let leaky = crate::common::start_peer(
        a2a_conform_protocol::ProtocolVersion::V1_0,
        a2a_conform_mock::Behaviour::CancelLeak,
    );
    let broken = HostilePeer::start(json!({}), html_500);
    let leaky_card = leaky.card_url();
    let out = check(
        &[&leaky_card, &broken.base],
        &[FAST, &["--fail-on-unverified"]].concat(),
    );
    // A divergence outranks a malfunction and an unverified row (README, "Exit codes").
    assert_eq!(out.code, 1, "{}", out.explain());
    let lines: Vec<&str> = out.stderr.lines().collect();
    let has = |prefix: &str, part: &str| {
        lines
            .iter()
            .any(|l| l.starts_with(prefix) && l.contains(part))
    };
    assert!(
        has("fails the run: ", "lifecycle.cancel diverged"),
        "{}",
        out.explain()
    );
    assert!(
        has("fails the run (exit 3): ", "peer malfunction: HTTP 500"),
        "{}",
        out.explain()
    );
    assert!(
        has("fails the run (exit 4): ", "unverified"),
        "{}",
        out.explain()
    );
    assert!(
        has(
            "exit 1: diverged outranks peer malfunction (exit 3), unverified (exit 4)",
            ""
        ),
        "{}",
        out.explain()
    );
    // The Markdown summary names every class too.
    let fails = out
        .markdown
        .lines()
        .find(|l| l.starts_with("Fails the run: "))
        .unwrap_or_default();
    assert!(fails.contains("lifecycle.cancel diverged"), "{fails}");
    assert!(fails.contains("peer malfunction: HTTP 500"), "{fails}");
    assert!(fails.contains("(exit 3)"), "{fails}");
    assert!(fails.contains("exit 1: diverged outranks"), "{fails}");
}
