//! `a2a-conform merge`: joins the reports of `check --shard K/N` into the
//! one report the unsharded check would have written, in plan order, with
//! declarations judged over the union of runs. Reports of different plans
//! (suites, selections, variables), tool versions or shard counts are
//! refused, as are missing and repeated shards: a merged report must not
//! look complete when it is not.

use crate::shard::Shard;
use crate::{DeclarationReport, PeerReport, RunReport, ScenarioReport};
use a2a_conform_protocol::card::Declaration;
use a2a_conform_protocol::declaration::DeclarationId;
use std::path::Path;

/// Why reports cannot be merged (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("cannot read {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("{file} is not an a2a-conform JSON report this version reads: {source}")]
    NotReport {
        file: String,
        source: serde_json::Error,
    },
    #[error("{file} is not a shard report: write shards with `check --shard K/N --json FILE`")]
    NotSharded { file: String },
    #[error("{file} and {other} come from different {what} ({ours} vs {theirs}): they are not shards of one check")]
    Mismatch {
        file: String,
        other: String,
        what: &'static str,
        ours: String,
        theirs: String,
    },
    #[error("{file} and {other} are both shard {shard}")]
    Repeated {
        file: String,
        other: String,
        shard: Shard,
    },
    #[error("shard {shard} is missing: merge needs every shard of the check")]
    Missing { shard: Shard },
    #[error(
        "shard {shard} ({file}) holds {found} peer report(s) where the plan gives it {expected}"
    )]
    Shape {
        file: String,
        shard: Shard,
        found: usize,
        expected: usize,
    },
}

/// A report read from a file, named by its path in errors.
pub struct Loaded {
    pub file: String,
    pub report: RunReport,
}

/// Reads one shard report.
pub fn load(path: &Path) -> Result<Loaded, MergeError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
        file: file.clone(),
        source,
    })?;
    let report = serde_json::from_str(&text).map_err(|source| MergeError::NotReport {
        file: file.clone(),
        source,
    })?;
    Ok(Loaded { file, report })
}

