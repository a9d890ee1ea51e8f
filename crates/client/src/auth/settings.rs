//! What the user gave for the card's schemes: environment variable names
//! from `--api-key-env`, `--basic-env`, `--oauth-client-id-env` and
//! `--oauth-client-secret-env`, read once into values. Secrets come only
//! from the environment, never from argv or a file the tool writes.

use std::sync::{Arc, Mutex};

/// A value read from an environment variable, and the variable's name (what
/// reports and reproductions show instead of the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSecret {
    /// The variable's name (what evidence shows: `$VAR`).
    pub var: String,
    /// Its value (a secret, redacted wherever it would appear).
    pub value: String,
}

/// An OAuth 2.0 client: its id and secret, each from the environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthClient {
    /// The client id (an identifier, not redacted).
    pub id: EnvSecret,
    /// The client secret (sent only to the card's token URL, redacted).
    pub secret: EnvSecret,
}

/// The credentials the card's schemes can be satisfied with, besides the
/// bearer token (`--bearer-env`), headers and client certificate that the
/// [`crate::client::ClientConfig`] already carries.
#[derive(Debug, Clone, Default)]
pub struct AuthSettings {
    /// `--api-key-env VAR`: the key for an `apiKey` scheme, wherever the card puts it.
    pub api_key: Option<EnvSecret>,
    /// `--basic-env USER_VAR:PASS_VAR`: user and password for `http` basic.
    pub basic: Option<(EnvSecret, EnvSecret)>,
    /// `--oauth-client-id-env` and `--oauth-client-secret-env`: the client
    /// for the `oauth2` client-credentials flow and `openIdConnect`.
    pub oauth_client: Option<OAuthClient>,
}

impl AuthSettings {
    /// The values to redact: the API key, the basic password, the client
    /// secret. The user name and client id are identifiers, not secrets.
    pub fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(key) = &self.api_key {
            out.push(key.value.clone());
        }
        if let Some((_, password)) = &self.basic {
            out.push(password.value.clone());
        }
        if let Some(client) = &self.oauth_client {
            out.push(client.secret.value.clone());
        }
        out.retain(|s| !s.trim().is_empty());
        out
    }

    /// Whether any of these settings was given.
    pub fn is_empty(&self) -> bool {
        self.api_key.is_none() && self.basic.is_none() && self.oauth_client.is_none()
    }
}

/// The secrets a check obtains while it runs (access tokens), shared by
/// every peer of the check so that the final report is redacted of them
/// too, not only the runs that used them. Clones share one list.
#[derive(Debug, Clone, Default)]
pub struct IssuedSecrets(Arc<Mutex<Vec<String>>>);

impl IssuedSecrets {
    /// Registers a secret obtained during the check (once; empty ones are
    /// ignored).
    pub fn add(&self, secret: &str) {
        if secret.is_empty() {
            return;
        }
        if let Ok(mut all) = self.0.lock() {
            if !all.iter().any(|s| s == secret) {
                all.push(secret.to_string());
            }
        }
    }

    /// Every secret obtained so far.
    pub fn all(&self) -> Vec<String> {
        self.0.lock().map(|all| all.clone()).unwrap_or_default()
    }
}
