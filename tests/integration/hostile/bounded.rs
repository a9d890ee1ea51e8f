//! Bounded, whatever the peer: a keep-alive flood, a card with 100 skills ×
//! 1,000 input modes, a webhook flood, and flag values that would break a
//! request. Each case runs the built binary against a small hand-written peer
//! on loopback and asserts the verdict class, the exit code, that no
//! configured secret appears in any output, and a bound on the child's peak
//! memory (VmHWM) and on the report's size.

use super::harness::{read_http, request_path, run_bounded};
use crate::common::{closed_port, serve_static};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SECRET_TOKEN: &str = "bounded-bearer-s3cr3t";
const SECRET_HEADER: &str = "bounded-api-key-s3cr3t";

/// What one run of the binary produced, and what it cost.
struct Measured {
    code: i32,
    stdout: String,
    stderr: String,
    json: String,
    junit: String,
    markdown: String,
    /// The child's peak resident set (VmHWM), in KiB.
    peak_kb: u64,
    elapsed: Duration,
}

impl Measured {
    fn report(&self) -> Value {
        serde_json::from_str(&self.json).expect("the JSON report parses")
    }

    fn row(&self, id: &str) -> Value {
        self.report()["peers"][0]["declarations"]
            .as_array()
            .expect("declarations")
            .iter()
            .find(|d| d["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}"))
            .clone()
    }

    fn assert_no_secret(&self) {
        for (name, text) in [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("json", &self.json),
            ("junit", &self.junit),
            ("markdown", &self.markdown),
        ] {
            for secret in [SECRET_TOKEN, SECRET_HEADER] {
                assert!(!text.contains(secret), "{secret} in {name}");
            }
        }
    }
}

/// Runs the binary with every report format written, the secret token in
/// the environment (`--bearer-env`) and a secret header, sampling its peak
/// RSS until it exits (bounded at 180 s).
fn measure(args: &[&str]) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |name: &str| dir.path().join(name);
    let header = format!("X-Api-Key: {SECRET_HEADER}");
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command
        .args(args)
        .args(["--bearer-env", "BOUNDED_TOKEN", "--header", &header])
        .arg("--json")
        .arg(file("r.json"))
        .arg("--junit")
        .arg(file("r.xml"))
        .arg("--markdown")
        .arg(file("r.md"))
        .env("BOUNDED_TOKEN", SECRET_TOKEN)
        .env("NO_COLOR", "1");
    let finished = run_bounded(command, Duration::from_secs(180));
    eprintln!(
        "a2a-conform {args:?}: peak RSS {} KiB, {:?}",
        finished.peak_rss_kib, finished.elapsed
    );
    let read = |name: &str| std::fs::read_to_string(file(name)).unwrap_or_default();
    Measured {
        code: finished.code,
        stdout: finished.stdout,
        stderr: finished.stderr,
        json: read("r.json"),
        junit: read("r.xml"),
        markdown: read("r.md"),
        peak_kb: finished.peak_rss_kib,
        elapsed: finished.elapsed,
    }
}

/// One HTTP request as a raw peer reads it: path and JSON body.
fn read_request(stream: &mut TcpStream) -> Option<(String, Value)> {
    let (head, body) = read_http(stream)?;
    Some((
        request_path(&head),
        serde_json::from_str(&body).unwrap_or(Value::Null),
    ))
}

fn respond_json(stream: &mut TcpStream, body: &Value) {
    let body = body.to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

fn card(base: &str, capabilities: Value) -> Value {
    json!({
        "name": "bounded", "description": "a hostile peer", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": capabilities,
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
    })
}

type Answer = dyn Fn(&mut TcpStream, &str, &Value) + Send + Sync;

/// A raw-TCP JSON-RPC peer on loopback: the card at the well-known path,
/// `answer(stream, base, request)` for every call. Counts connections.
fn raw_peer(capabilities: Value, answer: Arc<Answer>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let connections = Arc::new(AtomicUsize::new(0));
    let (seen, card_base) = (connections.clone(), base.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            seen.fetch_add(1, Ordering::SeqCst);
            let (base, answer, capabilities) =
                (card_base.clone(), answer.clone(), capabilities.clone());
            std::thread::spawn(move || {
                let mut stream = stream;
                let Some((path, request)) = read_request(&mut stream) else {
                    return;
                };
                if path.ends_with("/.well-known/agent-card.json") {
                    respond_json(&mut stream, &card(&base, capabilities));
                } else {
                    answer(&mut stream, &base, &request);
                }
            });
        }
    });
    (base, connections)
}

