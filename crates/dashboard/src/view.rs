//! What the dashboard shows, read from a history store: the fleet (each
//! peer's current verdict per declaration and the runs of verdicts before
//! it) and one peer (its timeline, its card digests, its latest report).
//! The pages are rendered from these, and `/api/…` serves them as JSON,
//! so the API is exactly what the pages are built on.

use a2a_conform_history::{Error, Interval, RecordId, Store};
use a2a_conform_report::{DeclarationVerdict, RunReport};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The fleet: every peer of the store against every declaration any of
/// them has.
#[derive(Debug, Clone, Serialize)]
pub struct Fleet {
    /// Every declaration id of any peer, sorted: the grid's columns.
    pub declarations: Vec<String>,
    /// Every peer, sorted by card URL: the grid's rows.
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
    /// The latest stored report holding the peer, cut to this peer; absent
    /// when its reports were pruned.
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

/// The fleet as the store has it now.
pub fn fleet(store: &mut Store) -> Result<Fleet, Error> {
    let mut declarations = BTreeSet::new();
    let mut peers = Vec::new();
    for peer in store.peers()? {
        let changes = store.changes(&peer)?;
        let Some(latest) = changes.iter().max_by_key(|i| i.last_record) else {
            continue;
        };
        let (latest_record, last_seen) = (latest.last_record, latest.last_seen.clone());
        let mut cells: BTreeMap<String, Cell> = BTreeMap::new();
        for interval in &changes {
            declarations.insert(interval.declaration.clone());
            let cell = cells
                .entry(interval.declaration.clone())
                .or_insert_with(|| Cell {
                    verdict: None,
                    history: vec![],
                });
            cell.history.push(Span::from(interval));
            if interval.last_record == latest_record {
                cell.verdict = Some(interval.verdict);
            }
        }
        peers.push(FleetPeer {
            peer,
            latest_record,
            last_seen,
            cells,
        });
    }
    Ok(Fleet {
        declarations: declarations.into_iter().collect(),
        peers,
    })
}

/// One peer as the store has it now; `None` when the store has no record
/// of it.
pub fn peer(store: &mut Store, peer: &str) -> Result<Option<PeerView>, Error> {
    let changes = store.changes(peer)?;
    if changes.is_empty() && !store.peers()?.iter().any(|p| p == peer) {
        return Ok(None);
    }
    let cards = store
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
    // The store keeps reports whole: the newest holding the peer, cut to it
    // (its summary recomputed from what is left).
    let latest = store
        .reports()?
        .into_iter()
        .rev()
        .find_map(|(id, mut report)| {
            report.peers.retain(|p| p.card_url == peer);
            (!report.peers.is_empty()).then(|| {
                report.summary = None;
                report.baseline = None;
                (id, report)
            })
        });
    Ok(Some(PeerView {
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
