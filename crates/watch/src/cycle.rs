//! The watch loop: wait until the next cycle is due (from the last record
//! in the store, so a restart resumes the schedule), run one check of the
//! fleet through a [`Checker`] (the CLI's engine; this crate stays free of
//! it), record the report, POST one alert per regression, prune old
//! reports, and repeat — until `cycles` ran or the stop token is
//! cancelled. A cycle the stop interrupted is abandoned, not recorded: a
//! half-checked fleet would read as peers gone unverified.

use crate::alert::{self, Alert, Delivery, Format, Retry};
use crate::schedule;
use a2a_conform_client::redact::Redactor;
use a2a_conform_history::{RecordId, Regression, Store};
use a2a_conform_report::RunReport;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio_util::sync::CancellationToken;
use url::Url;

/// One check of the whole fleet, as the CLI runs it.
pub trait Checker {
    /// Checks every peer once (each at its [`schedule::jitter`] offset
    /// from the start) and returns the redacted report; a report marked
    /// `interrupted` is abandoned by the loop, and `None` (the checker
    /// could not produce a report it may store, and said why) skips the
    /// cycle's recording.
    fn check(&mut self, cycle: i64) -> impl std::future::Future<Output = Option<RunReport>>;
}

/// Where and how alerts are sent.
#[derive(Debug, Clone)]
pub struct Alerts {
    /// The webhook's URL, http or https (never printed: a Slack webhook
    /// URL is a secret).
    pub url: Url,
    /// The body's shape.
    pub format: Format,
    /// A dashboard's URL: the evidence link is its page of the peer at the record (`BASE/peer/{peer}?record=N`).
    pub evidence_base: Option<Url>,
    /// Masks every secret in a body.
    pub redactor: Redactor,
    /// Attempts and backoff per alert.
    pub retry: Retry,
    /// The HTTP client alerts are POSTed with.
    pub client: reqwest::Client,
}

/// What the watch runs with.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The period between cycles' starts.
    pub every: Duration,
    /// Stop after this many cycles (`None`: until stopped).
    pub cycles: Option<u64>,
    /// Drop stored reports of checks older than this after each cycle.
    pub retention: Option<Duration>,
    /// Where regressions are sent, if anywhere.
    pub alerts: Option<Alerts>,
}

/// How a watch ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Cycles this run finished: recorded, or skipped when the checker
    /// had no report it could store.
    pub cycles: u64,
    /// Whether the stop token ended it (rather than `cycles`).
    pub stopped: bool,
    /// Alerts sent, given up on and abandoned at a stop, over every cycle.
    pub alerts: Delivery,
}

/// A failure of the store: the one thing that stops a watch.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The history store refused a read or a write.
    #[error("history store: {0}")]
    History(#[from] a2a_conform_history::Error),
    /// The blocking thread the store runs on was lost.
    #[error("history store: its thread ended: {0}")]
    Thread(String),
}

/// The store, shared with the blocking threads it runs on.
#[derive(Clone)]
struct Shared(Arc<Mutex<Store>>);

impl Shared {
    async fn call<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Store) -> Result<T, a2a_conform_history::Error> + Send + 'static,
    ) -> Result<T, Error> {
        let store = self.0.clone();
        let answer = tokio::task::spawn_blocking(move || {
            let mut store = store
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&mut store)
        })
        .await
        .map_err(|e| Error::Thread(e.to_string()))?;
        Ok(answer?)
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// How long until the next cycle is due, given the store's latest record.
/// A report's `started_at` is whole seconds, so the start is taken as the
/// end of its second: a restart waits at least the period, never less.
fn due_in(every: Duration, last_started_ms: Option<i64>) -> Duration {
    let since = last_started_ms.map(|at| {
        let at = at.saturating_add(999);
        Duration::from_millis(u64::try_from(now_ms().saturating_sub(at)).unwrap_or(0))
    });
    schedule::next_due(every, since)
}

