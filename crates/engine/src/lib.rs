//! The a2a-conform engine: it checks A2A peers against their agent cards.
//! A suite of YAML scenarios ([`scenario`]: data composed from step
//! primitives, loaded with `file:line:col` errors) runs against each peer
//! ([`runner`]: card, auth, plan, schedule, run, judge) over the client
//! crate, and the result is the report crate's `RunReport`: per scenario
//! run a verdict with its evidence, per declaration of the card a row.
//!
//! The API:
//! - [`scenario::Suite`]: the embedded default suite ([`Suite::embedded`](scenario::Suite::embedded))
//!   plus the user's files ([`Suite::add_file`](scenario::Suite::add_file)),
//!   or a [`scenario::SuiteError`] pointing at the line;
//! - [`runner::check`] / [`runner::check_fleet`]: every peer checked against
//!   the suite with [`runner::RunOptions`], reporting live to a
//!   [`runner::Progress`]; [`runner::fetch_card`] reads one card and
//!   [`runner::search_peer`] searches one peer's preconditions (as
//!   `profile init` does);
//! - [`scenario::vars`]: the built-in variables and the duration syntax
//!   the CLI checks `--var` values with.
//!
//! Everything else is the crate's own: the step primitives (one file each
//! under `steps/`, behind one trait) and the runner's stages.
//!
//! ```no_run
//! use a2a_conform_engine::runner::{self, Quiet, RunOptions};
//! use a2a_conform_engine::scenario::Suite;
//!
//! # async fn example() -> Result<(), a2a_conform_engine::scenario::SuiteError> {
//! let suite = Suite::embedded()?;
//! let peers = vec!["http://127.0.0.1:8080".to_string()];
//! let report = runner::check(&peers, &suite, &RunOptions::default(), &Quiet).await;
//! for peer in &report.peers {
//!     println!("{}: {} runs", peer.card_url, peer.scenarios.len());
//! }
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod runner;
pub mod scenario;
mod steps;
