//! The `a2a-conform` command line: tells, declaration by declaration, whether
//! an A2A peer's runtime keeps what its agent card promises.
//!
//! The pipeline lives in library crates: `a2a-conform-protocol` (protocol
//! and card types), `a2a-conform-client` (the A2A client), `a2a-conform-engine`
//! (suites and the runner), `a2a-conform-report` (the report, verdicts, diff)
//! and `a2a-conform-mock` (the mock peer). This crate is the CLI on top:
//! [`app`] runs the subcommands [`cli`] parses, with settings from the
//! command line, the environment, [`config`] files, [`profile`]s and
//! [`fleet`] files, resolved per peer by [`settings`]; every early stop is
//! an [`error::AppError`] that knows its exit code. `docs/architecture.md` has the longer tour.
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
pub mod cli;
pub mod config;
pub mod docs;
pub mod error;
pub mod fleet;
pub mod profile;
pub mod progress;
pub mod settings;
