//! `verify_signature`: one card signature checked against the card as
//! served, with the `--trusted-key` keys and the keys its `jku` names
//! (fetched bounded, without credentials, following no redirect, with the
//! check's own TLS settings). A signature that verifies passes, one that a
//! fitting key does not verify fails, and one no key can check is
//! inconclusive.

use super::primitive::Primitive;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_client::client::FetchError;
use a2a_conform_client::http::BodyError;
use a2a_conform_client::transcript::RecordKind;
use a2a_conform_protocol::card::signature::{self, Check, Form, KeyError, TrustedKey};
use a2a_conform_protocol::card::MAX_CARD_BYTES;
use serde::Deserialize;
use std::time::Instant;

/// `verify_signature`: the card signature at a position (`${signature}`
/// under `for_each: signatures`) verifies against the card as served, with
/// the `--trusted-key` keys and those of its `jku`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct VerifySignatureStep {
    signature: Template,
}

impl Primitive for VerifySignatureStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.texts([&self.signature])
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let signing = ctx.signing.clone().ok_or_else(|| {
            Stop::error("`verify_signature` runs only under `for_each: signatures`")
        })?;
        let text = ctx.text(&self.signature)?;
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
            match fetch_jku(ctx, jku).await {
                Ok(fetched) => keys.extend(fetched),
                Err(trouble) => jku_trouble = Some(trouble),
            }
        }
        // The card this judges, as fetched at discovery: its reproduction.
        let url = &signing.card.url;
        ctx.transcript.record(
            RecordKind::Request,
            Instant::now(),
            format!("the card as served, fetched from {url}"),
            None,
            Some(format!("curl -sS '{url}'")),
        );
        match signature::verify(&signing.card.card, &sig, &keys) {
            Check::Verified { key, form } => {
                ctx.transcript.note(format!(
                    "signature #{} verifies against the key from {key}, over {form}",
                    sig.index
                ));
                // The form that verified is the row's reason, not only evidence.
                ctx.remarks.push(form.verified().to_string());
                if form == Form::SdkEmptyRemoved {
                    let finding = format!(
                        "signature #{} verifies only over the official SDKs' form (empty values removed), not over the RFC 8785 (JCS) form of the card less `signatures` that v1 §8.4 names",
                        sig.index
                    );
                    if ctx.strict {
                        return Err(Stop::fail(format!("{finding} (judged under --strict)")));
                    }
                    ctx.transcript.note(format!(
                        "warning: {finding}; honoured, as the SDKs interoperate on it (a divergence under --strict)"
                    ));
                }
                if sig.jku.as_deref() == Some(key.as_str()) {
                    ctx.transcript.note(
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
}

/// Why a `jku` gave no keys (the signature then reads inconclusive, saying so).
#[derive(Debug, thiserror::Error)]
enum JkuError {
    #[error("`{jku}` is not a URL ({source})")]
    NotAUrl {
        jku: String,
        source: url::ParseError,
    },
    #[error("`{0}` is not an http(s) URL")]
    NotHttp(String),
    #[error("{0}")]
    Request(String),
    #[error("the key set at {url} is over {limit} bytes (the card's cap)")]
    TooLarge { url: url::Url, limit: usize },
    #[error("HTTP {status} from {url}")]
    Status { status: u16, url: url::Url },
    #[error("{0}")]
    Keys(#[from] KeyError),
}

/// The keys of a `jku` JWK set: an http(s) URL, fetched by the peer's own
/// client without any credential (its TLS trust, identity, proxies and
/// timeout: `--cacert`, `--cert`/`--key`, `--insecure`), within the card's
/// size cap, recorded in the run's evidence by the client.
async fn fetch_jku(ctx: &RunContext<'_>, jku: &str) -> Result<Vec<TrustedKey>, JkuError> {
    let url = url::Url::parse(jku).map_err(|source| JkuError::NotAUrl {
        jku: jku.to_string(),
        source,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(JkuError::NotHttp(jku.to_string()));
    }
    let fetched = ctx
        .client
        .get_without_credentials(&ctx.transcript, &url, "the signature's jku", MAX_CARD_BYTES)
        .await
        .map_err(|e| match e {
            // The key set shares the card's cap, not --max-body-bytes.
            FetchError::Body(BodyError::Capped { limit }) => JkuError::TooLarge {
                url: url.clone(),
                limit,
            },
            other => JkuError::Request(other.to_string()),
        })?;
    if !(200..300).contains(&fetched.status) {
        return Err(JkuError::Status {
            status: fetched.status,
            url,
        });
    }
    let text = String::from_utf8_lossy(&fetched.body);
    Ok(signature::read_keys(url.as_str(), &text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_client::client::ClientConfig;
    use a2a_conform_client::http::TlsOptions;
    use a2a_conform_client::{PeerClient, Transcript};
    use a2a_conform_mock::{MockConfig, MockPeer, MockPki, MockTls};
    use a2a_conform_protocol::{Binding, ProtocolVersion};
    use std::sync::Arc;

    /// A `jku` on an HTTPS peer whose CA only `--cacert` names: the key set
    /// is fetched with the check's TLS options, not the defaults.
    #[tokio::test]
    async fn the_jku_is_fetched_with_the_checks_tls_options() {
        let pki = Arc::new(MockPki::generate().unwrap());
        let peer = MockPeer::start(MockConfig {
            tls: Some(MockTls {
                pki: pki.clone(),
                require_client_cert: false,
            }),
            ..MockConfig::default()
        })
        .await
        .unwrap();
        let endpoint = url::Url::parse(&peer.base_url()).unwrap();
        let client_with = |tls: TlsOptions| {
            let config = ClientConfig {
                tls,
                ..ClientConfig::default()
            };
            PeerClient::new(
                endpoint.clone(),
                ProtocolVersion::V1_0,
                Binding::Jsonrpc,
                config,
            )
            .unwrap()
        };
        let with_ca = client_with(TlsOptions {
            extra_roots: vec![reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap()],
            ..TlsOptions::default()
        });
        let without = client_with(TlsOptions::default());
        // The peer's card stands in for a key set: trusted, it is fetched
        // and read (and is no key set); untrusted, no body is read at all.
        let jku = peer.card_url();
        let transcript = Transcript::new(Arc::default());
        let ctx = RunContext::new(&with_ca, transcript.clone(), Default::default());
        let trusted = fetch_jku(&ctx, &jku).await.unwrap_err();
        assert!(matches!(trusted, JkuError::Keys(_)), "{trusted}");
        let ctx = RunContext::new(&without, transcript, Default::default());
        let untrusted = fetch_jku(&ctx, &jku).await.unwrap_err();
        assert!(matches!(untrusted, JkuError::Request(_)), "{untrusted}");
    }
}
