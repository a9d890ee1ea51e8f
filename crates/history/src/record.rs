//! Recording one report: a `records` row with the deflated report without
//! its peers, a `peer_reports` row with each peer's deflated entry, then for
//! each peer its verdict and card intervals — the open interval (it ends at
//! the peer's last record, kept on `peers`) is left as it is when the
//! verdict is the one the peer's previous record had, and ended at that
//! record with a new one opened otherwise — all in one transaction, each
//! step a statement for many peers at once.

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
        let entries: Vec<Vec<Value>> = report
            .peers
            .iter()
            .zip(entries)
            .enumerate()
            .map(|(position, (peer, blob))| {
                vec![
                    Value::Int(id),
                    Value::Int(position as i64),
                    Value::Text(peer.card_url.clone()),
                    Value::Bytes(blob),
                ]
            })
            .collect();
        insert_rows(db, "peer_reports (record, position, peer, report)", entries)?;
        // A peer named twice in one report is recorded once.
        let mut seen = BTreeSet::new();
        let peers: Vec<&PeerReport> = report
            .peers
            .iter()
            .filter(|peer| seen.insert(peer.card_url.as_str()))
            .collect();
        for chunk in peers.chunks(PEERS_A_STATEMENT) {
            record_peers(db, id, &report.started_at, chunk)?;
        }
        Ok(id)
    })
}

/// Peers read or moved by one statement, and rows one INSERT writes: well
/// inside SQLite's 32,766 parameters and PostgreSQL's 65,535 at five a
/// row. On PostgreSQL each statement is a round trip, so a cycle of
/// 10,000 peers is a few dozen statements rather than 60,000.
const PEERS_A_STATEMENT: usize = 1_000;

/// The first column of the first row, a number.
pub(crate) fn first_int(rows: &[Vec<Value>]) -> Result<i64, Error> {
    rows.first()
        .and_then(|row| row.first())
        .ok_or_else(|| Error::Unexpected("no row returned".into()))?
        .int()
}

/// `$first, $first+1, …`: `count` numbered parameters.
fn marks(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes `rows` (each the same width) into `table (columns)`, a
/// statement a [`PEERS_A_STATEMENT`] rows.
fn insert_rows(db: &mut Db, into: &str, rows: Vec<Vec<Value>>) -> Result<(), Error> {
    let Some(width) = rows.first().map(Vec::len) else {
        return Ok(());
    };
    for chunk in rows.chunks(PEERS_A_STATEMENT) {
        let tuples: Vec<String> = (0..chunk.len())
            .map(|row| format!("({})", marks(row * width + 1, width)))
            .collect();
        let sql = format!("INSERT INTO {into} VALUES {}", tuples.join(", "));
        db.execute(&sql, &chunk.concat())?;
    }
    Ok(())
}

/// Where a record sits in a peer's history: the record, and the peer's
/// previous one (0: none) with when it started.
struct Span<'a> {
    record: RecordId,
    previous: RecordId,
    previous_at: &'a str,
    at: &'a str,
}

/// What one statement's worth of peers changes: the intervals to end at
/// each previous record, and the rows to open.
#[derive(Default)]
struct Changes {
    /// Open verdict intervals to end, by the previous record (and its time).
    ended: BTreeMap<(RecordId, String), Vec<i64>>,
    /// Open card intervals to end, the same way.
    ended_cards: BTreeMap<(RecordId, String), Vec<i64>>,
    opened: Vec<Vec<Value>>,
    opened_cards: Vec<Vec<Value>>,
}

