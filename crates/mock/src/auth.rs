//! Credentials on the mock peer's A2A endpoints. The card stays public.
//! - `secured`: every JSON-RPC and REST request without `Authorization:
//!   Bearer <token>` gets HTTP 401 and a `WWW-Authenticate: Bearer`
//!   challenge (v1 §7.4); `security-unenforced` declares the same
//!   requirement and checks nothing.
//! - `secured-api-key`: the key in the `X-API-Key` header, else 401.
//! - `secured-oauth`: a token the peer's own token endpoint (`token`)
//!   issued, unexpired, with scope `a2a:invoke`; else 401 (`invalid_token`)
//!   or 403 (`insufficient_scope`).
//! - `secured-skill-scopes`: as `secured-oauth`, and a message carrying a
//!   JSON data part (what only the skill `echo` declares) needs `echo:data`.

use super::behaviour::Behaviour;
use super::shared::Shared;
use a2a_conform_protocol::ProtocolVersion;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use std::sync::Arc;

/// The token `secured` requires when [`super::MockConfig::auth_token`] sets
/// none; also the API key of `secured-api-key` and the client secret of the
/// OAuth behaviours.
pub const DEFAULT_TOKEN: &str = "a2a-conform-mock-token";

/// The OAuth client id the mock's token endpoint knows.
pub const CLIENT_ID: &str = "a2a-conform-mock-client";

/// The header `secured-api-key` reads the key from.
pub(crate) const API_KEY_HEADER: &str = "X-API-Key";

/// The scopes the OAuth scheme offers: `a2a:invoke` for every request,
/// `echo:data` for JSON input to the skill `echo` (`secured-skill-scopes`).
pub(crate) const SCOPES: [&str; 2] = ["a2a:invoke", "echo:data"];

/// The name of the bearer scheme the card declares.
pub(crate) const SCHEME: &str = "bearer";

/// The most of a request body read to look for a data part.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// Lets a request through when the peer requires no credentials or it carries
/// the right ones; answers 401/403 otherwise.
pub(crate) async fn require(
    State(peer): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(secret) = peer.auth_token.clone() else {
        return next.run(request).await;
    };
    match peer.behaviour {
        Behaviour::Secured => {}
        Behaviour::SecuredApiKey => {
            let key = request
                .headers()
                .get(API_KEY_HEADER)
                .and_then(|v| v.to_str().ok());
            return match key {
                Some(k) if k.trim() == secret => next.run(request).await,
                Some(_) => refuse(
                    StatusCode::UNAUTHORIZED,
                    "ApiKey realm=\"a2a\"",
                    "the API key is not valid",
                ),
                None => refuse(
                    StatusCode::UNAUTHORIZED,
                    "ApiKey realm=\"a2a\"",
                    "an API key is required",
                ),
            };
        }
        Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes => {
            return oauth(&peer, request, next).await;
        }
        _ => return next.run(request).await,
    }
    let (error, description) = match bearer(&request) {
        Some(credential) if credential == secret => return next.run(request).await,
        Some(_) => ("invalid_token", "the bearer token is not valid"),
        None => ("", "a bearer token is required"),
    };
    let challenge = if error.is_empty() {
        "Bearer realm=\"a2a\"".to_string()
    } else {
        format!("Bearer realm=\"a2a\", error=\"{error}\"")
    };
    refuse(StatusCode::UNAUTHORIZED, &challenge, description)
}

/// The bearer credential of a request, if it carries one.
fn bearer(request: &Request) -> Option<String> {
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, credential) = v.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| credential.trim().to_string())
        })
}

/// HTTP 401 with a `WWW-Authenticate: Bearer` challenge, unless the headers
/// carry `Authorization: Bearer <token>`: the extended-card behaviours guard
/// that one operation only, so they check it where the operation is known.
pub(crate) fn refusal(token: &str, headers: &HeaderMap) -> Option<Response> {
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, credential) = v.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("bearer")
                .then(|| credential.trim())
        });
    match presented {
        Some(credential) if credential == token => None,
        Some(_) => Some(refuse(
            StatusCode::UNAUTHORIZED,
            "Bearer realm=\"a2a\", error=\"invalid_token\"",
            "the bearer token is not valid",
        )),
        None => Some(refuse(
            StatusCode::UNAUTHORIZED,
            "Bearer realm=\"a2a\"",
            "a bearer token is required",
        )),
    }
}

