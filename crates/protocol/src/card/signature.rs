//! Card signatures (v1 §8.4): each entry of the card's `signatures` is a JWS
//! with a detached payload, the card without `signatures` canonicalized with
//! JCS (RFC 8785). This module reads the entries, names them as declaration
//! ids (`signatures[<kid>]`), reads trusted keys (PEM, JWK or a JWK set) and
//! verifies one signature against the card as served. Fetching a `jku` is the
//! runner's (it needs the network); everything here is pure.
//!
//! The payload is tried in two canonical forms ([`Form`]): the card as served
//! less `signatures`, and the form the official SDKs sign (a2a-python and
//! a2a-js 1.3.0: empty values and the two proto3 `false` defaults removed
//! before JCS; docs/security.md says exactly what each form is).

use crate::declaration::DeclarationId;
use base64::Engine;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};
use std::str::FromStr;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A card as served, with the URL it came from: what a signature covers.
#[derive(Debug, Clone)]
pub struct ServedCard {
    /// Where the card was fetched from.
    pub url: String,
    /// The card's JSON exactly as served (signatures included).
    pub card: Value,
}

/// One entry of the card's `signatures`, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct CardSignature {
    /// 1-based position in `signatures`.
    pub index: usize,
    /// The base64url protected header, as served.
    pub protected: String,
    /// The base64url signature, as served.
    pub signature: String,
    /// `alg` from the protected header.
    pub alg: Option<String>,
    /// `kid` from the protected header, else from the unprotected `header`.
    pub kid: Option<String>,
    /// `jku` from the protected header: where the peer publishes its keys.
    pub jku: Option<String>,
    /// Why the entry cannot be a JWS at all (no `protected`, not base64url JSON).
    pub malformed: Option<String>,
}

/// Every entry of the card's `signatures` (none when absent or not a list).
pub fn card_signatures(card: &Value) -> Vec<CardSignature> {
    let Some(list) = card.get("signatures").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .map(|(i, entry)| read_entry(i + 1, entry))
        .collect()
}

fn read_entry(index: usize, entry: &Value) -> CardSignature {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_string);
    let protected = text("protected").unwrap_or_default();
    let signature = text("signature").unwrap_or_default();
    let mut sig = CardSignature {
        index,
        protected: protected.clone(),
        signature: signature.clone(),
        alg: None,
        kid: None,
        jku: None,
        malformed: None,
    };
    let header: Option<Map<String, Value>> = B64
        .decode(protected.trim_end_matches('='))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    let field = |map: &Map<String, Value>, key: &str| {
        map.get(key).and_then(Value::as_str).map(str::to_string)
    };
    match header {
        _ if protected.is_empty() || text("signature").is_none() => {
            sig.malformed = Some("the entry lacks `protected` or `signature`".into());
        }
        None => {
            sig.malformed =
                Some("`protected` is not a base64url-encoded JSON object (a JWS header)".into());
        }
        Some(map) => {
            sig.alg = field(&map, "alg");
            sig.jku = field(&map, "jku");
            sig.kid = field(&map, "kid").or_else(|| {
                entry
                    .get("header")
                    .and_then(Value::as_object)
                    .and_then(|h| field(h, "kid"))
            });
            // An unsecured JWS (`alg: none`) has an empty signature by
            // design: it is read, and refused by its algorithm, not taken
            // for a malformed entry (which would read as a divergence).
            if signature.is_empty() && sig.alg.as_deref() != Some("none") {
                sig.malformed = Some("the entry's `signature` is empty".into());
            } else if B64.decode(signature.trim_end_matches('=')).is_err() {
                // Else the verifier's decoding error would read as "no key
                // of the kind", leaving a broken entry unverified.
                sig.malformed = Some("the entry's `signature` is not base64url".into());
            }
        }
    }
    sig
}

