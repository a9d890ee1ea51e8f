//! Cross-binding equivalence (`bindings-agree`, one row per interface
//! besides the reference): the honest mock's bindings agree over JSON-RPC,
//! HTTP+JSON and gRPC in both versions; a mock whose HTTP+JSON binding
//! answers an unknown task otherwise diverges, reproduced by that binding's
//! request; so do one refusing invalid params with another code, one
//! refusing an undeclared operation with another code, and one closing its
//! streams mid-task; content that depends on the interface diverges while content
//! that varies run to run is not compared; a malfunction on one side is an
//! error, never a divergence.

use crate::common::*;
use a2a_conform_mock::{Behaviour, MockConfig};
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const HTTP_PAIR: &str = "interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]";
const GRPC_PAIR: &str = "interfaces[GRPC 1.0] ≡ interfaces[JSONRPC 1.0]";

fn with_grpc(protocol: ProtocolVersion, behaviour: Behaviour) -> Peer {
    start_peer_config(MockConfig {
        grpc: true,
        ..peer_config(protocol, behaviour)
    })
}

#[test]
fn the_honest_mocks_bindings_agree_on_every_pair_in_both_versions() {
    let peer = with_grpc(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.declaration(HTTP_PAIR), "honoured", "{}", out.explain());
    assert_eq!(out.declaration(GRPC_PAIR), "honoured", "{}", out.explain());
    let peer = with_grpc(ProtocolVersion::V0_3, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    for pair in [
        "interfaces[HTTP+JSON 0.3] ≡ interfaces[JSONRPC 0.3]",
        "interfaces[GRPC 0.3] ≡ interfaces[JSONRPC 0.3]",
    ] {
        assert_eq!(out.declaration(pair), "honoured", "{}", out.explain());
    }
}

#[test]
fn an_http_json_binding_answering_an_unknown_task_otherwise_diverges() {
    let peer = with_grpc(ProtocolVersion::V1_0, Behaviour::BindingDisagrees);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration(HTTP_PAIR), "diverged", "{}", out.explain());
    // Only the HTTP+JSON binding disagrees: the gRPC pair is honoured.
    assert_eq!(out.declaration(GRPC_PAIR), "honoured", "{}", out.explain());
    let run = out.run("bindings-agree[HTTP+JSON 1.0 ≡ JSONRPC 1.0]");
    let message = run["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "the HTTP+JSON 1.0 interface and the JSONRPC 1.0 interface disagree: GetTask on an id \
             the peer never issued answered error -32602"
        ) && message.contains("but error -32001"),
        "{message}"
    );
    // CancelTask and the message agree: one difference only.
    assert!(!message.contains("CancelTask"), "{message}");
    // The reproduce line sends the compared binding's GetTask, not the
    // last request of the run (the reference's message).
    let curl = reproduce(run);
    assert!(
        curl.starts_with("curl -sS -X GET '") && curl.contains("/tasks/a2a-conform-no-such-task"),
        "{curl}"
    );
}

/// The message of the HTTP+JSON 1.0 pair's run against a mock with gRPC.
fn http_pair_message(out: &Outcome) -> String {
    let run = out.run("bindings-agree[HTTP+JSON 1.0 ≡ JSONRPC 1.0]");
    run["message"].as_str().unwrap_or_default().to_string()
}

