//! `dashboard`: serves the pages of a history store (the fleet grid, peer
//! pages, the JSON API, `/metrics`, badges) until SIGINT or SIGTERM.
//! Loopback by default; any other address requires the token of
//! `A2A_CONFORM_DASHBOARD_TOKEN` (the pages show evidence), never printed.
//! `watch --listen` serves the same pages through [`serve_dashboard`].

use super::check::watch_signals;
use crate::cli::DashboardArgs;
use crate::error::AppError;
use a2a_conform_dashboard::{needs_token, serve, TOKEN_ENV};
use a2a_conform_report::exit;
use std::future::Future;
use std::net::SocketAddr;
use tokio_util::sync::CancellationToken;

/// The token of [`TOKEN_ENV`], and whether serving on `addr` may go on:
/// an error when `addr` is not loopback and no token is set.
pub(crate) fn dashboard_token(addr: &SocketAddr) -> Result<Option<String>, AppError> {
    let token = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty());
    if let Some(t) = &token {
        // A blank token (or one with spaces at its ends) could never be
        // sent back as a header value: every request would be refused.
        if t.trim().is_empty() || t.trim() != t {
            return Err(AppError::Dashboard(format!(
                "{TOKEN_ENV} is blank or starts or ends with a space; a token must be text the header can carry back"
            )));
        }
        if t.chars().any(char::is_control) {
            return Err(AppError::Dashboard(format!(
                "{TOKEN_ENV} contains a control character (e.g. a trailing newline); a token must be one line of text"
            )));
        }
    }
    if token.is_none() && needs_token(addr) {
        return Err(AppError::Dashboard(format!(
            "--listen {addr} is not a loopback address: set {TOKEN_ENV} to a secret token \
             (every request must then carry `Authorization: Bearer TOKEN`), or listen on 127.0.0.1"
        )));
    }
    Ok(token)
}

/// Opens the store at `db`, binds `addr` and serves the dashboard until
/// `shutdown` resolves; prints the address taken on stderr once bound.
/// The token check is [`dashboard_token`]'s, done by the caller first.
pub(crate) async fn serve_dashboard(
    db: &str,
    addr: SocketAddr,
    token: Option<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), AppError> {
    let url = db.to_string();
    let store =
        tokio::task::spawn_blocking(move || a2a_conform_history::Store::open_existing(&url))
            .await
            .map_err(|e| AppError::Dashboard(format!("cannot open the history store: {e}")))?
            .map_err(|e| AppError::Dashboard(format!("cannot open the history store: {e}")))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| AppError::Dashboard(format!("cannot listen on {addr}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| AppError::Dashboard(format!("cannot listen on {addr}: {e}")))?;
    let guarded = if token.is_some() {
        format!(" (requests need `Authorization: Bearer ${TOKEN_ENV}`)")
    } else {
        String::new()
    };
    eprintln!("dashboard serving on http://{bound}/{guarded}; Ctrl-C stops it");
    serve(listener, store, token, shutdown)
        .await
        .map_err(|e| AppError::Dashboard(format!("the dashboard stopped: {e}")))
}

/// `a2a-conform dashboard --db URL [--listen ADDR]`: exit 0 once stopped
/// by a signal, 2 when the store cannot be opened, the address taken or
/// the token is missing.
pub(super) async fn dashboard(args: DashboardArgs) -> Result<i32, AppError> {
    let token = dashboard_token(&args.listen)?;
    let cancel = CancellationToken::new();
    let (_caught, _signals) = watch_signals(cancel.clone());
    serve_dashboard(&args.db, args.listen, token, cancel.cancelled_owned()).await?;
    Ok(exit::OK)
}