fn result(request: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": result})
}

fn working_task() -> Value {
    json!({"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"}})
}

#[test]
fn a_keep_alive_flood_is_counted_not_stored() {
    let answer: Arc<Answer> = Arc::new(|stream, _base, request| {
        if request["method"] != "SendStreamingMessage" {
            respond_json(stream, &result(request, json!({"task": working_task()})));
            return;
        }
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
        );
        // 32 MiB of keep-alives and nothing else, the tool's byte cap; it may
        // stop reading sooner.
        let chunk = b": keep-alive\n".repeat(5_000);
        let mut sent = 0;
        while sent < 32 * 1024 * 1024 {
            if stream.write_all(&chunk).is_err() {
                break;
            }
            sent += chunk.len();
        }
    });
    let (base, _) = raw_peer(json!({"streaming": true}), answer);
    let out = measure(&[
        "check",
        &base,
        "--scenario",
        "streaming-probe",
        "--var",
        "probe_window=30s",
        "--timeout",
        "30s",
    ]);
    assert!(
        out.peak_kb < 200 * 1024,
        "peak RSS {} KiB (5.4 GB before comments were counted)",
        out.peak_kb
    );
    // A stream of nothing but comments keeps no promise.
    assert_ne!(
        out.row("capabilities.streaming")["verdict"],
        "honoured",
        "{}",
        out.stdout
    );
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.json.len() < 1024 * 1024, "{} bytes", out.json.len());
    let report = out.report();
    let run = &report["peers"][0]["scenarios"][0];
    assert_ne!(run["verdict"], "pass");
    let evidence = run["evidence"].as_array().expect("evidence kept");
    assert!(evidence.len() <= 101, "{} entries", evidence.len());
    let comments = evidence.iter().filter(|e| e["kind"] == "comment").count();
    assert!(comments <= 3, "{comments} comments recorded one by one");
    assert!(
        evidence.iter().any(|e| e["summary"]
            .as_str()
            .unwrap()
            .contains("keep-alive comments (")),
        "{evidence:?}"
    );
    out.assert_no_secret();
}

