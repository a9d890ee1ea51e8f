//! The hostile-peer harness, shared by every case module: a raw-TCP peer on
//! loopback that serves a valid card and then answers each call the way its
//! case says, and a runner that checks it with configured secrets and reads
//! back every output (stdout, stderr, JSON, JUnit, Markdown) with the
//! child's peak RSS.
//!
//! A case module writes its peer as a closure over [`Call`] and asserts on
//! the [`Checked`] run: [`Checked::assert_bounded`] covers the secrets, time
//! and memory every case must hold to.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The bearer token given through `--bearer-env`; it must appear nowhere.
pub const SECRET: &str = "Zq7vK2pX9mW4rT8nB6cE";
/// The value of the `--header 'X-Api-Key: …'`; it must appear nowhere.
pub const HEADER_SECRET: &str = "Lb3hY6tQ1sF5gJ0dU8wA";
const TOKEN_VAR: &str = "A2A_HOSTILE_TOKEN";

/// One request the peer received, read from the raw socket.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: String,
    pub path: String,
    /// The request head as sent, headers included.
    pub head: String,
    pub body: String,
    /// The JSON-RPC `id` (null when none).
    pub id: Value,
    /// The JSON-RPC method (`SendMessage`, `SendStreamingMessage`, …).
    pub rpc: String,
}

/// How the peer answers one call: it writes whatever it wants on the socket.
pub type Answer = dyn Fn(&Call, &mut TcpStream) + Send + Sync;

/// A hostile peer on 127.0.0.1:0. Threads end with the test process.
pub struct HostilePeer {
    pub base: String,
    calls: Arc<Mutex<Vec<Call>>>,
}

impl HostilePeer {
    /// Starts a peer serving `card_extra` merged into a valid v1.0 card at
    /// the well-known path, and `answer` for everything else.
    pub fn start(
        card_extra: Value,
        answer: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static,
    ) -> HostilePeer {
        HostilePeer::start_served(|base| card(base, card_extra), answer)
    }

    /// As [`HostilePeer::start`], serving the card `make_card` builds from
    /// the peer's base URL as it is (a signed card, a card naming URLs on
    /// its own origin).
    pub fn start_served(
        make_card: impl FnOnce(&str) -> Value,
        answer: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static,
    ) -> HostilePeer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let card = make_card(&base);
        let calls: Arc<Mutex<Vec<Call>>> = Arc::default();
        let answer: Arc<Answer> = Arc::new(answer);
        let seen = calls.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (card, answer, seen) = (card.clone(), answer.clone(), seen.clone());
                std::thread::spawn(move || serve(stream, &card, &*answer, &seen));
            }
        });
        HostilePeer { base, calls }
    }

    /// Every call received so far (the card's GETs excepted), in order.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// The JSON-RPC methods called so far, in order.
    pub fn methods(&self) -> Vec<String> {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.rpc.clone())
            .collect()
    }
}

/// A valid v1.0 card for `base`: streaming declared, push notifications
/// not, one skill; `extra`'s top-level keys replace the defaults
/// (`capabilities` is merged key by key).
pub fn card(base: &str, extra: Value) -> Value {
    let mut card = json!({
        "name": "hostile", "description": "answers badly", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
    });
    if let Value::Object(extra) = extra {
        for (k, v) in extra {
            match (k.as_str(), v) {
                ("capabilities", Value::Object(caps)) => {
                    for (ck, cv) in caps {
                        card["capabilities"][ck] = cv;
                    }
                }
                (_, v) => card[k] = v,
            }
        }
    }
    card
}

fn serve(mut stream: TcpStream, card: &Value, answer: &Answer, seen: &Mutex<Vec<Call>>) {
    let Some(call) = read_call(&mut stream) else {
        return;
    };
    if call.path.ends_with("/.well-known/agent-card.json") {
        respond(
            &mut stream,
            200,
            "application/json",
            card.to_string().as_bytes(),
        );
        return;
    }
    seen.lock().unwrap().push(call.clone());
    answer(&call, &mut stream);
}

/// One HTTP/1.1 request as a raw peer reads it: its head (request line and
/// headers) and its body, each bounded (64 KiB head, 1 MiB body) and within
/// a 10 s read timeout. Every hostile peer reads requests through this.
pub fn read_http(stream: &mut TcpStream) -> Option<(String, String)> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 || head.len() > 64 * 1024 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0)
        .min(1024 * 1024);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    Some((head, String::from_utf8_lossy(&body).into_owned()))
}

/// The path of a request head's request line.
pub fn request_path(head: &str) -> String {
    head.split_whitespace().nth(1).unwrap_or("/").to_string()
}

