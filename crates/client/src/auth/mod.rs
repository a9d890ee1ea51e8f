//! Credentials from the card's security schemes: `scheme` reads what the
//! card declares (card-level and per-skill requirements), `settings` holds
//! what the user gave (environment variable names and their values),
//! `resolve` meets each run's requirement with them — an API key, basic
//! credentials, an OAuth 2.0 client-credentials or OpenID Connect token
//! from `token` (cached and refreshed for the check) — and [`profile_hints`]
//! lists the settings a card needs, for `profile init`.
//!
//! Secrets come only from the environment; every one, and every token
//! obtained, is redacted by value. `security.enforced` keeps probing with
//! no and with made-up credentials: those calls leave out whatever this
//! module added.

mod hints;
mod resolve;
pub(crate) mod scheme;
pub(crate) mod settings;
mod token;

pub use hints::{profile_hints, AuthHint, AuthSetting};
pub use resolve::{PeerAuth, RunAuth};
pub use settings::{AuthSettings, EnvSecret, IssuedSecrets, OAuthClient};
