//! The runner: checks peers against their agent cards. Each peer goes
//! through one pipeline, a module per stage:
//!
//! ```text
//!   input ─► card ─► auth ─► plan ─► schedule ─► run ─► judge ─► PeerReport
//!            │        │        │        │           │       │
//!        card.rs  auth.rs  plan.rs  schedule.rs  run.rs  judge.rs
//!   fetch, parse, the card's  scenarios  --jobs slots,  attempts,   stops as
//!   redact (client schemes,   gated and  progress,      retries,    verdicts,
//!   crate)         clients    expanded   interruption   steps       rows
//! ```
//!
//! `peer` runs the stages in that order for one peer; `fleet` runs it for
//! every peer of a check ([`check`], [`check_fleet`]) into one `RunReport`.
//! A run's steps are the step primitives of `crate::steps`, on a
//! `context::RunContext` (`calls`, `push`: what steps share; `capture`:
//! what they capture; `stream_end`, `webhook`, `window`: what they judge
//! with). `precondition` reaches what a run needs from the card itself (a
//! prompt that drives a task to `input-required`, examples for longer
//! work); `evidence` maps the client's records to the report's evidence;
//! [`Progress`] hears the pipeline's events.
//!
//! This file only declares and re-exports; no module imports from it.

mod auth;
pub(crate) mod calls;
pub(crate) mod capture;
mod card;
pub(crate) mod context;
mod credentials;
pub(crate) mod evidence;
mod fleet;
mod judge;
mod options;
pub(crate) mod order;
mod peer;
mod phrases;
mod plan;
mod precondition;
mod progress;
mod push;
mod run;
pub(crate) mod run_vars;
mod schedule;
pub(crate) mod stream_end;
pub(crate) mod webhook;
mod window;

pub use card::{fetch_card, CardUnavailable};
pub use fleet::{check, check_fleet, suite_digest, PeerTarget, MAX_RUNS_IN_FLIGHT};
pub use options::{
    RunOptions, DEFAULT_BUDGET as DEFAULT_DISCOVER_BUDGET, DEFAULT_MAX_RUNS_PER_FAMILY,
    DEFAULT_PEERS_IN_FLIGHT, MAX_DEFAULT_JOBS, MAX_PROBE_WINDOW, MAX_RUN, MIN_DEFAULT_JOBS,
};
pub use precondition::search_peer;
pub use progress::{Progress, Quiet};
pub use run::INTERRUPTED;
