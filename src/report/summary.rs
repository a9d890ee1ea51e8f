//! The run's counts, computed once from a report: every format's headline
//! (terminal, Markdown, JUnit properties) and the JSON `summary` object are
//! rendered from this, so none says more than the counts do. "Every
//! declaration honoured" appears only when it is literally true.

use super::{DeclarationVerdict, PeerReport, RunReport, ScenarioVerdict};
use crate::exit;
use serde::{Deserialize, Serialize};
use strum::IntoStaticStr;

/// What the run as a whole reads, from its exit code.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Outcome {
    /// Exit 0: something was verified and nothing fails the run.
    Pass,
    /// Exit 1: a divergence (or a rule such as `--fail-on-flaky`) fails the run.
    Fail,
    /// Exit 3: a peer was unreachable or served no valid card.
    Error,
    /// Exit 4: nothing was verified, or `--fail-on-unverified` found a row left unverified.
    Unverified,
}

impl Outcome {
    pub fn of_exit_code(code: i32) -> Outcome {
        match code {
            exit::OK => Outcome::Pass,
            exit::DIVERGED => Outcome::Fail,
            exit::PEER_UNREACHABLE => Outcome::Error,
            _ => Outcome::Unverified,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Declaration rows by verdict. `diverged` counts the baselined ones too.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct DeclarationCounts {
    pub honoured: usize,
    pub diverged: usize,
    /// Of the diverged rows, those a baseline entry excuses.
    pub baselined: usize,
    pub unverified: usize,
    pub not_declared: usize,
    pub over_delivers: usize,
}

/// Scenario runs by verdict.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct RunCounts {
    pub total: usize,
    pub pass: usize,
    pub fail: usize,
    pub flaky: usize,
    pub inconclusive: usize,
    pub skipped: usize,
    pub error: usize,
}

/// One peer's counts (or a whole run's, added up).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Counts {
    pub declarations: DeclarationCounts,
    pub runs: RunCounts,
    /// Declared rows (the card's promises); `honoured` of them is literal
    /// success only when it equals this.
    pub declared: usize,
    /// Declared rows that read honoured.
    pub declared_honoured: usize,
}

impl Counts {
    pub fn of_peer(peer: &PeerReport) -> Counts {
        let mut c = Counts::default();
        for d in &peer.declarations {
            let n = &mut c.declarations;
            match d.verdict {
                DeclarationVerdict::Honoured => n.honoured += 1,
                DeclarationVerdict::Diverged => {
                    n.diverged += 1;
                    if d.baselined {
                        n.baselined += 1;
                    }
                }
                DeclarationVerdict::Unverified => n.unverified += 1,
                DeclarationVerdict::NotDeclared => n.not_declared += 1,
                DeclarationVerdict::OverDelivers => n.over_delivers += 1,
            }
            if d.declared {
                c.declared += 1;
                if d.verdict == DeclarationVerdict::Honoured {
                    c.declared_honoured += 1;
                }
            }
        }
        for s in &peer.scenarios {
            let n = &mut c.runs;
            n.total += 1;
            match s.verdict {
                ScenarioVerdict::Pass => n.pass += 1,
                ScenarioVerdict::Fail => n.fail += 1,
                ScenarioVerdict::Flaky => n.flaky += 1,
                ScenarioVerdict::Inconclusive => n.inconclusive += 1,
                ScenarioVerdict::Skipped => n.skipped += 1,
                ScenarioVerdict::Error => n.error += 1,
            }
        }
        c
    }

    fn add(mut self, o: Counts) -> Counts {
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
        if self.every_declaration_honoured() {
            format!("every declaration honoured ({phrase})")
        } else {
            phrase
        }
    }