/// The declaration id of each signature, with its 1-based index:
/// `signatures[<kid>]`, or `signatures[#<n>]` for one with no `kid` or a
/// `kid` another entry also has. Ids key on the kid, not the position, so
/// they survive a reordering and change when the key does.
pub fn signature_declarations(card: &Value) -> Vec<(DeclarationId, usize)> {
    let sigs = card_signatures(card);
    sigs.iter()
        .map(|s| {
            let unique = s.kid.as_ref().filter(|kid| {
                !kid.trim().is_empty()
                    && !kid.starts_with('#')
                    && sigs.iter().filter(|o| o.kid.as_ref() == Some(kid)).count() == 1
            });
            let label = match unique {
                Some(kid) => kid.clone(),
                None => format!("#{}", s.index),
            };
            (DeclarationId::Signature(label), s.index)
        })
        .collect()
}

/// A key a signature may be verified with, and where it came from.
#[derive(Clone)]
pub struct TrustedKey {
    /// The file or URL it came from, for messages.
    pub source: String,
    /// The JWK's `kid`, if it has one (a PEM key has none: it is tried for
    /// every signature).
    pub kid: Option<String>,
    key: DecodingKey,
}

impl std::fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustedKey")
            .field("source", &self.source)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// Why a key file or key set could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// The text is no key in any shape the tool reads.
    #[error("{origin}: neither a PEM public key, a JWK nor a JWK set ({detail})")]
    Unreadable {
        /// Where the text came from (a file, a `jku` URL).
        origin: String,
        /// What the last reader said.
        detail: String,
    },
    /// A JWK set whose every key is of a type or algorithm the tool cannot use.
    #[error("{origin}: the JWK set holds no key this tool can use")]
    NoUsableKey {
        /// Where the set came from.
        origin: String,
    },
}

/// Reads trusted keys from a file's text: a PEM public key (EC, Ed25519 or
/// RSA), a JWK, or a JWK set (`{"keys": […]}`).
pub fn read_keys(source: &str, text: &str) -> Result<Vec<TrustedKey>, KeyError> {
    let trimmed = text.trim();
    if trimmed.starts_with("-----BEGIN") {
        let bytes = trimmed.as_bytes();
        let key = DecodingKey::from_ec_pem(bytes)
            .or_else(|_| DecodingKey::from_ed_pem(bytes))
            .or_else(|_| DecodingKey::from_rsa_pem(bytes))
            .map_err(|e| KeyError::Unreadable {
                origin: source.to_string(),
                detail: e.to_string(),
            })?;
        return Ok(vec![TrustedKey {
            source: source.to_string(),
            kid: None,
            key,
        }]);
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|e| KeyError::Unreadable {
        origin: source.to_string(),
        detail: e.to_string(),
    })?;
    if value.get("keys").is_some() {
        let set: JwkSet = serde_json::from_value(value).map_err(|e| KeyError::Unreadable {
            origin: source.to_string(),
            detail: e.to_string(),
        })?;
        let keys: Vec<TrustedKey> = set
            .keys
            .iter()
            .filter_map(|jwk| from_jwk(source, jwk).ok())
            .collect();
        if keys.is_empty() {
            return Err(KeyError::NoUsableKey {
                origin: source.to_string(),
            });
        }
        return Ok(keys);
    }
    let jwk: Jwk = serde_json::from_value(value).map_err(|e| KeyError::Unreadable {
        origin: source.to_string(),
        detail: e.to_string(),
    })?;
    Ok(vec![from_jwk(source, &jwk)?])
}

fn from_jwk(source: &str, jwk: &Jwk) -> Result<TrustedKey, KeyError> {
    let key = DecodingKey::from_jwk(jwk).map_err(|e| KeyError::Unreadable {
        origin: source.to_string(),
        detail: e.to_string(),
    })?;
    Ok(TrustedKey {
        source: source.to_string(),
        kid: jwk.common.key_id.clone(),
        key,
    })
}

/// What checking one signature found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// It verifies against this key.
    Verified {
        /// The key's source (a `--trusted-key` file or a `jku` URL).
        key: String,
        /// The canonical form of the card the signature covers.
        form: Form,
    },
    /// A key for it exists, and the signature does not match the card as
    /// served (or the entry is no JWS at all).
    Mismatch(String),
    /// No key to check it with, or an algorithm the tool does not verify.
    Unverifiable(String),
}

