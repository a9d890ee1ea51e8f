//! A run's transcript records as the report's evidence: the client records
//! in its own type, the report keeps its own schema, and this is the one
//! place that maps the first to the second.

use a2a_conform_client::transcript::{Record, RecordKind};
use a2a_conform_report::evidence::{Evidence, EvidenceKind};

/// How the notes open that mark a control, the requests after a verdict's
/// own, and the two sides of an equivalence run: the report crate's, whose
/// renderers read them (`timeline::sides`).
pub(crate) use a2a_conform_report::evidence::{
    CONTROL_NOTE, FURTHER_NOTE, REFERENCE_SIDE, SIDE_NOTE,
};

/// The report's evidence for a run's records, in order. The requests after
/// a control or further note keep no `curl` line: a report reproduces a
/// run by its last request that has one, and that must be the judged
/// request, not one sent after it.
pub(crate) fn from_records(records: Vec<Record>) -> Vec<Evidence> {
    let mut in_control = false;
    records
        .into_iter()
        .map(|record| {
            in_control |= record.kind == RecordKind::Note
                && (record.summary.starts_with(CONTROL_NOTE)
                    || record.summary.starts_with(FURTHER_NOTE));
            let mut evidence = from_record(record);
            if in_control {
                evidence.curl = None;
            }
            evidence
        })
        .collect()
}

fn from_record(record: Record) -> Evidence {
    Evidence {
        at_ms: record.at_ms,
        kind: kind(record.kind),
        summary: record.summary,
        body: record.body,
        curl: record.curl,
    }
}

fn kind(kind: RecordKind) -> EvidenceKind {
    match kind {
        RecordKind::Request => EvidenceKind::Request,
        RecordKind::Response => EvidenceKind::Response,
        RecordKind::Event => EvidenceKind::Event,
        RecordKind::Comment => EvidenceKind::Comment,
        RecordKind::StreamEnd => EvidenceKind::StreamEnd,
        RecordKind::Note => EvidenceKind::Note,
        RecordKind::Elided => EvidenceKind::Elided,
    }
}
