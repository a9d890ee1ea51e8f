//! Meeting a card's security requirements with what the user gave: for each
//! run, the requirement that governs it (the skill's own, else the card's),
//! its first alternative whose every scheme can be satisfied, and the
//! credentials that satisfy it — a header, a query parameter, a cookie, an
//! access token. What cannot be satisfied becomes the hint a refused run
//! reads `unverified` with, naming the scheme and the flag.
//!
//! Where secrets go: the API key, basic password and access token go where
//! every credential goes (the card's origin and its endpoint, never across
//! a redirect, and under `--same-origin-credentials` only to the card's
//! origin). The client secret goes only to the token URL the card names
//! (or the token endpoint its OpenID Connect document names): over https,
//! or plain http to a loopback host only, never following a redirect; and
//! under `--same-origin-credentials` only when that URL is on the card's
//! origin. The card is the user's chosen peer: trusting it to name its
//! token URL is trusting the peer the secret was given for.

use super::scheme::{
    CardSecurity, ClientCredentialsFlow, KeyLocation, Requirement, SchemeKind, SecurityScheme,
};
use super::settings::{AuthSettings, IssuedSecrets};
use super::token::{TokenCache, TokenError};
use crate::client::ClientConfig;
use a2a_conform_protocol::card::Card;
use base64::Engine;
use std::sync::Arc;

/// The credentials one run carries, and the evidence of how they were obtained.
#[derive(Debug, Clone)]
pub struct RunAuth {
    /// The client settings for the run: the peer's, plus the credentials
    /// obtained, and the hint a refusal of them reads with.
    pub config: ClientConfig,
    /// One line per token request (or cache hit) made for the run, redacted.
    pub evidence: Vec<String>,
    /// Why no token was obtained, when a token request failed.
    pub trouble: Option<String>,
    /// Whether the token endpoint refused the client credentials given
    /// (HTTP 400/401/403): they were given and refused.
    pub refused: bool,
}

/// Where an access token comes from.
#[derive(Debug, Clone)]
enum TokenSource {
    TokenUrl(url::Url),
    Discovery(url::Url),
}

/// One way a scheme is satisfied.
#[derive(Debug, Clone)]
enum Grant {
    /// A header, its value, and how a reproduction shows it (`$VAR`).
    Header(String, String, String),
    Query(String, String),
    Token {
        source: TokenSource,
        scopes: Vec<String>,
    },
    /// What the client already carries (`--bearer-env`, a `--header`, `--cert`).
    Configured,
}

/// A scheme that cannot be satisfied, and what would satisfy it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the card's scheme `{scheme}` ({description}) needs {needs}")]
struct Missing {
    scheme: String,
    description: String,
    needs: Needs,
}

/// What would satisfy a scheme that the user's settings cannot: the flag
/// to pass, or why the tool cannot.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum Needs {
    #[error("a declaration the tool can read")]
    Declaration,
    #[error("--api-key-env VAR")]
    ApiKey,
    #[error("--bearer-env VAR")]
    Bearer,
    #[error("--basic-env USER_VAR:PASS_VAR")]
    Basic,
    #[error(
        "an Authorization header (--header 'Authorization: …'); the tool builds none for this scheme"
    )]
    AuthorizationHeader,
    #[error(
        "--bearer-env VAR with a token obtained elsewhere: the card offers no client-credentials flow"
    )]
    NoClientCredentialsFlow,
    #[error(
        "--oauth-client-id-env VAR and --oauth-client-secret-env VAR (or a token with --bearer-env VAR)"
    )]
    OAuthClient,
    #[error("a token URL that parses (`{text}`: {error})")]
    UrlThatParses {
        text: String,
        error: url::ParseError,
    },
    #[error("a token URL the tool may send the client secret to: {0}")]
    SafeTokenUrl(UnsafeUrl),
    #[error("a discovery URL the tool may use: {0}")]
    SafeDiscoveryUrl(UnsafeUrl),
    #[error("a client certificate: --cert FILE --key FILE")]
    ClientCertificate,
    #[error("credentials the tool cannot build; pass them with --header")]
    UnknownScheme,
}

