//! The card's security declarations read into types once: each scheme of
//! `securitySchemes` (v1.0 wrapper keys or v0.3 OpenAPI `type`), the
//! card-level requirements (v1.0 `securityRequirements`, v0.3 `security`)
//! and each skill's own. The card parser keeps only names and whether a
//! requirement exists; what a scheme needs lives here, next to the code that
//! satisfies it.

use a2a_conform_protocol::card::Card;
use serde_json::{Map, Value};

/// Where an API key goes (`in` in v0.3, `location` in v1.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyLocation {
    Header,
    Query,
    Cookie,
}

/// An OAuth 2.0 client-credentials flow: where tokens come from and the
/// scopes the card lists for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientCredentialsFlow {
    pub token_url: String,
    pub scopes: Vec<String>,
}

/// What one declared scheme asks a caller for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SchemeKind {
    ApiKey {
        location: KeyLocation,
        name: String,
    },
    /// `http` with its scheme word, lower case (`bearer`, `basic`, `digest`).
    Http {
        scheme: String,
    },
    /// `oauth2`: the client-credentials flow when the card offers one, and
    /// the names of the other flows (which need a person: not for a CI run).
    OAuth2 {
        client_credentials: Option<ClientCredentialsFlow>,
        other_flows: Vec<String>,
    },
    OpenIdConnect {
        discovery_url: String,
    },
    MutualTls,
    /// A scheme of no known shape, with what the card says its type is.
    Unknown(String),
}

/// A declared scheme and its name in `securitySchemes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecurityScheme {
    pub name: String,
    pub kind: SchemeKind,
}

/// One requirement alternative: every named scheme, each with the scopes
/// it must carry (OpenAPI semantics: schemes within one are ANDed,
/// alternatives ORed; an empty one lets anonymous callers in).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Requirement {
    pub schemes: Vec<(String, Vec<String>)>,
}

/// The card's security, read once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct CardSecurity {
    pub schemes: Vec<SecurityScheme>,
    /// The card-level alternatives; empty when the card states none.
    pub requirements: Vec<Requirement>,
    /// Skills with requirements of their own (which replace the card's for
    /// what the skill does), by skill id.
    pub skills: Vec<(String, Vec<Requirement>)>,
}