/// Moves each peer's last record to `record` and updates its intervals,
/// a statement for many peers at a time.
fn record_peers(
    db: &mut Db,
    record: RecordId,
    at: &str,
    peers: &[&PeerReport],
) -> Result<(), Error> {
    let previous = previous_records(db, peers)?;
    move_last_record(db, record, at, peers, &previous)?;
    let seen: Vec<&str> = peers
        .iter()
        .map(|p| p.card_url.as_str())
        .filter(|url| previous.contains_key(*url))
        .collect();
    let mut open = open_intervals(db, &seen)?;
    let mut open_cards = open_card_intervals(db, &seen)?;
    let mut changes = Changes::default();
    for peer in peers {
        let url = peer.card_url.as_str();
        let (previous, previous_at) = previous.get(url).cloned().unwrap_or_default();
        let span = Span {
            record,
            previous,
            previous_at: &previous_at,
            at,
        };
        let open = open.remove(url).unwrap_or_default();
        changes.verdicts(&span, peer, &open);
        changes.card(&span, peer, open_cards.remove(url));
    }
    for ((previous, previous_at), ids) in &changes.ended {
        end_at_previous(db, "intervals", *previous, previous_at, ids)?;
    }
    for ((previous, previous_at), ids) in &changes.ended_cards {
        end_at_previous(db, "card_intervals", *previous, previous_at, ids)?;
    }
    insert_rows(
        db,
        "intervals (peer, declaration, verdict, first_record, first_seen)",
        changes.opened,
    )?;
    insert_rows(
        db,
        "card_intervals (peer, digest, first_record, first_seen)",
        changes.opened_cards,
    )
}

/// Each known peer's last record and when it started.
fn previous_records(
    db: &mut Db,
    peers: &[&PeerReport],
) -> Result<BTreeMap<String, (RecordId, String)>, Error> {
    let urls: Vec<Value> = peers
        .iter()
        .map(|p| Value::Text(p.card_url.clone()))
        .collect();
    let sql = format!(
        "SELECT p.peer, p.last_record, COALESCE(p.last_seen, r.started_at) FROM peers p \
         LEFT JOIN records r ON r.id = p.last_record WHERE p.peer IN ({})",
        marks(1, urls.len())
    );
    db.query(&sql, &urls)?
        .iter()
        .map(|row| match row.as_slice() {
            [peer, last, last_seen] => Ok((
                peer.text()?,
                (last.int()?, last_seen.maybe_text()?.unwrap_or_default()),
            )),
            _ => Err(Error::Unexpected("a peer row of another shape".into())),
        })
        .collect()
}

/// The known peers' last record becomes their previous one and `record`
/// their last (one UPDATE: its right-hand sides read the old row); the
/// others get their first row.
fn move_last_record(
    db: &mut Db,
    record: RecordId,
    at: &str,
    peers: &[&PeerReport],
    previous: &BTreeMap<String, (RecordId, String)>,
) -> Result<(), Error> {
    let (known, new): (Vec<&PeerReport>, Vec<&PeerReport>) = peers
        .iter()
        .partition(|p| previous.contains_key(p.card_url.as_str()));
    if !known.is_empty() {
        let sql = format!(
            "UPDATE peers SET prev_record = last_record, last_record = $1, last_seen = $2 \
             WHERE peer IN ({})",
            marks(3, known.len())
        );
        let mut params = vec![Value::Int(record), Value::Text(at.to_string())];
        params.extend(known.iter().map(|p| Value::Text(p.card_url.clone())));
        db.execute(&sql, &params)?;
    }
    let rows = new
        .iter()
        .map(|p| {
            vec![
                Value::Text(p.card_url.clone()),
                Value::Int(record),
                Value::Int(0),
                Value::Text(at.to_string()),
            ]
        })
        .collect();
    insert_rows(
        db,
        "peers (peer, last_record, prev_record, last_seen)",
        rows,
    )
}

/// A peer's open verdict intervals: declaration → (interval, verdict).
type OpenIntervals = BTreeMap<String, (i64, String)>;

