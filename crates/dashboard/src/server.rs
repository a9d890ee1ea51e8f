//! The dashboard's HTTP server (axum): the fleet grid (`/`, a page of
//! peers: `?page=N`), a peer's page (`/peer/{peer}`), the JSON the pages
//! are built on (`/api/fleet`, the whole fleet or `?page=N`;
//! `/api/peer/{peer}`), `/metrics` and `/badge/{peer}.svg`, all
//! server-rendered from one history store. A peer's page with
//! `?record=N` shows that record's report of the peer (the evidence link
//! of a `watch` alert). Every response carries a
//! strict Content-Security-Policy (no script at all) and `nosniff`; with a
//! token, every request must bring it as `Authorization: Bearer`.
//!
//! The store is synchronous: each request takes it on a blocking thread,
//! one at a time (one connection). `watch --listen` can serve the same
//! pages by calling [`serve`] with its own listener.

use crate::html::{fleet::fleet_page, peer::peer_page};
use crate::{badge, metrics, view, Counts};
use a2a_conform_history::{Error, Store};
use a2a_conform_report::format::html::page::content_security_policy;
use a2a_conform_report::DeclarationVerdict;
use axum::extract::{Path, Query, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

/// The environment variable holding the token a dashboard on a
/// non-loopback address requires (and any dashboard checks when it is set).
pub const TOKEN_ENV: &str = "A2A_CONFORM_DASHBOARD_TOKEN";

/// Whether a dashboard listening on `addr` must require a token: anything
/// but loopback is reachable by others, and the pages show evidence.
pub fn needs_token(addr: &SocketAddr) -> bool {
    !addr.ip().is_loopback()
}

#[derive(Clone)]
struct Shared {
    store: Arc<Mutex<Store>>,
    /// The token, when one is required.
    expected: Option<Arc<str>>,
}

/// The dashboard's routes over `store`; with `token`, every request must
/// carry `Authorization: Bearer TOKEN`.
pub fn router(store: Store, token: Option<String>) -> Router {
    let shared = Shared {
        store: Arc::new(Mutex::new(store)),
        expected: token.map(Arc::from),
    };
    Router::new()
        .route("/", get(fleet_html))
        .route("/peer/{peer}", get(peer_html))
        .route("/api/fleet", get(fleet_json))
        .route("/api/peer/{peer}", get(peer_json))
        .route("/metrics", get(metrics_text))
        .route("/badge/{file}", get(badge_svg))
        .fallback(|| async { not_found("no such page") })
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

/// Serves the dashboard over `store` on `listener` until `shutdown`
/// resolves (then in-flight requests finish).
pub async fn serve(
    listener: tokio::net::TcpListener,
    store: Store,
    token: Option<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(store, token))
        .with_graceful_shutdown(shutdown)
        .await
}

/// Compares in time independent of where the first difference is.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The credentials of `Authorization: Bearer TOKEN`: the scheme's name is
/// case-insensitive (RFC 9110 §11.1), so `bearer TOKEN` is the same.
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    scheme.eq_ignore_ascii_case(b"bearer ").then_some(rest)
}

