//! The A2A 1.1 draft (`--protocol 1.1-draft`): the honest draft mock keeps
//! its three rows over JSON-RPC and HTTP+JSON; a generation that skips or
//! repeats diverges `protocol.generation`, a held stale long-poll diverges
//! `protocol.generationLongPoll`, an ignored `ifGenerationMatch` diverges
//! `protocol.generationMatch`; a 1.0 peer checked with the flag reads the
//! rows "not supported" (unverified), never diverged; over gRPC they read
//! unverified naming why; and without the flag a draft peer's report has
//! neither the rows nor their runs.

use crate::common::*;
use a2a_conform_mock::{Behaviour, MockConfig};
use a2a_conform_protocol::ProtocolVersion;

const GENERATION: &str = "protocol.generation";
const LONG_POLL: &str = "protocol.generationLongPoll";
const MATCH: &str = "protocol.generationMatch";
const ROWS: [&str; 3] = [GENERATION, LONG_POLL, MATCH];
const DRAFT_SCENARIOS: [&str; 3] = [
    "generation-sequence",
    "generation-long-poll-stale",
    "generation-match-guards-send",
];

/// The mock behaviours that break a 1.1 draft promise: checked here, not
/// in the verdict matrix (which checks without the flag, where they are
/// honest peers).
pub const DRAFT_BEHAVIOURS: [Behaviour; 4] = [
    Behaviour::GenerationSkips,
    Behaviour::GenerationRepeats,
    Behaviour::GenerationHeld,
    Behaviour::GenerationMatchIgnored,
];

fn draft_peer(behaviour: Behaviour) -> Peer {
    start_peer_config(MockConfig {
        draft_1_1: true,
        ..peer_config(ProtocolVersion::V1_0, behaviour)
    })
}

/// A check of the draft's scenarios only, over `binding`.
fn check_draft(peer: &Peer, binding: &str) -> Outcome {
    let mut args = vec!["--protocol", "1.1-draft", "--binding", binding];
    for id in DRAFT_SCENARIOS {
        args.extend(["--scenario", id]);
    }
    check(&peer.card_url(), &args)
}

fn message(out: &Outcome, run: &str) -> String {
    out.run(run)["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_honest_draft_peer_keeps_every_draft_row_over_both_bindings() {
    let peer = draft_peer(Behaviour::Honest);
    for binding in ["jsonrpc", "rest"] {
        let out = check_draft(&peer, binding);
        assert_eq!(out.code, 0, "{binding}: {}", out.explain());
        for row in ROWS {
            assert_eq!(
                out.declaration(row),
                "honoured",
                "{binding} {row}: {}",
                out.explain()
            );
        }
    }
}

#[test]
fn a_generation_that_skips_or_repeats_diverges() {
    for (behaviour, says) in [
        (Behaviour::GenerationSkips, "right after"),
        (Behaviour::GenerationRepeats, "both carry generation"),
    ] {
        let peer = draft_peer(behaviour);
        for binding in ["jsonrpc", "rest"] {
            let out = check_draft(&peer, binding);
            let cell = format!("{} over {binding}", behaviour.name());
            assert_eq!(out.code, 1, "{cell}: {}", out.explain());
            assert_eq!(
                out.declaration(GENERATION),
                "diverged",
                "{cell}: {}",
                out.explain()
            );
            let why = message(&out, "generation-sequence");
            assert!(why.contains(says), "{cell}: {why}");
            // The flaw is in the numbering only: the other rows hold.
            assert_eq!(
                out.declaration(LONG_POLL),
                "honoured",
                "{cell}: {}",
                out.explain()
            );
            assert_eq!(
                out.declaration(MATCH),
                "honoured",
                "{cell}: {}",
                out.explain()
            );
        }
    }
}

#[test]
fn a_stale_long_poll_held_instead_of_answered_diverges() {
    let peer = draft_peer(Behaviour::GenerationHeld);
    let out = check_draft(&peer, "jsonrpc");
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration(LONG_POLL), "diverged", "{}", out.explain());
    let why = message(&out, "generation-long-poll-stale");
    assert!(
        why.contains("was held") && why.contains("MUST answer at once"),
        "{why}"
    );
    assert_eq!(out.declaration(GENERATION), "honoured", "{}", out.explain());
    assert_eq!(out.declaration(MATCH), "honoured", "{}", out.explain());
}

#[test]
fn an_ignored_if_generation_match_diverges() {
    let peer = draft_peer(Behaviour::GenerationMatchIgnored);
    for binding in ["jsonrpc", "rest"] {
        let out = check_draft(&peer, binding);
        assert_eq!(out.code, 1, "{binding}: {}", out.explain());
        assert_eq!(
            out.declaration(MATCH),
            "diverged",
            "{binding}: {}",
            out.explain()
        );
        let why = message(&out, "generation-match-guards-send");
        assert!(why.contains("was accepted"), "{binding}: {why}");
        assert_eq!(
            out.declaration(GENERATION),
            "honoured",
            "{binding}: {}",
            out.explain()
        );
    }
}

#[test]
fn a_1_0_peer_checked_as_a_draft_reads_not_supported_never_diverged() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check_draft(&peer, "jsonrpc");
    assert_ne!(out.code, 1, "{}", out.explain());
    for (row, run) in ROWS.iter().zip(DRAFT_SCENARIOS) {
        assert_eq!(
            out.declaration(row),
            "unverified",
            "{row}: {}",
            out.explain()
        );
        let why = message(&out, run);
        assert!(why.contains("not supported"), "{run}: {why}");
    }
}

#[test]
fn over_grpc_the_draft_rows_read_unverified_saying_why() {
    let peer = start_peer_config(MockConfig {
        draft_1_1: true,
        grpc: true,
        ..peer_config(ProtocolVersion::V1_0, Behaviour::Honest)
    });
    let out = check_draft(&peer, "grpc");
    for (row, run) in ROWS.iter().zip(DRAFT_SCENARIOS) {
        assert_eq!(
            out.declaration(row),
            "unverified",
            "{row}: {}",
            out.explain()
        );
        assert!(
            message(&out, run).contains("JSON-RPC and HTTP+JSON only"),
            "{run}"
        );
    }
}

#[test]
fn without_the_flag_a_draft_peer_is_checked_as_1_0_with_no_draft_rows_or_runs() {
    let peer = draft_peer(Behaviour::GenerationSkips);
    let out = check(&peer.card_url(), &["--scenario", "blocking-send-waits"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let report = out.report();
    let rows = report["peers"][0]["declarations"].as_array().unwrap();
    assert!(
        !rows
            .iter()
            .any(|r| ROWS.contains(&r["id"].as_str().unwrap_or(""))),
        "{rows:#?}"
    );
    // Asked for by name, a draft scenario is not run without the flag
    // either: it is not in the plan at all.
    let out = check(&peer.card_url(), &["--scenario", "generation-sequence"]);
    let runs = out.report()["peers"][0]["scenarios"].as_array().unwrap();
    assert!(
        !runs
            .iter()
            .any(|r| DRAFT_SCENARIOS.contains(&r["id"].as_str().unwrap_or(""))),
        "{runs:#?}"
    );
}
