//! What a peer is given: the connection settings, which of them are
//! credentials (the bearer token, every `--header`/profile header not
//! named public, and what [`crate::auth`] obtained from the card's security
//! schemes: headers, query parameters, access tokens), the values to
//! redact for them, and the origin they were
//! given for — credentials never follow a redirect to another origin, and
//! under `--same-origin-credentials` never reach an endpoint on one.

use base64::Engine;
use std::time::Duration;

/// Which credentials a call carries (the `credentials` key of `send`/`stream`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Credentials {
    /// The bearer token of `--bearer-env` and every `--header`/profile header.
    #[default]
    Configured,
    /// No credentials: the bearer token and every configured header that is
    /// not public (`--header-public`) are left out.
    None,
    /// As `None`, plus `Authorization: Bearer a2a-conform-invalid-<uuid>`, a
    /// token no peer can have issued.
    Invalid,
}

impl Credentials {
    /// The name a scenario writes (`configured`, `none`, `invalid`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Header names whose values are secrets wherever they come from — also in
/// what a peer sends the tool (the webhook's evidence).
pub const SENSITIVE_HEADERS: [&str; 5] = [
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
];

/// Connection settings shared by every call to one peer.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Bound on each request's wait for an answer (and on opening a stream).
    pub timeout: Duration,
    /// Extra headers (`--header`, profile headers). Every one is a credential
    /// unless named in `public_headers`.
    pub headers: Vec<(String, String)>,
    /// A bearer token and the environment variable it came from (for reproductions).
    pub bearer: Option<(String, String)>,
    /// The longest a stream is read before it is cut.
    pub max_stream: Duration,
    /// Header names (any case) given with `--header-public`: sent like the
    /// others, but neither redacted nor withheld as credentials.
    pub public_headers: Vec<String>,
    /// `--same-origin-credentials`: an endpoint on another origin than
    /// `credentials_origin` gets no credentials at all.
    pub same_origin_credentials: bool,
    /// The origin the credentials were given for: the card's, once known.
    pub credentials_origin: Option<url::Origin>,
    /// Trust roots, mTLS identity, `--insecure`.
    pub tls: super::http::TlsOptions,
    /// The caps on bodies and streams (`--max-*` flags).
    pub limits: super::limits::Limits,
    /// Query parameters that are credentials (an `apiKey` scheme `in:
    /// query`), appended to every call that carries the credentials.
    pub query: Vec<(String, String)>,
    /// What a refusal of these credentials means, from the card's security
    /// schemes: the scheme and the flag that would satisfy it, or which
    /// obtained credentials were refused (see [`crate::auth`]).
    pub auth_hint: Option<String>,
    /// How reproductions show a credential header whose value comes from
    /// the environment (`X-API-Key` → `$PEER_KEY`), by header name; other
    /// credential headers show as masked.
    pub shown_as: Vec<(String, String)>,
    /// Extension URIs every call asks for in the version's extensions
    /// header: the card's required ones, set once the card is read.
    pub extensions: Vec<String>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            timeout: Duration::from_secs(30),
            headers: Vec::new(),
            bearer: None,
            max_stream: Duration::from_secs(300),
            public_headers: Vec::new(),
            same_origin_credentials: false,
            credentials_origin: None,
            tls: super::http::TlsOptions::default(),
            limits: super::limits::Limits::default(),
            query: Vec::new(),
            auth_hint: None,
            shown_as: Vec::new(),
            extensions: Vec::new(),
        }
    }
}

impl ClientConfig {
    /// Whether the header `name` was named public (`--header-public`).
    pub fn is_public(&self, name: &str) -> bool {
        let name = name.trim();
        self.public_headers
            .iter()
            .any(|p| p.trim().eq_ignore_ascii_case(name))
    }

    /// Whether the configured header `name` is a credential: configured and
    /// not public. The bearer token's `Authorization` always is.
    pub fn is_credential_header(&self, name: &str) -> bool {
        let name = name.trim();
        (self.bearer.is_some() && name.eq_ignore_ascii_case("authorization"))
            || self
                .headers
                .iter()
                .any(|(n, _)| n.trim().eq_ignore_ascii_case(name) && !self.is_public(n))
    }

