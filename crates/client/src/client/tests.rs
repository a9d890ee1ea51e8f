//! Tests of the peer client: credentials, reproductions, version overrides,
//! refusals.

use super::*;

#[test]
fn credentials_read_back_from_their_names() {
    use strum::VariantArray;
    for &c in Credentials::VARIANTS {
        let read: Credentials = serde_json::from_value(json!(c.as_str())).unwrap();
        assert_eq!(read, c);
    }
    assert_eq!(Credentials::Configured.as_str(), "configured");
}

#[test]
fn reproductions_carry_the_content_type_actually_sent() {
    let endpoint = url::Url::parse("http://127.0.0.1:9/a2a").unwrap();
    let transcript = Transcript::new(Arc::new(Redactor::default()));
    for (binding, wanted) in [
        (Binding::Jsonrpc, "-H 'Content-Type: application/json'"),
        (Binding::Rest, "-H 'Content-Type: application/a2a+json'"),
    ] {
        let client = PeerClient::new(
            endpoint.clone(),
            ProtocolVersion::V1_0,
            binding,
            ClientConfig::default(),
        )
        .unwrap();
        let request = client
            .prepare(
                &Transcript::new(Arc::new(Redactor::default())),
                Operation::SendMessage,
                json!({"message": {}}),
                false,
                &CallOptions::default(),
            )
            .unwrap_or_else(|_| panic!("{binding} prepares"));
        client.record_request(&transcript, &request);
        let curl = transcript.entries().last().unwrap().curl.clone().unwrap();
        assert!(curl.contains(wanted), "{binding}: {curl}");
    }
}

#[test]
fn a_version_override_replaces_the_header_and_shows_in_the_reproduction() {
    let endpoint = url::Url::parse("http://127.0.0.1:9/a2a").unwrap();
    let transcript = Transcript::new(Arc::new(Redactor::default()));
    let client = PeerClient::new(
        endpoint,
        ProtocolVersion::V1_0,
        Binding::Jsonrpc,
        ClientConfig::default(),
    )
    .unwrap();
    let version = |v: &str| CallOptions {
        a2a_version: Some(v.to_string()),
        ..CallOptions::default()
    };
    let request = client
        .prepare(
            &Transcript::new(Arc::new(Redactor::default())),
            Operation::SendMessage,
            json!({}),
            false,
            &version("0.5"),
        )
        .unwrap_or_else(|_| panic!("prepares"));
    assert_eq!(request.headers.get_all("a2a-version").iter().count(), 1);
    assert_eq!(request.headers["a2a-version"], "0.5");
    client.record_request(&transcript, &request);
    let curl = transcript.entries().last().unwrap().curl.clone().unwrap();
    assert!(curl.contains("a2a-version: 0.5"), "{curl}");
    assert!(!curl.contains("a2a-version: 1.0"), "{curl}");
    assert!(matches!(
        client.prepare(
            &Transcript::new(Arc::new(Redactor::default())),
            Operation::SendMessage,
            json!({}),
            false,
            &version("bad\nvalue")
        ),
        Err(Reply::Broken(_))
    ));
}

