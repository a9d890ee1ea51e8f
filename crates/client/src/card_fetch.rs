//! Fetching a peer's agent card: what the user typed turned into the card
//! URL (`card::discovery_url`), the GET with the bounded client and the
//! credentials kept to their origin ([`crate::redirect`]), the body parsed
//! (`card::parse_card`), and the warnings the fetch itself earns: redirects
//! that left the credentials' origin, missing caching headers (card
//! hygiene), an endpoint on another origin than the card's.
//!
//! What a peer may reflect in the card's own fields (a token in its name) is
//! the caller's to redact; the one header value a warning clips is redacted
//! here, before the clip could cut a secret in two.

use crate::credentials::ClientConfig;
use crate::http::{http_client, ClientBuildError};
use crate::redact::Redactor;
use crate::redirect::{get_card_if_none_match, CardGetError};
use a2a_conform_protocol::card::{self, BindingChoice, Card, CardError, ProtocolChoice};
use reqwest::StatusCode;
use std::time::Duration;
use url::Url;

/// Why no card could be read: the URL it was looked for at (the input as
/// given when no URL could be made of it) and the cause.
#[derive(Debug, thiserror::Error)]
#[error("{cause}")]
pub struct CardFetchError {
    /// Where the card was looked for, as a report names the peer.
    pub card_url: String,
    /// What went wrong; its text is the one line a report shows.
    pub cause: CardFetchCause,
}

