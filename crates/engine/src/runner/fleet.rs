//! Checking every peer of a check: up to `--peers-in-flight` at once, each
//! through the peer pipeline (`peer`), one peer's failure (unreachable, a
//! malformed card, a panic its answers trigger) its own card error that
//! never stops the others; the report in the peers' order, marked
//! interrupted when a signal stopped it, with the shard it covers.

use super::card;
use super::options::{RunOptions, MAX_DEFAULT_JOBS};
use super::peer::check_peer;
use super::progress::Progress;
use super::schedule::in_plan_order;
use crate::scenario::Suite;
use a2a_conform_report::{PeerReport, RunReport, ShardReport};
use futures_util::stream::{self, StreamExt};
use futures_util::FutureExt;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::Semaphore;

/// One peer of a check: its URL and, from a fleet file, its own options
/// (profile, headers, credentials); `None` uses the check's.
#[derive(Clone)]
pub struct PeerTarget {
    /// The card URL or base URL, as the user gave it.
    pub input: String,
    /// The peer's own options, if it has any.
    pub options: Option<Arc<RunOptions>>,
    /// How long after the check's start this peer's check begins (`watch`
    /// spreads a fleet over a jitter window); zero for `check`.
    pub start_after: std::time::Duration,
}

impl PeerTarget {
    /// A peer checked with the check's own options.
    pub fn new(input: impl Into<String>) -> PeerTarget {
        PeerTarget {
            input: input.into(),
            options: None,
            start_after: std::time::Duration::ZERO,
        }
    }
}

/// The most scenario runs in flight at once across all peers (or one
/// peer's `--jobs`, if more). A run in flight holds its connections, streams
/// and evidence (about 70 KB against the mock, most of it the HTTP client's
/// connection buffers), so `--peers-in-flight` × `--jobs` must not multiply
/// without bound: a peer's runs beyond it wait for a slot, first come first
/// served, holding only their plan. The cap trades time for memory: at
/// 1,000 peers of 29 runs, 2,000 slots measured 3.8× one peer's wall, 3,000
/// about 3×, 4,000 2.5× but 426 MB (docs/performance.md, round 5).
pub const MAX_RUNS_IN_FLIGHT: usize = 3_000;

/// The sockets a run in flight may hold at once: a stream, a call beside
/// it, and a push run's webhook receiver.
const FILES_PER_RUN: u64 = 3;

/// The open files kept for everything but runs: the report, the store,
/// peers' card fetches, the runtime's own.
const SPARE_FILES: u64 = 128;

/// The process's soft limit on open files, if it can be read.
fn open_files_limit() -> Option<u64> {
    rlimit::getrlimit(rlimit::Resource::NOFILE)
        .ok()
        .map(|(soft, _)| soft)
}

/// How many runs may be in flight across the check: [`MAX_RUNS_IN_FLIGHT`]
/// (or one peer's `--jobs`, if more), and no more than the open-files limit
/// holds. Past it, connections fail with "Too many open files" and every
/// run is an error of the tool's own making; under it, runs wait.
fn runs_in_flight(most_jobs: usize, open_files: Option<u64>) -> usize {
    let cap = most_jobs.max(MAX_RUNS_IN_FLIGHT);
    let Some(limit) = open_files else {
        return cap;
    };
    let fit = limit.saturating_sub(SPARE_FILES) / FILES_PER_RUN;
    cap.min(usize::try_from(fit).unwrap_or(usize::MAX)).max(1)
}

/// Checks every peer against the suite. When `options.cancel` fires, runs in
/// flight stop and read `error` ([`INTERRUPTED`](crate::runner::INTERRUPTED)),
/// peers whose card was not yet read are marked `interrupted` with a card
/// error saying when, and the report is marked `interrupted`.
pub async fn check(
    inputs: &[String],
    suite: &Suite,
    options: &RunOptions,
    progress: &dyn Progress,
) -> RunReport {
    let targets: Vec<PeerTarget> = inputs.iter().map(PeerTarget::new).collect();
    check_fleet(&targets, suite, options, progress).await
}