/// Why the client secret may not go to a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum UnsafeUrl {
    #[error(
        "{0} is not https (plain http only to a loopback host): the secret would travel in the clear"
    )]
    InTheClear(String),
    #[error(
        "{origin} is another origin than the card's {card_origin}, and --same-origin-credentials keeps credentials there"
    )]
    OtherOrigin { origin: String, card_origin: String },
}

/// No alternative of a requirement can be met: for each, what its schemes
/// would need (the hint a refused run reads `unverified` with).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", alternatives(.0))]
struct Unmet(Vec<Vec<Missing>>);

/// `A needs x, and B needs y; or C needs z`.
fn alternatives(misses: &[Vec<Missing>]) -> String {
    misses
        .iter()
        .map(|m| {
            m.iter()
                .map(Missing::to_string)
                .collect::<Vec<_>>()
                .join(", and ")
        })
        .collect::<Vec<_>>()
        .join("; or ")
}

/// The credentials of one peer: its card's security, what the user gave,
/// and the token cache.
pub struct PeerAuth {
    security: CardSecurity,
    base: ClientConfig,
    settings: Arc<AuthSettings>,
    tokens: Option<TokenCache>,
    card_url: Option<url::Url>,
}

impl PeerAuth {
    /// The credentials for the peer of `card`, whose client settings (already
    /// bound to the card's origin) are `base`.
    pub fn new(
        card: &Card,
        base: &ClientConfig,
        settings: Arc<AuthSettings>,
        issued: IssuedSecrets,
    ) -> PeerAuth {
        let tokens = settings.oauth_client.clone().and_then(|client| {
            crate::client::http_client(base.timeout, &base.tls)
                .ok()
                .map(|http| {
                    TokenCache::new(http, client, issued)
                        .masking([base.secrets(), settings.secrets()].concat())
                })
        });
        PeerAuth {
            security: CardSecurity::read(card),
            base: base.clone(),
            settings,
            tokens,
            card_url: url::Url::parse(&card.fetched_from).ok(),
        }
    }

    /// Whether anything on the card asks for credentials (then every run
    /// gets its own client, with the credentials its skill needs).
    pub fn is_active(&self) -> bool {
        self.security.is_secured()
    }

    /// Card warnings: a token URL on another origin than the card's (the
    /// client secret goes there).
    pub fn warnings(&self) -> Vec<String> {
        let Some(card_url) = &self.card_url else {
            return Vec::new();
        };
        if self.tokens.is_none() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for scheme in &self.security.schemes {
            let url = match &scheme.kind {
                SchemeKind::OAuth2 {
                    client_credentials: Some(flow),
                    ..
                } => card_url.join(&flow.token_url).ok(),
                SchemeKind::OpenIdConnect { discovery_url } => card_url.join(discovery_url).ok(),
                _ => None,
            };
            let Some(url) = url else { continue };
            if url.origin() != card_url.origin() && !self.base.same_origin_credentials {
                out.push(format!(
                    "the card's scheme `{}` sends the OAuth client secret to {}, another origin than the card's; --same-origin-credentials keeps it to {}",
                    scheme.name,
                    url.origin().ascii_serialization(),
                    card_url.origin().ascii_serialization()
                ));
            }
        }
        out
    }

    /// The credentials a run verifying `skill` (or the card as a whole)
    /// carries. A requirement that cannot be met leaves the client as given
    /// and sets its hint, so a refusal reads `unverified` naming the flag.
    pub async fn for_run(&self, skill: Option<&str>) -> RunAuth {
        self.resolve_for(skill, true).await
    }

    /// The card-level credentials before any run: a token fetched now finds
    /// a broken token endpoint early (its request is shown by the first run
    /// that uses the token).
    pub async fn before_runs(&self) -> RunAuth {
        self.resolve_for(None, false).await
    }

