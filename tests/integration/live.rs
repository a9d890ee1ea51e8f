//! A gate left unattended: live lines in a CI log while runs finish, reports
//! written when a signal stops the check, report paths and peer URLs checked
//! before the first request, and a token never echoed.

use crate::common::*;
use a2a_conform_mock::{Behaviour, MockTiming};
use a2a_conform_protocol::ProtocolVersion;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A peer whose tasks take about three seconds: a check against it runs
/// long enough to be watched, and interrupted, mid-run.
fn slow_peer() -> Peer {
    start_peer_with(
        ProtocolVersion::V1_0,
        Behaviour::Honest,
        MockTiming {
            chunks: 10,
            chunk_interval: Duration::from_millis(300),
            keepalive_interval: Duration::from_millis(200),
            silence: Duration::from_secs(3),
        },
        None,
    )
}

/// Starts `check` with stderr piped (not a terminal), one run at a time.
fn spawn_check(card_url: &str, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["check", card_url, "--jobs", "1"])
        .args(FAST_VARS)
        .args(["--var", "task_window=20s"])
        .args(extra)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts")
}

/// Forwards the child's stderr lines as they are written.
fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let stderr = child.stderr.take().expect("stderr piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The first stderr line that reads as a finished, non-skipped run.
fn first_run_line(lines: &mpsc::Receiver<String>, child: &mut Child) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match lines.recv_timeout(left) {
            Ok(line) if line.starts_with("PASS ") || line.starts_with("FAIL ") => return line,
            Ok(_) => {}
            Err(e) => {
                let _ = child.kill();
                panic!("no run line on stderr within 60 s: {e}");
            }
        }
    }
}

fn wait_bounded(child: &mut Child, bound: Duration) -> (i32, Duration) {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return (status.code().unwrap_or(-1), started.elapsed());
        }
        if started.elapsed() > bound {
            let _ = child.kill();
            panic!("the child did not exit within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn without_a_terminal_each_run_is_a_line_on_stderr_as_it_finishes() {
    let peer = slow_peer();
    let mut child = spawn_check(&peer.card_url(), &[]);
    let lines = stderr_lines(&mut child);
    let line = first_run_line(&lines, &mut child);
    // Read while the check is still running: the line was not held back.
    assert!(
        child.try_wait().expect("wait").is_none(),
        "the check had already exited when its first line arrived: {line}"
    );
    let fields: Vec<&str> = line.split_whitespace().collect();
    // One peer: no peer column, so the duration ends the line (a run id
    // may hold spaces: `bindings-agree[HTTP+JSON 1.0 ≡ JSONRPC 1.0]`).
    let duration = fields.last().expect("a field");
    assert!(
        fields.len() >= 3
            && duration.ends_with('s')
            && duration.trim_end_matches('s').parse::<f64>().is_ok(),
        "one peer: no peer column: {line}"
    );
    assert_eq!(&line[..14], &format!("{:<12}  ", fields[0]), "{line}");
    let (code, _) = wait_bounded(&mut child, Duration::from_secs(120));
    assert_eq!(code, 0);
}

#[test]
fn progress_none_prints_no_run_lines() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(
        &peer.card_url(),
        &["--progress", "none", "--scenario", "streaming-probe"],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(!out.stderr.contains("PASS "), "{}", out.explain());
    let out = check(
        &peer.card_url(),
        &["--progress", "lines", "--scenario", "streaming-probe"],
    );
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with("PASS") && l.contains("streaming-probe")),
        "{}",
        out.explain()
    );
}

/// Interrupts a check mid-run with `signal`; returns the exit code and the
/// three reports it wrote.
fn interrupt(signal: &str) -> (i32, serde_json::Value, String, String) {
    let peer = slow_peer();
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let junit = dir.path().join("r.xml");
    let markdown = dir.path().join("r.md");
    let mut child = spawn_check(
        &peer.card_url(),
        &[
            "--json",
            json.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
            "--markdown",
            markdown.to_str().unwrap(),
        ],
    );
    let lines = stderr_lines(&mut child);
    first_run_line(&lines, &mut child);
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let (code, took) = wait_bounded(&mut child, Duration::from_secs(30));
    assert!(took < Duration::from_secs(3), "stopping took {took:?}");
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{} not written: {e}", p.display()))
    };
    let report = serde_json::from_str(&read(&json)).expect("the JSON report parses");
    (code, report, read(&junit), read(&markdown))
}

