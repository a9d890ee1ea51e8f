//! Hostile peers against the configured secrets: a card GET redirected to
//! another port, a JSON-RPC POST answered with a 307 to another port, a peer
//! reflecting the token (raw, JSON-escaped, percent-encoded, base64) in its
//! card, its errors and its SSE comments, and a card whose endpoint is on
//! another origin. A second listener records everything it receives, so the
//! tests can show no credential ever reached it; and no output of the tool
//! (stdout, stderr, JSON, JUnit, Markdown) may carry a secret in any form.
//!
//! Own helpers (a raw TCP listener that records what it receives, a bounded
//! run that measures the child's peak memory) until the shared hostile
//! harness lands; move them there then.

use super::harness::{read_http, request_path, run_bounded};
use crate::common::{self, Peer, FAST_VARS};
use base64::Engine;
use serde_json::{json, Value};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const TOKEN: &str = "tok-Reflect-9f2a/x+y";
const AUTH_TOKEN: &str = "xat-5150-hdr";
const SHORT: &str = "Qz";

/// What each listener received: one string per request, head and body.
type Log = Arc<Mutex<Vec<String>>>;

/// A request as read off the socket.
struct Request {
    path: String,
    text: String,
    body: String,
}

fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let (head, body) = read_http(stream)?;
    Some(Request {
        path: request_path(&head),
        text: format!("{head}{body}"),
        body,
    })
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, String)], body: &[u8]) {
    let mut head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn json_headers() -> Vec<(&'static str, String)> {
    vec![("Content-Type", "application/json".to_string())]
}

/// A listener on loopback answering each request with `answer`, after
/// recording it in the returned log.
fn listen(
    answer: impl Fn(&str, &Request, &mut TcpStream) + Send + Sync + 'static,
) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let (shared_log, shared_base) = (log.clone(), base.clone());
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let (log, base, answer) = (shared_log.clone(), shared_base.clone(), answer.clone());
            std::thread::spawn(move || {
                if let Some(request) = read_request(&mut stream) {
                    log.lock().unwrap().push(request.text.clone());
                    answer(&base, &request, &mut stream);
                }
            });
        }
    });
    (base, log)
}

