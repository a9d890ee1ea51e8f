//! Connections, windows and timeouts owned by the right side: a kept-alive
//! connection another run's 500 broke is retried, never blamed on the run
//! that met it; a stream's first-event window runs from the request; the
//! tool's own `--timeout` running out is the tool's cap, not the peer's fault.

use crate::common::*;
use a2a_conform_mock::{Behaviour, MockTiming};
use a2a_conform_protocol::ProtocolVersion;
use std::time::Duration;

/// The runs of the stale-connection checks: the GetTask that gets the 500
/// first, then runs whose first request goes out on the connection it broke
/// (one run at a time, so the pool hands it over every time).
const AFTER_A_500: &[&str] = &[
    "--jobs",
    "1",
    "-v",
    "--scenario",
    "unknown-task-get",
    "--scenario",
    "unknown-task-cancel",
    "--scenario",
    "list-tasks-lists-new-task",
];

/// Every run's id and verdict, in report order.
fn verdicts(out: &Outcome) -> Vec<(String, String)> {
    out.report()["peers"][0]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .filter(|s| s["verdict"] != "skipped")
        .map(|s| {
            (
                s["id"].as_str().unwrap_or("").to_string(),
                s["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn five_checks_after_a_500_on_a_stale_connection_read_the_same() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::CloseAfter500);
    let mut seen = Vec::new();
    for attempt in 0..5 {
        let out = check(&peer.card_url(), AFTER_A_500);
        // The 500 is that run's malfunction, and only that run's.
        assert_eq!(out.code, 3, "check {attempt}: {}", out.explain());
        let get = out.run("unknown-task-get");
        assert_eq!(get["error_kind"], "peer-malfunction", "{}", out.explain());
        assert!(
            get["message"].as_str().unwrap_or("").contains("HTTP 500"),
            "{}",
            out.explain()
        );
        assert_eq!(
            out.scenario("unknown-task-cancel"),
            "pass",
            "{}",
            out.explain()
        );
        assert_eq!(
            out.scenario("list-tasks-lists-new-task"),
            "pass",
            "{}",
            out.explain()
        );
        // The run that met the broken connection says what happened to it.
        assert!(
            out.stdout.contains("sent once more on a fresh connection"),
            "check {attempt}: {}",
            out.explain()
        );
        seen.push(verdicts(&out));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:#?}");
}

#[test]
fn the_honest_peer_after_the_same_runs_has_no_500_and_nothing_retried() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), AFTER_A_500);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        out.scenario("unknown-task-get"),
        "pass",
        "{}",
        out.explain()
    );
    assert!(!out.stdout.contains("once more"), "{}", out.explain());
}

/// A mock whose stream head, or whose blocking send, is held for `silence`.
fn held(behaviour: Behaviour, silence: Duration) -> Peer {
    start_peer_with(
        ProtocolVersion::V1_0,
        behaviour,
        MockTiming {
            silence,
            ..fast_timing()
        },
        None,
    )
}

#[test]
fn silence_before_the_status_line_counts_against_the_probe_window() {
    // 4 s of silence against a 1 s window: a stall of the loaded machine
    // cannot let the head arrive first (the check stops at the window).
    let peer = held(Behaviour::SilentBeforeStatus, Duration::from_secs(4));
    let out = check(
        &peer.card_url(),
        &["--scenario", "streaming-probe", "--var", "probe_window=1s"],
    );
    assert_eq!(out.scenario("streaming-probe"), "fail", "{}", out.explain());
    assert_eq!(out.declaration("capabilities.streaming"), "diverged");
    let why = out.run("streaming-probe")["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        why.contains("not even its HTTP status line") && why.contains("from the request"),
        "{why}"
    );
    assert_eq!(out.code, 1, "{}", out.explain());
}

#[test]
fn silence_before_the_status_line_within_the_window_passes() {
    let peer = held(Behaviour::SilentBeforeStatus, Duration::from_millis(1500));
    let out = check(
        &peer.card_url(),
        &["--scenario", "streaming-probe", "--var", "probe_window=5s"],
    );
    assert_eq!(out.scenario("streaming-probe"), "pass", "{}", out.explain());
    assert_eq!(out.declaration("capabilities.streaming"), "honoured");
    assert_eq!(out.code, 0, "{}", out.explain());
}

#[test]
fn a_blocking_send_slower_than_timeout_is_the_tools_cap_not_a_malfunction() {
    let peer = held(Behaviour::SlowSend, Duration::from_secs(5));
    let out = check(
        &peer.card_url(),
        &["--scenario", "completion-stability", "--timeout", "1s"],
    );
    let run = out.run("completion-stability");
    assert_eq!(run["verdict"], "error", "{}", out.explain());
    assert_eq!(run["error_kind"], "tool-cap", "{}", out.explain());
    let why = run["message"].as_str().unwrap_or("");
    assert!(
        why.contains("no answer within 1.00 s (--timeout)") && why.contains("raise --timeout"),
        "{why}"
    );
    for text in [&out.stdout, &out.stderr] {
        assert!(!text.contains("peer malfunction"), "{}", out.explain());
    }
    // Not exit 3 (the peer's fault): nothing was verified, that is all.
    assert_eq!(out.code, 4, "{}", out.explain());
    assert_eq!(out.declaration("lifecycle.completion"), "unverified");
}

#[test]
fn the_same_slow_send_within_timeout_is_honoured() {
    let peer = held(Behaviour::SlowSend, Duration::from_secs(2));
    let out = check(
        &peer.card_url(),
        &["--scenario", "completion-stability", "--timeout", "6s"],
    );
    assert_eq!(
        out.scenario("completion-stability"),
        "pass",
        "{}",
        out.explain()
    );
    assert_eq!(out.declaration("lifecycle.completion"), "honoured");
    assert_eq!(out.code, 0, "{}", out.explain());
}

#[test]
fn a_stream_head_later_than_timeout_is_the_tools_cap_not_a_divergence() {
    // The window (5 s) would have waited for the head (at 3 s), but the
    // tool's own --timeout (1 s) ran out first: unverified, the cap named.
    let peer = held(Behaviour::SilentBeforeStatus, Duration::from_secs(3));
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "streaming-probe",
            "--var",
            "probe_window=5s",
            "--timeout",
            "1s",
        ],
    );
    let run = out.run("streaming-probe");
    assert_eq!(run["verdict"], "error", "{}", out.explain());
    assert_eq!(run["error_kind"], "tool-cap", "{}", out.explain());
    let why = run["message"].as_str().unwrap_or("");
    assert!(
        why.contains("(--timeout)") && why.contains("raise --timeout"),
        "{why}"
    );
    assert_eq!(out.declaration("capabilities.streaming"), "unverified");
    assert_ne!(out.code, 1, "{}", out.explain());
}