    /// How a reproduction shows the credential header `name`, when its
    /// value comes from the environment ([`Self::shown_as`]).
    pub fn shown_as(&self, name: &str) -> Option<&str> {
        let name = name.trim();
        self.shown_as
            .iter()
            .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, shown)| shown.as_str())
    }

    /// Whether any credentials are configured: a bearer token (`--bearer-env`)
    /// or a header not named public.
    pub fn has_credentials(&self) -> bool {
        self.bearer.is_some()
            || !self.query.is_empty()
            || self.headers.iter().any(|(n, _)| !self.is_public(n))
    }

    /// The names (lower case, once each) of the headers that carry credentials.
    pub fn credential_header_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .headers
            .iter()
            .filter(|(n, _)| !self.is_public(n))
            .map(|(n, _)| n.trim().to_ascii_lowercase())
            .collect();
        if self.bearer.is_some() {
            names.push("authorization".into());
        }
        names.sort();
        names.dedup();
        names
    }

    /// Every value to redact: the bearer token, and each credential header's
    /// whole value, the credential after a scheme word (`Basic xyz` → `xyz`),
    /// and what that decodes to when it is base64 text (`user:pass` and `pass`).
    pub fn secrets(&self) -> Vec<String> {
        let mut secrets: Vec<String> = Vec::new();
        if let Some((_, token)) = &self.bearer {
            secrets.push(token.clone());
            secrets.push(token.trim().to_string());
        }
        secrets.extend(self.query.iter().map(|(_, value)| value.clone()));
        for (name, value) in &self.headers {
            if self.is_public(name) {
                continue;
            }
            let value = value.trim();
            secrets.push(value.to_string());
            let Some((_, credential)) = value.split_once(char::is_whitespace) else {
                continue;
            };
            let credential = credential.trim();
            secrets.push(credential.to_string());
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(credential)
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .filter(|text| !text.chars().any(char::is_control));
            if let Some(text) = decoded {
                if let Some((_, password)) = text.split_once(':') {
                    secrets.push(password.to_string());
                }
                secrets.push(text);
            }
        }
        secrets.retain(|s| !s.is_empty());
        secrets
    }

    /// These settings for a peer whose card came from `card_url`: the
    /// credentials belong to the card's origin.
    pub fn for_card(&self, card_url: &url::Url) -> ClientConfig {
        ClientConfig {
            credentials_origin: Some(card_url.origin()),
            ..self.clone()
        }
    }

    /// These settings with every credential left out: no bearer token, only
    /// public headers.
    pub fn without_credentials(&self) -> ClientConfig {
        ClientConfig {
            headers: self
                .headers
                .iter()
                .filter(|(n, _)| self.is_public(n))
                .cloned()
                .collect(),
            bearer: None,
            query: Vec::new(),
            ..self.clone()
        }
    }

    /// When `--same-origin-credentials` keeps the credentials from `url`
    /// (another origin than the card's): the card's origin, for the evidence.
    pub fn withholds_from(&self, url: &url::Url) -> Option<String> {
        let origin = self.credentials_origin.as_ref()?;
        (self.same_origin_credentials && self.has_credentials() && &url.origin() != origin)
            .then(|| origin.ascii_serialization())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ClientConfig {
        ClientConfig {
            headers: vec![
                ("X-Auth-Token".into(), "tok-1".into()),
                ("Authorization".into(), "Basic dXNlcjpwdw==".into()),
                ("X-Trace".into(), "trace-7".into()),
            ],
            bearer: Some(("VAR".into(), "bearer-9".into())),
            public_headers: vec!["x-trace".into()],
            ..ClientConfig::default()
        }
    }

    #[test]
    fn every_header_is_a_credential_unless_named_public() {
        let c = config();
        assert!(c.is_credential_header("x-auth-token"));
        assert!(c.is_credential_header("AUTHORIZATION"));
        assert!(!c.is_credential_header("X-Trace"));
        assert!(!c.is_credential_header("Accept"));
        assert_eq!(
            c.credential_header_names(),
            vec!["authorization", "x-auth-token"]
        );
        let secrets = c.secrets();
        for wanted in [
            "bearer-9",
            "tok-1",
            "Basic dXNlcjpwdw==",
            "dXNlcjpwdw==",
            "user:pw",
            "pw",
        ] {
            assert!(secrets.iter().any(|s| s == wanted), "{wanted}: {secrets:?}");
        }
        assert!(
            !secrets.iter().any(|s| s.contains("trace-7")),
            "{secrets:?}"
        );
        let bare = c.without_credentials();
        assert!(!bare.has_credentials());
        assert_eq!(bare.headers, vec![("X-Trace".into(), "trace-7".into())]);
        let only_public = ClientConfig {
            headers: vec![("X-Trace".into(), "t".into())],
            public_headers: vec!["X-TRACE".into()],
            ..ClientConfig::default()
        };
        assert!(!only_public.has_credentials());
    }

    #[test]
    fn same_origin_credentials_withhold_them_from_another_origin_only() {
        let card = url::Url::parse("http://127.0.0.1:8000/.well-known/agent-card.json").unwrap();
        let same = url::Url::parse("http://127.0.0.1:8000/rpc").unwrap();
        let other = url::Url::parse("http://127.0.0.1:8001/rpc").unwrap();
        let loose = config().for_card(&card);
        assert_eq!(loose.withholds_from(&other), None, "only with the flag");
        let strict = ClientConfig {
            same_origin_credentials: true,
            ..config()
        }
        .for_card(&card);
        assert_eq!(strict.withholds_from(&same), None);
        assert_eq!(
            strict.withholds_from(&other).as_deref(),
            Some("http://127.0.0.1:8000")
        );
    }
}