/// [`check`] for peers that may carry their own options. Up to
/// `options.peers_in_flight` peers are checked at once, each with up to
/// `options.jobs` runs in flight (by default as many as its plan needs,
/// within [`MIN_DEFAULT_JOBS`](crate::runner::MIN_DEFAULT_JOBS)..=[`MAX_DEFAULT_JOBS`]), and no more than [`MAX_RUNS_IN_FLIGHT`]
/// in all; whichever finishes first frees its slot, and the report keeps
/// plan order (peers as given, runs as planned). One peer's failure
/// (unreachable, malformed card) is its own card error and never stops the
/// others. Under `options.shard` only this shard's slice runs: its peers,
/// or its runs when the check covers one peer.
pub async fn check_fleet(
    targets: &[PeerTarget],
    suite: &Suite,
    options: &RunOptions,
    progress: &dyn Progress,
) -> RunReport {
    let mut report = RunReport::new(Vec::new());
    let started = Instant::now();
    let single = targets.len() == 1;
    let kept: Vec<&PeerTarget> = targets
        .iter()
        .enumerate()
        .filter(|(i, _)| single || options.shard.is_none_or(|s| s.keeps(*i)))
        .map(|(_, t)| t)
        .collect();
    let run_shard = options.shard.filter(|_| single);
    progress.check_started(kept.len());
    let most_jobs = options.jobs.unwrap_or(MAX_DEFAULT_JOBS);
    let slots = &Semaphore::new(runs_in_flight(most_jobs, open_files_limit()));
    let check_started = &started;
    let peers: Vec<(usize, PeerReport)> =
        stream::iter(kept.into_iter().enumerate().map(|(position, target)| {
            let peer_options = target.options.as_deref().unwrap_or(options);
            async move {
                if let Some(wait) = target.start_after.checked_sub(check_started.elapsed()) {
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        () = options.cancel.cancelled() => {}
                    }
                }
                let started = Instant::now();
                let mut peer = if options.cancel.is_cancelled() {
                    card::interrupted(&target.input, "before this peer was checked")
                } else {
                    isolated(
                        &target.input,
                        check_peer(
                            &target.input,
                            suite,
                            peer_options,
                            run_shard,
                            slots,
                            progress,
                        ),
                    )
                    .await
                };
                peer.duration_ms =
                    Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
                progress.peer_finished(&peer);
                (position, peer)
            }
        }))
        .buffer_unordered(options.peers_in_flight.max(1))
        .collect()
        .await;
    report.peers = in_plan_order(peers);
    progress.check_finished();
    report.interrupted = options.cancel.is_cancelled();
    report.duration_ms = Some(started.elapsed().as_millis() as u64);
    report.shard = options.shard.map(|shard| ShardReport {
        index: shard.index,
        count: shard.count,
        peers: targets.len(),
        suite_digest: suite_digest(suite, options),
    });
    report
}

/// A peer's check, its panic caught: a bug one peer's answers trigger must
/// not lose the other peers' reports, so the panic becomes this peer's
/// card error.
async fn isolated(input: &str, check: impl std::future::Future<Output = PeerReport>) -> PeerReport {
    std::panic::AssertUnwindSafe(check)
        .catch_unwind()
        .await
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("a panic");
            PeerReport {
                card_error: Some(format!(
                    "internal error while checking this peer ({what}); please report it"
                )),
                ..PeerReport::new(input.to_string())
            }
        })
}

/// SHA-256 over what decides a plan besides the card: the suite's
/// scenarios, the `--scenario`/`--skip` selection, the variables and the
/// expansion cap. Shards of one check share it; `merge` refuses reports
/// whose digests differ.
pub fn suite_digest(suite: &Suite, options: &RunOptions) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    // The parsed scenarios (no hash maps: Debug output is deterministic).
    hasher.update(format!("{:?}", suite.scenarios).as_bytes());
    hasher.update(format!("{:?}", suite.vars).as_bytes());
    hasher.update(format!("{:?}{:?}", options.only, options.skip).as_bytes());
    hasher.update(format!("{:?}{}", options.vars, options.retries).as_bytes());
    hasher.update(options.max_runs_per_family.to_string().as_bytes());
    let digest = hasher.finalize();
    let mut text = String::from("sha256:");
    for byte in digest {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runs_in_flight_fit_the_open_files_limit() {
        assert_eq!(runs_in_flight(8, None), MAX_RUNS_IN_FLIGHT);
        assert_eq!(runs_in_flight(8, Some(1 << 20)), MAX_RUNS_IN_FLIGHT);
        assert_eq!(runs_in_flight(5_000, Some(1 << 20)), 5_000);
        // The usual soft limit: 298 runs, a fleet's share of 1,024 files.
        assert_eq!(runs_in_flight(8, Some(1_024)), 298);
        assert_eq!(runs_in_flight(5_000, Some(1_024)), 298);
        // Never none: one run at a time still finishes the check.
        assert_eq!(runs_in_flight(8, Some(64)), 1);
    }
}
