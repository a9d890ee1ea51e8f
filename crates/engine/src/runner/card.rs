//! The card stage: a peer's card fetched and parsed by the client crate
//! (`a2a_conform_client::card_fetch`: the bounded GET, credentials kept to
//! their origin, the fetch's own warnings), then the peer text that reaches
//! ids and reports (name, skill ids, modes, warnings) redacted before
//! anything shows it, and the peer's report opened with what the card says.

use super::options::RunOptions;
use a2a_conform_client::card_fetch;
use a2a_conform_client::Redactor;
use a2a_conform_protocol::card::Card;
use a2a_conform_report::PeerReport;

/// Why a peer has no usable card: the URL it was looked for at (as the
/// report names the peer) and the one-line reason, redacted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct CardUnavailable {
    /// Where the card was looked for (the input as given when it is no URL).
    pub card_url: String,
    /// Why there is no card, in one line, with every configured secret masked.
    pub reason: String,
}

impl CardUnavailable {
    /// The peer's report: no runs, only this card error.
    pub(crate) fn into_report(self) -> PeerReport {
        PeerReport {
            card_error: Some(self.reason),
            ..PeerReport::new(self.card_url)
        }
    }
}

/// A card fetched and parsed, or the one line saying why not. Redirects
/// are followed a few times, credentials only on the card URL's origin; an
/// endpoint on another origin is a warning naming both. Peer text that ends
/// up in ids and reports (name, skill ids, modes, warnings) is redacted here,
/// before anything shows it.
pub async fn fetch_card(input: &str, options: &RunOptions) -> Result<Card, CardUnavailable> {
    let redactor = &options.redactor;
    let mut card = card_fetch::fetch_card(
        input,
        &options.client,
        options.protocol,
        options.binding,
        redactor,
    )
    .await
    .map_err(|e| CardUnavailable {
        reason: redactor.redact(&e.to_string()),
        card_url: e.card_url,
    })?;
    redact_card(&mut card, redactor);
    Ok(card)
}

/// [`fetch_card`], unless `options.cancel` fires first: the peer's report
/// of why there is no card (its own, or the interruption's).
pub(crate) async fn fetch_until_cancelled(
    input: &str,
    options: &RunOptions,
) -> Result<Card, PeerReport> {
    tokio::select! {
        fetched = fetch_card(input, options) => fetched.map_err(CardUnavailable::into_report),
        () = options.cancel.cancelled() => Err(interrupted(input, "while fetching the card")),
    }
}

/// The report of a peer a signal stopped the check before its card was
/// read, under the URL the card is (or would have been) fetched from, as a
/// reached or down peer's is; the input as given when it is no URL.
pub(crate) fn interrupted(input: &str, when: &str) -> PeerReport {
    let card_url = a2a_conform_protocol::discovery_url(input)
        .map_or_else(|_| input.to_string(), |url| url.to_string());
    PeerReport::interrupted(card_url, when)
}

/// The peer's report as the card opens it: its name, digest, version,
/// binding, endpoint and warnings; runs and rows come later.
pub(crate) fn peer_report(card: &Card) -> PeerReport {
    PeerReport {
        name: Some(card.name.clone()),
        card_digest: Some(card.digest.clone()),
        protocol_version: Some(card.protocol_version().as_str().into()),
        binding: Some(card.binding().as_str().into()),
        endpoint: Some(card.endpoint.shown_target().to_string()),
        card_warnings: card.warnings.clone(),
        card_body: serde_json::to_string(&card.raw).ok(),
        ..PeerReport::new(card.fetched_from.clone())
    }
}

/// Masks the configured secrets in the card's text that reaches ids and
/// reports: a peer may reflect a token in its name, a skill id, a mode.
fn redact_card(card: &mut Card, redactor: &Redactor) {
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
