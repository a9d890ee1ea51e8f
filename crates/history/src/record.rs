//! Recording one report: a `records` row with the deflated report without
//! its peers, a `peer_reports` row with each peer's deflated entry, then for
//! each peer its verdict and card intervals — the open interval is extended
//! when the verdict is the one the peer's previous record had, and a new
//! one opened otherwise — all in one transaction.

use crate::archive;
use crate::db::{Db, Value};
use crate::error::Error;
use crate::model::RecordId;
use a2a_conform_report::{PeerReport, RunReport};
use std::collections::{BTreeMap, BTreeSet};

/// Milliseconds since the epoch of an RFC 3339 time.
pub(crate) fn epoch_ms(at: &str) -> Result<i64, Error> {
    chrono::DateTime::parse_from_rfc3339(at)
        .map(|time| time.timestamp_millis())
        .map_err(|_| Error::BadTimestamp(at.to_string()))
}

/// Records `report`; returns its id.
pub(crate) fn record(db: &mut Db, report: &RunReport) -> Result<RecordId, Error> {
    let started_ms = epoch_ms(&report.started_at)?;
    let (shell, entries) = archive::split(report)?;
    db.transaction(move |db| {
        let rows = db.query(
            "INSERT INTO records (started_at, started_ms, peers, report) \
             VALUES ($1, $2, $3, $4) RETURNING id",
            &[
                Value::Text(report.started_at.clone()),
                Value::Int(started_ms),
                Value::Int(report.peers.len() as i64),
                Value::Bytes(shell),
            ],
        )?;
        let id = first_int(&rows)?;
        for (position, (peer, blob)) in report.peers.iter().zip(entries).enumerate() {
            db.execute(
                "INSERT INTO peer_reports (record, position, peer, report) \
                 VALUES ($1, $2, $3, $4)",
                &[
                    Value::Int(id),
                    Value::Int(position as i64),
                    Value::Text(peer.card_url.clone()),
                    Value::Bytes(blob),
                ],
            )?;
        }
        let mut seen = BTreeSet::new();
        for peer in &report.peers {
            // A peer named twice in one report is recorded once.
            if seen.insert(peer.card_url.as_str()) {
                record_peer(db, id, &report.started_at, peer)?;
            }
        }
        Ok(id)
    })
}

/// The first column of the first row, a number.
pub(crate) fn first_int(rows: &[Vec<Value>]) -> Result<i64, Error> {
    rows.first()
        .and_then(|row| row.first())
        .ok_or_else(|| Error::Unexpected("no row returned".into()))?
        .int()
}

/// Moves the peer's last record to `record` and updates its intervals.
fn record_peer(db: &mut Db, record: RecordId, at: &str, peer: &PeerReport) -> Result<(), Error> {
    let url = Value::Text(peer.card_url.clone());
    let rows = db.query(
        "SELECT last_record FROM peers WHERE peer = $1",
        std::slice::from_ref(&url),
    )?;
    // 0: no previous record (ids start at 1), so no interval continues.
    let previous = match rows.first() {
        Some(_) => {
            let last = first_int(&rows)?;
            db.execute(
                "UPDATE peers SET prev_record = $1, last_record = $2 WHERE peer = $3",
                &[Value::Int(last), Value::Int(record), url.clone()],
            )?;
            last
        }
        None => {
            db.execute(
                "INSERT INTO peers (peer, last_record, prev_record) VALUES ($1, $2, 0)",
                &[url.clone(), Value::Int(record)],
            )?;
            0
        }
    };
    let span = Span {
        record,
        previous,
        at,
    };
    record_verdicts(db, &span, peer)?;
    record_card(db, &span, peer)
}

/// Where a record sits in a peer's history.
struct Span<'a> {
    record: RecordId,
    previous: RecordId,
    at: &'a str,
}

