//! `a2a-conform merge`: joins the reports of `check --shard K/N` into the
//! one report the unsharded check would have written, in plan order, with
//! declarations judged over the union of runs, the baseline applied over
//! the whole and the run concluded ([`crate::conclude`]). Reports
//! of different plans (suites, selections, variables), tool versions or
//! shard counts are refused, as are missing and repeated shards: a merged
//! report must not look complete when it is not. Each input is read by the
//! one report loader ([`ReportFile::load`]): capped, and of this build's schema
//! version.

use crate::baseline::Baseline;
use crate::shard::Shard;
use crate::verdict;
use crate::{conclude, Rules};
use crate::{
    CredentialsReport, DeclarationReport, PeerReport, RunReport, ScenarioReport, ShardReport,
};
use crate::{LoadError, ReportFile};
use a2a_conform_protocol::card::Declaration;
use a2a_conform_protocol::declaration::DeclarationId;
use std::path::Path;

/// Why reports cannot be merged (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// An input is not a report this build reads (unreadable, too large,
    /// not JSON, another schema version, not a report's shape).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// An input is a report of an unsharded check.
    #[error("{file} is not a shard report: write shards with `check --shard K/N --json FILE`")]
    NotSharded {
        /// The input.
        file: String,
    },
    /// An input's `shard` is not K/N with 1 ≤ K ≤ N (no check writes that).
    #[error(
        "{file} says it is shard {index}/{count}, which no check writes: K/N needs 1 <= K <= N"
    )]
    BadShard {
        /// The input.
        file: String,
        /// Its K.
        index: u32,
        /// Its N.
        count: u32,
    },
    /// Two inputs come from different checks.
    #[error("{file} and {other} come from different {what} ({ours} vs {theirs}): they are not shards of one check")]
    Mismatch {
        /// The first input.
        file: String,
        /// The input that differs from it.
        other: String,
        /// What differs (`suites`, `tool versions`, …).
        what: &'static str,
        /// The first input's value.
        ours: String,
        /// The other input's value.
        theirs: String,
    },
    /// Two inputs are the same shard.
    #[error("{file} and {other} are both shard {shard}")]
    Repeated {
        /// The later input.
        file: String,
        /// The earlier input.
        other: String,
        /// The shard both are.
        shard: Shard,
    },
    /// A shard of the check is not among the inputs.
    #[error("shard {shard} is missing: merge needs every shard of the check")]
    Missing {
        /// The shard not given.
        shard: Shard,
    },
    /// A shard holds more or fewer peers than the plan gives it.
    #[error(
        "shard {shard} ({file}) holds {found} peer report(s) where the plan gives it {expected}"
    )]
    Shape {
        /// The input.
        file: String,
        /// The shard it is.
        shard: Shard,
        /// The peers it holds.
        found: usize,
        /// The peers the plan gives it.
        expected: usize,
    },
}

