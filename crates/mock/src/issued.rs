//! The tokens the mock's OAuth endpoint has issued, with their expiry and
//! scopes: kept in the shared state, read by the auth check. A leaf, so the
//! token endpoint and the shared state do not import each other.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long an issued token is valid.
pub(crate) const TOKEN_LIFETIME: Duration = Duration::from_secs(60);

/// Issued tokens: their expiry and scopes.
#[derive(Default)]
pub(crate) struct Issued(Mutex<HashMap<String, (Instant, Vec<String>)>>);

impl Issued {
    /// The scopes of `token`, if it was issued here and has not expired.
    pub(crate) fn scopes(&self, token: &str) -> Option<Vec<String>> {
        let tokens = self.0.lock().ok()?;
        let (expires, scopes) = tokens.get(token)?;
        (Instant::now() < *expires).then(|| scopes.clone())
    }

    pub(crate) fn issue(&self, scopes: Vec<String>) -> String {
        let token = format!("mock-at-{}", uuid::Uuid::new_v4().simple());
        if let Ok(mut tokens) = self.0.lock() {
            let now = Instant::now();
            tokens.retain(|_, (expires, _)| *expires > now);
            tokens.insert(token.clone(), (now + TOKEN_LIFETIME, scopes));
        }
        token
    }
}
