//! Running a suite against peers: card discovery, gating and expansion of
//! scenarios, concurrent runs with retries, and the per-peer report.

pub mod capture;
pub mod context;
mod discover;
mod evidence;
mod options;
mod plan;
mod poll;
mod precondition;
mod push;
mod signature;
pub mod steps;
mod steps_card;
mod steps_protocol;
pub mod stream_end;
pub mod webhook;
pub mod window;

use crate::scenario::Suite;
use a2a_conform_client::{PeerClient, Transcript};
use a2a_conform_protocol::declaration::DeclarationId;
use a2a_conform_report::evidence::Evidence;
use a2a_conform_report::shard::Shard;
use a2a_conform_report::{
    ErrorKind, PeerReport, RunReport, ScenarioReport, ScenarioVerdict, ShardReport,
};
use context::{RunContext, StopKind};
pub use discover::{credentials_warning, fetch_card, CardUnavailable};
use futures_util::stream::{self, StreamExt};
use futures_util::FutureExt;
pub use options::*;
use plan::*;
pub use precondition::{
    search_peer, Source as PromptSource, BUILT_IN_PROMPTS,
    DEFAULT_BUDGET as DEFAULT_DISCOVER_BUDGET, INPUT_REQUIRED_VAR,
};
use std::sync::Arc;
use std::time::Instant;
pub use window::ProbeWindow;

/// Live progress for a person watching (a no-op for reports and tests).
/// Peers run concurrently, so every call names its peer by card URL (the
/// input as given until the card is read).
pub trait Progress: Send + Sync {
    /// Before the first peer: how many peers this check covers.
    fn check_started(&self, _peers: usize) {}
    /// A peer's card was read: its URL, the card's name, and its planned runs.
    fn peer_started(&self, _card_url: &str, _name: Option<&str>, _runs: usize) {}
    fn run_finished(&self, _card_url: &str, _run: &ScenarioReport) {}
    /// A peer is done (its report is final, a card error included).
    fn peer_finished(&self, _peer: &PeerReport) {}
    /// Every peer is done.
    fn check_finished(&self) {}
}

/// Progress that shows nothing.
pub struct Quiet;

impl Progress for Quiet {}

/// The message of a run that `options.cancel` stopped before it finished.
pub const INTERRUPTED: &str = "interrupted before the run finished";

/// One peer of a check: its URL and, from a fleet file, its own options
/// (profile, headers, credentials); `None` uses the check's.
#[derive(Clone)]
pub struct PeerTarget {
    pub input: String,
    pub options: Option<Arc<RunOptions>>,
}

impl PeerTarget {
    pub fn new(input: impl Into<String>) -> PeerTarget {
        PeerTarget {
            input: input.into(),
            options: None,
        }
    }
}

/// The most scenario runs in flight at once across all peers (or `--jobs`,
/// if more). A run in flight holds its connections, streams and evidence
/// (tens of KB), so `--peers-in-flight` × `--jobs` must not multiply
/// without bound: a peer's runs beyond it wait for a slot, first come
/// first served. 2,000 runs in flight measured about 230 MB with 1,000
/// peers in flight (docs/performance.md).
pub const MAX_RUNS_IN_FLIGHT: usize = 2_000;

