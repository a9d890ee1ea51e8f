//! Peer text is inert, and file inputs are bounded (issue #10).
//!
//! A hostile peer on loopback puts terminal escapes, Markdown and
//! XML-illegal characters in its card name, skill ids and error messages;
//! every sink must show them as text: the terminal gets no control byte,
//! the Markdown report rendered by GitHub's own cmark-gfm shows no link,
//! image, emphasis or HTML and keeps its table columns, and the JUnit file
//! still validates against the XSD. Then the file inputs: a gibibyte file
//! given as a report, profile, baseline or suite is refused at once (exit
//! 2), without being read.
//!
//! Each run is bounded by the test itself: 256 MiB of data (RLIMIT_DATA on
//! the child, so reading a gibibyte aborts the run) and 120 s.
//!
//! cmarkgfm is pinned in tests/support/markdown/ and installed by
//! tests/support/install-cmarkgfm.sh (on first need, here too); without it
//! these tests fail, naming the script: they are never skipped.

use super::harness::{read_http, request_path};
use crate::common::markdown::github_html;
use crate::common::*;
use crate::gating;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Clears the screen, homes the cursor and prints a green `honoured`; then
/// a title (OSC), a bell, a carriage return, a backspace and a bidi override.
const FORGE: &str = "\x1b[2J\x1b[H\x1b[32m✔ honoured\x1b[0m\x1b]0;owned\x07\r\x08\u{9b}\u{202e}";
/// What Markdown would turn into an image, a link, emphasis, HTML, a new
/// table cell, a new row, a heading, an autolink and an address.
const MARKUP: &str = "![img](https://e.vil/i.png) [click](https://e.vil) *em* __strong__ \
    ~~del~~ <b>bold</b> | cell\n# heading https://e.vil www.e.vil x@e.vil";
/// Characters XML 1.0 forbids.
const XML_ILLEGAL: &str = "\x00\x0b\x0c\u{fffe}";
const TOKEN: &str = "inert-test-token-5d1c";

fn hostile() -> String {
    format!("{FORGE} {MARKUP} {XML_ILLEGAL}")
}

/// How the hostile peer answers a call.
#[derive(Clone, Copy)]
enum Answers {
    /// A JSON-RPC error whose message is hostile text.
    Errors,
    /// A task that failed, every string of it hostile text: its id, its
    /// status message, its artifact's id, name and text.
    FailedTasks,
}

/// Serves a card whose name and skill id are hostile text, and answers every
/// call as `answers` says.
fn hostile_peer(answers: Answers) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card_base = base.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let base = card_base.clone();
            std::thread::spawn(move || serve(stream, &base, answers));
        }
    });
    format!("{base}/.well-known/agent-card.json")
}

/// A failed task whose every string is hostile text.
fn hostile_task() -> serde_json::Value {
    let text = serde_json::json!([{"text": hostile()}]);
    serde_json::json!({
        "id": format!("t {MARKUP}"), "contextId": format!("c {MARKUP}"),
        "status": {"state": "TASK_STATE_FAILED",
                   "message": {"role": "ROLE_AGENT", "messageId": hostile(), "parts": text}},
        "artifacts": [{"artifactId": hostile(), "name": hostile(), "parts": text}]
    })
}

fn read_request(stream: &mut TcpStream) -> Option<(String, String)> {
    let (head, body) = read_http(stream)?;
    Some((request_path(&head), body))
}