/// Reads every file and merges them (see [`merge`]).
pub fn merge_files<P: AsRef<Path>>(paths: &[P]) -> Result<RunReport, MergeError> {
    let loaded = paths
        .iter()
        .map(|path| ReportFile::load(path.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    merge(loaded)
}

/// Joins every shard of one check into one concluded report.
pub fn merge(loaded: Vec<ReportFile>) -> Result<RunReport, MergeError> {
    let mut shards = Vec::with_capacity(loaded.len());
    for one in loaded {
        let Some(info) = one.report.shard.clone() else {
            return Err(MergeError::NotSharded { file: one.file });
        };
        if info.index == 0 || info.index > info.count {
            return Err(MergeError::BadShard {
                file: one.file,
                index: info.index,
                count: info.count,
            });
        }
        shards.push((one, info));
    }
    let Some((first, first_info)) = shards.first() else {
        let mut nothing = RunReport::new(Vec::new());
        conclude(&mut nothing, &Rules::default());
        return Ok(nothing);
    };
    for (one, info) in &shards[1..] {
        same_plan((first, first_info), (one, info))?;
    }
    let total_peers = first_info.peers;
    let parts = in_plan_order(shards)?;
    let mut merged = RunReport::new(Vec::new());
    merged.tool = parts[0].0.report.tool.clone();
    merged.tool.insecure = parts.iter().any(|(l, _)| l.report.tool.insecure);
    merged.schema_version = parts[0].0.report.schema_version;
    merged.started_at = parts
        .iter()
        .map(|(l, _)| l.report.started_at.clone())
        .min()
        .unwrap_or_default();
    merged.interrupted = parts.iter().any(|(l, _)| l.report.interrupted);
    let fail_on_flaky = parts.iter().any(|(l, _)| l.report.fail_on_flaky);
    let fail_on_unverified = parts.iter().any(|(l, _)| l.report.fail_on_unverified);
    let baseline = parts.iter().find_map(|(l, _)| l.report.baseline.clone());
    merged.peers = if total_peers == 1 {
        vec![merge_runs_of_one_peer(parts)?]
    } else {
        interleave_peers(parts, total_peers)?
    };
    // Each shard applied the baseline to its own slice; applied again over
    // the whole, every entry's status is the whole check's.
    let known = baseline.as_ref().map(Baseline::from_report);
    let rules = Rules {
        fail_on_flaky,
        fail_on_unverified,
        baseline: known.as_ref(),
        strict_baseline: baseline.is_some_and(|b| b.strict),
    };
    conclude(&mut merged, &rules);
    Ok(merged)
}

/// Refuses two shards that are not of one check.
fn same_plan(
    (first, first_info): (&ReportFile, &ShardReport),
    (one, info): (&ReportFile, &ShardReport),
) -> Result<(), MergeError> {
    let tool = |l: &ReportFile| format!("{} {}", l.report.tool.name, l.report.tool.version);
    let checks = [
        ("tool versions", tool(first), tool(one)),
        (
            "suites",
            first_info.suite_digest.clone(),
            info.suite_digest.clone(),
        ),
        (
            "shard counts",
            first_info.count.to_string(),
            info.count.to_string(),
        ),
        (
            "fleets",
            format!("{} peers", first_info.peers),
            format!("{} peers", info.peers),
        ),
    ];
    match checks.into_iter().find(|(_, ours, theirs)| ours != theirs) {
        Some((what, ours, theirs)) => Err(MergeError::Mismatch {
            file: first.file.clone(),
            other: one.file.clone(),
            what,
            ours,
            theirs,
        }),
        None => Ok(()),
    }
}

/// The shards by index, each once and none missing.
fn in_plan_order(
    shards: Vec<(ReportFile, ShardReport)>,
) -> Result<Vec<(ReportFile, Shard)>, MergeError> {
    let count = shards.first().map_or(1, |(_, info)| info.count);
    let mut by_index: Vec<Option<(ReportFile, Shard)>> = (0..count).map(|_| None).collect();
    for (one, info) in shards {
        let shard = Shard {
            index: info.index,
            count,
        };
        // Every index is in 1..=count: checked when read, counts compared since.
        let slot = &mut by_index[(info.index - 1) as usize];
        if let Some((other, _)) = slot {
            return Err(MergeError::Repeated {
                file: one.file,
                other: other.file.clone(),
                shard,
            });
        }
        *slot = Some((one, shard));
    }
    by_index
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            slot.ok_or(MergeError::Missing {
                shard: Shard {
                    index: i as u32 + 1,
                    count,
                },
            })
        })
        .collect()
}

