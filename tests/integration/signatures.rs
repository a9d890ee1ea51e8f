//! Card signatures end to end: a card signed in the test with a generated
//! key whose `jku` names a JWK set on the same loopback server verifies
//! without any --trusted-key, and the key set is fetched without the
//! credentials the check was given; a tampered copy diverges; a signed card
//! with no key anywhere reads unverified; a `jku` served over HTTPS by the
//! mock's throwaway CA is trusted through `--cacert`, and only through it.

use crate::common::*;
use a2a_conform_mock::{MockPki, MockTls};
use a2a_conform_protocol::card::signature::{generate_es256, sign_es256};
use axum::http::HeaderMap;
use axum::routing::get;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn card(base: &str) -> Value {
    json!({
        "name": "signed", "description": "a signed card", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
    })
}

/// Serves a signed card (changed after signing when `tamper`), and its key
/// set at `/jwks.json` when `with_jku`; records the key set requests' headers.
fn signed_peer(tamper: bool, with_jku: bool) -> (Served, Arc<Mutex<Vec<HeaderMap>>>) {
    let seen: Arc<Mutex<Vec<HeaderMap>>> = Arc::default();
    let log = seen.clone();
    let served = serve_at(move |base| {
        let (pkcs8, jwk) = generate_es256("k1").unwrap();
        let mut card = card(base);
        let jku = format!("{base}/jwks.json");
        sign_es256(&mut card, &pkcs8, "k1", with_jku.then_some(jku.as_str())).unwrap();
        if tamper {
            card["name"] = json!("signed, then renamed");
        }
        let set = json!({"keys": [jwk]});
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                get(move || {
                    let card = card.clone();
                    async move { axum::Json(card) }
                }),
            )
            .route(
                "/jwks.json",
                get(move |headers: HeaderMap| {
                    log.lock().unwrap().push(headers);
                    let set = set.clone();
                    async move { axum::Json(set) }
                }),
            )
    });
    (served, seen)
}

fn check_signatures(base: &str) -> Outcome {
    run_env(
        &[
            "check",
            base,
            "--scenario",
            "signature-verifies",
            "--bearer-env",
            "SIG_TOKEN",
            "--header",
            "X-Api-Key: sig-header-secret",
        ],
        &[("SIG_TOKEN", "sig-bearer-secret")],
    )
}

#[test]
fn a_signature_verifies_against_its_jku_fetched_without_credentials() {
    let (peer, seen) = signed_peer(false, true);
    let out = check_signatures(&peer.base_url);
    assert_eq!(
        out.declaration("signatures[k1]"),
        "honoured",
        "{}",
        out.explain()
    );
    let requests = seen.lock().unwrap();
    assert_eq!(requests.len(), 1, "the key set is fetched once");
    for headers in requests.iter() {
        assert!(headers.get("authorization").is_none(), "{headers:?}");
        assert!(headers.get("x-api-key").is_none(), "{headers:?}");
    }
}

#[test]
fn a_tampered_card_diverges_on_its_signature() {
    let (peer, _) = signed_peer(true, true);
    let out = check_signatures(&peer.base_url);
    assert_eq!(
        out.declaration("signatures[k1]"),
        "diverged",
        "{}",
        out.explain()
    );
    assert_eq!(out.code, 1, "{}", out.explain());
}

#[test]
fn a_signature_no_key_can_check_is_unverified() {
    let (peer, seen) = signed_peer(false, false);
    let out = check_signatures(&peer.base_url);
    assert_eq!(
        out.declaration("signatures[k1]"),
        "unverified",
        "{}",
        out.explain()
    );
    assert!(seen.lock().unwrap().is_empty());
}

/// A card on plain HTTP whose signature's `jku` is a key set served over
/// HTTPS with the mock's CA (`mock-peer --tls`): the card is fetched either
/// way, so only the key set's fetch depends on the trust given.
struct TlsKeySet {
    card: Served,
    _keys: tokio::runtime::Runtime,
    dir: tempfile::TempDir,
    requests: Arc<Mutex<usize>>,
}

fn tls_key_set() -> TlsKeySet {
    let pki = MockPki::generate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    pki.write_to(dir.path()).unwrap();
    let tls = MockTls {
        pki: Arc::new(pki),
        require_client_cert: false,
    };
    let (pkcs8, jwk) = generate_es256("k1").unwrap();
    let requests: Arc<Mutex<usize>> = Arc::default();
    let count = requests.clone();
    let keys = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let jku = keys.block_on(async move {
        let tcp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let jku = format!("https://{}/jwks.json", tcp.local_addr().unwrap());
        let set = json!({"keys": [jwk]});
        let app = axum::Router::new().route(
            "/jwks.json",
            get(move || {
                *count.lock().unwrap() += 1;
                let set = set.clone();
                async move { axum::Json(set) }
            }),
        );
        let listener = tls.listener(tcp).unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        jku
    });
    assert!(jku.starts_with("https://127.0.0.1:"), "{jku}");
    let card = serve_at(move |base| {
        let mut card = card(base);
        sign_es256(&mut card, &pkcs8, "k1", Some(&jku)).unwrap();
        axum::Router::new().route(
            "/.well-known/agent-card.json",
            get(move || {
                let card = card.clone();
                async move { axum::Json(card) }
            }),
        )
    });
    TlsKeySet {
        card,
        _keys: keys,
        dir,
        requests,
    }
}

#[test]
fn a_jku_over_tls_verifies_with_the_cacert_the_check_was_given() {
    let set = tls_key_set();
    let ca = set.dir.path().join("ca.pem").display().to_string();
    let base = &set.card.base_url;
    let without = run(&["check", base, "--scenario", "signature-verifies"]);
    assert_eq!(
        without.declaration("signatures[k1]"),
        "unverified",
        "{}",
        without.explain()
    );
    let report = without.report().to_string();
    assert!(
        report.contains("not trusted") && report.contains("--cacert"),
        "the key set's certificate is named as untrusted: {report}"
    );
    assert_eq!(*set.requests.lock().unwrap(), 0, "no handshake completed");

    let with = run(&[
        "check",
        base,
        "--scenario",
        "signature-verifies",
        "--cacert",
        &ca,
    ]);
    assert_eq!(
        with.declaration("signatures[k1]"),
        "honoured",
        "{}",
        with.explain()
    );
    assert_eq!(with.code, 0, "{}", with.explain());
    assert_eq!(
        *set.requests.lock().unwrap(),
        1,
        "the key set is fetched once"
    );
}