fn respond(stream: &mut TcpStream, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn serve(mut stream: TcpStream, base: &str, answers: Answers) {
    let Some((path, body)) = read_request(&mut stream) else {
        return;
    };
    // Trigger phrases the prompt search quotes in its reasons.
    let quoted = format!("answers \"{MARKUP}\" and \"[x](https://e.vil)\"");
    let answer = if path.ends_with("/.well-known/agent-card.json") {
        serde_json::json!({
            "name": hostile(), "description": hostile(), "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": false},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": format!("s{FORGE}|{MARKUP}"), "name": hostile(), "description": quoted,
                        "tags": ["t"], "inputModes": ["text/plain"], "examples": [hostile()]}]
        })
    } else {
        let call = serde_json::from_str::<serde_json::Value>(&body).unwrap_or_default();
        let id = call.get("id").cloned().unwrap_or(serde_json::Value::Null);
        let method = call.get("method").and_then(|m| m.as_str()).unwrap_or("");
        match (answers, method) {
            (Answers::FailedTasks, "SendMessage") => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"task": hostile_task()}})
            }
            (Answers::FailedTasks, "GetTask" | "CancelTask") => {
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": hostile_task()})
            }
            _ => serde_json::json!({"jsonrpc": "2.0", "id": id,
                                    "error": {"code": -32603, "message": hostile()}}),
        }
    };
    respond(&mut stream, answer.to_string().as_bytes());
}

