//! `watch`: the check of `check --peers`, prepared once and run every
//! `--every` by the loop of `a2a-conform-watch` (each peer at its stable
//! jitter offset), each cycle's report recorded in the history database and
//! its regressions POSTed to `--alert-webhook`. SIGTERM ends the watch with
//! 0, SIGINT with 130 (as `check`), and a cycle they cut short is not
//! recorded; the alerts of a recorded cycle still being sent are abandoned
//! (the record stays).

use super::check::{check_once, fleet_setup, prepare, watch_signals, Interruption, Prepared};
use super::output::{finish, progress_mode, Outputs};
use crate::cli::{AlertFormatArg, RunArgs, WatchArgs};
use crate::config::ConfigFile;
use crate::error::{AppError, UsageError};
use crate::progress::TerminalProgress;
use crate::settings::Sources;
use a2a_conform_history::Store;
use a2a_conform_report::{exit, RunReport};
use a2a_conform_watch::alert::{Format, Retry};
use a2a_conform_watch::cycle::{self, Alerts, Checker, Plan};
use a2a_conform_watch::schedule;
use std::time::Duration;
use url::Url;

/// The engine's check of the fleet, one call a cycle.
struct EngineCycles<'a> {
    plan: &'a Prepared,
    args: &'a RunArgs,
    outputs: Outputs<'a>,
    progress: TerminalProgress,
}

impl Checker for EngineCycles<'_> {
    async fn check(&mut self, cycle: i64) -> Option<RunReport> {
        eprintln!(
            "watch: cycle {cycle}: checking {} peer(s)",
            self.plan.targets.len()
        );
        match check_once(self.plan, self.args, &self.progress).await {
            Ok(report) => {
                // --json/--junit/--markdown hold the latest cycle's report.
                if let Err(e) = finish(&report, self.args, &self.outputs) {
                    e.print();
                }
                Some(report)
            }
            // A report that cannot be redacted is never stored.
            Err(e) => {
                e.print();
                None
            }
        }
    }
}

/// Opens (and migrates) the store on a blocking thread: the PostgreSQL
/// client blocks.
pub(super) async fn open_store(url: &str) -> Result<Store, AppError> {
    let url = url.to_string();
    tokio::task::spawn_blocking(move || Store::open(&url))
        .await
        .map_err(|e| AppError::History(e.to_string()))?
        .map_err(|e| AppError::History(e.to_string()))
}

/// `text` as an http or https URL with a host, for `flag`; else a usage
/// error that shows neither the value nor any part of it (not even its
/// scheme: a pasted token may read as one).
fn http_url(flag: &'static str, text: &str) -> Result<Url, UsageError> {
    let refuse = |reason: &str| UsageError::NotHttpUrl {
        flag,
        reason: reason.to_string(),
    };
    if text.trim().is_empty() {
        return Err(refuse("it is empty"));
    }
    // url's messages ("invalid port number", "empty host") quote nothing.
    let url = Url::parse(text).map_err(|e| refuse(&e.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refuse("its scheme is neither http nor https"));
    }
    if url.host().is_none() {
        return Err(refuse("it has no host"));
    }
    Ok(url)
}

pub(super) async fn watch(
    args: WatchArgs,
    config: Option<&ConfigFile>,
    sources: &Sources,
) -> Result<i32, AppError> {
    // Before anything else: a bad URL must not wait for the first regression.
    let webhook = args
        .alert_webhook
        .as_deref()
        .map(|u| http_url("--alert-webhook", u))
        .transpose()?;
    let evidence_base = args
        .evidence_base
        .as_deref()
        .map(|u| http_url("--evidence-base", u))
        .transpose()?;
    let run = &args.check.run;
    let (inputs, setup) = fleet_setup(&args.check, config, sources)?;
    let mut plan = prepare(&inputs, run, setup)?;
    // Each peer at its stable place in the window, the earliest first, so
    // a peer waiting for its offset does not hold a slot an earlier one needs.
    let window = schedule::window(args.every);
    for target in &mut plan.targets {
        target.start_after = schedule::jitter(&target.input, window);
    }
    plan.targets.sort_by_key(|t| t.start_after);
    let store = open_store(&args.db).await?;
    let alerts = match webhook {
        None => None,
        Some(url) => Some(Alerts {
            url,
            format: match args.alert_format {
                AlertFormatArg::Json => Format::Json,
                AlertFormatArg::Slack => Format::Slack,
            },
            evidence_base,
            redactor: plan.options.redactor_with_issued().as_ref().clone(),
            retry: Retry::default(),
            // Alerts carry evidence: a redirect is never followed, so they
            // go to the URL given and nowhere else (a 3xx is undelivered).
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| AppError::Peer(format!("cannot build the alert client: {e}")))?,
        }),
    };
    let schedule = Plan {
        every: args.every,
        cycles: args.cycles,
        retention: args.retention,
        alerts,
    };
    let mut checker = EngineCycles {
        plan: &plan,
        args: run,
        outputs: Outputs::new(&run.reports),
        progress: TerminalProgress::new(progress_mode(&run.output)),
    };
    let stop = plan.options.cancel.clone();
    let (caught, watcher) = watch_signals(stop.clone());
    let mut notify = |line: String| eprintln!("{line}");
    let summary = cycle::run(store, &schedule, &mut checker, &stop, &mut notify).await;
    watcher.abort();
    let summary = summary.map_err(|e| AppError::History(e.to_string()))?;
    let signal = caught.get().copied();
    let abandoned = match summary.alerts.abandoned {
        0 => String::new(),
        n => format!(" ({n} abandoned at the stop)"),
    };
    eprintln!(
        "watch: {} cycle(s) recorded, {} alert(s) sent, {} undelivered{abandoned}{}",
        summary.cycles,
        summary.alerts.sent,
        summary.alerts.undelivered(),
        signal.map_or(String::new(), |s| format!("; stopped by {}", s.name()))
    );
    Ok(match signal {
        Some(Interruption::Sigint) => exit::INTERRUPTED,
        Some(Interruption::Sigterm) | None => exit::OK,
    })
}
