//! The a2a-conform run report as its consumers read it (nextest-metadata's
//! place): the types of `check --json` and nothing that judges or renders
//! them, so a CI tool, a dashboard of its own or an orchestrator seeding a
//! capability cache compiles a handful of packages (serde, serde_json,
//! strum, thiserror, humantime) — no clap, tokio, reqwest or A2A client.
//!
//! # The API
//!
//! - **The report.** [`RunReport`] ([`SCHEMA_VERSION`]) holds
//!   [`PeerReport`]s, each with its [`DeclarationReport`] rows and
//!   [`ScenarioReport`] runs, whose [`evidence::Evidence`] is what was sent
//!   and received; a concluded report carries its [`RunSummary`]
//!   ([`RunReport::stored_summary`]). Read one from a file with
//!   [`RunReport::load`] (capped, version checked: [`ReportFile::load`]);
//!   write one with [`write_atomically`]. Hand-made reports (tests,
//!   examples) start from the [`builder`]s.
//! - **Exit codes**: the [`exit`] constants every command uses.
//! - **Counting**: [`tally`] counts a report's rows and runs by verdict.
//! - **Inputs**: the capped reader ([`input`]) every file a user names goes
//!   through, and peer text made [`inert`] for a terminal, Markdown, XML,
//!   Slack.
//!
//! Judging (the verdict rules, `conclude`), the formats, `diff` and `merge`
//! are the `a2a-conform-report` crate, built on this one; it re-exports
//! everything here. With the `json-schema` feature the types derive
//! `schemars::JsonSchema` (`a2a-conform schema report` prints the schema).
//!
//! # Example
//!
//! ```
//! use a2a_conform_report_schema::{PeerReport, RunReport, ScenarioReport, ScenarioVerdict};
//!
//! let run = ScenarioReport::builder("cancel-then-stream", ScenarioVerdict::Fail)
//!     .verifies("lifecycle.cancel")
//!     .build();
//! let peer = PeerReport::builder("https://peer.example/.well-known/agent-card.json")
//!     .scenarios(vec![run])
//!     .build();
//! let json = RunReport::new(vec![peer]).to_json();
//! let back: RunReport = serde_json::from_str(&json).expect("its own JSON");
//! assert_eq!(back.peers[0].scenarios[0].verdict, ScenarioVerdict::Fail);
//! assert!(back.stored_summary().is_none(), "not concluded");
//! ```

#![deny(missing_docs)]

pub mod builder;
pub mod evidence;
pub mod exit;
mod file;
pub mod inert;
pub mod input;
mod model;
mod summary;
pub mod tally;

pub use file::{check_writable, same_report_file, write_atomically, LoadError, Probed, ReportFile};
pub use model::*;
pub use summary::{Counts, DeclarationCounts, RunCounts, RunOutcome, RunSummary};

impl RunReport {
    /// The summary a concluded report carries (`conclude` in the report
    /// crate computes it once), or `None` for a report not concluded: the
    /// report crate's `Summarized::summary` computes one then.
    pub fn stored_summary(&self) -> Option<&RunSummary> {
        self.summary.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_look_like_rfc3339() {
        let t = model::now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
        assert_eq!(RunReport::new(Vec::new()).started_at.len(), 20);
    }
}
