//! Every report format end to end: the built binary checks the real mock
//! peer (honest, cancel-leak, input-overdeclared) and writes the terminal,
//! JSON, JUnit and Markdown reports, snapshotted with what varies redacted;
//! the JUnit report validates against the committed XSD with xmllint. A
//! report holding every verdict (flaky and retried runs, a known divergence,
//! an unusable card) is rendered through the library and checked the same way.

use crate::gating;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use a2a_conform_report::builder::ScenarioReportBuilder;
use a2a_conform_report::evidence::{Evidence, EvidenceKind};
use a2a_conform_report::format::{human, junit, markdown};
use a2a_conform_report::{
    self, BaselineEntryReport, BaselineReport, BaselineStatus, DeclarationReport,
    DeclarationVerdict, PeerReport, RunReport, ScenarioReport, ScenarioVerdict, Tool,
};

fn every_format(behaviour: Behaviour, name: &str, code: i32) -> gating::Ran {
    let peer = gating::start(ProtocolVersion::V1_0, behaviour);
    let ran = gating::check(&peer.card_url(), &[]);
    assert_eq!(ran.code, code, "{}", ran.explain());
    if let Err(e) = gating::xmllint(&ran.junit_path) {
        panic!("the {name} JUnit report does not validate:\n{e}");
    }
    gating::redactions().bind(|| {
        insta::assert_snapshot!(format!("{name}-human"), ran.stdout);
        insta::assert_snapshot!(format!("{name}-json"), ran.json_text());
        insta::assert_snapshot!(
            format!("{name}-junit"),
            ran.junit.as_deref().expect("a JUnit report")
        );
        insta::assert_snapshot!(
            format!("{name}-markdown"),
            ran.markdown.as_deref().expect("a Markdown report")
        );
    });
    ran
}

