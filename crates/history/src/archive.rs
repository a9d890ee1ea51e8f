//! The stored reports: deflated JSON, the report without its peers in
//! `records.report` and each peer's entry in `peer_reports` (each part
//! within the report cap, the whole unbounded), read back within the cap, exported as report files, and pruned by age (the
//! intervals stay: they are the history; the reports are its evidence).

use crate::db::{Db, Value};
use crate::error::Error;
use crate::model::RecordId;
use a2a_conform_report::input::REPORT_CAP;
use a2a_conform_report::{PeerReport, RunReport};
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::{Duration, SystemTime};

/// The report's JSON, deflated.
pub(crate) fn deflate(json: &str) -> Result<Vec<u8>, Error> {
    let mut encoder = DeflateEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(json.as_bytes())
        .map_err(Error::Compress)?;
    encoder.finish().map_err(Error::Compress)
}

/// A report split for storage: its JSON without the peers' entries (with
/// `"peers":[]`) and each peer's entry, in order, each deflated. Each part
/// must be within [`REPORT_CAP`] (to be read back); the whole need not.
pub(crate) fn split(report: &RunReport) -> Result<(Vec<u8>, Vec<Vec<u8>>), Error> {
    let too_large = |size: usize| Error::TooLarge {
        size: size as u64,
        cap: REPORT_CAP,
    };
    let unexpected = |e: serde_json::Error| Error::Unexpected(format!("a report's JSON: {e}"));
    // One serialization; the parts are cut from it as raw JSON.
    let json = serde_json::to_string(report).map_err(unexpected)?;
    let fields = Fields::parse(&json).map_err(unexpected)?;
    let shell = fields.with_peers(&[]).map_err(unexpected)?;
    if shell.len() as u64 > REPORT_CAP {
        return Err(too_large(shell.len()));
    }
    let mut entries = Vec::with_capacity(fields.peers.len());
    for entry in &fields.peers {
        let entry = entry.get();
        if entry.len() as u64 > REPORT_CAP {
            return Err(too_large(entry.len()));
        }
        entries.push(deflate(entry)?);
    }
    Ok((deflate(&shell)?, entries))
}

/// A report's JSON as its top-level fields and its peers' entries, raw:
/// nothing below them is parsed.
pub(crate) struct Fields<'a> {
    /// Every field but `peers`, by name.
    others: BTreeMap<&'a str, &'a RawValue>,
    /// The `peers` entries, in order.
    pub(crate) peers: Vec<&'a RawValue>,
}

impl<'a> Fields<'a> {
    pub(crate) fn parse(json: &'a str) -> Result<Fields<'a>, serde_json::Error> {
        let mut others: BTreeMap<&'a str, &'a RawValue> = serde_json::from_str(json)?;
        let peers = match others.remove("peers") {
            Some(peers) => serde_json::from_str(peers.get())?,
            None => vec![],
        };
        Ok(Fields { others, peers })
    }

    /// The report's JSON again, with `peers` as its entries.
    pub(crate) fn with_peers(&self, peers: &[&RawValue]) -> Result<String, serde_json::Error> {
        let mut out = String::from("{");
        for (name, value) in &self.others {
            out.push_str(&serde_json::to_string(name)?);
            out.push(':');
            out.push_str(value.get());
            out.push(',');
        }
        out.push_str("\"peers\":[");
        for (i, entry) in peers.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(entry.get());
        }
        out.push_str("]}");
        Ok(out)
    }
}

/// A stored report, inflated within [`REPORT_CAP`] (a corrupt or hostile
/// row cannot fill memory) and parsed.
pub(crate) fn inflate(record: RecordId, bytes: &[u8]) -> Result<RunReport, Error> {
    let json = inflate_json(record, bytes)?;
    serde_json::from_str(&json).map_err(|e| Error::CorruptReport {
        record,
        reason: e.to_string(),
    })
}

/// A stored peer entry of `record`, inflated within [`REPORT_CAP`] and parsed.
pub(crate) fn inflate_peer(record: RecordId, bytes: &[u8]) -> Result<PeerReport, Error> {
    let json = inflate_json(record, bytes)?;
    serde_json::from_str(&json).map_err(|e| Error::CorruptReport {
        record,
        reason: format!("a peer's entry: {e}"),
    })
}