#[test]
fn credentials_none_and_invalid_leave_the_configured_ones_out() {
    let endpoint = url::Url::parse("http://127.0.0.1:9/a2a").unwrap();
    let secret = "s3cr3t-bearer-value";
    let redactor = Redactor::new(vec![secret.to_string(), "k3y-value".into()]);
    let transcript = Transcript::new(Arc::new(redactor));
    let client = PeerClient::new(
        endpoint,
        ProtocolVersion::V1_0,
        Binding::Jsonrpc,
        ClientConfig {
            headers: vec![
                ("X-API-Key".into(), "k3y-value".into()),
                ("X-Auth-Token".into(), "auth-t0ken".into()),
                ("X-Trace".into(), "t1".into()),
            ],
            bearer: Some(("TOKEN_VAR".into(), secret.into())),
            public_headers: vec!["x-trace".into()],
            ..ClientConfig::default()
        },
    )
    .unwrap();
    let prepare = |credentials| {
        let options = CallOptions {
            a2a_version: Some("0.5".into()),
            credentials,
            ..CallOptions::default()
        };
        client
            .prepare(
                &Transcript::new(Arc::new(Redactor::default())),
                Operation::SendMessage,
                json!({}),
                false,
                &options,
            )
            .unwrap_or_else(|_| panic!("prepares"))
    };
    let configured = prepare(Credentials::Configured);
    assert_eq!(
        configured.headers["authorization"],
        "Bearer s3cr3t-bearer-value"
    );
    assert_eq!(configured.headers["x-api-key"], "k3y-value");
    let none = prepare(Credentials::None);
    assert!(none.headers.get("authorization").is_none());
    assert!(none.headers.get("x-api-key").is_none());
    assert!(
        none.headers.get("x-auth-token").is_none(),
        "every header is a credential, not only well-known names"
    );
    assert_eq!(none.headers["x-trace"], "t1", "a public header stays");
    assert_eq!(
        none.headers["a2a-version"], "0.5",
        "the version override stays"
    );
    let invalid = prepare(Credentials::Invalid);
    let forged = invalid.headers["authorization"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        forged.starts_with("Bearer a2a-conform-invalid-"),
        "{forged}"
    );
    assert!(invalid.headers.get("x-api-key").is_none());
    for request in [&configured, &none, &invalid] {
        client.record_request(&transcript, request);
    }
    let entries = transcript.entries();
    let text = serde_json::to_string(&entries).unwrap();
    assert!(
        !text.contains(secret) && !text.contains("k3y-value"),
        "{text}"
    );
    assert!(entries[0]
        .curl
        .as_ref()
        .unwrap()
        .contains("Bearer $TOKEN_VAR"));
    assert!(entries[0]
        .curl
        .as_ref()
        .unwrap()
        .contains(&format!("x-auth-token: {}", Redactor::MASK)));
    assert!(entries[0].curl.as_ref().unwrap().contains("x-trace: t1"));
    assert!(entries[1]
        .summary
        .contains("[credentials: none; withheld: authorization, x-api-key, x-auth-token]"));
    assert!(!entries[1].curl.as_ref().unwrap().contains("uthorization"));
    assert!(entries[2].summary.contains("[credentials: invalid"));
    assert!(
        entries[2].curl.as_ref().unwrap().contains(&forged),
        "the line reproduces"
    );
}

#[test]
fn http_401_and_403_are_refusals_whatever_the_body() {
    let endpoint = url::Url::parse("http://127.0.0.1:9/a2a").unwrap();
    for binding in [Binding::Jsonrpc, Binding::Rest] {
        let client = PeerClient::new(
            endpoint.clone(),
            ProtocolVersion::V1_0,
            binding,
            ClientConfig::default(),
        )
        .unwrap();
        let body = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}"#;
        assert!(matches!(
            client.classify(Some(1), 401, "application/json", body, Some("Bearer".into())),
            Reply::Refused { status: 401, detail } if detail.contains("WWW-Authenticate: Bearer")
        ));
        assert!(matches!(
            client.classify(Some(1), 403, "application/json", b"", None),
            Reply::Refused { status: 403, detail } if detail == "no WWW-Authenticate header"
        ));
        assert!(!matches!(
            client.classify(Some(1), 400, "application/json", body, None),
            Reply::Refused { .. }
        ));
    }
}