    async fn resolve_for(&self, skill: Option<&str>, for_run: bool) -> RunAuth {
        let mut config = self.base.clone();
        let mut evidence = Vec::new();
        let requirements = self.security.requirements_for(skill);
        if requirements.is_empty() || requirements.iter().any(|r| r.schemes.is_empty()) {
            return RunAuth {
                config,
                evidence,
                trouble: None,
                refused: false,
            };
        }
        let grants = match self.choose(requirements) {
            Ok(grants) => grants,
            Err(unmet) => {
                config.auth_hint = Some(unmet.to_string());
                return RunAuth {
                    config,
                    evidence,
                    trouble: None,
                    refused: false,
                };
            }
        };
        // Schemes met with what the tool obtained (not what the user
        // configured by hand, whose refusal keeps its own message).
        let mut described = Vec::new();
        for (scheme, grant) in grants {
            if !matches!(grant, Grant::Configured) {
                described.push(format!("`{}`", scheme.name));
            }
            match grant {
                Grant::Configured => {}
                Grant::Header(name, value, shown) => {
                    if !config
                        .headers
                        .iter()
                        .any(|(n, _)| n.trim().eq_ignore_ascii_case(&name))
                    {
                        config.shown_as.push((name.clone(), shown));
                        config.headers.push((name, value));
                    }
                }
                Grant::Query(name, value) => config.query.push((name, value)),
                Grant::Token { source, scopes } => {
                    match self.token(&source, &scopes, for_run).await {
                        Ok(obtained) => {
                            evidence.push(obtained.evidence);
                            // The obtained token replaces a --bearer-env one.
                            config.bearer = None;
                            config
                                .headers
                                .retain(|(n, _)| !n.trim().eq_ignore_ascii_case("authorization"));
                            config.headers.push((
                                "Authorization".into(),
                                format!("Bearer {}", obtained.access_token),
                            ));
                        }
                        Err(error) => {
                            evidence.push(error.to_string());
                            let trouble = format!(
                                "no token was obtained for the card's scheme `{}`: {error}",
                                scheme.name
                            );
                            config.auth_hint = Some(trouble.clone());
                            return RunAuth {
                                config,
                                evidence,
                                trouble: Some(trouble),
                                refused: matches!(
                                    error,
                                    TokenError::Refused {
                                        status: 400 | 401 | 403,
                                        ..
                                    }
                                ),
                            };
                        }
                    }
                }
            }
        }
        if !described.is_empty() {
            config.auth_hint = Some(format!(
                "the credentials obtained for the card's scheme {} were not accepted",
                described.join(" and ")
            ));
        }
        RunAuth {
            config,
            evidence,
            trouble: None,
            refused: false,
        }
    }

    async fn token(
        &self,
        source: &TokenSource,
        scopes: &[String],
        for_run: bool,
    ) -> Result<super::token::Obtained, TokenError> {
        let Some(tokens) = &self.tokens else {
            return Err(TokenError::Unreachable {
                url: String::new(),
                reason: "no OAuth client was given".into(),
            });
        };
        let url = match source {
            TokenSource::TokenUrl(url) => url.clone(),
            TokenSource::Discovery(discovery) => {
                let endpoint = tokens.discover(discovery).await?;
                if let Some(refusal) = self.unsafe_token_url(&endpoint) {
                    return Err(TokenError::Discovery {
                        url: discovery.to_string(),
                        reason: format!("its token endpoint {endpoint} is not used: {refusal}"),
                    });
                }
                // The card's warnings name the discovery document's origin;
                // the endpoint it names may lie elsewhere, and the secret
                // goes there: every run using the token says so.
                let elsewhere = self.card_url.as_ref().and_then(|card| {
                    (endpoint.origin() != card.origin()).then(|| {
                        format!(
                            " (the discovery document {discovery} named this token endpoint, on {}, another origin than the card's {}: the client secret went there; --same-origin-credentials keeps it to the card's origin)",
                            endpoint.origin().ascii_serialization(),
                            card.origin().ascii_serialization()
                        )
                    })
                });
                let mut obtained = tokens.token(&endpoint, scopes, for_run).await?;
                obtained.evidence.push_str(&elsewhere.unwrap_or_default());
                return Ok(obtained);
            }
        };
        tokens.token(&url, scopes, for_run).await
    }

