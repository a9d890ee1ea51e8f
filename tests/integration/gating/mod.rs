//! Support for the CI-gating tests (reports, diff, baselines): a mock peer
//! with timings slow enough for stable snapshots, running the built binary
//! with every report file, the redactions snapshots need, and JUnit
//! validation with a real XSD validator (xmllint).

#![allow(dead_code)]

use a2a_conform_mock::{Behaviour, MockTiming};
use a2a_conform_protocol::ProtocolVersion;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Chunks far enough apart that a cancel on loopback always lands before
/// the first one, even on a loaded machine: the evidence is the same every run.
pub fn slow_timing() -> MockTiming {
    MockTiming {
        chunks: 4,
        chunk_interval: Duration::from_millis(250),
        keepalive_interval: Duration::from_millis(200),
        silence: Duration::from_secs(3),
    }
}

/// The mock peer at [`slow_timing`] (the shared starter in `tests/integration/common`).
pub fn start(protocol: ProtocolVersion, behaviour: Behaviour) -> crate::common::Peer {
    crate::common::start_peer_with(protocol, behaviour, slow_timing(), None)
}

/// Windows that fit [`slow_timing`]: the quiet window outlasts every chunk.
pub const VARS: &[&str] = &[
    "--var",
    "probe_window=2s",
    "--var",
    "quiet_window=1500ms",
    "--var",
    "stable_interval=200ms",
    "--var",
    "task_window=6s",
    "--var",
    "prompt_input_required=need-input please",
];

/// What a run of the binary left behind.
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The files it was asked to write (read after it exited; absent if not written).
    pub json: Option<String>,
    pub junit: Option<String>,
    pub markdown: Option<String>,
    pub junit_path: PathBuf,
    pub json_path: PathBuf,
    pub dir: tempfile::TempDir,
}

impl Ran {
    pub fn explain(&self) -> String {
        format!(
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }

    pub fn json(&self) -> serde_json::Value {
        let text = self
            .json
            .as_deref()
            .unwrap_or_else(|| panic!("no JSON report: {}", self.explain()));
        serde_json::from_str(text).expect("the JSON report parses")
    }

    pub fn json_text(&self) -> &str {
        self.json
            .as_deref()
            .unwrap_or_else(|| panic!("no JSON report: {}", self.explain()))
    }
}

/// Runs the built binary with `args`, bounded in time.
pub fn binary(args: &[&str]) -> (i32, String, String) {
    binary_env(args, &[])
}

/// [`binary`] with extra environment variables.
pub fn binary_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a2a-conform {args:?} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `check CARD VARS extra… --json --junit --markdown` into a fresh directory.
pub fn check(card_url: &str, extra: &[&str]) -> Ran {
    check_env(card_url, extra, &[])
}

/// [`check`] with extra environment variables.
pub fn check_env(card_url: &str, extra: &[&str], env: &[(&str, &str)]) -> Ran {
    let dir = tempfile::tempdir().expect("tempdir");
    let json_path = dir.path().join("report.json");
    let junit_path = dir.path().join("report.xml");
    let md_path = dir.path().join("report.md");
    let mut args: Vec<String> = vec!["check".into(), card_url.into()];
    args.extend(VARS.iter().map(|s| s.to_string()));
    args.extend(extra.iter().map(|s| s.to_string()));
    for (flag, path) in [
        ("--json", &json_path),
        ("--junit", &junit_path),
        ("--markdown", &md_path),
    ] {
        args.push(flag.into());
        args.push(path.display().to_string());
    }
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = binary_env(&refs, env);
    let read = |p: &Path| std::fs::read_to_string(p).ok();
    Ran {
        code,
        stdout,
        stderr,
        json: read(&json_path),
        junit: read(&junit_path),
        markdown: read(&md_path),
        junit_path,
        json_path,
        dir,
    }
}

/// Replaces what changes from run to run: ports, uuids, digests, timestamps,
/// durations and timings, byte counts, JSON-RPC request ids (one counter per
/// peer, shared by concurrent runs).
pub fn redactions() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(true);
    for (pattern, replacement) in [
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "[UUID]",
        ),
        (r"sha256:[0-9a-f]{64}", "sha256:[DIGEST]"),
        (
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
            "[TIMESTAMP]",
        ),
        // A line cut short (…) after a timing: the cut point moves with the
        // timing's width, so everything from the first timing on goes.
        (r"\b\d+(?:\.\d+)? (?:ms|s)\b[^\n]*…", "[DURATION][cut]…"),
        // A uuid cut short by a one-line rendering.
        (r#"([="'])[0-9a-f][0-9a-f-]{0,34}…"#, "${1}[UUID]…"),
        (r"\+\s*\d+\.\d+s", "+[T]s"),
        (r"\b\d+(?:\.\d+)? (?:ms|s)\b", "[DURATION]"),
        (r"\d+ bytes", "[N] bytes"),
        // A scenario file's line numbers move whenever the suite is edited.
        (
            r"(scenarios/[A-Za-z0-9_.-]+\.ya?ml):\d+(?::\d+)?",
            "$1:[LINE]",
        ),
        (r#"time="\d+\.\d+""#, r#"time="[T]""#),
        (r#""(duration_ms|at_ms)": \d+"#, r#""$1": [N]"#),
        (r#"((?:\\?"|&quot;)id(?:\\?"|&quot;):\s*)\d+"#, "${1}[N]"),
        // The cancel's answer and the `canceled` event on the open stream
        // arrive within the same millisecond, in either order: show the
        // answer first. As lines (terminal, Markdown, JUnit)…
        (
            r"(?m)^(.*event #3 status-update state=canceled)\n(.*← HTTP 200 application/json .*)$",
            "$2\n$1",
        ),
        // …and as JSON evidence entries.
        (
            r#"(?s)( {12}\{\n {14}"at_ms": \[N\],\n {14}"kind": "event",\n {14}"summary": "event #3 status-update state=canceled",.*?\n {12}\}),\n( {12}\{\n {14}"at_ms": \[N\],\n {14}"kind": "response",.*?\n {12}\})"#,
            "$2,\n$1",
        ),
    ] {
        settings.add_filter(pattern, replacement);
    }
    settings
}

pub const XSD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/junit/JUnit.xsd");

/// Installs xmllint once if it is missing (tests/support/install-xmllint.sh),
/// so the README's test command works on a fresh machine.
fn ensure_xmllint() {
    static INSTALL: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    INSTALL.get_or_init(|| {
        let found = Command::new("xmllint").arg("--version").output().is_ok();
        if !found {
            let script = concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/support/install-xmllint.sh"
            );
            let _ = Command::new("bash").arg(script).status();
        }
    });
}

/// Validates a JUnit file against the committed XSD with xmllint. A missing
/// xmllint that cannot be installed fails loudly: this check is never skipped.
pub fn xmllint(file: &Path) -> Result<(), String> {
    ensure_xmllint();
    let output = Command::new("xmllint")
        .args(["--noout", "--schema", XSD])
        .arg(file)
        .output();
    match output {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => panic!(
            "xmllint is not installed, so the JUnit report cannot be validated against {XSD}. \
             Install it: `bash tests/support/install-xmllint.sh` (apt-get install libxml2-utils)"
        ),
        Err(e) => panic!("cannot run xmllint: {e}"),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// Writes `contents` to a temporary file and validates it.
pub fn xmllint_text(contents: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("junit.xml");
    std::fs::write(&path, contents).expect("write");
    xmllint(&path)
}