/// Each new disagreement, on its own mock behaviour, diverges the HTTP+JSON
/// pair alone, naming what differed; the gRPC pair of the same peer (which
/// answers like JSON-RPC) is its honest pair, and reads honoured.
#[test]
fn an_http_json_binding_refusing_or_streaming_otherwise_diverges() {
    for (behaviour, protocol, says) in [
        (
            Behaviour::BindingDisagreesParams,
            ProtocolVersion::V1_0,
            "a message with no parts (invalid params) answered error -32005",
        ),
        (
            Behaviour::BindingDisagreesUnsupported,
            ProtocolVersion::V1_0,
            "a push notification config (the card declares no push notifications) answered error -32004",
        ),
        (
            Behaviour::BindingDisagreesStreamEnd,
            ProtocolVersion::V1_0,
            "a streaming message ended as a stream that closed while the task was working, not \
             terminal over HTTP+JSON 1.0 but as a stream that closed after the task was completed \
             over JSONRPC 1.0",
        ),
        (
            Behaviour::BindingDisagreesStreamEnd,
            ProtocolVersion::V0_3,
            "a streaming message ended as a stream that closed while the task was working",
        ),
    ] {
        let peer = with_grpc(protocol, behaviour);
        let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
        let v = protocol.to_string();
        let http = format!("interfaces[HTTP+JSON {v}] ≡ interfaces[JSONRPC {v}]");
        let grpc = format!("interfaces[GRPC {v}] ≡ interfaces[JSONRPC {v}]");
        assert_eq!(out.code, 1, "{behaviour}: {}", out.explain());
        assert_eq!(out.declaration(&http), "diverged", "{behaviour}: {}", out.explain());
        assert_eq!(out.declaration(&grpc), "honoured", "{behaviour}: {}", out.explain());
        let run = out.run(&format!("bindings-agree[HTTP+JSON {v} ≡ JSONRPC {v}]"));
        let message = run["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{behaviour}: {message}");
        // One difference each: the unknown-task codes and the blocking
        // message still agree.
        assert!(!message.contains("never issued"), "{behaviour}: {message}");
        assert!(!message.contains("; "), "{behaviour}: {message}");
    }
}

/// The honest pair of `binding-disagrees-stream-end`: an HTTP+JSON stream
/// that ends as JSON-RPC's does, only later than the run's window, is not
/// the peer's difference. Within a window longer than the mock's silence
/// (3 s here) the ends are compared and agree; within a shorter one the end
/// is left uncompared, saying so, and the pair is still honoured.
#[test]
fn a_stream_that_ends_after_the_window_is_not_compared_never_diverged() {
    let peer = with_grpc(ProtocolVersion::V1_0, Behaviour::BindingSlowStreamEnd);
    let run_id = "bindings-agree[HTTP+JSON 1.0 ≡ JSONRPC 1.0]";
    let short = [
        "--scenario",
        "bindings-agree",
        "--var",
        "task_window=1500ms",
    ];
    let out = check(&peer.card_url(), &short);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.declaration(HTTP_PAIR), "honoured", "{}", out.explain());
    let remarks = out.run(run_id)["message"].to_string();
    assert!(
        remarks.contains("the end of a stream was not compared: the stream over HTTP+JSON 1.0 did not end within 1.50 s"),
        "{remarks}"
    );
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.declaration(HTTP_PAIR), "honoured", "{}", out.explain());
    let remarks = out.run(run_id)["message"].to_string();
    assert!(!remarks.contains("end of a stream"), "{remarks}");
}

