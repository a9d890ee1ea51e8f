//! `a2a-conform send`: one task delegated under the guards, against the
//! mock peer. Each divergence is caught (exit 1, the declaration named as
//! demoted) and paired with the honest peer, which demotes nothing.

use crate::common::{check, closed_port, run, start_peer};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const V: ProtocolVersion = ProtocolVersion::V1_0;

#[test]
fn an_honest_peer_delivers_and_nothing_is_demoted() {
    for (version, stream) in [
        (ProtocolVersion::V0_3, false),
        (ProtocolVersion::V0_3, true),
        (V, false),
        (V, true),
    ] {
        let peer = start_peer(version, Behaviour::Honest);
        let mut args = vec!["send", "--text", "hello"];
        if stream {
            args.extend(["--stream", "--probe-window", "1s"]);
        }
        let card = peer.card_url();
        args.push(&card);
        let out = run(&args);
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("outcome: completed"), "{}", out.stdout);
        assert!(!out.stdout.contains("demoted:"), "{}", out.stdout);
        let opened = if stream { "(on a stream)" } else { "(polling)" };
        assert!(out.stdout.contains(opened), "{}", out.stdout);
    }
}

#[test]
fn a_silent_stream_is_demoted_and_the_task_is_polled() {
    for version in [ProtocolVersion::V0_3, V] {
        silent_stream(version);
    }
}

