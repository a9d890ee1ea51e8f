//! `--baseline`, `--strict-baseline` and `--fail-on-flaky` end to end: the
//! built binary checks the real mock peer with a baseline file of known
//! divergences, and every format shows what the baseline did.

use crate::common;
use crate::gating;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;
use std::path::PathBuf;

fn baseline_file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the baseline");
    path
}

fn declaration<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["peers"][0]["declarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .find(|d| d["id"] == id)
        .unwrap_or_else(|| panic!("no declaration {id}"))
}

fn run<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["peers"][0]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|d| d["id"] == id)
        .unwrap_or_else(|| panic!("no scenario run {id}"))
}

#[test]
fn a_known_divergence_passes_marked_in_every_format() {
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let dir = tempfile::tempdir().unwrap();
    let file = baseline_file(
        &dir,
        "known.yaml",
        "# cancel leaks until the 2.4 release\n\
         - declaration: lifecycle.cancel\n  reason: \"ACME-412: cancel leaks artifacts\"\n",
    );
    let file = file.display().to_string();
    let ran = gating::check(
        &peer.card_url(),
        &["--scenario", "cancel-then-stream", "--baseline", &file],
    );
    assert_eq!(ran.code, 0, "a known divergence passes: {}", ran.explain());
    // Every format of a baselined run, byte for byte (tests/golden/baseline/).
    let tmp = dir.path().display().to_string();
    let tmp = [(tmp.as_str(), "[TMP]")];
    for (ext, text) in [
        ("json", ran.json.as_deref()),
        ("xml", ran.junit.as_deref()),
        ("md", ran.markdown.as_deref()),
        ("txt", Some(ran.stdout.as_str())),
    ] {
        let text = text.unwrap_or_else(|| panic!("no {ext} report: {}", ran.explain()));
        common::golden::assert_golden(&format!("baseline/cancel-leak-known.{ext}"), text, &tmp);
    }
    let report = ran.json();
    let row = declaration(&report, "lifecycle.cancel");
    assert_eq!(row["verdict"], "diverged", "still diverged: {row:#}");
    assert_eq!(row["baselined"], true);
    assert_eq!(row["baseline_reason"], "ACME-412: cancel leaks artifacts");
    let cancel = run(&report, "cancel-then-stream");
    assert_eq!(cancel["verdict"], "fail");
    assert_eq!(cancel["baselined"], true);
    let entry = &report["baseline"]["entries"][0];
    assert_eq!(entry["declaration"], "lifecycle.cancel");
    assert_eq!(entry["status"], "applied");
    assert_eq!(report["baseline"]["file"], file);

    assert!(
        ran.stdout
            .contains("diverged       [baselined: ACME-412: cancel leaks artifacts]"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("pass — 0 honoured, 1 diverged (baselined), 19 unverified"),
        "{}",
        ran.stdout
    );
    let junit = ran.junit.as_deref().unwrap();
    assert!(junit.contains(r#"type="baselined""#), "{junit}");
    assert!(junit.contains(r#"failures="0""#), "{junit}");
    gating::xmllint(&ran.junit_path).expect("the JUnit report validates");
    let md = ran.markdown.as_deref().unwrap();
    assert!(
        md.contains("| `lifecycle.cancel` | ⚠️&nbsp;diverged&nbsp;(baselined) |"),
        "{md}"
    );
    assert!(md.contains("**Result: ✅ pass**"), "{md}");
}

#[test]
fn a_scenario_run_entry_excuses_that_run_and_a_json_baseline_loads() {
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let dir = tempfile::tempdir().unwrap();
    let file = baseline_file(
        &dir,
        "known.json",
        r#"[{"scenario": "cancel-then-stream", "reason": "ACME-412"}]"#,
    );
    let file = file.display().to_string();
    let ran = gating::check(
        &peer.card_url(),
        &["--scenario", "cancel-then-stream", "--baseline", &file],
    );
    assert_eq!(ran.code, 0, "{}", ran.explain());
    let report = ran.json();
    assert_eq!(declaration(&report, "lifecycle.cancel")["baselined"], true);
    assert_eq!(report["baseline"]["entries"][0]["status"], "applied");
}

#[test]
fn a_new_divergence_still_fails() {
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::InputOverdeclared);
    let dir = tempfile::tempdir().unwrap();
    let file = baseline_file(
        &dir,
        "known.yaml",
        "- declaration: defaultInputModes[application/json]\n  reason: JSON resume lands in 2.4\n",
    );
    let file = file.display().to_string();
    let ran = gating::check(
        &peer.card_url(),
        &["--scenario", "input-mode-resume", "--baseline", &file],
    );
    assert_eq!(ran.code, 1, "the skill's mode is new: {}", ran.explain());
    let report = ran.json();
    assert_eq!(
        declaration(&report, "defaultInputModes[application/json]")["baselined"],
        true
    );
    let skill = declaration(&report, "skills[echo].inputModes[application/json]");
    assert_eq!(skill["verdict"], "diverged");
    assert!(skill.get("baselined").is_none(), "{skill:#}");
    assert!(
        ran.stderr
            .contains("fails the run: skills[echo].inputModes[application/json] diverged"),
        "{}",
        ran.stderr
    );
    assert!(
        !ran.stderr
            .contains("fails the run: defaultInputModes[application/json]"),
        "{}",
        ran.stderr
    );
    let junit = ran.junit.as_deref().unwrap();
    assert!(junit.contains(r#"failures="1""#), "{junit}");
}

#[test]
fn a_stale_entry_warns_and_fails_only_with_strict_baseline() {
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().unwrap();
    let file = baseline_file(
        &dir,
        "known.yaml",
        "- declaration: lifecycle.cancel\n  reason: fixed in 2.4, surely\n\
         - scenario: no-such-run\n  reason: a typo\n",
    );
    let file = file.display().to_string();
    let args = ["--scenario", "cancel-then-stream", "--baseline", &file];
    let ran = gating::check(&peer.card_url(), &args);
    assert_eq!(ran.code, 0, "stale is only a warning: {}", ran.explain());
    assert!(
        ran.stderr.contains(&format!(
            "warning: baseline {file}: stale entry `declaration lifecycle.cancel`: lifecycle.cancel reads honoured; remove it"
        )),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("entry `scenario no-such-run` matches nothing in this run"),
        "{}",
        ran.stderr
    );
    let report = ran.json();
    assert_eq!(report["baseline"]["entries"][0]["status"], "stale");
    assert_eq!(report["baseline"]["entries"][1]["status"], "unmatched");
    assert!(ran.markdown.as_deref().unwrap().contains("**stale**"));

    let mut strict = args.to_vec();
    strict.push("--strict-baseline");
    let ran = gating::check(&peer.card_url(), &strict);
    assert_eq!(ran.code, 1, "strict: stale fails: {}", ran.explain());
    assert!(
        ran.stderr
            .contains("fails the run: baseline entry `declaration lifecycle.cancel` is stale"),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.json()["baseline"]["strict"], true);
    let md = ran.markdown.as_deref().unwrap();
    assert!(md.contains("**Result: ❌ fail**"), "{md}");
}

#[test]
fn a_bad_baseline_is_exit_2_with_its_position_before_any_peer_is_contacted() {
    let dir = tempfile::tempdir().unwrap();
    // Nothing listens here: exit 2, not 3, proves the file is read first.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let cases = [
        (
            "- declaration: lifecycle.cancel\n  reasn: typo\n",
            ":2:3: unknown field `reasn`",
        ),
        (
            "- declaration: lifecycle.cancel\n  reason: known\n- reason: which one?\n",
            ":3:3: an entry needs a `declaration: <id>` or a `scenario: <run id>`",
        ),
        ("declaration: lifecycle.cancel\n", ":1:1:"),
    ];
    for (text, expected) in cases {
        let file = baseline_file(&dir, "bad.yaml", text);
        let file = file.display().to_string();
        let ran = gating::check(&url, &["--baseline", &file]);
        assert_eq!(ran.code, 2, "{text:?}: {}", ran.explain());
        assert!(
            ran.stderr.contains(&format!("error: {file}{expected}")),
            "{text:?}: {}",
            ran.stderr
        );
        assert!(ran.json.is_none(), "no report for a usage error");
    }
    let missing = dir.path().join("missing.yaml").display().to_string();
    let ran = gating::check(&url, &["--baseline", &missing]);
    assert_eq!(ran.code, 2, "{}", ran.explain());
    assert!(
        ran.stderr
            .contains(&format!("cannot read baseline {missing}")),
        "{}",
        ran.stderr
    );
    let ran = gating::check(&url, &["--strict-baseline"]);
    assert_eq!(
        ran.code,
        2,
        "--strict-baseline needs --baseline: {}",
        ran.explain()
    );
    assert!(ran.stderr.contains("--baseline"), "{}", ran.stderr);
}

#[test]
fn fail_on_flaky_is_recorded_and_leaves_an_honest_run_green() {
    // The mock peer is deterministic, so no run turns flaky here; the
    // flaky → exit 1 path is covered by verdict's unit tests and the
    // every-verdict report in tests/integration/reports.rs.
    let peer = gating::start(ProtocolVersion::V1_0, Behaviour::Honest);
    let ran = gating::check(
        &peer.card_url(),
        &[
            "--scenario",
            "cancel-then-stream",
            "--retries",
            "1",
            "--fail-on-flaky",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.explain());
    assert_eq!(ran.json()["fail_on_flaky"], true);
    let ran = gating::check(&peer.card_url(), &["--scenario", "cancel-then-stream"]);
    assert!(
        ran.json().get("fail_on_flaky").is_none(),
        "absent when off (older readers see the same document)"
    );
}