/// A diverged pair's report sets its first difference's two sides apart,
/// each in a labelled block: the terminal's within 80 columns, the
/// Markdown's in fenced blocks, the JUnit failure's as plain text.
#[test]
fn a_diverged_pair_shows_both_sides_evidence_in_labelled_blocks() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::BindingDisagreesParams);
    let dir = tempfile::tempdir().unwrap();
    let (md, junit) = (dir.path().join("r.md"), dir.path().join("r.xml"));
    let out = check(
        &peer.card_url(),
        &[
            "--scenario",
            "bindings-agree",
            "--markdown",
            md.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(out.declaration(HTTP_PAIR), "diverged", "{}", out.explain());
    let lines: Vec<&str> = out.stdout.lines().collect();
    let other = lines.iter().position(|l| *l == "    over HTTP+JSON 1.0:");
    let reference = lines
        .iter()
        .position(|l| *l == "    over JSONRPC 1.0 (the reference):");
    let (Some(other), Some(reference)) = (other, reference) else {
        panic!("no labelled sides: {}", out.stdout);
    };
    assert!(other < reference, "{}", out.stdout);
    // A block's text with its wrapped body lines joined again.
    let block =
        |from: usize, to: usize| lines[from..to].iter().map(|l| l.trim()).collect::<String>();
    let end = lines[reference..]
        .iter()
        .position(|l| l.starts_with("    reproduce: "))
        .map_or(lines.len(), |n| reference + n);
    // Each side's answer, its reason or code included.
    let (other_block, reference_block) = (block(other, reference), block(reference, end));
    assert!(
        other_block.contains("CONTENT_TYPE_NOT_SUPPORTED"),
        "{}",
        out.stdout
    );
    assert!(reference_block.contains("-32602"), "{}", out.stdout);
    assert!(!other_block.contains("/a2a/jsonrpc"), "{}", out.stdout);
    for line in &lines[other..end] {
        assert!(line.chars().count() <= 80, "wider than 80: {line}");
    }
    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(
        markdown.contains("The first difference, over each interface")
            && markdown.contains("**over HTTP+JSON 1.0**")
            && markdown.contains("**over JSONRPC 1.0 (the reference)**"),
        "{markdown}"
    );
    let junit = std::fs::read_to_string(&junit).unwrap();
    assert!(
        junit.contains("over JSONRPC 1.0 (the reference):"),
        "{junit}"
    );
    // A pair that agrees shows no sides.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree", "-v"]);
    assert!(
        !out.stdout.contains("    over HTTP+JSON 1.0:\n    +"),
        "{}",
        out.stdout
    );
}

#[test]
fn invalid_params_refused_alike_and_an_undeclared_push_refused_alike_agree() {
    // The honest mock refuses a message with no parts with -32602 and a
    // push config (undeclared) with -32003 over every binding: the run
    // passes with nothing skipped (it declares streaming, not push).
    let peer = with_grpc(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(
        http_pair_message(&out),
        "all 1 steps passed",
        "{}",
        out.explain()
    );
    // A card declaring push notifications and streaming gives no operation
    // to expect refused: the comparison is skipped, and the row says so.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Push);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.declaration(HTTP_PAIR), "honoured", "{}", out.explain());
    assert!(
        http_pair_message(&out).contains(
            "the unsupported-operation codes were not compared: the card declares both streaming and push notifications"
        ),
        "{}",
        out.explain()
    );
    // A card without streaming: the streams' end is not compared, and the
    // undeclared stream is refused alike (push undeclared is asked first).
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::UndeclaredStreamingRefused);
    let out = check(&peer.card_url(), &["--scenario", "bindings-agree"]);
    assert_eq!(out.declaration(HTTP_PAIR), "honoured", "{}", out.explain());
    assert!(
        http_pair_message(&out)
            .contains("the end of a stream was not compared: the card does not declare streaming"),
        "{}",
        out.explain()
    );
}

/// The last `curl` line of a run's evidence: what its report reproduces.
fn reproduce(run: &Value) -> String {
    run["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["curl"].as_str())
        .next_back()
        .unwrap_or_default()
        .to_string()
}

/// What a made-up peer with two JSON-RPC 1.0 interfaces (`/a`, then `/b`)
/// says in its completed task's artifact, given the interface and how many
/// messages it has answered; `None` answers HTTP 500 instead.
type Say = fn(&str, usize) -> Option<String>;

/// A peer declaring two JSON-RPC 1.0 interfaces, answering GetTask and
/// CancelTask with TaskNotFound and a message with a completed task whose
/// artifact text `say` gives.
fn two_interfaces(say: Say) -> Served {
    serve_at(move |base| {
        let card = json!({
            "name": "twins", "description": "An agent.", "version": "1",
            "supportedInterfaces": [
                {"url": format!("{base}/a"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": format!("{base}/b"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
            ],
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "Says.", "tags": [], "examples": ["say"]}]
        });
        let sent = Arc::new(AtomicUsize::new(0));
        let route = |path: &'static str, sent: Arc<AtomicUsize>| {
            axum::routing::post(move |axum::Json(request): axum::Json<Value>| {
                let sent = sent.clone();
                async move { answer(path, &request, &sent, say) }
            })
        };
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || async move { axum::Json(card) }),
            )
            .route("/a", route("a", sent.clone()))
            .route("/b", route("b", sent))
    })
}

