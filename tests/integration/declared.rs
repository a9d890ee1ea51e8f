//! The declarations beyond tasks, end to end on the mock: the extended agent
//! card, required extensions and output modes over the HTTP+JSON binding too
//! (the matrix checks JSON-RPC), and an output mode broken without
//! `--strict` as the warning it is; input modes whose resumed task fails.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const EXTENDED_CARD: &str = "capabilities.extendedAgentCard";
const REQUIRED_EXTENSION: &str =
    "capabilities.extensions[https://a2a-conform.dev/ext/mock-required/v1]";
const OPTIONAL_EXTENSION: &str =
    "capabilities.extensions[https://a2a-conform.dev/ext/mock-optional/v1]";
const OUT_JSON: &str = "defaultOutputModes[application/json]";
const JSON_IN: &str = "defaultInputModes[application/json]";
const TEXT_IN: &str = "defaultInputModes[text/plain]";

/// Checks a peer with its token (when it has one) and the extra flags.
fn check_with_token(peer: &Peer, extra: &[&str]) -> Outcome {
    match peer.peer.auth_token() {
        Some(token) => check_env(
            &peer.card_url(),
            &[extra, &["--bearer-env", "DECLARED_TOKEN"]].concat(),
            &[("DECLARED_TOKEN", &token)],
        ),
        None => check(&peer.card_url(), extra),
    }
}

#[test]
fn the_extended_card_is_judged_over_http_json() {
    let rest = ["--binding", "rest"];
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::ExtendedCard);
    let out = check_with_token(&peer, &rest);
    assert_eq!(
        out.report()["peers"][0]["binding"],
        "rest",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration(EXTENDED_CARD),
        "honoured",
        "{}",
        out.explain()
    );
    assert_eq!(out.scenario("extended-card-needs-credentials"), "pass");
    assert_eq!(out.code, 0, "{}", out.explain());

    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::ExtendedCardUnconfigured);
    let out = check_with_token(&peer, &rest);
    assert_eq!(
        out.declaration(EXTENDED_CARD),
        "diverged",
        "{}",
        out.explain()
    );
    let message = out.run("extended-card-served")["message"]
        .as_str()
        .unwrap_or("");
    assert!(message.contains("-32007"), "{message}");

    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &rest);
    assert_eq!(
        out.declaration(EXTENDED_CARD),
        "not-declared",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.scenario("extended-card-refused-when-undeclared"),
        "pass"
    );
}

#[test]
fn without_its_token_the_extended_card_is_inconclusive_not_diverged() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::ExtendedCard);
    let out = check(&peer.card_url(), &[]);
    assert_eq!(
        out.scenario("extended-card-served"),
        "inconclusive",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration(EXTENDED_CARD),
        "honoured",
        "{}",
        out.explain()
    );
}

#[test]
fn a_required_extension_is_judged_over_http_json() {
    let rest = ["--binding", "rest"];
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::ExtensionRequired);
    let out = check(&peer.card_url(), &rest);
    assert_eq!(
        out.declaration(REQUIRED_EXTENSION),
        "honoured",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration(OPTIONAL_EXTENSION),
        "honoured",
        "{}",
        out.explain()
    );
    // Every other promise is checked too: the required extension is asked for.
    assert_eq!(out.declaration("capabilities.streaming"), "honoured");
    assert_eq!(out.code, 0, "{}", out.explain());

    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::ExtensionIgnored);
    let out = check(&peer.card_url(), &rest);
    assert_eq!(
        out.declaration(REQUIRED_EXTENSION),
        "diverged",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration(OPTIONAL_EXTENSION),
        "honoured",
        "{}",
        out.explain()
    );
    assert_eq!(out.code, 1, "{}", out.explain());
}

#[test]
fn output_mode_ignored_is_a_warning_without_strict() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::OutputModeIgnored);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.declaration(OUT_JSON), "unverified", "{}", out.explain());
        let run = out.run("output-mode-accepted[application/json]");
        assert_eq!(run["verdict"], "inconclusive", "{}", out.explain());
        let message = run["message"].as_str().unwrap_or("");
        for needle in [
            "warning",
            "text/plain",
            "declares as no output mode",
            "--strict",
        ] {
            assert!(message.contains(needle), "{needle}: {message}");
        }
        assert_eq!(out.code, 0, "{}", out.explain());

        let out = check(&peer.card_url(), &["--strict"]);
        assert_eq!(out.declaration(OUT_JSON), "diverged", "{}", out.explain());
    }
}