fn silent_stream(version: ProtocolVersion) {
    let peer = start_peer(version, Behaviour::StreamSilent);
    let card = peer.card_url();
    let out = run(&[
        "send",
        &card,
        "--text",
        "hello",
        "--stream",
        "--probe-window",
        "1s",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("demoted: capabilities.streaming"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(" poll "), "{}", out.stdout);
    assert!(out.stdout.contains("outcome: completed"), "{}", out.stdout);
}

#[test]
fn a_leaked_cancel_names_the_orphaned_task() {
    let honest = start_peer(V, Behaviour::Honest);
    let card = honest.card_url();
    let out = run(&["send", &card, "--text", "hello", "--cancel-after", "200ms"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("outcome: canceled"), "{}", out.stdout);

    let peer = start_peer(V, Behaviour::CancelLeak);
    let card = peer.card_url();
    let out = run(&["send", &card, "--text", "hello", "--cancel-after", "200ms"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("demoted: lifecycle.cancel"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let task = out
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("task ")?.split(' ').next())
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(line.contains(&format!("(task {task})")), "{line}");
}

#[test]
fn a_refused_mode_is_demoted_and_the_next_send_uses_the_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("peers.json");
    let cache = cache.to_str().unwrap();
    let peer = start_peer(V, Behaviour::InputOverdeclared);
    let card = peer.card_url();
    let args = [
        "send",
        &card,
        "--text",
        "need-input please",
        "--resume-data",
        r#"{"answer": 42}"#,
        "--cache",
        cache,
    ];
    let first = run(&args);
    assert_eq!(first.code, 1, "{}{}", first.stdout, first.stderr);
    assert!(
        first
            .stdout
            .contains("demoted: defaultInputModes[application/json]"),
        "{}",
        first.stdout
    );
    let second = run(&args);
    assert!(
        second.stdout.contains("resumed with the fallback part(s)"),
        "{}",
        second.stdout
    );
    assert!(!second.stdout.contains("demoted:"), "{}", second.stdout);
    assert_eq!(second.code, 0, "{}{}", second.stdout, second.stderr);
}

#[test]
fn a_diverged_report_steers_the_first_send_without_a_probe() {
    let peer = start_peer(V, Behaviour::StreamSilent);
    let card = peer.card_url();
    let checked = check(&card, &[]);
    assert_eq!(checked.code, 1, "{}", checked.stderr);
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let json = dir.path().join("send.json");
    std::fs::write(&report, checked.report.unwrap().to_string()).unwrap();
    let out = run(&[
        "send",
        &card,
        "--text",
        "hello",
        "--stream",
        "--from-report",
        report.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("(polling)"), "{}", out.stdout);
    let written = std::fs::read_to_string(&json).unwrap();
    assert!(written.contains("SendMessage"), "{written}");
    assert!(!written.contains("SendStreamingMessage"), "{written}");
}

#[test]
fn bad_input_is_a_usage_error_and_no_peer_is_exit_3() {
    let url = format!("http://127.0.0.1:{}", closed_port());
    let none = run(&["send", &url]);
    assert_eq!(none.code, 2, "{}", none.stderr);
    let data = run(&["send", &url, "--data", "{"]);
    assert_eq!(data.code, 2, "{}", data.stderr);
    assert!(
        data.stderr.contains("--data is not JSON"),
        "{}",
        data.stderr
    );
    let file = run(&["send", &url, "--file", "/nonexistent/a2a-conform-send"]);
    assert_eq!(file.code, 2, "{}", file.stderr);
    assert!(
        file.stderr.contains("cannot read --file"),
        "{}",
        file.stderr
    );
    let after = run(&["send", &url, "--text", "x", "--cancel-after", "soon"]);
    assert_eq!(after.code, 2, "{}", after.stderr);
    let closed = run(&["send", &url, "--text", "hello"]);
    assert_eq!(closed.code, 3, "{}{}", closed.stdout, closed.stderr);
}

#[test]
fn an_unstable_completion_is_no_outcome_to_trust() {
    let peer = start_peer(V, Behaviour::UnstableCompletion);
    let card = peer.card_url();
    let out = run(&["send", &card, "--text", "hello"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("demoted: lifecycle.completion"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("outcome: no outcome to trust"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_json_exchanges_never_hold_the_credential() {
    let token = "send-test-bearer-7f3a9c";
    let peer = crate::common::start_peer_with_token(V, Behaviour::Honest, Some(token));
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("send.json");
    let out = crate::common::run_env(
        &[
            "send",
            &card,
            "--text",
            "hello",
            "--bearer-env",
            "SEND_TOKEN",
            "--json",
            json.to_str().unwrap(),
        ],
        &[("SEND_TOKEN", token)],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let written = std::fs::read_to_string(&json).unwrap();
    assert!(written.contains("\"outcome\": \"completed\""), "{written}");
    assert!(written.contains("GetTask"), "{written}");
    for text in [&written, &out.stdout, &out.stderr] {
        assert!(!text.contains(token), "the token leaked:\n{text}");
    }
}

#[test]
fn a_data_part_and_a_file_part_are_delivered() {
    let peer = start_peer(V, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let note = dir.path().join("note.txt");
    std::fs::write(&note, "hello from a file").unwrap();
    for message in [
        ["--data", r#"{"a": 1}"#],
        ["--file", note.to_str().unwrap()],
    ] {
        let out = run(&["send", &card, message[0], message[1]]);
        assert_eq!(out.code, 0, "{message:?}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("outcome: completed"), "{}", out.stdout);
    }
}

#[test]
fn a_binary_file_is_sent_as_bytes_not_refused_as_text() {
    let peer = start_peer(V, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let blob = dir.path().join("blob.bin");
    let bytes: Vec<u8> = (0..=255u8).rev().collect();
    std::fs::write(&blob, &bytes).unwrap();
    let out = run(&["send", &card, "--file", blob.to_str().unwrap()]);
    assert!(
        !out.stderr.contains("cannot read --file"),
        "bytes that are not UTF-8 are still a file: {}",
        out.explain()
    );
    // The mock declares text and JSON input only, and its refusal names
    // the media type the part was sent with.
    assert!(
        out.stderr
            .contains("media type `application/octet-stream` is not accepted"),
        "{}",
        out.explain()
    );
}

#[test]
fn a_refused_undeclared_media_type_is_a_usage_error_and_the_json_keeps_the_exchange() {
    // The mock declares text/plain and application/json input only and
    // refuses anything else with -32005: its valid answer to a part its
    // card never offered, so nothing is demoted and the sender is told.
    let peer = start_peer(V, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let photo = dir.path().join("photo.png");
    std::fs::write(&photo, [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a]).unwrap();
    let json = dir.path().join("send.json");
    let out = run(&[
        "send",
        &card,
        "--file",
        photo.to_str().unwrap(),
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("which its card never declares as an input mode"),
        "{}",
        out.explain()
    );
    assert!(out.stderr.contains("image/png"), "{}", out.explain());
    assert!(!out.stdout.contains("demoted:"), "{}", out.explain());
    // The run ended in an error, and --json still holds the exchange.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(written["violations"], serde_json::json!([]), "{written}");
    let exchanges = written["exchanges"].to_string();
    assert!(exchanges.contains("SendMessage"), "{written}");
    assert!(exchanges.contains("-32005"), "{written}");

    // The honest pair: a declared mode (a JSON file) goes through.
    let data = dir.path().join("data.json");
    std::fs::write(&data, r#"{"a": 1}"#).unwrap();
    let ok = run(&["send", &card, "--file", data.to_str().unwrap()]);
    assert_eq!(ok.code, 0, "{}", ok.explain());
}

#[test]
fn the_json_is_written_when_the_run_ends_in_an_error() {
    // The task fails on the data follow-up: no outcome to trust (exit 1),
    // and --json holds every exchange made on the way, not only the
    // follow-up's: the first send, the reads, the refused follow-up.
    let peer = start_peer(V, Behaviour::InputOverdeclaredFails);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("send.json");
    let json_arg = json.to_str().unwrap();
    let out = run(&[
        "send",
        &card,
        "--text",
        "need-input please",
        "--resume-data",
        r#"{"answer": 42}"#,
        "--json",
        json_arg,
    ]);
    assert_eq!(out.code, 1, "{}", out.explain());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let requests: Vec<String> = written["exchanges"]
        .as_array()
        .expect("exchanges")
        .iter()
        .filter(|r| r["kind"] == "request")
        .map(|r| r["summary"].as_str().unwrap_or_default().to_string())
        .collect();
    let sends = requests
        .iter()
        .filter(|s| s.contains("SendMessage"))
        .count();
    assert!(sends >= 2, "the first send and the follow-up: {requests:?}");
    assert!(
        requests.iter().any(|s| s.contains("GetTask")),
        "{requests:?}"
    );
    assert!(written["exchanges"]
        .to_string()
        .contains("need-input please"));

    // No peer at all: exit 3, and --json says why (no exchange was made).
    let url = format!("http://127.0.0.1:{}", closed_port());
    let closed = run(&["send", &url, "--text", "hello", "--json", json_arg]);
    assert_eq!(closed.code, 3, "{}", closed.explain());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(written["exchanges"], serde_json::json!([]), "{written}");
    assert!(
        written["outcome"].as_str().is_some_and(|o| !o.is_empty()),
        "{written}"
    );
}

/// Every object in `value` whose `trust` is `demoted`.
fn demotions(value: &serde_json::Value, found: &mut usize) {
    match value {
        serde_json::Value::Object(map) => {
            if map.get("trust").and_then(|t| t.as_str()) == Some("demoted") {
                *found += 1;
            }
            map.values().for_each(|v| demotions(v, found));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| demotions(v, found)),
        _ => {}
    }
}

/// Four `send` processes at once, each demoting a declaration of its own
/// peer in one shared cache file: the file ends with all four (the sidecar
/// lock serializes the writers; none overwrites another's demotion).
#[test]
fn sends_in_four_processes_at_once_lose_no_demotion_in_one_cache() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let cache = dir.path().join("cache.json");
    let peers: Vec<_> = [
        Behaviour::StreamSilent,
        Behaviour::CancelLeak,
        Behaviour::StreamSilent,
        Behaviour::CancelLeak,
    ]
    .into_iter()
    .map(|b| (b, start_peer(V, b)))
    .collect();
    let cache_arg = cache.to_str().expect("a UTF-8 path").to_string();
    let sends: Vec<_> = peers
        .iter()
        .map(|(behaviour, peer)| {
            let (card, cache, behaviour) = (peer.card_url(), cache_arg.clone(), *behaviour);
            std::thread::spawn(move || {
                let mut args = vec!["send", &card, "--text", "hello", "--cache", &cache];
                if behaviour == Behaviour::StreamSilent {
                    args.extend(["--stream", "--probe-window", "1s"]);
                } else {
                    args.extend(["--cancel-after", "200ms"]);
                }
                run(&args)
            })
        })
        .collect();
    for send in sends {
        let out = send.join().expect("a send finished");
        assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    }
    let text = std::fs::read_to_string(&cache).expect("the cache file");
    let value: serde_json::Value = serde_json::from_str(&text).expect("whole JSON");
    let mut found = 0;
    demotions(&value, &mut found);
    assert_eq!(found, 4, "{text}");
    for (_, peer) in &peers {
        assert!(text.contains(&peer.card_url()), "{text}");
    }
}
