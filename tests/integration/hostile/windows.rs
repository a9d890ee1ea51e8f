//! Cards whose numbers are hostile: a `defaultTimeout` that would make the
//! probe window absurd (40,000 s, 1e19 s) is clamped to `--max-probe-window`
//! with a card warning, never overflows, and one peer's card never takes
//! another peer's report down with it.

use super::harness::*;
use serde_json::{json, Value};
use std::time::Duration;

/// A peer that answers sends and reads with a completed task.
fn honest(card_extra: Value) -> HostilePeer {
    HostilePeer::start(card_extra, |call, stream| {
        respond(
            stream,
            200,
            "application/json",
            &rpc_result(call, task("TASK_STATE_COMPLETED")),
        );
    })
}

const COMPLETION: &[&str] = &["--scenario", "completion-stability"];

#[test]
fn a_silent_stream_at_the_clamped_window_is_inconclusive_not_diverged() {
    let peer = HostilePeer::start(json!({"defaultTimeout": 40_000}), |_, stream| {
        open_sse(stream);
        std::thread::sleep(Duration::from_secs(20));
    });
    // No probe_window var: the card's window (clamped) is the one in force.
    let out = check(
        &[&peer.base],
        &["--scenario", "streaming-probe", "--max-probe-window", "2s"],
    );
    let message = out.assert_run("streaming-probe", "inconclusive", None);
    assert!(
        message.contains("waited 2 s of the declared 80,000 s"),
        "{message}"
    );
    assert_eq!(out.row("capabilities.streaming"), "unverified");
    let warnings = out.card_warnings(0);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("80,000 s") && w.contains("--max-probe-window")),
        "{warnings:?}"
    );
    assert_eq!(out.code, 4, "{}", out.explain());
    out.assert_bounded(Duration::from_secs(30), MAX_RSS_MIB);
}

#[test]
fn a_default_timeout_of_1e19_does_not_panic_and_is_clamped() {
    let peer = honest(json!({"defaultTimeout": 1e19}));
    let out = check(&[&peer.base], &[FAST, COMPLETION].concat());
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.row("lifecycle.completion"), "honoured");
    let warnings = out.card_warnings(0);
    assert!(
        warnings.iter().any(|w| w.contains("--max-probe-window")),
        "{warnings:?}"
    );
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

#[test]
fn unreadable_default_timeouts_are_card_warnings_not_panics() {
    for value in [json!("NaN"), json!(-5), json!("inf"), json!(1e300)] {
        let peer = honest(json!({"defaultTimeout": value}));
        let out = check(&[&peer.base], &[FAST, COMPLETION].concat());
        assert_eq!(out.code, 0, "{value}: {}", out.explain());
        let warnings = out.card_warnings(0);
        assert!(
            warnings.iter().any(|w| w.contains("defaultTimeout")),
            "{value}: {warnings:?}"
        );
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
}

#[test]
fn a_hostile_card_never_loses_another_peers_report() {
    let hostile = honest(json!({"defaultTimeout": 1e19}));
    let sound = honest(json!({}));
    let out = check(&[&hostile.base, &sound.base], &[FAST, COMPLETION].concat());
    let peers = out.report["peers"].as_array().expect("peers");
    assert_eq!(peers.len(), 2, "{}", out.explain());
    for (index, peer) in peers.iter().enumerate() {
        assert!(peer.get("card_error").is_none(), "{peer}");
        assert_eq!(
            out.row_of(index, "lifecycle.completion")["verdict"],
            "honoured",
            "peer {index}"
        );
    }
    assert_eq!(out.code, 0, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}