/// A stored report's JSON, inflated within [`REPORT_CAP`] and not parsed
/// (the latest-report read parses only the entry it needs).
pub(crate) fn inflate_json(record: RecordId, bytes: &[u8]) -> Result<String, Error> {
    let corrupt = |reason: String| Error::CorruptReport { record, reason };
    let mut json = String::new();
    DeflateDecoder::new(bytes)
        .take(REPORT_CAP + 1)
        .read_to_string(&mut json)
        .map_err(|e| corrupt(e.to_string()))?;
    if json.len() as u64 > REPORT_CAP {
        return Err(corrupt(format!(
            "inflates past the {} MiB report cap",
            REPORT_CAP / (1024 * 1024)
        )));
    }
    Ok(json)
}

/// The ids of every stored (not pruned) report, oldest first.
pub(crate) fn stored(db: &mut Db) -> Result<Vec<RecordId>, Error> {
    db.query(
        "SELECT id FROM records WHERE report IS NOT NULL ORDER BY id",
        &[],
    )?
    .iter()
    .map(|row| {
        row.first()
            .map_or(Err(Error::Unexpected("an empty row".into())), Value::int)
    })
    .collect()
}

/// Record `id`'s stored report, whole: its stored JSON (a version 1 record
/// holds every peer there) with each peer's stored entry after, in order;
/// `None` once pruned.
pub(crate) fn report(db: &mut Db, id: RecordId) -> Result<Option<RunReport>, Error> {
    let rows = db.query(
        "SELECT report FROM records WHERE id = $1 AND report IS NOT NULL",
        &[Value::Int(id)],
    )?;
    let Some(row) = rows.first() else {
        return Ok(None);
    };
    let [Value::Bytes(bytes)] = row.as_slice() else {
        return Err(Error::Unexpected("a record row of another shape".into()));
    };
    let mut report = inflate(id, bytes)?;
    let entries = db.query(
        "SELECT report FROM peer_reports WHERE record = $1 ORDER BY position",
        &[Value::Int(id)],
    )?;
    for entry in &entries {
        let [Value::Bytes(bytes)] = entry.as_slice() else {
            return Err(Error::Unexpected(
                "a peer report row of another shape".into(),
            ));
        };
        report.peers.push(inflate_peer(id, bytes)?);
    }
    Ok(Some(report))
}

/// `report` as report files `history import` reads back: itself when its
/// JSON is within [`REPORT_CAP`], else split by peers into parts that are
/// (halved until each fits; a fleet's cycle can be hundreds of MB), each
/// with its own summary. A part is what a shard's report is: some of the
/// record's peers, checked at its time.
pub(crate) fn export_parts(report: RunReport) -> Result<Vec<RunReport>, Error> {
    let size = report.to_json().len();
    if size as u64 <= REPORT_CAP {
        return Ok(vec![report]);
    }
    if report.peers.len() < 2 {
        // Not recorded so: each peer's entry was within the cap.
        return Err(Error::TooLarge {
            size: size as u64,
            cap: REPORT_CAP,
        });
    }
    let mut first = report;
    let rest = first.peers.split_off(first.peers.len() / 2);
    // The other fields cloned without the peers (hundreds of MB in a fleet).
    let kept = std::mem::take(&mut first.peers);
    let mut second = first.clone();
    first.peers = kept;
    second.peers = rest;
    let mut parts = Vec::new();
    for mut part in [first, second] {
        part.summary = Some(a2a_conform_report::verdict::summarize(&part));
        parts.extend(export_parts(part)?);
    }
    Ok(parts)
}

/// Every stored (not pruned) report, oldest record first.
pub(crate) fn reports(db: &mut Db) -> Result<Vec<(RecordId, RunReport)>, Error> {
    let mut out = Vec::new();
    for id in stored(db)? {
        if let Some(report) = report(db, id)? {
            out.push((id, report));
        }
    }
    Ok(out)
}

/// Drops the stored reports of checks that started more than `older_than`
/// ago; returns how many. Their records and intervals stay.
pub(crate) fn prune(db: &mut Db, older_than: Duration) -> Result<u64, Error> {
    let cutoff = SystemTime::now()
        .checked_sub(older_than)
        .and_then(|at| at.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_millis() as i64);
    db.transaction(|db| {
        db.execute(
            "DELETE FROM peer_reports WHERE record IN \
             (SELECT id FROM records WHERE started_ms < $1)",
            &[Value::Int(cutoff)],
        )?;
        db.execute(
            "UPDATE records SET report = NULL WHERE started_ms < $1 AND report IS NOT NULL",
            &[Value::Int(cutoff)],
        )
    })
}
