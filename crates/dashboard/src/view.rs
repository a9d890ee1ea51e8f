//! What the dashboard shows, read from a history store: the fleet (each
//! peer's current verdict per declaration and the runs of verdicts before
//! it) and one peer (its timeline, its card digests, its latest report).
//! The pages are rendered from these, and `/api/…` serves them as JSON,
//! so the API is exactly what the pages are built on.

use a2a_conform_history::{Error, Interval, PeerLatest, RecordId, Store};
use a2a_conform_report::{DeclarationVerdict, RunReport};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The fleet, or a page of it: its peers against every declaration any of
/// them has.
#[derive(Debug, Clone, Serialize)]
pub struct Fleet {
    /// How many peers the store has (on every page).
    pub total_peers: i64,
    /// Which page this is, from 1.
    pub page: i64,
    /// How many pages the fleet fills.
    pub pages: i64,
    /// Every declaration id of this page's peers, sorted: the grid's columns.
    pub declarations: Vec<String>,
    /// This page's peers, sorted by card URL: the grid's rows.
    pub peers: Vec<FleetPeer>,
}

/// One peer's row of the grid.
#[derive(Debug, Clone, Serialize)]
pub struct FleetPeer {
    /// The peer's card URL (its key in the store).
    pub peer: String,
    /// The peer's latest record.
    pub latest_record: RecordId,
    /// When that record's check started (RFC 3339).
    pub last_seen: String,
    /// One cell per declaration the peer has a history of.
    pub cells: BTreeMap<String, Cell>,
}

/// One (peer, declaration) cell: its current verdict and its history.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The verdict in the peer's latest record; `None` when that record
    /// left the declaration out (the card stopped declaring it).
    pub verdict: Option<DeclarationVerdict>,
    /// Every run of equal verdicts, oldest first.
    pub history: Vec<Span>,
}

/// A run of equal verdicts (an interval of the store).
#[derive(Debug, Clone, Serialize)]
pub struct Span {
    /// The verdict throughout.
    pub verdict: DeclarationVerdict,
    /// Its first record.
    pub first_record: RecordId,
    /// Its last record so far.
    pub last_record: RecordId,
    /// When its first record's check started.
    pub first_seen: String,
    /// When its last record's check started.
    pub last_seen: String,
}

impl From<&Interval> for Span {
    fn from(i: &Interval) -> Span {
        Span {
            verdict: i.verdict,
            first_record: i.first_record,
            last_record: i.last_record,
            first_seen: i.first_seen.clone(),
            last_seen: i.last_seen.clone(),
        }
    }
}

/// One peer: its timeline of changes and its latest report.
#[derive(Debug, Clone, Serialize)]
pub struct PeerView {
    /// The peer's card URL.
    pub peer: String,
    /// Every verdict change: the intervals, by first record, then declaration.
    pub changes: Vec<Change>,
    /// The card's digests over time (`None`: the card could not be read).
    pub cards: Vec<CardSpan>,
    /// The record asked for (`?record=N`), if one was: the report below
    /// is then that record's, not the latest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asked_record: Option<RecordId>,
    /// The latest stored report holding the peer (or the asked record's),
    /// cut to this peer; absent when pruned, or when the asked record does
    /// not hold the peer.
    pub latest_report: Option<RunReport>,
    /// That report's record.
    pub latest_report_record: Option<RecordId>,
}

/// One interval of a peer's timeline.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    /// The declaration id.
    pub declaration: String,
    /// The verdict, and when.
    #[serde(flatten)]
    pub span: Span,
}

/// A run of one card digest.
#[derive(Debug, Clone, Serialize)]
pub struct CardSpan {
    /// The digest, `None` while the card could not be read.
    pub digest: Option<String>,
    /// The first record of it.
    pub first_record: RecordId,
    /// The last record of it so far.
    pub last_record: RecordId,
    /// When its first record's check started.
    pub first_seen: String,
    /// When its last record's check started.
    pub last_seen: String,
}

/// Peers per page of the grid (`/?page=N`): a page renders within the
/// dashboard's 200 ms goal at 10,000 peers (docs/performance.md, round 4).
pub const PEERS_PER_PAGE: i64 = 100;