#[test]
fn sigint_mid_run_writes_every_report_marked_interrupted_and_exits_130() {
    let (code, report, junit, markdown) = interrupt("-INT");
    assert_eq!(code, 130);
    assert_eq!(report["interrupted"], true);
    let runs = report["peers"][0]["scenarios"].as_array().expect("runs");
    assert!(
        runs.iter().any(|r| r["verdict"] == "pass"),
        "a finished run is kept: {runs:#?}"
    );
    assert!(
        runs.iter().any(|r| r["verdict"] == "error"
            && r["message"]
                .as_str()
                .is_some_and(|m| m.contains("interrupted"))),
        "an unfinished run reads interrupted: {runs:#?}"
    );
    assert!(
        junit.contains(r#"<testcase name="interrupted""#) && junit.contains("<error"),
        "{junit}"
    );
    assert!(markdown.contains("Interrupted"), "{markdown}");
}

#[test]
fn sigterm_mid_run_exits_143_with_the_reports() {
    let (code, report, junit, _) = interrupt("-TERM");
    assert_eq!(code, 143);
    assert_eq!(report["interrupted"], true);
    assert!(junit.contains(r#"type="interrupted""#), "{junit}");
}

#[test]
fn a_peer_the_interruption_cut_short_is_not_counted_as_without_a_card() {
    let peer = slow_peer();
    // Accepts the card fetch's connection and never answers it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent = format!(
        "http://{}/.well-known/agent-card.json",
        silent.local_addr().expect("its address")
    );
    let closed = format!("http://127.0.0.1:{}/", closed_port());
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let json_arg = json.to_str().expect("a UTF-8 path");
    let mut child = spawn_check(
        &peer.card_url(),
        &[&silent, &closed, "--timeout", "120s", "--json", json_arg],
    );
    let lines = stderr_lines(&mut child);
    first_run_line(&lines, &mut child);
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(killed.success());
    let (code, _) = wait_bounded(&mut child, Duration::from_secs(30));
    assert_eq!(code, 143);
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .expect("stdout piped")
        .read_to_string(&mut stdout)
        .expect("stdout reads");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("the JSON report"))
            .expect("the JSON report parses");
    let peer_at = |url: &str| {
        report["peers"]
            .as_array()
            .and_then(|peers| peers.iter().find(|p| p["card_url"] == url))
            .unwrap_or_else(|| panic!("no peer {url}: {report:#}"))
            .clone()
    };
    let cut_short = peer_at(&silent);
    assert_eq!(cut_short["interrupted"], true, "{cut_short:#}");
    assert_eq!(
        cut_short["card_error"], "interrupted while fetching the card",
        "{cut_short:#}"
    );
    // The paired honest case: a peer that is down is still one without a card.
    let down = peer_at(&format!("{closed}.well-known/agent-card.json"));
    assert!(down.get("interrupted").is_none(), "{down:#}");
    assert!(down["card_error"].is_string(), "{down:#}");
    assert_eq!(report["summary"]["peers_without_card"], 1, "{report:#}");
    assert_eq!(report["summary"]["peers_interrupted"], 1, "{report:#}");
    assert!(
        stdout.contains(
            "1 of 3 peer(s) unreachable or without a valid card; \
             1 of 3 peer(s) not checked before the interruption"
        ),
        "{stdout}"
    );
    // The CI log's peer line says the same (the down peer's PEER-ERROR line
    // came before the first run's); the stderr reader ends with the child.
    let log: Vec<String> = lines.iter().collect();
    assert!(
        log.iter()
            .any(|l| l.starts_with("INTERRUPTED ") && l.contains(&silent)),
        "{log:#?}"
    );
    assert!(
        !log.iter()
            .any(|l| l.starts_with("INTERRUPTED ") && l.contains(&closed)),
        "{log:#?}"
    );
}

#[test]
fn an_unwritable_report_path_is_a_usage_error_before_any_request() {
    // A listener that would see the card fetch if one were made.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let url = format!("http://{}", listener.local_addr().unwrap());
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("no-such-dir").join("report.xml");
    let out = run(&["check", &url, "--junit", bad.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("--junit") && out.stderr.contains(bad.to_str().unwrap()),
        "{}",
        out.explain()
    );
    // Two reports to one file (under two spellings of it): only the last
    // would be left, so neither is written.
    let same = dir.path().join("same.out");
    let again = dir.path().join(".").join("same.out");
    let out = run(&[
        "check",
        &url,
        "--junit",
        same.to_str().unwrap(),
        "--html",
        again.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("--junit and --html both name"),
        "{}",
        out.explain()
    );
    assert!(
        listener.accept().is_err(),
        "the peer was contacted before the path was checked"
    );
}

#[test]
fn a_report_to_stdout_moves_the_terminal_report_to_stderr() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let url = peer.card_url();
    let mut args = vec!["check", url.as_str()];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(&["--scenario", "streaming-probe", "--junit", "-"]);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(out.stdout.starts_with("<?xml"), "{}", out.explain());
    assert!(out.stderr.contains("honoured"), "{}", out.explain());
    let out = run(&[
        "check",
        "http://127.0.0.1:9",
        "--junit",
        "-",
        "--markdown",
        "-",
    ]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("only one of"), "{}", out.explain());
}

#[test]
fn a_peer_without_a_scheme_is_a_usage_error() {
    for cmd in ["check", "card"] {
        let out = run(&[cmd, "localhost:8080"]);
        assert_eq!(out.code, 2, "{cmd}: {}", out.explain());
        assert!(out.stderr.contains("http://"), "{cmd}: {}", out.explain());
    }
}

#[test]
fn https_to_a_plain_http_port_suggests_http() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let https = peer.base_url().replacen("http://", "https://", 1);
    let out = run(&["card", &https]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(
        out.stderr
            .contains("the server answered plain HTTP on a TLS connection; did you mean http://"),
        "{}",
        out.explain()
    );
    assert!(
        !out.stderr.contains("InvalidContentType"),
        "{}",
        out.explain()
    );
}

#[test]
fn a_token_given_to_bearer_env_is_never_echoed() {
    for token in [
        "s3cr3t-9f8e7d6c5b4a",
        "s3cr3tAbCdEf0123456789xyz",
        "lowercase_unset_token",
    ] {
        let out = run(&["check", "http://127.0.0.1:9", "--bearer-env", token]);
        assert_eq!(out.code, 2, "{token}: {}", out.explain());
        assert!(
            out.stderr
                .contains("--bearer-env takes the NAME of an environment variable, not a token"),
            "{token}: {}",
            out.explain()
        );
        assert!(
            !out.stderr.contains(token) && !out.stdout.contains(token),
            "{token} echoed: {}",
            out.explain()
        );
    }
    // A conventional name that is unset is named, so the user can fix it.
    let out = run(&["check", "http://127.0.0.1:9", "--bearer-env", "PEER_TOKEN"]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("`PEER_TOKEN` is not set"),
        "{}",
        out.explain()
    );
}