/// The canonical form of the card a signature was made over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// RFC 8785 (JCS) of the card less `signatures`: the form v1 §8.4 names.
    Jcs,
    /// JCS of the card less `signatures` with empty values (`null`, `""`,
    /// `[]`, `{}`, recursively) and the proto3 defaults the SDKs' JSON
    /// omits (`required: false` of an extension, `pkceRequired: false` of
    /// an authorization-code flow) removed: the bytes a2a-python's
    /// `_canonicalize_agent_card` and a2a-js's `canonicalizeAgentCard`
    /// (both 1.3.0) sign for a card of v1.0 fields. Only reported when it
    /// differs from the spec's form.
    SdkEmptyRemoved,
}

impl Form {
    /// Both forms, the spec's first.
    pub const ALL: [Form; 2] = [Form::Jcs, Form::SdkEmptyRemoved];

    /// The short name a corpus manifest and a file name use: `jcs`, `sdk`.
    pub fn name(self) -> &'static str {
        match self {
            Form::Jcs => "jcs",
            Form::SdkEmptyRemoved => "sdk",
        }
    }

    /// What a row honoured on a signature of this form says.
    pub fn verified(self) -> &'static str {
        match self {
            Form::Jcs => "verified over the RFC 8785 (JCS) form v1 §8.4 names",
            Form::SdkEmptyRemoved => {
                "verified only over the SDK form (empty values removed), not the spec's RFC 8785 (JCS) form"
            }
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Form::Jcs => "the RFC 8785 (JCS) form v1 §8.4 names",
            Form::SdkEmptyRemoved => {
                "the official SDKs' form (JCS with empty values and proto3 defaults removed), not the RFC 8785 (JCS) form v1 §8.4 names"
            }
        })
    }
}

/// The asymmetric algorithms a card signature may use. HMAC is refused: a
/// shared secret proves nothing to a third party, and a public key must
/// never be used as one.
fn algorithm(name: &str) -> Option<Algorithm> {
    let alg = Algorithm::from_str(name).ok()?;
    (!matches!(alg, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512)).then_some(alg)
}

/// Verifies one signature against the card as served, with the keys given
/// (trusted keys and, where the runner fetched it, the `jku` set). Keys
/// with a `kid` are tried only for a signature naming that kid.
pub fn verify(card: &Value, sig: &CardSignature, keys: &[TrustedKey]) -> Check {
    verify_over(card, sig, keys, &Form::ALL)
}

/// [`verify`] over one canonical form only: whether the signature covers
/// the card in that form (the vector corpus judges each form apart).
pub fn verify_in(card: &Value, sig: &CardSignature, keys: &[TrustedKey], form: Form) -> Check {
    verify_over(card, sig, keys, &[form])
}