/// The OAuth behaviours: an issued, unexpired token with the scopes the
/// request needs.
async fn oauth(peer: &Shared, request: Request, next: Next) -> Response {
    let Some(token) = bearer(&request) else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Bearer realm=\"a2a\"",
            "a bearer token is required",
        );
    };
    let Some(scopes) = peer.tokens.scopes(&token) else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "Bearer realm=\"a2a\", error=\"invalid_token\"",
            "the token is unknown or expired",
        );
    };
    let mut needed = vec![SCOPES[0]];
    let request = if peer.behaviour == Behaviour::SecuredSkillScopes {
        let (parts, body) = request.into_parts();
        let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
            return refuse(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Bearer realm=\"a2a\"",
                "the body is too large",
            );
        };
        if serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| has_data_part(&v)) {
            needed.push(SCOPES[1]);
        }
        Request::from_parts(parts, Body::from(bytes))
    } else {
        request
    };
    if let Some(missing) = needed.iter().find(|s| !scopes.iter().any(|g| g == *s)) {
        return refuse(
            StatusCode::FORBIDDEN,
            &format!(
                "Bearer realm=\"a2a\", error=\"insufficient_scope\", scope=\"{}\"",
                needed.join(" ")
            ),
            &format!("the token lacks the scope {missing}"),
        );
    }
    next.run(request).await
}

/// Whether a request body carries a message part with structured data
/// (v1.0 `{data, mediaType}`, v0.3 `{kind: "data", data}`).
fn has_data_part(value: &Value) -> bool {
    match value {
        Value::Object(o) => {
            let is_part = o.contains_key("data")
                && (o.get("kind").and_then(Value::as_str) == Some("data")
                    || o.contains_key("mediaType"));
            is_part || o.values().any(has_data_part)
        }
        Value::Array(items) => items.iter().any(has_data_part),
        _ => false,
    }
}

fn refuse(status: StatusCode, challenge: &str, description: &str) -> Response {
    let body = json!({
        "error": {
            "code": status.as_u16(),
            "status": if status == StatusCode::FORBIDDEN { "PERMISSION_DENIED" } else { "UNAUTHENTICATED" },
            "message": description,
        }
    });
    (
        status,
        [
            (
                header::WWW_AUTHENTICATE,
                HeaderValue::from_str(challenge)
                    .unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
            ),
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
        ],
        Body::from(body.to_string()),
    )
        .into_response()
}

/// Declares the schemes of the API-key and OAuth behaviours in the
/// version's shapes; false for the others (the bearer scheme is the card's
/// own). `secured-skill-scopes` also narrows the default input to text and
/// gives the skill `echo` its own requirement.
pub(crate) fn declare_schemes(card: &mut Value, peer: &Shared) -> bool {
    let v1 = peer.protocol == ProtocolVersion::V1_0;
    let (name, scheme) = match peer.behaviour {
        Behaviour::SecuredApiKey => (
            "apikey",
            if v1 {
                json!({"apiKeySecurityScheme": {"location": "header", "name": API_KEY_HEADER, "description": "An API key on every A2A request"}})
            } else {
                json!({"type": "apiKey", "in": "header", "name": API_KEY_HEADER, "description": "An API key on every A2A request"})
            },
        ),
        Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes => {
            let flows = json!({"clientCredentials": {
                "tokenUrl": format!("{}{}", peer.base_url, super::published::TOKEN_PATH),
                "scopes": {
                    SCOPES[0]: "call the agent",
                    SCOPES[1]: "send structured data to the echo skill",
                },
            }});
            (
                "oauth",
                if v1 {
                    json!({"oauth2SecurityScheme": {"flows": flows, "description": "OAuth 2.0 client credentials"}})
                } else {
                    json!({"type": "oauth2", "flows": flows, "description": "OAuth 2.0 client credentials"})
                },
            )
        }
        _ => return false,
    };
    let scopes: Vec<&str> = if peer.behaviour.issues_tokens() {
        vec![SCOPES[0]]
    } else {
        Vec::new()
    };
    let requirement = |scopes: &[&str]| {
        if v1 {
            json!([{"schemes": {name: {"list": scopes}}}])
        } else {
            json!([{name: scopes}])
        }
    };
    let key = if v1 {
        "securityRequirements"
    } else {
        "security"
    };
    card["securitySchemes"] = json!({ name: scheme });
    card[key] = requirement(&scopes);
    if peer.behaviour == Behaviour::SecuredSkillScopes {
        card["defaultInputModes"] = json!(["text/plain"]);
        if let Some(skill) = card["skills"].get_mut(0) {
            skill[key] = requirement(&SCOPES);
        }
    }
    true
}
