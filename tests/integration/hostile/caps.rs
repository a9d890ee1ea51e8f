//! Streams and bodies that reach one of the tool's own caps (events, bytes,
//! per-event size, body size): the run is `error` naming the cap and the
//! flag that raises it, never `fail`, and the tool's memory stays bounded.

use super::harness::*;
use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// A stream that opens with the task, then sends `updates` working updates
/// and holds the connection open a while.
fn chatty_stream(updates: usize, pad: usize) -> HostilePeer {
    HostilePeer::start(json!({}), move |call, stream| {
        open_sse(stream);
        if !sse_event(stream, call, task("TASK_STATE_WORKING")) {
            return;
        }
        for _ in 0..updates {
            let mut update = status_update("TASK_STATE_WORKING");
            update["statusUpdate"]["metadata"] = json!({"pad": "x".repeat(pad)});
            if !sse_event(stream, call, update) {
                return;
            }
        }
        std::thread::sleep(Duration::from_secs(5));
    })
}

/// Asserts the tool-cap contract on one run: error naming `flag`, no false
/// verdict, and not the exit code of a divergence or a malfunction.
fn assert_capped(out: &Checked, run: &str, flag: &str) {
    let message = out.assert_run(run, "error", Some("tool-cap"));
    assert!(message.contains("the tool's cap"), "{message}");
    assert!(message.contains(flag), "{message}");
    out.assert_no_false_verdict();
    assert_eq!(
        out.code,
        4,
        "nothing verified, nobody's fault\n{}",
        out.explain()
    );
    assert!(out.junit.contains("type=\"tool-cap\""), "{}", out.junit);
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

fn streaming_probe(extra: &[&str]) -> Vec<String> {
    [FAST, &["--scenario", "streaming-probe"], extra]
        .concat()
        .into_iter()
        .map(str::to_string)
        .collect()
}

fn run(peer: &HostilePeer, args: &[String]) -> Checked {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    check(&[&peer.base], &args)
}

#[test]
fn the_stream_event_cap_is_an_error_naming_its_flag() {
    let peer = chatty_stream(50, 0);
    let out = run(&peer, &streaming_probe(&["--max-stream-events", "5"]));
    assert_capped(&out, "streaming-probe", "--max-stream-events");
    assert!(out.run("streaming-probe")["message"]
        .as_str()
        .unwrap()
        .contains("cap of 5 events"));
}

#[test]
fn the_stream_byte_cap_is_an_error_naming_its_flag() {
    let peer = chatty_stream(200, 100);
    let out = run(&peer, &streaming_probe(&["--max-stream-bytes", "4000"]));
    assert_capped(&out, "streaming-probe", "--max-stream-bytes");
}

#[test]
fn the_per_event_cap_is_an_error_naming_its_flag() {
    let peer = chatty_stream(3, 10_000);
    let out = run(&peer, &streaming_probe(&["--max-event-bytes", "2048"]));
    assert_capped(&out, "streaming-probe", "--max-event-bytes");
}

#[test]
fn an_endless_sse_line_is_cut_at_the_default_event_cap() {
    let peer = HostilePeer::start(json!({}), |_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ",
        );
        let chunk = vec![b'x'; 64 * 1024];
        // 4 MiB: far past the default 1 MiB event cap.
        for _ in 0..64 {
            if stream.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let out = run(&peer, &streaming_probe(&[]));
    assert_capped(&out, "streaming-probe", "--max-event-bytes");
}

fn big_task(pad: usize) -> HostilePeer {
    HostilePeer::start(json!({}), move |call, stream| {
        let mut result = task("TASK_STATE_COMPLETED");
        result["task"]["metadata"] = json!({"pad": "x".repeat(pad)});
        respond(stream, 200, "application/json", &rpc_result(call, result));
    })
}

#[test]
fn the_body_cap_is_an_error_naming_its_flag() {
    let peer = big_task(50_000);
    let out = check(
        &[&peer.base],
        &[
            FAST,
            &[
                "--scenario",
                "completion-stability",
                "--max-body-bytes",
                "10000",
            ],
        ]
        .concat(),
    );
    assert_capped(&out, "completion-stability", "--max-body-bytes");
    assert!(out.run("completion-stability")["message"]
        .as_str()
        .unwrap()
        .contains("10000 bytes"));
}

#[test]
fn a_huge_body_is_refused_at_the_default_cap_within_bounded_memory() {
    let peer = big_task(5 * 1024 * 1024);
    let out = check(
        &[&peer.base],
        &[FAST, &["--scenario", "completion-stability"]].concat(),
    );
    assert_capped(&out, "completion-stability", "--max-body-bytes");
}
