//! Zero-config runs: with `prompt_input_required` unset, the check finds a
//! prompt that reaches input-required among the card's skill examples (then
//! built-in requests), within `--discover-budget`, canceling every task it
//! started; `--no-discover` leaves the rows unverified as before.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{ProtocolVersion, TaskState};
use serde_json::{json, Value};

fn zero_config(card_url: &str, extra: &[&str]) -> Outcome {
    let mut args = vec!["check", card_url, "--color", "never"];
    args.extend_from_slice(FAST_WINDOWS);
    args.extend_from_slice(extra);
    run(&args)
}

fn preconditions(out: &Outcome) -> Vec<Value> {
    out.report()["peers"][0]["preconditions"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn the_cards_own_example_reaches_input_required_and_every_search_task_is_canceled() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::Honest);
        let out = zero_config(&peer.card_url(), &[]);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        for row in INPUT_ROWS {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
        }
        let searches = preconditions(&out);
        // The default modes' search found it; the skill's reused what was tried.
        assert_eq!(searches.len(), 2, "{version}: {searches:#?}");
        for search in &searches {
            assert_eq!(search["variable"], "prompt_input_required");
            assert_eq!(search["outcome"], "found", "{search:#}");
            assert_eq!(search["prompt"], "need-input");
            assert_eq!(search["source"], "skills[echo].examples[1]");
            assert_eq!(search["tried"][0]["source"], "skills[echo].examples[0]");
            assert_eq!(search["tried"][0]["reached"], false);
        }
        assert_eq!(searches[0]["tasks_started"], 2, "{searches:#?}");
        assert_eq!(searches[0]["tasks_canceled"], 1, "{searches:#?}");
        assert_eq!(searches[1]["tasks_started"], 0, "tried once per peer");
        assert_eq!(searches[1]["skill"], "echo");
        let runs: Vec<&str> = searches
            .iter()
            .flat_map(|s| s["runs"].as_array().unwrap())
            .filter_map(Value::as_str)
            .collect();
        assert!(
            runs.contains(&"input-mode-resume[application/json]")
                && runs.contains(&"input-mode-resume[echo:application/json]"),
            "{runs:?}"
        );
        // The mock saw the cancel of the task the search left waiting (the
        // first with the example's text; the runs then sent it themselves).
        let tasks = peer.peer.tasks();
        let searched: Vec<TaskState> = tasks
            .iter()
            .filter(|(text, _)| text == "need-input" || text == "hello")
            .map(|(_, state)| *state)
            .collect();
        assert_eq!(
            searched[..2],
            [TaskState::Completed, TaskState::Canceled],
            "hello finished on its own, need-input was canceled: {tasks:?}"
        );
        assert!(
            !tasks.iter().any(|(_, s)| *s == TaskState::InputRequired),
            "nothing left waiting for input: {tasks:?}"
        );
        // The terminal report names the example and the line that pins it.
        assert!(
            out.stdout.contains("skills[echo].examples[1]")
                && out
                    .stdout
                    .contains("--var 'prompt_input_required=need-input'"),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn no_discover_leaves_the_input_rows_unverified_and_starts_no_task() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = zero_config(
        &peer.card_url(),
        &["--no-discover", "--scenario", "input-mode-resume"],
    );
    assert_eq!(out.code, 4, "nothing verified: {}", out.explain());
    for row in INPUT_ROWS {
        assert_eq!(out.declaration(row), "unverified", "{row}");
    }
    assert!(preconditions(&out).is_empty());
    let run = out.run("input-mode-resume[text/plain]");
    assert_eq!(run["verdict"], "inconclusive");
    assert!(
        run["message"]
            .as_str()
            .unwrap()
            .starts_with("variable `prompt_input_required` is not set"),
        "{run:#}"
    );
    assert!(peer.peer.tasks().is_empty(), "{:?}", peer.peer.tasks());
    // The same through the environment, as every check flag.
    let card = peer.card_url();
    let mut args = vec!["check", card.as_str()];
    args.extend_from_slice(FAST_WINDOWS);
    args.extend_from_slice(&["--scenario", "input-mode-resume"]);
    let out = run_env(&args, &[("A2A_CONFORM_NO_DISCOVER", "true")]);
    assert_eq!(out.code, 4, "{}", out.explain());
    assert!(peer.peer.tasks().is_empty());
}

#[test]
fn a_peer_no_prompt_reaches_stays_unverified_within_the_budget_with_no_task_left_running() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputUnreachable);
    let out = zero_config(
        &peer.card_url(),
        &["--discover-budget", "3", "--scenario", "input-mode-resume"],
    );
    assert_eq!(out.code, 4, "{}", out.explain());
    for row in INPUT_ROWS {
        assert_eq!(out.declaration(row), "unverified", "{row}");
    }
    let searches = preconditions(&out);
    let started: u64 = searches
        .iter()
        .map(|s| s["tasks_started"].as_u64().unwrap())
        .sum();
    let canceled: u64 = searches
        .iter()
        .map(|s| s["tasks_canceled"].as_u64().unwrap())
        .sum();
    assert_eq!(started, 3, "the budget is per peer: {searches:#?}");
    // The peer answers a blocking send at once with the task unfinished:
    // the search polls each task to where it settles (completed, never
    // input-required), so none is left running to cancel.
    assert_eq!(canceled, 0, "{searches:#?}");
    assert!(searches.iter().all(|s| s["outcome"] == "not-found"));
    assert_eq!(
        searches[0]["tried"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["source"].as_str().unwrap())
            .collect::<Vec<_>>(),
        [
            "skills[echo].examples[0]",
            "skills[echo].examples[1]",
            "built-in[0]"
        ]
    );
    let tasks = peer.peer.tasks();
    assert_eq!(tasks.len(), 3, "{tasks:?}");
    assert!(
        tasks.iter().all(|(_, s)| *s == TaskState::Completed),
        "{tasks:?}"
    );
    let message = out.run("input-mode-resume[text/plain]")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.starts_with(
            "the --discover-budget of 3 task(s) was spent before a prompt reached input-required"
        ),
        "{message}"
    );
}

