//! Card signatures end to end: a card signed in the test with a generated
//! key whose `jku` names a JWK set on the same loopback server verifies
//! without any --trusted-key, and the key set is fetched without the
//! credentials the check was given; a tampered copy diverges; a signed card
//! with no key anywhere reads unverified; a `jku` served over HTTPS by the
//! mock's throwaway CA is trusted through `--cacert`, and only through it.
//! A row honoured says which canonical form verified: the spec's RFC 8785
//! form, or only the official SDKs' (honoured with a warning, diverged
//! under `--strict`). The `sdk_` tests sign cards with the pinned SDKs' own
//! signers and check the form we predict, and that their canonical form of
//! every card of the vector corpus (fixtures/signatures) is ours byte for byte.

use crate::common::*;
use a2a_conform_mock::{MockPki, MockTls};
use a2a_conform_protocol::card::signature::{canonical, generate_es256, sign_es256, Form};
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

/// The reason of a declaration row of the first peer.
fn reason(out: &Outcome, id: &str) -> String {
    let rows = out.report()["peers"][0]["declarations"].as_array().unwrap();
    rows.iter()
        .find(|d| d["id"] == id)
        .and_then(|d| d["reason"].as_str())
        .unwrap_or_else(|| panic!("no declaration {id}: {}", out.explain()))
        .to_string()
}

/// Serves `card` (its interfaces naming the server) as the agent card.
fn serve_card(card: impl FnOnce(&str) -> Value) -> Served {
    serve_at(move |base| {
        let card = card(base);
        axum::Router::new().route(
            "/.well-known/agent-card.json",
            get(move || {
                let card = card.clone();
                async move { axum::Json(card) }
            }),
        )
    })
}

/// `card` with empty values the SDKs drop before signing: an empty icon
/// URL, an empty list, an extension's `required: false` and empty params.
fn with_empties(base: &str) -> Value {
    let mut card = card(base);
    card["iconUrl"] = json!("");
    card["skills"][0]["examples"] = json!([]);
    card["capabilities"]["extensions"] =
        json!([{"uri": "urn:x-test:e", "required": false, "params": {}}]);
    card
}

/// A peer serving a card with empty values, signed over `form` with a key
/// whose JWK is written to the returned directory's `key.jwk`.
fn signed_over(form: Form) -> (Served, tempfile::TempDir) {
    let (pkcs8, jwk) = generate_es256("k1").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key.jwk"), jwk.to_string()).unwrap();
    let served = serve_card(move |base| {
        let mut card = with_empties(base);
        // JCS of the card's `form` is that form's bytes again: signing it
        // over JCS signs the card in `form`.
        let mut signed: Value = serde_json::from_slice(&canonical(&card, form).unwrap()).unwrap();
        sign_es256(&mut signed, &pkcs8, "k1", None).unwrap();
        card["signatures"] = signed["signatures"].clone();
        card
    });
    (served, dir)
}

