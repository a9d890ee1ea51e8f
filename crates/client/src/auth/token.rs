//! The OAuth 2.0 client-credentials grant (RFC 6749 §4.4) and OpenID
//! Connect discovery, with a per-check cache of tokens by token URL and
//! scope set. A plain form POST over the tool's own bounded reqwest client:
//! the `oauth2` crate would bring its own HTTP plumbing and type-state
//! machinery for flows a CI run never uses (authorization code, PKCE,
//! device); this grant is one request.
//!
//! The client authenticates with HTTP Basic (RFC 6749 §2.3.1: servers MUST
//! support it), so the secret is in a header the evidence never shows, not
//! in a form body. Tokens are reused while more than half their lifetime
//! remains and fetched anew after; every token obtained is registered as a
//! secret before anything can show it.

use super::settings::{IssuedSecrets, OAuthClient};
use crate::redact::Redactor;
use serde::Deserialize;
use std::collections::HashMap;
use std::time::{Duration, Instant};
use tokio::sync::Mutex;

/// The most of a token endpoint's or discovery document's answer read.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Why no token was obtained: one line for the evidence and the hint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenError {
    #[error("the token endpoint {url} could not be reached: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the token endpoint {url} refused the client credentials: HTTP {status}{detail}")]
    Refused {
        url: String,
        status: u16,
        detail: String,
    },
    #[error("the token endpoint {url} answered HTTP {status} without an access token ({reason})")]
    NoToken {
        url: String,
        status: u16,
        reason: String,
    },
    #[error("the OpenID Connect discovery document {url} gave no token endpoint ({reason})")]
    Discovery { url: String, reason: String },
}

/// A token the cache holds.
#[derive(Debug, Clone)]
struct Cached {
    access_token: String,
    obtained: Instant,
    lifetime: Option<Duration>,
    /// The token request's evidence line while no run has shown it yet
    /// (the request made before the runs, to find trouble early).
    unshown: Option<String>,
}

/// A token handed to a run, with the evidence line saying where it came from.
#[derive(Debug, Clone)]
pub(crate) struct Obtained {
    pub access_token: String,
    pub evidence: String,
}

/// Whether a token obtained at `obtained`, valid for `lifetime`, should be
/// fetched anew at `now`: once half its lifetime has passed, so that a run
/// starting with it has the other half. A token without `expires_in` lasts
/// the check.
pub(crate) fn needs_refresh(obtained: Instant, lifetime: Option<Duration>, now: Instant) -> bool {
    lifetime.is_some_and(|l| now.saturating_duration_since(obtained) >= l / 2)
}

/// The RFC 6749 §5.1 answer (and §5.2 error), read leniently.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    token_type: Option<String>,
    expires_in: Option<serde_json::Value>,
    scope: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Tokens of one OAuth client, for one check.
pub(crate) struct TokenCache {
    http: reqwest::Client,
    client: OAuthClient,
    tokens: Mutex<HashMap<(String, String), Cached>>,
    token_endpoints: Mutex<HashMap<String, String>>,
    issued: IssuedSecrets,
    /// Masks the configured secrets in the endpoint's words before they are
    /// clipped: a clip that cut a reflected secret in half would leave a
    /// half the report's redactor cannot recognise.
    masker: Redactor,
}

impl TokenCache {
    pub(crate) fn new(
        http: reqwest::Client,
        client: OAuthClient,
        issued: IssuedSecrets,
    ) -> TokenCache {
        TokenCache {
            http,
            tokens: Mutex::new(HashMap::new()),
            token_endpoints: Mutex::new(HashMap::new()),
            masker: Redactor::new([client.secret.value.clone()]),
            client,
            issued,
        }
    }

    /// This cache, also masking `secrets` (every configured credential) in
    /// what the token endpoint says.
    pub(crate) fn masking(mut self, secrets: Vec<String>) -> TokenCache {
        let mut all = self.masker.secrets().to_vec();
        all.extend(secrets);
        self.masker = Redactor::new(all);
        self
    }

    /// A token from `token_url` carrying `scopes`: the cached one while it
    /// is fresh, else a new one. The lock is held across a fetch so that
    /// runs starting together make one request, not one each.
    ///
    /// `for_run`: the token goes to a run, whose evidence shows its request
    /// (made now, or made earlier and not shown yet).
    pub(crate) async fn token(
        &self,
        token_url: &url::Url,
        scopes: &[String],
        for_run: bool,
    ) -> Result<Obtained, TokenError> {
        let mut sorted = scopes.to_vec();
        sorted.sort();
        sorted.dedup();
        let scope = sorted.join(" ");
        let key = (token_url.to_string(), scope.clone());
        let mut tokens = self.tokens.lock().await;
        let now = Instant::now();
        if let Some(cached) = tokens.get_mut(&key) {
            if !needs_refresh(cached.obtained, cached.lifetime, now) {
                if let Some(evidence) = cached.unshown.take_if(|_| for_run) {
                    return Ok(Obtained {
                        access_token: cached.access_token.clone(),
                        evidence,
                    });
                }
                let age = now.duration_since(cached.obtained).as_secs();
                let left = cached
                    .lifetime
                    .map(|l| {
                        format!(
                            ", {} s of {} s left",
                            l.as_secs().saturating_sub(age),
                            l.as_secs()
                        )
                    })
                    .unwrap_or_default();
                return Ok(Obtained {
                    access_token: cached.access_token.clone(),
                    evidence: format!(
                        "access token (scope \"{scope}\") from {token_url}: reused from {age} s ago{left}"
                    ),
                });
            }
        }
        let (mut cached, evidence) = self.fetch(token_url, &scope).await?;
        if !for_run {
            cached.unshown = Some(evidence.clone());
        }
        let obtained = Obtained {
            access_token: cached.access_token.clone(),
            evidence,
        };
        tokens.insert(key, cached);
        Ok(obtained)
    }

