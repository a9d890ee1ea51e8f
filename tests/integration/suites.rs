//! The scenario language end to end: invalid suites give positioned errors
//! (snapshotted), and a scenario written only in a fixture YAML runs through
//! `check --suite` — passing against an honest peer, failing against a
//! divergent one — with no Rust change.

use crate::common::*;
use a2a_conform_engine::scenario::Suite;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use std::path::Path;

#[test]
fn every_invalid_suite_gives_a_positioned_error_and_none_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/suites/invalid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures/suites/invalid exists")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the invalid-suite fixtures, found {files:?}"
    );
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let relative = format!(
            "fixtures/suites/invalid/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let error = Suite::default()
            .add(&relative, &text)
            .expect_err(&format!("{relative} must be rejected"));
        assert!(
            error.line > 0 && error.column > 0,
            "{relative}: no position in {error}"
        );
        let rendered = error.to_string();
        assert!(
            rendered.starts_with(&format!(
                "error: {relative}:{}:{}: ",
                error.line, error.column
            )),
            "{rendered}"
        );
        insta::assert_snapshot!(name, rendered);
    }
}

#[test]
fn suite_lint_exits_2_on_an_invalid_file_and_0_on_a_valid_one() {
    let bad = format!(
        "{}/fixtures/suites/invalid/unknown-step.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = run(&["suite", "lint", &bad]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("unknown-step.yaml:7:9"),
        "{}",
        out.stderr
    );
    let good = format!(
        "{}/fixtures/suites/lifecycle-extras.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = run(&["suite", "lint", &good]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(out.stdout.contains("2 scenario(s)"), "{}", out.stdout);
}

#[test]
fn suite_list_names_every_default_scenario_and_what_it_verifies() {
    let out = run(&["suite", "list"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    for line in [
        "streaming-probe  verifies capabilities.streaming",
        "cancel-then-stream  verifies lifecycle.cancel",
        "input-mode-resume  verifies ${declaration}",
        "completion-stability  verifies lifecycle.completion",
        "push-delivers  verifies capabilities.pushNotifications",
        "push-refused-when-undeclared  verifies capabilities.pushNotifications",
    ] {
        assert!(
            out.stdout.contains(line),
            "missing `{line}` in\n{}",
            out.stdout
        );
    }
}

fn extras() -> String {
    format!(
        "{}/fixtures/suites/lifecycle-extras.yaml",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn a_yaml_only_scenario_passes_against_an_honest_peer() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::Honest);
        let suite = extras();
        let out = check(&peer.card_url(), &["--suite", &suite, "--no-default-suite"]);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        assert_eq!(out.scenario("second-cancel"), "pass", "{}", out.explain());
        assert_eq!(
            out.scenario("canceled-stays-canceled"),
            "pass",
            "{}",
            out.explain()
        );
        assert_eq!(out.declaration("lifecycle.cancel"), "honoured");
    }
}

#[test]
fn a_yaml_only_scenario_fails_against_a_peer_that_breaks_it() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::CancelLeak);
        let suite = extras();
        let out = check(
            &peer.card_url(),
            &[
                "--suite",
                &suite,
                "--no-default-suite",
                "--scenario",
                "canceled-stays-canceled",
                // The leaking mock completes its work ~0.5 s after the
                // cancel; under CPU load that can take longer than the
                // fixture's 500 ms settle, and the task would still (truly)
                // read canceled.
                "--var",
                "settle=2s",
            ],
        );
        assert_eq!(out.code, 1, "{version}: {}", out.explain());
        assert_eq!(out.scenario("canceled-stays-canceled"), "fail");
        let run = out.run("canceled-stays-canceled");
        assert!(
            run["message"].as_str().unwrap().contains("reads completed"),
            "{run:#}"
        );
        assert_eq!(out.declaration("lifecycle.cancel"), "diverged");
    }
}

#[test]
fn a_suite_added_with_a_duplicate_default_id_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dup.yaml");
    std::fs::write(
        &file,
        "scenarios:\n  - id: streaming-probe\n    title: again\n    verifies: [x]\n    steps:\n      - sleep: 1s\n",
    )
    .unwrap();
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--suite", file.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("duplicate scenario id `streaming-probe`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("scenarios/streaming.yaml"),
        "{}",
        out.stderr
    );
}

