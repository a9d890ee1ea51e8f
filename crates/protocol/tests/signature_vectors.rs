//! The card signature vector corpus (fixtures/signatures): every vector's
//! card is canonicalized in both forms and must give the committed bytes,
//! and its first signature must verify (or not) in each form as the
//! manifest says. The manifest and the files are the oracle; the code that
//! made them (`A2A_CONFORM_WRITE_SIGNATURE_VECTORS=1`, below) only writes
//! them, and the check runs on what was written either way.

use a2a_conform_protocol::card::signature::{
    canonical, card_signatures, read_keys, signature_entry, verify, verify_in, Check, Form,
};
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey};
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;
const STD: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/signatures")
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the manifest says of a check: `verified`, `mismatch`, `unverifiable`.
fn outcome(check: &Check) -> &'static str {
    match check {
        Check::Verified { .. } => "verified",
        Check::Mismatch(_) => "mismatch",
        Check::Unverifiable(_) => "unverifiable",
    }
}

/// What the manifest says of the whole verification: the form that
/// verified (`jcs`, `sdk`), else the outcome.
fn result(check: &Check) -> &'static str {
    match check {
        Check::Verified { form, .. } => form.name(),
        other => outcome(other),
    }
}

#[test]
fn every_vector_gives_its_canonical_bytes_and_its_result_in_both_forms() {
    if std::env::var_os("A2A_CONFORM_WRITE_SIGNATURE_VECTORS").is_some() {
        write::corpus(&corpus());
    }
    let dir = corpus();
    let manifest: Value = serde_json::from_slice(&read(&dir.join("manifest.json"))).unwrap();
    let keys_file = manifest["keys"].as_str().unwrap();
    let keys_text = String::from_utf8(read(&dir.join(keys_file))).unwrap();
    let keys = read_keys(keys_file, &keys_text).unwrap();
    let vectors = manifest["vectors"].as_array().unwrap();
    assert!(
        vectors.len() >= 15,
        "the corpus holds {} vectors",
        vectors.len()
    );
    let mut failures = Vec::new();
    for vector in vectors {
        let id = vector["id"].as_str().unwrap();
        let card: Value =
            serde_json::from_slice(&read(&dir.join(vector["card"].as_str().unwrap()))).unwrap();
        let sigs = card_signatures(&card);
        assert!(!sigs.is_empty(), "{id}: the card has no signature");
        for form in Form::ALL {
            let file = dir.join(vector["canonical"][form.name()].as_str().unwrap());
            let bytes = canonical(&card, form).expect("a JCS form");
            if bytes != read(&file) {
                failures.push(format!(
                    "{id}: the {} bytes differ from {}",
                    form.name(),
                    file.display()
                ));
            }
            let got = outcome(&verify_in(&card, &sigs[0], &keys, form));
            let want = vector["expect"][form.name()].as_str().unwrap();
            if got != want {
                failures.push(format!(
                    "{id}: in the {} form {got}, expected {want}",
                    form.name()
                ));
            }
        }
        let got = result(&verify(&card, &sigs[0], &keys));
        let want = vector["expect"]["result"].as_str().unwrap();
        if got != want {
            failures.push(format!("{id}: {got}, expected {want}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_card_tampered_after_signing_diverges_in_both_forms() {
    let dir = corpus();
    let manifest: Value = serde_json::from_slice(&read(&dir.join("manifest.json"))).unwrap();
    let tampered: Vec<&Value> = manifest["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["id"].as_str().unwrap().starts_with("tampered-"))
        .collect();
    assert!(tampered.len() >= 3, "{tampered:?}");
    for vector in tampered {
        for form in ["jcs", "sdk", "result"] {
            assert_eq!(vector["expect"][form], "mismatch", "{vector}");
        }
    }
}

/// The corpus's writer: keys made once (kept when present), cards signed
/// in the form each vector names, then tampered or broken as it says.
mod write {
    use super::*;

    /// The private keys, generated once for this corpus and used for
    /// nothing else: `a` and `e` are in the key set, `b` is not.
    pub(super) struct Keys {
        pub(super) a: Vec<u8>,
        pub(super) b: Vec<u8>,
        pub(super) e: Vec<u8>,
    }

    fn pem(der: &[u8]) -> String {
        let body = STD.encode(der);
        let lines: Vec<&str> = body
            .as_bytes()
            .chunks(64)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            lines.join("\n")
        )
    }

    fn unpem(text: &str) -> Vec<u8> {
        let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
        STD.decode(body).unwrap()
    }

    fn key(dir: &Path, name: &str, make: impl Fn() -> Vec<u8>) -> Vec<u8> {
        let path = dir.join(format!("keys/{name}.pkcs8.pem"));
        if let Ok(text) = std::fs::read_to_string(&path) {
            return unpem(&text);
        }
        let der = make();
        std::fs::write(&path, pem(&der)).unwrap();
        der
    }

    fn keys(dir: &Path) -> Keys {
        std::fs::create_dir_all(dir.join("keys")).unwrap();
        let rng = ring::rand::SystemRandom::new();
        let p256 = || {
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .unwrap()
                .as_ref()
                .to_vec()
        };
        let keys = Keys {
            a: key(dir, "a", p256),
            b: key(dir, "b", p256),
            e: key(dir, "e", || {
                Ed25519KeyPair::generate_pkcs8(&rng)
                    .unwrap()
                    .as_ref()
                    .to_vec()
            }),
        };
        let rng = ring::rand::SystemRandom::new();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &keys.a, &rng).unwrap();
        let (x, y) = pair.public_key().as_ref()[1..].split_at(32);
        let ed = Ed25519KeyPair::from_pkcs8(&keys.e).unwrap();
        let set = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": "a",
             "x": B64.encode(x), "y": B64.encode(y)},
            {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": "e",
             "x": B64.encode(ed.public_key().as_ref())},
        ]});
        let text = serde_json::to_string_pretty(&set).unwrap() + "\n";
        std::fs::write(dir.join("keys/jwks.json"), text).unwrap();
        keys
    }

    /// How a vector's signature entry is made.
    pub(super) enum Entry {
        /// ES256 with key `a` (kid `a`) over this form.
        Es256(Form),
        /// Signed over `form` with `key` and this protected header.
        With(Form, &'static str, Value),
        /// Made by hand from the signed card (and the keys): a reject.
        Raw(fn(&Value, &Keys) -> Value),
    }

    pub(super) struct Vector {
        pub(super) id: &'static str,
        pub(super) description: &'static str,
        pub(super) card: Value,
        pub(super) entry: Entry,
        /// A change made to the card after it was signed.
        pub(super) tamper: Option<fn(&mut Value)>,
        /// `jcs`, `sdk` and `result`, as the manifest says them.
        pub(super) expect: [&'static str; 3],
    }

    fn encoding(keys: &Keys, name: &str) -> (EncodingKey, Algorithm) {
        match name {
            "a" => (EncodingKey::from_ec_der(&keys.a), Algorithm::ES256),
            "b" => (EncodingKey::from_ec_der(&keys.b), Algorithm::ES256),
            "e" => (EncodingKey::from_ed_der(&keys.e), Algorithm::EdDSA),
            other => panic!("no key {other}"),
        }
    }

    /// An ES256 entry with key `a` over the card's JCS form, with `header`.
    pub(super) fn es256_jcs(card: &Value, keys: &Keys, header: Value) -> Value {
        let (key, alg) = encoding(keys, "a");
        signature_entry(card, Form::Jcs, &header, &key, alg).unwrap()
    }

    fn entry(card: &Value, keys: &Keys, how: &Entry) -> Value {
        match how {
            Entry::Es256(form) => {
                let (key, alg) = encoding(keys, "a");
                let header = json!({"alg": "ES256", "typ": "JOSE", "kid": "a"});
                signature_entry(card, *form, &header, &key, alg).unwrap()
            }
            Entry::With(form, name, header) => {
                let (key, alg) = encoding(keys, name);
                signature_entry(card, *form, header, &key, alg).unwrap()
            }
            Entry::Raw(make) => make(card, keys),
        }
    }

    pub(super) fn corpus(dir: &Path) {
        let keys = keys(dir);
        for sub in ["cards", "canonical"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let mut manifest = Vec::new();
        for vector in super::vectors::all() {
            let mut card = vector.card.clone();
            let signed = entry(&card, &keys, &vector.entry);
            card["signatures"] = json!([signed]);
            if let Some(tamper) = vector.tamper {
                tamper(&mut card);
            }
            let id = vector.id;
            let text = serde_json::to_string_pretty(&card).unwrap() + "\n";
            std::fs::write(dir.join(format!("cards/{id}.json")), text).unwrap();
            for form in Form::ALL {
                let name = form.name();
                let bytes = canonical(&card, form).unwrap();
                std::fs::write(dir.join(format!("canonical/{id}.{name}")), bytes).unwrap();
            }
            let [jcs, sdk, result] = vector.expect;
            manifest.push(json!({
                "id": id,
                "description": vector.description,
                "card": format!("cards/{id}.json"),
                "canonical": {"jcs": format!("canonical/{id}.jcs"), "sdk": format!("canonical/{id}.sdk")},
                "expect": {"jcs": jcs, "sdk": sdk, "result": result},
            }));
        }
        let manifest = json!({
            "about": "a2a-conform's card signature vectors: see README.md",
            "keys": "keys/jwks.json",
            "vectors": manifest,
        });
        let text = serde_json::to_string_pretty(&manifest).unwrap() + "\n";
        std::fs::write(dir.join("manifest.json"), text).unwrap();
    }
}

/// The vectors, in groups: what verifies in the spec's form, what only in
/// the SDKs', what was tampered with, and what is refused.
mod vectors {
    use super::write::{es256_jcs, Entry, Vector};
    use super::*;

    pub(super) fn base() -> Value {
        json!({
            "name": "corpus", "description": "a card of the signature corpus", "version": "1.0.0",
            "supportedInterfaces": [{"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true, "pushNotifications": false},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "echo", "name": "Echo", "description": "echoes", "tags": ["echo"]}]
        })
    }

    fn with(change: impl FnOnce(&mut Value)) -> Value {
        let mut card = base();
        change(&mut card);
        card
    }

    fn vector(
        id: &'static str,
        description: &'static str,
        card: Value,
        entry: Entry,
        expect: [&'static str; 3],
    ) -> Vector {
        Vector {
            id,
            description,
            card,
            entry,
            tamper: None,
            expect,
        }
    }

    /// Empty values of every kind the SDKs drop.
    fn empties() -> Value {
        with(|c| {
            c["iconUrl"] = json!("");
            c["documentationUrl"] = Value::Null;
            c["skills"][0]["examples"] = json!([]);
            c["skills"][0]["inputModes"] = json!([""]);
            c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:e", "params": {}}]);
        })
    }

    fn unicode() -> Value {
        with(|c| {
            c["description"] = json!("Grüße, 日本語, 🙂 \u{7f} \"quoted\" \\ tab\t");
            c["skills"][0]["name"] = json!("Écho");
        })
    }

    fn spec_form() -> Vec<Vector> {
        let both = ["verified", "verified", "jcs"];
        vec![
            vector("jcs-minimal", "a card with no empty value, signed over JCS: both forms are the same bytes", base(), Entry::Es256(Form::Jcs), both),
            vector("jcs-unicode", "non-ASCII, a control character and escapes: JCS writes UTF-8, not \\u escapes", unicode(), Entry::Es256(Form::Jcs), both),
            vector("jcs-key-order", "extension params whose keys sort by UTF-16 code units (RFC 8785 §3.2.3)", with(|c| {
                c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:k", "required": true,
                    "params": {"\u{20ac}": "euro", "\r": "cr", "\u{fb33}": "dalet", "1": "one", "\u{1d11e}": "clef", "\u{80}": "ctl", "a": "a"}}]);
            }), Entry::Es256(Form::Jcs), both),
            vector("jcs-numbers", "extension params with numbers JCS writes the ECMAScript way", with(|c| {
                c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:n", "required": true,
                    "params": {"n": [0, -0.0, 1, 1.5, 1e21, 1e-7, 333_333_333.333_333_3, 5e-324, 9007199254740991_i64, -1e-7]}}]);
            }), Entry::Es256(Form::Jcs), both),
            vector("jcs-empties", "empty values, signed over JCS as v1 §8.4 says: the SDK form drops them and does not verify", empties(), Entry::Es256(Form::Jcs), ["verified", "mismatch", "jcs"]),
            vector("jcs-required-false", "an extension's `required: false`, signed over JCS (the SDK form drops it)", with(|c| {
                c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:r", "description": "r", "required": false}]);
            }), Entry::Es256(Form::Jcs), ["verified", "mismatch", "jcs"]),
            vector("eddsa-jcs", "an Ed25519 (EdDSA) signature over JCS, key `e`", base(),
                Entry::With(Form::Jcs, "e", json!({"alg": "EdDSA", "typ": "JOSE", "kid": "e"})), both),
        ]
    }

    fn sdk_form() -> Vec<Vector> {
        let sdk = ["mismatch", "verified", "sdk"];
        vec![
            vector("sdk-empties", "empty values, signed over the SDK form: verifies only there", empties(), Entry::Es256(Form::SdkEmptyRemoved), sdk),
            vector("sdk-required-false", "an extension's `required: false` (proto3, no presence), signed as the SDKs do", with(|c| {
                c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:r", "description": "r", "required": false}]);
            }), Entry::Es256(Form::SdkEmptyRemoved), sdk),
            vector("sdk-pkce-false", "an authorization-code flow's `pkceRequired: false`, signed as the SDKs do", with(|c| {
                c["securitySchemes"] = json!({"oauth": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
                    "authorizationUrl": "https://auth.example/authorize", "tokenUrl": "https://auth.example/token",
                    "scopes": {"read": "read"}, "pkceRequired": false}}}}});
            }), Entry::Es256(Form::SdkEmptyRemoved), sdk),
            vector("sdk-presence-false-kept", "`false` on fields with presence (capabilities) is kept by the SDKs: both forms are the same bytes", with(|c| {
                c["capabilities"]["streaming"] = json!(false);
            }), Entry::Es256(Form::SdkEmptyRemoved), ["verified", "verified", "jcs"]),
            vector("sdk-null", "`null` values, signed over the SDK form", with(|c| {
                c["iconUrl"] = Value::Null;
                c["provider"] = Value::Null;
            }), Entry::Es256(Form::SdkEmptyRemoved), sdk),
            vector("sdk-unicode", "non-ASCII with an empty list, signed over the SDK form: the SDKs (1.3.0) write UTF-8 too, no ensure_ascii escapes", {
                let mut c = unicode();
                c["skills"][0]["examples"] = json!([]);
                c
            }, Entry::Es256(Form::SdkEmptyRemoved), sdk),
        ]
    }

    fn tampered() -> Vec<Vector> {
        let neither = ["mismatch", "mismatch", "mismatch"];
        let tampered = |id, description, card, form, tamper: fn(&mut Value)| Vector {
            id,
            description,
            card,
            entry: Entry::Es256(form),
            tamper: Some(tamper),
            expect: neither,
        };
        vec![
            tampered("tampered-renamed", "signed over JCS, then renamed", base(), Form::Jcs, |c| c["name"] = json!("renamed")),
            tampered("tampered-sdk", "signed over the SDK form, then a skill's description changed", empties(), Form::SdkEmptyRemoved, |c| c["skills"][0]["description"] = json!("changed")),
            tampered("tampered-added-field", "signed over JCS, then a field added", base(), Form::Jcs, |c| c["documentationUrl"] = json!("https://elsewhere.example/")),
            tampered("tampered-emptied", "signed over the SDK form, then a list emptied (the SDK form drops it: still not the card signed)", with(|c| {
                c["skills"][0]["examples"] = json!(["hi"]);
            }), Form::SdkEmptyRemoved, |c| c["skills"][0]["examples"] = json!([])),
            tampered("tampered-required-flipped", "signed over the SDK form with `required: true`, then flipped to false", with(|c| {
                c["capabilities"]["extensions"] = json!([{"uri": "urn:x-corpus:r", "required": true}]);
            }), Form::SdkEmptyRemoved, |c| c["capabilities"]["extensions"][0]["required"] = json!(false)),
        ]
    }

    fn raw(
        id: &'static str,
        description: &'static str,
        make: fn(&Value, &write::Keys) -> Value,
        expect: [&'static str; 3],
    ) -> Vector {
        vector(id, description, base(), Entry::Raw(make), expect)
    }

    fn rejects() -> Vec<Vector> {
        let unverifiable = ["unverifiable", "unverifiable", "unverifiable"];
        let mismatch = ["mismatch", "mismatch", "mismatch"];
        vec![
            vector("wrong-kid", "signed with key `a` under a kid no key has", base(),
                Entry::With(Form::Jcs, "a", json!({"alg": "ES256", "typ": "JOSE", "kid": "not-in-the-set"})), unverifiable),
            vector("wrong-key-same-kid", "signed with key `b` (not in the set) under kid `a`", base(),
                Entry::With(Form::Jcs, "b", json!({"alg": "ES256", "typ": "JOSE", "kid": "a"})), mismatch),
            raw("alg-none", "an unsecured JWS (`alg: none`, empty signature): refused", |_, _| {
                json!({"protected": B64.encode(r#"{"alg":"none","kid":"a"}"#), "signature": ""})
            }, unverifiable),
            raw("alg-hs256", "an HMAC signature: refused (a shared secret proves nothing to a third party)", |card, _| {
                let header = json!({"alg": "HS256", "typ": "JOSE", "kid": "a"});
                signature_entry(card, Form::Jcs, &header, &EncodingKey::from_secret(b"corpus secret"), Algorithm::HS256).unwrap()
            }, unverifiable),
            raw("alg-unknown", "a valid ES256 signature whose header names `ES999`", |card, keys| {
                let mut entry = es256_jcs(card, keys, json!({"alg": "ES256", "typ": "JOSE", "kid": "a"}));
                entry["protected"] = json!(B64.encode(r#"{"alg":"ES999","typ":"JOSE","kid":"a"}"#));
                entry
            }, unverifiable),
            raw("alg-missing", "a protected header without `alg`", |card, keys| {
                es256_jcs(card, keys, json!({"typ": "JOSE", "kid": "a"}))
            }, mismatch),
            raw("bad-base64-protected", "a `protected` that is not base64url", |card, keys| {
                let mut entry = es256_jcs(card, keys, json!({"alg": "ES256", "typ": "JOSE", "kid": "a"}));
                entry["protected"] = json!("eyJ!!!not base64url");
                entry
            }, mismatch),
            raw("bad-base64-signature", "a `signature` that is not base64url", |card, keys| {
                let mut entry = es256_jcs(card, keys, json!({"alg": "ES256", "typ": "JOSE", "kid": "a"}));
                entry["signature"] = json!("not*base64url/at+all");
                entry
            }, mismatch),
            raw("detached-payload-present", "an entry carrying a `payload` (another card's JCS) and a signature over it: the payload is detached, the card as served is what is checked", |_, keys| {
                let other = with(|c| c["name"] = json!("another card"));
                let mut entry = es256_jcs(&other, keys, json!({"alg": "ES256", "typ": "JOSE", "kid": "a"}));
                entry["payload"] = json!(B64.encode(canonical(&other, Form::Jcs).unwrap()));
                entry
            }, mismatch),
            raw("detached-payload-consistent", "an entry carrying a `payload` equal to the card's JCS: ignored, the signature verifies over the card", |card, keys| {
                let mut entry = es256_jcs(card, keys, json!({"alg": "ES256", "typ": "JOSE", "kid": "a"}));
                entry["payload"] = json!(B64.encode(canonical(card, Form::Jcs).unwrap()));
                entry
            }, ["verified", "verified", "jcs"]),
        ]
    }

    pub(super) fn all() -> Vec<Vector> {
        [spec_form(), sdk_form(), tampered(), rejects()]
            .into_iter()
            .flatten()
            .collect()
    }
}
