//! A cassette from a check's redacted report: each run's evidence split
//! into steps (a request and what came of it), webhook deliveries and
//! notes. The report's evidence is what the client's transcript recorded,
//! redacted by value and clipped, so the cassette is too.

use crate::model::{Cassette, Entry, Header, PeerLine, RunLine, Step, FORMAT, FORMAT_VERSION};
use a2a_conform_report::evidence::{Evidence, EvidenceKind};
use a2a_conform_report::{PreconditionReport, RunReport, ScenarioReport};
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
                card: peer.card_body.clone(),
                extended_card: peer.extended_card_body.clone(),
            });
            // A precondition search's exchanges come before the runs that
            // used it: recorded as a run of their own, by the id its
            // requests carried.
            runs.extend(peer.preconditions.iter().map(|p| search_line(index, p)));
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

fn search_line(peer: usize, search: &PreconditionReport) -> RunLine {
    let id = a2a_conform_report::search_run_id(&search.variable, search.skill.as_deref());
    let mut run = RunLine {
        peer,
        run: id.clone(),
        scenario: id,
        verdict: serde_json::to_value(search.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        steps: Vec::new(),
        deliveries: Vec::new(),
        notes: Vec::new(),
    };
    for evidence in &search.evidence {
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
    let streamed = matches!(
        evidence.kind,
        EvidenceKind::Event | EvidenceKind::Comment | EvidenceKind::StreamEnd
    );
    // A stream's events keep coming while later requests go out: they
    // belong to the stream's step, not to the latest one.
    let index = match streamed {
        true => open_stream(run, evidence.body.as_deref()),
        false => None,
    }
    .or(run.steps.len().checked_sub(1));
    match (evidence.kind, index.and_then(|i| run.steps.get_mut(i))) {
        (EvidenceKind::Event, _) if webhook => run.deliveries.push(entry),
        (EvidenceKind::Response, Some(step)) if step.response.is_none() => {
            step.response = Some(entry)
        }
        (EvidenceKind::Event | EvidenceKind::Comment, Some(step)) => step.events.push(entry),
        (EvidenceKind::StreamEnd, Some(step)) if step.end.is_none() => step.end = Some(entry),
        _ => run.notes.push(entry),
    }
}

/// The step whose stream is open and an event belongs to: the one whose
/// JSON-RPC id the event carries, else the latest open one.
fn open_stream(run: &RunLine, body: Option<&str>) -> Option<usize> {
    let open: Vec<usize> = (0..run.steps.len())
        .filter(|&i| {
            let step = &run.steps[i];
            step.end.is_none()
                && step
                    .response
                    .as_ref()
                    .is_some_and(|r| r.summary.contains("stream opened"))
        })
        .collect();
    let id = |text: Option<&str>| {
        text.and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
            .and_then(|v| v.get("id").cloned())
            .filter(|id| !id.is_null())
    };
    let event_id = id(body);
    let by_id = open
        .iter()
        .copied()
        .find(|&i| event_id.is_some() && id(run.steps[i].request.body.as_deref()) == event_id);
    by_id.or_else(|| open.last().copied())
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