/// Checks every peer against the suite. When `options.cancel` fires, runs in
/// flight stop and read `error` ([`INTERRUPTED`]), peers not yet reached
/// get a card error saying so, and the report is marked `interrupted`.
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
/// `options.jobs` runs in flight, and no more than [`MAX_RUNS_IN_FLIGHT`]
/// in all; whichever finishes first frees its slot, and the report keeps plan order (peers as given, runs as planned). One
/// peer's failure (unreachable, malformed card) is its own card error and
/// never stops the others. Under `options.shard` only this shard's slice
/// runs: its peers, or its runs when the check covers one peer.
pub async fn check_fleet(
    targets: &[PeerTarget],
    suite: &Suite,
    options: &RunOptions,
    progress: &dyn Progress,
) -> RunReport {
    let mut report = RunReport::new(Vec::new());
    let started = std::time::Instant::now();
    let single = targets.len() == 1;
    let kept: Vec<&PeerTarget> = targets
        .iter()
        .enumerate()
        .filter(|(i, _)| single || options.shard.is_none_or(|s| s.keeps(*i)))
        .map(|(_, t)| t)
        .collect();
    let run_shard = options.shard.filter(|_| single);
    progress.check_started(kept.len());
    let slots = &tokio::sync::Semaphore::new(options.jobs.max(MAX_RUNS_IN_FLIGHT));
    let mut peers: Vec<(usize, PeerReport)> =
        stream::iter(kept.into_iter().enumerate().map(|(position, target)| {
            let peer_options = target.options.as_deref().unwrap_or(options);
            async move {
                let started = std::time::Instant::now();
                let mut peer = if options.cancel.is_cancelled() {
                    PeerReport {
                        card_error: Some("interrupted before this peer was checked".into()),
                        ..PeerReport::new(target.input.clone())
                    }
                } else {
                    // A bug one peer's answers trigger must not lose the other
                    // peers' reports: the panic becomes this peer's card error.
                    std::panic::AssertUnwindSafe(check_peer(
                        &target.input,
                        suite,
                        peer_options,
                        run_shard,
                        slots,
                        progress,
                    ))
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
                            ..PeerReport::new(target.input.clone())
                        }
                    })
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
    report.peers = in_plan_order(std::mem::take(&mut peers));
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

/// SHA-256 over what decides a plan besides the card: the suite's scenarios,
/// the `--scenario`/`--skip` selection, the variables and the expansion cap. Shards of one
/// check share it; `merge` refuses reports whose digests differ.
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

async fn check_peer(
    input: &str,
    suite: &Suite,
    options: &RunOptions,
    shard: Option<Shard>,
    slots: &tokio::sync::Semaphore,
    progress: &dyn Progress,
) -> PeerReport {
    let fetched = tokio::select! {
        fetched = fetch_card(input, options) => fetched,
        () = options.cancel.cancelled() => Err(discover::CardUnavailable {
            card_url: input.to_string(),
            reason: "interrupted while fetching the card".to_string(),
        }),
    };
    let card = match fetched {
        Ok(card) => card,
        Err(discover::CardUnavailable { card_url, reason }) => {
            return PeerReport {
                card_error: Some(reason),
                ..PeerReport::new(card_url)
            }
        }
    };
    let options = &options.for_card(&card);
    let endpoint = card.endpoint.url.clone();
    let mut report = PeerReport {
        name: Some(card.name.clone()),
        card_digest: Some(card.digest.clone()),
        protocol_version: Some(card.protocol_version().as_str().into()),
        binding: Some(card.binding().as_str().into()),
        endpoint: Some(card.endpoint.shown_target().to_string()),
        card_warnings: card.warnings.clone(),
        ..PeerReport::new(card.fetched_from.clone())
    };
    // The card's security schemes: credentials per run (per skill), and a
    // first token fetched now so that a broken token endpoint is a card
    // warning before any run reads unverified because of it.
    let auth = a2a_conform_client::auth::PeerAuth::new(
        &card,
        &options.client,
        options.auth.clone(),
        options.issued.clone(),
    );
    let card_auth = auth.before_runs().await;
    report.card_warnings.extend(auth.warnings());
    if let Some(trouble) = &card_auth.trouble {
        report
            .card_warnings
            .push(options.redactor_with_issued().redact(trouble));
    }
    if let Some(warning) = credentials_warning(&card, &card_auth.config) {
        report.card_warnings.push(warning);
    }
    let window = probe_window(&card, options);
    if let Some(warning) = window.and_then(|w| w.warning()) {
        report.card_warnings.push(warning);
    }
    let client = url::Url::parse(&endpoint)
        .map_err(|e| format!("the card's endpoint `{endpoint}` is not a URL: {e}"))
        .and_then(|url| {
            PeerClient::new(
                url,
                card.protocol_version(),
                card.binding(),
                options.client.clone(),
            )
            .map_err(|e| e.to_string())
        });
    let client = match client {
        Ok(c) => c,
        Err(message) => {
            report.card_error = Some(message);
            return report;
        }
    };
    let plan: Vec<Planned<'_>> = plan_runs(&card, suite, options)
        .into_iter()
        .enumerate()
        .filter(|(position, _)| shard.is_none_or(|s| s.keeps(*position)))
        .map(|(_, planned)| planned)
        .collect();
    progress.peer_started(&report.card_url, Some(&card.name), plan.len());
    // The search sends what the runs send: the credentials of the card's
    // own requirement (a secured peer refuses a prompt without them).
    let secured_client = auth
        .is_active()
        .then(|| {
            PeerClient::new(
                client.endpoint.clone(),
                client.version,
                client.binding,
                card_auth.config.clone(),
            )
            .ok()
        })
        .flatten();
    let search = precondition::Search::new(
        secured_client.as_ref().unwrap_or(&client),
        &card,
        options.discover_budget,
        options.redactor.clone(),
    );
    let search = &search;
    let client = &client;
    let auth = &auth;
    let card_url = report.card_url.as_str();
    let runs = stream::iter(
        plan.into_iter()
            .enumerate()
            .map(|(position, planned)| async move {
                if options.cancel.is_cancelled() && planned.not_run.is_none() {
                    return (position, interrupted(&planned));
                }
                // A secured card: the run's own credentials (its skill's
                // requirement), tokens fresh, their requests in its evidence.
                let run_auth = match planned.not_run {
                    None if auth.is_active() => Some(auth.for_run(run_skill(&planned)).await),
                    _ => None,
                };
                let run_options;
                let options = match &run_auth {
                    Some(run_auth) => {
                        run_options = RunOptions {
                            redactor: options.redactor_with_issued(),
                            auth_evidence: run_auth.evidence.clone(),
                            ..options.clone()
                        };
                        &run_options
                    }
                    None => options,
                };
                let config = run_auth.as_ref().map_or(&options.client, |a| &a.config);
                let own_client;
                let client = match (&planned.interface, &run_auth) {
                    (Some(interface), _) if planned.not_run.is_none() => {
                        match interface_client(interface, config) {
                            Ok(c) => {
                                own_client = c;
                                &own_client
                            }
                            Err(e) => return (position, errored(planned, e.to_string())),
                        }
                    }
                    (None, Some(_)) => {
                        match PeerClient::new(
                            client.endpoint.clone(),
                            client.version,
                            client.binding,
                            config.clone(),
                        ) {
                            Ok(c) => {
                                own_client = c;
                                &own_client
                            }
                            Err(e) => return (position, errored(planned, e.to_string())),
                        }
                    }
                    _ => client,
                };
                // Dropping an unfinished run closes its connections and streams.
                let shell = blank_report(&planned);
                let run = tokio::select! {
                    run = async {
                        // A run that will not run needs no slot.
                        let _slot = match planned.not_run {
                            None => slots.acquire().await.ok(),
                            Some(_) => None,
                        };
                        execute(client, planned, options, search).await
                    } => run,
                    () = options.cancel.cancelled() => ScenarioReport {
                        verdict: ScenarioVerdict::Error,
                        error_kind: Some(ErrorKind::Tool),
                        message: INTERRUPTED.into(),
                        ..shell
                    },
                };
                progress.run_finished(card_url, &run);
                (position, run)
            }),
    )
    // Unordered: a slot frees as soon as any run ends, not only the oldest.
    .buffer_unordered(options.jobs.max(1));
    let runs = in_plan_order(runs.collect().await);
    report.preconditions = search.report().await;
    report.declarations =
        a2a_conform_report::verdict::judge_declarations(&card.declarations(), &runs);
    report.scenarios = runs;
    report
}

/// Runs finished in any order, put back in plan order.
fn in_plan_order<T>(mut finished: Vec<(usize, T)>) -> Vec<T> {
    finished.sort_unstable_by_key(|(position, _)| *position);
    finished.into_iter().map(|(_, item)| item).collect()
}

/// The skill a run verifies something of, whose security requirement (if
/// it has its own) governs the run's credentials.
fn run_skill<'p>(planned: &'p Planned<'_>) -> Option<&'p str> {
    planned.verifies.iter().find_map(DeclarationId::skill)
}

/// A client for one declared interface (`for_each: interfaces`).
fn interface_client(
    interface: &a2a_conform_protocol::card::Interface,
    config: &a2a_conform_client::client::ClientConfig,
) -> Result<PeerClient, InterfaceClientError> {
    let (Some(version), Some(binding)) = (interface.protocol_version, interface.binding) else {
        return Err(InterfaceClientError::NoBinding(interface.url.clone()));
    };
    let url = url::Url::parse(&interface.url).map_err(|source| InterfaceClientError::NotAUrl {
        url: interface.url.clone(),
        source,
    })?;
    Ok(PeerClient::new(url, version, binding, config.clone())?)
}

/// Why no client could be made for a declared interface (the run is an
/// `error`: tool trouble, not the peer's).
#[derive(Debug, thiserror::Error)]
enum InterfaceClientError {
    #[error("the interface at {0} has no usable binding")]
    NoBinding(String),
    #[error("the interface URL `{url}` is not a URL: {source}")]
    NotAUrl {
        url: String,
        source: url::ParseError,
    },
    #[error(transparent)]
    Client(#[from] a2a_conform_client::client::ClientError),
}

/// A run that could not start: tool trouble, reported as `error`.
fn errored(planned: Planned<'_>, message: String) -> ScenarioReport {
    ScenarioReport {
        verdict: ScenarioVerdict::Error,
        error_kind: Some(ErrorKind::Tool),
        message,
        ..blank_report(&planned)
    }
}

/// A run the interruption stopped before it started.
fn interrupted(planned: &Planned<'_>) -> ScenarioReport {
    ScenarioReport {
        verdict: ScenarioVerdict::Error,
        error_kind: Some(ErrorKind::Tool),
        message: INTERRUPTED.into(),
        ..blank_report(planned)
    }
}

/// A run's report before it ran: `skipped`, no attempts.
fn blank_report(planned: &Planned<'_>) -> ScenarioReport {
    ScenarioReport {
        id: planned.run_id.clone(),
        scenario: planned.scenario.id().to_string(),
        title: planned.scenario.def.title.clone(),
        verdict: ScenarioVerdict::Skipped,
        verifies: planned.verifies.iter().map(ToString::to_string).collect(),
        duration_ms: 0,
        message: String::new(),
        error_kind: None,
        attempts: 0,
        failed_attempts: vec![],
        baselined: false,
        baseline_reason: None,
        evidence: vec![],
    }
}

async fn execute(
    client: &PeerClient,
    mut planned: Planned<'_>,
    options: &RunOptions,
    search: &precondition::Search<'_>,
) -> ScenarioReport {
    let mut report = blank_report(&planned);
    match planned.not_run.clone() {
        Some(NotRun::Skip(reason)) => {
            report.message = reason;
            return report;
        }
        Some(NotRun::Error(message)) => return errored(planned, message),
        None => {}
    }
    let started = Instant::now();
    // Why the input prompt stayed unset, for the run's message.
    let mut not_found = None;
    // Whether the last attempt stopped because the task finished too early.
    let mut finished_early;
    if planned.search_input && search.enabled() {
        let skill = planned
            .vars
            .get("skill")
            .cloned()
            .flatten()
            .filter(|s| !s.is_empty());
        match search.prompt_for(skill.as_deref(), &planned.run_id).await {
            precondition::Outcome::Found(candidate) => {
                planned
                    .vars
                    .insert(INPUT_REQUIRED_VAR.into(), Some(candidate.text));
            }
            precondition::Outcome::NotFound(why) => not_found = Some(why),
            precondition::Outcome::Error(kind, message) => {
                return ScenarioReport {
                    verdict: ScenarioVerdict::Error,
                    error_kind: Some(kind),
                    message,
                    duration_ms: started.elapsed().as_millis() as u64,
                    ..report
                };
            }
        }
    }
    // Every failed attempt's message; the first failure's evidence.
    let mut failures: Vec<String> = Vec::new();
    let mut first_evidence: Vec<Evidence> = Vec::new();
    loop {
        report.attempts += 1;
        let (verdict, message, evidence, early) = run_once(client, &planned, options).await;
        finished_early = early;
        let (verdict, error_kind) = verdict;
        if verdict == ScenarioVerdict::Fail && report.attempts <= options.retries {
            if failures.is_empty() {
                first_evidence = evidence;
            }
            failures.push(message);
            continue;
        }
        match verdict {
            ScenarioVerdict::Pass if !failures.is_empty() => {
                report.verdict = ScenarioVerdict::Flaky;
                report.message = format!(
                    "passed on attempt {} after failing: {}",
                    report.attempts, failures[0]
                );
                report.evidence = std::mem::take(&mut first_evidence);
            }
            _ => {
                report.verdict = verdict;
                report.error_kind = error_kind;
                report.message = message;
                if verdict != ScenarioVerdict::Pass || options.keep_passing_evidence {
                    report.evidence = evidence;
                }
            }
        }
        report.failed_attempts = failures;
        break;
    }
    if let (true, Some(variable)) = (finished_early, planned.retry_work) {
        retry_with_examples(client, &mut planned, options, search, variable, &mut report).await;
    }
    if let Some(why) = not_found.filter(|_| report.verdict == ScenarioVerdict::Inconclusive) {
        report.message = format!("{why}: {}", report.message);
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

/// A run that stopped because its task finished before the check could act
/// (the cancel came too late, the stream's first event was already final):
/// the card's examples are tried, within the peer's discovery budget, for
/// one that keeps a task working; the first that gets past the precondition
/// decides the run, else it stays inconclusive, saying what was tried.
async fn retry_with_examples(
    client: &PeerClient,
    planned: &mut Planned<'_>,
    options: &RunOptions,
    search: &precondition::Search<'_>,
    variable: &'static str,
    report: &mut ScenarioReport,
) {
    if !search.enabled() {
        return;
    }
    let used = planned.vars.get(variable).cloned().flatten();
    let mut tried = Vec::new();
    let mut out_of_budget = false;
    for candidate in search.work_candidates(used.as_deref()) {
        if !search.take_task().await {
            out_of_budget = true;
            break;
        }
        planned
            .vars
            .insert(variable.to_string(), Some(candidate.text.clone()));
        if variable == "prompt" {
            // `prompt_long` defaults to `prompt`: keep them together.
            planned
                .vars
                .insert("prompt_long".into(), Some(candidate.text.clone()));
        }
        let ((verdict, error_kind), message, evidence, early) =
            run_once(client, planned, options).await;
        let got_past = !early;
        tried.push((candidate, message.clone(), got_past));
        if got_past {
            report.verdict = verdict;
            report.error_kind = error_kind;
            report.message = message;
            report.evidence = if verdict != ScenarioVerdict::Pass || options.keep_passing_evidence {
                evidence
            } else {
                Vec::new()
            };
            break;
        }
    }
    if tried.is_empty() && !out_of_budget {
        return;
    }
    if !tried.iter().any(|t| t.2) {
        report.message = format!(
            "{}; no example the card offers kept a task working longer ({} tried{})",
            report.message,
            tried.len(),
            if out_of_budget {
                "; the --discover-budget is spent"
            } else {
                ""
            }
        );
    }
    search
        .record_work(variable, &planned.run_id, tried, out_of_budget)
        .await;
}

/// Whether a run verifies only `interfaces[…]` declarations.
fn verifies_interfaces(planned: &Planned<'_>) -> bool {
    !planned.verifies.is_empty()
        && planned
            .verifies
            .iter()
            .all(|d| matches!(d, DeclarationId::Interface { .. }))
}

/// One attempt: the verdict, its message, the evidence, and whether it
/// stopped because the task had already finished
/// ([`precondition::stopped_early`]).
async fn run_once(
    client: &PeerClient,
    planned: &Planned<'_>,
    options: &RunOptions,
) -> (
    (ScenarioVerdict, Option<ErrorKind>),
    String,
    Vec<Evidence>,
    bool,
) {
    let transcript = Transcript::new(options.redactor.clone());
    for line in &options.auth_evidence {
        transcript.note(line.clone());
    }
    let mut ctx = RunContext::new(client, transcript.clone(), planned.vars.clone());
    ctx.clamped_window = planned.clamped_window;
    ctx.signing = planned.signed_card.clone().map(|card| context::Signing {
        card,
        trusted: options.trusted_keys.clone(),
    });
    ctx.card = planned.card.clone();
    ctx.strict = options.strict;
    let steps = &planned.scenario.def.steps;
    let outcome = tokio::time::timeout(MAX_RUN, async {
        for (index, step) in steps.iter().enumerate() {
            if let Err(stop) = ctx.step(&step.value).await {
                return Err((index, stop));
            }
        }
        Ok(())
    })
    .await;
    let finished_early = matches!(
        &outcome,
        Ok(Err((index, stop))) if stop.kind == StopKind::Inconclusive
            && precondition::stopped_early(&ctx, &steps[*index].value)
    );
    let (verdict, message) = match outcome {
        Err(_) => (
            (ScenarioVerdict::Error, Some(ErrorKind::Tool)),
            format!(
                "the run took longer than {} and was stopped",
                a2a_conform_protocol::text::human_duration(MAX_RUN)
            ),
        ),
        Ok(Ok(())) => (
            (ScenarioVerdict::Pass, None),
            format!("all {} steps passed", steps.len()),
        ),
        Ok(Err((index, mut stop))) => {
            let verdict = match stop.kind {
                StopKind::Fail => (ScenarioVerdict::Fail, None),
                StopKind::Inconclusive => (ScenarioVerdict::Inconclusive, None),
                // An `interfaces[…]` row promises A2A at its URL: nothing
                // served there is the very promise broken, so the run fails.
                StopKind::Error(ErrorKind::NotServed) if verifies_interfaces(planned) => {
                    stop.message = context::not_served_message(&stop.message);
                    (ScenarioVerdict::Fail, None)
                }
                StopKind::Error(kind) => (ScenarioVerdict::Error, Some(kind)),
            };
            let step = &steps[index];
            transcript.note(format!(
                "step {} `{}` ({}:{}): {}",
                index + 1,
                step.value.name(),
                planned.scenario.file,
                step.referenced.line(),
                stop.message
            ));
            // The run's own secrets (a push token) too, not only the peer's.
            (verdict, transcript.redact(&stop.message))
        }
    };
    drop(ctx);
    (
        verdict,
        message,
        evidence::from_records(transcript.take_entries()),
        finished_early,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::card::{self, BindingChoice, Card, ProtocolChoice};
    use a2a_conform_protocol::declaration::DeclarationId;

    fn card(extra: &str) -> Card {
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",{extra}
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{"streaming":true}},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":[{{"id":"s","name":"s","description":"d","tags":["t"],"inputModes":["image/png"]}}]}}"#
        );
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses")
    }

    #[test]
    fn probe_window_is_twice_a_declared_default_timeout_else_15s() {
        let suite = Suite::default();
        let options = RunOptions::default();
        let vars = base_vars(&card(r#""defaultTimeout": 10,"#), &suite, &options);
        assert_eq!(vars["probe_window"].as_deref(), Some("20s"));
        let vars = base_vars(&card(""), &suite, &options);
        assert_eq!(vars["probe_window"].as_deref(), Some("15s"));
    }

    #[test]
    fn flags_override_defaults_and_an_empty_value_unsets() {
        let mut options = RunOptions::default();
        options.vars.insert("probe_window".into(), "3s".into());
        options.vars.insert("prompt".into(), "hi there".into());
        options.vars.insert("task_window".into(), String::new());
        let vars = base_vars(
            &card(r#""defaultTimeout": 10,"#),
            &Suite::default(),
            &options,
        );
        assert_eq!(vars["probe_window"].as_deref(), Some("3s"));
        assert_eq!(vars["task_window"], None);
        assert_eq!(vars["prompt_long"].as_deref(), Some("hi there"));
        assert_eq!(vars["prompt_input_required"], None);
    }

    #[test]
    fn input_modes_expand_per_declaration_with_skill_labels() {
        let suite = Suite::embedded().unwrap();
        let plan = plan_runs(&card(""), &suite, &RunOptions::default());
        let ids: Vec<&str> = plan.iter().map(|p| p.run_id.as_str()).collect();
        assert!(ids.contains(&"input-mode-resume[text/plain]"), "{ids:?}");
        assert!(ids.contains(&"input-mode-resume[s:image/png]"), "{ids:?}");
        let run = plan
            .iter()
            .find(|p| p.run_id == "input-mode-resume[s:image/png]")
            .unwrap();
        assert_eq!(
            run.verifies,
            vec!["skills[s].inputModes[image/png]"
                .parse::<DeclarationId>()
                .unwrap()]
        );
        let refused = plan
            .iter()
            .find(|p| p.run_id == "streaming-refused-when-undeclared")
            .unwrap();
        assert_eq!(
            refused.not_run,
            Some(NotRun::Skip(
                "the card declares capabilities.streaming".into()
            ))
        );
    }

    #[test]
    fn for_each_runs_past_the_family_cap_are_skipped_with_the_flag_named() {
        let modes: Vec<String> = (0..10).map(|n| format!("\"a/{n}\"")).collect();
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "skills":[{{"id":"s","name":"s","description":"d","tags":["t"],"inputModes":[{}]}}]}}"#,
            modes.join(",")
        );
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let suite = Suite::embedded().unwrap();
        let options = RunOptions {
            max_runs_per_family: 4,
            ..RunOptions::default()
        };
        let plan = plan_runs(&card, &suite, &options);
        let family: Vec<&Planned> = plan
            .iter()
            .filter(|p| p.run_id.starts_with("input-mode-resume["))
            .collect();
        assert_eq!(family.len(), 11, "text/plain and ten skill modes");
        let over: Vec<&&Planned> = family.iter().filter(|p| p.not_run.is_some()).collect();
        assert_eq!(over.len(), 7);
        match &over[0].not_run {
            Some(NotRun::Skip(reason)) => assert_eq!(
                reason,
                "over the cap of 4 runs per declaration family for `input-mode-resume`; \
                 raise it with --max-runs-per-family"
            ),
            other => panic!("{other:?}"),
        }
        assert!(over
            .iter()
            .all(|p| p.vars.is_empty() && p.verifies.len() == 1));
        let unfamilied = plan.iter().filter(|p| p.scenario.def.for_each.is_none());
        assert!(unfamilied
            .filter_map(|p| p.not_run.as_ref())
            .all(|n| !format!("{n:?}").contains("over the cap")));
    }

    #[test]
    fn interfaces_the_tool_cannot_speak_still_get_a_row_and_a_skipped_run() {
        let body = r#"{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[
              {"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
              {"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"},
              {"url":"127.0.0.1:50052","protocolBinding":"GRPC","protocolVersion":"0.3"},
              {"url":"http://127.0.0.1:9/v03","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}],
            "capabilities":{},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":[]}"#;
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let rows: Vec<String> = card
            .declarations()
            .into_iter()
            .filter(|d| d.declared)
            .map(|d| d.id.to_string())
            .collect();
        for id in [
            "interfaces[JSONRPC 1.0]",
            "interfaces[GRPC 1.0]",
            "interfaces[GRPC 0.3]",
            "interfaces[HTTP+JSON 0.3]",
        ] {
            assert!(rows.iter().any(|r| r == id), "{id} missing from {rows:?}");
        }
        let suite = Suite::embedded().unwrap();
        let plan = plan_runs(&card, &suite, &RunOptions::default());
        let not_run = |run_id: &str| {
            plan.iter()
                .find(|p| p.run_id == run_id)
                .unwrap_or_else(|| panic!("{run_id} not planned"))
                .not_run
                .clone()
        };
        assert_eq!(not_run("interface-served[JSONRPC 1.0]"), None);
        assert_eq!(not_run("interface-served[GRPC 1.0]"), None);
        assert_eq!(not_run("interface-served[HTTP+JSON 0.3]"), None);
        for (run_id, named) in [("interface-served[GRPC 0.3]", "(GRPC 0.3)")] {
            match not_run(run_id) {
                Some(NotRun::Skip(reason)) => {
                    assert!(
                        reason.starts_with("binding not supported by this version")
                            && reason.ends_with(named),
                        "{run_id}: {reason}"
                    )
                }
                other => panic!("{run_id}: {other:?}"),
            }
        }
    }
}
