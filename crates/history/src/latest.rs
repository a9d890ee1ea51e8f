//! The newest stored report holding one peer, for a peer's page: read from
//! the peer's latest record (one row, not every stored report), inflated
//! within the report cap, and parsed for that peer alone — a watch cycle's
//! report holds the whole fleet, and building 10,000 peers' entries to keep
//! one would cost more than the rest of the page.

use crate::db::{Db, Row, Value};
use crate::error::Error;
use crate::model::RecordId;
use crate::query::last_two;
use a2a_conform_report::RunReport;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The newest stored report holding `peer`, cut to its entry (the whole
/// report's summary and baseline left out: they were about every peer).
/// The peer's latest record holds it unless that report was pruned; then
/// the older stored reports are read newest first, one at a time (a report
/// kept while a newer one was pruned was recorded out of start-time order).
pub(crate) fn latest_report(
    db: &mut Db,
    peer: &str,
) -> Result<Option<(RecordId, RunReport)>, Error> {
    let Some((last, _)) = last_two(db, peer)? else {
        return Ok(None);
    };
    let rows = db.query(
        "SELECT id, report FROM records WHERE id = $1 AND report IS NOT NULL",
        &[Value::Int(last)],
    )?;
    if let Some(found) = first_holding(&rows, peer)? {
        return Ok(Some(found));
    }
    let mut before = last;
    loop {
        let rows = db.query(
            "SELECT id, report FROM records WHERE id < $1 AND report IS NOT NULL \
             ORDER BY id DESC LIMIT 1",
            &[Value::Int(before)],
        )?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        if let Some(found) = first_holding(&rows, peer)? {
            return Ok(Some(found));
        }
        before = row
            .first()
            .ok_or_else(|| Error::Unexpected("an empty record row".into()))?
            .int()?;
    }
}

/// The first of `rows` (id, deflated report) whose report holds `peer`,
/// cut to it.
fn first_holding(rows: &[Row], peer: &str) -> Result<Option<(RecordId, RunReport)>, Error> {
    for row in rows {
        let [id, Value::Bytes(bytes)] = row.as_slice() else {
            return Err(Error::Unexpected("a record row of another shape".into()));
        };
        let id = id.int()?;
        if let Some(report) = peer_report(id, bytes, peer)? {
            return Ok(Some((id, report)));
        }
    }
    Ok(None)
}

/// Only what is needed to tell whose entry a peer entry is.
#[derive(Deserialize)]
struct CardUrl<'a> {
    #[serde(borrow)]
    card_url: std::borrow::Cow<'a, str>,
}

/// The stored report `bytes` of `record` cut to `peer`'s entry, or `None`
/// when it has none: the other entries are skipped as raw JSON, and only
/// the report's other fields and that one entry are parsed into types.
fn peer_report(record: RecordId, bytes: &[u8], peer: &str) -> Result<Option<RunReport>, Error> {
    let corrupt = |reason: String| Error::CorruptReport { record, reason };
    let json = crate::archive::inflate_json(record, bytes)?;
    let fields: BTreeMap<&str, &RawValue> =
        serde_json::from_str(&json).map_err(|e| corrupt(e.to_string()))?;
    let entries: Vec<&RawValue> = match fields.get("peers") {
        Some(peers) => serde_json::from_str(peers.get()).map_err(|e| corrupt(e.to_string()))?,
        None => vec![],
    };
    let mut kept = None;
    for entry in entries {
        let named: CardUrl<'_> =
            serde_json::from_str(entry.get()).map_err(|e| corrupt(e.to_string()))?;
        if named.card_url == peer {
            kept = Some(entry);
            break;
        }
    }
    let Some(entry) = kept else {
        return Ok(None);
    };
    // The report again, with that one entry: its own parse checks the rest.
    let mut cut = String::from("{");
    for (name, value) in fields.iter().filter(|(name, _)| **name != "peers") {
        cut.push_str(&serde_json::to_string(name).map_err(|e| corrupt(e.to_string()))?);
        cut.push(':');
        cut.push_str(value.get());
        cut.push(',');
    }
    cut.push_str("\"peers\":[");
    cut.push_str(entry.get());
    cut.push_str("]}");
    let mut report: RunReport = serde_json::from_str(&cut).map_err(|e| corrupt(e.to_string()))?;
    report.summary = None;
    report.baseline = None;
    Ok(Some(report))
}
