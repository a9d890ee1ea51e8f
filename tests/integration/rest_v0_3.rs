//! HTTP+JSON for A2A 0.3 end to end: the default suite over the `/v1`
//! routes and the 0.3 proto's JSON against the v0.3 mock peer, a divergence
//! caught over that binding, and a declared 0.3 REST interface that is not
//! served reading diverged.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;

const REST_0_3: &str = "interfaces[HTTP+JSON 0.3]";
const FORCED: &[&str] = &["--binding", "rest", "--protocol", "0.3", "-v"];

/// Every request line and body of every run, for the wire assertions.
fn requests(out: &Outcome) -> Vec<(String, String)> {
    out.report()["peers"][0]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .flat_map(|run| run["evidence"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["kind"] == "request")
        .map(|e| {
            (
                e["summary"].as_str().unwrap_or("").to_string(),
                e["body"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn the_default_suite_runs_over_rest_0_3_and_every_declaration_is_honoured() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::Honest);
    let out = check(&peer.card_url(), FORCED);
    assert_eq!(out.code, 0, "{}", out.explain());
    let report = &out.report()["peers"][0];
    assert_eq!(report["binding"], "rest", "{}", out.explain());
    assert_eq!(report["protocol_version"], "0.3", "{}", out.explain());
    assert_eq!(out.declaration(REST_0_3), "honoured", "{}", out.explain());
    for row in report["declarations"].as_array().expect("declarations") {
        let verdict = row["verdict"].as_str().unwrap_or("");
        assert!(
            matches!(verdict, "honoured" | "not-declared"),
            "{}: {verdict}\n{}",
            row["id"],
            out.explain()
        );
    }
    // On the wire: `/v1` routes, 0.3 proto JSON (`content`, `ROLE_USER`),
    // no `A2A-Version` (a 0.3 request carries none).
    let sent = requests(&out);
    let rest: Vec<&(String, String)> = sent
        .iter()
        .filter(|(line, _)| line.contains("(HTTP+JSON 0.3)"))
        .collect();
    assert!(!rest.is_empty(), "{}", out.explain());
    for (line, body) in &rest {
        assert!(line.contains("/a2a/rest/v1/"), "{line}");
        if line.contains("message:") {
            let body: Value = serde_json::from_str(body).expect("a JSON body");
            assert_eq!(body["message"]["role"], "ROLE_USER", "{body}");
            assert!(body["message"]["content"].is_array(), "{body}");
            assert!(body["message"].get("parts").is_none(), "{body}");
        }
    }
    for kind in ["message:send", "message:stream", ":cancel"] {
        assert!(
            rest.iter().any(|(line, _)| line.contains(kind)),
            "no {kind} request over REST 0.3: {}",
            out.explain()
        );
    }
}

#[test]
fn subscriptions_work_over_rest_0_3() {
    // The interop stream suite: input-required streams, follow-ups, and
    // resubscribing to a working and to a completed task.
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::Honest);
    let suite = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/streams.yaml");
    let suite = suite.to_string_lossy();
    let out = check(
        &peer.card_url(),
        &[FORCED, &["--no-default-suite", "--suite", suite.as_ref()]].concat(),
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    for run in [
        "stream-ends-at-input-required",
        "stream-follow-up",
        "subscribe-to-a-working-task",
        "subscribe-to-a-completed-task",
    ] {
        assert_eq!(out.scenario(run), "pass", "{run}: {}", out.explain());
    }
    assert!(
        requests(&out)
            .iter()
            .any(|(line, _)| line.contains("/a2a/rest/v1/tasks/") && line.contains(":subscribe")),
        "{}",
        out.explain()
    );
}

#[test]
fn push_notifications_are_configured_and_delivered_over_rest_0_3() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::Push);
    let out = check(&peer.card_url(), FORCED);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        out.declaration("capabilities.pushNotifications"),
        "honoured",
        "{}",
        out.explain()
    );
    assert!(
        requests(&out)
            .iter()
            .any(|(line, _)| line.contains("/v1/tasks/")
                && line.contains("/pushNotificationConfigs")),
        "{}",
        out.explain()
    );
}

#[test]
fn a_cancel_leak_is_caught_over_rest_0_3() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::CancelLeak);
    let out = check(
        &peer.card_url(),
        &[FORCED, &["--var", "quiet_window=1500ms"]].concat(),
    );
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration("lifecycle.cancel"), "diverged");
    assert_eq!(out.declaration(REST_0_3), "honoured");
}

#[test]
fn a_declared_rest_0_3_interface_that_is_not_served_diverges() {
    let peer = start_peer(ProtocolVersion::V0_3, Behaviour::RestUnserved);
    // The default choice (JSON-RPC) checks the REST interface on its own row.
    let out = check(&peer.card_url(), &["-v"]);
    assert_eq!(out.code, 1, "{}", out.explain());
    assert_eq!(out.declaration(REST_0_3), "diverged", "{}", out.explain());
    assert_eq!(out.declaration("interfaces[JSONRPC 0.3]"), "honoured");
    assert_eq!(out.declaration("capabilities.streaming"), "honoured");
    // Forced onto it, the whole suite meets HTTP 404s: not served, an error
    // of the peer, never a pass.
    let forced = check(&peer.card_url(), FORCED);
    assert_ne!(forced.code, 0, "{}", forced.explain());
    assert_eq!(
        forced.declaration(REST_0_3),
        "diverged",
        "{}",
        forced.explain()
    );
}