    /// The first alternative whose every scheme can be satisfied, or what
    /// each would need.
    fn choose<'a>(
        &'a self,
        requirements: &[Requirement],
    ) -> Result<Vec<(&'a SecurityScheme, Grant)>, Unmet> {
        let mut misses: Vec<Vec<Missing>> = Vec::new();
        for requirement in requirements {
            let mut grants = Vec::new();
            let mut missing = Vec::new();
            for (name, scopes) in &requirement.schemes {
                let Some(scheme) = self.security.scheme(name) else {
                    missing.push(Missing {
                        scheme: name.clone(),
                        description: "not declared in securitySchemes".into(),
                        needs: Needs::Declaration,
                    });
                    continue;
                };
                match self.satisfy(scheme, scopes) {
                    Ok(grant) => grants.push((scheme, grant)),
                    Err(m) => missing.push(m),
                }
            }
            if missing.is_empty() {
                return Ok(grants);
            }
            misses.push(missing);
        }
        Err(Unmet(misses))
    }

    /// How the user's settings satisfy one scheme with `scopes`.
    fn satisfy(&self, scheme: &SecurityScheme, scopes: &[String]) -> Result<Grant, Missing> {
        let grant = match &scheme.kind {
            SchemeKind::ApiKey { location, name } => self.api_key(*location, name),
            SchemeKind::Http { scheme: word } => self.http_auth(word),
            SchemeKind::OAuth2 {
                client_credentials, ..
            } => self.or_bearer(self.client_credentials(client_credentials.as_ref(), scopes)),
            SchemeKind::OpenIdConnect { discovery_url } => {
                self.or_bearer(self.openid_connect(discovery_url, scopes))
            }
            SchemeKind::MutualTls => match self.base.tls.identity.is_some() {
                true => Ok(Grant::Configured),
                false => Err(Needs::ClientCertificate),
            },
            SchemeKind::Unknown(_) => Err(Needs::UnknownScheme),
        };
        grant.map_err(|needs| Missing {
            scheme: scheme.name.clone(),
            description: scheme.kind.describe(),
            needs,
        })
    }

    /// Whether the user configured a credential header `name` by hand.
    fn has_header(&self, name: &str) -> bool {
        self.base
            .headers
            .iter()
            .any(|(n, _)| n.trim().eq_ignore_ascii_case(name) && !self.base.is_public(n))
    }

    /// Whether a bearer token was configured (`--bearer-env`, or an
    /// `Authorization` header).
    fn has_bearer(&self) -> bool {
        self.base.bearer.is_some() || self.has_header("authorization")
    }

    /// An `apiKey` scheme: `--api-key-env` where the card puts the key, else
    /// a header or cookie the user configured.
    fn api_key(&self, location: KeyLocation, name: &str) -> Result<Grant, Needs> {
        let configured = match location {
            KeyLocation::Header => self.has_header(name),
            KeyLocation::Cookie => self.has_header("cookie"),
            KeyLocation::Query => false,
        };
        match (&self.settings.api_key, location) {
            (Some(key), KeyLocation::Header) => Ok(Grant::Header(
                name.to_string(),
                key.value.clone(),
                format!("${}", key.var),
            )),
            (Some(key), KeyLocation::Query) => {
                Ok(Grant::Query(name.to_string(), key.value.clone()))
            }
            (Some(key), KeyLocation::Cookie) => Ok(Grant::Header(
                "Cookie".into(),
                format!("{name}={}", key.value),
                format!("{name}=${}", key.var),
            )),
            (None, _) if configured => Ok(Grant::Configured),
            (None, _) => Err(Needs::ApiKey),
        }
    }

    /// An `http` scheme: bearer from `--bearer-env`, basic built from
    /// `--basic-env`, any other only from an `Authorization` header.
    fn http_auth(&self, word: &str) -> Result<Grant, Needs> {
        match word {
            "bearer" if self.has_bearer() => Ok(Grant::Configured),
            "bearer" => Err(Needs::Bearer),
            "basic" => match (&self.settings.basic, self.has_header("authorization")) {
                (Some((user, password)), _) => {
                    let pair = format!("{}:{}", user.value, password.value);
                    let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
                    Ok(Grant::Header(
                        "Authorization".into(),
                        format!("Basic {encoded}"),
                        format!(
                            "Basic $(printf %s:%s ${} ${} | base64)",
                            user.var, password.var
                        ),
                    ))
                }
                (None, true) => Ok(Grant::Configured),
                (None, false) => Err(Needs::Basic),
            },
            _ if self.has_header("authorization") => Ok(Grant::Configured),
            _ => Err(Needs::AuthorizationHeader),
        }
    }

    /// An `oauth2` scheme met by its client-credentials flow with the
    /// user's OAuth client.
    fn client_credentials(
        &self,
        flow: Option<&ClientCredentialsFlow>,
        scopes: &[String],
    ) -> Result<Grant, Needs> {
        let flow = flow.ok_or(Needs::NoClientCredentialsFlow)?;
        if self.tokens.is_none() {
            return Err(Needs::OAuthClient);
        }
        let url = self.resolve(&flow.token_url)?;
        if let Some(refusal) = self.unsafe_token_url(&url) {
            return Err(Needs::SafeTokenUrl(refusal));
        }
        Ok(Grant::Token {
            source: TokenSource::TokenUrl(url),
            scopes: scopes.to_vec(),
        })
    }

    /// An `openIdConnect` scheme met through its discovery document with
    /// the user's OAuth client.
    fn openid_connect(&self, discovery_url: &str, scopes: &[String]) -> Result<Grant, Needs> {
        if self.tokens.is_none() {
            return Err(Needs::OAuthClient);
        }
        let url = self.resolve(discovery_url)?;
        if let Some(refusal) = self.unsafe_token_url(&url) {
            return Err(Needs::SafeDiscoveryUrl(refusal));
        }
        Ok(Grant::Token {
            source: TokenSource::Discovery(url),
            scopes: scopes.to_vec(),
        })
    }

    /// A token scheme the tool cannot meet itself is met by a bearer token
    /// the user obtained elsewhere, if one was given.
    fn or_bearer(&self, grant: Result<Grant, Needs>) -> Result<Grant, Needs> {
        match grant {
            Err(_) if self.has_bearer() => Ok(Grant::Configured),
            other => other,
        }
    }

    /// A URL from the card, resolved against the card's own.
    fn resolve(&self, text: &str) -> Result<url::Url, Needs> {
        let parsed = match &self.card_url {
            Some(base) => base.join(text),
            None => url::Url::parse(text),
        };
        parsed.map_err(|error| Needs::UrlThatParses {
            text: text.to_string(),
            error,
        })
    }

    /// Why the client secret may not go to `url`, if it may not.
    fn unsafe_token_url(&self, url: &url::Url) -> Option<UnsafeUrl> {
        let loopback = match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
            None => false,
        };
        if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
            return Some(UnsafeUrl::InTheClear(url.to_string()));
        }
        let card_origin = self.card_url.as_ref()?.origin();
        (self.base.same_origin_credentials && url.origin() != card_origin).then(|| {
            UnsafeUrl::OtherOrigin {
                origin: url.origin().ascii_serialization(),
                card_origin: card_origin.ascii_serialization(),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::{EnvSecret, OAuthClient};
    use a2a_conform_protocol::card::{parse_card, BindingChoice, ProtocolChoice};

    const CARD_URL: &str = "http://127.0.0.1:9/.well-known/agent-card.json";

    fn card(schemes: &str, requirements: &str) -> Card {
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
            "securitySchemes":{schemes},"securityRequirements":{requirements}}}"#
        );
        let url = url::Url::parse(CARD_URL).unwrap();
        parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .unwrap()
    }

    fn secret(var: &str, value: &str) -> EnvSecret {
        EnvSecret {
            var: var.into(),
            value: value.into(),
        }
    }

    fn oauth_settings() -> AuthSettings {
        AuthSettings {
            oauth_client: Some(OAuthClient {
                id: secret("ID", "client"),
                secret: secret("SECRET", "s3cret"),
            }),
            ..AuthSettings::default()
        }
    }

    fn peer(card: &Card, base: ClientConfig, settings: AuthSettings) -> PeerAuth {
        let base = base.for_card(&url::Url::parse(CARD_URL).unwrap());
        PeerAuth::new(card, &base, Arc::new(settings), IssuedSecrets::default())
    }

    #[tokio::test]
    async fn the_client_secret_goes_to_no_other_origin_under_same_origin_credentials_and_never_in_the_clear(
    ) {
        let oauth = |url: &str| {
            card(
                &format!(
                    r#"{{"oauth":{{"oauth2SecurityScheme":{{"flows":{{"clientCredentials":{{"tokenUrl":"{url}","scopes":{{}}}}}}}}}}}}"#
                ),
                r#"[{"schemes":{"oauth":{"list":["a"]}}}]"#,
            )
        };
        let strict = ClientConfig {
            same_origin_credentials: true,
            ..ClientConfig::default()
        };
        let run = peer(
            &oauth("https://idp.example/token"),
            strict,
            oauth_settings(),
        )
        .for_run(None)
        .await;
        let hint = run.config.auth_hint.unwrap();
        assert!(
            hint.contains("scheme `oauth`") && hint.contains("--same-origin-credentials"),
            "{hint}"
        );
        assert!(
            run.evidence.is_empty(),
            "no request was made: {:?}",
            run.evidence
        );
        let loose = peer(
            &oauth("https://idp.example/token"),
            ClientConfig::default(),
            oauth_settings(),
        );
        assert!(
            loose.warnings()[0].contains("sends the OAuth client secret to https://idp.example"),
            "{:?}",
            loose.warnings()
        );
        let clear = peer(
            &oauth("http://idp.example/token"),
            ClientConfig::default(),
            oauth_settings(),
        )
        .for_run(None)
        .await;
        assert!(
            clear.config.auth_hint.unwrap().contains("not https"),
            "plain http to a non-loopback host is refused"
        );
    }

    #[tokio::test]
    async fn api_keys_go_where_the_card_says_and_basic_is_built_from_its_two_variables() {
        let settings = AuthSettings {
            api_key: Some(secret("KEY", "k-123")),
            basic: Some((secret("U", "alice"), secret("P", "pw"))),
            ..AuthSettings::default()
        };
        let query = card(
            r#"{"k":{"apiKeySecurityScheme":{"location":"query","name":"api_key"}},"b":{"httpAuthSecurityScheme":{"scheme":"Basic"}}}"#,
            r#"[{"schemes":{"k":{"list":[]},"b":{"list":[]}}}]"#,
        );
        let run = peer(&query, ClientConfig::default(), settings.clone())
            .for_run(None)
            .await;
        assert_eq!(run.config.query, vec![("api_key".into(), "k-123".into())]);
        assert!(run
            .config
            .headers
            .contains(&("Authorization".into(), "Basic YWxpY2U6cHc=".into())));
        assert!(run.config.auth_hint.unwrap().contains("`k` and `b`"));
        let cookie = card(
            r#"{"k":{"type":"apiKey","in":"cookie","name":"session"}}"#,
            r#"[{"schemes":{"k":{"list":[]}}}]"#,
        );
        let run = peer(&cookie, ClientConfig::default(), settings)
            .for_run(None)
            .await;
        assert_eq!(
            run.config.headers,
            vec![("Cookie".into(), "session=k-123".into())]
        );
        assert_eq!(
            run.config.shown_as("cookie"),
            Some("session=$KEY"),
            "a reproduction names the variable, never the key"
        );
        // The first alternative the settings can meet is chosen.
        let two = card(
            r#"{"tls":{"mtlsSecurityScheme":{}},"bearer":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}}"#,
            r#"[{"schemes":{"tls":{"list":[]}}},{"schemes":{"bearer":{"list":[]}}}]"#,
        );
        let none = peer(&two, ClientConfig::default(), AuthSettings::default())
            .for_run(None)
            .await;
        let hint = none.config.auth_hint.unwrap();
        assert!(
            hint.contains("--cert FILE --key FILE")
                && hint.contains("; or ")
                && hint.contains("--bearer-env VAR"),
            "{hint}"
        );
        let bearer = ClientConfig {
            bearer: Some(("T".into(), "tok".into())),
            ..ClientConfig::default()
        };
        let run = peer(&two, bearer, AuthSettings::default())
            .for_run(None)
            .await;
        assert_eq!(
            run.config.auth_hint, None,
            "the configured token keeps its message"
        );
    }
}
