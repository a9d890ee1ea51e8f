//! `check` end to end: the built binary against real peers on loopback, for
//! v1.0 and v0.3, both v1.0 bindings, and every way a card can be unusable.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const DECLARED: &[&str] = &[
    "capabilities.streaming",
    "lifecycle.cancel",
    "lifecycle.completion",
    "defaultInputModes[text/plain]",
    "defaultInputModes[application/json]",
    "skills[echo].inputModes[text/plain]",
    "skills[echo].inputModes[application/json]",
    "defaultOutputModes[text/plain]",
    "skills[echo].outputModes[text/plain]",
    "protocol.unknownTask",
    "protocol.historyLength",
    "protocol.blocking",
    "inputModes.undeclaredRefused",
];

/// The task basics only a v1.0 endpoint declares.
const DECLARED_V1_0: &[&str] = &[
    "protocol.versionNegotiation",
    "protocol.terminalSubscribe",
    "protocol.contextMismatch",
    "protocol.listTasks",
];

fn assert_all_honoured(out: &Outcome, version: &str, binding: &str) {
    assert_eq!(out.code, 0, "{}", out.explain());
    let peer = &out.report()["peers"][0];
    assert_eq!(peer["protocol_version"], version);
    assert_eq!(peer["binding"], binding);
    assert_eq!(out.report()["schema_version"], 1);
    assert_eq!(out.report()["tool"]["name"], "a2a-conform");
    for id in DECLARED {
        assert_eq!(out.declaration(id), "honoured", "{id}: {}", out.explain());
    }
    assert_eq!(
        out.declaration("capabilities.pushNotifications"),
        "not-declared"
    );
    assert_eq!(
        out.declaration("capabilities.extendedAgentCard"),
        "not-declared"
    );
    assert_eq!(
        out.scenario("extended-card-refused-when-undeclared"),
        "pass"
    );
    assert_eq!(out.scenario("streaming-probe"), "pass");
    let interfaces: &[&str] = if version == "1.0" {
        &[
            "interfaces[JSONRPC 1.0]",
            "interfaces[HTTP+JSON 1.0]",
            // The two bindings answer alike (bindings-agree), whichever the check speaks.
            "interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]",
        ]
    } else {
        &[
            "interfaces[JSONRPC 0.3]",
            "interfaces[HTTP+JSON 0.3]",
            "interfaces[HTTP+JSON 0.3] ≡ interfaces[JSONRPC 0.3]",
        ]
    };
    for id in interfaces {
        assert_eq!(out.declaration(id), "honoured", "{id}: {}", out.explain());
    }
    let v1_only = if version == "1.0" {
        "honoured"
    } else {
        "not-declared"
    };
    for id in DECLARED_V1_0 {
        assert_eq!(out.declaration(id), v1_only, "{id}: {}", out.explain());
    }
    let honoured = DECLARED.len()
        + interfaces.len()
        + if version == "1.0" {
            DECLARED_V1_0.len()
        } else {
            0
        };
    let headline = out.stdout.lines().last().unwrap_or_default();
    assert!(
        headline.starts_with("pass — ")
            && headline.contains(&format!("{honoured} honoured"))
            && !headline.contains("diverged"),
        "{}",
        out.stdout
    );
    assert_eq!(out.report()["summary"]["declarations"]["diverged"], 0);
}

#[test]
fn honest_v1_0_peer_honours_every_declaration_over_jsonrpc() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &[]);
    assert_all_honoured(&out, "1.0", "jsonrpc");
}

#[test]
fn honest_v1_0_peer_honours_every_declaration_over_rest() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--binding", "rest"]);
    assert_all_honoured(&out, "1.0", "rest");
    let endpoint = out.report()["peers"][0]["endpoint"].as_str().unwrap();
    assert!(endpoint.ends_with("/a2a/rest"), "{endpoint}");
}

#[test]
fn honest_v0_3_peer_honours_every_declaration() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::Honest);
    let out = check(&peer.card_url(), &[]);
    assert_all_honoured(&out, "0.3", "jsonrpc");
}

