//! One settings resolver, observed through the built binary: the more
//! specific layer wins (flag > env var > the peer's own settings > config
//! top level > default) — timed against a peer that takes the connection
//! and never answers, so the timeout in force shows in the wall time and
//! the message; a fleet entry carries card-scheme credentials; `config show
//! PEER` names the winning layer; every file a user names (fleet, config,
//! TLS files) is read within its cap, `/dev/zero` and a sparse gibibyte
//! refused at once in bounded memory; the whole-report redaction fails
//! closed.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");

/// A peer on loopback that accepts every connection and never answers,
/// holding each socket open for the test's lifetime.
struct Silent {
    port: u16,
    _runtime: tokio::runtime::Runtime,
}

fn silent_peer() -> Silent {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind 127.0.0.1:0");
    let port = listener.local_addr().expect("address").port();
    runtime.spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    Silent {
        port,
        _runtime: runtime,
    }
}

/// One run of the binary in `cwd`, with only `env` among A2A_CONFORM_*
/// variables, its data segment capped at 256 MiB (so reading a huge file
/// would fail to allocate rather than succeed), bounded in time.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

impl Ran {
    fn explain(&self) -> String {
        format!(
            "exit {} after {:?}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        )
    }
}

const MEMORY_BOUND: u64 = 256 * 1024 * 1024;

fn run_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Ran {
    use std::os::unix::process::CommandExt;
    let mut command = Command::new(BIN);
    command
        .current_dir(cwd)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars().filter(|(k, _)| k.starts_with("A2A_CONFORM_")) {
        command.env_remove(k);
    }
    command.envs(env.iter().copied());
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
    let started = Instant::now();
    let child = command.spawn().expect("binary starts");
    let output = child.wait_with_output().expect("output");
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// A config file whose top level says 1 s and whose `staging` section,
/// pointing at `port`, says 6 s.
fn layered_config(dir: &Path, port: u16) {
    write(
        dir,
        "a2a-conform.yaml",
        &format!(
            "timeout: 1s\npeers:\n  staging:\n    url: http://127.0.0.1:{port}\n    timeout: 6s\n"
        ),
    );
}

#[test]
fn a_peers_section_timeout_beats_the_config_top_level() {
    let peer = silent_peer();
    let dir = tempfile::tempdir().unwrap();
    layered_config(dir.path(), peer.port);
    let out = run_in(dir.path(), &["check", "staging", "--progress", "none"], &[]);
    assert_eq!(out.code, 3, "{}", out.explain());
    assert!(
        out.elapsed >= Duration::from_millis(5_500),
        "the top level's 1 s applied: {}",
        out.explain()
    );
    assert!(out.elapsed < Duration::from_secs(30), "{}", out.explain());
    assert!(
        out.stderr.contains("no answer within 6.00 s (--timeout)"),
        "{}",
        out.explain()
    );
}

#[test]
fn a_flag_or_its_env_var_beats_the_peers_section() {
    let peer = silent_peer();
    let dir = tempfile::tempdir().unwrap();
    layered_config(dir.path(), peer.port);
    for (args, env) in [
        (vec!["--timeout", "1s"], vec![]),
        (vec![], vec![("A2A_CONFORM_TIMEOUT", "1s")]),
    ] {
        let mut all = vec!["check", "staging", "--progress", "none"];
        all.extend(args);
        let out = run_in(dir.path(), &all, &env);
        assert_eq!(out.code, 3, "{}", out.explain());
        assert!(
            out.elapsed < Duration::from_secs(5),
            "the section's 6 s applied: {}",
            out.explain()
        );
        assert!(
            out.stderr.contains("no answer within 1.00 s (--timeout)"),
            "{}",
            out.explain()
        );
    }
}

#[test]
fn config_show_peer_names_the_winning_layer_and_what_it_won_over() {
    let dir = tempfile::tempdir().unwrap();
    layered_config(dir.path(), 9);
    let config = dir.path().join("a2a-conform.yaml").display().to_string();
    let line = |shown: &str, flag: &str| -> Vec<String> {
        let lines: Vec<&str> = shown.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.split_whitespace().next() == Some(flag))
            .unwrap_or_else(|| panic!("no {flag} in {shown}"));
        lines[at..]
            .iter()
            .take_while(|l| l.starts_with(flag) || l.starts_with("  overridden"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let out = run_in(dir.path(), &["config", "show", "staging"], &[]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        line(&out.stdout, "--timeout"),
        [
            format!("--timeout 6s config {config}, peer staging (wins)"),
            format!("overridden 1s config {config}:1:1"),
        ],
        "{}",
        out.explain()
    );
    assert!(out
        .stdout
        .contains("precedence, most specific first: flag > env var > the peer's own settings"));
    let out = run_in(
        dir.path(),
        &["config", "show", "staging"],
        &[("A2A_CONFORM_TIMEOUT", "2s")],
    );
    assert_eq!(
        line(&out.stdout, "--timeout"),
        [
            "--timeout 2s env A2A_CONFORM_TIMEOUT (wins)".to_string(),
            format!("overridden 6s config {config}, peer staging"),
            format!("overridden 1s config {config}:1:1"),
        ],
        "{}",
        out.explain()
    );
    // Without a peer, the top level is what applies.
    let out = run_in(dir.path(), &["config", "show"], &[]);
    assert_eq!(
        line(&out.stdout, "--timeout"),
        [format!("--timeout 1s config {config}:1:1")],
        "{}",
        out.explain()
    );
}

#[test]
fn a_fleet_entry_carries_the_cards_credential_variables() {
    const SECRET: &str = "fleet-entry-k3y-and-s3cret-5521";
    let api_key = start_peer_with_token(
        ProtocolVersion::V1_0,
        Behaviour::SecuredApiKey,
        Some(SECRET),
    );
    let oauth = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredOauth, Some(SECRET));
    let dir = tempfile::tempdir().unwrap();
    let fleet = write(
        dir.path(),
        "fleet.yaml",
        &format!(
            "peers:\n  - url: {}\n    api_key_env: FLEET_KEY\n  - url: {}\n    oauth_client_id_env: FLEET_CLIENT_ID\n    oauth_client_secret_env: FLEET_CLIENT_SECRET\n",
            api_key.card_url(),
            oauth.card_url()
        ),
    );
    let out = run_env(
        &[
            "check",
            "--peers",
            &fleet,
            "--scenario",
            "completion-stability",
            "--progress",
            "none",
        ],
        &[
            ("FLEET_KEY", SECRET),
            ("FLEET_CLIENT_ID", a2a_conform_mock::auth::CLIENT_ID),
            ("FLEET_CLIENT_SECRET", SECRET),
        ],
    );
    let report = out.report();
    for peer in 0..2 {
        let run = report["peers"][peer]["scenarios"]
            .as_array()
            .and_then(|runs| runs.iter().find(|r| r["id"] == "completion-stability"))
            .unwrap_or_else(|| panic!("peer {peer} ran nothing: {}", out.explain()));
        assert_eq!(run["verdict"], "pass", "peer {peer}: {}", out.explain());
    }
    let everything = out.explain() + &report.to_string();
    assert!(
        !everything.contains(SECRET),
        "the secret shows: {everything}"
    );
    // Without the variable the entry names, the check stops before any request.
    let out = run(&["check", "--peers", &fleet]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("`FLEET_KEY` is not set"),
        "{}",
        out.explain()
    );
}

#[test]
fn a_config_section_applies_to_the_fleet_peer_it_names_below_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", closed_port());
    write(
        dir.path(),
        "a2a-conform.yaml",
        &format!("peers:\n  {url}:\n    vars: {{prompt_nonexistent: x}}\n"),
    );
    write(dir.path(), "fleet.yaml", &format!("peers:\n  - {url}\n"));
    // The section's typo is named with its origin, before any request.
    let out = run_in(dir.path(), &["check", "--peers", "fleet.yaml"], &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains(&format!(
            "peer {url}: unknown variable `prompt_nonexistent`"
        )),
        "{}",
        out.explain()
    );
    // The entry's own value of the variable is what the check would use.
    write(
        dir.path(),
        "fleet.yaml",
        &format!("peers:\n  - url: {url}\n    vars: {{prompt_nonexistent: y}}\n"),
    );
    let out = run_in(dir.path(), &["check", "--peers", "fleet.yaml"], &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains(&format!(
            "peers file fleet.yaml, peer {url}: unknown variable"
        )),
        "{}",
        out.explain()
    );
}

/// A sparse file of a gibibyte: it takes no disk, but reading it would.
fn sparse(dir: &Path, name: &str) -> String {
    let path = dir.join(name);
    std::fs::File::create(&path)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    path.display().to_string()
}

#[test]
fn every_file_a_user_names_is_read_within_its_cap() {
    let dir = tempfile::tempdir().unwrap();
    let big = sparse(dir.path(), "big.yaml");
    let pem = write(dir.path(), "small.pem", "not yet parsed\n");
    let peer = format!("http://127.0.0.1:{}/", closed_port());
    for huge in ["/dev/zero", big.as_str()] {
        let profile = write(dir.path(), "p.yaml", &format!("cacert: {huge}\n"));
        let cases: [(Vec<&str>, String); 6] = [
            (
                vec!["check", "--peers", huge],
                format!("the peers file {huge} is larger than 4 MiB"),
            ),
            (
                vec!["check", &peer, "--config", huge],
                format!("config file {huge} is larger than 4 MiB"),
            ),
            (
                vec!["check", &peer, "--cacert", huge],
                format!("--cacert {huge}: is larger than 4 MiB"),
            ),
            (
                vec!["check", &peer, "--cert", huge, "--key", &pem],
                format!("--cert {huge}: is larger than 4 MiB"),
            ),
            (
                vec!["card", &peer, "--cert", &pem, "--key", huge],
                format!("--key {huge}: is larger than 4 MiB"),
            ),
            (
                vec!["check", &peer, "--profile", &profile],
                format!("--cacert {huge}: is larger than 4 MiB"),
            ),
        ];
        for (args, says) in cases {
            let mut args = args;
            if !args.contains(&"--config") {
                args.push("--no-config");
            }
            let out = run_in(dir.path(), &args, &[]);
            assert_eq!(out.code, 2, "{args:?}: {}", out.explain());
            assert!(out.stderr.contains(&says), "{args:?}: {}", out.explain());
            assert!(
                out.elapsed < Duration::from_secs(20),
                "{args:?}: {}",
                out.explain()
            );
        }
    }
}

#[test]
fn the_report_is_never_written_unredacted() {
    // A header whose value is a word the report is made of (a verdict):
    // masked everywhere, the report no longer reads; nothing is written.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "streaming-probe",
            "--header",
            "X-Mode: pass",
            "--progress",
            "none",
        ],
    );
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("cannot redact the report") && out.stderr.contains("--header-public"),
        "{}",
        out.explain()
    );
    assert!(
        out.report.is_none(),
        "a report was written: {}",
        out.explain()
    );
    assert!(!out.stdout.contains("streaming-probe"), "{}", out.explain());
    // Named public, the header is no secret and the run reports as usual.
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "streaming-probe",
            "--header",
            "X-Mode: pass",
            "--header-public",
            "X-Mode",
        ],
    );
    assert_eq!(out.scenario("streaming-probe"), "pass", "{}", out.explain());
}