/// A task failed for a declared output mode diverges: the same message
/// without `acceptedOutputModes` completes (the control). The honest pair
/// refuses the same send with -32005, which keeps the declaration. (A peer
/// whose tasks fail whatever they may output is `hostile::inert`'s.)
#[test]
fn a_task_failed_for_a_declared_output_mode_diverges_and_a_refusal_does_not() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::OutputModeFails);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.declaration(OUT_JSON), "diverged", "{}", out.explain());
        let message = out.run("output-mode-accepted[application/json]")["message"]
            .as_str()
            .unwrap_or("")
            .to_string();
        for needle in [
            "accepting only the declared output mode application/json ended failed",
            "without acceptedOutputModes answered",
            "completed",
        ] {
            assert!(message.contains(needle), "{needle}: {message}");
        }
        assert_eq!(
            out.declaration("defaultOutputModes[text/plain]"),
            "honoured",
            "{}",
            out.explain()
        );
        assert_eq!(out.code, 1, "{}", out.explain());

        let peer = start_peer(version, Behaviour::OutputModes);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.declaration(OUT_JSON), "honoured", "{}", out.explain());
        assert_eq!(out.code, 0, "{}", out.explain());
    }
}

/// The reproduce line of a run that sent a control is the judged request,
/// not the control sent after it (a report reproduces a run by its last
/// request that has a `curl` line).
#[test]
fn a_control_is_not_what_the_reproduce_line_sends() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::OutputModeFails);
    let out = check(&peer.card_url(), &[]);
    let run = out.run("output-mode-accepted[application/json]");
    let evidence = run["evidence"].as_array().expect("evidence");
    let curls: Vec<&str> = evidence.iter().filter_map(|e| e["curl"].as_str()).collect();
    let last = curls.last().expect("a reproduce line");
    assert!(last.contains("acceptedOutputModes"), "{last}");
    assert!(
        evidence
            .iter()
            .any(|e| e["summary"].as_str().unwrap_or("").starts_with("control: ")),
        "{}",
        out.explain()
    );
}

/// A task that fails when a declared mode resumes it diverges only when a
/// text resume of another task gets on with it (`input-overdeclared-fails`);
/// a peer that fails every resumed task, text too, says nothing about its
/// modes: unverified, with the control named (`resume-fails`).
#[test]
fn a_failed_resume_diverges_only_when_a_text_resume_does_not_fail() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::InputOverdeclaredFails);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.declaration(JSON_IN), "diverged", "{}", out.explain());
        assert_eq!(out.declaration(TEXT_IN), "honoured", "{}", out.explain());
        let message = out.run("input-mode-resume[application/json]")["message"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            message.contains("while a text resume of another task answered completed"),
            "{message}"
        );

        let peer = start_peer(version, Behaviour::ResumeFails);
        let out = check(&peer.card_url(), &[]);
        for (id, run) in [
            (JSON_IN, "input-mode-resume[application/json]"),
            (TEXT_IN, "input-mode-resume[text/plain]"),
        ] {
            assert_eq!(out.declaration(id), "unverified", "{}", out.explain());
            let message = out.run(run)["message"].as_str().unwrap_or("").to_string();
            assert!(message.contains("ended failed after a resume"), "{message}");
        }
        let json = out.run("input-mode-resume[application/json]")["message"]
            .as_str()
            .unwrap_or("")
            .to_string();
        assert!(
            json.contains("a text resume of another task failed too"),
            "{json}"
        );
        assert_eq!(out.code, 0, "{}", out.explain());
    }
}

#[test]
fn strict_is_read_from_the_environment_too() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::OutputModeIgnored);
    let out = check_env(&peer.card_url(), &[], &[("A2A_CONFORM_STRICT", "true")]);
    assert_eq!(out.declaration(OUT_JSON), "diverged", "{}", out.explain());
}