    /// Asks `token_url` for a new token: the grant, the checks on its
    /// answer, and the evidence line.
    async fn fetch(
        &self,
        token_url: &url::Url,
        scope: &str,
    ) -> Result<(Cached, String), TokenError> {
        let url = token_url.to_string();
        let sent = Instant::now();
        let (status, body) = self.post_grant(token_url, scope).await?;
        let answer: Option<TokenAnswer> = serde_json::from_slice(&body).ok();
        if !(200..300).contains(&status) {
            return Err(TokenError::Refused {
                detail: self.refusal_detail(answer.as_ref()),
                url,
                status,
            });
        }
        let Some(answer) = answer else {
            return Err(TokenError::NoToken {
                url,
                status,
                reason: "the body is not a JSON token answer".into(),
            });
        };
        let access_token = self.access_token(&answer, &url, status)?;
        let lifetime = answer
            .expires_in
            .as_ref()
            .and_then(|v| v.as_u64().or_else(|| v.as_str()?.trim().parse().ok()))
            .map(Duration::from_secs);
        let evidence = format!(
            "POST {url} (grant_type=client_credentials{scope_field}; client ${id} authenticated with HTTP Basic, secret from ${secret}) → HTTP {status} in {ms} ms: token_type {token_type}{expires}{granted}, access_token {mask}",
            scope_field = if scope.is_empty() { String::new() } else { format!(", scope=\"{scope}\"") },
            id = self.client.id.var,
            secret = self.client.secret.var,
            ms = sent.elapsed().as_millis(),
            token_type = answer.token_type.as_deref().unwrap_or("(none)"),
            expires = lifetime.map(|l| format!(", expires_in {} s", l.as_secs())).unwrap_or_default(),
            granted = answer.scope.as_deref().map(|s| format!(", scope \"{s}\"")).unwrap_or_default(),
            mask = Redactor::MASK,
        );
        let cached = Cached {
            access_token,
            obtained: sent,
            lifetime,
            unshown: None,
        };
        Ok((cached, evidence))
    }

    /// The client-credentials grant's form POST, authenticated with HTTP
    /// Basic; the answer's status and (bounded) body.
    async fn post_grant(
        &self,
        token_url: &url::Url,
        scope: &str,
    ) -> Result<(u16, Vec<u8>), TokenError> {
        let unreachable = |reason: String| TokenError::Unreachable {
            url: token_url.to_string(),
            reason,
        };
        let mut form = vec![("grant_type", "client_credentials")];
        if !scope.is_empty() {
            form.push(("scope", scope));
        }
        let response = self
            .http
            .post(token_url.clone())
            .basic_auth(&self.client.id.value, Some(&self.client.secret.value))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(&form)
            .send()
            .await
            .map_err(|e| unreachable(crate::client::describe_reqwest_error(&e)))?;
        let status = response.status().as_u16();
        let body = read_limited(response)
            .await
            .map_err(|e| unreachable(e.to_string()))?;
        Ok((status, body))
    }

    /// What a refusal says of itself (RFC 6749 §5.2 `error` and
    /// `error_description`), secrets masked and clipped: ` (invalid_client: …)`.
    fn refusal_detail(&self, answer: Option<&TokenAnswer>) -> String {
        let Some(error) = answer.and_then(|a| a.error.as_deref()) else {
            return String::new();
        };
        let description = answer
            .and_then(|a| a.error_description.as_deref())
            .map(|d| format!(": {}", self.peer_text(d, 160)))
            .unwrap_or_default();
        format!(" ({}{description})", self.peer_text(error, 60))
    }

    /// The access token of a success answer, registered as a secret before
    /// anything can show it, once it is known fit to send as a bearer token.
    fn access_token(
        &self,
        answer: &TokenAnswer,
        url: &str,
        status: u16,
    ) -> Result<String, TokenError> {
        let no_token = |reason: String| TokenError::NoToken {
            url: url.to_string(),
            status,
            reason,
        };
        let Some(access_token) = answer.access_token.clone().filter(|t| !t.trim().is_empty())
        else {
            return Err(no_token("no access_token".into()));
        };
        self.issued.add(&access_token);
        // RFC 6749 §A.12: an access token is visible ASCII and spaces. Any
        // other character (CR, LF, controls) cannot go in a header: refused
        // here, named, rather than failing each request or injecting one.
        if !access_token.chars().all(|c| (' '..='~').contains(&c)) {
            return Err(no_token(
                "the access_token holds characters a header cannot carry (RFC 6749 §A.12: visible ASCII only)".into(),
            ));
        }
        // RFC 6750: only a Bearer token goes in `Authorization: Bearer`;
        // one of another type (`mac`, `DPoP`) would be sent wrongly.
        if let Some(kind) = answer
            .token_type
            .as_deref()
            .filter(|t| !t.eq_ignore_ascii_case("bearer"))
        {
            return Err(no_token(format!(
                "token_type `{}`, not Bearer: the tool sends bearer tokens only",
                self.peer_text(kind, 40)
            )));
        }
        Ok(access_token)
    }