    /// `7 scenario runs: 1 pass, 2 fail, 1 flaky`.
    pub fn runs_phrase(&self) -> String {
        let r = self.runs;
        let parts: Vec<String> = [
            (r.pass, ScenarioVerdict::Pass),
            (r.fail, ScenarioVerdict::Fail),
            (r.flaky, ScenarioVerdict::Flaky),
            (r.inconclusive, ScenarioVerdict::Inconclusive),
            (r.skipped, ScenarioVerdict::Skipped),
            (r.error, ScenarioVerdict::Error),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, v)| format!("{n} {}", v.as_str()))
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

/// The whole run in numbers, and what it reads as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    pub outcome: Outcome,
    /// The process exit code the run calls for.
    pub exit_code: i32,
    pub peers: usize,
    /// Peers that were unreachable or served no valid card.
    pub peers_without_card: usize,
    #[serde(flatten)]
    pub counts: Counts,
    /// True only when every declared row of every peer reads honoured.
    pub every_declaration_honoured: bool,
    /// The peers' wall time, added up (peers are checked one after another).
    pub duration_ms: u64,
}

impl Summary {
    /// The counts of `report`, read as `exit_code` (see `verdict::summarize`).
    pub fn new(report: &RunReport, exit_code: i32) -> Summary {
        let counts = report
            .peers
            .iter()
            .map(Counts::of_peer)
            .fold(Counts::default(), Counts::add);
        Summary {
            outcome: Outcome::of_exit_code(exit_code),
            exit_code,
            peers: report.peers.len(),
            peers_without_card: report
                .peers
                .iter()
                .filter(|p| p.card_error.is_some())
                .count(),
            every_declaration_honoured: counts.every_declaration_honoured()
                && report.peers.iter().all(|p| p.card_error.is_none()),
            counts,
            duration_ms: report.peers.iter().filter_map(|p| p.duration_ms).sum(),
        }
    }

    /// `pass — 6 honoured, 1 diverged (baselined), 4 unverified`.
    pub fn headline(&self) -> String {
        format!("{} — {}", self.word(), self.phrase())
    }

    /// The outcome as the headline says it: `pass`, `fail`, `error`,
    /// `unverified`, or `nothing verified` when not one row was honoured.
    pub fn word(&self) -> &'static str {
        match self.outcome {
            Outcome::Unverified if self.counts.declarations.honoured == 0 => "nothing verified",
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
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::DeclarationReport;

    fn row(verdict: DeclarationVerdict, baselined: bool) -> DeclarationReport {
        DeclarationReport {
            id: "x".into(),
            declared: verdict != DeclarationVerdict::NotDeclared,
            verdict,
            scenarios: vec![],
            reason: String::new(),
            baselined,
            baseline_reason: None,
        }
    }

    fn report(rows: Vec<DeclarationReport>) -> RunReport {
        RunReport::new(vec![PeerReport {
            declarations: rows,
            ..PeerReport::new("u")
        }])
    }

    #[test]
    fn the_headline_says_only_what_the_counts_say() {
        use DeclarationVerdict::*;
        let mut rows = vec![row(Diverged, true)];
        rows.extend((0..6).map(|_| row(Honoured, false)));
        rows.extend((0..4).map(|_| row(Unverified, false)));
        let s = Summary::new(&report(rows), exit::OK);
        assert_eq!(
            s.headline(),
            "pass — 6 honoured, 1 diverged (baselined), 4 unverified"
        );
        assert!(!s.every_declaration_honoured);
        let s = Summary::new(
            &report(vec![row(Honoured, false), row(NotDeclared, false)]),
            exit::OK,
        );
        assert!(s.every_declaration_honoured);
        assert_eq!(
            s.headline(),
            "pass — every declaration honoured (1 honoured)"
        );
        let s = Summary::new(
            &report(vec![row(Unverified, false)]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "nothing verified — 0 honoured, 1 unverified");
        let s = Summary::new(
            &report(vec![row(Honoured, false), row(Unverified, false)]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "unverified — 1 honoured, 1 unverified");
        let s = Summary::new(
            &report(vec![row(Diverged, true), row(Diverged, false)]),
            exit::DIVERGED,
        );
        assert_eq!(s.headline(), "fail — 0 honoured, 2 diverged (1 baselined)");
    }

    #[test]
    fn the_json_summary_carries_the_counts_flat() {
        let s = Summary::new(
            &report(vec![row(DeclarationVerdict::Honoured, false)]),
            exit::OK,
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["outcome"], "pass");
        assert_eq!(v["declarations"]["honoured"], 1);
        assert_eq!(v["runs"]["total"], 0);
        assert_eq!(v["every_declaration_honoured"], true);
    }
}