/// The open verdict intervals (no end of their own: they end at the
/// peer's last record) of peers seen before.
fn open_intervals(db: &mut Db, urls: &[&str]) -> Result<BTreeMap<String, OpenIntervals>, Error> {
    let mut open: BTreeMap<String, OpenIntervals> = BTreeMap::new();
    if urls.is_empty() {
        return Ok(open);
    }
    let sql = format!(
        "SELECT peer, id, declaration, verdict FROM intervals \
         WHERE last_record IS NULL AND peer IN ({})",
        marks(1, urls.len())
    );
    let params: Vec<Value> = urls.iter().map(|u| Value::Text(u.to_string())).collect();
    for row in db.query(&sql, &params)? {
        let [peer, id, declaration, verdict] = row.as_slice() else {
            return Err(Error::Unexpected("an interval row of another shape".into()));
        };
        open.entry(peer.text()?)
            .or_default()
            .insert(declaration.text()?, (id.int()?, verdict.text()?));
    }
    Ok(open)
}

/// The open card interval (id, digest) of each peer seen before.
fn open_card_intervals(
    db: &mut Db,
    urls: &[&str],
) -> Result<BTreeMap<String, (i64, Option<String>)>, Error> {
    if urls.is_empty() {
        return Ok(BTreeMap::new());
    }
    let sql = format!(
        "SELECT peer, id, digest FROM card_intervals \
         WHERE last_record IS NULL AND peer IN ({})",
        marks(1, urls.len())
    );
    let params: Vec<Value> = urls.iter().map(|u| Value::Text(u.to_string())).collect();
    db.query(&sql, &params)?
        .iter()
        .map(|row| match row.as_slice() {
            [peer, id, digest] => Ok((peer.text()?, (id.int()?, digest.maybe_text()?))),
            _ => Err(Error::Unexpected(
                "a card interval row of another shape".into(),
            )),
        })
        .collect()
}

impl Changes {
    /// The peer's open intervals whose verdict still holds stay as they
    /// are; the others end at the previous record, and an interval opens
    /// for each new verdict.
    fn verdicts(&mut self, span: &Span<'_>, peer: &PeerReport, open: &OpenIntervals) {
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
        if !ended.is_empty() {
            self.ended
                .entry((span.previous, span.previous_at.to_string()))
                .or_default()
                .extend(ended);
        }
        for row in &peer.declarations {
            let verdict = row.verdict.as_str();
            if matches!(open.get(&row.id), Some((_, was)) if was == verdict) {
                continue;
            }
            self.opened.push(vec![
                Value::Text(peer.card_url.clone()),
                Value::Text(row.id.clone()),
                Value::Text(verdict.to_string()),
                Value::Int(span.record),
                Value::Text(span.at.to_string()),
            ]);
        }
    }

    /// The peer's open card interval stays while its digest holds; else
    /// it ends at the previous record and one opens for the new digest.
    fn card(&mut self, span: &Span<'_>, peer: &PeerReport, open: Option<(i64, Option<String>)>) {
        if let Some((id, digest)) = open {
            if digest.as_deref() == peer.card_digest.as_deref() {
                return;
            }
            self.ended_cards
                .entry((span.previous, span.previous_at.to_string()))
                .or_default()
                .push(id);
        }
        self.opened_cards.push(vec![
            Value::Text(peer.card_url.clone()),
            Value::opt_text(peer.card_digest.as_deref()),
            Value::Int(span.record),
            Value::Text(span.at.to_string()),
        ]);
    }
}

/// Ends the open intervals `ids` of `table` (one of ours, never user text)
/// at a previous record, a statement for many at a time.
fn end_at_previous(
    db: &mut Db,
    table: &str,
    previous: RecordId,
    previous_at: &str,
    ids: &[i64],
) -> Result<(), Error> {
    for chunk in ids.chunks(PEERS_A_STATEMENT) {
        let sql = format!(
            "UPDATE {table} SET last_record = $1, last_seen = $2 WHERE id IN ({})",
            marks(3, chunk.len())
        );
        let mut params = vec![Value::Int(previous), Value::Text(previous_at.to_string())];
        params.extend(chunk.iter().map(|id| Value::Int(*id)));
        db.execute(&sql, &params)?;
    }
    Ok(())
}
