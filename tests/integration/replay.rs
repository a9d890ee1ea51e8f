//! `check --record FILE` end to end: the cassette reads back, holds every
//! run (passing ones with their exchanges) with the verdicts the report
//! gives, leaves the reports as they are without it, and carries no
//! configured secret in any encoding; `replay` serves it back so a check
//! reproduces the recorded verdicts, webhook deliveries (to loopback only)
//! and the extended card included (a request not recorded is a replay
//! miss, never a divergence), over JSON-RPC, HTTP+JSON and gRPC, check
//! after check, and `rejudge` re-judges it, a changed scenario reading
//! unverified; a bad cassette (or gRPC frame) is refused naming why.

use crate::common::*;
use a2a_conform_cassette::Cassette;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use base64::Engine;

const TOKEN: &str = "rec-Secret-77/a+b";

/// Checks every recorded verdict against the report's, and that a passing
/// run keeps its exchanges in the cassette but not in the report.
fn assert_matches_report(cassette: &Cassette, out: &Outcome, what: &str) {
    let runs = out.report()["peers"][0]["scenarios"].as_array().unwrap();
    assert_eq!(cassette.runs.len(), runs.len(), "{what}");
    assert_eq!(cassette.peers.len(), 1, "{what}");
    let mut passing_with_steps = 0;
    for run in runs {
        let id = run["id"].as_str().unwrap();
        let recorded = cassette
            .run(0, id)
            .unwrap_or_else(|| panic!("{what}: {id}"));
        assert_eq!(
            recorded.verdict,
            run["verdict"].as_str().unwrap(),
            "{what} {id}"
        );
        if run["verdict"] == "pass" && !recorded.steps.is_empty() {
            passing_with_steps += 1;
            assert!(
                run.get("evidence").is_none(),
                "{what} {id}: report unchanged"
            );
        }
    }
    assert!(
        passing_with_steps > 0,
        "{what}: passing runs are recorded too"
    );
}

#[test]
fn a_recorded_check_reads_back_with_the_reports_verdicts() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        for behaviour in [Behaviour::CancelLeak, Behaviour::UnstableCompletion] {
            let what = format!("{behaviour} {version}");
            let peer = start_peer(version, behaviour);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("run.jsonl.gz");
            let out = check(&peer.card_url(), &["--record", path.to_str().unwrap()]);
            assert_eq!(out.code, 1, "{what}: {}", out.explain());
            let cassette = Cassette::load(&path).unwrap();
            assert_eq!(
                cassette.header.version,
                a2a_conform_cassette::FORMAT_VERSION
            );
            assert!(cassette.header.suite_digest.starts_with("sha256:"));
            assert_eq!(
                cassette.peers[0].protocol_version.as_deref(),
                Some(version.to_string().as_str()),
                "{what}"
            );
            assert_matches_report(&cassette, &out, &what);
        }
    }
}

#[test]
fn a_cassette_holds_no_configured_secret_in_any_encoding() {
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(TOKEN));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let out = check_env(
        &peer.card_url(),
        &[
            "--bearer-env",
            "PEER_TOKEN",
            "--record",
            path.to_str().unwrap(),
        ],
        &[("PEER_TOKEN", TOKEN)],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"type\":\"request\"") || text.contains("\"kind\":\"request\""));
    let encodings = [
        TOKEN.to_string(),
        base64::engine::general_purpose::STANDARD.encode(TOKEN),
        base64::engine::general_purpose::STANDARD.encode(format!("Bearer {TOKEN}")),
        TOKEN.replace('/', "%2F").replace('+', "%2B"),
        TOKEN.replace('/', "\\/"),
    ];
    for encoded in encodings {
        assert!(!text.contains(&encoded), "the cassette holds {encoded}");
    }
    Cassette::load(&path).unwrap();
}

#[test]
fn an_unwritable_record_path_is_refused_before_the_first_request() {
    let dir = tempfile::tempdir().unwrap();
    let out = check(
        "http://127.0.0.1:9/.well-known/agent-card.json",
        &["--record", dir.path().to_str().unwrap()],
    );
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("--record"), "{}", out.stderr);
}

