//! The `verify_signature` step: one card signature checked against the card
//! as served, with the `--trusted-key` keys and the keys its `jku` names
//! (fetched bounded, without credentials, following no redirect). A
//! signature that verifies passes, one that a fitting key does not verify
//! fails, and one no key can check is inconclusive.

use super::context::{RunContext, StepResult, Stop};
use crate::scenario::model::VerifySignatureStep;
use a2a_conform_client::client::FetchError;
use a2a_conform_client::http::BodyError;
use a2a_conform_client::transcript::RecordKind;
use a2a_conform_protocol::card::signature::{self, Check, TrustedKey};
use a2a_conform_protocol::card::MAX_CARD_BYTES;
use std::time::Instant;

impl RunContext<'_> {
    pub(super) async fn verify_signature(&mut self, s: &VerifySignatureStep) -> StepResult {
        let signing = self.signing.clone().ok_or_else(|| {
            Stop::error("`verify_signature` runs only under `for_each: signatures`")
        })?;
        let text = self.text(&s.signature)?;
        let sig = text
            .trim()
            .parse::<usize>()
            .ok()
            .and_then(|index| {
                signature::card_signatures(&signing.card.card)
                    .into_iter()
                    .find(|sig| sig.index == index)
            })
            .ok_or_else(|| Stop::error(format!("the card has no signature #{text}")))?;
        let mut keys: Vec<TrustedKey> = signing.trusted.to_vec();
        let mut jku_trouble = None;
        if let Some(jku) = &sig.jku {
            match self.fetch_jku(jku).await {
                Ok(fetched) => keys.extend(fetched),
                Err(reason) => jku_trouble = Some(reason),
            }
        }
        // The card this judges, as fetched at discovery: its reproduction.
        let url = &signing.card.url;
        self.transcript.record(
            RecordKind::Request,
            Instant::now(),
            format!("the card as served, fetched from {url}"),
            None,
            Some(format!("curl -sS '{url}'")),
        );
        match signature::verify(&signing.card.card, &sig, &keys) {
            Check::Verified { key } => {
                self.transcript.note(format!(
                    "signature #{} verifies against the key from {key}",
                    sig.index
                ));
                if sig.jku.as_deref() == Some(key.as_str()) {
                    self.transcript.note(
                        "that key was published by the peer itself (its jku): pin it with --trusted-key to trust it",
                    );
                }
                Ok(())
            }
            Check::Mismatch(reason) => Err(Stop::fail(reason)),
            Check::Unverifiable(reason) => Err(Stop::inconclusive(match jku_trouble {
                Some(trouble) => format!("{reason}; its jku gave no key: {trouble}"),
                None => reason,
            })),
        }
    }

    /// The keys of a `jku` JWK set: an http(s) URL, fetched without any
    /// credential, within the request timeout and the card's size cap.
    async fn fetch_jku(&self, jku: &str) -> Result<Vec<TrustedKey>, String> {
        let url = url::Url::parse(jku).map_err(|e| format!("`{jku}` is not a URL ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{jku}` is not an http(s) URL"));
        }
        // The peer's own client settings (--cacert, --cert, --insecure,
        // proxies, timeout), none of its credentials; recorded by the client.
        let fetched = self
            .client
            .get_without_credentials(
                &self.transcript,
                &url,
                "the signature's jku",
                MAX_CARD_BYTES,
            )
            .await
            .map_err(|e| match e {
                // The key set shares the card's cap, not --max-body-bytes.
                FetchError::Body(BodyError::Capped { limit }) => {
                    format!("the key set at {url} is over {limit} bytes (the card's cap)")
                }
                other => other.to_string(),
            })?;
        let (status, body) = (fetched.status, fetched.body);
        if !(200..300).contains(&status) {
            return Err(format!("HTTP {status} from {url}"));
        }
        let text = String::from_utf8_lossy(&body);
        signature::read_keys(url.as_str(), &text).map_err(|e| e.to_string())
    }
}