/// Whether a terminal would act on `c` instead of printing it.
fn acts_on_terminal(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn assert_terminal_safe(what: &str, text: &str) {
    let found: Vec<char> = text.chars().filter(|c| acts_on_terminal(*c)).collect();
    assert!(
        found.is_empty(),
        "{what} passes {found:?} to the terminal:\n{text}"
    );
}

/// The memory each measured run may use: RLIMIT_DATA (heap and private
/// writable mappings) of the child, so a run past it fails to allocate and
/// aborts instead of exiting with its own code.
const MEMORY_BOUND: u64 = 256 * 1024 * 1024;

/// One run of the binary, bounded in memory and time.
struct Measured {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Runs the binary with its data segment capped at [`MEMORY_BOUND`]: the
/// kernel enforces the bound on this child alone, whatever else the test
/// binary runs meanwhile (getrusage would count the test process's own
/// memory, which the child inherits at spawn).
fn measured(args: &[&str], env: &[(&str, &str)]) -> Measured {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command
        .args(args)
        .envs(env.iter().copied())
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY_BOUND,
                rlim_max: MEMORY_BOUND,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().expect("binary starts");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = pipe.read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = started + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a2a-conform {args:?} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Measured {
        // A run killed by a signal (an abort on a failed allocation) is -1.
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        elapsed: started.elapsed(),
    }
}

/// Markdown whose HTML has no link, image, emphasis or tag from peer text.
fn assert_markdown_inert(markdown: &str) {
    let html = github_html(markdown);
    for made in [
        "<img", "<a ", "href=", "src=", "<em>", "<del>", "<b>", "<h1>",
    ] {
        assert!(
            !html.contains(made),
            "peer text became `{made}`:\n{html}\n--- from:\n{markdown}"
        );
    }
    // Only the tool's own bold: the verdict cells and the result line.
    for strong in html.match_indices("<strong>") {
        let rest = &html[strong.0 + 8..];
        assert!(
            rest.starts_with("Result") || rest.starts_with("diverged") || rest.starts_with("error"),
            "peer text became bold: {}",
            &rest[..rest.len().min(60)]
        );
    }
    // Every row of every table keeps its columns.
    for table in html.split("<table>").skip(1) {
        let table = &table[..table.find("</table>").unwrap()];
        let columns = table.split("</tr>").next().unwrap().matches("<th>").count();
        for row in table.split("<tr>").skip(1) {
            assert_eq!(
                row.matches("<td>").count() + row.matches("<th>").count(),
                columns,
                "a table row lost its columns: {row}"
            );
        }
    }
}

/// What a check of a hostile peer wrote to each sink.
struct Sinks {
    out: Outcome,
    junit: String,
    markdown: String,
    elapsed: Duration,
}

/// Checks `card_url` with a secret configured, writing every report.
fn check_every_sink(card_url: &str) -> Sinks {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let markdown = dir.path().join("summary.md");
    let json = dir.path().join("report.json");
    let mut args = vec!["check", card_url];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(&[
        "--timeout",
        "2s",
        "--bearer-env",
        "INERT_TOKEN",
        "--junit",
        junit.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
        "-v",
    ]);
    let ran = measured(&args, &[("INERT_TOKEN", TOKEN)]);
    let out = Outcome {
        code: ran.code,
        stdout: ran.stdout,
        stderr: ran.stderr,
        report: std::fs::read_to_string(&json)
            .ok()
            .map(|text| serde_json::from_str(&text).expect("the JSON report parses")),
        json_text: None,
        junit: None,
        markdown: None,
    };
    Sinks {
        out,
        junit: std::fs::read_to_string(&junit).expect("the JUnit report"),
        markdown: std::fs::read_to_string(&markdown).expect("the Markdown report"),
        elapsed: ran.elapsed,
    }
}

/// No sink acts on the peer's text, and the secret is in none of them.
fn assert_sinks_inert(sinks: &Sinks) {
    let Sinks {
        out,
        junit,
        markdown,
        elapsed,
    } = sinks;
    // The JSON report keeps the peer's exact text; only the sinks escape it.
    assert_eq!(out.report()["peers"][0]["name"], hostile());

    assert_terminal_safe("check's stdout", &out.stdout);
    assert_terminal_safe("check's stderr", &out.stderr);
    assert!(out.stdout.contains("\\u{1b}[2J"), "{}", out.stdout);
    assert!(!out.stdout.contains("\n✔ honoured"), "{}", out.stdout);

    assert_markdown_inert(markdown);

    assert!(
        !junit
            .chars()
            .any(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r')),
        "{junit}"
    );
    if let Err(e) = gating::xmllint_text(junit) {
        panic!("the JUnit report of a hostile peer is invalid:\n{e}\n{junit}");
    }

    for (what, text) in [
        ("stdout", out.stdout.as_str()),
        ("stderr", &out.stderr),
        ("JSON", &out.report().to_string()),
        ("JUnit", junit),
        ("Markdown", markdown),
    ] {
        assert!(!text.contains(TOKEN), "the token leaked into {what}");
    }
    assert!(*elapsed < Duration::from_secs(90), "took {elapsed:?}");
}

#[test]
fn a_hostile_card_and_peer_are_shown_as_text_in_every_sink() {
    let sinks = check_every_sink(&hostile_peer(Answers::Errors));
    // The verdict class: an interface that errors on every call diverges.
    assert_eq!(sinks.out.code, 1, "{}", sinks.out.explain());
    assert_eq!(sinks.out.declaration("interfaces[JSONRPC 1.0]"), "diverged");
    assert_sinks_inert(&sinks);
}

/// Task text reaches other places of the reports than an error does: the
/// reasons quoting a task's status message, artifact names, the prompts
/// the search tried (a skill's examples and quoted phrases).
#[test]
fn a_hostile_peers_tasks_are_shown_as_text_in_every_sink() {
    let sinks = check_every_sink(&hostile_peer(Answers::FailedTasks));
    assert_sinks_inert(&sinks);
    let markdown = &sinks.markdown;
    // The hostile task text did reach the Markdown (escaped), so this test
    // reads the paths it is about: the status message in a reason.
    assert!(markdown.matches("e.vil").count() > 10, "{markdown}");
    // Every task fails, with or without acceptedOutputModes: nothing was
    // learned about the output mode, so it is no divergence.
    let out = &sinks.out;
    assert_eq!(
        out.declaration("defaultOutputModes[text/plain]"),
        "unverified",
        "{}",
        out.explain()
    );
    let message = out.run("output-mode-accepted[text/plain]")["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        message.contains("without acceptedOutputModes answered"),
        "{message}"
    );
}

/// `check --html -` writes the page where a terminal reads it: the peer's
/// escape sequences and BiDi overrides arrive as character references only.
#[test]
fn check_html_to_stdout_is_terminal_safe() {
    let card_url = hostile_peer(Answers::Errors);
    let mut args = vec!["check", card_url.as_str()];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(&["--timeout", "2s", "--html", "-"]);
    let ran = measured(&args, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(ran.stdout.starts_with("<!DOCTYPE html>"), "{}", ran.stdout);
    assert_terminal_safe("check --html -", &ran.stdout);
    assert_terminal_safe("check's stderr", &ran.stderr);
    assert!(ran.stdout.contains("&#x1B;[2J"), "{}", ran.stdout);
    assert!(ran.stdout.contains("&#x202E;"), "{}", ran.stdout);
}

#[test]
fn card_prints_a_hostile_card_as_text() {
    let card_url = hostile_peer(Answers::Errors);
    let out = run(&["card", &card_url, "--timeout", "5s"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_terminal_safe("card's stdout", &out.stdout);
    assert!(out.stdout.contains("\\u{1b}[2J"), "{}", out.stdout);
}

#[test]
fn diff_shows_a_hostile_report_as_text() {
    let card_url = hostile_peer(Answers::Errors);
    let out = check(&card_url, &["--timeout", "2s"]);
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.json");
    let new = dir.path().join("new.json");
    let mut report = out.report().clone();
    report["tool"]["version"] = FORGE.into();
    std::fs::write(&new, report.to_string()).unwrap();
    report["peers"][0]["name"] = "plain".into();
    for row in report["peers"][0]["declarations"].as_array_mut().unwrap() {
        row["verdict"] = "honoured".into();
    }
    std::fs::write(&old, report.to_string()).unwrap();
    let diffed = run(&["diff", old.to_str().unwrap(), new.to_str().unwrap()]);
    assert_eq!(diffed.code, 1, "{}", diffed.explain());
    assert!(diffed.stdout.contains("regression"), "{}", diffed.stdout);
    assert_terminal_safe("diff's stdout", &diffed.stdout);
    assert!(diffed.stdout.contains("\\u{1b}[2J"), "{}", diffed.stdout);
}

#[test]
fn suite_lint_shows_a_bad_line_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("evil.yaml");
    std::fs::write(
        &suite,
        format!("scenarios:\n  - id: x\n    title: \"{FORGE}\"\n    bogus: [\n"),
    )
    .unwrap();
    let out = run(&["suite", "lint", suite.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert_terminal_safe("suite lint's stderr", &out.stderr);
    assert_terminal_safe("suite lint's stdout", &out.stdout);
}

/// A sparse file of `size` bytes: it takes no disk, but reading it would.
fn sparse(dir: &Path, name: &str, size: u64) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().set_len(size).unwrap();
    path
}

const GIB: u64 = 1024 * 1024 * 1024;

#[test]
fn diff_refuses_a_gibibyte_report_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let big = sparse(dir.path(), "big.json", GIB);
    let small = dir.path().join("small.json");
    std::fs::write(&small, "{}").unwrap();
    let out = measured(
        &["diff", big.to_str().unwrap(), small.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("big.json is larger than 64 MiB"),
        "{}",
        out.stderr
    );
    // Reading it would take a gibibyte, four times the bound `measured` sets.
    assert!(
        out.elapsed < Duration::from_secs(30),
        "took {:?}",
        out.elapsed
    );
}

#[test]
fn every_file_input_has_a_cap_and_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let big = sparse(dir.path(), "big.yaml", GIB).display().to_string();
    let peer = "http://127.0.0.1:9/.well-known/agent-card.json";
    for (args, says) in [
        (
            vec!["check", peer, "--profile", &big],
            format!("profile {big} is larger than 4 MiB"),
        ),
        (
            vec!["check", peer, "--baseline", &big],
            format!("baseline {big} is larger than 4 MiB"),
        ),
        (
            vec!["check", peer, "--suite", &big],
            format!("{big}: is larger than 4 MiB"),
        ),
        (
            vec!["suite", "lint", &big],
            format!("{big}: is larger than 4 MiB"),
        ),
    ] {
        let out = measured(&args, &[]);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains(&says), "{args:?}: {}", out.stderr);
    }
}