#[test]
fn an_honest_peer_in_every_format() {
    let ran = every_format(Behaviour::Honest, "honest", 0);
    let junit = ran.junit.as_deref().unwrap();
    assert!(junit.contains(r#"failures="0" errors="0""#), "{junit}");
    let md = ran.markdown.as_deref().unwrap();
    assert!(md.contains("**Result: ✅ pass**"), "{md}");
}

#[test]
fn a_cancel_leak_in_every_format() {
    let ran = every_format(Behaviour::CancelLeak, "cancel-leak", 1);
    let junit = ran.junit.as_deref().unwrap();
    assert!(junit.contains(r#"failures="1""#), "{junit}");
    assert!(
        junit.contains("<failure message=\"the stream kept emitting"),
        "{junit}"
    );
    assert!(junit.contains("<system-out>"), "{junit}");
    assert!(junit.contains("reproduce: curl"), "{junit}");
    let md = ran.markdown.as_deref().unwrap();
    assert!(
        md.contains("| `lifecycle.cancel` | ❌&nbsp;**diverged** |"),
        "{md}"
    );
    assert!(md.contains("```sh\ncurl "), "{md}");
}

#[test]
fn an_overdeclared_input_mode_in_every_format() {
    let ran = every_format(Behaviour::InputOverdeclared, "input-overdeclared", 1);
    let junit = ran.junit.as_deref().unwrap();
    assert!(
        junit.contains(r#"<testcase name="input-mode-resume[application/json]""#),
        "{junit}"
    );
    assert!(junit.contains(r#"failures="2""#), "{junit}");
}

#[test]
fn the_bearer_token_never_reaches_a_report_file() {
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let token = "sk-test-0a1b2c3d4e5f";
    let ran = gating::check_env(
        &peer.card_url(),
        &[
            "--scenario",
            "cancel-then-stream",
            "--bearer-env",
            "PEER_TOKEN",
        ],
        &[("PEER_TOKEN", token)],
    );
    assert_eq!(ran.code, 1, "{}", ran.explain());
    let junit = ran.junit.as_deref().expect("a JUnit report");
    let md = ran.markdown.as_deref().expect("a Markdown report");
    assert!(
        junit.contains("Bearer $PEER_TOKEN"),
        "the reproduction names the variable: {junit}"
    );
    assert!(md.contains("Bearer $PEER_TOKEN"), "{md}");
    for (name, text) in [
        ("JUnit", junit),
        ("Markdown", md),
        ("JSON", ran.json_text()),
        ("stdout", ran.stdout.as_str()),
        ("stderr", ran.stderr.as_str()),
    ] {
        assert!(
            !text.contains(token),
            "the token leaked into the {name} output"
        );
    }
}

#[test]
fn xmllint_rejects_junit_that_breaks_the_schema() {
    // The validation above means something only if a broken file fails it.
    let broken = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="a2a-conform" tests="1" skipped="0" failures="0" errors="0">
    <testsuite name="x" tests="1" errors="0" failures="0">
        <testcase classname="x" time="0.1"/>
    </testsuite>
</testsuites>
"#;
    let error = gating::xmllint_text(broken).expect_err("a testcase without a name is invalid");
    assert!(error.contains("'name' is required"), "{error}");
    let bad_rerun = broken.replace(
        r#"<testcase classname="x" time="0.1"/>"#,
        r#"<testcase name="t"><flakyFailure message="m">x</flakyFailure></testcase>"#,
    );
    let error = gating::xmllint_text(&bad_rerun).expect_err("a flakyFailure needs a type");
    assert!(error.contains("'type' is required"), "{error}");
}

fn evidence() -> Vec<Evidence> {
    vec![
        Evidence {
            at_ms: 0,
            kind: EvidenceKind::Request,
            summary: "→ POST http://peer.example/a2a CancelTask (JSON-RPC)".into(),
            body: Some(r#"{"jsonrpc":"2.0","id":1,"method":"CancelTask"}"#.into()),
            curl: Some(
                "curl -sS -X POST 'http://peer.example/a2a' -H 'Authorization: Bearer $TOKEN' -d '{\"jsonrpc\":\"2.0\"}'"
                    .into(),
            ),
        },
        Evidence {
            at_ms: 210,
            kind: EvidenceKind::Event,
            summary: "event #4 artifact-update artifactId=a1 <after> & \"cancel\"".into(),
            body: None,
            curl: None,
        },
    ]
}

fn run(id: &str, verifies: &str, verdict: ScenarioVerdict, message: &str) -> ScenarioReportBuilder {
    let evidence = if matches!(verdict, ScenarioVerdict::Pass | ScenarioVerdict::Skipped) {
        vec![]
    } else {
        evidence()
    };
    ScenarioReport::builder(id, verdict)
        .title(&format!("{id} title"))
        .verifies(verifies)
        .duration_ms(1234)
        .message(message)
        .evidence(evidence)
}

/// A report with every verdict the formats must show: built through the
/// library's types, as the runner and the baseline would fill them.
fn every_verdict() -> RunReport {
    let flaky = run(
        "cancel-then-stream",
        "lifecycle.cancel",
        ScenarioVerdict::Flaky,
        "passed on attempt 3 after failing: the stream kept emitting",
    )
    .attempts(3, &["the stream kept emitting", "the task read completed"]);
    let retried = run(
        "completion-stability",
        "lifecycle.completion",
        ScenarioVerdict::Fail,
        "the artifacts changed",
    )
    .attempts(2, &["the artifacts changed once"]);
    let known = run(
        "input-mode-resume[application/json]",
        "defaultInputModes[application/json]",
        ScenarioVerdict::Fail,
        "resume with application/json was refused: -32602",
    )
    .baselined("ACME-412: JSON resume ships in 2.4");
    let scenarios = [
        run(
            "streaming-probe",
            "capabilities.streaming",
            ScenarioVerdict::Pass,
            "all 3 steps passed",
        ),
        flaky,
        retried,
        known,
        run(
            "input-mode-resume[text/plain]",
            "defaultInputModes[text/plain]",
            ScenarioVerdict::Inconclusive,
            "the task never asked for input",
        ),
        run(
            "streaming-refused-when-undeclared",
            "capabilities.streaming",
            ScenarioVerdict::Skipped,
            "the card declares capabilities.streaming",
        ),
        run(
            "completion-stream-quiet",
            "lifecycle.completion",
            ScenarioVerdict::Error,
            "cannot reach http://peer.example/a2a: connection refused",
        ),
    ]
    .into_iter()
    .map(ScenarioReportBuilder::build)
    .collect();
    let row =
        |id: &str, verdict, reason: &str| DeclarationReport::builder(id, verdict).reason(reason);
    let declarations = vec![
        row(
            "capabilities.streaming",
            DeclarationVerdict::Honoured,
            "1 scenario run(s) passed",
        )
        .build(),
        row(
            "lifecycle.cancel",
            DeclarationVerdict::Honoured,
            "1 scenario run(s) passed; flaky: cancel-then-stream",
        )
        .build(),
        row(
            "lifecycle.completion",
            DeclarationVerdict::Diverged,
            "completion-stability: the artifacts changed (and 1 more failing run(s))",
        )
        .build(),
        row(
            "defaultInputModes[application/json]",
            DeclarationVerdict::Diverged,
            "input-mode-resume[application/json]: resume with application/json was refused: -32602",
        )
        .baselined("ACME-412: JSON resume ships in 2.4")
        .build(),
        row(
            "defaultInputModes[text/plain]",
            DeclarationVerdict::Unverified,
            "input-mode-resume[text/plain] inconclusive: the task never asked for input",
        )
        .build(),
    ];
    RunReport {
        schema_version: a2a_conform_report::SCHEMA_VERSION,
        tool: Tool {
            name: "a2a-conform".into(),
            version: "0.0.0-test".into(),
            insecure: false,
        },
        started_at: "2026-11-30T09:23:38Z".into(),
        peers: vec![
            PeerReport::builder("http://peer.example/.well-known/agent-card.json")
                .name("Example peer")
                .card_digest("sha256:0123")
                .spoken("1.0", "jsonrpc", "http://peer.example/a2a")
                .card_warning("the card declares no skills")
                .declarations(declarations)
                .scenarios(scenarios)
                .duration_ms(2345)
                .build(),
            PeerReport::builder("http://gone.example/.well-known/agent-card.json")
                .card_error("cannot fetch the card: connection refused")
                .build(),
        ],
        fail_on_flaky: true,
        fail_on_unverified: false,
        interrupted: false,
        duration_ms: None,
        shard: None,
        baseline: Some(BaselineReport {
            file: "known-divergences.yaml".into(),
            strict: true,
            entries: vec![
                BaselineEntryReport {
                    declaration: None,
                    scenario: Some("input-mode-resume[application/json]".into()),
                    reason: "ACME-412: JSON resume ships in 2.4".into(),
                    status: BaselineStatus::Applied,
                    note: "input-mode-resume[application/json] reads fail".into(),
                },
                BaselineEntryReport {
                    declaration: Some("capabilities.streaming".into()),
                    scenario: None,
                    reason: "streams were flaky before 2.3".into(),
                    status: BaselineStatus::Stale,
                    note: "capabilities.streaming reads honoured".into(),
                },
            ],
        }),
        summary: None,
    }
}

#[test]
fn every_verdict_shows_in_every_format_and_the_junit_validates() {
    let report = every_verdict();
    let xml = junit::render(&report).expect("renders");
    if let Err(e) = gating::xmllint_text(&xml) {
        panic!("the JUnit report does not validate:\n{e}\n{xml}");
    }
    for expected in [
        "<flakyFailure message=\"the stream kept emitting\" type=\"fail\">",
        "<flakyFailure message=\"the task read completed\" type=\"fail\">",
        "<rerunFailure message=\"the artifacts changed once\" type=\"fail\">",
        "<failure message=\"the artifacts changed\" type=\"fail\">",
        "<skipped message=\"known divergence (baseline: ACME-412: JSON resume ships in 2.4)",
        "<skipped message=\"inconclusive: the task never asked for input\" type=\"inconclusive\">",
        "<error message=\"cannot reach",
        "<testcase name=\"agent-card\"",
    ] {
        assert!(xml.contains(expected), "missing {expected} in\n{xml}");
    }
    let md = markdown::render(&report);
    let style = human::Style {
        color: false,
        verbose: false,
        quiet: false,
        width: None,
    };
    let text = human::render(&report, style);
    for (format, out) in [("markdown", &md), ("human", &text)] {
        assert!(out.contains("flaky"), "{format}: flaky not visible\n{out}");
        assert!(out.contains("baselined"), "{format}\n{out}");
        assert!(out.contains("stale"), "{format}\n{out}");
    }
    let json = report.to_json();
    assert!(json.contains("\"verdict\": \"flaky\""));
    assert!(json.contains("\"failed_attempts\""));
    assert!(json.contains("\"baselined\": true"));
    insta::assert_snapshot!("every-verdict-junit", xml);
    insta::assert_snapshot!("every-verdict-markdown", md);
    insta::assert_snapshot!("every-verdict-human", text);
}

#[test]
fn every_headline_says_the_counts_and_unverified_rows_fail_only_under_the_flag() {
    let peer = crate::common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("summary.md");
    let xml = dir.path().join("junit.xml");
    // No prompt variable and no search: the input-mode rows stay unverified.
    let mut args = vec![
        "check",
        &card,
        "--no-discover",
        "--scenario",
        "streaming-probe",
        "--scenario",
        "input-mode-resume",
        "--markdown",
        md.to_str().unwrap(),
        "--junit",
        xml.to_str().unwrap(),
    ];
    let out = crate::common::run(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let summary = &out.report()["summary"];
    let count = |k: &str| summary["declarations"][k].as_u64().unwrap();
    let (honoured, unverified) = (count("honoured"), count("unverified"));
    assert!(honoured >= 1 && unverified >= 2, "{summary}");
    assert_eq!(summary["every_declaration_honoured"], false);
    let headline = format!("pass — {honoured} honoured, {unverified} unverified");
    assert!(out.stdout.contains(&headline), "{}", out.stdout);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains(&format!(
            "**Result: ✅ pass** — {honoured} honoured, {unverified} unverified"
        )),
        "{md}"
    );
    let xml = std::fs::read_to_string(&xml).unwrap();
    assert!(
        xml.contains(&format!(r#"<property name="summary" value="{headline}"/>"#)),
        "{xml}"
    );
    for text in [&out.stdout, &md, &xml] {
        assert!(!text.contains("every declaration honoured"), "{text}");
    }
    args.push("--fail-on-unverified");
    let out = crate::common::run(&args);
    assert_eq!(out.code, 4, "{}", out.stderr);
    let named: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("fails the run: ") && l.contains(" unverified: "))
        .collect();
    assert_eq!(named.len() as u64, unverified, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("fails the run: defaultInputModes[text/plain] unverified: "),
        "{}",
        out.stderr
    );
    assert_eq!(out.report()["summary"]["outcome"], "unverified");
    // Exit 4 without the flag: nothing verified, and stderr says so.
    let out = crate::common::run(&[
        "check",
        &card,
        "--no-discover",
        "--scenario",
        "input-mode-resume",
    ]);
    assert_eq!(out.code, 4, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("fails the run: nothing was verified: no declaration reads honoured"),
        "{}",
        out.stderr
    );
    assert!(
        out.stdout.contains("nothing verified — 0 honoured"),
        "{}",
        out.stdout
    );
}

#[test]
fn quiet_prints_the_headline_and_failures_verbose_the_evidence_of_passing_runs() {
    let peer = crate::common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let only = ["--scenario", "streaming-probe"];
    let out = crate::common::run(&["check", &card, only[0], only[1], "-q"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("pass — 1 honoured"),
        "only the headline: {}",
        out.stdout
    );
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    let leak = gating::start(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let out = crate::common::run(&[
        "check",
        &leak.card_url(),
        "--scenario",
        "cancel-then-stream",
        "-q",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines.len(),
        4,
        "title, header, the failing row, headline: {}",
        out.stdout
    );
    assert!(
        lines[2].starts_with("  lifecycle.cancel "),
        "{}",
        out.stdout
    );
    assert!(
        lines[3].starts_with("fail — 0 honoured, 1 diverged"),
        "{}",
        out.stdout
    );
    let out = crate::common::run(&["check", &card, only[0], only[1], "-v"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("pass streaming-probe"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("→ POST"),
        "the passing run's evidence: {}",
        out.stdout
    );
    assert!(!out.report()["peers"][0]["scenarios"][0]["evidence"]
        .as_array()
        .unwrap()
        .is_empty());
    let out = crate::common::run(&["check", &card, only[0], only[1]]);
    assert!(!out.stdout.contains("→ POST"), "{}", out.stdout);
}