/// Joins every shard of one check into one report.
pub fn merge(loaded: Vec<Loaded>) -> Result<RunReport, MergeError> {
    let mut shards = Vec::with_capacity(loaded.len());
    for one in loaded {
        let Some(info) = one.report.shard.clone() else {
            return Err(MergeError::NotSharded { file: one.file });
        };
        shards.push((one, info));
    }
    let Some((first, first_info)) = shards.first() else {
        return Ok(RunReport::new(Vec::new()));
    };
    let same = |what, ours: String, theirs: String, file: &str| {
        (ours != theirs).then(|| MergeError::Mismatch {
            file: first.file.clone(),
            other: file.to_string(),
            what,
            ours,
            theirs,
        })
    };
    for (one, info) in &shards[1..] {
        let checks = [
            same(
                "tool versions",
                format!("{} {}", first.report.tool.name, first.report.tool.version),
                format!("{} {}", one.report.tool.name, one.report.tool.version),
                &one.file,
            ),
            same(
                "report schemas",
                first.report.schema_version.to_string(),
                one.report.schema_version.to_string(),
                &one.file,
            ),
            same(
                "suites",
                first_info.suite_digest.clone(),
                info.suite_digest.clone(),
                &one.file,
            ),
            same(
                "shard counts",
                first_info.count.to_string(),
                info.count.to_string(),
                &one.file,
            ),
            same(
                "fleets",
                format!("{} peers", first_info.peers),
                format!("{} peers", info.peers),
                &one.file,
            ),
        ];
        if let Some(e) = checks.into_iter().flatten().next() {
            return Err(e);
        }
    }
    let count = first_info.count;
    let total_peers = first_info.peers;
    let mut by_index: Vec<Option<(Loaded, Shard)>> = (0..count).map(|_| None).collect();
    for (one, info) in shards {
        let shard = Shard {
            index: info.index,
            count,
        };
        let slot = &mut by_index[(info.index.clamp(1, count) - 1) as usize];
        if let Some((other, _)) = slot {
            return Err(MergeError::Repeated {
                file: one.file,
                other: other.file.clone(),
                shard,
            });
        }
        *slot = Some((one, shard));
    }
    let mut parts = Vec::with_capacity(by_index.len());
    for (i, slot) in by_index.into_iter().enumerate() {
        match slot {
            Some(part) => parts.push(part),
            None => {
                return Err(MergeError::Missing {
                    shard: Shard {
                        index: i as u32 + 1,
                        count,
                    },
                })
            }
        }
    }
    let mut merged = RunReport::new(Vec::new());
    merged.tool = parts[0].0.report.tool.clone();
    merged.schema_version = parts[0].0.report.schema_version;
    merged.started_at = parts
        .iter()
        .map(|(l, _)| l.report.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.fail_on_flaky = parts.iter().any(|(l, _)| l.report.fail_on_flaky);
    merged.interrupted = parts.iter().any(|(l, _)| l.report.interrupted);
    merged.baseline = parts.iter().find_map(|(l, _)| l.report.baseline.clone());
    merged.peers = if total_peers == 1 {
        vec![merge_runs_of_one_peer(parts)?]
    } else {
        interleave_peers(parts, total_peers)?
    };
    Ok(merged)
}

/// Several peers: shard K's nth peer is the plan's peer at `shard.position(nth)`.
fn interleave_peers(
    parts: Vec<(Loaded, Shard)>,
    total: usize,
) -> Result<Vec<PeerReport>, MergeError> {
    let mut slots: Vec<Option<PeerReport>> = (0..total).map(|_| None).collect();
    for (loaded, shard) in parts {
        let expected = (0..total).filter(|&p| shard.keeps(p)).count();
        if loaded.report.peers.len() != expected {
            return Err(MergeError::Shape {
                file: loaded.file,
                shard,
                found: loaded.report.peers.len(),
                expected,
            });
        }
        for (nth, peer) in loaded.report.peers.into_iter().enumerate() {
            slots[shard.position(nth)] = Some(peer);
        }
    }
    Ok(slots.into_iter().flatten().collect())
}

/// One peer whose runs were split: its runs interleaved back into plan
/// order and its declarations judged again over all of them.
fn merge_runs_of_one_peer(parts: Vec<(Loaded, Shard)>) -> Result<PeerReport, MergeError> {
    let mut peer: Option<PeerReport> = None;
    let mut rows: Vec<DeclarationReport> = Vec::new();
    let mut runs: Vec<(usize, ScenarioReport)> = Vec::new();
    let mut digest_from: Option<(String, String)> = None;
    for (loaded, shard) in parts {
        let file = loaded.file;
        let mut reports = loaded.report.peers;
        if reports.len() != 1 {
            return Err(MergeError::Shape {
                file,
                shard,
                found: reports.len(),
                expected: 1,
            });
        }
        let mut one = reports.remove(0);
        if let (Some((other, theirs)), Some(ours)) = (&digest_from, &one.card_digest) {
            if theirs != ours {
                return Err(MergeError::Mismatch {
                    file,
                    other: other.clone(),
                    what: "cards (the card changed between shards)",
                    ours: ours.clone(),
                    theirs: theirs.clone(),
                });
            }
        }
        if let (None, Some(digest)) = (&digest_from, &one.card_digest) {
            digest_from = Some((file.clone(), digest.clone()));
        }
        for row in std::mem::take(&mut one.declarations) {
            if !rows.iter().any(|r| r.id == row.id) {
                rows.push(row);
            }
        }
        for (nth, run) in std::mem::take(&mut one.scenarios).into_iter().enumerate() {
            runs.push((shard.position(nth), run));
        }
        match &mut peer {
            None => peer = Some(one),
            Some(kept) => {
                if kept.card_error.is_none() {
                    kept.card_error = one.card_error;
                }
                for warning in one.card_warnings {
                    if !kept.card_warnings.contains(&warning) {
                        kept.card_warnings.push(warning);
                    }
                }
            }
        }
    }
    let mut peer = peer.unwrap_or_else(|| PeerReport::new(String::new()));
    runs.sort_by_key(|(position, _)| *position);
    peer.scenarios = runs.into_iter().map(|(_, run)| run).collect();
    let declarations: Vec<Declaration> = rows
        .iter()
        .filter_map(|row| {
            Some(Declaration {
                id: row.id.parse::<DeclarationId>().ok()?,
                declared: row.declared,
            })
        })
        .collect();
    let mut judged = crate::verdict::judge_declarations(&declarations, &peer.scenarios);
    // The baseline was applied in each shard; its marks carry over.
    for row in &mut judged {
        if let Some(old) = rows.iter().find(|r| r.id == row.id && r.baselined) {
            row.baselined = true;
            row.baseline_reason = old.baseline_reason.clone();
        }
    }
    peer.declarations = judged;
    Ok(peer)
}