fn record_verdicts(db: &mut Db, span: &Span<'_>, peer: &PeerReport) -> Result<(), Error> {
    let url = Value::Text(peer.card_url.clone());
    // The intervals current at the peer's previous record, by declaration.
    let open: BTreeMap<String, (i64, String)> = db
        .query(
            "SELECT id, declaration, verdict FROM intervals WHERE peer = $1 AND last_record = $2",
            &[url.clone(), Value::Int(span.previous)],
        )?
        .iter()
        .map(|row| match row.as_slice() {
            [id, declaration, verdict] => Ok((declaration.text()?, (id.int()?, verdict.text()?))),
            _ => Err(Error::Unexpected("an interval row of another shape".into())),
        })
        .collect::<Result<_, Error>>()?;
    // The open intervals that continue are extended in one statement per
    // peer, not one per declaration: on PostgreSQL each statement is a
    // round trip, and a 10,000-peer cycle was 300,000 of them (a minute).
    let continued: BTreeSet<i64> = peer
        .declarations
        .iter()
        .filter_map(|row| match open.get(&row.id) {
            Some((id, was)) if was == row.verdict.as_str() => Some(*id),
            _ => None,
        })
        .collect();
    let ended: Vec<i64> = open
        .values()
        .map(|(id, _)| *id)
        .filter(|id| !continued.contains(id))
        .collect();
    if !continued.is_empty() {
        extend_open(db, span, &url, &ended)?;
    }
    for row in &peer.declarations {
        let verdict = row.verdict.as_str();
        match open.get(&row.id) {
            Some((_, was)) if was == verdict => {}
            _ => {
                db.execute(
                    "INSERT INTO intervals (peer, declaration, verdict, first_record, \
                     last_record, first_seen, last_seen) VALUES ($1, $2, $3, $4, $4, $5, $5)",
                    &[
                        url.clone(),
                        Value::Text(row.id.clone()),
                        Value::Text(verdict.to_string()),
                        Value::Int(span.record),
                        Value::Text(span.at.to_string()),
                    ],
                )?;
            }
        }
    }
    Ok(())
}

fn record_card(db: &mut Db, span: &Span<'_>, peer: &PeerReport) -> Result<(), Error> {
    let url = Value::Text(peer.card_url.clone());
    let rows = db.query(
        "SELECT id, digest FROM card_intervals WHERE peer = $1 AND last_record = $2",
        &[url.clone(), Value::Int(span.previous)],
    )?;
    if let Some([id, digest]) = rows.first().map(Vec::as_slice) {
        if digest.maybe_text()?.as_deref() == peer.card_digest.as_deref() {
            return extend(db, "card_intervals", id.int()?, span);
        }
    }
    db.execute(
        "INSERT INTO card_intervals (peer, digest, first_record, last_record, first_seen, \
         last_seen) VALUES ($1, $2, $3, $3, $4, $4)",
        &[
            url,
            Value::opt_text(peer.card_digest.as_deref()),
            Value::Int(span.record),
            Value::Text(span.at.to_string()),
        ],
    )?;
    Ok(())
}

/// Extends every interval of the peer open at its previous record to this
/// record, but for `ended` (the ones whose verdict changed or whose
/// declaration is gone: they end at the previous record).
fn extend_open(db: &mut Db, span: &Span<'_>, url: &Value, ended: &[i64]) -> Result<(), Error> {
    let mut sql = String::from(
        "UPDATE intervals SET last_record = $1, last_seen = $2 WHERE peer = $3 AND last_record = $4",
    );
    let mut params = vec![
        Value::Int(span.record),
        Value::Text(span.at.to_string()),
        url.clone(),
        Value::Int(span.previous),
    ];
    if !ended.is_empty() {
        let marks: Vec<String> = (0..ended.len()).map(|i| format!("${}", i + 5)).collect();
        sql.push_str(&format!(" AND id NOT IN ({})", marks.join(", ")));
        params.extend(ended.iter().map(|id| Value::Int(*id)));
    }
    db.execute(&sql, &params)?;
    Ok(())
}

/// Extends interval `id` of `table` (one of ours, never user text) to the record.
fn extend(db: &mut Db, table: &str, id: i64, span: &Span<'_>) -> Result<(), Error> {
    db.execute(
        &format!("UPDATE {table} SET last_record = $1, last_seen = $2 WHERE id = $3"),
        &[
            Value::Int(span.record),
            Value::Text(span.at.to_string()),
            Value::Int(id),
        ],
    )?;
    Ok(())
}
