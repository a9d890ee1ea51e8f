//! `security.enforced` end to end: the secured mock refuses requests without
//! its token over both bindings, `check` without credentials warns and reads
//! inconclusive instead of diverged, and the token never reaches a report.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};
use std::time::Duration;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
const TOKEN: &str = "s3cret-security-test-token-7f3a";

/// A blocking HTTP request on a throwaway runtime (the peer runs on its own):
/// the status, the `WWW-Authenticate` header, and the body.
fn request(
    method: &str,
    url: &str,
    auth: Option<&str>,
    body: Option<&Value>,
) -> (u16, Option<String>, String) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .expect("client");
        let mut request = match method {
            "POST" => client.post(url),
            _ => client.get(url),
        };
        request = request.header("A2A-Version", "1.0");
        if let Some(body) = body {
            request = request.json(body);
        }
        if let Some(auth) = auth {
            request = request.header("Authorization", auth);
        }
        let response = request.send().await.expect("the peer answers");
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_string());
        (status, challenge, response.text().await.unwrap_or_default())
    })
}

#[test]
fn the_secured_mock_refuses_every_binding_without_its_token_and_keeps_the_card_public() {
    for version in VERSIONS {
        let peer = start_peer_with_token(version, Behaviour::Secured, Some(TOKEN));
        let (status, _, text) = request("GET", &peer.card_url(), None, None);
        assert_eq!(status, 200, "the card answers without credentials");
        let card: Value = serde_json::from_str(&text).expect("card is JSON");
        let (schemes_ok, requirement) = match version {
            ProtocolVersion::V1_0 => (
                card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer",
                &card["securityRequirements"][0]["schemes"]["bearer"],
            ),
            ProtocolVersion::V0_3 => (
                card["securitySchemes"]["bearer"]["type"] == "http",
                &card["security"][0]["bearer"],
            ),
        };
        assert!(schemes_ok && !requirement.is_null(), "{version}: {card:#}");
        let method = match version {
            ProtocolVersion::V1_0 => "GetTask",
            ProtocolVersion::V0_3 => "tasks/get",
        };
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"id": "nope"}});
        let mut urls = vec![("POST", peer.peer.jsonrpc_url(), Some(&body))];
        if let Some(rest) = peer.peer.rest_url() {
            urls.push(("GET", format!("{rest}/tasks/nope"), None));
        }
        for (verb, url, body) in urls {
            for auth in [None, Some("Bearer wrong-token"), Some("Basic Zm9vOmJhcg==")] {
                let (status, challenge, _) = request(verb, &url, auth, body);
                assert_eq!(status, 401, "{version} {url} with {auth:?}");
                let challenge = challenge.expect("a WWW-Authenticate challenge");
                assert!(challenge.starts_with("Bearer"), "{challenge}");
            }
            // With the token the request reaches the operation: -32001 / HTTP 404.
            let (status, challenge, text) =
                request(verb, &url, Some(&format!("Bearer {TOKEN}")), body);
            assert!(status == 200 || status == 404, "{version} {url}: {status}");
            assert!(challenge.is_none());
            assert!(
                text.contains("nope") || text.contains("32001") || text.contains("NOT_FOUND"),
                "{text}"
            );
        }
    }
}

#[test]
fn the_unenforced_mock_declares_security_and_serves_without_credentials() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::SecurityUnenforced);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}});
    let (status, _, text) = request("POST", &peer.peer.jsonrpc_url(), None, Some(&body));
    assert_eq!(status, 200);
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["error"]["code"], -32001, "{answer}");
}

#[test]
fn check_without_credentials_warns_and_reads_inconclusive_not_diverged() {
    for version in VERSIONS {
        let peer = start_peer(version, Behaviour::Secured);
        let out = check(&peer.card_url(), &[]);
        let report = &out.report()["peers"][0];
        let warnings: Vec<&str> = report["card_warnings"]
            .as_array()
            .map(|w| w.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("requires credentials") && w.contains("--bearer-env")),
            "{version}: {warnings:?}"
        );
        assert!(
            out.stdout
                .contains("card warning: the card requires credentials"),
            "{}",
            out.stdout
        );
        // The probes need no credentials: enforcement is verified all the same.
        assert_eq!(
            out.scenario("security-enforced"),
            "pass",
            "{}",
            out.explain()
        );
        assert_eq!(out.declaration("security.enforced"), "honoured");
        // Everything else was refused before it could be checked: unverified,
        // never a divergence the peer did not commit.
        for id in [
            "capabilities.streaming",
            "lifecycle.cancel",
            "lifecycle.completion",
            "defaultInputModes[text/plain]",
        ] {
            assert_eq!(
                out.declaration(id),
                "unverified",
                "{version} {id}: {}",
                out.explain()
            );
        }
        let run = out.run("completion-stability");
        assert_eq!(run["verdict"], "inconclusive");
        let message = run["message"].as_str().unwrap();
        assert!(
            message.contains("HTTP 401") && message.contains("no credentials were given"),
            "{message}"
        );
        assert!(!out.stdout.contains(" diverged "), "{}", out.stdout);
        assert_eq!(out.report()["summary"]["declarations"]["diverged"], 0);
        assert_eq!(out.code, 0, "{}", out.explain());
    }
}

