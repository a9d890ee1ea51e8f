//! Shared test support: start real peers on loopback, run the built binary
//! against them with a bound, and read its JSON report.

#![allow(dead_code)]

pub mod golden;
pub mod markdown;
/// A real PostgreSQL server, the history store's own test harness.
#[path = "../../../crates/history/tests/support/pg.rs"]
pub mod postgres;

use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A mock peer running on its own runtime for the test's lifetime.
pub struct Peer {
    pub peer: MockPeer,
    _runtime: tokio::runtime::Runtime,
}

impl Peer {
    pub fn card_url(&self) -> String {
        self.peer.card_url()
    }
    pub fn base_url(&self) -> String {
        self.peer.base_url()
    }
}

/// Mock timings that keep every behaviour well inside the fast windows below.
pub fn fast_timing() -> MockTiming {
    MockTiming {
        chunks: 6,
        chunk_interval: Duration::from_millis(80),
        keepalive_interval: Duration::from_millis(100),
        silence: Duration::from_secs(3),
    }
}

pub fn start_peer(protocol: ProtocolVersion, behaviour: Behaviour) -> Peer {
    start_peer_with_token(protocol, behaviour, None)
}

/// [`start_peer`] with the bearer token a `secured` peer requires.
pub fn start_peer_with_token(
    protocol: ProtocolVersion,
    behaviour: Behaviour,
    auth_token: Option<&str>,
) -> Peer {
    start_peer_with(protocol, behaviour, fast_timing(), auth_token)
}

/// A mock peer at a chosen pace, with the token `secured` requires.
pub fn start_peer_with(
    protocol: ProtocolVersion,
    behaviour: Behaviour,
    timing: MockTiming,
    auth_token: Option<&str>,
) -> Peer {
    start_peer_config(MockConfig {
        timing,
        auth_token: auth_token.map(str::to_string),
        ..peer_config(protocol, behaviour)
    })
}

/// The config [`start_peer`] uses: loopback, a free port, the fast pace.
pub fn peer_config(protocol: ProtocolVersion, behaviour: Behaviour) -> MockConfig {
    MockConfig {
        protocol,
        behaviour,
        port: 0,
        timing: fast_timing(),
        ..MockConfig::default()
    }
}

/// A mock peer of any config, on its own runtime.
pub fn start_peer_config(config: MockConfig) -> Peer {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let peer = runtime
        .block_on(MockPeer::start(config))
        .expect("mock peer starts on 127.0.0.1:0");
    Peer {
        peer,
        _runtime: runtime,
    }
}

/// The windows of [`FAST_VARS`], without `prompt_input_required`: a check
/// with only these searches the card for its prompt.
pub const FAST_WINDOWS: &[&str] = &[
    "--var",
    "probe_window=1s",
    "--var",
    "quiet_window=500ms",
    "--var",
    "stable_interval=200ms",
    "--var",
    "task_window=5s",
];

/// The mock card's input rows: its default modes and its `echo` skill's.
pub const INPUT_ROWS: [&str; 4] = [
    "defaultInputModes[text/plain]",
    "defaultInputModes[application/json]",
    "skills[echo].inputModes[text/plain]",
    "skills[echo].inputModes[application/json]",
];

/// Windows short enough for tests, long enough for the fast mock timing.
pub const FAST_VARS: &[&str] = &[
    "--var",
    "probe_window=1s",
    "--var",
    "quiet_window=500ms",
    "--var",
    "stable_interval=200ms",
    "--var",
    "task_window=5s",
    "--var",
    "prompt_input_required=need-input please",
];

pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The JSON report, when one was written.
    pub report: Option<Value>,
    /// The report files as written, when asked for ([`check_every_format`]).
    pub json_text: Option<String>,
    pub junit: Option<String>,
    pub markdown: Option<String>,
}

impl Outcome {
    pub fn report(&self) -> &Value {
        self.report.as_ref().unwrap_or_else(|| {
            panic!(
                "no JSON report (exit {}):\nstdout:\n{}\nstderr:\n{}",
                self.code, self.stdout, self.stderr
            )
        })
    }

