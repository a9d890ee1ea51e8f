//! Reading an a2a-conform JSON report (`check --json`, schema
//! `docs/report.schema.json`) for the cache's seed: only the fields a seed
//! needs, by their documented names, so the guards need no report crate.
//! A `diverged` row is a demotion; a peer whose card could not be read
//! (no digest) seeds nothing, and an id this version cannot read is left
//! out rather than failing the seed.

use super::store::{read_capped, MAX_FILE_BYTES};
use super::{CacheError, PeerKey};
use a2a_conform_client::Record;
use a2a_conform_protocol::DeclarationId;
use serde::Deserialize;
use std::path::Path;

/// The report versions this reader knows.
const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
struct Report {
    schema_version: u32,
    peers: Vec<Peer>,
}

#[derive(Debug, Deserialize)]
struct Peer {
    card_url: String,
    #[serde(default)]
    card_digest: Option<String>,
    #[serde(default)]
    declarations: Vec<Row>,
    #[serde(default)]
    scenarios: Vec<Run>,
}

#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    verdict: String,
    #[serde(default)]
    scenarios: Vec<String>,
    #[serde(default)]
    reason: String,
}

#[derive(Debug, Deserialize)]
struct Run {
    id: String,
    verdict: String,
    #[serde(default)]
    evidence: Vec<serde_json::Value>,
}

/// One diverged declaration of one peer, as the report shows it.
pub(super) struct Diverged {
    pub(super) peer: PeerKey,
    pub(super) declaration: DeclarationId,
    pub(super) reason: String,
    pub(super) evidence: Vec<Record>,
}

/// Every diverged row of the report at `path`.
pub(super) fn diverged(path: &Path) -> Result<Vec<Diverged>, CacheError> {
    let format = |reason: String| CacheError::Format {
        path: path.to_path_buf(),
        what: "a2a-conform report",
        reason,
    };
    let bytes = read_capped(path, MAX_FILE_BYTES)?.ok_or_else(|| CacheError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::from(std::io::ErrorKind::NotFound),
    })?;
    let report: Report = serde_json::from_slice(&bytes).map_err(|e| format(e.to_string()))?;
    if report.schema_version != SCHEMA_VERSION {
        return Err(format(format!(
            "schema_version {} (this version reads {SCHEMA_VERSION})",
            report.schema_version
        )));
    }
    let mut found = Vec::new();
    for peer in report.peers {
        let Some(digest) = peer.card_digest.clone() else {
            continue;
        };
        let key = PeerKey::new(peer.card_url.clone(), digest);
        for row in peer.declarations.iter().filter(|r| r.verdict == "diverged") {
            let Ok(declaration) = row.id.parse::<DeclarationId>() else {
                continue;
            };
            found.push(Diverged {
                peer: key.clone(),
                declaration,
                reason: format!("diverged in an a2a-conform report: {}", row.reason),
                evidence: failed_evidence(&peer, row),
            });
        }
    }
    Ok(found)
}

/// The evidence of the failed runs that decided a row.
fn failed_evidence(peer: &Peer, row: &Row) -> Vec<Record> {
    peer.scenarios
        .iter()
        .filter(|run| run.verdict == "fail" && row.scenarios.contains(&run.id))
        .flat_map(|run| &run.evidence)
        .filter_map(|entry| serde_json::from_value(entry.clone()).ok())
        .collect()
}
