//! Fetching a peer's card (credentials kept to their origin), and the
//! warnings a card earns before any scenario runs: another origin for its
//! endpoint, credentials it requires but was not given.

use super::options::RunOptions;
use a2a_conform_client::client::{http_client, ClientConfig};
use a2a_conform_client::redirect::get_card;
use a2a_conform_client::Redactor;
use a2a_conform_protocol::card::{self, Card};

/// A card fetched and parsed, or the one line saying why not. Redirects
/// are followed a few times, credentials only on the card URL's origin; an
/// endpoint on another origin is a warning naming both. Peer text that ends
/// up in ids and reports (name, skill ids, modes, warnings) is redacted here,
/// before anything shows it.
pub async fn fetch_card(input: &str, options: &RunOptions) -> Result<Card, CardUnavailable> {
    let url = card::discovery_url(input).map_err(|e| CardUnavailable {
        card_url: input.to_string(),
        reason: e.to_string(),
    })?;
    let shown = url.to_string();
    let fail = |m: String| CardUnavailable {
        card_url: shown.clone(),
        reason: options.redactor.redact(&m),
    };
    let client = http_client(options.client.timeout, &options.client.tls)
        .map_err(|e| fail(e.to_string()))?;
    let response = get_card(&client, &url, &options.client)
        .await
        .map_err(|e| fail(e.to_string()))?;
    let status = response.status;
    if !status.is_success() {
        return Err(fail(format!(
            "the card at {url} answered HTTP {}{}",
            status.as_u16(),
            status
                .canonical_reason()
                .map(|r| format!(" {r}"))
                .unwrap_or_default()
        )));
    }
    let mut card = card::parse_card(&url, &response.body, options.protocol, options.binding)
        .map_err(|e| fail(e.to_string()))?;
    card.warnings.extend(response.cross_origin_hops);
    // Redacted before the warning clips it: a clip through a reflected
    // secret would leave a piece the card's redaction below cannot find.
    let cache_control = response
        .cache_control
        .as_deref()
        .map(|value| options.redactor.redact(value));
    card.warnings.extend(card::hygiene::cache_warnings(
        cache_control.as_deref(),
        response.etag.as_deref(),
    ));
    card.warnings
        .extend(endpoint_origin_warning(&url, &card, &options.client));
    redact_card(&mut card, &options.redactor);
    Ok(card)
}

/// Why a peer has no usable card: the URL it was looked for at (as the
/// report names the peer) and the one-line reason, redacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct CardUnavailable {
    pub card_url: String,
    pub reason: String,
}

/// The warning for a card whose endpoint is on another origin (scheme, host,
/// port) than the card: the credentials were given for the card's.
pub(super) fn endpoint_origin_warning(
    card_url: &url::Url,
    card: &Card,
    client: &ClientConfig,
) -> Option<String> {
    let card_origin = card_url.origin();
    let endpoint_origin = url::Url::parse(&card.endpoint.url).ok()?.origin();
    if card_origin == endpoint_origin || !card_origin.is_tuple() || !endpoint_origin.is_tuple() {
        return None;
    }
    let (card_origin, endpoint_origin) = (
        card_origin.ascii_serialization(),
        endpoint_origin.ascii_serialization(),
    );
    let consequence = if client.same_origin_credentials {
        "no credentials are sent there (--same-origin-credentials), so what needs them reads unverified".to_string()
    } else if client.has_credentials() {
        format!("the credentials (--bearer-env, --header) are sent there too; --same-origin-credentials keeps them to {card_origin}")
    } else {
        format!("credentials given with --bearer-env or --header would be sent there too; --same-origin-credentials keeps them to {card_origin}")
    };
    Some(format!(
        "the card at {card_origin} names its endpoint on another origin, {endpoint_origin}: {consequence}"
    ))
}

/// Masks the configured secrets in the card's text that reaches ids and
/// reports: a peer may reflect a token in its name, a skill id, a mode.
pub(super) fn redact_card(card: &mut Card, redactor: &Redactor) {
    if redactor.is_empty() {
        return;
    }
    let all = |items: &mut Vec<String>| items.iter_mut().for_each(|s| *s = redactor.redact(s));
    card.name = redactor.redact(&card.name);
    card.version = card.version.as_deref().map(|v| redactor.redact(v));
    all(&mut card.default_input_modes);
    all(&mut card.default_output_modes);
    all(&mut card.security_schemes);
    all(&mut card.warnings);
    for skill in &mut card.skills {
        skill.id = redactor.redact(&skill.id);
        skill.name = redactor.redact(&skill.name);
        skill.input_modes.iter_mut().for_each(all);
        skill.output_modes.iter_mut().for_each(all);
    }
}

/// The warning for a card that requires credentials when none were given
/// (nor obtained from its schemes): every request but the security probes
/// will likely be refused. `client` is the card-level one [`a2a_conform_client::auth`]
/// resolved; its hint names the scheme and the flag.
pub fn credentials_warning(card: &Card, client: &ClientConfig) -> Option<String> {
    (card.security_required && !client.has_credentials()).then(|| {
        let how = client.auth_hint.clone().unwrap_or_else(|| {
            "pass a token with --bearer-env VAR (or a header with --header)".to_string()
        });
        format!(
            "the card requires credentials (security requirements) but none were given: \
             the peer will likely refuse every request with HTTP 401/403 and the scenarios \
             read inconclusive; {how}"
        )
    })
}
