//! The signing behaviours: `signed-card` signs its card (ES256 over JCS of
//! the card less `signatures`, v1 §8.4) with a P-256 key made when the peer
//! starts; `signed-card-tampered` signs it, then changes the description, so
//! the signature no longer matches the card served. The public key (a JWK
//! with `kid`) is what `--trusted-key` takes.

use super::behaviour::Behaviour;
use a2a_conform_protocol::card::signature;
use serde_json::Value;

/// The `kid` of the mock's signing key.
pub(crate) const KID: &str = "a2a-conform-mock-key";

/// A signing key: its PKCS#8 private half and its public JWK.
pub(crate) struct SigningKey {
    pkcs8: Vec<u8>,
    pub jwk: Value,
}

impl SigningKey {
    /// A fresh key for a behaviour that signs its card.
    pub(crate) fn for_behaviour(behaviour: Behaviour) -> Option<SigningKey> {
        if !behaviour.signs_card() {
            return None;
        }
        let (pkcs8, jwk) = signature::generate_es256(KID).ok()?;
        Some(SigningKey { pkcs8, jwk })
    }

    /// The card signed, and under `signed-card-tampered` changed afterwards.
    pub(crate) fn sign(&self, mut card: Value, behaviour: Behaviour) -> Value {
        if signature::sign_es256(&mut card, &self.pkcs8, KID, None).is_err() {
            return card;
        }
        if behaviour == Behaviour::SignedCardTampered {
            card["description"] = Value::String(format!(
                "{} (changed after signing)",
                card["description"].as_str().unwrap_or_default()
            ));
        }
        card
    }
}