/// The verdict table of a check: every declaration row and every run, with
/// its verdict.
fn table(out: &Outcome) -> Vec<(String, String)> {
    let peer = &out.report()["peers"][0];
    let mut rows = Vec::new();
    for (list, what) in [("declarations", "row"), ("scenarios", "run")] {
        for item in peer[list].as_array().cloned().unwrap_or_default() {
            rows.push((
                format!("{what} {}", item["id"].as_str().unwrap_or("")),
                item["verdict"].as_str().unwrap_or("").to_string(),
            ));
        }
    }
    rows
}

/// `a2a-conform replay FILE` running, its card URL read from stdout; killed on drop.
pub(crate) struct Replaying {
    child: std::process::Child,
    pub(crate) card: String,
}

impl Drop for Replaying {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start_replay(path: &std::path::Path, extra: &[&str]) -> Replaying {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .arg("replay")
        .arg(path)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("replay starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("replay prints its card URL within 30 s");
    Replaying {
        child,
        card: line.trim().to_string(),
    }
}

/// Records a check of `behaviour` over `binding`, stops the mock, and
/// returns the recorded check's outcome and the cassette's directory.
fn record(
    version: ProtocolVersion,
    behaviour: Behaviour,
    binding: &str,
) -> (Outcome, tempfile::TempDir, std::path::PathBuf) {
    record_with(version, behaviour, binding, &[])
}

/// [`record`] with more `check` arguments; the mock serves gRPC too when
/// `binding` is `grpc`.
fn record_with(
    version: ProtocolVersion,
    behaviour: Behaviour,
    binding: &str,
    extra: &[&str],
) -> (Outcome, tempfile::TempDir, std::path::PathBuf) {
    let peer = start_peer_config(a2a_conform_mock::MockConfig {
        grpc: binding == "grpc",
        ..peer_config(version, behaviour)
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let args = [
        &["--binding", binding, "--record", path.to_str().unwrap()],
        extra,
    ]
    .concat();
    let out = check(&peer.card_url(), &args);
    drop(peer);
    (out, dir, path)
}

/// Checking the replay of each recording gives the recorded table and exit code.
fn replays_reproduce(behaviour: Behaviour) {
    replays_reproduce_reading(behaviour, None);
}

/// [`replays_reproduce`], `run` reading `verdict` in the recording and in
/// its replay (what the recording exercises, so a replay that skipped it
/// could not pass by matching a recording that did too). Over JSON-RPC,
/// HTTP+JSON and gRPC (the mock serving gRPC too), v1.0 and v0.3; a gRPC
/// recording is re-judged as well.
fn replays_reproduce_reading(behaviour: Behaviour, expected: Option<(&str, &str)>) {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        for binding in ["jsonrpc", "rest", "grpc"] {
            let what = format!("{behaviour} {version} {binding}");
            // `stream-silent`'s binding pairs each hold two streams open
            // for the whole probe window: the gRPC case leaves them to the
            // other bindings' (the suite's time), its gRPC streams are the
            // probe's.
            let skip: &[&str] = match (behaviour, binding) {
                (Behaviour::StreamSilent, "grpc") => &["--skip", "bindings-agree"],
                _ => &[],
            };
            let args = [&["--binding", binding], skip].concat();
            let (recorded, _dir, path) = record_with(version, behaviour, binding, skip);
            assert!(
                recorded.code == 1 || recorded.code == 0 || recorded.code == 4,
                "{what}: {}",
                recorded.explain()
            );
            let replay = start_replay(&path, &[]);
            let replayed = check(&replay.card, &args);
            // Over gRPC v0.3 the recording itself stops short of the
            // deliveries (the non-blocking send is answered `completed`:
            // `blocking: false` is proto3's default, not on the wire), so
            // there the tables alone are compared.
            let reached = !(version == ProtocolVersion::V0_3 && binding == "grpc");
            if let Some((run, verdict)) = expected.filter(|_| reached) {
                assert_eq!(recorded.scenario(run), verdict, "{what}: recorded");
                assert_eq!(replayed.scenario(run), verdict, "{what}: replayed");
            }
            if expected.is_some() || binding == "grpc" {
                // `rejudge` serves the same cassette in-process.
                let file = path.to_str().unwrap();
                let rejudged = crate::common::run(&[&["rejudge", file][..], &args].concat());
                assert_eq!(table(&rejudged), table(&recorded), "{what}: rejudged");
                assert_eq!(
                    rejudged.code,
                    recorded.code,
                    "{what}: {}",
                    rejudged.explain()
                );
            }
            assert_eq!(
                table(&replayed),
                table(&recorded),
                "{what}: the replay's table\n{}",
                replayed.explain()
            );
            assert_eq!(
                replayed.code,
                recorded.code,
                "{what}: {}",
                replayed.explain()
            );
            assert!(
                !replayed.report().to_string().contains("replay miss"),
                "{what}"
            );
        }
    }
}

#[test]
fn a_replay_of_cancel_leak_gives_the_recorded_verdicts() {
    replays_reproduce(Behaviour::CancelLeak);
}

#[test]
fn a_replay_of_unstable_completion_gives_the_recorded_verdicts() {
    replays_reproduce(Behaviour::UnstableCompletion);
}

#[test]
fn a_replay_of_input_overdeclared_gives_the_recorded_verdicts() {
    replays_reproduce(Behaviour::InputOverdeclared);
}

#[test]
fn a_replay_of_stream_silent_gives_the_recorded_verdicts() {
    replays_reproduce(Behaviour::StreamSilent);
}

#[test]
fn a_replay_of_push_delivers_the_recorded_notifications() {
    replays_reproduce_reading(Behaviour::Push, Some(("push-delivers", "pass")));
}

#[test]
fn a_replay_of_push_silent_gives_the_recorded_verdicts() {
    replays_reproduce_reading(Behaviour::PushSilent, Some(("push-delivers", "fail")));
}

/// What a webhook collector got: path, `Authorization`, body.
type Got = std::sync::Arc<std::sync::Mutex<Vec<(String, Option<String>, String)>>>;

/// A webhook collector on 127.0.0.1:0 (on the caller's runtime): its port.
async fn collector(got: Got) -> u16 {
    let app = axum::Router::new().fallback(
        move |uri: axum::http::Uri, headers: axum::http::HeaderMap, body: String| {
            let got = got.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                got.lock()
                    .unwrap()
                    .push((uri.path().to_string(), auth, body));
                "ok"
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    port
}

/// The recorded push config request of `push-delivers`, to the webhook
/// `url` with `token`, sent to a fresh replay of `cassette`: the replay
/// (deliveries go on after the answer) and the answer.
async fn register(
    cassette: &Cassette,
    url: &str,
    token: &str,
) -> (a2a_conform_cassette::ReplayServer, serde_json::Value) {
    use a2a_conform_cassette::{Miss, Pace, ReplayOptions, ReplayServer};
    let run = cassette.run(0, "push-delivers").expect("recorded");
    let config = run
        .steps
        .iter()
        .find(|s| {
            s.request
                .body
                .as_deref()
                .unwrap_or("")
                .contains("PushNotificationConfig")
        })
        .expect("a recorded push config");
    let mut body: serde_json::Value =
        serde_json::from_str(config.request.body.as_deref().unwrap()).unwrap();
    body["params"]["url"] = url.into();
    body["params"]["token"] = token.into();
    body["params"]["authentication"]["credentials"] = token.into();
    let options = ReplayOptions {
        port: 0,
        peer: 0,
        pace: Pace::AsFastAsPossible,
        miss: Miss::Error,
    };
    let server = ReplayServer::start(cassette, options).await.unwrap();
    let endpoint = url::Url::parse(cassette.peers[0].endpoint.as_deref().unwrap()).unwrap();
    let answer = reqwest::Client::new()
        .post(format!("{}{}", server.base_url(), endpoint.path()))
        .header("x-a2a-conform-run", "push-delivers")
        .header("A2A-Version", "1.0")
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    (server, answer)
}

/// A cassette is untrusted, and so is a request: a push config naming a
/// webhook off a loopback address (a name included) is a replay miss
/// naming the rule, and nothing is POSTed; on 127.0.0.1 the recorded
/// notifications arrive, with the token the config carried this time.
#[test]
fn a_replay_delivers_webhooks_only_to_a_loopback_address() {
    let (recorded, _dir, path) = record(ProtocolVersion::V1_0, Behaviour::Push, "jsonrpc");
    assert_eq!(
        recorded.scenario("push-delivers"),
        "pass",
        "{}",
        recorded.explain()
    );
    let cassette = Cassette::load(&path).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let got = Got::default();
        let port = collector(got.clone()).await;
        let hook = "/a2a-conform/webhook/0123456789abcdef";
        for host in ["localhost", "203.0.113.7"] {
            let url = format!("http://{host}:{port}{hook}");
            let (_replay, answer) = register(&cassette, &url, "tok-replay-5678").await;
            assert_eq!(answer["error"]["code"], -32099, "{host}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains("run `push-delivers`") && message.contains("loopback"),
                "{message}"
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert!(got.lock().unwrap().is_empty(), "POSTed off loopback");
        let url = format!("http://127.0.0.1:{port}{hook}");
        let (_replay, answer) = register(&cassette, &url, "tok-replay-5678").await;
        assert!(answer.get("result").is_some(), "{answer}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline
            && !got
                .lock()
                .unwrap()
                .iter()
                .any(|(_, _, b)| b.contains("COMPLETED"))
        {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let got = got.lock().unwrap().clone();
        let recorded = cassette.run(0, "push-delivers").unwrap().deliveries.len();
        assert_eq!(got.len(), recorded, "every recorded notification: {got:?}");
        for (path, auth, _) in &got {
            assert_eq!(path, hook);
            assert_eq!(auth.as_deref(), Some("Bearer tok-replay-5678"));
        }
        assert!(
            got.last().unwrap().2.contains("TASK_STATE_COMPLETED"),
            "{got:?}"
        );
    });
}

/// The extended card is asked for inside its runs, so the cassette holds it
/// as their answers (redacted) and a replay serves it as recorded: a
/// recorded check of `extended-card` (with the peer's token) and of
/// `extended-card-partial` (a divergence) replays to the same table and
/// exit code, and the token is in no cassette.
#[test]
fn a_replay_of_the_extended_card_gives_the_recorded_verdicts() {
    let cases = [
        (
            Behaviour::ExtendedCard,
            ProtocolVersion::V1_0,
            "jsonrpc",
            "pass",
        ),
        (
            Behaviour::ExtendedCard,
            ProtocolVersion::V1_0,
            "rest",
            "pass",
        ),
        (
            Behaviour::ExtendedCard,
            ProtocolVersion::V0_3,
            "jsonrpc",
            "pass",
        ),
        (
            Behaviour::ExtendedCard,
            ProtocolVersion::V0_3,
            "rest",
            "pass",
        ),
        (
            Behaviour::ExtendedCardPartial,
            ProtocolVersion::V1_0,
            "rest",
            "fail",
        ),
        (
            Behaviour::ExtendedCardPartial,
            ProtocolVersion::V0_3,
            "jsonrpc",
            "fail",
        ),
    ];
    for (behaviour, version, binding, verdict) in cases {
        let what = format!("{behaviour} {version} {binding}");
        let peer = start_peer(version, behaviour);
        let token = peer.peer.auth_token().expect("the mock's token");
        let env = [("REPLAY_TOKEN", token.as_str())];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.jsonl");
        let args = ["--binding", binding, "--bearer-env", "REPLAY_TOKEN"];
        let record = [&args[..], &["--record", path.to_str().unwrap()]].concat();
        let recorded = check_env(&peer.card_url(), &record, &env);
        drop(peer);
        assert_eq!(
            recorded.scenario("extended-card-served"),
            verdict,
            "{what}: {}",
            recorded.explain()
        );
        assert!(
            !std::fs::read_to_string(&path).unwrap().contains(&token),
            "{what}"
        );
        let replay = start_replay(&path, &[]);
        let replayed = check_env(&replay.card, &args, &env);
        assert_eq!(
            table(&replayed),
            table(&recorded),
            "{what}\n{}",
            replayed.explain()
        );
        assert_eq!(
            replayed.code,
            recorded.code,
            "{what}: {}",
            replayed.explain()
        );
        assert_eq!(replayed.scenario("extended-card-served"), verdict, "{what}");
    }
}

/// An extended card over the evidence body cap is recorded whole on its
/// peer line (redacted: the token it reflects is masked) besides its
/// clipped answer, and the replay serves it whole: the run reads as
/// recorded, not as a replay miss.
#[test]
fn an_extended_card_over_the_evidence_cap_replays_whole() {
    use axum::routing::{get, post};
    use serde_json::{json, Value};
    const SECRET: &str = "ext-Secret-4242";
    let peer = serve_at(|base| {
        let mut card: Value = serde_json::from_slice(&fixture("cards/v1_0.json")).unwrap();
        card["supportedInterfaces"] = json!([{"url": format!("{base}/a2a/jsonrpc"),
            "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
        let mut extended = card.clone();
        let skills = extended["skills"].as_array_mut().unwrap();
        for n in 0..60 {
            skills.push(
                json!({"id": format!("skill-{n}"), "name": format!("Skill {n}"),
                "description": "a skill only authenticated callers see ".repeat(3), "tags": ["x"]}),
            );
        }
        skills.push(json!({"id": "leaky", "name": "Leaky", "tags": ["x"],
            "description": format!("reflects the caller's token {SECRET}")}));
        let answer = move |axum::Json(request): axum::Json<Value>| {
            let extended = extended.clone();
            async move {
                let id = request["id"].clone();
                axum::Json(match request["method"].as_str() {
                    Some("GetExtendedAgentCard") => {
                        json!({"jsonrpc": "2.0", "id": id, "result": extended})
                    }
                    _ => json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32601, "message": "not served here"}}),
                })
            }
        };
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(move || std::future::ready(axum::Json(card.clone()))),
            )
            .route("/a2a/jsonrpc", post(answer))
    });
    let card_url = format!("{}/.well-known/agent-card.json", peer.base_url);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    let env = [("EXT_TOKEN", SECRET)];
    let args = [
        "--scenario",
        "extended-card-served",
        "--bearer-env",
        "EXT_TOKEN",
    ];
    let record = [&args[..], &["--record", path.to_str().unwrap()]].concat();
    let recorded = check_env(&card_url, &record, &env);
    drop(peer);
    assert_eq!(
        recorded.scenario("extended-card-served"),
        "pass",
        "{}",
        recorded.explain()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(SECRET), "the cassette holds the token");
    let cassette = Cassette::load(&path).unwrap();
    let whole = cassette.peers[0]
        .extended_card
        .as_deref()
        .expect("recorded whole");
    assert!(
        whole.contains("skill-59") && whole.contains("«redacted»"),
        "{whole}"
    );
    let step = &cassette.run(0, "extended-card-served").unwrap().steps[0];
    let answer = step
        .response
        .as_ref()
        .and_then(|r| r.body.as_deref())
        .unwrap();
    assert!(
        answer.ends_with("more bytes]"),
        "the answer is clipped: {answer}"
    );
    let replay = start_replay(&path, &[]);
    let replayed = check_env(&replay.card, &args, &env);
    assert_eq!(table(&replayed), table(&recorded), "{}", replayed.explain());
    assert_eq!(replayed.code, recorded.code, "{}", replayed.explain());
    assert_eq!(replayed.scenario("extended-card-served"), "pass");
}

#[test]
fn rejudge_gives_the_recorded_table_and_a_changed_scenario_reads_unverified() {
    let (recorded, _dir, path) = record(ProtocolVersion::V1_0, Behaviour::CancelLeak, "jsonrpc");
    assert_eq!(recorded.code, 1, "{}", recorded.explain());
    let file = path.to_str().unwrap();
    let evidence = recorded.run("cancel-then-stream")["evidence"].to_string();
    assert!(
        evidence.contains(&format!(
            "a2a-conform replay {file} --scenario cancel-then-stream"
        )),
        "a recorded divergence names its replay: {evidence}"
    );
    let same = run(&["rejudge", file, "--binding", "jsonrpc"]);
    assert!(
        !same.report().to_string().contains("replay it offline"),
        "an unrecorded check names no cassette"
    );
    assert_eq!(table(&same), table(&recorded), "{}", same.explain());
    assert_eq!(same.code, recorded.code, "{}", same.explain());
    // The suite changed: the probe's prompt is another text, so its
    // requests are not the recorded ones.
    let changed = run(&[
        "rejudge",
        file,
        "--binding",
        "jsonrpc",
        "--var",
        "prompt_input_required=need-input but worded otherwise",
    ]);
    let mut differs = 0;
    for ((what, before), (what_now, now)) in table(&recorded).iter().zip(table(&changed).iter()) {
        assert_eq!(what, what_now);
        if before != now {
            differs += 1;
            let verdict = if what.starts_with("row ") {
                "unverified"
            } else {
                "inconclusive"
            };
            assert_eq!(now, verdict, "{what}: {}", changed.explain());
            if let Some(id) = what.strip_prefix("run ") {
                let message = changed.run(id)["message"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                assert!(message.contains("not in the recording"), "{id}: {message}");
            }
        }
    }
    assert!(
        differs > 0,
        "the changed prompt's runs differ: {}",
        changed.explain()
    );
    assert_eq!(
        changed.scenario("cancel-then-stream"),
        "fail",
        "runs whose requests did not change keep their verdicts"
    );
    // The divergence's own replay, as its evidence names it.
    let replay = start_replay(&path, &["--scenario", "cancel-then-stream"]);
    let only = check(
        &replay.card,
        &["--binding", "jsonrpc", "--scenario", "cancel-then-stream"],
    );
    assert_eq!(only.code, 1, "{}", only.explain());
    assert_eq!(only.scenario("cancel-then-stream"), "fail");
    let other = check(
        &replay.card,
        &["--binding", "jsonrpc", "--scenario", "unknown-task-get"],
    );
    assert_eq!(
        other.scenario("unknown-task-get"),
        "error",
        "not served: a miss"
    );
}

#[test]
fn checking_a_replay_with_other_requests_is_a_replay_miss_never_a_divergence() {
    let (_recorded, _dir, path) = record(ProtocolVersion::V1_0, Behaviour::Honest, "jsonrpc");
    let replay = start_replay(&path, &["--as-fast-as-possible"]);
    let out = check(
        &replay.card,
        &[
            "--binding",
            "jsonrpc",
            "--var",
            "prompt_input_required=need-input but worded otherwise",
        ],
    );
    assert_misses_are_errors_never_divergences(&out, "jsonrpc");
}

/// A cassette cut, edited, of another version or too large is refused by
/// `replay` and `rejudge` with exit 2, naming the problem.
#[test]
fn a_bad_cassette_is_refused_with_exit_2_naming_the_problem() {
    let (_recorded, dir, path) = record(ProtocolVersion::V1_0, Behaviour::Honest, "jsonrpc");
    let text = std::fs::read_to_string(&path).unwrap();
    let truncated = text[..text.len() / 2].to_string();
    let tampered = text.replacen("\"pass\"", "\"fail\"", 1);
    let other_version = text.replacen("\"version\":1", "\"version\":99", 1);
    let cases = [
        ("truncated.jsonl", truncated, "truncated"),
        ("tampered.jsonl", tampered, "tampered"),
        ("other.jsonl", other_version, "format version 99"),
    ];
    for (name, body, says) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, body).unwrap();
        for command in ["replay", "rejudge"] {
            let out = run(&[command, file.to_str().unwrap()]);
            assert_eq!(out.code, 2, "{command} {name}: {}", out.explain());
            assert!(
                out.stderr.contains(says),
                "{command} {name}: {}",
                out.stderr
            );
        }
    }
    let big = dir.path().join("big.jsonl");
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(a2a_conform_cassette::CASSETTE_CAP + 1)
        .unwrap();
    let out = run(&["replay", big.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("larger than"), "{}", out.stderr);
}

/// Over gRPC too (v1.0 and v0.3), a check of a replay that sends other
/// requests reads each as a replay miss (an error naming the run), never
/// as the peer's divergence; `rejudge` reads them unverified, "not in the
/// recording".
#[test]
fn checking_a_grpc_replay_with_other_requests_is_a_replay_miss_never_a_divergence() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let (recorded, _dir, path) = record(version, Behaviour::Honest, "grpc");
        let changed = [
            "--binding",
            "grpc",
            "--var",
            "prompt_input_required=need-input but worded otherwise",
        ];
        let replay = start_replay(&path, &["--as-fast-as-possible"]);
        let out = check(&replay.card, &changed);
        assert_misses_are_errors_never_divergences(&out, &format!("grpc {version}"));
        let file = path.to_str().unwrap();
        let rejudged = run(&[&["rejudge", file, "--as-fast-as-possible"][..], &changed].concat());
        let mut differs = 0;
        for ((what, before), (_, now)) in table(&recorded).iter().zip(table(&rejudged).iter()) {
            if before != now {
                differs += 1;
                let verdict = if what.starts_with("row ") {
                    "unverified"
                } else {
                    "inconclusive"
                };
                assert_eq!(now, verdict, "{version} {what}: {}", rejudged.explain());
            }
        }
        assert!(differs > 0, "{version}: {}", rejudged.explain());
    }
}

/// A gRPC request the replay cannot read (cut, compressed, over the cap,
/// not the method's message, no A2A method) is a replay miss naming why,
/// never a panic: the replay goes on serving.
#[test]
fn a_malformed_grpc_request_is_a_replay_miss_naming_why() {
    use a2a_conform_cassette::{Miss, Pace, ReplayOptions, ReplayServer};
    let (_recorded, _dir, path) = record(ProtocolVersion::V1_0, Behaviour::Honest, "grpc");
    let cassette = Cassette::load(&path).unwrap();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let options = ReplayOptions {
            port: 0,
            peer: 0,
            pace: Pace::AsFastAsPossible,
            miss: Miss::Error,
        };
        let server = ReplayServer::start(&cassette, options).await.unwrap();
        let http2 = reqwest::Client::builder()
            .http2_prior_knowledge()
            .build()
            .unwrap();
        let get_task = "lf.a2a.v1.A2AService/GetTask";
        let cases: [(&str, Vec<u8>, &str); 5] = [
            (get_task, vec![0, 0, 0], "cut"),
            (get_task, vec![1, 0, 0, 0, 1, 8], "compressed"),
            (get_task, vec![0, 0xff, 0xff, 0xff, 0xff], "cap"),
            (get_task, vec![0, 0, 0, 0, 2, 0xff, 0xff], "protobuf"),
            (
                "other.Service/GetTask",
                vec![0, 0, 0, 0, 0],
                "no A2A gRPC method",
            ),
        ];
        for (method, body, says) in cases {
            let answer = http2
                .post(format!("{}/{method}", server.base_url()))
                .header("content-type", "application/grpc")
                .header("te", "trailers")
                .header("x-a2a-conform-run", "unknown-task-get")
                .body(body)
                .send()
                .await
                .unwrap();
            let headers = answer.headers();
            assert_eq!(headers["grpc-status"], "12", "{says}: {headers:?}");
            assert_eq!(headers["x-a2a-conform-replay-miss"], "error", "{says}");
            // Percent-encoded as gRPC sends messages; spaces are all it needs here.
            let message = headers["grpc-message"]
                .to_str()
                .unwrap()
                .replace("%20", " ");
            assert!(message.contains(says), "{says}: {message}");
        }
        let card = reqwest::get(server.card_url()).await.unwrap();
        assert!(card.status().is_success(), "the replay still serves");
        let card = card.text().await.unwrap();
        assert!(
            card.contains(&format!(
                "\"{}\"",
                server.base_url().trim_start_matches("http://")
            )),
            "the gRPC interface points at the replay: {card}"
        );
    });
}

/// One running replay serves check after check: a check starts at its card
/// fetch, and is served the recording from its first request again (the
/// second check is no replay miss).
#[test]
fn a_second_check_against_one_running_replay_gives_the_same_table() {
    let (recorded, _dir, path) = record(
        ProtocolVersion::V1_0,
        Behaviour::UnstableCompletion,
        "jsonrpc",
    );
    let replay = start_replay(&path, &[]);
    for attempt in ["first", "second"] {
        let replayed = check(&replay.card, &["--binding", "jsonrpc"]);
        assert_eq!(
            table(&replayed),
            table(&recorded),
            "{attempt}: {}",
            replayed.explain()
        );
        assert_eq!(replayed.code, recorded.code, "{attempt}");
        assert!(
            !replayed.report().to_string().contains("replay miss"),
            "{attempt}: {}",
            replayed.explain()
        );
    }
}

/// A check against a replay with other requests than recorded: some runs
/// are replay misses, each an error naming its run, and none a divergence.
fn assert_misses_are_errors_never_divergences(out: &Outcome, what: &str) {
    let runs = out.report()["peers"][0]["scenarios"]
        .as_array()
        .expect("scenarios");
    let missed: Vec<&serde_json::Value> = runs
        .iter()
        .filter(|r| r["message"].as_str().unwrap_or("").contains("replay miss"))
        .collect();
    assert!(!missed.is_empty(), "{what}: {}", out.explain());
    for run in missed {
        assert_eq!(run["verdict"], "error", "{what}: {run}");
        assert!(
            run["message"].as_str().unwrap_or("").contains("run `"),
            "{run}"
        );
    }
    assert!(
        runs.iter().all(|r| r["verdict"] != "fail"),
        "{what}: {}",
        out.explain()
    );
}
