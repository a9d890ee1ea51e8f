//! A run in numbers: the counts of declaration rows and scenario runs, what
//! the run as a whole reads as, and the headline every format prints from
//! them. [`crate::conclude`] computes the [`RunSummary`] once, into
//! `RunReport::summary`; the renderers read it there, so none says more
//! than the counts do: "every declaration honoured" appears only when it is
//! literally true. These are data and their wording only; counting a
//! report is [`crate::verdict`]'s (so this file needs no report type).
//!
//! The JSON Schema keeps the names these types had before they were named
//! for the run (`Summary`, `Outcome`): a consumer that generated code from
//! the schema keeps its type names.

use crate::exit;
use serde::{Deserialize, Serialize};
use strum::IntoStaticStr;

/// What the run as a whole reads as, from its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
#[cfg_attr(feature = "json-schema", schemars(rename = "Outcome"))]
pub enum RunOutcome {
    /// Exit 0: something was verified and nothing fails the run.
    Pass,
    /// Exit 1: a divergence (or a rule such as `--fail-on-flaky`) fails the run.
    Fail,
    /// Exit 3: a peer was unreachable or served no valid card.
    Error,
    /// Exit 4: nothing was verified, or `--fail-on-unverified` found a row left unverified.
    Unverified,
}

impl RunOutcome {
    /// The outcome an exit code stands for (any code but 0, 1 and 3 reads
    /// `unverified`).
    pub fn of_exit_code(code: i32) -> RunOutcome {
        match code {
            exit::OK => RunOutcome::Pass,
            exit::DIVERGED => RunOutcome::Fail,
            exit::PEER_UNREACHABLE => RunOutcome::Error,
            _ => RunOutcome::Unverified,
        }
    }

    /// The JSON spelling (`pass`, `fail`, `error`, `unverified`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Declaration rows by verdict. `diverged` counts the baselined ones too.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct DeclarationCounts {
    /// Rows every scenario verifying them passed.
    pub honoured: usize,
    /// Rows a failing run broke, the baselined ones included.
    pub diverged: usize,
    /// Of the diverged rows, those a baseline entry excuses.
    pub baselined: usize,
    /// Rows no run could decide (inconclusive, error, skipped, or no scenario).
    pub unverified: usize,
    /// Rows the card does not declare and the runtime refuses (or was not probed for).
    pub not_declared: usize,
    /// Rows the card does not declare but the runtime serves anyway.
    pub over_delivers: usize,
}

/// Scenario runs by verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RunCounts {
    /// Every scenario run of the plan, skipped ones included.
    pub total: usize,
    /// Runs that passed on their first attempt.
    pub pass: usize,
    /// Runs that failed (on every attempt, with `--retries`).
    pub fail: usize,
    /// Runs that failed, then passed on a retry.
    pub flaky: usize,
    /// Runs whose peer never reached the precondition.
    pub inconclusive: usize,
    /// Runs not made (not declared, filtered, a variable missing).
    pub skipped: usize,
    /// Runs ended by tool trouble, an unreachable peer or a peer malfunction.
    pub error: usize,
}

impl RunCounts {
    /// Each count with its scenario verdict's spelling (`pass`, `fail`,
    /// `flaky`, `inconclusive`, `skipped`, `error`: a test holds them to
    /// `ScenarioVerdict`'s), in the order every format lists them.
    pub fn by_verdict(&self) -> [(usize, &'static str); 6] {
        [
            (self.pass, "pass"),
            (self.fail, "fail"),
            (self.flaky, "flaky"),
            (self.inconclusive, "inconclusive"),
            (self.skipped, "skipped"),
            (self.error, "error"),
        ]
    }
}

/// One peer's counts (or a whole run's, added up).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Counts {
    /// Declaration rows by verdict.
    pub declarations: DeclarationCounts,
    /// Scenario runs by verdict.
    pub runs: RunCounts,
    /// Declared rows (the card's promises); `honoured` of them is literal
    /// success only when it equals this.
    pub declared: usize,
    /// Declared rows that read honoured.
    pub declared_honoured: usize,
}