/// Runs the watch over `store` until `plan.cycles` cycles ran or `stop` is
/// cancelled; `notify` gets each line for the operator (stderr). Only a
/// store failure is an `Err`; an unreachable webhook is counted.
pub async fn run<C: Checker>(
    store: Store,
    plan: &Plan,
    checker: &mut C,
    stop: &CancellationToken,
    notify: &mut dyn FnMut(String),
) -> Result<Summary, Error> {
    let store = Shared(Arc::new(Mutex::new(store)));
    // Dropped here like any store: the history crate closes a PostgreSQL
    // connection off the async thread itself.
    cycles(&store, plan, checker, stop, notify).await
}

async fn cycles<C: Checker>(
    store: &Shared,
    plan: &Plan,
    checker: &mut C,
    stop: &CancellationToken,
    notify: &mut dyn FnMut(String),
) -> Result<Summary, Error> {
    let mut summary = Summary::default();
    // This run's own last start, to the instant; the store's (whole
    // seconds) only for the first cycle after a restart.
    let mut started: Option<tokio::time::Instant> = None;
    loop {
        if plan.cycles.is_some_and(|n| summary.cycles >= n) {
            return Ok(summary);
        }
        let (records, last) = store.call(Store::latest).await?;
        let wait = match started {
            Some(at) => (at + plan.every).saturating_duration_since(tokio::time::Instant::now()),
            None => due_in(plan.every, last),
        };
        if !wait.is_zero() {
            notify(format!(
                "watch: cycle {} due in {}",
                records + 1,
                human(wait)
            ));
        }
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = stop.cancelled() => {}
        }
        if stop.is_cancelled() {
            summary.stopped = true;
            return Ok(summary);
        }
        started = Some(tokio::time::Instant::now());
        let Some(report) = checker.check(records + 1).await else {
            summary.cycles += 1;
            continue;
        };
        if report.interrupted || stop.is_cancelled() {
            notify(format!(
                "watch: cycle {} stopped before it finished: not recorded",
                records + 1
            ));
            summary.stopped = true;
            return Ok(summary);
        }
        let delivered = cycle_end(store, plan, report, stop, notify).await?;
        summary.alerts.add(delivered);
        summary.cycles += 1;
        if stop.is_cancelled() {
            summary.stopped = true;
            return Ok(summary);
        }
    }
}

/// Records a finished cycle's report, sends its regressions, prunes. The
/// record is announced before the alerts are sent: a stop during delivery
/// (which abandons the rest) leaves it stored, and the operator knows it.
async fn cycle_end(
    store: &Shared,
    plan: &Plan,
    report: RunReport,
    stop: &CancellationToken,
    notify: &mut dyn FnMut(String),
) -> Result<Delivery, Error> {
    let (record, regressions) = store
        .call(move |store| {
            let record = store.record(&report)?;
            // Every peer the report holds has it as its latest record.
            let found = store.regressions_at(record)?;
            Ok::<(RecordId, Vec<Regression>), _>((record, found))
        })
        .await?;
    notify(format!(
        "watch: cycle recorded as record {record}: {} regression(s)",
        regressions.len()
    ));
    let delivery = match &plan.alerts {
        Some(alerts) if !regressions.is_empty() => {
            let delivery = send(alerts, &regressions, stop).await;
            tell_delivery(record, delivery, notify);
            delivery
        }
        _ => Delivery::default(),
    };
    // A stopped watch leaves the pruning to the next cycle: it stops now.
    if let Some(keep) = plan.retention.filter(|_| !stop.is_cancelled()) {
        let pruned = store.call(move |store| store.prune(keep)).await?;
        if pruned > 0 {
            notify(format!("watch: --retention dropped {pruned} old report(s)"));
        }
    }
    Ok(delivery)
}