fn verify_over(card: &Value, sig: &CardSignature, keys: &[TrustedKey], forms: &[Form]) -> Check {
    if let Some(reason) = &sig.malformed {
        return Check::Mismatch(format!("signature #{} is no JWS: {reason}", sig.index));
    }
    let Some(alg_name) = &sig.alg else {
        return Check::Mismatch(format!(
            "signature #{}'s protected header has no `alg` (v1 §8.4 requires it)",
            sig.index
        ));
    };
    let Some(alg) = algorithm(alg_name) else {
        return Check::Unverifiable(format!(
            "signature #{} uses `{alg_name}`, which a2a-conform does not verify (ES256, ES384, RS*, PS*, EdDSA)",
            sig.index
        ));
    };
    let candidates: Vec<&TrustedKey> = keys
        .iter()
        .filter(|k| k.kid.is_none() || k.kid == sig.kid)
        .collect();
    if candidates.is_empty() {
        return Check::Unverifiable(format!(
            "no key to verify signature #{} (kid {}): give one with --trusted-key FILE",
            sig.index,
            sig.kid.as_deref().unwrap_or("none")
        ));
    }
    let mut messages: Vec<(Form, Vec<u8>)> = Vec::new();
    for &form in forms {
        // The same bytes are tried once, under the spec's form first.
        if let Some(bytes) = canonical(card, form).filter(|b| !messages.iter().any(|(_, m)| m == b))
        {
            messages.push((form, bytes));
        }
    }
    let messages: Vec<(Form, String)> = messages
        .into_iter()
        .map(|(form, payload)| (form, format!("{}.{}", sig.protected, B64.encode(payload))))
        .collect();
    let mut tried = 0usize;
    for key in &candidates {
        for (form, message) in &messages {
            match jsonwebtoken::crypto::verify(&sig.signature, message.as_bytes(), &key.key, alg) {
                Ok(true) => {
                    return Check::Verified {
                        key: key.source.clone(),
                        form: *form,
                    }
                }
                Ok(false) => tried += 1,
                // A key of another family than the algorithm: not this key.
                Err(_) => {}
            }
        }
    }
    if tried == 0 {
        return Check::Unverifiable(format!(
            "no key of the kind `{alg_name}` needs to verify signature #{} (kid {})",
            sig.index,
            sig.kid.as_deref().unwrap_or("none")
        ));
    }
    Check::Mismatch(format!(
        "signature #{} ({alg_name}, kid {}) does not match the card as served, with {} key(s) that fit it",
        sig.index,
        sig.kid.as_deref().unwrap_or("none"),
        candidates.len()
    ))
}

/// The canonical payloads a signer may have signed: JCS of the card less
/// `signatures`, then the same with empty values removed (left out when it
/// is the same bytes: the spec's form then is the one that verified).
pub fn payloads(card: &Value) -> Vec<(Form, Vec<u8>)> {
    let mut out: Vec<(Form, Vec<u8>)> = Vec::new();
    for form in Form::ALL {
        if let Some(bytes) = canonical(card, form) {
            if !out.iter().any(|(_, b)| *b == bytes) {
                out.push((form, bytes));
            }
        }
    }
    out
}

/// The bytes a signature over `card` in `form` covers (`None` when the card
/// has no JCS form: a number JCS cannot write).
pub fn canonical(card: &Value, form: Form) -> Option<Vec<u8>> {
    let mut unsigned = card.clone();
    if let Some(map) = unsigned.as_object_mut() {
        map.remove("signatures");
    }
    let value = match form {
        Form::Jcs => unsigned,
        Form::SdkEmptyRemoved => {
            without_proto_defaults(&mut unsigned);
            // A card left with nothing: a2a-js writes `{}` for it.
            without_empty(&unsigned).unwrap_or_else(|| Value::Object(Map::new()))
        }
    };
    serde_json_canonicalizer::to_vec(&value).ok()
}

/// Removes the card's proto3 fields without presence whose value is the
/// default `false`: the SDKs parse the card into their v1.0 `AgentCard`
/// message and write it back (`MessageToDict`, `AgentCard.toJSON`), which
/// omits them. These two are the only non-string fields of the card without
/// presence in the v1.0 proto (a string's default, `""`, goes with the
/// empty values).
fn without_proto_defaults(card: &mut Value) {
    let drop_false = |map: &mut Value, key: &str| {
        if let Some(map) = map.as_object_mut() {
            if map.get(key) == Some(&Value::Bool(false)) {
                map.remove(key);
            }
        }
    };
    if let Some(list) = card
        .pointer_mut("/capabilities/extensions")
        .and_then(Value::as_array_mut)
    {
        for extension in list {
            drop_false(extension, "required");
        }
    }
    if let Some(schemes) = card
        .get_mut("securitySchemes")
        .and_then(Value::as_object_mut)
    {
        for scheme in schemes.values_mut() {
            if let Some(flow) = scheme.pointer_mut("/oauth2SecurityScheme/flows/authorizationCode")
            {
                drop_false(flow, "pkceRequired");
            }
        }
    }
}