#[test]
fn a_card_with_100_skills_of_1000_input_modes_is_judged_within_bounds() {
    let modes: Vec<String> = (0..1000).map(|n| format!("a/{n}")).collect();
    let skills: Vec<Value> = (0..100)
        .map(|n| json!({"id": format!("s{n}"), "name": "s", "description": "d", "tags": ["t"], "inputModes": modes}))
        .collect();
    let port = closed_port();
    let body = json!({
        "name": "big", "description": "legal and large", "version": "1",
        "supportedInterfaces": [{"url": format!("http://127.0.0.1:{port}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": skills
    })
    .to_string();
    assert!(
        body.len() < 1024 * 1024,
        "a legal card: {} bytes",
        body.len()
    );
    let server = serve_static(200, "application/json", body.into_bytes());
    let out = measure(&["check", &server.base_url, "--timeout", "5s", "-q"]);
    // rows × runs took minutes; 100,000 rows judged by index take seconds.
    assert!(out.elapsed < Duration::from_secs(120), "{:?}", out.elapsed);
    assert!(out.peak_kb < 1024 * 1024, "peak RSS {} KiB", out.peak_kb);
    // Nothing could be verified (the endpoint is closed), whatever the exit
    // code's finer reading: never a pass.
    assert!(
        matches!(out.code, 3 | 4),
        "exit {}: {}",
        out.code,
        out.stderr
    );
    let first = out.row("skills[s0].inputModes[a/0]");
    assert_eq!(first["verdict"], "unverified");
    assert!(
        !first["reason"].as_str().unwrap().contains("over the cap"),
        "{first}"
    );
    let last = out.row("skills[s99].inputModes[a/999]");
    assert_eq!(last["verdict"], "unverified");
    assert!(
        last["reason"]
            .as_str()
            .unwrap()
            .contains("over the cap of 64 runs per declaration family"),
        "{last}"
    );
    let report = out.report();
    let ran = report["peers"][0]["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] != "skipped")
        .count();
    // The capped family's 64, and one run of each of the default suite's 18
    // other scenarios (input-mode-undeclared-refused is the 18th).
    assert!(ran <= 64 + 18, "{ran} runs ran");
    out.assert_no_secret();
}

/// POSTs `body` to `url` on a fresh connection; the status line's code.
fn post(url: &str, headers: &str, body: &str) -> Option<u16> {
    let rest = url.strip_prefix("http://")?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let mut stream = TcpStream::connect(host).ok()?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_webhook_flood_does_not_hide_the_real_delivery() {
    let answer: Arc<Answer> = Arc::new(|stream, _base, request| {
        let method = request["method"].as_str().unwrap_or_default();
        if method != "CreateTaskPushNotificationConfig" {
            respond_json(stream, &result(request, json!({"task": working_task()})));
            return;
        }
        let params = request["params"].clone();
        respond_json(stream, &result(request, params.clone()));
        let url = params["url"].as_str().unwrap_or_default().to_string();
        let token = params["token"].as_str().unwrap_or_default().to_string();
        std::thread::spawn(move || {
            let base = &url[..url.find("/a2a-conform/").unwrap_or(url.len())];
            for n in 0..2000 {
                post(&format!("{base}/elsewhere/{n}"), "", "{}");
            }
            // More junk on the right path than the receiver keeps notifications.
            for _ in 0..1100 {
                post(&url, "Content-Type: text/html\r\n", "<html>");
            }
            let real = json!({"statusUpdate": {"taskId": "t-1", "contextId": "c-1",
                "status": {"state": "TASK_STATE_COMPLETED"}}});
            post(
                &url,
                &format!("Content-Type: application/a2a+json\r\nAuthorization: Bearer {token}\r\n"),
                &real.to_string(),
            );
        });
    });
    let (base, _) = raw_peer(json!({"pushNotifications": true}), answer);
    let out = measure(&[
        "check",
        &base,
        "--scenario",
        "push-delivers",
        "--var",
        "task_window=90s",
    ]);
    assert_eq!(
        out.row("capabilities.pushNotifications")["verdict"],
        "honoured",
        "{}\n{}",
        out.stdout,
        out.json
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.peak_kb < 200 * 1024, "peak RSS {} KiB", out.peak_kb);
    assert!(out.json.len() < 1024 * 1024, "{} bytes", out.json.len());
    out.assert_no_secret();
}

#[test]
fn flag_values_that_would_break_a_request_exit_2_before_any_request() {
    let answer: Arc<Answer> = Arc::new(|stream, _base, request| {
        respond_json(stream, &result(request, json!({"task": working_task()})));
    });
    let (base, connections) = raw_peer(json!({}), answer);
    // Arguments, environment, and what stderr must say.
    type Case<'a> = (Vec<String>, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![
                "--header".into(),
                format!("Authorization: Bearer {SECRET_HEADER}\r\nX-Injected: 1"),
            ],
            vec![],
            "control character",
        ),
        (
            vec!["--header".into(), "Bad Name: v".into()],
            vec![],
            "not a valid header name",
        ),
        (
            vec!["--bearer-env".into(), "NEWLINE_TOKEN".into()],
            vec![("NEWLINE_TOKEN", "bounded-bearer-s3cr3t\n")],
            "control character",
        ),
        (
            vec!["--var".into(), "stable_reads=999999999999".into()],
            vec![],
            "stable_reads must be a whole number from 1 to 100",
        ),
        (
            vec!["--var".into(), "probe_window=100000s".into()],
            vec![],
            "probe_window must be a duration more than zero and at most 24h",
        ),
        (
            vec!["--var".into(), "quiet_window=0ms".into()],
            vec![],
            "quiet_window must be a duration more than zero and at most 24h",
        ),
    ];
    for (args, env, says) in cases {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
        command
            .arg("check")
            .arg(&base)
            .args(&args)
            .envs(env.iter().copied())
            .stdin(Stdio::null());
        let started = Instant::now();
        let output = command.output().expect("binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        for secret in [SECRET_HEADER, SECRET_TOKEN] {
            assert!(
                !stderr.contains(secret) && !stdout.contains(secret),
                "{args:?}"
            );
        }
        assert!(started.elapsed() < Duration::from_secs(30));
        assert_eq!(
            connections.load(Ordering::SeqCst),
            0,
            "{args:?} contacted the peer"
        );
    }
}