/// The lines for one record's alert delivery: what was sent, then what
/// was given up on and what a stop abandoned, if anything.
fn tell_delivery(record: RecordId, delivery: Delivery, notify: &mut dyn FnMut(String)) {
    notify(format!(
        "watch: record {record}: {} alert(s) sent",
        delivery.sent
    ));
    if delivery.failed > 0 {
        notify(format!(
            "watch: {} alert(s) could not be delivered to --alert-webhook this cycle",
            delivery.failed
        ));
    }
    if delivery.abandoned > 0 {
        notify(format!(
            "watch: {} alert(s) not delivered: the watch was stopped while sending them (record {record} is kept)",
            delivery.abandoned
        ));
    }
}

async fn send(alerts: &Alerts, regressions: &[Regression], stop: &CancellationToken) -> Delivery {
    let bodies: Vec<serde_json::Value> = regressions
        .iter()
        .map(|r| {
            Alert::from_regression(r, alerts.evidence_base.as_ref())
                .body(alerts.format, &alerts.redactor)
        })
        .collect();
    alert::deliver(&alerts.client, &alerts.url, &bodies, alerts.retry, stop).await
}

/// A duration as the operator reads it: whole seconds, or milliseconds
/// under one.
fn human(wait: Duration) -> String {
    if wait < Duration::from_secs(1) {
        format!("{} ms", wait.as_millis())
    } else {
        format!("{} s", wait.as_secs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport};

    const PEER: &str = "http://peer.example/.well-known/agent-card.json";

    /// Answers each cycle with the next verdict of its list.
    struct Scripted(Vec<DeclarationVerdict>);

    impl Checker for Scripted {
        async fn check(&mut self, _cycle: i64) -> Option<RunReport> {
            let verdict = self.0.remove(0);
            let row = DeclarationReport::builder("lifecycle.cancel", verdict).build();
            let peer = PeerReport::builder(PEER).declarations(vec![row]).build();
            Some(RunReport::new(vec![peer]))
        }
    }

    #[tokio::test]
    async fn cycles_are_recorded_and_a_restart_waits_for_the_next_due() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite:{}", dir.path().join("w.db").display());
        let plan = Plan {
            every: Duration::from_millis(200),
            cycles: Some(2),
            retention: None,
            alerts: None,
        };
        let stop = CancellationToken::new();
        let mut lines = Vec::new();
        let mut checker = Scripted(vec![DeclarationVerdict::Honoured; 2]);
        let store = Store::open(&url).expect("open");
        let summary = run(store, &plan, &mut checker, &stop, &mut |l| lines.push(l))
            .await
            .expect("watch");
        assert_eq!(summary.cycles, 2);
        assert!(!summary.stopped);
        let mut store = Store::open(&url).expect("open");
        assert_eq!(store.latest().expect("latest").0, 2);
        let history = store
            .intervals(PEER, "lifecycle.cancel")
            .expect("intervals");
        assert_eq!(history.len(), 1, "{history:?}");
        // A restart right away finds the next cycle not yet due.
        let (_, last) = store.latest().expect("latest");
        assert!(due_in(plan.every, last) > Duration::ZERO);
        assert!(
            lines.iter().any(|l| l.contains("cycle 2 due in")),
            "{lines:?}"
        );
    }

    #[tokio::test]
    async fn a_stop_before_the_cycle_records_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite:{}", dir.path().join("w.db").display());
        let plan = Plan {
            every: Duration::from_secs(3600),
            cycles: None,
            retention: None,
            alerts: None,
        };
        let stop = CancellationToken::new();
        stop.cancel();
        let mut checker = Scripted(vec![]);
        let store = Store::open(&url).expect("open");
        let summary = run(store, &plan, &mut checker, &stop, &mut |_| {})
            .await
            .expect("watch");
        assert_eq!((summary.cycles, summary.stopped), (0, true));
        assert_eq!(Store::open(&url).expect("open").latest().expect("n").0, 0);
    }
}
