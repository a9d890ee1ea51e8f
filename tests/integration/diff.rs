//! `diff` end to end on real reports: the built binary checks the mock peer
//! (honest, cancel-leak, streaming refused) and writes JSON reports, then
//! `diff` compares them — regressions, fixes, drift, `--fail-on`, `--json`,
//! and the usage errors (unreadable, not a report, schema versions).

use crate::common;
use crate::gating;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A JSON report of `behaviour`, checked with only `scenarios`, copied to `dir/name`.
fn report(behaviour: Behaviour, scenarios: &[&str], dir: &Path, name: &str) -> PathBuf {
    let peer = gating::start(ProtocolVersion::V1_0, behaviour);
    let mut extra = Vec::new();
    for s in scenarios {
        extra.extend(["--scenario", s]);
    }
    let ran = gating::check(&peer.card_url(), &extra);
    // 0, 1, or 4 (nothing verified): a report either way.
    assert!(matches!(ran.code, 0 | 1 | 4), "{}", ran.explain());
    let path = dir.join(name);
    std::fs::copy(&ran.json_path, &path).expect("copy the report");
    path
}

struct Diffed {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Diffed {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("diff --json printed no JSON ({e}):\n{}", self.stdout))
    }
    fn explain(&self) -> String {
        format!(
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn diff(old: &Path, new: &Path, extra: &[&str]) -> Diffed {
    let (old, new) = (old.display().to_string(), new.display().to_string());
    let mut args = vec!["diff", old.as_str(), new.as_str()];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = gating::binary(&args);
    Diffed {
        code,
        stdout,
        stderr,
    }
}

fn change<'a>(d: &'a Value, kind: &str, id: &str) -> &'a Value {
    d["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["kind"] == kind && c["id"] == id)
        .unwrap_or_else(|| panic!("no {kind} change {id} in {d:#}"))
}

fn cancel_reports(dir: &Path) -> (PathBuf, PathBuf) {
    let only = ["cancel-then-stream"];
    (
        report(Behaviour::Honest, &only, dir, "honest.json"),
        report(Behaviour::CancelLeak, &only, dir, "cancel-leak.json"),
    )
}

#[test]
fn honest_to_cancel_leak_is_a_regression_and_the_reverse_a_fix() {
    let dir = tempfile::tempdir().unwrap();
    let (honest, leak) = cancel_reports(dir.path());

    let out = diff(&honest, &leak, &[]);
    assert_eq!(
        out.code,
        1,
        "a regression fails by default: {}",
        out.explain()
    );
    let tmp = dir.path().display().to_string();
    let tmp = [(tmp.as_str(), "[TMP]")];
    common::golden::assert_golden("diff/honest-to-cancel-leak.txt", &out.stdout, &tmp);
    for line in [
        "regression  declaration  lifecycle.cancel",
        "honoured → diverged",
        "regression  scenario     cancel-then-stream",
        "pass → fail",
        "drift       card         name",
        "(--fail-on regression)",
    ] {
        assert!(
            out.stdout.contains(line),
            "missing `{line}`:\n{}",
            out.stdout
        );
    }

    let out = diff(&honest, &leak, &["--json"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    common::golden::assert_golden("diff/honest-to-cancel-leak.json", &out.stdout, &tmp);
    let d = out.json();
    assert_eq!(d["schema_version"], 1);
    assert_eq!(d["fail_on"], "regression");
    assert_eq!(d["failed"], true);
    assert_eq!(d["summary"]["regressions"], 2);
    assert_eq!(d["summary"]["fixes"], 0);
    let row = change(&d, "declaration", "lifecycle.cancel");
    assert_eq!(row["label"], "regression");
    assert_eq!(row["old"], "honoured");
    assert_eq!(row["new"], "diverged");
    assert_eq!(
        change(&d, "scenario", "cancel-then-stream")["label"],
        "regression"
    );
    // The peers are matched although their ports differ, and a port alone is no change.
    assert!(
        !d["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "endpoint" || c["id"] == "card_digest"),
        "{d:#}"
    );
    // Regressions first.
    assert_eq!(d["changes"][0]["label"], "regression", "{d:#}");
    assert_eq!(d["old"]["file"], honest.display().to_string());

    let out = diff(&honest, &leak, &["--fail-on", "never"]);
    assert_eq!(out.code, 0, "{}", out.explain());

    let out = diff(&leak, &honest, &["--json"]);
    assert_eq!(out.code, 0, "a fix passes: {}", out.explain());
    common::golden::assert_golden("diff/cancel-leak-to-honest.json", &out.stdout, &tmp);
    let d = out.json();
    assert_eq!(d["summary"]["regressions"], 0);
    assert_eq!(d["summary"]["fixes"], 2);
    assert_eq!(
        change(&d, "declaration", "lifecycle.cancel")["label"],
        "fix"
    );
    assert_eq!(change(&d, "scenario", "cancel-then-stream")["label"], "fix");
    let out = diff(&leak, &honest, &["--fail-on", "any"]);
    assert_eq!(out.code, 1, "any change fails under any: {}", out.explain());
    assert!(out
        .stdout
        .contains("fix         declaration  lifecycle.cancel"));
}

#[test]
fn the_same_report_twice_has_no_changes() {
    let dir = tempfile::tempdir().unwrap();
    let honest = report(
        Behaviour::Honest,
        &["cancel-then-stream"],
        dir.path(),
        "h.json",
    );
    let out = diff(&honest, &honest, &["--fail-on", "any"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(out.stdout.contains("no changes"), "{}", out.stdout);
}

/// A card that starts declaring streaming: a real pair of reports, one peer
/// refusing streams while not declaring them, one declaring and serving them.
#[test]
fn a_newly_declared_capability_is_drift() {
    let dir = tempfile::tempdir().unwrap();
    let only = ["streaming-probe", "streaming-refused-when-undeclared"];
    let before = report(
        Behaviour::UndeclaredStreamingRefused,
        &only,
        dir.path(),
        "before.json",
    );
    let after = report(Behaviour::Honest, &only, dir.path(), "after.json");
    let out = diff(&before, &after, &["--json"]);
    assert_eq!(out.code, 0, "drift alone passes: {}", out.explain());
    let d = out.json();
    let row = change(&d, "declaration", "capabilities.streaming");
    assert_eq!(row["label"], "drift", "{row:#}");
    assert_eq!(row["old"], "not-declared");
    assert_eq!(row["new"], "honoured");
    assert!(row["message"]
        .as_str()
        .unwrap()
        .starts_with("now declared by the card"));
    // Dropping the honoured declaration again is a regression.
    let out = diff(&after, &before, &["--json"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    let d = out.json();
    let row = change(&d, "declaration", "capabilities.streaming");
    assert_eq!(row["label"], "regression", "{row:#}");
}

/// A card that adds a declaration the old one did not list at all: the new
/// report is a copy of a real one with a declaration row (and its passing
/// scenario run) added to its JSON, as a card adding `image/png` input would give.
#[test]
fn a_declaration_added_to_the_card_is_drift_and_dropping_it_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let old = report(
        Behaviour::Honest,
        &["input-mode-resume"],
        dir.path(),
        "old.json",
    );
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&old).unwrap()).unwrap();
    let peer = &mut value["peers"][0];
    peer["declarations"].as_array_mut().unwrap().push(json!({
        "id": "defaultInputModes[image/png]",
        "declared": true,
        "verdict": "honoured",
        "scenarios": ["input-mode-resume[image/png]"],
        "reason": "1 scenario run(s) passed"
    }));
    peer["scenarios"].as_array_mut().unwrap().push(json!({
        "id": "input-mode-resume[image/png]",
        "scenario": "input-mode-resume",
        "title": "A task waiting for input accepts a follow-up in each declared input mode",
        "verdict": "pass",
        "verifies": ["defaultInputModes[image/png]"],
        "duration_ms": 1000,
        "message": "all 4 steps passed",
        "attempts": 1
    }));
    let new = dir.path().join("new.json");
    std::fs::write(&new, serde_json::to_string_pretty(&value).unwrap()).unwrap();

    let out = diff(&old, &new, &["--json"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let d = out.json();
    let row = change(&d, "declaration", "defaultInputModes[image/png]");
    assert_eq!(row["label"], "drift");
    assert_eq!(row["old"], Value::Null);
    assert_eq!(row["new"], "honoured");
    assert_eq!(
        change(&d, "scenario", "input-mode-resume[image/png]")["label"],
        "drift"
    );
    assert_eq!(d["summary"]["regressions"], 0);
    let out = diff(&old, &new, &["--fail-on", "any"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert!(out
        .stdout
        .contains("drift       declaration  defaultInputModes[image/png]"));

    let out = diff(&new, &old, &["--json"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    let d = out.json();
    let row = change(&d, "declaration", "defaultInputModes[image/png]");
    assert_eq!(row["label"], "regression");
    assert_eq!(row["new"], Value::Null);
    assert!(row["message"]
        .as_str()
        .unwrap()
        .contains("dropped from the card"));
}

#[test]
fn reports_that_cannot_be_compared_are_usage_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let good = report(
        Behaviour::Honest,
        &["cancel-then-stream"],
        dir.path(),
        "good.json",
    );
    let text = std::fs::read_to_string(&good).unwrap();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value["schema_version"] = json!(2);
    let v2 = dir.path().join("v2.json");
    std::fs::write(&v2, value.to_string()).unwrap();

    let out = diff(&good, &v2, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    let g = good.display().to_string();
    let n = v2.display().to_string();
    assert!(
        out.stderr.contains(&format!(
            "{g} has schema_version 1 but {n} has schema_version 2"
        )),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);

    let out = diff(&v2, &v2, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("have schema_version 2; this a2a-conform reads schema_version 1"),
        "{}",
        out.stderr
    );

    let missing = dir.path().join("missing.json");
    let out = diff(&good, &missing, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains(&format!("cannot read {}", missing.display())),
        "{}",
        out.stderr
    );

    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "release notes, not a report").unwrap();
    let out = diff(&not_json, &good, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains(&format!(
            "{} is not an a2a-conform JSON report",
            not_json.display()
        )),
        "{}",
        out.stderr
    );

    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"name": "something else"}"#).unwrap();
    let out = diff(&good, &other, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("has no numeric `schema_version`"),
        "{}",
        out.stderr
    );

    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, r#"{"schema_version": 1, "peers": "none"}"#).unwrap();
    let out = diff(&good, &broken, &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("is not a valid a2a-conform report (schema_version 1)"),
        "{}",
        out.stderr
    );

    let out = diff(&good, &good, &["--fail-on", "sometimes"]);
    assert_eq!(out.code, 2, "{}", out.explain());
}

#[test]
fn a_release_gate_passes_known_divergences_and_accepted_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (honest, leak) = cancel_reports(dir.path());
    let known = dir.path().join("known.yaml");
    std::fs::write(
        &known,
        "- declaration: lifecycle.cancel\n  reason: ACME-412 leaks until 2.4\n",
    )
    .unwrap();
    let k = known.display().to_string();
    let out = diff(&honest, &leak, &["--baseline", &k, "--json"]);
    assert_eq!(
        out.code,
        0,
        "a known divergence is no regression: {}",
        out.explain()
    );
    let d = out.json();
    assert_eq!(d["summary"]["regressions"], 0, "{d:#}");
    assert_eq!(
        change(&d, "declaration", "lifecycle.cancel")["label"],
        "drift"
    );

    let out = diff(
        &honest,
        &leak,
        &["--accept", "lifecycle.cancel", "--accept", "no-such-id"],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    for line in [
        "accepted    declaration  lifecycle.cancel",
        "accepted    scenario     cancel-then-stream",
        "2 accepted",
    ] {
        assert!(
            out.stdout.contains(line),
            "missing `{line}`: {}",
            out.explain()
        );
    }
    assert!(
        out.stderr.contains("accepted `no-such-id` names no change"),
        "{}",
        out.explain()
    );

    let gate = dir.path().join("gate.yaml");
    std::fs::write(
        &gate,
        "accept:\n  - id: lifecycle.cancel\n    reason: cancel is reworked in 2.4\n",
    )
    .unwrap();
    let markdown = dir.path().join("diff.md");
    let (g, m) = (gate.display().to_string(), markdown.display().to_string());
    let out = diff(&honest, &leak, &["--baseline", &g, "--markdown", &m]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let md = std::fs::read_to_string(&markdown).expect("the Markdown is written");
    assert!(md.contains("**Result: ✅ passes**"), "{md}");
    assert!(md.contains("cancel is reworked in 2.4"), "{md}");

    let out = diff(&honest, &leak, &["--color", "always"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert!(
        out.stdout.contains("\x1b[31mregression"),
        "{}",
        out.explain()
    );
}
