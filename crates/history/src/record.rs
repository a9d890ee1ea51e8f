//! Recording one report: a `records` row with the deflated report without
//! its peers, a `peer_reports` row with each peer's deflated entry, then for
//! each peer its verdict and card intervals — the open interval (it ends at
//! the peer's last record, kept on `peers`) is left as it is when the
//! verdict is the one the peer's previous record had, and ended at that
//! record with a new one opened otherwise — all in one transaction.

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
        "SELECT p.last_record, COALESCE(p.last_seen, r.started_at) FROM peers p \
         LEFT JOIN records r ON r.id = p.last_record WHERE p.peer = $1",
        std::slice::from_ref(&url),
    )?;
    let at_value = Value::Text(at.to_string());
    // 0: no previous record (ids start at 1), so no interval continues.
    let (previous, previous_at) = match rows.first().map(Vec::as_slice) {
        Some([last, last_seen]) => {
            let last = last.int()?;
            db.execute(
                "UPDATE peers SET prev_record = $1, last_record = $2, last_seen = $3 \
                 WHERE peer = $4",
                &[Value::Int(last), Value::Int(record), at_value, url.clone()],
            )?;
            (last, last_seen.maybe_text()?.unwrap_or_default())
        }
        Some(_) => return Err(Error::Unexpected("a peer row of another shape".into())),
        None => {
            db.execute(
                "INSERT INTO peers (peer, last_record, prev_record, last_seen) \
                 VALUES ($1, $2, 0, $3)",
                &[url.clone(), Value::Int(record), at_value],
            )?;
            (0, String::new())
        }
    };
    let span = Span {
        record,
        previous,
        previous_at: &previous_at,
        at,
    };
    record_verdicts(db, &span, peer)?;
    record_card(db, &span, peer)
}

/// Where a record sits in a peer's history: the record, and the peer's
/// previous one (0: none) with when it started.
struct Span<'a> {
    record: RecordId,
    previous: RecordId,
    previous_at: &'a str,
    at: &'a str,
}

/// The peer's open intervals (no end of their own: they end at its last
/// record) whose verdict still holds stay as they are; the others end at
/// the previous record, and an interval opens for each new verdict.
fn record_verdicts(db: &mut Db, span: &Span<'_>, peer: &PeerReport) -> Result<(), Error> {
    let url = Value::Text(peer.card_url.clone());
    let open: BTreeMap<String, (i64, String)> = match span.previous {
        0 => BTreeMap::new(),
        _ => db
            .query(
                "SELECT id, declaration, verdict FROM intervals \
                 WHERE peer = $1 AND last_record IS NULL",
                std::slice::from_ref(&url),
            )?
            .iter()
            .map(|row| match row.as_slice() {
                [id, declaration, verdict] => {
                    Ok((declaration.text()?, (id.int()?, verdict.text()?)))
                }
                _ => Err(Error::Unexpected("an interval row of another shape".into())),
            })
            .collect::<Result<_, Error>>()?,
    };
    let held: BTreeSet<i64> = peer
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
        .filter(|id| !held.contains(id))
        .collect();
    end_at_previous(db, "intervals", span, &ended)?;
    for row in &peer.declarations {
        let verdict = row.verdict.as_str();
        match open.get(&row.id) {
            Some((_, was)) if was == verdict => {}
            _ => {
                db.execute(
                    "INSERT INTO intervals (peer, declaration, verdict, first_record, \
                     first_seen) VALUES ($1, $2, $3, $4, $5)",
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
    let rows = match span.previous {
        0 => Vec::new(),
        _ => db.query(
            "SELECT id, digest FROM card_intervals WHERE peer = $1 AND last_record IS NULL",
            std::slice::from_ref(&url),
        )?,
    };
    if let Some([id, digest]) = rows.first().map(Vec::as_slice) {
        if digest.maybe_text()?.as_deref() == peer.card_digest.as_deref() {
            return Ok(());
        }
        end_at_previous(db, "card_intervals", span, &[id.int()?])?;
    }
    db.execute(
        "INSERT INTO card_intervals (peer, digest, first_record, first_seen) \
         VALUES ($1, $2, $3, $4)",
        &[
            url,
            Value::opt_text(peer.card_digest.as_deref()),
            Value::Int(span.record),
            Value::Text(span.at.to_string()),
        ],
    )?;
    Ok(())
}

/// Ends the open intervals `ids` of `table` (one of ours, never user text)
/// at the peer's previous record, in one statement: on PostgreSQL each
/// statement is a round trip.
fn end_at_previous(db: &mut Db, table: &str, span: &Span<'_>, ids: &[i64]) -> Result<(), Error> {
    if ids.is_empty() {
        return Ok(());
    }
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", i + 3)).collect();
    let sql = format!(
        "UPDATE {table} SET last_record = $1, last_seen = $2 WHERE id IN ({})",
        marks.join(", ")
    );
    let mut params = vec![
        Value::Int(span.previous),
        Value::Text(span.previous_at.to_string()),
    ];
    params.extend(ids.iter().map(|id| Value::Int(*id)));
    db.execute(&sql, &params)?;
    Ok(())
}