/// The token check, then the headers every response carries.
async fn guard(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let allowed = match &shared.expected {
        None => true,
        Some(expected) => request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|given| bearer_token(given.as_bytes()))
            .is_some_and(|given| same(given, expected.as_bytes())),
    };
    let mut response = if allowed {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a token is required: Authorization: Bearer $A2A_CONFORM_DASHBOARD_TOKEN\n",
        )
            .into_response()
    };
    let headers = response.headers_mut();
    if let Ok(policy) = HeaderValue::from_str(&content_security_policy()) {
        headers.insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    let fixed = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    for (name, value) in fixed {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

/// Runs `read` on the store on a blocking thread. A failure is a 500 and
/// a line on stderr, so whoever runs the dashboard sees the store is down
/// (the store reconnects to PostgreSQL on the next request by itself).
async fn with_store<T: Send + 'static>(
    shared: &Shared,
    read: impl FnOnce(&mut Store) -> Result<T, Error> + Send + 'static,
) -> Result<T, Response> {
    let store = shared.store.clone();
    let outcome = tokio::task::spawn_blocking(move || {
        let mut store = store.lock().map_err(|_| None)?;
        read(&mut store).map_err(Some)
    })
    .await;
    outcome.unwrap_or(Err(None)).map_err(|error| {
        // The message names no connection string: the store's errors never do.
        let text = match error {
            Some(error) => format!("the history store failed: {error}"),
            None => "the history store is unavailable".to_string(),
        };
        log(&format!("dashboard: a request failed: {text}"));
        (StatusCode::INTERNAL_SERVER_ERROR, format!("{text}\n")).into_response()
    })
}

/// One line on stderr, its controls shown, not obeyed (a store error may
/// quote a peer's text); a stderr nobody reads is no reason to fail.
fn log(line: &str) {
    use std::io::Write;
    let line = a2a_conform_report::inert::terminal(line);
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn html(page: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// The `?page=` of the grid and `/api/fleet`.
#[derive(Debug, serde::Deserialize)]
struct PageQuery {
    page: Option<String>,
}

/// A `?page=` that is not a page number.
struct BadPage;

impl IntoResponse for BadPage {
    fn into_response(self) -> Response {
        (
            StatusCode::BAD_REQUEST,
            "?page= takes a page number from 1\n",
        )
            .into_response()
    }
}

/// Which page was asked for (`None` without `?page=`).
fn page_number(query: &PageQuery) -> Result<Option<i64>, BadPage> {
    let Some(text) = &query.page else {
        return Ok(None);
    };
    match text.parse::<i64>() {
        Ok(page) if page >= 1 => Ok(Some(page)),
        _ => Err(BadPage),
    }
}

/// The page of the fleet asked for, or a 404 past the last one.
async fn fleet_at(shared: &Shared, page: i64) -> Result<view::Fleet, Response> {
    with_store(shared, move |store| view::fleet_page(store, page))
        .await?
        .ok_or_else(|| not_found("no such page of the fleet"))
}

/// `/`: a page of the grid (the first without `?page=`).
async fn fleet_html(State(shared): State<Shared>, Query(query): Query<PageQuery>) -> Response {
    let page = match page_number(&query) {
        Ok(page) => page.unwrap_or(1),
        Err(bad) => return bad.into_response(),
    };
    match fleet_at(&shared, page).await {
        Ok(fleet) => html(fleet_page(&fleet)),
        Err(response) => response,
    }
}

/// `/api/fleet`: the whole fleet, or with `?page=` the grid's page.
async fn fleet_json(State(shared): State<Shared>, Query(query): Query<PageQuery>) -> Response {
    let fleet = match page_number(&query) {
        Ok(Some(page)) => fleet_at(&shared, page).await,
        Ok(None) => with_store(&shared, view::fleet).await,
        Err(bad) => return bad.into_response(),
    };
    match fleet {
        Ok(fleet) => Json(fleet).into_response(),
        Err(response) => response,
    }
}

/// The `?record=` of a peer's page: show that record's report of the
/// peer (an alert's evidence link) instead of the latest.
#[derive(Debug, serde::Deserialize)]
struct RecordQuery {
    record: Option<String>,
}

/// The peer's view, with the report of `?record=N` when asked.
async fn peer_view(
    shared: &Shared,
    peer: String,
    query: &RecordQuery,
) -> Result<view::PeerView, Response> {
    let record = match query.record.as_deref().map(str::parse::<i64>) {
        None => None,
        Some(Ok(record)) if record >= 1 => Some(record),
        Some(_) => {
            let bad = "?record= takes a record number from 1\n";
            return Err((StatusCode::BAD_REQUEST, bad).into_response());
        }
    };
    with_store(shared, move |store| view::peer(store, &peer, record))
        .await?
        .ok_or_else(|| not_found("the store has no record of this peer"))
}

async fn peer_html(
    State(shared): State<Shared>,
    Path(peer): Path<String>,
    Query(query): Query<RecordQuery>,
) -> Response {
    match peer_view(&shared, peer, &query).await {
        Ok(view) => html(peer_page(&view)),
        Err(response) => response,
    }
}

async fn peer_json(
    State(shared): State<Shared>,
    Path(peer): Path<String>,
    Query(query): Query<RecordQuery>,
) -> Response {
    match peer_view(&shared, peer, &query).await {
        Ok(view) => Json(view).into_response(),
        Err(response) => response,
    }
}

async fn metrics_text(State(shared): State<Shared>) -> Response {
    match with_store(&shared, metrics).await {
        Ok(text) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(response) => response,
    }
}

/// `/badge/{peer}.svg`: the counts of the peer's current verdicts.
async fn badge_svg(State(shared): State<Shared>, Path(file): Path<String>) -> Response {
    let Some(peer) = file.strip_suffix(".svg").map(str::to_string) else {
        return not_found("a badge is /badge/PEER.svg");
    };
    let label = peer.clone();
    let counts = with_store(&shared, move |store| {
        let changes = store.changes(&peer)?;
        let latest = changes.iter().map(|i| i.last_record).max();
        let mut counts = Counts::default();
        for i in changes.iter().filter(|i| Some(i.last_record) == latest) {
            match i.verdict {
                DeclarationVerdict::Honoured => counts.honoured += 1,
                DeclarationVerdict::Diverged => counts.diverged += 1,
                DeclarationVerdict::Unverified => counts.unverified += 1,
                DeclarationVerdict::NotDeclared | DeclarationVerdict::OverDelivers => {}
            }
        }
        Ok(latest.map(|_| counts))
    })
    .await;
    match counts {
        Ok(Some(counts)) => (
            [(header::CONTENT_TYPE, "image/svg+xml")],
            badge(&label, counts),
        )
            .into_response(),
        Ok(None) => not_found("the store has no record of this peer"),
        Err(response) => response,
    }
}
