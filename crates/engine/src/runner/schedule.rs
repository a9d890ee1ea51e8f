//! The schedule stage: a peer's planned runs, up to `--jobs` in flight and
//! no more than [`MAX_RUNS_IN_FLIGHT`](crate::runner::MAX_RUNS_IN_FLIGHT)
//! across the check (a semaphore every peer shares), each given what it
//! runs with (the auth stage), told to progress when it gets its slot and
//! when it ends, stopped by the interruption, and put back in plan order.
//! They start longest expected first (`order`): the report's order is the
//! plan's whatever the start order.

use super::auth::Auth;
use super::options::RunOptions;
use super::order;
use super::plan::Planned;
use super::precondition::Search;
use super::progress::Progress;
use super::run::{errored, execute, interrupted};
use a2a_conform_client::PeerClient;
use a2a_conform_report::ScenarioReport;
use futures_util::stream::{self, StreamExt};
use std::time::Duration;
use tokio::sync::{Semaphore, SemaphorePermit};

/// One peer's runs and everything they share.
pub(crate) struct PeerRuns<'a> {
    /// The peer, as progress names it.
    pub(crate) card_url: &'a str,
    /// The peer's client (runs on a secured card or an interface get their own).
    pub(crate) client: &'a PeerClient,
    pub(crate) auth: &'a Auth,
    /// The peer's precondition search, shared by its runs.
    pub(crate) search: &'a Search<'a>,
    pub(crate) options: &'a RunOptions,
    /// The check's slots for runs in flight.
    pub(crate) slots: &'a Semaphore,
    pub(crate) progress: &'a dyn Progress,
}

impl PeerRuns<'_> {
    /// Every planned run's report, in plan order. The runs start longest
    /// expected first ([`order`]), so a long run late in the plan does not
    /// hold the check up alone at its end; unordered underneath: a slot
    /// frees as soon as any run ends, not only the oldest.
    pub(crate) async fn run_all(&self, plan: Vec<Planned<'_>>) -> Vec<ScenarioReport> {
        let lengths: Vec<Duration> = plan.iter().map(order::expected).collect();
        // Sorted in one buffer, the plan's: a fleet holds every peer's
        // plan in flight, and a second copy per peer was 15 MB at 1,000.
        let mut rank = vec![0; lengths.len()];
        for (place, position) in order::start_order(&lengths).into_iter().enumerate() {
            rank[position] = place;
        }
        // Each run's plan boxed, so that a run waiting for its slot holds a
        // pointer and a run in flight or ended leaves no room behind in the
        // buffer, which lives as long as the peer's runs. Collected in place
        // the buffer would keep the plan's size (15 KB a peer): shrunk.
        let mut started: Vec<(usize, Box<Planned<'_>>)> =
            plan.into_iter().map(Box::new).enumerate().collect();
        started.shrink_to_fit();
        started.sort_unstable_by_key(|(position, _)| rank[*position]);
        let runs = stream::iter(
            started
                .into_iter()
                .map(|(position, planned)| async move { (position, self.run(planned).await) }),
        )
        .buffer_unordered(self.jobs(&lengths));
        in_plan_order(runs.collect().await)
    }

    /// How many runs of this peer may be in flight: `--jobs`, else sized
    /// from the plan ([`order::default_jobs`]).
    fn jobs(&self, lengths: &[Duration]) -> usize {
        self.options
            .jobs
            .unwrap_or_else(|| order::default_jobs(lengths))
            .max(1)
    }

    /// One run's report. A run that never started (the check was
    /// interrupted first, or no client could be made for it) is not told
    /// to progress; every other run is, when it ends.
    async fn run(&self, planned: Box<Planned<'_>>) -> ScenarioReport {
        let options = self.options;
        if options.cancel.is_cancelled() && planned.not_run.is_none() {
            return interrupted(&planned);
        }
        // Waiting for a slot holds the plan alone: what a run needs is made
        // once it has one, in a box of its own. A run's state is kilobytes,
        // and a fleet's runs waiting for a slot (up to `--peers-in-flight` ×
        // `--jobs` of them) must not each hold one (docs/performance.md,
        // round 5).
        let slot = match planned.not_run {
            // A run that will not run needs no slot.
            Some(_) => None,
            None => tokio::select! {
                slot = self.slots.acquire() => slot.ok(),
                () = options.cancel.cancelled() => {
                    let run = interrupted(&planned);
                    self.progress.run_finished(self.card_url, &run);
                    return run;
                }
            },
        };
        // Moved out in a block of its own, so that the box is freed now,
        // not when this function's scope ends after the run.
        let planned = {
            let boxed = planned;
            *boxed
        };
        Box::pin(self.run_in_slot(planned, slot)).await
    }

    /// [`run`](Self::run) once it holds its slot (`None`: it needs none).
    async fn run_in_slot(
        &self,
        planned: Planned<'_>,
        _slot: Option<SemaphorePermit<'_>>,
    ) -> ScenarioReport {
        let options = self.options;
        let setup = match self.auth.for_run(&planned, self.client, options).await {
            Ok(setup) => setup,
            Err(e) => return errored(&planned, e.to_string()),
        };
        if planned.not_run.is_none() {
            self.progress.run_started(self.card_url, &planned.run_id);
        }
        let stopped = interrupted(&planned);
        // Dropping an unfinished run closes its connections and streams.
        let run = tokio::select! {
            run = execute(&setup, planned, options, self.search) => run,
            () = options.cancel.cancelled() => stopped,
        };
        self.progress.run_finished(self.card_url, &run);
        run
    }
}

/// Items finished in any order, put back in plan order.
pub(crate) fn in_plan_order<T>(mut finished: Vec<(usize, T)>) -> Vec<T> {
    finished.sort_unstable_by_key(|(position, _)| *position);
    finished.into_iter().map(|(_, item)| item).collect()
}
