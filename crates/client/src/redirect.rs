//! The card GET, with its redirects followed by hand: a few at most, and
//! the credentials (bearer token, every header not named public) sent only
//! while the URL stays on the origin they were given for — a redirect to
//! another scheme, host or port gets the public headers alone. Calls never
//! follow redirects at all (see [`super::client`]).

use super::credentials::ClientConfig;
use super::http::{describe_reqwest_error, read_bounded};
use reqwest::header::{ACCEPT, LOCATION};
use reqwest::StatusCode;
use url::Url;

/// The most redirects a card GET follows.
pub(crate) const MAX_CARD_REDIRECTS: usize = 3;

/// What the card URL answered, after any redirects.
#[derive(Debug)]
pub struct CardResponse {
    /// The final response's status.
    pub status: StatusCode,
    /// Its body, bounded by the card's cap.
    pub body: Vec<u8>,
    /// One line per redirect that left the credentials' origin.
    pub cross_origin_hops: Vec<String>,
    /// The final response's `Cache-Control` (card hygiene).
    pub cache_control: Option<String>,
    /// The final response's `ETag` (card hygiene).
    pub etag: Option<String>,
}

/// Why the card could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum CardGetError {
    /// No answer: the connection failed or timed out.
    #[error("cannot fetch the card at {url}: {reason}")]
    Unreachable {
        /// The URL asked.
        url: Url,
        /// The real cause (an untrusted certificate names `--cacert`).
        reason: String,
    },
    /// More redirects than a card GET follows.
    #[error("the card at {url} redirected more than {MAX_CARD_REDIRECTS} times")]
    TooManyRedirects {
        /// The URL first asked.
        url: Url,
    },
    /// A redirect whose `Location` is missing or no URL.
    #[error("the card at {url} answered a redirect (HTTP {status}) without a usable Location")]
    BadLocation {
        /// The URL that redirected.
        url: Url,
        /// Its status.
        status: u16,
    },
    /// The body could not be read whole (too large, too slow, broken).
    #[error("cannot read the card at {url}: {reason}")]
    Body {
        /// The URL whose body it is.
        url: Url,
        /// Why.
        reason: String,
    },
}

/// Why the card GET got no answer. A peer that took the connection and
/// never answered is named with the wait it was given, so that which
/// `--timeout` applied (the flag, a profile, a config section) shows.
fn unanswered(error: &reqwest::Error, config: &ClientConfig) -> String {
    if error.is_timeout() && !error.is_connect() {
        format!(
            "no answer within {} (--timeout)",
            a2a_conform_protocol::text::human_duration(config.timeout)
        )
    } else {
        describe_reqwest_error(error)
    }
}

/// GETs the card at `url`, following up to three redirects;
/// credentials go only to `url`'s own origin.
pub async fn get_card(
    client: &reqwest::Client,
    url: &Url,
    config: &ClientConfig,
) -> Result<CardResponse, CardGetError> {
    get_card_if_none_match(client, url, config, None).await
}

/// As [`get_card`], revalidating: with an `ETag` the request carries
/// `If-None-Match`, and a `304 Not Modified` is answered as such (an empty
/// body), not followed as a redirect.
pub async fn get_card_if_none_match(
    client: &reqwest::Client,
    url: &Url,
    config: &ClientConfig,
    etag: Option<&str>,
) -> Result<CardResponse, CardGetError> {
    let origin = url.origin();
    let mut current = url.clone();
    let mut cross_origin_hops = Vec::new();
    for _ in 0..=MAX_CARD_REDIRECTS {
        let with_credentials = current.origin() == origin;
        let mut request = client
            .get(current.clone())
            .header(ACCEPT, "application/json");
        for (name, value) in &config.headers {
            if with_credentials || config.is_public(name) {
                request = request.header(name.trim(), value.trim());
            }
        }
        if let (true, Some((_, token))) = (with_credentials, &config.bearer) {
            request = request.bearer_auth(token);
        }
        if let Some(etag) = etag {
            request = request.header(reqwest::header::IF_NONE_MATCH, etag);
        }
        let response = request
            .send()
            .await
            .map_err(|e| CardGetError::Unreachable {
                url: current.clone(),
                reason: unanswered(&e, config),
            })?;
        let status = response.status();
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let next = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|l| current.join(l).ok())
                .filter(|u| matches!(u.scheme(), "http" | "https"))
                .ok_or_else(|| CardGetError::BadLocation {
                    url: current.clone(),
                    status: status.as_u16(),
                })?;
            if next.origin() != origin && config.has_credentials() {
                cross_origin_hops.push(format!(
                    "the card at {current} redirected (HTTP {}) to {next}, another origin than {}: the credentials were not sent there",
                    status.as_u16(),
                    origin.ascii_serialization()
                ));
            }
            current = next;
            continue;
        }
        let header = |name: reqwest::header::HeaderName| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let cache_control = header(reqwest::header::CACHE_CONTROL);
        let etag = header(reqwest::header::ETAG);
        let body = read_bounded(response, config.timeout, config.limits.max_body_bytes)
            .await
            .map_err(|error| CardGetError::Body {
                url: current.clone(),
                reason: error.to_string(),
            })?;
        return Ok(CardResponse {
            status,
            body,
            cross_origin_hops,
            cache_control,
            etag,
        });
    }
    Err(CardGetError::TooManyRedirects { url: url.clone() })
}