/// `value` with `null`, `""`, `[]` and `{}` removed, recursively (a map or
/// list left empty is removed too); `None` when nothing is left.
fn without_empty(value: &Value) -> Option<Value> {
    match value {
        Value::Null => None,
        Value::String(s) if s.is_empty() => None,
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(without_empty).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(map) => {
            let kept: Map<String, Value> = map
                .iter()
                .filter_map(|(k, v)| without_empty(v).map(|v| (k.clone(), v)))
                .collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other.clone()),
    }
}

/// Signs a card (test and mock use): an ES256 JWS over JCS of the card less
/// `signatures`, appended to its `signatures`. `pkcs8` is a P-256 private
/// key (PKCS#8 DER), as `ring` generates it.
pub fn sign_es256(
    card: &mut Value,
    pkcs8: &[u8],
    kid: &str,
    jku: Option<&str>,
) -> Result<(), jsonwebtoken::errors::Error> {
    let mut header = serde_json::json!({"alg": "ES256", "typ": "JOSE", "kid": kid});
    if let Some(jku) = jku {
        header["jku"] = Value::String(jku.to_string());
    }
    let key = jsonwebtoken::EncodingKey::from_ec_der(pkcs8);
    let entry = signature_entry(card, Form::Jcs, &header, &key, Algorithm::ES256)?;
    match card.get_mut("signatures").and_then(Value::as_array_mut) {
        Some(list) => list.push(entry),
        None => card["signatures"] = Value::Array(vec![entry]),
    }
    Ok(())
}

/// A `signatures` entry (`protected`, `signature`) over `card` in `form`,
/// with `header` as its protected header, signed with `key` (test and
/// corpus use: a signer of either form, on any algorithm the key fits).
pub fn signature_entry(
    card: &Value,
    form: Form,
    header: &Value,
    key: &jsonwebtoken::EncodingKey,
    alg: Algorithm,
) -> Result<Value, jsonwebtoken::errors::Error> {
    let payload = canonical(card, form).unwrap_or_default();
    let protected = B64.encode(header.to_string());
    let message = format!("{protected}.{}", B64.encode(payload));
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), key, alg)?;
    Ok(serde_json::json!({"protected": protected, "signature": signature}))
}