fn read_call(stream: &mut TcpStream) -> Option<Call> {
    let (head, body) = read_http(stream)?;
    let mut words = head.split_whitespace();
    let method = words.next().unwrap_or("GET").to_string();
    let path = words.next().unwrap_or("/").to_string();
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    Some(Call {
        method,
        path,
        head,
        id: parsed.get("id").cloned().unwrap_or(Value::Null),
        rpc: parsed
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
        body,
    })
}

/// Writes a whole HTTP/1.1 answer and closes the connection.
pub fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// A JSON-RPC success envelope echoing the call's id.
pub fn rpc_result(call: &Call, result: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": call.id, "result": result})
        .to_string()
        .into_bytes()
}

/// A v1.0 task in `state` (`TASK_STATE_COMPLETED`, …).
pub fn task(state: &str) -> Value {
    json!({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": state}}})
}

/// Opens an SSE answer; events follow with [`sse_event`].
pub fn open_sse(stream: &mut TcpStream) {
    let _ = stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
    );
}

/// One SSE event carrying a JSON-RPC success envelope for `call`.
pub fn sse_event(stream: &mut TcpStream, call: &Call, result: Value) -> bool {
    let data = json!({"jsonrpc": "2.0", "id": call.id, "result": result}).to_string();
    stream
        .write_all(format!("data: {data}\n\n").as_bytes())
        .is_ok()
}

/// A v1.0 status update event body.
pub fn status_update(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {"state": state}}})
}

/// Drops the connection at once, without an answer.
pub fn hang_up(stream: &mut TcpStream) {
    let _ = stream.shutdown(Shutdown::Both);
}

/// One run of the binary and everything it wrote.
pub struct Checked {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub json_text: String,
    pub junit: String,
    pub markdown: String,
    pub report: Value,
    /// The child's peak resident set (VmHWM), in KiB, sampled until it exited.
    pub peak_rss_kib: u64,
    pub elapsed: Duration,
}

/// Checks `cards` with the secrets configured (`--bearer-env` and an
/// `X-Api-Key` header) and every report format written, plus `extra`.
pub fn check(cards: &[&str], extra: &[&str]) -> Checked {
    check_env(cards, extra, &[])
}

