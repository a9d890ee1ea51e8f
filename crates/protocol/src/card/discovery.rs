//! From what the user typed to the URL the card is fetched from.

use super::error::CardError;
use url::{ParseError, Url};

/// The well-known path of an agent card, relative to a base URL (both versions).
pub const WELL_KNOWN_PATH: &str = ".well-known/agent-card.json";

/// Where to fetch the card from.
///
/// A card URL (its path ends in `.json`, any case) is used as is, e.g. the 0.2-era
/// `/.well-known/agent.json`. Any other URL is a base URL and gets
/// `/.well-known/agent-card.json` appended to its path, keeping an existing prefix:
/// `http://h/agents/x` becomes `http://h/agents/x/.well-known/agent-card.json`.
/// Surrounding whitespace and the fragment are dropped; the query is kept.
///
/// # Errors
/// [`CardError::BadUrl`], naming the input, when it is not a URL, its scheme is
/// not http or https, or it has no host.
pub fn discovery_url(input: &str) -> Result<Url, CardError> {
    let input = input.trim();
    let bad = |reason: String| CardError::BadUrl {
        input: input.to_string(),
        reason,
    };
    let no_scheme = || {
        bad(format!(
            "it has no http:// or https:// scheme (write it as https://{input})"
        ))
    };
    let mut url = match Url::parse(input) {
        Ok(url) => url,
        Err(ParseError::RelativeUrlWithoutBase) if !input.is_empty() => return Err(no_scheme()),
        Err(ParseError::RelativeUrlWithoutBase) => return Err(bad("it is empty".into())),
        Err(ParseError::EmptyHost) => return Err(bad("it has no host".into())),
        Err(other) => return Err(bad(format!("it does not parse as a URL ({other})"))),
    };
    if !matches!(url.scheme(), "http" | "https") {
        // `localhost:8080` parses with the scheme `localhost`.
        if !input.contains("://") {
            return Err(no_scheme());
        }
        return Err(bad(format!(
            "its scheme `{}` is not http or https",
            url.scheme()
        )));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host".into()));
    }
    if url.password().is_some() {
        // The URL names the peer in every report and log line: a password
        // in it would be printed everywhere. Shown here without it.
        let mut shown = url.clone();
        let _ = shown.set_password(Some("***"));
        return Err(CardError::BadUrl {
            input: shown.to_string(),
            reason: "it holds a password, which every report would print: give the \
                     credentials with --basic-env USER_VAR:PASS_VAR instead"
                .into(),
        });
    }
    url.set_fragment(None);
    if !url.path().to_ascii_lowercase().ends_with(".json") {
        let prefix = url.path().trim_end_matches('/').to_string();
        url.set_path(&format!("{prefix}/{WELL_KNOWN_PATH}"));
    }
    Ok(url)
}
