//! The stored reports: deflated JSON in `records.report`, read back within
//! the report cap, exported as report files, and pruned by age (the
//! intervals stay: they are the history; the reports are its evidence).

use crate::db::{Db, Value};
use crate::error::Error;
use crate::model::RecordId;
use a2a_conform_report::input::REPORT_CAP;
use a2a_conform_report::RunReport;
use flate2::read::DeflateDecoder;
use flate2::write::DeflateEncoder;
use flate2::Compression;
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

/// A stored report, inflated within [`REPORT_CAP`] (a corrupt or hostile
/// row cannot fill memory) and parsed.
pub(crate) fn inflate(record: RecordId, bytes: &[u8]) -> Result<RunReport, Error> {
    let json = inflate_json(record, bytes)?;
    serde_json::from_str(&json).map_err(|e| Error::CorruptReport {
        record,
        reason: e.to_string(),
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
            "larger than {} MiB",
            REPORT_CAP / (1024 * 1024)
        )));
    }
    Ok(json)
}

/// Every stored (not pruned) report, oldest record first.
pub(crate) fn reports(db: &mut Db) -> Result<Vec<(RecordId, RunReport)>, Error> {
    let rows = db.query(
        "SELECT id, report FROM records WHERE report IS NOT NULL ORDER BY id",
        &[],
    )?;
    rows.iter()
        .map(|row| match row.as_slice() {
            [id, Value::Bytes(bytes)] => {
                let id = id.int()?;
                Ok((id, inflate(id, bytes)?))
            }
            _ => Err(Error::Unexpected("a record row of another shape".into())),
        })
        .collect()
}

/// Drops the stored reports of checks that started more than `older_than`
/// ago; returns how many. Their records and intervals stay.
pub(crate) fn prune(db: &mut Db, older_than: Duration) -> Result<u64, Error> {
    let cutoff = SystemTime::now()
        .checked_sub(older_than)
        .and_then(|at| at.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |since| since.as_millis() as i64);
    db.execute(
        "UPDATE records SET report = NULL WHERE started_ms < $1 AND report IS NOT NULL",
        &[Value::Int(cutoff)],
    )
}
