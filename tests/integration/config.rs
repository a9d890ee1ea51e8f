//! Configuration like the field's tools: precedence flag > env var > config
//! file > built-in default (observed through which report file a real
//! check writes), the file found walking up from the working directory,
//! `--config`/`--no-config`, per-peer sections, `config show` with sources
//! and secrets redacted, and the published report schema (equal to the
//! printed one, and real mock reports validate against it).

use crate::common;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Runs the binary in `cwd` with only `env` among A2A_CONFORM_* variables.
fn run_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command.current_dir(cwd).args(args).env("NO_COLOR", "1");
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("A2A_CONFORM_")) {
        command.env_remove(k);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("binary runs")
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Which of the candidate JUnit files a check wrote (it writes one path).
fn written(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = ["config.xml", "env.xml", "flag.xml"]
        .iter()
        .filter(|n| dir.join(n).is_file())
        .map(|n| n.to_string())
        .collect();
    for n in &names {
        std::fs::remove_file(dir.join(n)).unwrap();
    }
    names.sort();
    names
}

#[test]
fn precedence_is_flag_then_env_then_config_file_then_default() {
    let dir = tempfile::tempdir().unwrap();
    // The file is found walking up from a subdirectory.
    let cwd = dir.path().join("service/api");
    std::fs::create_dir_all(&cwd).unwrap();
    let config = format!("junit: {}\n", dir.path().join("config.xml").display());
    std::fs::write(dir.path().join("a2a-conform.yaml"), config).unwrap();
    // An unreachable peer still gets every requested report (exit 3).
    let peer = format!("http://127.0.0.1:{}/", common::closed_port());
    let env_xml = dir.path().join("env.xml").display().to_string();
    let flag_xml = dir.path().join("flag.xml").display().to_string();
    let env = [("A2A_CONFORM_JUNIT", env_xml.as_str())];

    let out = run_in(&cwd, &["check", &peer], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert_eq!(written(dir.path()), ["config.xml"], "config file");
    let out = run_in(&cwd, &["check", &peer], &env);
    assert_eq!(
        written(dir.path()),
        ["env.xml"],
        "env over config: {}",
        text(&out)
    );
    run_in(&cwd, &["check", &peer, "--junit", &flag_xml], &env);
    assert_eq!(written(dir.path()), ["flag.xml"], "flag over env");
    run_in(&cwd, &["check", &peer, "--no-config"], &[]);
    assert!(written(dir.path()).is_empty(), "--no-config: the default");

    // --config FILE (and A2A_CONFORM_CONFIG) name another file.
    let other = dir.path().join("other.yaml");
    std::fs::write(&other, format!("junit: {flag_xml}\n")).unwrap();
    let other = other.display().to_string();
    run_in(&cwd, &["check", &peer, "--config", &other], &[]);
    assert_eq!(written(dir.path()), ["flag.xml"], "--config");
    run_in(&cwd, &["check", &peer], &[("A2A_CONFORM_CONFIG", &other)]);
    assert_eq!(written(dir.path()), ["flag.xml"], "A2A_CONFORM_CONFIG");
}

#[test]
fn config_show_names_each_source_and_redacts_secrets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a2a-conform.yaml"),
        "jobs: 2\nretries: 1\nheader:\n  Authorization: Bearer hunter2-config\npeers:\n  staging:\n    url: https://staging.example\n    headers: {X-Api-Key: hunter2-peer}\n    timeout: 5s\n",
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &["config", "show", "--verbose-is-not-a-flag-here"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = run_in(
        dir.path(),
        &["config", "show"],
        &[("A2A_CONFORM_RETRIES", "3")],
    );
    let shown = text(&out);
    assert_eq!(out.status.code(), Some(0), "{shown}");
    let line = |flag: &str| {
        shown
            .lines()
            .find(|l| l.split_whitespace().next() == Some(flag))
            .unwrap_or_else(|| panic!("no {flag} in {shown}"))
            .to_string()
    };
    assert!(line("--jobs").contains("a2a-conform.yaml:1:1"), "{shown}");
    assert!(
        line("--retries").contains("env A2A_CONFORM_RETRIES"),
        "{shown}"
    );
    assert!(line("--retries").contains(" 3 "), "{shown}");
    assert!(line("--progress").ends_with("default"), "{shown}");
    assert!(line("--header").contains("(redacted)"), "{shown}");
    assert!(shown.contains("peer staging:"), "{shown}");
    assert!(!shown.contains("hunter2"), "a secret leaked: {shown}");
}

#[test]
fn a_bad_config_file_is_a_usage_error_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a2a-conform.yaml"), "jobs: 2\nretires: 1\n").unwrap();
    let out = run_in(dir.path(), &["check", "http://127.0.0.1:9/"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("a2a-conform.yaml:2:1: unknown key `retires`"),
        "{stderr}"
    );
    assert!(stderr.contains("did you mean `retries`"), "{stderr}");
    std::fs::write(dir.path().join("a2a-conform.yaml"), "jobs: lots\n").unwrap();
    let out = run_in(dir.path(), &["check", "http://127.0.0.1:9/"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a2a-conform.yaml:1:1: `jobs`"));
    // --no-config reads none of it.
    let out = run_in(dir.path(), &["config", "show", "--no-config"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_peer_section_applies_like_a_profile_and_names_a_peer() {
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    std::fs::write(
        dir.path().join("a2a-conform.yaml"),
        format!(
            "json: {}\nscenario: [interface-served]\npeers:\n  local:\n    url: {}\n    vars: {{probe_window: 1s, prompt_nonexistent: x}}\n",
            json.display(),
            peer.card_url()
        ),
    )
    .unwrap();
    // The section's vars are checked as a profile's are: a typo is named with its origin.
    let out = run_in(dir.path(), &["check", "local"], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("peer local") && stderr.contains("prompt_nonexistent"),
        "{stderr}"
    );
    std::fs::write(
        dir.path().join("a2a-conform.yaml"),
        format!(
            "json: {}\npeers:\n  local:\n    url: {}\n    vars: {{probe_window: 1s}}\n",
            json.display(),
            peer.card_url()
        ),
    )
    .unwrap();
    let out = run_in(
        dir.path(),
        &["check", "local", "--scenario", "interface-served"],
        &[],
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap_or_default())
            .unwrap_or_else(|_| panic!("no report: {}", text(&out)));
    assert_eq!(
        report["peers"][0]["card_url"],
        peer.card_url(),
        "{}",
        text(&out)
    );
}

#[test]
fn the_committed_report_schema_is_the_printed_one() {
    let out = run_in(Path::new(ROOT), &["schema", "report"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let committed = std::fs::read_to_string(Path::new(ROOT).join("docs/report.schema.json"))
        .expect("docs/report.schema.json is committed");
    assert_eq!(
        committed,
        String::from_utf8_lossy(&out.stdout),
        "regenerate with `a2a-conform schema report > docs/report.schema.json`"
    );
}

#[test]
fn real_mock_reports_validate_against_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(ROOT).join("docs/report.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    let mut reports = Vec::new();
    for behaviour in [Behaviour::Honest, Behaviour::CancelLeak] {
        let peer = common::start_peer(ProtocolVersion::V1_0, behaviour);
        let ran = common::check(&peer.card_url(), &["--retries", "1"]);
        reports.push(ran.report().clone());
    }
    let unreachable = format!("http://127.0.0.1:{}/", common::closed_port());
    reports.push(common::check(&unreachable, &[]).report().clone());
    // Evidence is present in at least one, so its schema is exercised.
    assert!(reports
        .iter()
        .any(|r| r.to_string().contains("\"evidence\"")));
    for report in &reports {
        let errors: Vec<String> = validator
            .iter_errors(report)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
    // And the validator does fail a report that is not one.
    let mut broken = reports[0].clone();
    broken["peers"][0]["declarations"][0]["verdict"] = "great".into();
    assert!(!validator.is_valid(&broken));
}

#[test]
fn suite_list_json_lists_what_the_text_listing_lists() {
    let out = run_in(Path::new(ROOT), &["suite", "list", "--json"], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let listing = run_in(Path::new(ROOT), &["suite", "list"], &[]);
    let ids: Vec<String> = String::from_utf8_lossy(&listing.stdout)
        .lines()
        .filter(|l| !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    let json_ids: Vec<&str> = rows.iter().filter_map(|r| r["id"].as_str()).collect();
    assert!(!ids.is_empty());
    assert_eq!(json_ids, ids);
    assert!(rows
        .iter()
        .all(|r| r["verifies"].as_array().is_some_and(|v| !v.is_empty())
            && r["file"].is_string()
            && r["line"].is_u64()));
}