#[test]
fn a_malfunction_answering_the_search_reads_error_never_fail() {
    let served = serve_at(|base| {
        let card = json!({
            "name": "broken", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "d", "tags": [], "examples": ["please ask me"]}]
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || async move { axum::Json(card) }),
            )
            .route(
                "/rpc",
                axum::routing::post(|| async {
                    (
                        axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                        [("content-type", "text/html")],
                        "<html>oops</html>",
                    )
                }),
            )
    });
    let out = zero_config(&served.base_url, &["--scenario", "input-mode-resume"]);
    assert_eq!(out.code, 3, "a malfunctioning peer: {}", out.explain());
    let run = out.run("input-mode-resume[text/plain]");
    assert_eq!(run["verdict"], "error", "{run:#}");
    assert_eq!(run["error_kind"], "peer-malfunction", "{run:#}");
    assert!(
        run["message"].as_str().unwrap().contains(
            "while searching for a prompt that reaches input-required (skills[s].examples[0]"
        ),
        "{run:#}"
    );
    let searches = preconditions(&out);
    assert_eq!(searches[0]["outcome"], "error");
    assert!(
        !searches[0]["evidence"].as_array().unwrap().is_empty(),
        "{searches:#?}"
    );
}

#[test]
fn profile_init_never_destroys_a_file_nor_writes_through_a_symlink() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.yaml");
    std::fs::write(&mine, "# hand-written\n").unwrap();
    let file = mine.to_str().unwrap();
    let out = run(&["profile", "init", &card, "-o", file]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("the file exists; pass --force to replace it"),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "# hand-written\n");
    assert!(peer.peer.tasks().is_empty(), "refused before any request");

    // A link to the hand-written profile: refused, with --force too; the
    // link and its target stay as they were.
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&mine, &link).unwrap();
    for force in [false, true] {
        let mut args = vec![
            "profile",
            "init",
            card.as_str(),
            "-o",
            link.to_str().unwrap(),
        ];
        if force {
            args.push("--force");
        }
        let out = run(&args);
        assert_eq!(out.code, 2, "--force {force}: {}", out.explain());
        assert!(out.stderr.contains("a symbolic link"), "{}", out.stderr);
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "# hand-written\n");
    }

    // --force replaces the file itself, and no temporary file is left.
    let out = run(&["profile", "init", &card, "-o", file, "--force"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let text = std::fs::read_to_string(&mine).unwrap();
    assert!(text.contains("prompt_input_required"), "{text}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["link.yaml", "mine.yaml"]);
}

#[test]
fn profile_init_writes_what_the_search_found_and_a_check_pins_it() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("peer.yaml");
    let file = path.to_str().unwrap();
    let card = peer.card_url();
    let out = run(&["profile", "init", &card, "-o", file]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let text = std::fs::read_to_string(&path).unwrap();
    let profile = a2a_conform::profile::Profile::parse(file, &text).expect(&text);
    assert_eq!(
        profile.vars["prompt_input_required"], "need-input",
        "{text}"
    );
    assert!(text.contains("skills[echo].examples[1]"), "{text}");
    assert!(
        text.contains("never values"),
        "the auth hook is marked: {text}"
    );
    // The search's task was canceled; nothing else was started.
    let tasks = peer.peer.tasks();
    assert_eq!(tasks.len(), 2, "{tasks:?}");
    assert_eq!(tasks[1], ("need-input".into(), TaskState::Canceled));
    // Pinned: no search at all, and the input rows are verified.
    let mut args = vec!["check", card.as_str(), "--no-discover", "--profile", file];
    args.extend_from_slice(FAST_WINDOWS);
    args.extend_from_slice(&["--scenario", "input-mode-resume"]);
    let out = run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    for row in INPUT_ROWS {
        assert_eq!(out.declaration(row), "honoured", "{row}");
    }
    assert!(preconditions(&out).is_empty());
    // A peer where nothing works: the profile says so, and the exit is 4.
    let stuck = start_peer(ProtocolVersion::V0_3, Behaviour::InputUnreachable);
    let out = run(&[
        "profile",
        "init",
        &stuck.card_url(),
        "--discover-budget",
        "2",
    ]);
    assert_eq!(out.code, 4, "{}", out.explain());
    assert!(
        out.stdout.contains("# prompt_input_required not found") && out.stdout.contains("vars: {}"),
        "{}",
        out.stdout
    );
    assert_eq!(stuck.peer.tasks().len(), 2);
}

#[test]
fn a_task_that_finishes_before_the_cancel_is_retried_with_the_cards_examples() {
    let only = [
        "--scenario",
        "cancel-then-stream",
        "--scenario",
        "streaming-probe",
    ];
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::InstantUnlessExample);
        let out = zero_config(&peer.card_url(), &only);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        assert_eq!(out.declaration("lifecycle.cancel"), "honoured", "{version}");
        assert_eq!(out.declaration("capabilities.streaming"), "honoured");
        let searches = preconditions(&out);
        let work: Vec<&Value> = searches
            .iter()
            .filter(|s| s["variable"] == "prompt_long")
            .collect();
        assert_eq!(work.len(), 1, "{searches:#?}");
        assert_eq!(work[0]["outcome"], "found");
        assert_eq!(work[0]["source"], "skills[echo].examples[0]");
        assert_eq!(work[0]["runs"], json!(["cancel-then-stream"]));
        // Without the search, the rows stay as they were.
        let out = zero_config(
            &peer.card_url(),
            &[only.as_slice(), &["--no-discover"]].concat(),
        );
        assert_eq!(out.declaration("lifecycle.cancel"), "unverified");
        assert!(preconditions(&out).is_empty());
    }
    // Budget: one task for the whole peer, whichever run asks first.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Instant);
    let out = zero_config(
        &peer.card_url(),
        &[only.as_slice(), &["--discover-budget", "1"]].concat(),
    );
    let started: u64 = preconditions(&out)
        .iter()
        .map(|s| s["tasks_started"].as_u64().unwrap())
        .sum();
    assert_eq!(started, 1, "{}", out.explain());
    assert_eq!(out.declaration("lifecycle.cancel"), "unverified");
    let messages = [
        out.run("cancel-then-stream")["message"].to_string(),
        out.run("streaming-probe")["message"].to_string(),
    ];
    assert!(
        messages
            .iter()
            .any(|m| m.contains("the --discover-budget of 1 task(s) was spent")),
        "{messages:?}"
    );
}