fn check_with_key(base: &str, key_dir: &std::path::Path, extra: &[&str]) -> Outcome {
    let key = key_dir.join("key.jwk").display().to_string();
    let mut args = vec![
        "check",
        base,
        "--scenario",
        "signature-verifies",
        "--trusted-key",
        &key,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

const SPEC_FORM: &str = "verified over the RFC 8785 (JCS) form";
const SDK_ONLY: &str =
    "verified only over the SDK form (empty values removed), not the spec's RFC 8785 (JCS) form";

#[test]
fn a_row_honoured_over_the_spec_form_says_so() {
    // The honest pair of the SDK-only row: the same card with empty values,
    // signed as v1 §8.4 says, reads the spec's form and no warning.
    let (peer, key) = signed_over(Form::Jcs);
    let out = check_with_key(&peer.base_url, key.path(), &[]);
    assert_eq!(
        out.declaration("signatures[k1]"),
        "honoured",
        "{}",
        out.explain()
    );
    let why = reason(&out, "signatures[k1]");
    assert!(why.contains(SPEC_FORM) && !why.contains("SDK"), "{why}");
    assert!(
        !out.report().to_string().contains("warning: signature"),
        "{}",
        out.explain()
    );
}

#[test]
fn a_row_honoured_only_over_the_sdk_form_says_so_and_diverges_under_strict() {
    let (peer, key) = signed_over(Form::SdkEmptyRemoved);
    let out = check_with_key(&peer.base_url, key.path(), &[]);
    assert_eq!(
        out.declaration("signatures[k1]"),
        "honoured",
        "{}",
        out.explain()
    );
    let why = reason(&out, "signatures[k1]");
    assert!(why.contains(SDK_ONLY), "{why}");
    assert_eq!(out.code, 0, "{}", out.explain());

    let strict = check_with_key(&peer.base_url, key.path(), &["--strict"]);
    assert_eq!(
        strict.declaration("signatures[k1]"),
        "diverged",
        "{}",
        strict.explain()
    );
    let why = reason(&strict, "signatures[k1]");
    assert!(
        why.contains("not over the RFC 8785 (JCS) form") && why.contains("--strict"),
        "{why}"
    );
    assert_eq!(strict.code, 1, "{}", strict.explain());
}

/// The pinned SDKs, installed by tests/interop/setup.sh (as interop.rs does).
mod sdk {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    fn interop() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop")
    }

    /// Runs an SDK's signing script with `args`; its stdout as JSON.
    fn script(python: bool, args: &[&str]) -> Value {
        crate::interop::ensure_sdks();
        let dir = interop();
        let mut command = if python {
            let mut c = Command::new(dir.join("python/.venv/bin/python"));
            c.arg(dir.join("python/sign_card.py"));
            c
        } else {
            let mut c = Command::new("node");
            c.arg(dir.join("js/sign-card.mjs"));
            c
        };
        let out = command
            .args(args)
            .output()
            .expect("the SDK's script starts");
        assert!(
            out.status.success(),
            "{args:?}: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("the script prints JSON")
    }

    /// Every corpus card's SDK form, as the SDK makes it, is our SDK form.
    fn assert_canonical_forms_agree(python: bool) {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/signatures");
        let manifest = corpus.join("manifest.json").display().to_string();
        let theirs = script(python, &["--canonical", &manifest]);
        let theirs = theirs.as_object().unwrap();
        assert!(theirs.len() >= 15, "{theirs:?}");
        for (id, form) in theirs {
            let ours = std::fs::read(corpus.join(format!("canonical/{id}.sdk"))).unwrap();
            assert_eq!(form.as_str().unwrap().as_bytes(), ours, "{id}");
        }
    }

    /// Two cards signed by the SDK: one with no empty value (its forms are
    /// the same bytes: the spec's form verifies), one with empty values
    /// kept as served (only the SDK form verifies).
    fn assert_signed_cards_verify_as_predicted(python: bool, plain: &str, empty: &str) {
        let dir = tempfile::tempdir().unwrap();
        // The card's URL is a placeholder: the scenario reads only the card.
        let cards = [
            card("http://127.0.0.1:9"),
            with_empties("http://127.0.0.1:9"),
        ];
        let mut paths = Vec::new();
        for (i, card) in cards.iter().enumerate() {
            let path = dir.path().join(format!("card{i}.json"));
            std::fs::write(&path, card.to_string()).unwrap();
            paths.push(path.display().to_string());
        }
        let args: Vec<&str> = paths.iter().map(String::as_str).collect();
        let signed = script(python, &args);
        std::fs::write(dir.path().join("key.jwk"), signed["jwk"].to_string()).unwrap();
        let kid = signed["jwk"]["kid"].as_str().unwrap().to_string();
        let row = format!("signatures[{kid}]");
        for (signed_card, want) in signed["cards"]
            .as_array()
            .unwrap()
            .iter()
            .zip([plain, empty])
        {
            let signed_card = signed_card.clone();
            let peer = serve_card(move |_| signed_card);
            let out = check_with_key(&peer.base_url, dir.path(), &[]);
            assert_eq!(out.declaration(&row), "honoured", "{}", out.explain());
            let why = reason(&out, &row);
            assert!(why.contains(want), "{want}: {why}");
        }
    }

    #[test]
    fn sdk_python_signer_cards_verify_over_the_predicted_form() {
        assert_canonical_forms_agree(true);
        // The SDK serves a card through `MessageToDict`, which drops its
        // proto3 defaults, but keeps the extension's empty `params`: that
        // card verifies only over the SDK form.
        assert_signed_cards_verify_as_predicted(true, SPEC_FORM, SDK_ONLY);
    }

    #[test]
    fn sdk_js_signer_cards_verify_over_the_predicted_form() {
        assert_canonical_forms_agree(false);
        // The JS signer returns the card as given, empty values included.
        assert_signed_cards_verify_as_predicted(false, SPEC_FORM, SDK_ONLY);
    }
}
