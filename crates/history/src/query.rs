//! Reading the history back: a peer's intervals (all, or one
//! declaration's), its card digests, and the regressions between its last
//! two records.

use crate::db::{Db, Row, Value};
use crate::error::Error;
use crate::model::{regresses, CardInterval, Interval, Regression};
use a2a_conform_report::DeclarationVerdict;
use std::collections::BTreeMap;

/// An interval's columns, read from `intervals i` joined with its peer `p`:
/// an open interval has no end of its own (NULL) and ends at its peer's
/// last record (schema version 3).
const INTERVAL_COLUMNS: &str = "i.peer, i.declaration, i.verdict, i.first_record, \
     COALESCE(i.last_record, p.last_record), i.first_seen, COALESCE(i.last_seen, p.last_seen)";

/// A card interval's columns, read from `card_intervals c` joined with
/// its peer `p`, as [`INTERVAL_COLUMNS`].
const CARD_COLUMNS: &str = "c.peer, c.digest, c.first_record, \
     COALESCE(c.last_record, p.last_record), c.first_seen, COALESCE(c.last_seen, p.last_seen)";

fn verdict(text: &str) -> Result<DeclarationVerdict, Error> {
    serde_json::from_value(serde_json::Value::String(text.to_string()))
        .map_err(|_| Error::Unexpected(format!("the verdict {text:?}")))
}

fn interval(row: &Row) -> Result<Interval, Error> {
    match row.as_slice() {
        [peer, declaration, verdict_text, first, last, first_seen, last_seen] => Ok(Interval {
            peer: peer.text()?,
            declaration: declaration.text()?,
            verdict: verdict(&verdict_text.text()?)?,
            first_record: first.int()?,
            last_record: last.int()?,
            first_seen: first_seen.text()?,
            last_seen: last_seen.text()?,
        }),
        _ => Err(Error::Unexpected("an interval row of another shape".into())),
    }
}

fn card_interval(row: &Row) -> Result<CardInterval, Error> {
    match row.as_slice() {
        [peer, digest, first, last, first_seen, last_seen] => Ok(CardInterval {
            peer: peer.text()?,
            digest: digest.maybe_text()?,
            first_record: first.int()?,
            last_record: last.int()?,
            first_seen: first_seen.text()?,
            last_seen: last_seen.text()?,
        }),
        _ => Err(Error::Unexpected(
            "a card interval row of another shape".into(),
        )),
    }
}

/// One declaration's intervals, oldest first.
pub(crate) fn intervals(
    db: &mut Db,
    peer: &str,
    declaration: &str,
) -> Result<Vec<Interval>, Error> {
    let sql = format!(
        "SELECT {INTERVAL_COLUMNS} FROM intervals i JOIN peers p ON p.peer = i.peer \
         WHERE i.peer = $1 AND i.declaration = $2 ORDER BY i.first_record, i.id"
    );
    let params = [Value::Text(peer.into()), Value::Text(declaration.into())];
    db.query(&sql, &params)?.iter().map(interval).collect()
}

/// Every interval of a peer: its timeline, by first record then declaration.
pub(crate) fn changes(db: &mut Db, peer: &str) -> Result<Vec<Interval>, Error> {
    let sql = format!(
        "SELECT {INTERVAL_COLUMNS} FROM intervals i JOIN peers p ON p.peer = i.peer \
         WHERE i.peer = $1 ORDER BY i.first_record, i.declaration, i.id"
    );
    db.query(&sql, &[Value::Text(peer.into())])?
        .iter()
        .map(interval)
        .collect()
}

/// A peer's card digests, oldest first.
pub(crate) fn card_history(db: &mut Db, peer: &str) -> Result<Vec<CardInterval>, Error> {
    let sql = format!(
        "SELECT {CARD_COLUMNS} FROM card_intervals c JOIN peers p ON p.peer = c.peer \
         WHERE c.peer = $1 ORDER BY c.first_record, c.id"
    );
    db.query(&sql, &[Value::Text(peer.into())])?
        .iter()
        .map(card_interval)
        .collect()
}

/// Every peer the store has a record of, sorted.
pub(crate) fn peers(db: &mut Db) -> Result<Vec<String>, Error> {
    db.query("SELECT peer FROM peers ORDER BY peer", &[])?
        .iter()
        .map(|row| {
            row.first()
                .ok_or_else(|| Error::Unexpected("an empty peer row".into()))?
                .text()
        })
        .collect()
}