#[test]
fn a_base_url_finds_the_well_known_card() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.base_url(), &["--scenario", "streaming-probe"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.report()["peers"][0]["card_url"], peer.card_url());
}

#[test]
fn no_server_is_exit_3_naming_the_url() {
    let url = format!("http://127.0.0.1:{}", closed_port());
    let out = check(&url, &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.stderr.contains(&url), "{}", out.stderr);
    assert!(
        out.stderr.to_lowercase().contains("refused"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_missing_card_is_exit_3_with_the_status() {
    let server = serve_static(404, "text/plain", b"not here".to_vec());
    let out = check(&server.base_url, &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.stderr.contains("HTTP 404"), "{}", out.stderr);
    assert!(
        out.stderr.contains("/.well-known/agent-card.json"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_card_that_is_not_json_is_exit_3() {
    let server = serve_static(200, "application/json", fixture("cards/not_json.txt"));
    let out = check(&server.base_url, &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.stderr.contains("is not valid JSON"), "{}", out.stderr);
}

#[test]
fn a_v1_card_without_interfaces_is_exit_3_naming_the_field() {
    let server = serve_static(
        200,
        "application/json",
        fixture("cards/missing_interfaces.json"),
    );
    let out = check(&server.base_url, &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.stderr.contains("supportedInterfaces"), "{}", out.stderr);
}

#[test]
fn a_v0_3_card_without_url_is_exit_3_naming_the_field() {
    let server = serve_static(
        200,
        "application/json",
        fixture("cards/missing_url_v03.json"),
    );
    let out = check(&server.base_url, &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(out.stderr.contains("`url`"), "{}", out.stderr);
}

#[test]
fn an_undeclared_media_type_accepted_is_a_warning_and_diverges_under_strict() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputUndeclaredAccepted);
    let only = ["--scenario", "input-mode-undeclared-refused"];
    let out = check(&peer.card_url(), &only);
    let row = "inputModes.undeclaredRefused";
    assert_eq!(out.declaration(row), "unverified", "{}", out.explain());
    assert_eq!(
        out.scenario("input-mode-undeclared-refused"),
        "inconclusive"
    );
    let strict = check(&peer.card_url(), &[only.as_slice(), &["--strict"]].concat());
    assert_eq!(strict.declaration(row), "diverged", "{}", strict.explain());
    assert_eq!(strict.code, 1, "{}", strict.explain());
    // The honest peer refuses it with -32005, on every binding it serves.
    let honest = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    for binding in ["jsonrpc", "rest"] {
        let out = check(
            &honest.card_url(),
            &[only.as_slice(), &["--binding", binding, "--strict"]].concat(),
        );
        assert_eq!(
            out.declaration(row),
            "honoured",
            "{binding}: {}",
            out.explain()
        );
    }
}

#[test]
fn nothing_verified_is_exit_4_never_success() {
    // Streaming is not declared, so the only selected scenario is skipped.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::UndeclaredStreamingRefused);
    let out = check(&peer.card_url(), &["--scenario", "streaming-probe"]);
    assert_eq!(out.code, 4, "{}", out.explain());
    assert_eq!(out.scenario("streaming-probe"), "skipped");
}

#[test]
fn unset_input_prompt_leaves_input_modes_unverified_with_the_reason() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--var", "prompt_input_required="]);
    assert_eq!(
        out.code,
        0,
        "other declarations are still honoured: {}",
        out.explain()
    );
    assert_eq!(
        out.declaration("defaultInputModes[application/json]"),
        "unverified"
    );
    let runs = out.report()["peers"][0]["scenarios"].as_array().unwrap();
    let run = runs
        .iter()
        .find(|r| r["id"] == "input-mode-resume[text/plain]")
        .unwrap();
    assert_eq!(run["verdict"], "inconclusive");
    assert!(
        run["message"]
            .as_str()
            .unwrap()
            .contains("prompt_input_required"),
        "{run:#}"
    );
    // Only the input-mode scenario: nothing verified at all is exit 4.
    let out = check(
        &peer.card_url(),
        &[
            "--var",
            "prompt_input_required=",
            "--scenario",
            "input-mode-resume",
        ],
    );
    assert_eq!(out.code, 4, "{}", out.explain());
}

#[test]
fn the_bearer_token_never_reaches_a_report() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let token = "sk-test-9f8e7d6c5b4a";
    let card = peer.card_url();
    let mut args = vec!["check", card.as_str()];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(&["--bearer-env", "PEER_TOKEN", "-v"]);
    let out = run_env(&args, &[("PEER_TOKEN", token)]);
    assert_eq!(out.code, 1, "cancel-leak diverges: {}", out.explain());
    let report = out.report().to_string();
    assert!(
        report.contains("Bearer $PEER_TOKEN"),
        "the reproduction names the variable"
    );
    assert!(!report.contains(token), "token leaked into the JSON report");
    assert!(
        !out.stdout.contains(token),
        "token leaked into the terminal report"
    );
    assert!(!out.stderr.contains(token), "token leaked into stderr");
}

#[test]
fn usage_errors_are_exit_2() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "no-such-scenario"]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("no-such-scenario"));
    let out = check(&peer.card_url(), &["--var", "novalue"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("NAME=VALUE"));
    let out = check(
        &peer.card_url(),
        &["--bearer-env", "A2A_CONFORM_SURELY_UNSET"],
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("A2A_CONFORM_SURELY_UNSET"));
    let out = check(&peer.card_url(), &["--timeout", "soon"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("soon"));
}

#[test]
fn demo_runs_the_embedded_default_with_no_peer_of_your_own() {
    let out = run(&["demo", "-q"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.declaration("capabilities.streaming"), "honoured");
    assert_eq!(out.declaration("lifecycle.cancel"), "honoured");
}

#[test]
fn mock_peer_command_prints_its_card_url_and_serves_a_checkable_peer() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args([
            "mock-peer",
            "--protocol",
            "0.3",
            "--chunks",
            "4",
            "--chunk-interval",
            "80ms",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mock-peer starts");
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = child.stdout.take().expect("stdout");
    let guard = Kill(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("mock-peer prints its card URL within 30 s");
    let card = line.trim();
    assert!(
        card.starts_with("http://127.0.0.1:") && card.ends_with("/.well-known/agent-card.json"),
        "{card}"
    );
    let out = check(card, &[]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.report()["peers"][0]["protocol_version"], "0.3");
    drop(guard);
}

#[test]
fn a_closed_stdout_ends_the_listing_quietly_not_with_a_panic() {
    use std::process::{Command, Stdio};
    for args in [&["suite", "list"][..], &["man"], &["completions", "bash"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("a2a-conform starts");
        // The reader goes away before the first line is written (`| head -0`).
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("it ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
}

#[test]
fn card_takes_color_as_check_does() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let always = run(&["card", &card, "--color", "always"]);
    assert_eq!(always.code, 0, "{}", always.explain());
    assert!(
        always.stdout.contains("\x1b[32mdeclared\x1b[0m"),
        "{}",
        always.stdout
    );
    for (args, env) in [
        (vec!["card", &card, "--color", "never"], ("NO_COLOR", "")),
        // Under auto, NO_COLOR turns colour off (so does a pipe).
        (vec!["card", &card, "--color", "auto"], ("NO_COLOR", "1")),
        (vec!["card", &card], ("NO_COLOR", "1")),
    ] {
        let out = run_env(&args, &[env]);
        assert_eq!(out.code, 0, "{args:?}: {}", out.explain());
        assert!(out.stdout.contains("declared"), "{}", out.stdout);
        assert!(!out.stdout.contains('\x1b'), "{args:?}: {}", out.stdout);
    }
    let bad = run(&["card", &card, "--color", "sometimes"]);
    assert_eq!(bad.code, 2, "{}", bad.explain());
}
