//! Card hygiene as warnings: a card served without `Cache-Control: max-age`
//! or an `ETag` (v1 §8.6.1, SHOULD) earns a card warning in `card` and in
//! every `check` format, and changes no verdict; the mock peer, which sends
//! both, earns none.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::json;

fn bare_card_server() -> Served {
    serve_at(|base| {
        let card = json!({
            "name": "bare", "description": "no caching headers", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": false},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
        });
        axum::Router::new().route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = card.clone();
                async move { axum::Json(card) }
            }),
        )
    })
}

#[test]
fn a_card_without_caching_headers_earns_warnings_not_verdicts() {
    let server = bare_card_server();
    let lint = run(&["card", &server.base_url]);
    assert!(
        lint.stdout.contains("no Cache-Control") || lint.stderr.contains("no Cache-Control"),
        "{}",
        lint.explain()
    );
    let out = check_every_format(&server.base_url, &["--scenario", "signature-verifies"], &[]);
    let warnings = out.report()["peers"][0]["card_warnings"].to_string();
    assert!(warnings.contains("no Cache-Control header"), "{warnings}");
    assert!(warnings.contains("no ETag header"), "{warnings}");
    assert!(
        out.stdout
            .contains("card warning: the card response has no ETag"),
        "{}",
        out.stdout
    );
    let md = out.markdown.as_deref().unwrap_or_default();
    assert!(
        md.contains("card warning: the card response has no Cache-Control"),
        "{md}"
    );
    // Warnings, not verdicts: nothing diverged.
    assert_eq!(out.report()["summary"]["declarations"]["diverged"], 0);
}

#[test]
fn the_mock_peer_sends_both_headers_and_earns_no_caching_warning() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = check(&peer.card_url(), &["--scenario", "unknown-task-get"]);
    let warnings = out.report()["peers"][0]["card_warnings"].to_string();
    assert!(
        !warnings.contains("Cache-Control") && !warnings.contains("ETag"),
        "{warnings}"
    );
}