fn answer(path: &str, request: &Value, sent: &AtomicUsize, say: Say) -> axum::response::Response {
    use axum::response::IntoResponse;
    let reply =
        |body: Value| axum::Json(json!({"jsonrpc": "2.0", "id": request["id"], "result": body}));
    match request["method"].as_str() {
        Some("SendMessage") => {
            let n = sent.fetch_add(1, Ordering::SeqCst);
            let Some(text) = say(path, n) else {
                return (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    "<html>oops</html>",
                )
                    .into_response();
            };
            let task = json!({"id": format!("t{n}"), "contextId": format!("c{n}"),
                "status": {"state": "TASK_STATE_COMPLETED"},
                "artifacts": [{"artifactId": format!("art-{n}"), "parts": [{"text": text}]}]});
            reply(json!({"task": task})).into_response()
        }
        _ => axum::Json(json!({"jsonrpc": "2.0", "id": request["id"],
            "error": {"code": -32001, "message": "task not found"}}))
        .into_response(),
    }
}

const TWIN_PAIR: &str = "interfaces[JSONRPC 1.0 #2] ≡ interfaces[JSONRPC 1.0]";
const TWIN_RUN: &str = "bindings-agree[JSONRPC 1.0 #2 ≡ JSONRPC 1.0]";

#[test]
fn content_that_depends_on_the_interface_diverges() {
    let served = two_interfaces(|path, _| Some(format!("hello from {path}")));
    let out = check(&served.base_url, &["--scenario", "bindings-agree"]);
    assert_eq!(out.declaration(TWIN_PAIR), "diverged", "{}", out.explain());
    let message = out.run(TWIN_RUN)["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        message.contains("the task's artifacts say something else over JSONRPC 1.0 #2")
            && message.contains("while two tasks over JSONRPC 1.0 said the same"),
        "{message}"
    );
    // The honest pair: the same content over both, minted ids apart.
    let served = two_interfaces(|_, _| Some("hello".to_string()));
    let out = check(&served.base_url, &["--scenario", "bindings-agree"]);
    assert_eq!(out.declaration(TWIN_PAIR), "honoured", "{}", out.explain());
    assert_eq!(
        out.run(TWIN_RUN)["message"],
        "all 1 steps passed; the end of a stream was not compared: the card does not declare streaming"
    );
}

#[test]
fn content_that_varies_run_to_run_is_not_compared() {
    let served = two_interfaces(|_, n| Some(format!("answer number {n}")));
    let out = check(&served.base_url, &["--scenario", "bindings-agree"]);
    assert_eq!(out.declaration(TWIN_PAIR), "honoured", "{}", out.explain());
    assert_eq!(
        out.run(TWIN_RUN)["message"],
        "all 1 steps passed; the artifacts' content was not compared: two tasks over JSONRPC \
         1.0 said different things; the end of a stream was not compared: the card does not \
         declare streaming",
        "{}",
        out.explain()
    );
}

#[test]
fn a_malfunction_on_one_side_is_an_error_not_a_divergence() {
    let served = two_interfaces(|path, _| (path == "a").then(|| "hello".to_string()));
    let out = check(&served.base_url, &["--scenario", "bindings-agree"]);
    assert_eq!(out.run(TWIN_RUN)["verdict"], "error", "{}", out.explain());
    assert_eq!(
        out.declaration(TWIN_PAIR),
        "unverified",
        "{}",
        out.explain()
    );
    assert_eq!(out.code, 3, "{}", out.explain());
}