#[test]
fn a_top_level_token_variable_no_peer_reads_is_not_required() {
    const SECRET: &str = "own-entry-t0ken-77-a1b2";
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(SECRET));
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a2a-conform.yaml",
        "bearer_env: TOP_LEVEL_TOKEN_NOBODY_SET\n",
    );
    let fleet = write(
        dir.path(),
        "fleet.yaml",
        &format!(
            "peers:\n  - url: {}\n    bearer_env: ENTRY_TOKEN\n",
            peer.card_url()
        ),
    );
    let args = [
        "check",
        "--peers",
        fleet.as_str(),
        "--scenario",
        "completion-stability",
        "--progress",
        "none",
        "--json",
        "-",
    ];
    // Every entry has its own variable: the top level's, unset, is unread.
    let out = run_in(dir.path(), &args, &[("ENTRY_TOKEN", SECRET)]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stdout.contains("\"completion-stability\""),
        "{}",
        out.explain()
    );
    assert!(!out.stdout.contains(SECRET), "{}", out.explain());
    // A peer that falls back to the top level still needs it, by name.
    let args = [
        "check",
        peer.card_url().as_str(),
        "--scenario",
        "completion-stability",
        "--progress",
        "none",
    ]
    .map(str::to_string);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_in(dir.path(), &args, &[("ENTRY_TOKEN", SECRET)]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("TOP_LEVEL_TOKEN_NOBODY_SET"),
        "{}",
        out.explain()
    );
}

