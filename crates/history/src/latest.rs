//! The stored reports holding one peer, for a peer's page (the newest) and
//! `history export --peer` (all): its own entry from `peer_reports` (one row
//! a record) beside its record's other fields, or,
//! for a version 1 record that kept the whole report in one blob, that
//! report parsed for this peer alone (the others' entries skipped as raw
//! JSON: building a fleet's entries to keep one would cost more than the
//! rest of the page).

use crate::archive::{inflate, inflate_json, inflate_peer, Fields};
use crate::db::{Db, Row, Value};
use crate::error::Error;
use crate::model::RecordId;
use crate::query::last_two;
use a2a_conform_report::RunReport;
use serde::Deserialize;
use serde_json::value::RawValue;

/// The newest stored report holding `peer`, cut to its entry (the whole
/// report's summary and baseline left out: they were about every peer).
pub(crate) fn latest_report(
    db: &mut Db,
    peer: &str,
) -> Result<Option<(RecordId, RunReport)>, Error> {
    let Some((last, _)) = last_two(db, peer)? else {
        return Ok(None);
    };
    // Entries stored apart are newer than any version 1 record (the
    // migration came first), so the newest of them is the newest report.
    let rows = db.query(
        "SELECT p.record, p.report, r.report FROM peer_reports p JOIN records r \
         ON r.id = p.record WHERE p.peer = $1 AND r.report IS NOT NULL \
         ORDER BY p.record DESC, p.position LIMIT 1",
        &[Value::Text(peer.into())],
    )?;
    if let Some(row) = rows.first() {
        let [id, Value::Bytes(entry), Value::Bytes(shell)] = row.as_slice() else {
            return Err(Error::Unexpected(
                "a peer report row of another shape".into(),
            ));
        };
        let id = id.int()?;
        let mut report = inflate(id, shell)?;
        report.peers = vec![inflate_peer(id, entry)?];
        return Ok(Some((id, cut(report))));
    }
    version_1_report(db, peer, last)
}

/// The stored report of `record` cut to `peer`'s entry; `None` when the
/// record holds no entry of the peer, or its report was pruned.
pub(crate) fn report_at(
    db: &mut Db,
    peer: &str,
    record: RecordId,
) -> Result<Option<RunReport>, Error> {
    let rows = db.query(
        "SELECT p.report, r.report FROM peer_reports p JOIN records r \
         ON r.id = p.record WHERE p.peer = $1 AND p.record = $2 AND r.report IS NOT NULL \
         ORDER BY p.position LIMIT 1",
        &[Value::Text(peer.into()), Value::Int(record)],
    )?;
    if let Some(row) = rows.first() {
        let [Value::Bytes(entry), Value::Bytes(shell)] = row.as_slice() else {
            return Err(Error::Unexpected(
                "a peer report row of another shape".into(),
            ));
        };
        let mut report = inflate(record, shell)?;
        report.peers = vec![inflate_peer(record, entry)?];
        return Ok(Some(cut(report)));
    }
    // A version 1 record: the whole report in one blob.
    let rows = db.query(
        "SELECT id, report FROM records WHERE id = $1 AND report IS NOT NULL",
        &[Value::Int(record)],
    )?;
    Ok(first_holding(&rows, peer)?.map(|(_, report)| report))
}

/// Every stored report holding `peer`, oldest record first, each cut to
/// its entry: the entries stored apart read from the peer's own rows, and
/// the version 1 records (the whole report in one blob) parsed one at a
/// time for this peer alone. Nothing else is read.
pub(crate) fn peer_reports(db: &mut Db, peer: &str) -> Result<Vec<(RecordId, RunReport)>, Error> {
    let mut found = Vec::new();
    let whole = db.query(
        "SELECT r.id, r.report FROM records r WHERE r.report IS NOT NULL AND NOT EXISTS \
         (SELECT 1 FROM peer_reports p WHERE p.record = r.id) ORDER BY r.id",
        &[],
    )?;
    for row in &whole {
        found.extend(first_holding(std::slice::from_ref(row), peer)?);
    }
    let apart = db.query(
        "SELECT p.record, p.report, r.report FROM peer_reports p JOIN records r \
         ON r.id = p.record WHERE p.peer = $1 AND r.report IS NOT NULL \
         ORDER BY p.record, p.position",
        &[Value::Text(peer.into())],
    )?;
    for row in &apart {
        let [id, Value::Bytes(entry), Value::Bytes(shell)] = row.as_slice() else {
            return Err(Error::Unexpected(
                "a peer report row of another shape".into(),
            ));
        };
        let id = id.int()?;
        // A peer named twice in one report: its first entry, as recorded.
        if found.last().is_some_and(|(last, _)| *last == id) {
            continue;
        }
        let mut report = inflate(id, shell)?;
        report.peers = vec![inflate_peer(id, entry)?];
        found.push((id, cut(report)));
    }
    found.sort_by_key(|(id, _)| *id);
    Ok(found)
}

/// The newest version 1 record's report holding `peer`: its latest record
/// first, then the older stored ones newest first, one at a time (a report
/// kept while a newer one was pruned was recorded out of start-time order).
fn version_1_report(
    db: &mut Db,
    peer: &str,
    last: RecordId,
) -> Result<Option<(RecordId, RunReport)>, Error> {
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

/// A report cut to one peer: the summary and baseline were about every peer.
fn cut(mut report: RunReport) -> RunReport {
    report.summary = None;
    report.baseline = None;
    report
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
    let corrupt = |e: serde_json::Error| Error::CorruptReport {
        record,
        reason: e.to_string(),
    };
    let json = inflate_json(record, bytes)?;
    let fields = Fields::parse(&json).map_err(corrupt)?;
    let mut kept: Option<&RawValue> = None;
    for entry in &fields.peers {
        let named: CardUrl<'_> = serde_json::from_str(entry.get()).map_err(corrupt)?;
        if named.card_url == peer {
            kept = Some(entry);
            break;
        }
    }
    let Some(entry) = kept else {
        return Ok(None);
    };
    // The report again, with that one entry: its own parse checks the rest.
    let cut_json = fields.with_peers(&[entry]).map_err(corrupt)?;
    let report: RunReport = serde_json::from_str(&cut_json).map_err(corrupt)?;
    Ok(Some(cut(report)))
}
