//! The Kubernetes example of docs/fleets.md ("Shards into one PostgreSQL,
//! and the dashboard on it") works as written: the manifest passes
//! `kubernetes-validate --strict` (the API's own schemas, pinned in
//! tests/support/validators/), its two shell scripts pass shellcheck, and
//! those scripts, run by `sh` as the pods would run them, check a fleet of
//! mock peers in 4 shards at once into one real PostgreSQL server and serve
//! the dashboard that shows every peer from it. Only what a pod has and a
//! test cannot is replaced: the config volume's and the pod's `/tmp` paths,
//! and the dashboard's all-interfaces address (tests bind loopback only).

use crate::common::{self, postgres::PgServer};
use crate::dashboard::get;
use crate::install::{doc_yaml, run, text, validators};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const DOC: &str = "docs/fleets.md";
const FIRST_LINE: &str =
    "# a2a-conform-fleet.yaml: hourly shards into one PostgreSQL, the dashboard on it";

/// The manifest's documents, parsed.
fn documents(manifest: &str) -> Vec<Value> {
    manifest
        .split("\n---\n")
        .map(|doc| serde_saphyr::from_str(doc).expect("each document is YAML"))
        .collect()
}

fn kind<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("the manifest has no {kind}"))
}

/// The `sh -c` script of a pod template's only container.
fn script(pod: &Value) -> String {
    let container = &pod["spec"]["containers"][0];
    assert_eq!(container["command"], serde_json::json!(["sh", "-c"]));
    container["args"][0]
        .as_str()
        .expect("one script argument")
        .to_string()
}

fn kubernetes_validate(file: &Path) -> std::process::Output {
    let tool = validators().join(".venv/bin/kubernetes-validate");
    run(&tool, &[Path::new("--strict"), file], Path::new("."))
}

#[test]
fn the_manifest_passes_kubernetes_validate_and_its_scripts_shellcheck() {
    let manifest = doc_yaml(DOC, FIRST_LINE);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("a2a-conform-fleet.yaml");
    std::fs::write(&file, &manifest).expect("write");
    let out = kubernetes_validate(&file);
    assert!(out.status.success(), "kubernetes-validate:\n{}", text(&out));
    // The validator can fail: a field the Job API does not have.
    let broken = manifest.replace("completionMode: Indexed", "completionMod: Indexed");
    std::fs::write(&file, broken).expect("write");
    let out = kubernetes_validate(&file);
    assert!(
        !out.status.success(),
        "a broken manifest passed:\n{}",
        text(&out)
    );
    let docs = documents(&manifest);
    let job = &kind(&docs, "CronJob")["spec"]["jobTemplate"]["spec"];
    assert_eq!(job["completionMode"], "Indexed");
    let scripts = [
        script(&job["template"]),
        script(&kind(&docs, "Deployment")["spec"]["template"]),
    ];
    for (i, body) in scripts.iter().enumerate() {
        let path = dir.path().join(format!("script-{i}.sh"));
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).expect("write");
        let out = Command::new("shellcheck")
            .args(["--shell=sh", "--severity=style"])
            .arg(&path)
            .output()
            .expect("shellcheck runs (tests/support/install-actionlint.sh installs it)");
        assert!(out.status.success(), "shellcheck:\n{body}\n{}", text(&out));
    }
}

/// The dashboard script running, killed on drop.
struct Dashboard(Child);

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sh -c script` with the binary on PATH and `env`.
fn sh(script: &str, env: &[(&str, &str)]) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .parent()
        .expect("the binary's folder")
        .display()
        .to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    let mut command = Command::new("sh");
    command
        .args(["-c", script])
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove("A2A_CONFORM_DASHBOARD_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::null());
    command
}

#[test]
fn the_shards_import_into_one_postgresql_and_the_dashboard_shows_every_peer() {
    let docs = documents(&doc_yaml(DOC, FIRST_LINE));
    let job = &kind(&docs, "CronJob")["spec"]["jobTemplate"]["spec"];
    let completions = job["completions"].as_u64().expect("completions");
    let dir = tempfile::tempdir().expect("tempdir");
    let fleet = dir.path().join("fleet.yaml");
    let check = script(&job["template"]);
    let dashboard = script(&kind(&docs, "Deployment")["spec"]["template"])
        .replace("0.0.0.0:8023", "127.0.0.1:0");
    let peers = [
        common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest),
        common::start_peer(ProtocolVersion::V1_0, Behaviour::CancelLeak),
        common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest),
    ];
    let urls: Vec<String> = peers.iter().map(|p| p.card_url()).collect();
    let listed: String = urls.iter().map(|u| format!("  - {u}\n")).collect();
    std::fs::write(&fleet, format!("peers:\n{listed}")).expect("the fleet file");
    let pg = PgServer::start();
    // Every pod of the Job at once, each with its own /tmp, into one store;
    // one scenario keeps the test short (the variable is check's own).
    let pods: Vec<Child> = (0..completions)
        .map(|index| {
            let tmp = dir.path().join(format!("pod-{index}"));
            std::fs::create_dir(&tmp).expect("the pod's /tmp");
            let script = check
                .replace(
                    "/tmp/shard.json",
                    &tmp.join("shard.json").display().to_string(),
                )
                .replace("/config/fleet.yaml", &fleet.display().to_string());
            sh(
                &script,
                &[
                    ("JOB_COMPLETION_INDEX", &index.to_string()),
                    ("HISTORY_DB", &pg.url),
                    ("A2A_CONFORM_SCENARIO", "cancel-then-stream"),
                ],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the pod's script starts")
        })
        .collect();
    for (index, pod) in pods.into_iter().enumerate() {
        let out = pod.wait_with_output().expect("the pod ends");
        assert!(out.status.success(), "pod {index}:\n{}", text(&out));
    }
    let token = "dashboard-token-k8s";
    let mut child = sh(
        &dashboard,
        &[
            ("HISTORY_DB", pg.url.as_str()),
            ("A2A_CONFORM_DASHBOARD_TOKEN", token),
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("the dashboard starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("a line on stderr");
    let _dashboard = Dashboard(child);
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim()
        .to_string();
    let base = format!("http://{addr}");
    assert_eq!(
        get(&base, "/api/fleet", None).0,
        401,
        "the token is required"
    );
    let (status, _, body) = get(&base, "/api/fleet", Some(token));
    assert_eq!(status, 200, "{body}");
    let fleet: Value = serde_json::from_str(&body).expect("the fleet's JSON");
    assert_eq!(fleet["total_peers"], urls.len(), "{fleet}");
    let verdict = |url: &str| {
        let peer = fleet["peers"]
            .as_array()
            .expect("peers")
            .iter()
            .find(|p| p["peer"] == url)
            .unwrap_or_else(|| panic!("{url} is not in the grid: {fleet}"));
        peer["cells"]["lifecycle.cancel"]["verdict"].clone()
    };
    assert_eq!(verdict(&urls[0]), "honoured");
    assert_eq!(verdict(&urls[1]), "diverged");
    assert_eq!(verdict(&urls[2]), "honoured");
}