#[test]
fn suite_lint_and_check_reject_a_file_that_redefines_a_default_id_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dup.yaml");
    std::fs::write(
        &file,
        "scenarios:\n  - id: streaming-probe\n    title: again\n    verifies: [x-own.again]\n    steps:\n      - sleep: 1s\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let lint = run(&["suite", "lint", path]);
    assert_eq!(lint.code, 2, "{}", lint.explain());
    // Refused while loading, before any request: the port is closed.
    let card = format!("http://127.0.0.1:{}", closed_port());
    let check = run(&["check", &card, "--suite", path]);
    assert_eq!(check.code, 2, "{}", check.explain());
    let error = |stderr: &str| {
        stderr
            .lines()
            .find(|l| l.contains("duplicate scenario id `streaming-probe`"))
            .map(str::to_string)
    };
    assert!(error(&lint.stderr).is_some(), "{}", lint.explain());
    assert_eq!(
        error(&lint.stderr),
        error(&check.stderr),
        "{}",
        check.explain()
    );
    // Alone, as `check --no-default-suite` would run it, the file is fine.
    let alone = run(&["suite", "lint", "--no-default-suite", path]);
    assert_eq!(alone.code, 0, "{}", alone.explain());
    let check = run(&["check", &card, "--no-default-suite", "--suite", path]);
    assert_eq!(
        check.code,
        3,
        "past the suite, the closed port: {}",
        check.explain()
    );
}

#[test]
fn a_profile_sets_variables_and_a_bad_profile_is_exit_2() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("peer.yaml");
    let only = ["--scenario", "input-mode-resume"];
    // Without a profile (and no search) the input prompt is unset: nothing
    // can be verified.
    let out = run(&["check", &card, only[0], only[1], "--no-discover"]);
    assert_eq!(out.code, 4, "{}", out.explain());
    std::fs::write(
        &profile,
        "vars:\n  prompt_input_required: need-input please\n",
    )
    .unwrap();
    let p = profile.to_str().unwrap();
    let out = run(&["check", &card, only[0], only[1], "--profile", p]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        out.declaration("defaultInputModes[application/json]"),
        "honoured"
    );
    // --var wins over the profile.
    let out = run(&[
        "check",
        &card,
        only[0],
        only[1],
        "--profile",
        p,
        "--var",
        "prompt_input_required=",
    ]);
    assert_eq!(out.code, 4, "{}", out.explain());
    std::fs::write(&profile, "varz: {}\n").unwrap();
    let out = run(&["check", &card, "--profile", p]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("peer.yaml:1:1"), "{}", out.stderr);
}

#[test]
fn typos_in_var_names_and_scenario_ids_are_usage_errors_with_the_closest_name() {
    // Refused before any request: the card URL points at a closed port.
    let card = format!("http://127.0.0.1:{}", closed_port());
    let out = run(&[
        "check",
        &card,
        "--var",
        "prompt_input_requred=I need a date",
    ]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("unknown variable `prompt_input_requred`")
            && out.stderr.contains("did you mean `prompt_input_required`?"),
        "{}",
        out.explain()
    );
    let out = run(&["check", &card, "--scenario", "streaming-prob"]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("no scenario `streaming-prob`")
            && out.stderr.contains("did you mean `streaming-probe`?"),
        "{}",
        out.explain()
    );
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("peer.yaml");
    std::fs::write(&profile, "vars:\n  probe_windo: 3s\n").unwrap();
    let out = run(&["check", &card, "--profile", profile.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("profile ") && out.stderr.contains("did you mean `probe_window`?"),
        "{}",
        out.explain()
    );
    // A suite's own variable is known once that suite is loaded.
    let suite = dir.path().join("own.yaml");
    std::fs::write(
        &suite,
        "vars:\n  greeting: hi\nscenarios:\n  - id: own-var\n    title: t\n    verifies: [x-own.greeting]\n    steps:\n      - send: { as: t, text: \"${greeting}\" }\n",
    )
    .unwrap();
    let out = run(&["suite", "lint", suite.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let out = run(&[
        "check",
        &card,
        "--suite",
        suite.to_str().unwrap(),
        "--var",
        "greeting=hello",
    ]);
    assert_eq!(
        out.code,
        3,
        "past the names, the closed port: {}",
        out.explain()
    );
}