    /// The verdict of a declaration row of the first peer.
    pub fn declaration(&self, id: &str) -> String {
        let rows = self.report()["peers"][0]["declarations"]
            .as_array()
            .expect("declarations array");
        rows.iter()
            .find(|d| d["id"] == id)
            .map(|d| d["verdict"].as_str().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no declaration {id} in {rows:#?}"))
    }

    /// A scenario run of the first peer.
    pub fn run(&self, id: &str) -> &Value {
        let runs = self.report()["peers"][0]["scenarios"]
            .as_array()
            .expect("scenarios array");
        runs.iter()
            .find(|d| d["id"] == id)
            .unwrap_or_else(|| panic!("no scenario {id} in {runs:#?}"))
    }

    /// The verdict of a scenario run of the first peer.
    pub fn scenario(&self, id: &str) -> String {
        self.run(id)["verdict"].as_str().unwrap_or("").to_string()
    }

    pub fn explain(&self) -> String {
        format!(
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs the built binary with `args` (plus `--json`), bounded in time.
pub fn run(args: &[&str]) -> Outcome {
    run_env(args, &[])
}

pub fn run_env(args: &[&str], env: &[(&str, &str)]) -> Outcome {
    run_formats(args, env, false)
}

/// [`run_env`], also writing the JUnit and Markdown reports when `every_format`.
fn run_formats(args: &[&str], env: &[(&str, &str)], every_format: bool) -> Outcome {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("report.json");
    let junit = dir.path().join("report.xml");
    let markdown = dir.path().join("report.md");
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command.args(args);
    if args
        .first()
        .is_some_and(|a| *a == "check" || *a == "demo" || *a == "rejudge")
    {
        command.arg("--json").arg(&json);
        if every_format {
            command.arg("--junit").arg(&junit);
            command.arg("--markdown").arg(&markdown);
        }
    }
    command
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("binary starts");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a2a-conform {args:?} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    let json_text = std::fs::read_to_string(&json).ok();
    let report = json_text
        .as_deref()
        .map(|text| serde_json::from_str(text).expect("the JSON report parses"));
    let (junit, markdown) = if every_format {
        (
            std::fs::read_to_string(&junit).ok(),
            std::fs::read_to_string(&markdown).ok(),
        )
    } else {
        (None, None)
    };
    Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        report,
        json_text: every_format.then_some(json_text).flatten(),
        junit,
        markdown,
    }
}

/// `check <card> FAST_VARS extra…`
pub fn check(card_url: &str, extra: &[&str]) -> Outcome {
    let mut args = vec!["check", card_url];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(extra);
    run(&args)
}

/// [`check`] with environment variables set for the binary (`--bearer-env`).
pub fn check_env(card_url: &str, extra: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut args = vec!["check", card_url];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(extra);
    run_env(&args, env)
}

/// [`check_env`] with `--color never` and every report file (JSON, JUnit,
/// Markdown) read back: what the golden files pin.
pub fn check_every_format(card_url: &str, extra: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut args = vec!["check", card_url];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--color", "never"]);
    run_formats(&args, env, true)
}

/// An axum router served on 127.0.0.1:0 on its own runtime, for as long as
/// the value lives: the hand-written peers and card servers of the tests.
pub struct Served {
    /// `http://127.0.0.1:PORT`
    pub base_url: String,
    _runtime: tokio::runtime::Runtime,
}

/// Serves `router` on loopback (see [`Served`]).
pub fn serve(router: axum::Router) -> Served {
    serve_at(|_| router)
}

/// [`serve`] for a router that needs its own base URL (a card naming its
/// endpoint): `router` gets `http://127.0.0.1:PORT` once the port is bound.
pub fn serve_at(router: impl FnOnce(&str) -> axum::Router) -> Served {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let base_url = runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("addr"));
        let app = router(&base_url);
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        base_url
    });
    Served {
        base_url,
        _runtime: runtime,
    }
}

/// A one-route HTTP server on loopback answering every path with a fixed
/// status and body: for cards that are missing, broken or not JSON.
pub fn serve_static(status: u16, content_type: &'static str, body: Vec<u8>) -> Served {
    serve(axum::Router::new().fallback(move || {
        let body = body.clone();
        async move {
            (
                axum::http::StatusCode::from_u16(status).expect("status"),
                [(axum::http::header::CONTENT_TYPE, content_type)],
                body,
            )
        }
    }))
}

pub fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("fixture {path}: {e}"))
}

/// A loopback port with nothing listening on it.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}