/// A v1.0 card with its JSON-RPC endpoint at `endpoint`.
fn card(name: &str, skill: &str, endpoint: &str) -> Value {
    json!({
        "name": name, "description": "hostile", "version": "1",
        "supportedInterfaces": [{"url": endpoint, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": skill, "name": skill, "description": "d", "tags": ["t"], "inputModes": ["text/plain"]}]
    })
}

const CARD_PATH: &str = "/.well-known/agent-card.json";

/// The outcome of one run, with every output it produced and its bounds.
struct Run {
    code: i32,
    outputs: Vec<(&'static str, String)>,
    report: Value,
    peak_rss_kib: u64,
    elapsed: Duration,
}

impl Run {
    fn peer(&self) -> &Value {
        &self.report["peers"][0]
    }

    fn output(&self, name: &str) -> &str {
        &self.outputs.iter().find(|(n, _)| *n == name).unwrap().1
    }

    fn verdict(&self, run_id: &str) -> String {
        let runs = self.peer()["scenarios"].as_array().expect("scenarios");
        runs.iter()
            .find(|r| r["id"] == run_id)
            .unwrap_or_else(|| panic!("no run {run_id}: {runs:#?}"))["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn declaration(&self, id: &str) -> String {
        let rows = self.peer()["declarations"].as_array().expect("rows");
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no row {id}: {rows:#?}"))["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    }

    fn explain(&self) -> String {
        format!(
            "exit {}\nstdout:\n{}\nstderr:\n{}",
            self.code,
            self.output("stdout"),
            self.output("stderr")
        )
    }

    /// No secret, in any encoding a peer can reflect, in any output; and the
    /// run stayed within its bounds.
    fn assert_clean(&self, secrets: &[&str]) {
        for secret in secrets {
            for form in encodings(secret) {
                for (name, text) in &self.outputs {
                    assert!(
                        !text.contains(&form),
                        "`{form}` (a form of `{secret}`) is in {name}:\n{text}"
                    );
                }
            }
        }
        assert!(self.elapsed < Duration::from_secs(90), "{:?}", self.elapsed);
        assert!(
            self.peak_rss_kib < 256 * 1024,
            "peak RSS {} KiB",
            self.peak_rss_kib
        );
    }
}

/// The forms of a secret a peer can send back: as is, JSON `\u`-escaped,
/// percent-encoded, base64 (standard, URL-safe, of `user:secret`).
fn encodings(secret: &str) -> Vec<String> {
    let mut forms = vec![secret.to_string()];
    if secret.len() < 4 {
        // A two-letter value shows up inside unrelated base64 and escapes.
        return forms;
    }
    forms.push(
        secret
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect(),
    );
    forms.push(secret.bytes().map(|b| format!("%{b:02X}")).collect());
    forms.push(secret.bytes().map(|b| format!("%{b:02x}")).collect());
    let b64 = base64::engine::general_purpose::STANDARD;
    let url = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    forms.push(b64.encode(secret));
    forms.push(url.encode(secret));
    forms.push(b64.encode(format!("user:{secret}")));
    forms
}

/// Runs `check` with every report format, bounded, measuring the child's
/// peak resident memory (VmHWM) while it runs.
fn run_check(card_url: &str, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let (json, junit, markdown) = (
        dir.path().join("r.json"),
        dir.path().join("r.xml"),
        dir.path().join("r.md"),
    );
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command
        .args(["check", card_url])
        .args(FAST_VARS)
        .args(["--timeout", "2s", "-v"])
        .args(extra)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .arg("--markdown")
        .arg(&markdown)
        .env("NO_COLOR", "1");
    for (k, v) in env {
        command.env(k, v);
    }
    let finished = run_bounded(command, Duration::from_secs(120));
    let read = |p: &std::path::Path| std::fs::read_to_string(p).unwrap_or_default();
    let json_text = read(&json);
    let report = serde_json::from_str(&json_text)
        .unwrap_or_else(|_| panic!("no JSON report:\n{}", finished.stderr));
    Run {
        code: finished.code,
        outputs: vec![
            ("stdout", finished.stdout),
            ("stderr", finished.stderr),
            ("json", json_text),
            ("junit", read(&junit)),
            ("markdown", read(&markdown)),
        ],
        report,
        peak_rss_kib: finished.peak_rss_kib,
        elapsed: finished.elapsed,
    }
}

/// The credentials every case configures: a bearer token, a header no list
/// of well-known names would catch, a very short one, and a public one.
fn credential_args() -> Vec<&'static str> {
    vec![
        "--bearer-env",
        "HOSTILE_TOKEN",
        "--header",
        "X-Auth-Token: xat-5150-hdr",
        "--header",
        "X-K: Qz",
        "--header",
        "X-Trace: trace-public-1",
        "--header-public",
        "x-trace",
    ]
}

const ENV: [(&str, &str); 1] = [("HOSTILE_TOKEN", TOKEN)];

/// No credential in anything a listener received.
fn assert_no_credentials(log: &Log, what: &str) {
    let log = log.lock().unwrap();
    for request in log.iter() {
        for secret in [TOKEN, AUTH_TOKEN] {
            assert!(
                !request.contains(secret),
                "{what} received `{secret}`:\n{request}"
            );
        }
        assert!(
            !request.to_ascii_lowercase().contains("x-k:"),
            "{what} received X-K:\n{request}"
        );
        assert!(
            !request.to_ascii_lowercase().contains("authorization"),
            "{what} received an Authorization header:\n{request}"
        );
    }
}

#[test]
fn a_card_redirected_to_another_port_gets_no_credentials_there() {
    let peer = common::start_peer(
        a2a_conform_protocol::ProtocolVersion::V1_0,
        a2a_conform_mock::Behaviour::Honest,
    );
    let mock_card = fetch_text(&peer);
    // The recorder serves the honest mock's card; its endpoint is the mock's.
    let (recorder, recorded) = listen(move |_, _, stream| {
        respond(stream, "200 OK", &json_headers(), mock_card.as_bytes());
    });
    let target = format!("{recorder}{CARD_PATH}");
    let (front, front_log) = listen(move |_, _, stream| {
        respond(stream, "302 Found", &[("Location", target.clone())], b"");
    });
    let mut args = credential_args();
    args.extend(["--scenario", "completion-stability"]);
    let run = run_check(&format!("{front}{CARD_PATH}"), &args, &ENV);
    assert_eq!(recorded.lock().unwrap().len(), 1, "the card GET followed");
    assert_no_credentials(&recorded, "the redirect target");
    let front_log = front_log.lock().unwrap();
    assert!(
        front_log[0].contains(AUTH_TOKEN) && front_log[0].contains(TOKEN),
        "the card's own origin gets the credentials: {}",
        front_log[0]
    );
    assert_eq!(
        run.verdict("completion-stability"),
        "pass",
        "{}",
        run.explain()
    );
    assert_eq!(run.declaration("lifecycle.completion"), "honoured");
    assert_eq!(run.code, 0, "{}", run.explain());
    let warnings = run.peer()["card_warnings"].to_string();
    assert!(
        warnings.contains("redirected (HTTP 302)") && warnings.contains("not sent there"),
        "{warnings}"
    );
    run.assert_clean(&[TOKEN, AUTH_TOKEN, SHORT]);
}

fn fetch_text(peer: &Peer) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        reqwest::get(peer.card_url())
            .await
            .expect("the mock answers")
            .text()
            .await
            .unwrap()
    })
}

#[test]
fn a_307_of_the_jsonrpc_post_is_not_followed_and_is_a_finding_with_its_location() {
    let (recorder, recorded) = listen(|_, _, stream| {
        respond(stream, "200 OK", &json_headers(), b"{}");
    });
    let elsewhere = format!("{recorder}/rpc");
    let (front, _) = listen(move |base, request, stream| {
        if request.path == CARD_PATH {
            let body = card("redirector", "s", &format!("{base}/rpc")).to_string();
            respond(stream, "200 OK", &json_headers(), body.as_bytes());
        } else {
            respond(
                stream,
                "307 Temporary Redirect",
                &[("Location", elsewhere.clone())],
                b"",
            );
        }
    });
    let mut args = credential_args();
    args.extend(["--scenario", "completion-stability"]);
    let run = run_check(&format!("{front}{CARD_PATH}"), &args, &ENV);
    assert!(
        recorded.lock().unwrap().is_empty(),
        "the POST was not resent: {:?}",
        recorded.lock().unwrap()
    );
    // A redirect is no A2A answer: a peer malfunction, never a pass nor a
    // divergence of the card.
    assert_eq!(
        run.verdict("completion-stability"),
        "error",
        "{}",
        run.explain()
    );
    assert_eq!(
        run.declaration("lifecycle.completion"),
        "unverified",
        "{}",
        run.explain()
    );
    assert_eq!(run.code, 3, "{}", run.explain());
    let runs = run.peer()["scenarios"].to_string();
    assert!(
        runs.contains("HTTP 307") && runs.contains(&format!("Location: {recorder}/rpc")),
        "the Location is in the evidence: {runs}"
    );
    run.assert_clean(&[TOKEN, AUTH_TOKEN, SHORT]);
}

#[test]
fn a_peer_reflecting_the_secrets_in_any_encoding_never_gets_them_into_an_output() {
    let pct: String = TOKEN.bytes().map(|b| format!("%{b:02x}")).collect();
    let escaped: String = TOKEN
        .chars()
        .map(|c| format!("\\u{:04x}", c as u32))
        .collect();
    let b64 = base64::engine::general_purpose::STANDARD;
    let basic = b64.encode(format!("user:{TOKEN}"));
    let url_safe = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(AUTH_TOKEN);
    let reflections = format!("raw {TOKEN} {AUTH_TOKEN} pct {pct} basic {basic} url {url_safe}");
    let (front, front_log) = listen(move |base, request, stream| {
        if request.path == CARD_PATH {
            let mut body = card(
                &format!("agent {TOKEN}"),
                &format!("skill-{AUTH_TOKEN}"),
                &format!("{base}/rpc"),
            );
            body["skills"][0]["inputModes"] = json!([format!("text/{SHORT}")]);
            respond(
                stream,
                "200 OK",
                &json_headers(),
                body.to_string().as_bytes(),
            );
            return;
        }
        let id = serde_json::from_str::<Value>(&request.body)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .unwrap_or(Value::Null);
        if request.body.contains("SendStreamingMessage") {
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
            let _ = stream.write_all(head.as_bytes());
            let events = format!(
                ": {reflections}\n\n: {escaped}\n\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32603,\"message\":\"{escaped} {reflections}\"}}}}\n\n"
            );
            let _ = stream.write_all(events.as_bytes());
            return;
        }
        // The message is written by hand: the `\u` escapes stay escapes.
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":-32603,\"message\":\"{escaped} | {reflections}\",\"data\":{{\"echo\":\"{escaped}\"}}}}}}"
        );
        respond(stream, "200 OK", &json_headers(), body.as_bytes());
    });
    let run = run_check(&format!("{front}{CARD_PATH}"), &credential_args(), &ENV);
    // The peer did get the credentials (same origin): the test can fail.
    let received = front_log.lock().unwrap().join("\n");
    assert!(received.contains(AUTH_TOKEN) && received.contains(TOKEN));
    assert!(received.contains("X-K: Qz") || received.contains("x-k: Qz"));
    assert_ne!(run.code, 0, "{}", run.explain());
    for id in ["streaming-probe", "completion-stability"] {
        assert_ne!(run.verdict(id), "pass", "{id}: {}", run.explain());
    }
    assert_ne!(run.declaration("capabilities.streaming"), "honoured");
    run.assert_clean(&[TOKEN, AUTH_TOKEN, SHORT]);
    let json = run.output("json");
    // Masked where the peer put them: the name, the skill's row, SSE comments.
    assert!(run.peer()["name"].as_str().unwrap().contains("«redacted»"));
    assert!(json.contains("skills[skill-«redacted»]"), "{json}");
    assert!(json.contains("SSE comment"), "{json}");
    // The public header stays readable in the reproductions.
    assert!(json.contains("x-trace: trace-public-1"), "{json}");
}

/// A recorder standing for an endpoint on another origin: it refuses what
/// comes without credentials, as a secured peer would.
fn secured_recorder() -> (String, Log) {
    listen(|_, request, stream| {
        let body = r#"{"error":"unauthorized"}"#;
        if request.text.to_ascii_lowercase().contains("authorization:") {
            respond(stream, "403 Forbidden", &json_headers(), body.as_bytes());
        } else {
            let mut headers = json_headers();
            headers.push(("WWW-Authenticate", "Bearer".into()));
            respond(stream, "401 Unauthorized", &headers, body.as_bytes());
        }
    })
}

fn cross_origin_card(endpoint: String) -> (String, Log) {
    listen(move |_, _, stream| {
        let body = card("split", "s", &endpoint).to_string();
        respond(stream, "200 OK", &json_headers(), body.as_bytes());
    })
}

#[test]
fn an_endpoint_on_another_origin_is_a_warning_and_same_origin_credentials_keeps_them_home() {
    let (endpoint_base, endpoint_log) = secured_recorder();
    let (card_base, _) = cross_origin_card(format!("{endpoint_base}/rpc"));
    let card_url = format!("{card_base}{CARD_PATH}");
    let mut args = credential_args();
    args.extend(["--scenario", "completion-stability"]);

    // By default the credentials go there too, with the warning.
    let loose = run_check(&card_url, &args, &ENV);
    let received = endpoint_log.lock().unwrap().join("\n");
    assert!(
        received.contains(TOKEN),
        "sent without the flag: {received}"
    );
    endpoint_log.lock().unwrap().clear();

    args.push("--same-origin-credentials");
    let strict = run_check(&card_url, &args, &ENV);
    assert!(
        !endpoint_log.lock().unwrap().is_empty(),
        "the endpoint was called"
    );
    assert_no_credentials(&endpoint_log, "the endpoint on another origin");
    assert_eq!(
        strict.verdict("completion-stability"),
        "inconclusive",
        "{}",
        strict.explain()
    );
    assert_eq!(strict.declaration("lifecycle.completion"), "unverified");
    assert_eq!(strict.code, 4, "nothing verified: {}", strict.explain());
    // The reason names the flag, not a missing token.
    let message = strict.peer()["scenarios"]
        .as_array()
        .and_then(|runs| runs.iter().find(|r| r["id"] == "completion-stability"))
        .and_then(|r| r["message"].as_str())
        .unwrap_or("")
        .to_string();
    assert!(
        message.contains("--same-origin-credentials")
            && !message.contains("no credentials were given"),
        "{message}"
    );
    let evidence = strict.peer()["scenarios"].to_string();
    assert!(
        evidence.contains("credentials withheld") && evidence.contains("--same-origin-credentials"),
        "{evidence}"
    );

    for (run, consequence) in [
        (&loose, "are sent there too"),
        (&strict, "no credentials are sent there"),
    ] {
        let card_origin = card_base.as_str();
        let endpoint_origin = endpoint_base.as_str();
        for format in ["stdout", "json", "junit", "markdown"] {
            let text = run.output(format);
            assert!(
                text.lines().any(|l| l.contains(card_origin)
                    && l.contains(endpoint_origin)
                    && l.contains("another origin")
                    && l.contains(consequence)),
                "{format} names both origins:\n{text}"
            );
        }
        run.assert_clean(&[TOKEN, AUTH_TOKEN, SHORT]);
    }
}

#[test]
fn a_malformed_header_is_a_usage_error_that_does_not_print_its_value() {
    let out = common::run(&[
        "check",
        "http://127.0.0.1:9/",
        "--header",
        "Authorization Bearer s3cret-in-a-typo",
    ]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("--header `Authorization «redacted»`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("s3cret-in-a-typo") && !out.stdout.contains("s3cret-in-a-typo"));
}

#[test]
fn a_same_origin_card_redirect_keeps_the_credentials_and_a_loop_is_bounded() {
    let (front, log) = listen(|base, request, stream| match request.path.as_str() {
        "/moved.json" => respond(
            stream,
            "301 Moved Permanently",
            &[("Location", CARD_PATH.to_string())],
            b"",
        ),
        CARD_PATH => {
            let body = card("moved", "s", &format!("{base}/rpc")).to_string();
            respond(stream, "200 OK", &json_headers(), body.as_bytes());
        }
        "/loop.json" => respond(
            stream,
            "302 Found",
            &[("Location", "/loop.json".into())],
            b"",
        ),
        _ => respond(stream, "500 Internal Server Error", &json_headers(), b"{}"),
    });
    let mut args = credential_args();
    args.extend(["--scenario", "completion-stability"]);
    let run = run_check(&format!("{front}/moved.json"), &args, &ENV);
    let log = log.lock().unwrap().clone();
    assert!(log.len() >= 2, "{log:?}");
    for request in &log[..2] {
        assert!(
            request.contains(TOKEN) && request.contains(AUTH_TOKEN),
            "same origin: {request}"
        );
    }
    assert!(
        log[1].starts_with(&format!("GET {CARD_PATH}")),
        "{}",
        log[1]
    );
    assert_eq!(run.peer()["name"], "moved", "{}", run.explain());
    run.assert_clean(&[TOKEN, AUTH_TOKEN, SHORT]);

    let looped = common::run_env(
        &[
            "check",
            &format!("{front}/loop.json"),
            "--bearer-env",
            "HOSTILE_TOKEN",
        ],
        &ENV,
    );
    assert_eq!(looped.code, 3, "{}", looped.explain());
    assert!(
        looped.stderr.contains("redirected more than 3 times"),
        "{}",
        looped.stderr
    );
}
