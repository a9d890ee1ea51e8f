//! What a card's security asks of a check, as settings: for each scheme the
//! flag (and config-file key) that satisfies it and a suggested environment
//! variable name. `profile init` writes these (names, never values).

use super::scheme::{CardSecurity, KeyLocation, SchemeKind};
use a2a_conform_protocol::card::Card;

/// One setting a scheme needs.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuthSetting {
    /// The `check` flag, e.g. `--api-key-env`.
    pub flag: &'static str,
    /// The same flag as a config-file key (`api-key-env`).
    pub config_key: &'static str,
    /// A suggested value: environment variable name(s), never a secret
    /// (`--basic-env` takes `USER_VAR:PASS_VAR`). Empty for `--cert`/`--key`
    /// (file paths).
    pub suggested: String,
}

/// A declared scheme and the settings that satisfy it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AuthHint {
    /// The scheme's name in `securitySchemes`.
    pub scheme: String,
    /// What it is, as a person names it (`API key in header X-API-Key`).
    pub description: String,
    /// The settings, all of which are needed; empty when the tool cannot
    /// satisfy the scheme (then `note` says why).
    pub settings: Vec<AuthSetting>,
    /// Why the tool cannot satisfy it, or an alternative.
    pub note: Option<String>,
}

/// The auth settings a card's schemes need, in card order, with suggested
/// environment variable names derived from the scheme name (`oauth` →
/// `OAUTH_CLIENT_ID`). Only schemes some requirement (card or skill) names
/// are listed.
pub fn profile_hints(card: &Card) -> Vec<AuthHint> {
    let security = CardSecurity::read(card);
    let used = |name: &str| {
        security
            .requirements
            .iter()
            .chain(security.skills.iter().flat_map(|(_, r)| r))
            .any(|r| r.schemes.iter().any(|(n, _)| n == name))
    };
    security
        .schemes
        .iter()
        .filter(|s| used(&s.name))
        .map(|scheme| {
            let prefix = env_prefix(&scheme.name);
            let setting = |flag: &'static str, suggested: String| AuthSetting {
                flag,
                config_key: flag.trim_start_matches("--"),
                suggested,
            };
            let (settings, note) = match &scheme.kind {
                SchemeKind::ApiKey { location, .. } => {
                    let note = (*location == KeyLocation::Query).then(|| {
                        "the key travels in the URL: proxies and logs may keep it".to_string()
                    });
                    (
                        vec![setting("--api-key-env", format!("{prefix}_API_KEY"))],
                        note,
                    )
                }
                SchemeKind::Http { scheme: w } if w == "bearer" => (
                    vec![setting("--bearer-env", format!("{prefix}_TOKEN"))],
                    None,
                ),
                SchemeKind::Http { scheme: w } if w == "basic" => (
                    vec![setting(
                        "--basic-env",
                        format!("{prefix}_USER:{prefix}_PASSWORD"),
                    )],
                    None,
                ),
                SchemeKind::OAuth2 {
                    client_credentials: None,
                    ..
                } => (
                    vec![setting("--bearer-env", format!("{prefix}_TOKEN"))],
                    Some("no client-credentials flow: a token obtained elsewhere".into()),
                ),
                SchemeKind::OAuth2 { .. } | SchemeKind::OpenIdConnect { .. } => (
                    vec![
                        setting("--oauth-client-id-env", format!("{prefix}_CLIENT_ID")),
                        setting(
                            "--oauth-client-secret-env",
                            format!("{prefix}_CLIENT_SECRET"),
                        ),
                    ],
                    Some(format!(
                        "or a token obtained elsewhere with --bearer-env {prefix}_TOKEN"
                    )),
                ),
                SchemeKind::MutualTls => (
                    vec![
                        setting("--cert", String::new()),
                        setting("--key", String::new()),
                    ],
                    Some("file paths of a PEM client certificate and its key".into()),
                ),
                SchemeKind::Http { .. } | SchemeKind::Unknown(_) => (
                    Vec::new(),
                    Some(
                        "the tool builds no credentials for it; pass a header with --header".into(),
                    ),
                ),
            };
            AuthHint {
                scheme: scheme.name.clone(),
                description: scheme.kind.describe(),
                settings,
                note,
            }
        })
        .collect()
}

/// `my-oauth` → `MY_OAUTH`: a scheme name as an environment variable prefix.
fn env_prefix(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "A2A_");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::card::{parse_card, BindingChoice, ProtocolChoice};

    #[test]
    fn each_required_scheme_names_its_flags_and_env_vars_never_values() {
        let body = r#"{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],"skills":[],
            "securitySchemes":{
              "api-key":{"apiKeySecurityScheme":{"location":"header","name":"X-API-Key"}},
              "oauth":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://idp/t","scopes":{}}}}},
              "unused":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}},
            "securityRequirements":[{"schemes":{"api-key":{"list":[]}}},{"schemes":{"oauth":{"list":["a"]}}}]}"#;
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .unwrap();
        let hints = profile_hints(&card);
        assert_eq!(hints.len(), 2, "{hints:#?}");
        assert_eq!(hints[0].scheme, "api-key");
        assert_eq!(hints[0].settings[0].flag, "--api-key-env");
        assert_eq!(hints[0].settings[0].config_key, "api-key-env");
        assert_eq!(hints[0].settings[0].suggested, "API_KEY_API_KEY");
        let flags: Vec<&str> = hints[1].settings.iter().map(|s| s.flag).collect();
        assert_eq!(
            flags,
            ["--oauth-client-id-env", "--oauth-client-secret-env"]
        );
        assert_eq!(hints[1].settings[1].suggested, "OAUTH_CLIENT_SECRET");
    }
}