impl Counts {
    /// Two peers' counts (or more, folded) added up.
    pub(crate) fn add(mut self, o: Counts) -> Counts {
        let (d, e) = (&mut self.declarations, o.declarations);
        d.honoured += e.honoured;
        d.diverged += e.diverged;
        d.baselined += e.baselined;
        d.unverified += e.unverified;
        d.not_declared += e.not_declared;
        d.over_delivers += e.over_delivers;
        let (r, s) = (&mut self.runs, o.runs);
        r.total += s.total;
        r.pass += s.pass;
        r.fail += s.fail;
        r.flaky += s.flaky;
        r.inconclusive += s.inconclusive;
        r.skipped += s.skipped;
        r.error += s.error;
        self.declared += o.declared;
        self.declared_honoured += o.declared_honoured;
        self
    }

    /// Whether every declared row reads honoured, and there is one.
    pub fn every_declaration_honoured(&self) -> bool {
        self.declared > 0 && self.declared_honoured == self.declared
    }

    /// `6 honoured, 1 diverged (baselined), 4 unverified`: only what the
    /// counts say; zero diverged / unverified rows are left out.
    pub fn declarations_phrase(&self) -> String {
        let d = self.declarations;
        let mut parts = vec![format!("{} honoured", d.honoured)];
        if d.diverged > 0 {
            parts.push(match d.baselined {
                0 => format!("{} diverged", d.diverged),
                b if b == d.diverged => format!("{} diverged (baselined)", d.diverged),
                b => format!("{} diverged ({b} baselined)", d.diverged),
            });
        }
        if d.unverified > 0 {
            parts.push(format!("{} unverified", d.unverified));
        }
        if d.over_delivers > 0 {
            parts.push(format!("{} over-delivers", d.over_delivers));
        }
        let phrase = parts.join(", ");
        match self.every_declaration_honoured() {
            // Rows the card does not declare may still read unverified or
            // diverged (a probe of an undeclared capability): the headline
            // then leads with the counts, so it never reads "every
            // declaration honoured" beside an unverified row.
            true if d.unverified > 0 || d.diverged > 0 => {
                format!("{phrase}; every declared row honoured")
            }
            true => format!("every declaration honoured ({phrase})"),
            false => phrase,
        }
    }

    /// `7 scenario runs: 1 pass, 2 fail, 1 flaky`.
    pub fn runs_phrase(&self) -> String {
        let r = self.runs;
        let parts: Vec<String> = r
            .by_verdict()
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, verdict)| format!("{n} {verdict}"))
            .collect();
        format!(
            "{} scenario runs: {}",
            r.total,
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            }
        )
    }
}

/// The whole run in numbers, and what it reads as: the JSON `summary` and
/// the source of every format's headline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(rename = "Summary"))]
pub struct RunSummary {
    /// What the run reads as; it follows from `exit_code`.
    pub outcome: RunOutcome,
    /// The process exit code the run calls for.
    pub exit_code: i32,
    /// How many peers the report holds.
    pub peers: usize,
    /// Peers that were unreachable or served no valid card.
    pub peers_without_card: usize,
    /// Peers a signal stopped the check before their card was read: not
    /// checked, and not counted in `peers_without_card`. Absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub peers_interrupted: usize,
    /// Every peer's rows and runs, added up (flat in the JSON).
    #[serde(flatten)]
    pub counts: Counts,
    /// True only when every declared row of every peer reads honoured.
    pub every_declaration_honoured: bool,
    /// The check's wall time; for a report without one (a merge of
    /// shards), the longest peer's.
    pub duration_ms: u64,
}

impl RunSummary {
    /// `pass — 6 honoured, 1 diverged (baselined), 4 unverified`.
    pub fn headline(&self) -> String {
        format!("{} — {}", self.word(), self.phrase())
    }

    /// The outcome as the headline says it: `pass`, `fail`, `error`,
    /// `unverified`, or `nothing verified` when not one row was honoured.
    pub fn word(&self) -> &'static str {
        match self.outcome {
            RunOutcome::Unverified if self.counts.declarations.honoured == 0 => "nothing verified",
            o => o.as_str(),
        }
    }

    /// The headline after its word: the declaration counts, and the peers
    /// that could not be checked.
    pub fn phrase(&self) -> String {
        let mut text = self.counts.declarations_phrase();
        if self.peers_without_card > 0 {
            text.push_str(&format!(
                "; {} of {} peer(s) unreachable or without a valid card",
                self.peers_without_card, self.peers
            ));
        }
        if self.peers_interrupted > 0 {
            text.push_str(&format!(
                "; {} of {} peer(s) not checked before the interruption",
                self.peers_interrupted, self.peers
            ));
        }
        text
    }
}

/// Whether a count is zero (a count the JSON leaves out when it is).
fn is_zero(count: &usize) -> bool {
    *count == 0
}