/// The whole fleet as the store has it now, every peer on one page (what
/// `/api/fleet` serves without `?page=`).
pub fn fleet(store: &mut Store) -> Result<Fleet, Error> {
    let total = store.peer_count()?;
    fleet_window(store, total, 0, total.max(1), 1)
}

/// Page `page` (from 1) of the fleet, [`PEERS_PER_PAGE`] peers by card
/// URL; `None` past the last page (an empty store has one, empty, page).
pub fn fleet_page(store: &mut Store, page: i64) -> Result<Option<Fleet>, Error> {
    let total = store.peer_count()?;
    let pages = pages(total, PEERS_PER_PAGE);
    if page < 1 || page > pages {
        return Ok(None);
    }
    let offset = (page - 1) * PEERS_PER_PAGE;
    fleet_window(store, total, offset, PEERS_PER_PAGE, page).map(Some)
}

/// How many pages of `per_page` peers `total` peers fill (at least one).
fn pages(total: i64, per_page: i64) -> i64 {
    ((total + per_page - 1) / per_page).max(1)
}

/// The peers `offset..offset + limit`, in a fixed number of queries: their
/// latest records, then every interval of theirs.
fn fleet_window(
    store: &mut Store,
    total: i64,
    offset: i64,
    limit: i64,
    page: i64,
) -> Result<Fleet, Error> {
    let latest = store.latest_records(offset, limit)?;
    let mut intervals: BTreeMap<String, Vec<Interval>> = BTreeMap::new();
    for interval in store.page_intervals(offset, limit)? {
        intervals
            .entry(interval.peer.clone())
            .or_default()
            .push(interval);
    }
    let mut declarations = BTreeSet::new();
    let mut peers = Vec::with_capacity(latest.len());
    for PeerLatest {
        peer,
        record,
        started_at,
    } in latest
    {
        let mut cells: BTreeMap<String, Cell> = BTreeMap::new();
        // Sorted by declaration then first record: each cell's runs in order.
        for interval in intervals.remove(&peer).unwrap_or_default() {
            declarations.insert(interval.declaration.clone());
            let cell = cells
                .entry(interval.declaration.clone())
                .or_insert_with(|| Cell {
                    verdict: None,
                    history: vec![],
                });
            cell.history.push(Span::from(&interval));
            if interval.last_record == record {
                cell.verdict = Some(interval.verdict);
            }
        }
        peers.push(FleetPeer {
            peer,
            latest_record: record,
            last_seen: started_at,
            cells,
        });
    }
    Ok(Fleet {
        total_peers: total,
        page,
        pages: pages(total, limit),
        declarations: declarations.into_iter().collect(),
        peers,
    })
}

/// One peer as the store has it now, with its latest stored report or,
/// given `record`, that record's report of it; `None` when the store has
/// no record of the peer.
pub fn peer(
    store: &mut Store,
    peer: &str,
    record: Option<RecordId>,
) -> Result<Option<PeerView>, Error> {
    let changes = store.changes(peer)?;
    let cards: Vec<CardSpan> = store
        .card_history(peer)?
        .into_iter()
        .map(|c| CardSpan {
            digest: c.digest,
            first_record: c.first_record,
            last_record: c.last_record,
            first_seen: c.first_seen,
            last_seen: c.last_seen,
        })
        .collect();
    // Every record of a peer gives it a card interval.
    if changes.is_empty() && cards.is_empty() {
        return Ok(None);
    }
    let latest = match record {
        Some(record) => store
            .peer_report_at(peer, record)?
            .map(|report| (record, report)),
        None => store.latest_report(peer)?,
    };
    Ok(Some(PeerView {
        asked_record: record,
        peer: peer.to_string(),
        changes: changes
            .iter()
            .map(|i| Change {
                declaration: i.declaration.clone(),
                span: Span::from(i),
            })
            .collect(),
        cards,
        latest_report_record: latest.as_ref().map(|(id, _)| *id),
        latest_report: latest.map(|(_, report)| report),
    }))
}
