//! A cassette from a check's redacted report: each run's evidence split
//! into steps (a request and what came of it), webhook deliveries and
//! notes. The report's evidence is what the client's transcript recorded,
//! redacted by value and clipped, so the cassette is too.

use crate::model::{Cassette, Entry, Header, PeerLine, RunLine, Step, FORMAT, FORMAT_VERSION};
use a2a_conform_report::evidence::{Evidence, EvidenceKind};
use a2a_conform_report::{RunReport, ScenarioReport};
use std::collections::BTreeMap;

/// What a webhook receiver's entries start with (the engine's receiver
/// summarizes every delivery and refusal so).
const WEBHOOK_PREFIX: &str = "webhook ";

impl Cassette {
    /// The cassette of `report` (already redacted: pass the report every
    /// format is rendered from), with the suite digest and the options
    /// that shaped its requests. Runs without evidence are recorded with
    /// no steps: record with passing evidence kept to hold every exchange.
    pub fn from_report(
        report: &RunReport,
        suite_digest: impl Into<String>,
        options: BTreeMap<String, serde_json::Value>,
    ) -> Cassette {
        let header = Header {
            format: FORMAT.into(),
            version: FORMAT_VERSION,
            tool: report.tool.name.clone(),
            tool_version: report.tool.version.clone(),
            started_at: report.started_at.clone(),
            suite_digest: suite_digest.into(),
            options,
        };
        let mut peers = Vec::new();
        let mut runs = Vec::new();
        for (index, peer) in report.peers.iter().enumerate() {
            peers.push(PeerLine {
                peer: index,
                card_url: peer.card_url.clone(),
                card_digest: peer.card_digest.clone(),
                protocol_version: peer.protocol_version.clone(),
                binding: peer.binding.clone(),
                endpoint: peer.endpoint.clone(),
                card_error: peer.card_error.clone(),
            });
            runs.extend(peer.scenarios.iter().map(|s| run_line(index, s)));
        }
        Cassette {
            header,
            peers,
            runs,
        }
    }
}

fn run_line(peer: usize, scenario: &ScenarioReport) -> RunLine {
    let mut run = RunLine {
        peer,
        run: scenario.id.clone(),
        scenario: scenario.scenario.clone(),
        verdict: scenario.verdict.as_str().to_string(),
        steps: Vec::new(),
        deliveries: Vec::new(),
        notes: Vec::new(),
    };
    for evidence in &scenario.evidence {
        place(&mut run, evidence);
    }
    run
}

/// Files one evidence entry under the run's latest step, its deliveries
/// or its notes.
fn place(run: &mut RunLine, evidence: &Evidence) {
    let entry = entry(evidence);
    if evidence.kind == EvidenceKind::Request {
        let step = run.steps.len() as u32 + 1;
        run.steps.push(Step {
            step,
            request: entry,
            response: None,
            events: Vec::new(),
            end: None,
        });
        return;
    }
    let webhook = evidence.summary.starts_with(WEBHOOK_PREFIX);
    match (evidence.kind, run.steps.last_mut()) {
        (EvidenceKind::Event, _) if webhook => run.deliveries.push(entry),
        (EvidenceKind::Response, Some(step)) if step.response.is_none() => {
            step.response = Some(entry)
        }
        (EvidenceKind::Event | EvidenceKind::Comment, Some(step)) => step.events.push(entry),
        (EvidenceKind::StreamEnd, Some(step)) if step.end.is_none() => step.end = Some(entry),
        _ => run.notes.push(entry),
    }
}

fn entry(evidence: &Evidence) -> Entry {
    let kind = serde_json::to_value(evidence.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Entry {
        at_ms: evidence.at_ms,
        kind,
        summary: evidence.summary.clone(),
        body: evidence.body.clone(),
        curl: evidence.curl.clone(),
    }
}