/// The honest mock's card with its first skill's id replaced by `id`,
/// served on its own port (its interfaces still name the mock).
fn card_with_skill_id(peer: &Peer, id: &str) -> (tokio::runtime::Runtime, String) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    let url = runtime.block_on(async {
        let mut card: Value = reqwest::get(peer.card_url())
            .await
            .expect("the card answers")
            .json()
            .await
            .expect("the card is JSON");
        card["skills"][0]["id"] = json!(id);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("its address");
        let app = axum::Router::new().route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || async move { axum::Json(card.clone()) }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        format!("http://{addr}/.well-known/agent-card.json")
    });
    (runtime, url)
}

#[test]
fn a_skill_id_cannot_write_keys_into_the_profile_nor_act_on_the_terminal() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let hostile = "echo\n  prompt: hi\nbearer_env: STEAL_ME\nheaders:\n  #\u{1b}[2J\u{202e}";
    let (_served, card) = card_with_skill_id(&peer, hostile);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("peer.yaml");
    let file = path.to_str().unwrap();
    for output in [&["-o", file][..], &[]] {
        let mut args = vec!["profile", "init", card.as_str()];
        args.extend_from_slice(output);
        let out = run(&args);
        assert_eq!(out.code, 0, "{}", out.explain());
        let text = if output.is_empty() {
            out.stdout.clone()
        } else {
            std::fs::read_to_string(&path).unwrap()
        };
        let profile = a2a_conform::profile::Profile::parse(file, &text).expect(&text);
        assert_eq!(profile.vars.len(), 1, "only the search's variable: {text}");
        assert_eq!(
            profile.vars["prompt_input_required"], "need-input",
            "{text}"
        );
        assert!(
            profile.bearer_env.is_none() && profile.headers.is_empty(),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "raw peer controls: {text:?}"
        );
        // The skill is still named, its controls shown as the report shows them.
        assert!(text.contains(r"echo\n  prompt: hi"), "{text}");
    }
}
