//! A run's transcript records as the report's evidence: the client records
//! in its own type, the report keeps its own schema, and this is the one
//! place that maps the first to the second.

use a2a_conform_client::transcript::{Record, RecordKind};
use a2a_conform_report::evidence::{Evidence, EvidenceKind};

/// The report's evidence for a run's records, in order.
pub(crate) fn from_records(records: Vec<Record>) -> Vec<Evidence> {
    records.into_iter().map(from_record).collect()
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
