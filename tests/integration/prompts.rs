//! The prompt search and the long-running retry on peers nobody here
//! wrote: a card whose only trigger phrase is in a description, a peer
//! whose only slow-looking prompt parks the task in input-required (the
//! cancel must meet running work), and the exact words of each reason.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};

const SET: &str = "set --var prompt_input_required=<a text that makes this peer ask for input>";

fn check(card_url: &str, extra: &[&str]) -> Outcome {
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

fn message(out: &Outcome, run: &str) -> String {
    out.run(run)["message"].as_str().unwrap_or("").to_string()
}

#[test]
fn a_card_without_examples_gives_its_trigger_phrase_from_a_description() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::DescriptionTrigger);
        let out = check(&peer.card_url(), &["--scenario", "input-mode-resume"]);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        for row in INPUT_ROWS {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
        }
        let searches = preconditions(&out);
        assert_eq!(searches[0]["outcome"], "found", "{searches:#?}");
        assert_eq!(searches[0]["source"], "skills[echo].description");
        assert_eq!(searches[0]["prompt"], "plan a trip");
        // The card lists no examples: the phrase is the first thing tried.
        assert_eq!(searches[0]["tried"].as_array().unwrap().len(), 1);
    }
    // The honest pair: a card with examples is searched by them first.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "input-mode-resume"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        preconditions(&out)[0]["source"],
        "skills[echo].examples[1]",
        "{}",
        out.explain()
    );
}

#[test]
fn a_cancel_that_would_land_on_a_task_waiting_for_input_is_inconclusive() {
    let only = ["--scenario", "cancel-then-stream"];
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::InstantUnlessInput);
        let out = check(&peer.card_url(), &only);
        assert_eq!(
            out.declaration("lifecycle.cancel"),
            "unverified",
            "{version}: {}",
            out.explain()
        );
        assert_eq!(
            message(&out, "cancel-then-stream"),
            "the task stopped to ask for input (input-required) before the cancel could be sent, \
             so no running work was there to cancel; none of the 2 skill examples tried kept a task \
             working long enough; set --var prompt_long=<a request this peer works on for a few seconds>",
            "{version}"
        );
        let work = preconditions(&out);
        assert_eq!(work[0]["variable"], "prompt_long", "{work:#?}");
        assert_eq!(work[0]["outcome"], "not-found");
        let tried = work[0]["tried"].as_array().unwrap();
        assert_eq!(tried[1]["prompt"], "need-input");
        assert!(
            tried[1]["answer"]
                .as_str()
                .unwrap()
                .starts_with("the task stopped to ask for input"),
            "{tried:#?}"
        );
        // The human report says it the same way, once.
        assert!(
            out.stdout.contains(
                "precondition: prompt_long: not-found: none of the 2 skill examples tried kept a task \
                 working long enough; set --var prompt_long=<a request this peer works on for a few \
                 seconds> — 2 tried, 2 task(s) started, 0 canceled; used by 1 run(s)"
            ),
            "{}",
            out.stdout
        );
    }
    // The honest pair: a peer whose example keeps a task working is canceled for real.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InstantUnlessExample);
    let out = check(&peer.card_url(), &only);
    assert_eq!(
        out.declaration("lifecycle.cancel"),
        "honoured",
        "{}",
        out.explain()
    );
}

#[test]
fn a_search_that_tried_examples_and_built_ins_says_so_once() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputUnreachable);
    let out = check(&peer.card_url(), &["--scenario", "input-mode-resume"]);
    let want = format!(
        "none of the 2 skill examples and 2 built-in prompts tried reached input-required; {SET}"
    );
    assert_eq!(message(&out, "input-mode-resume[text/plain]"), want);
    assert_eq!(preconditions(&out)[0]["message"], want.as_str());
    assert!(
        out.stdout.contains(&format!(
            "precondition: prompt_input_required: not-found: {want} — 4 tried, 4 task(s) started, 0 canceled;"
        )),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("is not set"), "{}", out.stdout);
}

#[test]
fn a_search_spent_its_budget_says_what_it_tried_and_what_to_raise() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputUnreachable);
    let out = check(
        &peer.card_url(),
        &["--scenario", "input-mode-resume", "--discover-budget", "3"],
    );
    let want = format!(
        "the --discover-budget of 3 task(s) was spent before a prompt reached input-required \
         (2 skill examples and 1 built-in prompt tried); raise it, or {SET}"
    );
    assert_eq!(message(&out, "input-mode-resume[text/plain]"), want);
    assert_eq!(preconditions(&out)[0]["message"], want.as_str());
    assert!(out.stdout.contains(&want), "{}", out.stdout);
}