#[test]
fn half_a_client_certificate_at_the_config_top_level_is_refused_not_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{}", closed_port());
    for (text, given, missing) in [
        ("cert: client.pem\n", "--cert", "--key"),
        ("key: client.key\n", "--key", "--cert"),
        (
            "oauth_client_id_env: SOME_ID\n",
            "--oauth-client-id-env",
            "--oauth-client-secret-env",
        ),
    ] {
        write(dir.path(), "a2a-conform.yaml", text);
        let out = run_in(dir.path(), &["check", &url, "--progress", "none"], &[]);
        assert_eq!(out.code, 2, "{text}: {}", out.explain());
        assert!(
            out.stderr.contains(&format!("{given} needs {missing}")),
            "{text}: {}",
            out.explain()
        );
    }
    // Alone on the command line, the same; the two halves from two layers
    // make one pair (its files are read next, and this one is missing).
    let out = run_in(dir.path(), &["check", &url, "--cert", "c.pem"], &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("--cert needs --key"),
        "{}",
        out.explain()
    );
    write(dir.path(), "a2a-conform.yaml", "key: client.key\n");
    let out = run_in(dir.path(), &["check", &url, "--cert", "c.pem"], &[]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(!out.stderr.contains("needs"), "{}", out.explain());
    assert!(out.stderr.contains("c.pem"), "{}", out.explain());
}

#[test]
fn config_show_peer_reads_the_profile_its_env_var_names_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a2a-conform.yaml",
        "timeout: 1s\npeers:\n  staging:\n    url: http://127.0.0.1:9\n",
    );
    let profile = write(dir.path(), "p.yaml", "timeout: 7s\n");
    let out = run_in(
        dir.path(),
        &["config", "show", "staging"],
        &[("A2A_CONFORM_PROFILE", &profile)],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    let timeout = out
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("--timeout"))
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(
        timeout,
        format!("--timeout 7s profile {profile} (wins)"),
        "{}",
        out.explain()
    );
}
