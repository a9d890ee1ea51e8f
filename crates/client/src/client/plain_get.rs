//! A GET that carries no credentials, for what a peer points at but the
//! caller must not trust with them (a card signature's `jku` key set): the
//! peer client's own HTTP client — its `--cacert`, client certificate,
//! `--insecure`, proxies, timeout and no-redirect policy — without a
//! single configured header or query credential, recorded in the run's
//! transcript like every other exchange.

use super::PeerClient;
use crate::http::{describe_reqwest_error, read_bounded, BodyError};
use crate::transcript::{RecordKind, Transcript};
use a2a_conform_protocol::text::human_duration;
use std::time::{Duration, Instant};

/// What [`PeerClient::get_without_credentials`] read: the status and the
/// whole body (any status: judging it is the caller's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The HTTP status of the answer (a redirect is not followed: it is the answer).
    pub status: u16,
    /// The body, at most the cap the caller gave.
    pub body: Vec<u8>,
}

/// Why a GET without credentials gave no body.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// Nothing answered within the peer's `--timeout`.
    #[error("no answer within {}", human_duration(*.0))]
    NoAnswer(Duration),
    /// The request could not be sent or the connection broke: the real
    /// cause (an untrusted certificate names `--cacert`).
    #[error("{}", describe_reqwest_error(.0))]
    Unreachable(reqwest::Error),
    /// The body passed the caller's cap, or stopped coming in time.
    #[error(transparent)]
    Body(#[from] BodyError),
}

impl PeerClient {
    /// GETs `url` with none of this peer's credentials, within its timeout
    /// and `max_bytes`, through the same TLS settings and proxies as its
    /// calls. The request (with a curl line) and the answer are recorded in
    /// `transcript`; `what` names the request there ("the signature's jku").
    pub async fn get_without_credentials(
        &self,
        transcript: &Transcript,
        url: &url::Url,
        what: &str,
        max_bytes: usize,
    ) -> Result<Fetched, FetchError> {
        let timeout = self.config.timeout;
        transcript.record(
            RecordKind::Request,
            Instant::now(),
            format!("→ GET {url} ({what}, without credentials)"),
            None,
            Some(format!("curl -sS '{url}'")),
        );
        let response = tokio::time::timeout(timeout, self.http.get(url.clone()).send())
            .await
            .map_err(|_| FetchError::NoAnswer(timeout))?
            .map_err(FetchError::Unreachable)?;
        let status = response.status().as_u16();
        let body = read_bounded(response, timeout, max_bytes).await?;
        transcript.record(
            RecordKind::Response,
            Instant::now(),
            format!("← HTTP {status} ({} bytes)", body.len()),
            None,
            None,
        );
        Ok(Fetched { status, body })
    }
}
