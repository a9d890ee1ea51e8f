//! A cassette is untrusted input: `rejudge` of a cassette whose card names
//! a token URL and a `jku` key set on a live loopback listener connects to
//! neither and reads no credential (everything is served by the replay);
//! the cassette's strings reach the terminal inert in `replay` and
//! `rejudge`; a sealed cassette of a million tiny events is refused by the
//! entry cap, naming it, within a bounded peak memory. Each is checked
//! against a cassette recorded from the mock and then edited (and sealed
//! again, as anyone can).

use crate::common::*;
use a2a_conform_cassette::Cassette;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::card::signature::{generate_es256, sign_es256};
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};
use std::io::Read;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

/// Records a check of the honest mock into `dir/run.jsonl`.
fn recorded(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let path = dir.path().join("run.jsonl");
    let out = check(
        &peer.card_url(),
        &["--binding", "jsonrpc", "--record", path.to_str().unwrap()],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    path
}

/// A loopback listener that records every connection made to it (the first
/// bytes of each) and answers nothing.
fn live_listener() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let got = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
            let mut bytes = [0u8; 512];
            let n = stream.read(&mut bytes).unwrap_or(0);
            got.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&bytes[..n]).into_owned());
        }
    });
    (base, seen)
}

#[test]
fn rejudge_connects_to_no_address_the_cassette_names_and_sends_no_credential() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    let (live, seen) = live_listener();
    let mut cassette = Cassette::load(&path).expect("a sealed cassette");
    let mut card: Value = serde_json::from_str(cassette.peers[0].card.as_deref().unwrap()).unwrap();
    card["securitySchemes"] = json!({"oauth": {"oauth2SecurityScheme": {"flows": {
        "clientCredentials": {"tokenUrl": format!("{live}/token"), "scopes": {"a2a:invoke": "call"}}
    }}}});
    card["securityRequirements"] = json!([{"schemes": {"oauth": {"list": ["a2a:invoke"]}}}]);
    let (pkcs8, _jwk) = generate_es256("k1").expect("a key");
    sign_es256(&mut card, &pkcs8, "k1", Some(&format!("{live}/jwks"))).expect("signed");
    cassette.peers[0].card = Some(card.to_string());
    cassette.write(&path).expect("sealed again");

    let secret = "rejudge-client-Secret-91x";
    let token = "rejudge-bearer-Token-44q";
    let out = run_env(
        &[
            "rejudge",
            path.to_str().unwrap(),
            "--as-fast-as-possible",
            "--oauth-client-id-env",
            "REJUDGE_ID",
            "--oauth-client-secret-env",
            "REJUDGE_SECRET",
            "--bearer-env",
            "REJUDGE_TOKEN",
        ],
        &[
            ("REJUDGE_ID", "client-1"),
            ("REJUDGE_SECRET", secret),
            ("REJUDGE_TOKEN", token),
        ],
    );
    assert_ne!(out.code, 2, "{}", out.explain());
    let seen = seen.lock().unwrap().clone();
    assert!(
        seen.is_empty(),
        "rejudge connected to an address the cassette names: {seen:?}\n{}",
        out.explain()
    );
    assert!(
        out.stderr.contains("rejudge: uses no credential"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("--bearer-env")
            && out
                .stderr
                .contains("--oauth-client-id-env/--oauth-client-secret-env"),
        "{}",
        out.stderr
    );
    // The signature was judged without its key set: unverified, naming why.
    assert_eq!(
        out.declaration("signatures[k1]"),
        "unverified",
        "{}",
        out.explain()
    );
    let report = out.report().to_string();
    assert!(report.contains("/jwks"), "the jku was named: {report}");
    for text in [&out.stdout, &out.stderr, &report] {
        assert!(!text.contains(secret) && !text.contains(token), "{text}");
    }
}

/// The cassette's header with control sequences in its strings.
fn hostile_header(path: &std::path::Path) {
    let mut cassette = Cassette::load(path).expect("a sealed cassette");
    cassette.header.tool = "a2a-conform\x1b]0;pwned\x07\x1b[2J".to_string();
    cassette.header.tool_version = "1\r\x1b[31m".to_string();
    cassette.header.started_at = "now\u{202e}".to_string();
    cassette.write(path).expect("sealed again");
}

