//! One settings resolver for every per-peer value (variables, headers,
//! timeout, credential variables, TLS files): the most specific layer that
//! sets a value wins. The order, most specific first: flag > env var > the
//! peer's own settings (its fleet entry, its profile, its config section) >
//! the config file's top level > built-in default. Flags, env vars and the
//! config file's top level come through clap (which layer gave a value is
//! read from clap's own record, [`Sources`]); the peer's own settings are
//! one shape, [`PeerSettings`], whichever file writes them.
//!
//! A leaf below [`crate::config`], [`crate::profile`], [`crate::fleet`]
//! and the app: it knows settings, not files or commands.

mod layer;
mod peer;
mod resolve;
mod show;

pub use layer::{FlagSource, Layer, Sources};
pub use peer::{PeerLayer, PeerSettings, ProfileError, Profiles};
pub use resolve::{Resolved, Sourced, Top, DEFAULT_TIMEOUT};
pub use show::{render, secret_flag, secret_var, ShowLine, PRECEDENCE};