#[test]
fn a_wrong_token_reads_inconclusive_and_says_the_credentials_were_not_accepted() {
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(TOKEN));
    let out = check_env(
        &peer.card_url(),
        &[
            "--bearer-env",
            "PEER_TOKEN",
            "--scenario",
            "completion-stability",
        ],
        &[("PEER_TOKEN", "not-the-right-token")],
    );
    let run = out.run("completion-stability");
    assert_eq!(run["verdict"], "inconclusive", "{}", out.explain());
    assert!(
        run["message"]
            .as_str()
            .unwrap()
            .contains("configured credentials were not accepted"),
        "{run:#}"
    );
    assert_eq!(out.code, 4, "nothing was verified: {}", out.explain());
}

#[test]
fn the_token_never_appears_in_any_report_nor_in_the_probes_evidence() {
    for (behaviour, version) in [
        (Behaviour::Secured, ProtocolVersion::V1_0),
        (Behaviour::SecurityUnenforced, ProtocolVersion::V1_0),
        (Behaviour::SecurityUnenforced, ProtocolVersion::V0_3),
    ] {
        let peer = start_peer_with_token(version, behaviour, Some(TOKEN));
        let dir = tempfile::tempdir().unwrap();
        let junit = dir.path().join("report.xml");
        let markdown = dir.path().join("report.md");
        let out = check_env(
            &peer.card_url(),
            &[
                "--bearer-env",
                "PEER_TOKEN",
                "--junit",
                junit.to_str().unwrap(),
                "--markdown",
                markdown.to_str().unwrap(),
                "-v",
            ],
            &[("PEER_TOKEN", TOKEN)],
        );
        let cell = format!("{behaviour} × {version}");
        let json = serde_json::to_string(out.report()).unwrap();
        let junit = std::fs::read_to_string(&junit).expect("JUnit written");
        let markdown = std::fs::read_to_string(&markdown).expect("Markdown written");
        for (format, text) in [
            ("json", &json),
            ("junit", &junit),
            ("markdown", &markdown),
            ("human", &out.stdout),
            ("stderr", &out.stderr),
        ] {
            assert!(
                !text.contains(TOKEN),
                "{cell}: the token is in the {format} report"
            );
        }
        if behaviour == Behaviour::Secured {
            assert_eq!(
                out.declaration("security.enforced"),
                "honoured",
                "{}",
                out.explain()
            );
            continue;
        }
        // The unenforced peer served both probes: the failure keeps their evidence.
        assert_eq!(
            out.declaration("security.enforced"),
            "diverged",
            "{}",
            out.explain()
        );
        let run = out.run("security-enforced");
        assert!(
            run["message"]
                .as_str()
                .unwrap()
                .starts_with("a request without credentials was answered completed"),
            "{cell}: {run:#}"
        );
        let evidence = run["evidence"].as_array().expect("evidence");
        let requests: Vec<&Value> = evidence.iter().filter(|e| e["kind"] == "request").collect();
        assert!(!requests.is_empty(), "{cell}: {evidence:#?}");
        let first = requests[0]["summary"].as_str().unwrap();
        assert!(
            first.contains("[credentials: none; withheld: authorization]"),
            "{cell}: {first}"
        );
        let curl = requests[0]["curl"].as_str().unwrap();
        assert!(
            !curl.to_ascii_lowercase().contains("authorization"),
            "{cell}: {curl}"
        );
        for entry in evidence {
            let text = entry.to_string();
            assert!(!text.contains(TOKEN), "{cell}: {text}");
            assert!(
                !text.contains("redacted"),
                "{cell}: nothing secret was sent: {text}"
            );
        }
    }
}

#[test]
fn the_invalid_probe_sends_a_made_up_token_and_records_it_as_such() {
    let suite = r#"
scenarios:
  - id: forged-only
    title: A made-up token is refused
    verifies: [security.enforced]
    steps:
      - send: { as: forged, credentials: invalid }
      - expect: { of: forged, http_status: [403], fail: "forged answered ${forged.http_status}" }
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("forged.yaml");
    std::fs::write(&path, suite).unwrap();
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(TOKEN));
    let out = check_env(
        &peer.card_url(),
        &[
            "--no-default-suite",
            "--suite",
            path.to_str().unwrap(),
            "--bearer-env",
            "PEER_TOKEN",
        ],
        &[("PEER_TOKEN", TOKEN)],
    );
    // The mock answers 401, not 403: the condition names the status exactly.
    let run = out.run("forged-only");
    assert_eq!(run["verdict"], "fail", "{}", out.explain());
    assert_eq!(run["message"], "forged answered HTTP 401");
    let evidence = run["evidence"].as_array().unwrap();
    let request = evidence.iter().find(|e| e["kind"] == "request").unwrap();
    assert!(
        request["summary"]
            .as_str()
            .unwrap()
            .contains("[credentials: invalid, a made-up bearer token; withheld: authorization]"),
        "{request:#}"
    );
    let curl = request["curl"].as_str().unwrap();
    assert!(curl.contains("Bearer a2a-conform-invalid-"), "{curl}");
    let response = evidence.iter().find(|e| e["kind"] == "response").unwrap();
    assert!(
        response["summary"]
            .as_str()
            .unwrap()
            .starts_with("← HTTP 401"),
        "{response:#}"
    );
    assert!(!evidence.iter().any(|e| e.to_string().contains(TOKEN)));
}