#[test]
fn a_search_with_only_built_ins_does_not_claim_the_card_offered_any() {
    // A card with no examples and no phrase in its descriptions; every
    // send is answered by a completed task.
    let served = serve_at(|base| {
        let card = json!({
            "name": "plain", "description": "An agent.", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "Does things.", "tags": []}]
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || async move { axum::Json(card) }),
            )
            .route(
                "/rpc",
                axum::routing::post(|axum::Json(request): axum::Json<Value>| async move {
                    axum::Json(json!({
                        "jsonrpc": "2.0", "id": request["id"],
                        "result": {"task": {"id": "t1", "contextId": "c1",
                            "status": {"state": "TASK_STATE_COMPLETED"}}}
                    }))
                }),
            )
    });
    let out = check(&served.base_url, &["--scenario", "input-mode-resume"]);
    let want = format!(
        "the card offers no prompt to try (no skill examples, no quoted or example phrases in its \
         descriptions), and none of the 2 built-in prompts reached input-required; {SET}"
    );
    assert_eq!(
        message(&out, "input-mode-resume[text/plain]"),
        want,
        "{}",
        out.explain()
    );
    assert_eq!(preconditions(&out)[0]["message"], want.as_str());
    assert!(out.stdout.contains(&want), "{}", out.stdout);
}

#[test]
fn a_prompt_that_was_given_is_never_told_to_be_set() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Instant);
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "input-mode-resume",
            "--var",
            "prompt_input_required=please wait",
            "-v",
        ],
    );
    let want =
        "the peer never reached input-required (it answered completed); the prompt given as \
                prompt_input_required does not make this peer ask for input; give one that does";
    assert_eq!(message(&out, "input-mode-resume[text/plain]"), want);
    assert!(out.stdout.contains(want), "{}", out.stdout);
    assert!(preconditions(&out).is_empty());
    // Searched for and found, the run names what was found.
    let honest = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&honest.card_url(), &["--scenario", "input-mode-resume"]);
    assert_eq!(out.code, 0, "{}", out.explain());
}

#[test]
fn a_failed_resume_shows_the_tasks_own_status_message() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::InputOverdeclaredFails);
    let out = run(&[
        &["check", &peer.card_url(), "--color", "never"][..],
        FAST_VARS,
        &["--scenario", "input-mode-resume"],
    ]
    .concat());
    assert_eq!(
        message(&out, "input-mode-resume[application/json]"),
        "the task ended failed after a resume with a part of type application/json (failed \
         (unsupported input: `application/json` parts cannot be processed)), while a text \
         resume of another task answered completed: the declared mode is taken but not handled",
        "{}",
        out.explain()
    );
}

#[test]
fn a_resume_answered_by_a_re_prompt_says_so() {
    // Every message is answered by the same task asking again.
    let served = serve_at(|base| {
        let card = json!({
            "name": "asker", "description": "An agent.", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "Asks.", "tags": [], "examples": ["ask me"]}]
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || async move { axum::Json(card) }),
            )
            .route(
                "/rpc",
                axum::routing::post(|axum::Json(request): axum::Json<Value>| async move {
                    let asking = json!({"id": "t1", "contextId": "c1", "status": {
                        "state": "TASK_STATE_INPUT_REQUIRED",
                        "message": {"messageId": "m", "role": "ROLE_AGENT",
                            "parts": [{"text": "Which city?"}]}}});
                    let result = match request["method"].as_str() {
                        Some("SendMessage") => json!({"task": asking}),
                        Some("CancelTask") => json!({"id": "t1", "contextId": "c1",
                            "status": {"state": "TASK_STATE_CANCELED"}}),
                        _ => asking,
                    };
                    axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": result}))
                }),
            )
    });
    let out = check(&served.base_url, &["--scenario", "input-mode-resume", "-v"]);
    let run = out.run("input-mode-resume[text/plain]");
    assert_eq!(run["verdict"], "pass", "{}", out.explain());
    assert_eq!(
        run["message"],
        "all 4 steps passed; the resume with a text/plain part was answered input-required again (a re-prompt)"
    );
    assert!(
        run["evidence"].as_array().is_some_and(|e| e.iter().any(|e| e["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("re-prompt: the resume of task t1 was answered input-required again: Which city?")))),
        "{run:#}"
    );
    // The honest pair: a resume that makes progress is a plain pass.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "input-mode-resume"]);
    assert_eq!(
        message(&out, "input-mode-resume[text/plain]"),
        "all 4 steps passed"
    );
}