    /// The endpoint's own words, secrets masked, then clipped to `max`.
    fn peer_text(&self, text: &str, max: usize) -> String {
        a2a_conform_protocol::text::clip(&self.masker.redact(text), max)
    }

    /// The token endpoint an OpenID Connect discovery document names (read
    /// once per document, without credentials).
    pub(crate) async fn discover(&self, discovery_url: &url::Url) -> Result<url::Url, TokenError> {
        let key = discovery_url.to_string();
        let mut endpoints = self.token_endpoints.lock().await;
        if let Some(found) = endpoints.get(&key) {
            if let Ok(url) = url::Url::parse(found) {
                return Ok(url);
            }
        }
        let fail = |reason: String| TokenError::Discovery {
            url: key.clone(),
            reason,
        };
        let response = self
            .http
            .get(discovery_url.clone())
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| fail(crate::client::describe_reqwest_error(&e)))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(fail(format!("HTTP {status}")));
        }
        let body = read_limited(response)
            .await
            .map_err(|e| fail(e.to_string()))?;
        let document: serde_json::Value =
            serde_json::from_slice(&body).map_err(|_| fail("the body is not JSON".into()))?;
        let endpoint = document
            .get("token_endpoint")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| fail("no token_endpoint".into()))?;
        let url = discovery_url
            .join(endpoint)
            .map_err(|e| fail(format!("token_endpoint `{endpoint}` is not a URL: {e}")))?;
        endpoints.insert(key, url.to_string());
        Ok(url)
    }
}

/// Why an answer's body could not be read whole.
#[derive(Debug, thiserror::Error)]
enum AnswerError {
    /// The connection broke or timed out (the client's whole-request bound).
    #[error("{}", crate::client::describe_reqwest_error(.0))]
    Broken(reqwest::Error),
    #[error("the answer is over {MAX_ANSWER_BYTES} bytes")]
    TooLarge,
}

/// The body of an answer, at most [`MAX_ANSWER_BYTES`].
async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, AnswerError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(AnswerError::Broken)? {
        if body.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(AnswerError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_refreshed_after_half_its_lifetime_and_one_without_expiry_never() {
        let start = Instant::now();
        let life = Some(Duration::from_secs(60));
        assert!(!needs_refresh(start, life, start + Duration::from_secs(29)));
        assert!(needs_refresh(start, life, start + Duration::from_secs(30)));
        assert!(!needs_refresh(
            start,
            None,
            start + Duration::from_secs(3600)
        ));
    }
}

#[cfg(test)]
mod cache_tests {
    use super::*;
    use crate::auth::EnvSecret;
    use a2a_conform_mock::{Behaviour, MockConfig, MockPeer};

    #[tokio::test]
    async fn a_token_is_fetched_once_per_scope_set_and_reused_while_fresh() {
        let peer = MockPeer::start(MockConfig {
            behaviour: Behaviour::SecuredOauth,
            auth_token: Some("cache-secret".into()),
            ..MockConfig::default()
        })
        .await
        .unwrap();
        let issued = IssuedSecrets::default();
        let client = OAuthClient {
            id: EnvSecret {
                var: "ID".into(),
                value: a2a_conform_mock::auth::CLIENT_ID.into(),
            },
            secret: EnvSecret {
                var: "SECRET".into(),
                value: "cache-secret".into(),
            },
        };
        let cache = TokenCache::new(reqwest::Client::new(), client, issued.clone());
        let url = url::Url::parse(&format!("{}/oauth/token", peer.base_url())).unwrap();
        let scopes = vec!["a2a:invoke".to_string()];
        let first = cache.token(&url, &scopes, false).await.unwrap();
        // The request made before the runs is shown by the first run.
        let shown = cache.token(&url, &scopes, true).await.unwrap();
        assert_eq!(shown.access_token, first.access_token);
        assert!(shown.evidence.starts_with("POST "), "{}", shown.evidence);
        let reused = cache.token(&url, &scopes, true).await.unwrap();
        assert_eq!(reused.access_token, first.access_token);
        assert!(reused.evidence.contains("reused"), "{}", reused.evidence);
        let wider = cache
            .token(&url, &["echo:data".into(), "a2a:invoke".into()], true)
            .await
            .unwrap();
        assert_ne!(wider.access_token, first.access_token);
        assert_eq!(issued.all(), vec![first.access_token, wider.access_token]);
        assert!(!wider.evidence.contains("cache-secret"));
        peer.shutdown().await;
    }
}