#[test]
fn cassette_strings_reach_the_terminal_inert_in_replay_and_rejudge() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    hostile_header(&path);
    let out = run(&["rejudge", path.to_str().unwrap(), "--as-fast-as-possible"]);
    assert_ne!(out.code, 2, "{}", out.explain());
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("rejudge: "))
        .unwrap_or_else(|| panic!("{}", out.stderr))
        .to_string();
    assert_inert(&line);
    assert!(line.contains(r"\u{1b}]0;pwned"), "{line}");
    // The seal is said to be what it is: this edited cassette was resealed.
    assert!(
        line.contains("sealed for integrity, not authenticity"),
        "{line}"
    );

    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .arg("replay")
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("replay starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stderr).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(std::time::Duration::from_secs(30));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("replay says what it serves within 30 s");
    assert!(line.starts_with("replay of "), "{line}");
    assert!(
        line.contains("sealed for integrity, not authenticity"),
        "{line}"
    );
    assert_inert(line.trim_end_matches('\n'));
}

fn assert_inert(line: &str) {
    for control in ['\x1b', '\x07', '\r', '\u{202e}'] {
        assert!(
            !line.contains(control),
            "{control:?} reached the terminal: {line:?}"
        );
    }
}

/// `lines` (each ending in a newline) with the trailer that seals them.
fn sealed(lines: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(lines.as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    let count = lines.matches('\n').count();
    format!(
        "{lines}{}\n",
        json!({"type": "trailer", "lines": count, "digest": format!("sha256:{hex}")})
    )
}

#[test]
fn a_cassette_of_a_million_tiny_events_is_refused_by_the_entry_cap_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    let text = Cassette::load(&path).expect("a sealed cassette").to_text();
    // The recorded lines, less their trailer, and one run of tiny events.
    let mut lines: String = text
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("{\"type\":\"trailer\""))
        .collect();
    let events = 1_000_000;
    lines.push_str(r#"{"type":"run","peer":0,"run":"flood","scenario":"flood","verdict":"pass","steps":[{"step":1,"request":{"at_ms":0,"kind":"request","summary":"x"},"events":["#);
    for i in 0..events {
        if i > 0 {
            lines.push(',');
        }
        lines.push_str(r#"{"at_ms":1,"kind":"event","summary":"x"}"#);
    }
    lines.push_str("]}]}\n");
    let flood = dir.path().join("flood.jsonl");
    std::fs::write(&flood, sealed(&lines)).unwrap();
    drop(lines);

    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command.arg("replay").arg(&flood);
    let out = crate::hostile::harness::run_bounded(command, std::time::Duration::from_secs(120));
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("entries, over the cassette entry cap of 250000"),
        "{}",
        out.stderr
    );
    // The text itself is ~45 MB; the million entries it names are never built.
    assert!(
        out.peak_rss_kib < 200 * 1024,
        "peak RSS {} KiB: {}",
        out.peak_rss_kib,
        out.stderr
    );

    // The same cassette within the cap still reads (the entry cap is no
    // refusal of a real recording).
    let replay = crate::replay::start_replay(&path, &[]);
    assert!(
        replay.card.starts_with("http://127.0.0.1:"),
        "{}",
        replay.card
    );
}

#[test]
fn rejudge_says_per_run_where_the_recording_disagrees_with_now() {
    let dir = tempfile::tempdir().unwrap();
    let path = recorded(&dir);
    let same = run(&["rejudge", path.to_str().unwrap(), "--as-fast-as-possible"]);
    assert_eq!(same.code, 0, "{}", same.explain());
    assert!(!same.stderr.contains("rejudge: run "), "{}", same.stderr);

    let mut cassette = Cassette::load(&path).expect("a sealed cassette");
    let edited = cassette
        .runs
        .iter_mut()
        .find(|r| r.verdict == "pass" && !r.run.starts_with("precondition:"))
        .expect("a passing run");
    edited.verdict = "fail".to_string();
    let id = edited.run.clone();
    cassette.write(&path).expect("sealed again");
    let out = run(&["rejudge", path.to_str().unwrap(), "--as-fast-as-possible"]);
    assert_eq!(out.scenario(&id), "pass", "{}", out.explain());
    assert!(
        out.stderr
            .contains(&format!("rejudge: run {id}: recorded fail, now pass")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("rejudge: 1 run(s) read otherwise than recorded"),
        "{}",
        out.stderr
    );
}
