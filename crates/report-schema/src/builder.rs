//! Builders for hand-made reports: tests, examples and tools that need a
//! `ScenarioReport`, `DeclarationReport` or `PeerReport` name what matters to
//! them and take defaults for the rest, so a field added or retyped in the
//! report changes this file instead of every literal. The runner and the
//! verdict fold do not use them: they fill every field on purpose. A whole
//! report is `RunReport::new(peers)`, concluded with
//! [`crate::conclude`].

use crate::evidence::Evidence;
use crate::{
    DeclarationReport, DeclarationVerdict, ErrorKind, FailKind, PeerReport, ScenarioReport,
    ScenarioVerdict,
};

impl ScenarioReport {
    /// A run `id` with `verdict`; its scenario is `id` without a `[…]`
    /// parameter, its title `id`, one attempt, nothing verified, no message.
    pub fn builder(id: &str, verdict: ScenarioVerdict) -> ScenarioReportBuilder {
        ScenarioReportBuilder(ScenarioReport {
            id: id.into(),
            scenario: id.split('[').next().unwrap_or(id).into(),
            title: id.into(),
            verdict,
            verifies: vec![],
            duration_ms: 0,
            message: String::new(),
            error_kind: None,
            fail_kind: None,
            attempts: 1,
            failed_attempts: vec![],
            baselined: false,
            baseline_reason: None,
            evidence: vec![],
        })
    }
}

/// See [`ScenarioReport::builder`].
#[derive(Debug, Clone)]
#[must_use = "finish with .build()"]
pub struct ScenarioReportBuilder(ScenarioReport);

impl ScenarioReportBuilder {
    /// The scenario id as written in the suite (default: the run id
    /// without its `[…]`).
    pub fn scenario(mut self, scenario: &str) -> Self {
        self.0.scenario = scenario.into();
        self
    }
    /// What the scenario checks, in a sentence (default: the run id).
    pub fn title(mut self, title: &str) -> Self {
        self.0.title = title.into();
        self
    }
    /// Adds a declaration this run verifies (repeatable).
    pub fn verifies(mut self, declaration: &str) -> Self {
        self.0.verifies.push(declaration.into());
        self
    }
    /// The run's wall time (default 0).
    pub fn duration_ms(mut self, ms: u64) -> Self {
        self.0.duration_ms = ms;
        self
    }
    /// What happened, in a sentence (default empty).
    pub fn message(mut self, message: &str) -> Self {
        self.0.message = message.into();
        self
    }
    /// Why an `error` run was in error.
    pub fn error_kind(mut self, kind: ErrorKind) -> Self {
        self.0.error_kind = Some(kind);
        self
    }
    /// What kind of broken promise a `fail` run found.
    pub fn fail_kind(mut self, kind: FailKind) -> Self {
        self.0.fail_kind = Some(kind);
        self
    }
    /// Attempts made: the last one's verdict, the earlier ones' failures.
    pub fn attempts(mut self, attempts: u32, failed: &[&str]) -> Self {
        self.0.attempts = attempts;
        self.0.failed_attempts = failed.iter().map(|m| m.to_string()).collect();
        self
    }
    /// Excused by a baseline entry with this reason.
    pub fn baselined(mut self, reason: &str) -> Self {
        self.0.baselined = true;
        self.0.baseline_reason = Some(reason.into());
        self
    }
    /// The evidence the run kept (default none).
    pub fn evidence(mut self, evidence: Vec<Evidence>) -> Self {
        self.0.evidence = evidence;
        self
    }
    /// The run.
    pub fn build(self) -> ScenarioReport {
        self.0
    }
}

impl DeclarationReport {
    /// A declared row `id` with `verdict`, no scenario runs and no reason.
    pub fn builder(id: &str, verdict: DeclarationVerdict) -> DeclarationReportBuilder {
        DeclarationReportBuilder(DeclarationReport {
            id: id.into(),
            declared: true,
            verdict,
            scenarios: vec![],
            reason: String::new(),
            baselined: false,
            baseline_reason: None,
        })
    }
}

