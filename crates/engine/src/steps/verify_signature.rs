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
use a2a_conform_client::http::{
    describe_reqwest_error, http_client, read_bounded, BodyError, ClientBuildError, TlsOptions,
};
use a2a_conform_client::transcript::RecordKind;
use a2a_conform_protocol::card::signature::{self, Check, KeyError, TrustedKey};
use a2a_conform_protocol::card::MAX_CARD_BYTES;
use a2a_conform_protocol::text::human_duration;
use serde::Deserialize;
use std::time::{Duration, Instant};

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
            match fetch_jku(ctx, &signing.tls, jku).await {
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
            Check::Verified { key } => {
                ctx.transcript.note(format!(
                    "signature #{} verifies against the key from {key}",
                    sig.index
                ));
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
    Client(#[from] ClientBuildError),
    #[error("no answer within {}", human_duration(*.0))]
    Timeout(Duration),
    #[error("{0}")]
    Request(String),
    #[error("the key set at {url} is over {limit} bytes (the card's cap)")]
    TooLarge { url: url::Url, limit: usize },
    #[error("{0}")]
    Body(String),
    #[error("HTTP {status} from {url}")]
    Status { status: u16, url: url::Url },
    #[error("{0}")]
    Keys(#[from] KeyError),
}

/// The keys of a `jku` JWK set: an http(s) URL, fetched without any
/// credential, within the request timeout and the card's size cap, trusted
/// as the check's TLS options say (`--cacert`, `--cert`/`--key`, `--insecure`).
async fn fetch_jku(
    ctx: &RunContext<'_>,
    tls: &TlsOptions,
    jku: &str,
) -> Result<Vec<TrustedKey>, JkuError> {
    let url = url::Url::parse(jku).map_err(|source| JkuError::NotAUrl {
        jku: jku.to_string(),
        source,
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(JkuError::NotHttp(jku.to_string()));
    }
    let timeout = ctx.client.timeout();
    let http = http_client(timeout, tls)?;
    let sent = Instant::now();
    ctx.transcript.record(
        RecordKind::Request,
        sent,
        format!("→ GET {url} (the signature's jku, without credentials)"),
        None,
        Some(format!("curl -sS '{url}'")),
    );
    let response = tokio::time::timeout(timeout, http.get(url.clone()).send())
        .await
        .map_err(|_| JkuError::Timeout(timeout))?
        .map_err(|e| JkuError::Request(describe_reqwest_error(&e)))?;
    let status = response.status();
    let body = read_bounded(response, timeout, MAX_CARD_BYTES)
        .await
        .map_err(|e| match e {
            // The key set shares the card's cap, not --max-body-bytes.
            BodyError::Capped { limit } => JkuError::TooLarge {
                url: url.clone(),
                limit,
            },
            BodyError::Broken(reason) => JkuError::Body(reason),
        })?;
    ctx.transcript.record(
        RecordKind::Response,
        Instant::now(),
        format!("← HTTP {} ({} bytes)", status.as_u16(), body.len()),
        None,
        None,
    );
    if !status.is_success() {
        return Err(JkuError::Status {
            status: status.as_u16(),
            url,
        });
    }
    let text = String::from_utf8_lossy(&body);
    Ok(signature::read_keys(url.as_str(), &text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_client::client::ClientConfig;
    use a2a_conform_client::{PeerClient, Transcript};
    use a2a_conform_mock::{MockConfig, MockPeer, MockPki, MockTls};
    use a2a_conform_protocol::{Binding, ProtocolVersion};
    use std::collections::HashMap;
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
        let client = PeerClient::new(
            endpoint,
            ProtocolVersion::V1_0,
            Binding::Jsonrpc,
            ClientConfig::default(),
        )
        .unwrap();
        let ctx = RunContext::new(&client, Transcript::new(Arc::default()), HashMap::new());
        let with_ca = TlsOptions {
            extra_roots: vec![reqwest::Certificate::from_pem(pki.ca_pem().as_bytes()).unwrap()],
            ..TlsOptions::default()
        };
        // The peer's card stands in for a key set: trusted, it is fetched
        // and read (and is no key set); untrusted, no body is read at all.
        let jku = peer.card_url();
        let trusted = fetch_jku(&ctx, &with_ca, &jku).await.unwrap_err();
        assert!(matches!(trusted, JkuError::Keys(_)), "{trusted}");
        let untrusted = fetch_jku(&ctx, &TlsOptions::default(), &jku)
            .await
            .unwrap_err();
        assert!(matches!(untrusted, JkuError::Request(_)), "{untrusted}");
    }
}
