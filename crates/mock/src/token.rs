//! The mock's OAuth 2.0 token endpoint (RFC 6749 §4.4, client credentials)
//! for the `secured-oauth` behaviours: a real HTTP endpoint on the peer's
//! loopback origin that checks the client (HTTP Basic or form fields),
//! the grant type and the scopes, and issues opaque tokens that expire.

use super::auth::{CLIENT_ID, SCOPES};
use super::shared::Shared;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;

/// The scope granted when a request names none.
const DEFAULT_SCOPE: &str = "a2a:invoke";

use super::issued::TOKEN_LIFETIME;

/// An RFC 6749 §5.2 error answer.
fn error(status: StatusCode, code: &str, description: &str) -> Response {
    let mut response = (
        status,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        json!({"error": code, "error_description": description}).to_string(),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"token\""),
        );
    }
    response
}

/// `POST /oauth/token`: `grant_type=client_credentials`, the client by HTTP
/// Basic or `client_id`/`client_secret` fields, an optional `scope`.
pub(crate) async fn issue(
    State(peer): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form: HashMap<String, String> = url::form_urlencoded::parse(&body).into_owned().collect();
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, encoded) = v.trim().split_once(' ')?;
            scheme
                .eq_ignore_ascii_case("basic")
                .then_some(encoded.trim())?;
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(encoded.trim())
                .ok()?;
            let text = String::from_utf8(decoded).ok()?;
            let (id, secret) = text.split_once(':')?;
            Some((id.to_string(), secret.to_string()))
        });
    let client = basic.or_else(|| {
        Some((
            form.get("client_id")?.clone(),
            form.get("client_secret")?.clone(),
        ))
    });
    let secret = peer
        .auth_token
        .as_deref()
        .unwrap_or(super::auth::DEFAULT_TOKEN);
    match client {
        Some((id, s)) if id == CLIENT_ID && s == secret => {}
        _ => {
            return error(
                StatusCode::UNAUTHORIZED,
                "invalid_client",
                "unknown client or wrong secret",
            )
        }
    }
    if form.get("grant_type").map(String::as_str) != Some("client_credentials") {
        return error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "only client_credentials is served",
        );
    }
    let mut scopes: Vec<String> = form
        .get("scope")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    if scopes.is_empty() {
        scopes.push(DEFAULT_SCOPE.to_string());
    }
    if let Some(unknown) = scopes.iter().find(|s| !SCOPES.contains(&s.as_str())) {
        return error(
            StatusCode::BAD_REQUEST,
            "invalid_scope",
            &format!("unknown scope {unknown}"),
        );
    }
    let token = peer.tokens.issue(scopes.clone());
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        json!({
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": TOKEN_LIFETIME.as_secs(),
            "scope": scopes.join(" "),
        })
        .to_string(),
    )
        .into_response()
}
