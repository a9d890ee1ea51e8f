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