/// Several peers: shard K's nth peer is the plan's peer at `shard.position(nth)`.
fn interleave_peers(
    parts: Vec<(ReportFile, Shard)>,
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
fn merge_runs_of_one_peer(parts: Vec<(ReportFile, Shard)>) -> Result<PeerReport, MergeError> {
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
                kept.credentials = join_credentials(kept.credentials.take(), one.credentials);
                if kept.card_error.is_none() {
                    kept.card_error = one.card_error;
                    kept.interrupted = one.interrupted;
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
    // Judged afresh: the baseline marks rows again when the merge is concluded.
    peer.declarations = verdict::judge_declarations(&declarations, &peer.scenarios);
    Ok(peer)
}

/// Two shards' record of the credentials. A shard without one accepted
/// every request that carried them (all shards of a check are given the
/// same), so the peer accepted some: the whole reads as such.
fn join_credentials(
    a: Option<CredentialsReport>,
    b: Option<CredentialsReport>,
) -> Option<CredentialsReport> {
    let (mut a, b) = (a?, b?);
    a.sent += b.sent;
    a.refused += b.refused;
    for source in b.sources {
        if !a.sources.contains(&source) {
            a.sources.push(source);
        }
    }
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        BaselineEntryReport, BaselineReport, BaselineStatus, DeclarationVerdict, ScenarioVerdict,
    };

    fn shard(index: u32, runs: Vec<ScenarioReport>) -> ReportFile {
        let rows = ["lifecycle.cancel", "lifecycle.completion"]
            .map(|id| DeclarationReport::builder(id, DeclarationVerdict::Unverified).build());
        let mut report = RunReport::new(vec![PeerReport::builder("http://p/card")
            .card_digest("sha256:1")
            .declarations(rows.to_vec())
            .scenarios(runs)
            .build()]);
        report.shard = Some(ShardReport {
            index,
            count: 2,
            peers: 1,
            suite_digest: "d".into(),
        });
        ReportFile {
            file: format!("s{index}.json"),
            report,
        }
    }

    fn entry(status: BaselineStatus) -> BaselineEntryReport {
        BaselineEntryReport {
            declaration: None,
            scenario: Some("b".into()),
            reason: "ACME-1".into(),
            status,
            note: String::new(),
        }
    }

    #[test]
    fn the_baseline_is_applied_over_the_whole_and_the_merge_concluded() {
        let pass = ScenarioReport::builder("a", ScenarioVerdict::Pass)
            .verifies("lifecycle.cancel")
            .build();
        let fail = ScenarioReport::builder("b", ScenarioVerdict::Fail)
            .verifies("lifecycle.completion")
            .baselined("ACME-1")
            .build();
        let mut first = shard(1, vec![pass]);
        let mut second = shard(2, vec![fail]);
        // Each shard saw the entry's run, or did not.
        for (part, status) in [
            (&mut first, BaselineStatus::Unmatched),
            (&mut second, BaselineStatus::Applied),
        ] {
            part.report.baseline = Some(BaselineReport {
                file: "known.yaml".into(),
                strict: true,
                entries: vec![entry(status)],
            });
        }
        let merged = merge(vec![second, first]).unwrap();
        let ids: Vec<&str> = merged.peers[0]
            .scenarios
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, ["a", "b"]);
        let rows = &merged.peers[0].declarations;
        assert_eq!(rows[0].verdict, DeclarationVerdict::Honoured);
        assert_eq!(rows[1].verdict, DeclarationVerdict::Diverged);
        assert!(rows[1].baselined, "{rows:?}");
        let baseline = merged.baseline.as_ref().unwrap();
        assert_eq!(baseline.entries[0].status, BaselineStatus::Applied);
        let summary = merged.summary.as_ref().expect("concluded");
        assert_eq!(summary.exit_code, crate::exit::OK);
        assert_eq!(summary.counts.declarations.baselined, 1);
    }

    #[test]
    fn a_shard_no_check_writes_is_refused_not_indexed() {
        for (index, count) in [(0, 2), (3, 2), (1, 0)] {
            let mut bad = shard(1, vec![]);
            if let Some(info) = bad.report.shard.as_mut() {
                (info.index, info.count) = (index, count);
            }
            let e = merge(vec![bad]).unwrap_err();
            assert!(matches!(e, MergeError::BadShard { .. }), "{e}");
            assert!(
                e.to_string().contains(&format!("shard {index}/{count}")),
                "{e}"
            );
        }
    }

    #[test]
    fn shards_refused_credentials_only_when_every_shard_was_refused() {
        let record = |sent, refused| CredentialsReport {
            sources: vec!["--api-key-env PEER_KEY".into()],
            sent,
            refused,
        };
        let joined = join_credentials(Some(record(2, 2)), Some(record(3, 3))).unwrap();
        assert_eq!((joined.sent, joined.refused), (5, 5));
        assert_eq!(joined.sources, vec!["--api-key-env PEER_KEY"]);
        assert!(joined.refused_everywhere());
        // A shard without a record accepted them: the peer accepted some.
        assert_eq!(join_credentials(Some(record(2, 2)), None), None);
        assert_eq!(join_credentials(None, Some(record(2, 2))), None);
    }
}
