//! The card: interfaces, legacy layout, caching headers, declared streaming.

use super::support::*;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Value};

#[tokio::test]
async fn v1_card_declares_interfaces_in_order_with_caching_headers() {
    let p = start(ProtocolVersion::V1_0, Behaviour::Honest).await;
    let response = within(WAIT, "card", p.http.get(p.peer.card_url()).send())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert!(headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/json"));
    assert_eq!(headers["cache-control"], "max-age=300");
    let etag = headers["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.len() > 2);
    let card: Value = response.json().await.unwrap();
    let base = p.peer.base_url();
    assert_eq!(base, format!("http://127.0.0.1:{}", p.peer.addr().port()));
    assert_eq!(
        p.peer.card_url(),
        format!("{base}/.well-known/agent-card.json")
    );
    for field in ["name", "description", "version"] {
        assert!(card[field].is_string(), "{field}: {card}");
    }
    let interfaces = card["supportedInterfaces"].as_array().unwrap();
    assert_eq!(interfaces.len(), 2);
    assert_eq!(interfaces[0]["url"], format!("{base}/a2a/jsonrpc"));
    assert_eq!(interfaces[0]["protocolBinding"], "JSONRPC");
    assert_eq!(interfaces[0]["protocolVersion"], "1.0");
    assert_eq!(interfaces[1]["url"], format!("{base}/a2a/rest"));
    assert_eq!(interfaces[1]["protocolBinding"], "HTTP+JSON");
    assert_eq!(
        card["capabilities"],
        json!({"streaming": true, "pushNotifications": false})
    );
    assert_eq!(
        card["defaultInputModes"],
        json!(["text/plain", "application/json"])
    );
    assert_eq!(card["defaultOutputModes"], json!(["text/plain"]));
    assert_eq!(card["skills"][0]["id"], "echo");
    assert!(card["skills"][0]["tags"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    for legacy in ["url", "protocolVersion", "preferredTransport"] {
        assert!(card.get(legacy).is_none(), "no {legacy} in a 1.0 card");
    }
    let again = p
        .http
        .get(p.peer.card_url())
        .header("If-None-Match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);
}

#[tokio::test]
async fn v03_card_uses_the_legacy_layout() {
    let p = start(ProtocolVersion::V0_3, Behaviour::Honest).await;
    let card: Value = p
        .http
        .get(p.peer.card_url())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], format!("{}/a2a/jsonrpc", p.peer.base_url()));
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert!(card.get("supportedInterfaces").is_none());
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(
        card["skills"][0]["inputModes"],
        json!(["text/plain", "application/json"])
    );
    // HTTP+JSON, served below the interface URL's `/v1`.
    let rest = p.peer.rest_url().expect("a v0.3 peer serves HTTP+JSON");
    assert_eq!(rest, format!("{}/a2a/rest", p.peer.base_url()));
    assert_eq!(
        card["additionalInterfaces"],
        json!([{"url": rest, "transport": "HTTP+JSON"}])
    );
}

#[tokio::test]
async fn undeclared_streaming_behaviours_declare_no_streaming() {
    for behaviour in [
        Behaviour::UndeclaredStreaming,
        Behaviour::UndeclaredStreamingRefused,
    ] {
        for version in VERSIONS {
            let p = start(version, behaviour).await;
            let card: Value = p
                .http
                .get(p.peer.card_url())
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(
                card["capabilities"]["streaming"], false,
                "{behaviour} {version}"
            );
        }
    }
}