/// How many records the store holds, and when the latest-started one
/// started (epoch milliseconds), if any: where a watch resumes.
pub(crate) fn latest(db: &mut Db) -> Result<(i64, Option<i64>), Error> {
    let rows = db.query("SELECT COUNT(*), MAX(started_ms) FROM records", &[])?;
    match rows.first().map(Vec::as_slice) {
        Some([count, last]) => Ok((count.int()?, last.maybe_int()?)),
        _ => Err(Error::Unexpected("a count row of another shape".into())),
    }
}

/// The peer's last and previous record (0: none), if it has any.
pub(crate) fn last_two(db: &mut Db, peer: &str) -> Result<Option<(i64, i64)>, Error> {
    let rows = db.query(
        "SELECT last_record, prev_record FROM peers WHERE peer = $1",
        &[Value::Text(peer.into())],
    )?;
    match rows.first().map(Vec::as_slice) {
        Some([last, prev]) => Ok(Some((last.int()?, prev.int()?))),
        Some(_) => Err(Error::Unexpected("a peer row of another shape".into())),
        None => Ok(None),
    }
}

/// Each declaration's verdict at `record`, from the intervals covering it.
fn verdicts_at(all: &[Interval], record: i64) -> BTreeMap<&str, DeclarationVerdict> {
    all.iter()
        .filter(|i| i.first_record <= record && record <= i.last_record)
        .map(|i| (i.declaration.as_str(), i.verdict))
        .collect()
}

/// What got worse between the peer's previous record and its latest:
/// verdicts first (by declaration), then the card.
pub(crate) fn regressions(db: &mut Db, peer: &str) -> Result<Vec<Regression>, Error> {
    let Some((last, prev)) = last_two(db, peer)? else {
        return Ok(vec![]);
    };
    if prev == 0 {
        return Ok(vec![]);
    }
    let all = changes(db, peer)?;
    let cards = card_history(db, peer)?;
    Ok(peer_regressions(peer, (prev, last), &all, &cards))
}

/// [`regressions`] of every peer whose latest record is `record`, by
/// peer, in three queries for the whole record (a watch cycle of 10,000
/// peers asked each peer's, three round trips a peer on PostgreSQL). Only
/// the intervals that cover a peer's last two records are read.
pub(crate) fn regressions_at(db: &mut Db, record: i64) -> Result<Vec<Regression>, Error> {
    const LAST_TWO: &str = "p.last_record = $1 AND p.prev_record <> 0";
    let record_param = [Value::Int(record)];
    let sql = format!("SELECT p.peer, p.prev_record FROM peers p WHERE {LAST_TWO}");
    let mut previous: Vec<(String, i64)> = db
        .query(&sql, &record_param)?
        .iter()
        .map(|row| match row.as_slice() {
            [peer, prev] => Ok((peer.text()?, prev.int()?)),
            _ => Err(Error::Unexpected("a peer row of another shape".into())),
        })
        .collect::<Result<_, Error>>()?;
    if previous.is_empty() {
        return Ok(vec![]);
    }
    // By peer in byte order, whatever the database's collation.
    previous.sort_unstable();
    let sql = format!(
        "SELECT {INTERVAL_COLUMNS} FROM intervals i JOIN peers p ON p.peer = i.peer \
         WHERE {LAST_TWO} AND i.first_record <= p.last_record \
         AND COALESCE(i.last_record, p.last_record) >= p.prev_record \
         ORDER BY i.peer, i.first_record, i.declaration, i.id"
    );
    let mut intervals: BTreeMap<String, Vec<Interval>> = BTreeMap::new();
    for row in db.query(&sql, &record_param)? {
        let interval = interval(&row)?;
        intervals
            .entry(interval.peer.clone())
            .or_default()
            .push(interval);
    }
    let sql = format!(
        "SELECT {CARD_COLUMNS} FROM card_intervals c JOIN peers p ON p.peer = c.peer \
         WHERE {LAST_TWO} AND c.first_record <= p.last_record \
         AND COALESCE(c.last_record, p.last_record) >= p.prev_record \
         ORDER BY c.peer, c.first_record, c.id"
    );
    let mut cards: BTreeMap<String, Vec<CardInterval>> = BTreeMap::new();
    for row in db.query(&sql, &record_param)? {
        let card = card_interval(&row)?;
        cards.entry(card.peer.clone()).or_default().push(card);
    }
    Ok(previous
        .iter()
        .flat_map(|(peer, prev)| {
            let all = intervals.get(peer).map_or(&[][..], Vec::as_slice);
            let cards = cards.get(peer).map_or(&[][..], Vec::as_slice);
            peer_regressions(peer, (*prev, record), all, cards)
        })
        .collect())
}

