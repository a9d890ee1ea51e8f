//! Reading an a2a-conform JSON report (`check --json`) for the cache's
//! seed, typed by the lean report-schema crate (no judging, no formats).
//! A `diverged` row is a demotion; a peer whose card could not be read
//! (no digest) seeds nothing, and an id this version cannot read is left
//! out rather than failing the seed.

use super::{CacheError, PeerKey};
use a2a_conform_client::Record;
use a2a_conform_protocol::DeclarationId;
use a2a_conform_report_schema::{
    DeclarationReport, DeclarationVerdict, LoadError, PeerReport, RunReport, ScenarioVerdict,
};
use std::path::Path;

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
    // The report crate's own loader: capped, its schema version checked,
    // every error naming the file.
    let report = RunReport::load(path).map_err(|error| match error {
        LoadError::Read { source, .. } => CacheError::Io {
            path: path.to_path_buf(),
            source,
        },
        other => format(other.to_string()),
    })?;
    let mut found = Vec::new();
    for peer in &report.peers {
        let Some(digest) = peer.card_digest.clone() else {
            continue;
        };
        let key = PeerKey::new(peer.card_url.clone(), digest);
        for row in peer
            .declarations
            .iter()
            .filter(|r| r.verdict == DeclarationVerdict::Diverged)
        {
            let Ok(declaration) = row.id.parse::<DeclarationId>() else {
                continue;
            };
            found.push(Diverged {
                peer: key.clone(),
                declaration,
                reason: format!("diverged in an a2a-conform report: {}", row.reason),
                evidence: failed_evidence(peer, row),
            });
        }
    }
    Ok(found)
}

/// The evidence of the failed runs that decided a row.
/// Each entry is read as the client's `Record`, whose fields the report's
/// evidence shares by name; one it cannot read is left out.
fn failed_evidence(peer: &PeerReport, row: &DeclarationReport) -> Vec<Record> {
    peer.scenarios
        .iter()
        .filter(|run| run.verdict == ScenarioVerdict::Fail && row.scenarios.contains(&run.id))
        .flat_map(|run| &run.evidence)
        .filter_map(|entry| serde_json::from_value(serde_json::to_value(entry).ok()?).ok())
        .collect()
}
