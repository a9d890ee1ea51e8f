//! What users and CI consume from a2a-conform: the run report, its formats,
//! and the rules that turn it into an exit code. A CI tool can depend on
//! this crate alone (it needs no engine, client or CLI) to read a report
//! `check --json` wrote, render it, gate on it, compare two or join shards.
//!
//! # The API
//!
//! - **The report.** [`RunReport`] is the one versioned report
//!   ([`SCHEMA_VERSION`]; its JSON Schema is [`report_schema`], generated
//!   from these types). It holds [`PeerReport`]s, each with its
//!   [`DeclarationReport`] rows and [`ScenarioReport`] runs, whose
//!   [`evidence::Evidence`] is what was sent and received. Read one from a
//!   file with [`RunReport::load`] (capped, version checked: see
//!   [`ReportFile::load`]);
//!   write one with [`write_atomically`]. Hand-made reports (tests,
//!   examples) start from the [`builder`]s.
//! - **Verdicts.** [`verdict::judge_declarations`] turns runs into
//!   declaration rows; [`conclude`] finishes a report in one documented
//!   order — the [`Rules`] of the run, the [`baseline::Baseline`] of known
//!   divergences, then the [`RunSummary`] (counts, outcome and exit code),
//!   stored in `RunReport::summary` and read by [`RunReport::summary()`].
//!   [`verdict::exit_reasons`] says why a run exits as it does; the process
//!   exit codes are the [`exit`] constants.
//! - **Formats**, pure functions of a report, as one table: each
//!   [`Format`] (JSON, JUnit, Markdown, HTML) names its flag and renders
//!   ([`Format::render`]); the terminal report is [`format::human::render`].
//!   Peer text is made [`inert`] for each sink.
//! - **Comparing and joining.** [`diff::diff_files`] labels what changed
//!   between two reports (regression, fix, drift, accepted);
//!   [`merge::merge_files`] joins the shards of `check --shard K/N`
//!   ([`shard::Shard`]).
//! - **Inputs the tool shares:** the capped reader ([`input`]) every file a
//!   user names goes through, and positioned YAML errors ([`yaml`]).
//!
//! # Example
//!
//! A report built by hand, concluded, gated on and rendered:
//!
//! ```
//! use a2a_conform_report::format::{human, junit, markdown};
//! use a2a_conform_report::{conclude, exit, Format, Rules};
//! use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
//! use a2a_conform_report::{ScenarioReport, ScenarioVerdict};
//!
//! let leak = "an artifact arrived after the cancel was acknowledged";
//! let run = ScenarioReport::builder("cancel-then-stream", ScenarioVerdict::Fail)
//!     .verifies("lifecycle.cancel")
//!     .message(leak)
//!     .build();
//! let row = DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Diverged)
//!     .scenario("cancel-then-stream")
//!     .reason(&format!("cancel-then-stream: {leak}"))
//!     .build();
//! let peer = PeerReport::builder("https://peer.example/.well-known/agent-card.json")
//!     .name("Example peer")
//!     .declarations(vec![row])
//!     .scenarios(vec![run])
//!     .build();
//! let mut report = RunReport::new(vec![peer]);
//! conclude(&mut report, &Rules::default());
//!
//! let summary = report.summary.as_ref().expect("concluded");
//! assert_eq!(summary.exit_code, exit::DIVERGED);
//! assert_eq!(summary.headline(), "fail — 0 honoured, 1 diverged");
//!
//! let text = human::render(&report, human::Style::default());
//! assert!(text.ends_with("fail — 0 honoured, 1 diverged; 1 scenario runs: 1 fail\n"));
//! let xml = junit::render(&report).expect("renders");
//! assert!(xml.contains(&format!(r#"<failure message="{leak}" type="fail">"#)));
//! let md = markdown::render(&report);
//! assert!(md.contains("Fails the run: lifecycle.cancel diverged"));
//! assert!(report.to_json().contains(r#""outcome": "fail""#));
//! assert!(Format::Html.render(&report)?.contains("lifecycle.cancel"));
//! # Ok::<(), a2a_conform_report::format::RenderError>(())
//! ```

#![deny(missing_docs)]

pub mod baseline;
mod conclude;
pub mod diff;
pub mod format;
pub mod merge;
pub mod shard;
pub mod verdict;
pub mod yaml;

/// The report's types, loader and exit codes: the `a2a-conform-report-schema`
/// crate, whole, so one path serves a user of either crate.
pub use a2a_conform_report_schema::*;
pub use conclude::{conclude, Rules};
pub use format::Format;
pub use verdict::Summarized;

/// The report's JSON Schema (schemars, from the report types themselves),
/// pretty-printed with a trailing newline: what `a2a-conform schema report`
/// prints and `docs/report.schema.json` holds.
pub fn report_schema() -> String {
    let schema = schemars::schema_for!(RunReport);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::format::{human, junit, markdown};
    use super::*;
    use serde::Serialize;
    use strum::VariantArray;

    /// The human and Markdown reports print `as_str`; the JSON report the serde
    /// spelling. They must be the same word.
    fn same_names<T: Serialize + Copy + Into<&'static str>>(all: &[T]) {
        for v in all {
            let name: &'static str = (*v).into();
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(name));
        }
    }

    #[test]
    fn verdict_names_are_the_json_spellings() {
        same_names(ScenarioVerdict::VARIANTS);
        same_names(DeclarationVerdict::VARIANTS);
        same_names(BaselineStatus::VARIANTS);
        assert_eq!(DeclarationVerdict::OverDelivers.as_str(), "over-delivers");
        assert_eq!(ScenarioVerdict::Inconclusive.as_str(), "inconclusive");
    }

    #[test]
    fn the_run_counts_are_spelled_as_the_scenario_verdicts() {
        let spelled: Vec<&str> = RunCounts::default()
            .by_verdict()
            .iter()
            .map(|(_, name)| *name)
            .collect();
        let verdicts: Vec<&str> = ScenarioVerdict::VARIANTS
            .iter()
            .map(|v| v.as_str())
            .collect();
        assert_eq!(spelled, verdicts);
    }

    #[test]
    fn the_renderers_read_the_stored_summary() {
        let row =
            DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Honoured).build();
        let mut report = RunReport::new(vec![PeerReport::builder("http://p/card")
            .declarations(vec![row])
            .build()]);
        conclude(&mut report, &Rules::default());
        assert_eq!(report.summary().outcome, RunOutcome::Pass);
        // A stored summary is what every format says, not a count made again.
        if let Some(summary) = report.summary.as_mut() {
            summary.outcome = RunOutcome::Unverified;
            summary.counts.declarations.honoured = 7;
            summary.counts.declared_honoured = 0;
        }
        let text = human::render(&report, human::Style::default());
        assert!(
            text.ends_with("unverified — 7 honoured; 0 scenario runs: none\n"),
            "{text}"
        );
        assert!(markdown::render(&report).contains("**Result: ⚠️ unverified** — 7 honoured"));
        let xml = junit::render(&report).unwrap();
        assert!(
            xml.contains(r#"<property name="outcome" value="unverified"/>"#),
            "{xml}"
        );
    }
}
