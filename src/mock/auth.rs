//! Credentials on the mock peer's A2A endpoints: the `secured` behaviour
//! answers every JSON-RPC and REST request without `Authorization: Bearer
//! <token>` with HTTP 401 and a `WWW-Authenticate: Bearer` challenge (v1
//! §7.4). The card stays public; `security-unenforced` declares the same
//! requirement and checks nothing.

use super::shared::Shared;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::Arc;

/// The token `secured` requires when [`super::MockConfig::auth_token`] sets none.
pub const DEFAULT_TOKEN: &str = "a2a-conform-mock-token";

/// The name of the bearer scheme the card declares.
pub(crate) const SCHEME: &str = "bearer";

/// Lets a request through when the peer requires no credentials or it carries
/// the right bearer token; answers 401 otherwise.
pub(crate) async fn require(
    State(peer): State<Arc<Shared>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(token) = peer
        .auth_token
        .as_deref()
        .filter(|_| peer.behaviour.enforces_security())
    else {
        return next.run(request).await;
    };
    match refusal(token, request.headers()) {
        None => next.run(request).await,
        Some(refusal) => refusal,
    }
}

/// HTTP 401 with a `WWW-Authenticate: Bearer` challenge, unless the headers
/// carry `Authorization: Bearer <token>` (also used by the extended-card
/// behaviours, which guard that one operation only).
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
    let (error, description) = match presented {
        Some(credential) if credential == token => return None,
        Some(_) => ("invalid_token", "the bearer token is not valid"),
        None => ("", "a bearer token is required"),
    };
    let challenge = if error.is_empty() {
        "Bearer realm=\"a2a\"".to_string()
    } else {
        format!("Bearer realm=\"a2a\", error=\"{error}\"")
    };
    let body = json!({
        "error": {
            "code": 401,
            "status": "UNAUTHENTICATED",
            "message": description,
        }
    });
    Some(
        (
            StatusCode::UNAUTHORIZED,
            [
                (
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_str(&challenge)
                        .unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
                ),
                (
                    header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                ),
            ],
            Body::from(body.to_string()),
        )
            .into_response(),
    )
}