#[test]
fn the_card_s_required_extensions_go_in_the_version_s_header_unless_withheld() {
    let endpoint = url::Url::parse("http://127.0.0.1:9/a2a").unwrap();
    for (version, header) in [
        (ProtocolVersion::V1_0, "a2a-extensions"),
        (ProtocolVersion::V0_3, "x-a2a-extensions"),
    ] {
        let config = ClientConfig {
            extensions: vec!["urn:ext:a".into(), "urn:ext:b".into()],
            ..ClientConfig::default()
        };
        let client = PeerClient::new(endpoint.clone(), version, Binding::Jsonrpc, config).unwrap();
        let headers = |extensions: Extensions| {
            let options = CallOptions {
                extensions,
                ..CallOptions::default()
            };
            client
                .prepare(
                    &Transcript::new(Arc::new(Redactor::default())),
                    Operation::SendMessage,
                    json!({}),
                    false,
                    &options,
                )
                .unwrap_or_else(|_| panic!("prepares"))
                .headers
        };
        assert_eq!(
            headers(Extensions::Configured)[header],
            "urn:ext:a, urn:ext:b"
        );
        assert_eq!(
            headers(Extensions::Also(vec![
                "urn:ext:c".into(),
                "urn:ext:a".into()
            ]))[header],
            "urn:ext:a, urn:ext:b, urn:ext:c"
        );
        assert!(headers(Extensions::Without).get(header).is_none());
    }
}

/// A GetTask that gets HTTP 500 from `behaviour`, then a blocking send on
/// the same client: how the send ended, and its transcript.
async fn send_after_a_500(behaviour: a2a_conform_mock::Behaviour) -> (Reply, Vec<crate::Record>) {
    use a2a_conform_mock::{MockConfig, MockPeer};
    let peer = MockPeer::start(MockConfig {
        behaviour,
        ..MockConfig::default()
    })
    .await
    .unwrap();
    let endpoint = peer.jsonrpc_url().parse().unwrap();
    let client = PeerClient::new(
        endpoint,
        ProtocolVersion::V1_0,
        Binding::Jsonrpc,
        ClientConfig::default(),
    )
    .unwrap();
    let first = Transcript::new(Arc::new(Redactor::default()));
    let unknown = client
        .call(&first, Operation::GetTask, json!({"id": "no-such-task"}))
        .await;
    let transcript = Transcript::new(Arc::new(Redactor::default()));
    let version = client.version;
    let message = version.message(
        &[a2a_conform_protocol::MessagePart::Text("hello".into())],
        "m-after-500",
        None,
        None,
    );
    let reply = client
        .call(
            &transcript,
            Operation::SendMessage,
            version.send_params(message, true),
        )
        .await;
    peer.shutdown().await;
    let broke = matches!(&unknown, Reply::Broken(r) if r.contains("HTTP 500"));
    assert_eq!(
        broke,
        behaviour == a2a_conform_mock::Behaviour::CloseAfter500,
        "{unknown:?}"
    );
    (reply, transcript.take_entries())
}

#[tokio::test]
async fn a_kept_alive_connection_reset_after_a_500_is_sent_once_more_on_a_fresh_one() {
    let (reply, records) = send_after_a_500(a2a_conform_mock::Behaviour::CloseAfter500).await;
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    let notes: Vec<&str> = records
        .iter()
        .filter(|r| r.kind == RecordKind::Note)
        .map(|r| r.summary.as_str())
        .collect();
    assert_eq!(notes.len(), 1, "{records:?}");
    assert!(
        notes[0].contains("sent once more on a fresh connection")
            && notes[0].contains("same messageId"),
        "{}",
        notes[0]
    );
    // One request recorded, one answer: the retry is the same request.
    let requests = records.iter().filter(|r| r.kind == RecordKind::Request);
    assert_eq!(requests.count(), 1, "{records:?}");
}

#[tokio::test]
async fn the_honest_peer_keeps_its_connection_and_nothing_is_sent_twice() {
    let (reply, records) = send_after_a_500(a2a_conform_mock::Behaviour::Honest).await;
    assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
    assert!(
        records.iter().all(|r| r.kind != RecordKind::Note),
        "{records:?}"
    );
}

#[test]
fn only_a_loopback_answer_can_be_a_replay_miss() {
    let at = |u: &str| from_loopback(&url::Url::parse(u).expect("a URL"));
    assert!(at("http://127.0.0.1:9/rpc"));
    assert!(at("http://[::1]:9/rpc"));
    assert!(at("http://LOCALHOST:9/rpc"));
    assert!(!at("https://peer.example.com/rpc"));
    assert!(!at("http://10.0.0.1/rpc"));
}