/// See [`DeclarationReport::builder`].
#[derive(Debug, Clone)]
#[must_use = "finish with .build()"]
pub struct DeclarationReportBuilder(DeclarationReport);

impl DeclarationReportBuilder {
    /// Whether the card claims it (default true).
    pub fn declared(mut self, declared: bool) -> Self {
        self.0.declared = declared;
        self
    }
    /// Adds a scenario run that verifies this row (repeatable).
    pub fn scenario(mut self, run: &str) -> Self {
        self.0.scenarios.push(run.into());
        self
    }
    /// Why it reads as it does (default empty).
    pub fn reason(mut self, reason: &str) -> Self {
        self.0.reason = reason.into();
        self
    }
    /// Excused by a baseline entry with this reason.
    pub fn baselined(mut self, reason: &str) -> Self {
        self.0.baselined = true;
        self.0.baseline_reason = Some(reason.into());
        self
    }
    /// The row.
    pub fn build(self) -> DeclarationReport {
        self.0
    }
}

impl PeerReport {
    /// The peer at `card_url` with nothing discovered or run yet.
    pub fn builder(card_url: &str) -> PeerReportBuilder {
        PeerReportBuilder(PeerReport::new(card_url))
    }
}

/// See [`PeerReport::builder`].
#[derive(Debug, Clone)]
#[must_use = "finish with .build()"]
pub struct PeerReportBuilder(PeerReport);

impl PeerReportBuilder {
    /// The card's name.
    pub fn name(mut self, name: &str) -> Self {
        self.0.name = Some(name.into());
        self
    }
    /// The card body's digest (`sha256:…`).
    pub fn card_digest(mut self, digest: &str) -> Self {
        self.0.card_digest = Some(digest.into());
        self
    }
    /// The protocol and binding spoken, and the endpoint they were spoken at.
    pub fn spoken(mut self, protocol_version: &str, binding: &str, endpoint: &str) -> Self {
        self.0.protocol_version = Some(protocol_version.into());
        self.0.binding = Some(binding.into());
        self.0.endpoint = Some(endpoint.into());
        self
    }
    /// Why no scenario could run (the peer then reads unreachable).
    pub fn card_error(mut self, error: &str) -> Self {
        self.0.card_error = Some(error.into());
        self
    }
    /// Adds a card warning (repeatable).
    pub fn card_warning(mut self, warning: &str) -> Self {
        self.0.card_warnings.push(warning.into());
        self
    }
    /// The declaration rows, in report order.
    pub fn declarations(mut self, rows: Vec<DeclarationReport>) -> Self {
        self.0.declarations = rows;
        self
    }
    /// The scenario runs, in plan order.
    pub fn scenarios(mut self, runs: Vec<ScenarioReport>) -> Self {
        self.0.scenarios = runs;
        self
    }
    /// The peer's wall time.
    pub fn duration_ms(mut self, ms: u64) -> Self {
        self.0.duration_ms = Some(ms);
        self
    }
    /// The peer.
    pub fn build(self) -> PeerReport {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_run_takes_its_scenario_from_the_id_and_keeps_what_was_named() {
        let run = ScenarioReport::builder("input-mode-resume[text/plain]", ScenarioVerdict::Fail)
            .verifies("defaultInputModes[text/plain]")
            .message("refused")
            .attempts(2, &["once"])
            .baselined("ACME-1")
            .build();
        assert_eq!(run.scenario, "input-mode-resume");
        assert_eq!(
            run.verifies,
            vec!["defaultInputModes[text/plain]".to_string()]
        );
        assert_eq!((run.attempts, run.failed_attempts.len()), (2, 1));
        assert_eq!(run.baseline_reason.as_deref(), Some("ACME-1"));
        let row = DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Diverged)
            .declared(false)
            .reason("r")
            .build();
        assert!(!row.declared && !row.baselined);
        let peer = PeerReport::builder("http://p/.well-known/agent-card.json")
            .spoken("1.0", "jsonrpc", "http://p/a2a")
            .declarations(vec![row])
            .build();
        assert_eq!(peer.binding.as_deref(), Some("jsonrpc"));
        assert_eq!(peer.declarations.len(), 1);
    }
}