/// A P-256 key pair for signing cards: its PKCS#8 private key and its
/// public key as a JWK with `kid`.
pub fn generate_es256(kid: &str) -> Result<(Vec<u8>, Value), ring::error::Unspecified> {
    use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)?;
    let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
        .map_err(|_| ring::error::Unspecified)?;
    // The uncompressed point: 0x04 || x || y.
    let point = pair.public_key().as_ref();
    let (x, y) = point[1..].split_at(32);
    let jwk = serde_json::json!({
        "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
        "x": B64.encode(x), "y": B64.encode(y),
    });
    Ok((pkcs8.as_ref().to_vec(), jwk))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card() -> Value {
        json!({
            "name": "signed", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true, "extensions": []},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "ü", "tags": ["t"]}]
        })
    }

    fn signed() -> (Value, Vec<TrustedKey>) {
        let (pkcs8, jwk) = generate_es256("k1").unwrap();
        let mut card = card();
        sign_es256(&mut card, &pkcs8, "k1", None).unwrap();
        let keys = read_keys("test.jwk", &jwk.to_string()).unwrap();
        (card, keys)
    }

    #[test]
    fn a_card_signed_with_a_generated_key_verifies() {
        let (card, keys) = signed();
        let sigs = card_signatures(&card);
        assert_eq!(sigs.len(), 1);
        assert_eq!(sigs[0].kid.as_deref(), Some("k1"));
        assert_eq!(
            verify(&card, &sigs[0], &keys),
            Check::Verified {
                key: "test.jwk".into(),
                form: Form::Jcs,
            }
        );
        assert_eq!(
            signature_declarations(&card),
            [(DeclarationId::Signature("k1".into()), 1)]
        );
    }

    #[test]
    fn a_tampered_card_does_not_verify() {
        let (mut card, keys) = signed();
        card["skills"][0]["name"] = json!("changed");
        let sigs = card_signatures(&card);
        assert!(
            matches!(verify(&card, &sigs[0], &keys), Check::Mismatch(m) if m.contains("does not match")),
        );
    }

    #[test]
    fn no_key_is_unverifiable_and_another_key_is_a_mismatch() {
        let (card, _) = signed();
        let sigs = card_signatures(&card);
        assert!(
            matches!(verify(&card, &sigs[0], &[]), Check::Unverifiable(m) if m.contains("--trusted-key"))
        );
        // A key with another kid is not tried.
        let (_, other) = generate_es256("k2").unwrap();
        let other = read_keys("other.jwk", &other.to_string()).unwrap();
        assert!(matches!(
            verify(&card, &sigs[0], &other),
            Check::Unverifiable(_)
        ));
        // The same kid with another key material does not verify.
        let (_, imposter) = generate_es256("k1").unwrap();
        let imposter = read_keys("imposter.jwk", &imposter.to_string()).unwrap();
        assert!(matches!(
            verify(&card, &sigs[0], &imposter),
            Check::Mismatch(_)
        ));
    }

    #[test]
    fn empty_values_removed_is_also_a_signed_form() {
        // A signer that dropped the empty `extensions` list signed another
        // payload; the card as served still verifies.
        let (pkcs8, jwk) = generate_es256("k1").unwrap();
        let mut stripped = card();
        stripped["capabilities"]
            .as_object_mut()
            .unwrap()
            .remove("extensions");
        sign_es256(&mut stripped, &pkcs8, "k1", None).unwrap();
        let mut served = card();
        served["signatures"] = stripped["signatures"].clone();
        let keys = read_keys("k.jwk", &jwk.to_string()).unwrap();
        let sigs = card_signatures(&served);
        assert_eq!(
            verify(&served, &sigs[0], &keys),
            Check::Verified {
                key: "k.jwk".into(),
                form: Form::SdkEmptyRemoved,
            }
        );
    }

    #[test]
    fn malformed_entries_and_hmac_are_named() {
        let mut card = card();
        card["signatures"] = json!([{"protected": "!!", "signature": "x"}, {"protected": B64.encode(r#"{"alg":"HS256","kid":"h"}"#), "signature": "eA"}]);
        let sigs = card_signatures(&card);
        assert!(matches!(verify(&card, &sigs[0], &[]), Check::Mismatch(m) if m.contains("no JWS")));
        assert!(
            matches!(verify(&card, &sigs[1], &[]), Check::Unverifiable(m) if m.contains("HS256"))
        );
        assert_eq!(
            signature_declarations(&card)
                .iter()
                .map(|(id, _)| id.to_string())
                .collect::<Vec<_>>(),
            ["signatures[#1]", "signatures[h]"]
        );
    }

    #[test]
    fn a_pem_public_key_verifies_too() {
        let (pkcs8, jwk) = generate_es256("k1").unwrap();
        let mut card = card();
        sign_es256(&mut card, &pkcs8, "k1", None).unwrap();
        // SubjectPublicKeyInfo of a P-256 key: the fixed prefix, then the point.
        let mut der = vec![
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06,
            0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
        ];
        for coordinate in ["x", "y"] {
            der.extend(B64.decode(jwk[coordinate].as_str().unwrap()).unwrap());
        }
        let body = base64::engine::general_purpose::STANDARD.encode(&der);
        let pem = format!("-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n");
        let keys = read_keys("key.pem", &pem).unwrap();
        assert_eq!(keys[0].kid, None);
        let sigs = card_signatures(&card);
        assert!(
            matches!(verify(&card, &sigs[0], &keys), Check::Verified { key, form: Form::Jcs } if key == "key.pem")
        );
    }

    #[test]
    fn keys_read_from_a_jwk_set_and_refuse_garbage() {
        let (_, a) = generate_es256("a").unwrap();
        let (_, b) = generate_es256("b").unwrap();
        let set = json!({"keys": [a, b]}).to_string();
        let keys = read_keys("set.json", &set).unwrap();
        assert_eq!(keys.len(), 2);
        assert_eq!(keys[1].kid.as_deref(), Some("b"));
        assert!(read_keys("x", "not a key").is_err());
        assert!(read_keys(
            "x",
            "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"
        )
        .is_err());
    }
}