impl CardSecurity {
    /// Reads the card's raw JSON. Shapes the card parser already warned
    /// about (a requirement that is not an object, a scheme of no known
    /// shape) are skipped or read as [`SchemeKind::Unknown`], never fatal.
    pub(crate) fn read(card: &Card) -> CardSecurity {
        let Some(obj) = card.raw.as_object() else {
            return CardSecurity::default();
        };
        let schemes = obj
            .get("securitySchemes")
            .and_then(Value::as_object)
            .map(|schemes| {
                schemes
                    .iter()
                    .map(|(name, value)| SecurityScheme {
                        name: name.clone(),
                        kind: scheme_kind(value),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let names: Vec<&str> = obj
            .get("securitySchemes")
            .and_then(Value::as_object)
            .map(|s| s.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let card_level = requirements(obj, &names);
        let skills = obj
            .get("skills")
            .and_then(Value::as_array)
            .map(|skills| {
                skills
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|skill| {
                        let id = skill.get("id")?.as_str()?.to_string();
                        let own = requirements(skill, &names);
                        (!own.is_empty()).then_some((id, own))
                    })
                    .collect()
            })
            .unwrap_or_default();
        CardSecurity {
            schemes,
            requirements: card_level,
            skills,
        }
    }

    /// The scheme named `name`, if the card declares it.
    pub(crate) fn scheme(&self, name: &str) -> Option<&SecurityScheme> {
        self.schemes.iter().find(|s| s.name == name)
    }

    /// The requirements that govern what skill `skill` does: its own when
    /// it has any, else the card's.
    pub(crate) fn requirements_for(&self, skill: Option<&str>) -> &[Requirement] {
        skill
            .and_then(|id| self.skills.iter().find(|(s, _)| s == id))
            .map(|(_, own)| own.as_slice())
            .unwrap_or(&self.requirements)
    }

    /// Whether anything on the card asks for credentials.
    pub(crate) fn is_secured(&self) -> bool {
        self.requirements.iter().any(|r| !r.schemes.is_empty())
            || self
                .skills
                .iter()
                .any(|(_, own)| own.iter().any(|r| !r.schemes.is_empty()))
    }
}

/// The requirement alternatives of a card or skill object: v1.0
/// `securityRequirements: [{schemes: {name: {list: [..]}}}]`, v0.3
/// `security: [{name: [..]}]` (and the wrapped shape under `security`,
/// which some v1.0 texts still use).
fn requirements(obj: &Map<String, Value>, scheme_names: &[&str]) -> Vec<Requirement> {
    let mut out = Vec::new();
    for key in ["securityRequirements", "security"] {
        let Some(items) = obj.get(key).and_then(Value::as_array) else {
            continue;
        };
        for item in items.iter().filter_map(Value::as_object) {
            let entries = match item.get("schemes") {
                Some(Value::Object(inner)) if !scheme_names.contains(&"schemes") => inner,
                _ => item,
            };
            let schemes = entries
                .iter()
                .map(|(name, scopes)| (name.clone(), scope_list(scopes)))
                .collect();
            out.push(Requirement { schemes });
        }
    }
    out
}

/// Scopes as v1.0 (`{list: [..]}`) or v0.3 (`[..]`) write them.
fn scope_list(value: &Value) -> Vec<String> {
    let list = match value {
        Value::Object(o) => o.get("list").and_then(Value::as_array),
        Value::Array(a) => Some(a),
        _ => None,
    };
    list.map(|l| {
        l.iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

fn text(obj: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| obj.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// One scheme's shape: a v1.0 wrapper key wins over a v0.3 `type` (a
/// hybrid card may carry both).
fn scheme_kind(value: &Value) -> SchemeKind {
    let Some(obj) = value.as_object() else {
        return SchemeKind::Unknown("not an object".into());
    };
    let wrapped = [
        ("apiKeySecurityScheme", "apiKey"),
        ("httpAuthSecurityScheme", "http"),
        ("oauth2SecurityScheme", "oauth2"),
        ("openIdConnectSecurityScheme", "openIdConnect"),
        ("mtlsSecurityScheme", "mutualTLS"),
    ]
    .into_iter()
    .find_map(|(key, kind)| Some((kind, obj.get(key)?.as_object()?)));
    let (kind, body) = match wrapped {
        Some(found) => found,
        None => match obj.get("type").and_then(Value::as_str) {
            Some(kind) => (kind, obj),
            None => return SchemeKind::Unknown("no type".into()),
        },
    };
    match kind {
        "apiKey" => {
            let location = match text(body, &["location", "in"]).as_deref() {
                Some(l) if l.eq_ignore_ascii_case("query") => KeyLocation::Query,
                Some(l) if l.eq_ignore_ascii_case("cookie") => KeyLocation::Cookie,
                _ => KeyLocation::Header,
            };
            match text(body, &["name"]) {
                Some(name) if !name.trim().is_empty() => SchemeKind::ApiKey { location, name },
                _ => SchemeKind::Unknown("apiKey without a name".into()),
            }
        }
        "http" => SchemeKind::Http {
            scheme: text(body, &["scheme"])
                .unwrap_or_default()
                .to_ascii_lowercase(),
        },
        "oauth2" => {
            let flows = body.get("flows").and_then(Value::as_object);
            let client_credentials = flows
                .and_then(|f| f.get("clientCredentials"))
                .and_then(Value::as_object)
                .and_then(|flow| {
                    Some(ClientCredentialsFlow {
                        token_url: text(flow, &["tokenUrl"])?,
                        scopes: flow
                            .get("scopes")
                            .and_then(Value::as_object)
                            .map(|s| s.keys().cloned().collect())
                            .unwrap_or_default(),
                    })
                });
            let other_flows = flows
                .map(|f| {
                    f.keys()
                        .filter(|k| *k != "clientCredentials")
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            SchemeKind::OAuth2 {
                client_credentials,
                other_flows,
            }
        }
        "openIdConnect" => match text(body, &["openIdConnectUrl"]) {
            Some(url) => SchemeKind::OpenIdConnect { discovery_url: url },
            None => SchemeKind::Unknown("openIdConnect without openIdConnectUrl".into()),
        },
        "mutualTLS" | "mtls" => SchemeKind::MutualTls,
        other => SchemeKind::Unknown(other.to_string()),
    }
}

impl SchemeKind {
    /// The scheme as a person names it: `API key in header X-API-Key`.
    pub fn describe(&self) -> String {
        match self {
            SchemeKind::ApiKey { location, name } => {
                let at = match location {
                    KeyLocation::Header => "header",
                    KeyLocation::Query => "query parameter",
                    KeyLocation::Cookie => "cookie",
                };
                format!("API key in {at} {name}")
            }
            SchemeKind::Http { scheme } => format!("HTTP {scheme}"),
            SchemeKind::OAuth2 {
                client_credentials: Some(_),
                ..
            } => "OAuth 2.0 client credentials".into(),
            SchemeKind::OAuth2 { other_flows, .. } => {
                format!("OAuth 2.0 ({})", other_flows.join(", "))
            }
            SchemeKind::OpenIdConnect { .. } => "OpenID Connect".into(),
            SchemeKind::MutualTls => "mutual TLS".into(),
            SchemeKind::Unknown(what) => format!("an unknown scheme ({what})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::card::{parse_card, BindingChoice, ProtocolChoice};

    fn card(extra: &str) -> Card {
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",{extra}
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "skills":[{{"id":"s","name":"s","description":"d","tags":["t"],
              "securityRequirements":[{{"schemes":{{"oauth":{{"list":["read","write"]}}}}}}]}}]}}"#
        );
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .unwrap()
    }

    #[test]
    fn v1_wrappers_and_v0_3_types_read_to_the_same_kinds() {
        let c = card(
            r#""securitySchemes":{
                "key":{"apiKeySecurityScheme":{"location":"query","name":"k"}},
                "oauth":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"https://idp/t","scopes":{"read":"r"}},"authorizationCode":{}}},
                "oidc":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://idp/.well-known/openid-configuration"}},
                "basic":{"type":"http","scheme":"Basic"},
                "tls":{"mtlsSecurityScheme":{}}},
               "security":[{"key":[]},{"oauth":["read"]}],"#,
        );
        let s = CardSecurity::read(&c);
        assert_eq!(
            s.scheme("key").unwrap().kind,
            SchemeKind::ApiKey {
                location: KeyLocation::Query,
                name: "k".into()
            }
        );
        assert_eq!(
            s.scheme("oauth").unwrap().kind,
            SchemeKind::OAuth2 {
                client_credentials: Some(ClientCredentialsFlow {
                    token_url: "https://idp/t".into(),
                    scopes: vec!["read".into()]
                }),
                other_flows: vec!["authorizationCode".into()],
            }
        );
        assert!(matches!(
            s.scheme("oidc").unwrap().kind,
            SchemeKind::OpenIdConnect { .. }
        ));
        assert_eq!(
            s.scheme("basic").unwrap().kind,
            SchemeKind::Http {
                scheme: "basic".into()
            }
        );
        assert_eq!(s.scheme("tls").unwrap().kind, SchemeKind::MutualTls);
        assert_eq!(s.requirements.len(), 2);
        assert_eq!(
            s.requirements[1].schemes,
            vec![("oauth".into(), vec!["read".into()])]
        );
        assert_eq!(
            s.requirements_for(Some("s"))[0].schemes,
            vec![("oauth".into(), vec!["read".into(), "write".into()])]
        );
        assert_eq!(s.requirements_for(Some("other")), s.requirements.as_slice());
        assert!(s.is_secured());
    }
}