/// What got worse for `peer` between its records `prev` and `last`, read
/// from its intervals and card intervals covering them.
fn peer_regressions(
    peer: &str,
    (prev, last): (i64, i64),
    all: &[Interval],
    cards: &[CardInterval],
) -> Vec<Regression> {
    let (before, after) = (verdicts_at(all, prev), verdicts_at(all, last));
    let mut found: Vec<Regression> = after
        .iter()
        .filter_map(|(declaration, now)| {
            let was = *before.get(declaration)?;
            regresses(was, *now).then(|| Regression::Verdict {
                peer: peer.to_string(),
                declaration: declaration.to_string(),
                before: was,
                after: *now,
                record: last,
            })
        })
        .collect();
    let digest_at = |record: i64| {
        cards
            .iter()
            .find(|c| c.first_record <= record && record <= c.last_record)
            .map(|c| c.digest.clone())
    };
    if let (Some(before), Some(after)) = (digest_at(prev), digest_at(last)) {
        if before != after {
            found.push(Regression::CardChanged {
                peer: peer.to_string(),
                before,
                after,
                record: last,
            });
        }
    }
    found
}

/// A peer's latest record: the record its current verdicts are read at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerLatest {
    /// The peer's card URL.
    pub peer: String,
    /// Its latest record.
    pub record: i64,
    /// When that record's check started (RFC 3339, from the report).
    pub started_at: String,
}

/// How many peers the store has a record of.
pub(crate) fn peer_count(db: &mut Db) -> Result<i64, Error> {
    let rows = db.query("SELECT COUNT(*) FROM peers", &[])?;
    crate::record::first_int(&rows)
}

/// A page of peers, sorted by card URL: `limit` of them after the first
/// `offset`, each with its latest record and when it started.
pub(crate) fn latest_records(
    db: &mut Db,
    offset: i64,
    limit: i64,
) -> Result<Vec<PeerLatest>, Error> {
    db.query(
        "SELECT p.peer, p.last_record, r.started_at FROM peers p \
         JOIN records r ON r.id = p.last_record ORDER BY p.peer LIMIT $1 OFFSET $2",
        &[Value::Int(limit), Value::Int(offset)],
    )?
    .iter()
    .map(|row| match row.as_slice() {
        [peer, record, started_at] => Ok(PeerLatest {
            peer: peer.text()?,
            record: record.int()?,
            started_at: started_at.text()?,
        }),
        _ => Err(Error::Unexpected("a peer row of another shape".into())),
    })
    .collect()
}

/// Every interval of the page of peers [`latest_records`] gives for
/// `offset` and `limit`, in one query: by peer, declaration, first record.
pub(crate) fn page_intervals(db: &mut Db, offset: i64, limit: i64) -> Result<Vec<Interval>, Error> {
    let sql = format!(
        "SELECT {INTERVAL_COLUMNS} FROM intervals i JOIN \
         (SELECT peer, last_record, last_seen FROM peers ORDER BY peer LIMIT $1 OFFSET $2) p \
         ON p.peer = i.peer ORDER BY i.peer, i.declaration, i.first_record, i.id"
    );
    db.query(&sql, &[Value::Int(limit), Value::Int(offset)])?
        .iter()
        .map(interval)
        .collect()
}

/// Every (peer, declaration) interval current at its peer's latest record,
/// in one query: by peer, then declaration. A declaration the latest
/// record left out has none.
pub(crate) fn current_verdicts(db: &mut Db) -> Result<Vec<Interval>, Error> {
    let sql = format!(
        "SELECT {INTERVAL_COLUMNS} FROM peers p JOIN intervals i \
         ON i.peer = p.peer AND i.last_record IS NULL \
         ORDER BY i.peer, i.declaration, i.id"
    );
    db.query(&sql, &[])?.iter().map(interval).collect()
}