/// As [`check`], with more environment variables set for the child (the
/// variables `--api-key-env`, `--oauth-client-secret-env`, … name).
pub fn check_env(cards: &[&str], extra: &[&str], env: &[(&str, &str)]) -> Checked {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let (json, junit, markdown) = (path("r.json"), path("r.xml"), path("r.md"));
    let header = format!("X-Api-Key: {HEADER_SECRET}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command
        .arg("check")
        .args(cards)
        .args(["--bearer-env", TOKEN_VAR, "--header", &header])
        .args(["--json", &json, "--junit", &junit, "--markdown", &markdown])
        .args(["--jobs", "2"])
        .args(extra)
        .env(TOKEN_VAR, SECRET)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1");
    let finished = run_bounded(command, Duration::from_secs(120));
    let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
    let json_text = read(&json);
    let checked = Checked {
        code: finished.code,
        stdout: finished.stdout,
        stderr: finished.stderr,
        report: serde_json::from_str(&json_text).unwrap_or(Value::Null),
        json_text,
        junit: read(&junit),
        markdown: read(&markdown),
        peak_rss_kib: finished.peak_rss_kib,
        elapsed: finished.elapsed,
    };
    assert!(
        checked.report.is_object(),
        "no JSON report:\n{}",
        checked.explain()
    );
    checked
}

/// How a child run by [`run_bounded`] ended.
pub struct Finished {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    /// The child's peak resident set (VmHWM), in KiB, sampled until it exited.
    pub peak_rss_kib: u64,
    pub elapsed: Duration,
}

/// Runs `command` (its stdout and stderr are piped here) to the end, within
/// `limit` (past it the child is killed and the test fails), draining both
/// pipes while it runs so a chatty child never blocks on them, and sampling
/// its peak resident memory. Every hostile case that bounds memory runs the
/// binary through this.
pub fn run_bounded(mut command: Command, limit: Duration) -> Finished {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("the binary starts");
    let pid = child.id();
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let mut peak_rss_kib = 0;
    let status = loop {
        // VmHWM is the high-water mark: monotonic, so the last sample before
        // exit holds the peak up to then.
        peak_rss_kib = peak_rss_kib.max(vm_hwm_kib(pid).unwrap_or(0));
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{command:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Finished {
        code: status.code().unwrap_or(-1),
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
        peak_rss_kib,
        elapsed: started.elapsed(),
    }
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

impl Checked {
    pub fn explain(&self) -> String {
        format!(
            "exit {} after {:?}, peak RSS {} KiB\nstdout:\n{}\nstderr:\n{}",
            self.code, self.elapsed, self.peak_rss_kib, self.stdout, self.stderr
        )
    }

    /// The bounds every hostile case holds to: no configured secret in any
    /// output, done within `within`, and a peak RSS under `max_rss_mib`.
    pub fn assert_bounded(&self, within: Duration, max_rss_mib: u64) {
        let outputs = [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("JSON", &self.json_text),
            ("JUnit", &self.junit),
            ("Markdown", &self.markdown),
        ];
        // Not the secret, nor any 6-character piece of it (a clip that cut
        // a secret in half leaks the half the redactor cannot match).
        for (name, text) in outputs {
            for secret in [SECRET, HEADER_SECRET] {
                for piece in secret.as_bytes().windows(6) {
                    let piece = std::str::from_utf8(piece).expect("ASCII secret");
                    assert!(
                        !text.contains(piece),
                        "`{piece}` of the secret {secret} leaked into {name}:\n{text}"
                    );
                }
            }
        }
        for (name, text) in &outputs[2..] {
            assert!(!text.is_empty(), "no {name} report:\n{}", self.explain());
        }
        assert!(
            self.elapsed < within,
            "took {:?}, bound {within:?}\n{}",
            self.elapsed,
            self.explain()
        );
        assert!(
            self.peak_rss_kib > 0,
            "no RSS sample was taken\n{}",
            self.explain()
        );
        assert!(
            self.peak_rss_kib < max_rss_mib * 1024,
            "peak RSS {} KiB over {max_rss_mib} MiB\n{}",
            self.peak_rss_kib,
            self.explain()
        );
        assert!(
            !self.stderr.contains("panicked"),
            "the tool panicked:\n{}",
            self.stderr
        );
    }

    /// None of `secrets`, nor any 6-character piece of one, in any output.
    pub fn assert_absent(&self, secrets: &[&str]) {
        let outputs = [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("JSON", &self.json_text),
            ("JUnit", &self.junit),
            ("Markdown", &self.markdown),
        ];
        for (name, text) in outputs {
            for secret in secrets {
                for piece in secret.as_bytes().windows(6.min(secret.len())) {
                    let piece = String::from_utf8_lossy(piece);
                    assert!(
                        !text.contains(&*piece),
                        "`{piece}` of the secret {secret:?} leaked into {name}:\n{text}"
                    );
                }
            }
        }
    }

    fn peer(&self, index: usize) -> &Value {
        &self.report["peers"][index]
    }

    /// A declaration row's verdict (first peer).
    pub fn row(&self, id: &str) -> String {
        self.row_of(0, id)["verdict"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    pub fn row_of(&self, peer: usize, id: &str) -> &Value {
        self.peer(peer)["declarations"]
            .as_array()
            .and_then(|rows| rows.iter().find(|d| d["id"] == id))
            .unwrap_or_else(|| panic!("no row {id} in peer {peer}\n{}", self.explain()))
    }

    /// A scenario run (first peer).
    pub fn run(&self, id: &str) -> &Value {
        self.peer(0)["scenarios"]
            .as_array()
            .and_then(|runs| runs.iter().find(|r| r["id"] == id))
            .unwrap_or_else(|| panic!("no run {id}\n{}", self.explain()))
    }

    /// Asserts a run's verdict (and error kind, for `error`) and returns its message.
    pub fn assert_run(&self, id: &str, verdict: &str, error_kind: Option<&str>) -> String {
        let run = self.run(id);
        let message = run["message"].as_str().unwrap_or("").to_string();
        assert_eq!(
            run["verdict"],
            verdict,
            "{id}: {message}\n{}",
            self.explain()
        );
        match error_kind {
            Some(kind) => assert_eq!(run["error_kind"], kind, "{id}: {message}"),
            None => assert!(run.get("error_kind").is_none(), "{id}: {run}"),
        }
        message
    }

    /// No declaration of any peer reads `diverged` or `over-delivers`.
    pub fn assert_no_false_verdict(&self) {
        for peer in self.report["peers"].as_array().into_iter().flatten() {
            for row in peer["declarations"].as_array().into_iter().flatten() {
                assert!(
                    row["verdict"] != "diverged" && row["verdict"] != "over-delivers",
                    "false verdict: {row}\n{}",
                    self.explain()
                );
            }
        }
    }

    pub fn card_warnings(&self, peer: usize) -> Vec<String> {
        self.peer(peer)["card_warnings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| w.as_str().map(str::to_string))
            .collect()
    }
}

/// Fast windows for the embedded suite against a loopback peer.
pub const FAST: &[&str] = &[
    "--var",
    "probe_window=1s",
    "--var",
    "quiet_window=300ms",
    "--var",
    "stable_interval=100ms",
    "--var",
    "task_window=3s",
];

/// A bound every case fits in with room to spare on a loaded machine.
pub const WITHIN: Duration = Duration::from_secs(60);
/// The peak RSS every case stays under.
pub const MAX_RSS_MIB: u64 = 200;
