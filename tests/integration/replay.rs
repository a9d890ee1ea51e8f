//! `check --record FILE` end to end: the cassette reads back, holds every
//! run (passing ones with their exchanges) with the verdicts the report
//! gives, leaves the reports as they are without it, and carries no
//! configured secret in any encoding. (Serving it back, `replay`, and
//! re-judging it, `rejudge`, are not built yet: docs/cassette.md.)

use crate::common::*;
use a2a_conform_cassette::Cassette;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use base64::Engine;

const TOKEN: &str = "rec-Secret-77/a+b";

/// Checks every recorded verdict against the report's, and that a passing
/// run keeps its exchanges in the cassette but not in the report.
fn assert_matches_report(cassette: &Cassette, out: &Outcome, what: &str) {
    let runs = out.report()["peers"][0]["scenarios"].as_array().unwrap();
    assert_eq!(cassette.runs.len(), runs.len(), "{what}");
    assert_eq!(cassette.peers.len(), 1, "{what}");
    let mut passing_with_steps = 0;
    for run in runs {
        let id = run["id"].as_str().unwrap();
        let recorded = cassette
            .run(0, id)
            .unwrap_or_else(|| panic!("{what}: {id}"));
        assert_eq!(
            recorded.verdict,
            run["verdict"].as_str().unwrap(),
            "{what} {id}"
        );
        if run["verdict"] == "pass" && !recorded.steps.is_empty() {
            passing_with_steps += 1;
            assert!(
                run.get("evidence").is_none(),
                "{what} {id}: report unchanged"
            );
        }
    }
    assert!(
        passing_with_steps > 0,
        "{what}: passing runs are recorded too"
    );
}

#[test]
fn a_recorded_check_reads_back_with_the_reports_verdicts() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        for behaviour in [Behaviour::CancelLeak, Behaviour::UnstableCompletion] {
            let what = format!("{behaviour} {version}");
            let peer = start_peer(version, behaviour);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("run.jsonl.gz");
            let out = check(&peer.card_url(), &["--record", path.to_str().unwrap()]);
            assert_eq!(out.code, 1, "{what}: {}", out.explain());
            let cassette = Cassette::load(&path).unwrap();
            assert_eq!(
                cassette.header.version,
                a2a_conform_cassette::FORMAT_VERSION
            );
            assert!(cassette.header.suite_digest.starts_with("sha256:"));
            assert_eq!(
                cassette.peers[0].protocol_version.as_deref(),
                Some(version.to_string().as_str()),
                "{what}"
            );
            assert_matches_report(&cassette, &out, &what);
        }
    }
}

#[test]
fn a_cassette_holds_no_configured_secret_in_any_encoding() {
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(TOKEN));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let out = check_env(
        &peer.card_url(),
        &[
            "--bearer-env",
            "PEER_TOKEN",
            "--record",
            path.to_str().unwrap(),
        ],
        &[("PEER_TOKEN", TOKEN)],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"type\":\"request\"") || text.contains("\"kind\":\"request\""));
    let encodings = [
        TOKEN.to_string(),
        base64::engine::general_purpose::STANDARD.encode(TOKEN),
        base64::engine::general_purpose::STANDARD.encode(format!("Bearer {TOKEN}")),
        TOKEN.replace('/', "%2F").replace('+', "%2B"),
        TOKEN.replace('/', "\\/"),
    ];
    for encoded in encodings {
        assert!(!text.contains(&encoded), "the cassette holds {encoded}");
    }
    Cassette::load(&path).unwrap();
}

#[test]
fn an_unwritable_record_path_is_refused_before_the_first_request() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(
        "http://127.0.0.1:9/.well-known/agent-card.json",
        &["--record", dir.path().to_str().unwrap()],
    );
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("--record"), "{}", out.stderr);
}
