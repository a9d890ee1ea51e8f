//! a2a-conform: tells, declaration by declaration, whether an A2A peer's
//! runtime keeps what its agent card promises.
//!
//! The pieces, in the order a check uses them: [`card`] discovers and parses
//! the agent card, whose promises are [`declaration`] ids (one grammar for
//! the card, the suites, the planner and the reports); [`scenario`] loads
//! YAML suites; [`runner`] executes their steps over [`transport`] (recording every exchange as evidence,
//! with credentials [`auth`] obtains from the card's security schemes) in the
//! shapes of [`protocol`]; [`verdict`] decides what counts, with known
//! divergences from a [`baseline`]; [`report`] renders the one versioned
//! report (terminal, JSON, JUnit, Markdown), with peer text made [`inert`]
//! for each; [`diff`] compares two reports. Files are read through [`input`],
//! within a cap.
//! [`mock`] is a real A2A peer for demos and tests. [`app`] runs the
//! subcommands [`cli`] parses; every early stop is an [`error::AppError`]
//! that knows its exit code. `docs/architecture.md` has the longer tour.
//!
//! A scenario is data, composed from step primitives:
//!
//! ```yaml
//! scenarios:
//!   - id: second-cancel
//!     title: A second cancel answers canceled or TaskNotCancelable
//!     verifies: [lifecycle.cancel]
//!     when: capabilities.streaming
//!     steps:
//!       - stream: { as: s, text: "${prompt_long}" }
//!       - expect_event: { stream: s, kind: status-update, within: "${probe_window}" }
//!       - cancel: { task: s, as: first }
//!       - cancel: { task: s, as: second }
//!       - expect: { of: second, state: [canceled], code: [-32002] }
//! ```

pub mod app;
pub mod auth;
pub mod baseline;
pub mod card;
pub mod cli;
pub mod config;
pub mod declaration;
pub mod diff;
pub mod docs;
pub mod error;
pub mod exit;
pub mod fleet;
pub mod inert;
pub mod input;
pub mod merge;
pub mod mock;
pub mod profile;
pub mod progress;
pub mod protocol;
pub mod redact;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod transport;
pub mod verdict;
pub mod yaml;
