//! Blocking sends answered too early: a peer that answers a blocking send
//! (v1.0 `returnImmediately` false, v0.3 `blocking: true`) with the task
//! still `submitted` breaks `protocol.blocking`, and every other row is
//! judged on the task a GetTask poll settles to, with no flags (the prompt
//! search polls too).

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;

const BLOCKING: &str = "protocol.blocking";
const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

/// `check` of the peer with no flags but the fast windows.
fn check_bare(peer: &Peer) -> Outcome {
    let card = peer.card_url();
    let mut args = vec!["check", card.as_str(), "--color", "never"];
    args.extend_from_slice(FAST_WINDOWS);
    run(&args)
}

/// The ids of the declaration rows with this verdict.
fn rows_with(out: &Outcome, verdict: &str) -> Vec<String> {
    out.report()["peers"][0]["declarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .filter(|d| d["verdict"] == verdict)
        .map(|d| d["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The reason of a declaration row.
fn reason(out: &Outcome, id: &str) -> String {
    out.report()["peers"][0]["declarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .find(|d| d["id"] == id)
        .and_then(|d| d["reason"].as_str())
        .unwrap_or_default()
        .to_string()
}

/// Every evidence summary of a run, in order.
fn evidence(run: &Value) -> Vec<String> {
    run["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["summary"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_peer_answering_submitted_breaks_blocking_and_its_input_modes_are_judged_by_polling() {
    for version in VERSIONS {
        let peer = start_peer(version, Behaviour::NonBlocking);
        let out = check_bare(&peer);
        assert_eq!(out.code, 1, "{version}: {}", out.explain());
        assert_eq!(out.declaration(BLOCKING), "diverged", "{version}");
        let why = reason(&out, BLOCKING);
        assert!(
            why.contains("still submitted") && why.contains("terminal or interrupted"),
            "{version}: {why}"
        );
        for row in INPUT_ROWS {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
        }
        for row in ["protocol.historyLength", "defaultOutputModes[text/plain]"] {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
        }
        // Nothing the peer reaches is left unverified, and only the breach diverged.
        assert_eq!(
            rows_with(&out, "unverified"),
            Vec::<String>::new(),
            "{version}"
        );
        assert_eq!(rows_with(&out, "diverged"), [BLOCKING], "{version}");
        // The search found the prompt by polling: the task it sent the
        // card's example with was answered submitted, then read input-required.
        let searches = out.report()["peers"][0]["preconditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            searches.iter().all(|s| s["outcome"] == "found"),
            "{version}: {searches:#?}"
        );
    }
}

#[test]
fn json_refused_on_resume_diverges_through_the_poll() {
    for version in VERSIONS {
        let peer = start_peer(version, Behaviour::NonBlockingInputOverdeclared);
        let out = check_bare(&peer);
        assert_eq!(out.code, 1, "{version}: {}", out.explain());
        let mut diverged = rows_with(&out, "diverged");
        diverged.sort();
        assert_eq!(
            diverged,
            [
                "defaultInputModes[application/json]",
                BLOCKING,
                "skills[echo].inputModes[application/json]",
            ],
            "{version}"
        );
        for row in [
            "defaultInputModes[text/plain]",
            "skills[echo].inputModes[text/plain]",
        ] {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
        }
        assert_eq!(
            rows_with(&out, "unverified"),
            Vec::<String>::new(),
            "{version}"
        );
        // The evidence says the send answered too early, and where the poll got.
        let notes = evidence(out.run("input-mode-resume[application/json]"));
        assert!(
            notes.iter().any(|n| n.contains("still submitted")
                && n.contains("protocol.blocking")
                && n.contains("polling GetTask")),
            "{version}: {notes:#?}"
        );
        assert!(
            notes
                .iter()
                .any(|n| n.contains("read input-required by GetTask")),
            "{version}: {notes:#?}"
        );
    }
}

#[test]
fn the_honest_peer_keeps_blocking_honoured() {
    for version in VERSIONS {
        let peer = start_peer(version, Behaviour::Honest);
        let out = check_bare(&peer);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        assert_eq!(out.declaration(BLOCKING), "honoured", "{version}");
        assert_eq!(out.scenario("blocking-send-waits"), "pass", "{version}");
    }
}

#[test]
fn a_peer_that_never_asks_for_input_leaves_only_the_rows_that_need_it_unverified() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputUnreachable);
    let out = check_bare(&peer);
    assert_eq!(out.code, 1, "{}", out.explain());
    let mut unverified = rows_with(&out, "unverified");
    unverified.sort();
    let mut want: Vec<&str> = INPUT_ROWS.to_vec();
    want.push("protocol.historyLength");
    want.sort();
    assert_eq!(unverified, want);
    assert_eq!(rows_with(&out, "diverged"), [BLOCKING]);
    // Polled to completed, the finished task is there to subscribe to.
    assert_eq!(out.declaration("protocol.terminalSubscribe"), "honoured");
}

/// The search's poll of an unsettled answer is bounded by the peer's own
/// `task_window`, not the built-in 60 s: a window shorter than the peer
/// takes to settle leaves the prompt unfound, and the default finds it.
#[test]
fn the_search_polls_within_the_task_window_it_is_given() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::NonBlocking);
    let card = peer.card_url();
    let only = ["--scenario", "input-mode-resume", "--color", "never"];
    let mut short = vec!["check", card.as_str(), "--var", "task_window=1ms"];
    short.extend_from_slice(&only);
    let out = run(&short);
    let search = &out.report()["peers"][0]["preconditions"][0];
    assert_eq!(search["outcome"], "not-found", "{}", out.explain());
    let mut default = vec!["check", card.as_str()];
    default.extend_from_slice(&only);
    let out = run(&default);
    let search = &out.report()["peers"][0]["preconditions"][0];
    assert_eq!(search["outcome"], "found", "{}", out.explain());
}