/// What went wrong fetching a card.
#[derive(Debug, thiserror::Error)]
pub enum CardFetchCause {
    /// The input is no URL a card can be fetched from.
    #[error(transparent)]
    Url(CardError),
    /// The HTTP client could not be built (trust roots, identity).
    #[error(transparent)]
    Client(#[from] ClientBuildError),
    /// The GET got no answer, or no usable one (redirects, body).
    #[error(transparent)]
    Get(#[from] CardGetError),
    /// The card URL answered, but not with a success status.
    #[error("the card at {url} answered HTTP {}{}", .status.as_u16(), reason_phrase(*.status))]
    Status {
        /// The card URL asked.
        url: Url,
        /// The final status after any redirects.
        status: StatusCode,
    },
    /// The body is no agent card this tool can use.
    #[error(transparent)]
    Parse(CardError),
}

/// ` Not Found`, or nothing for a status without a canonical reason.
fn reason_phrase(status: StatusCode) -> String {
    status
        .canonical_reason()
        .map(|r| format!(" {r}"))
        .unwrap_or_default()
}

/// Fetches and parses the card for `input` (a card URL or a base URL):
/// redirects followed a few times, credentials only on the card URL's
/// origin, the body within the card's cap. The card's warnings gain the
/// fetch's own (cross-origin redirects, caching headers, an endpoint on
/// another origin); `redactor` masks the caching header a warning quotes.
pub async fn fetch_card(
    input: &str,
    config: &ClientConfig,
    protocol: ProtocolChoice,
    binding: BindingChoice,
    redactor: &Redactor,
) -> Result<Card, CardFetchError> {
    let (card, _) = fetch_card_validated(input, config, protocol, binding, redactor).await?;
    Ok(card)
}

/// The caching headers a card was served with: what a client needs to
/// know how long the card stays fresh and to revalidate it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CardValidators {
    /// The response's `ETag`, sent back as `If-None-Match` on a refetch.
    pub etag: Option<String>,
    /// The response's `Cache-Control`, as served.
    pub cache_control: Option<String>,
}

impl CardValidators {
    /// How long the card stays fresh: `max-age` (`no-cache` and
    /// `no-store` are zero); `None` when the header gives no lifetime.
    ///
    /// ```
    /// use a2a_conform_client::card_fetch::CardValidators;
    /// use std::time::Duration;
    ///
    /// let served = |v: &str| CardValidators { etag: None, cache_control: Some(v.into()) };
    /// assert_eq!(served("public, max-age=300").max_age(), Some(Duration::from_secs(300)));
    /// assert_eq!(served("no-cache").max_age(), Some(Duration::ZERO));
    /// assert_eq!(served("public").max_age(), None);
    /// assert_eq!(CardValidators::default().max_age(), None);
    /// ```
    pub fn max_age(&self) -> Option<Duration> {
        let header = self.cache_control.as_deref()?;
        let mut lifetime = None;
        for directive in header.split(',').map(str::trim) {
            let (name, value) = directive.split_once('=').unwrap_or((directive, ""));
            match name.trim().to_ascii_lowercase().as_str() {
                "no-cache" | "no-store" => return Some(Duration::ZERO),
                "max-age" => {
                    let seconds = value.trim().trim_matches('"').parse::<u64>().ok();
                    lifetime = lifetime.or(seconds.map(Duration::from_secs));
                }
                _ => {}
            }
        }
        lifetime
    }
}

/// What a conditional refetch of a card found.
#[derive(Debug)]
pub enum CardRefetch {
    /// `304 Not Modified`: the card held is still the one served.
    NotModified(CardValidators),
    /// A full answer: the card as served now (its digest tells whether it
    /// changed).
    Served(Box<Card>, CardValidators),
}

/// As [`fetch_card`], answering the caching headers the card came with too.
pub async fn fetch_card_validated(
    input: &str,
    config: &ClientConfig,
    protocol: ProtocolChoice,
    binding: BindingChoice,
    redactor: &Redactor,
) -> Result<(Card, CardValidators), CardFetchError> {
    match refetch_card(input, None, config, protocol, binding, redactor).await? {
        CardRefetch::Served(card, validators) => Ok((*card, validators)),
        // Only an `If-None-Match` earns a 304; without one it is no card.
        CardRefetch::NotModified(_) => Err(CardFetchError {
            card_url: input.to_string(),
            cause: CardFetchCause::Status {
                url: card::discovery_url(input).map_err(|e| CardFetchError {
                    card_url: input.to_string(),
                    cause: CardFetchCause::Url(e),
                })?,
                status: StatusCode::NOT_MODIFIED,
            },
        }),
    }
}

/// Refetches the card for `input`, revalidating when `etag` is given (the
/// one it was last served with): `If-None-Match` goes with the GET, and a
/// `304 Not Modified` is answered as [`CardRefetch::NotModified`].
pub async fn refetch_card(
    input: &str,
    etag: Option<&str>,
    config: &ClientConfig,
    protocol: ProtocolChoice,
    binding: BindingChoice,
    redactor: &Redactor,
) -> Result<CardRefetch, CardFetchError> {
    let url = card::discovery_url(input).map_err(|e| CardFetchError {
        card_url: input.to_string(),
        cause: CardFetchCause::Url(e),
    })?;
    let fail = |cause: CardFetchCause| CardFetchError {
        card_url: url.to_string(),
        cause,
    };
    let client = http_client(config.timeout, &config.tls).map_err(|e| fail(e.into()))?;
    let response = get_card_if_none_match(&client, &url, config, etag)
        .await
        .map_err(|e| fail(e.into()))?;
    let validators = CardValidators {
        etag: response.etag.clone(),
        cache_control: response.cache_control.clone(),
    };
    if response.status == StatusCode::NOT_MODIFIED && etag.is_some() {
        return Ok(CardRefetch::NotModified(validators));
    }
    if !response.status.is_success() {
        return Err(fail(CardFetchCause::Status {
            url: url.clone(),
            status: response.status,
        }));
    }
    let mut card = card::parse_card(&url, &response.body, protocol, binding)
        .map_err(|e| fail(CardFetchCause::Parse(e)))?;
    card.warnings.extend(response.cross_origin_hops);
    // Redacted before the warning clips it: a clip through a reflected
    // secret would leave a piece no later redaction can find.
    let cache_control = response
        .cache_control
        .as_deref()
        .map(|value| redactor.redact(value));
    card.warnings.extend(card::hygiene::cache_warnings(
        cache_control.as_deref(),
        response.etag.as_deref(),
    ));
    card.warnings
        .extend(endpoint_origin_warning(&url, &card, config));
    Ok(CardRefetch::Served(Box::new(card), validators))
}

/// The warning for a card whose endpoint is on another origin (scheme, host,
/// port) than the card: the credentials were given for the card's.
fn endpoint_origin_warning(card_url: &Url, card: &Card, config: &ClientConfig) -> Option<String> {
    let card_origin = card_url.origin();
    let endpoint_origin = Url::parse(&card.endpoint.url).ok()?.origin();
    if card_origin == endpoint_origin || !card_origin.is_tuple() || !endpoint_origin.is_tuple() {
        return None;
    }
    let (card_origin, endpoint_origin) = (
        card_origin.ascii_serialization(),
        endpoint_origin.ascii_serialization(),
    );
    let consequence = if config.same_origin_credentials {
        "no credentials are sent there (--same-origin-credentials), so what needs them reads unverified".to_string()
    } else if config.has_credentials() {
        format!("the credentials (--bearer-env, --header) are sent there too; --same-origin-credentials keeps them to {card_origin}")
    } else {
        format!("credentials given with --bearer-env or --header would be sent there too; --same-origin-credentials keeps them to {card_origin}")
    };
    Some(format!(
        "the card at {card_origin} names its endpoint on another origin, {endpoint_origin}: {consequence}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_mock::{MockConfig, MockPeer};

    async fn fetch(input: &str) -> Result<Card, CardFetchError> {
        fetch_card(
            input,
            &ClientConfig::default(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
            &Redactor::default(),
        )
        .await
    }

    #[tokio::test]
    async fn a_base_url_finds_the_well_known_card() {
        let peer = MockPeer::start(MockConfig::default()).await.unwrap();
        let card = fetch(&peer.base_url()).await.expect("the mock's card");
        assert_eq!(card.fetched_from, peer.card_url());
        assert!(!card.name.is_empty());
    }

    #[tokio::test]
    async fn a_missing_card_names_the_url_and_the_status() {
        let peer = MockPeer::start(MockConfig::default()).await.unwrap();
        let input = format!("{}/nowhere/agent.json", peer.base_url());
        let error = fetch(&input).await.expect_err("no card there");
        assert_eq!(error.card_url, input);
        assert!(
            matches!(error.cause, CardFetchCause::Status { status, .. } if status == 404),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            format!("the card at {input} answered HTTP 404 Not Found")
        );
    }

    #[tokio::test]
    async fn a_refetch_with_the_etag_is_not_modified_until_the_card_changes() {
        let peer = MockPeer::start(MockConfig::default()).await.unwrap();
        let (card, validators) = fetch_card_validated(
            &peer.card_url(),
            &ClientConfig::default(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
            &Redactor::default(),
        )
        .await
        .expect("the mock's card");
        assert_eq!(validators.max_age(), Some(Duration::from_secs(300)));
        let etag = validators.etag.clone().expect("the mock serves an ETag");
        let refetch = |etag: String| {
            let url = peer.card_url();
            async move {
                refetch_card(
                    &url,
                    Some(&etag),
                    &ClientConfig::default(),
                    ProtocolChoice::Auto,
                    BindingChoice::Auto,
                    &Redactor::default(),
                )
                .await
                .expect("an answer")
            }
        };
        assert!(
            matches!(refetch(etag.clone()).await, CardRefetch::NotModified(v) if v.etag.as_deref() == Some(etag.as_str()))
        );
        assert_eq!(peer.card_requests(), (1, 1));
        peer.revise_card();
        match refetch(etag.clone()).await {
            CardRefetch::Served(changed, v) => {
                assert_ne!(changed.digest, card.digest);
                assert_ne!(v.etag, Some(etag));
            }
            other => panic!("a changed card is served whole: {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_input_that_is_no_url_is_named_as_given() {
        let error = fetch("not a url at all").await.expect_err("no URL");
        assert_eq!(error.card_url, "not a url at all");
        assert!(matches!(error.cause, CardFetchCause::Url(_)), "{error:?}");
    }
}
