//! `check` and `demo`: each peer's settings resolved (its own layers
//! between the env vars and the config file's top level), options and
//! suite loaded, peers checked with signals watched (a report is written
//! even when a CI timeout stops the run), the report redacted — or none
//! written — and finished.

use super::options::{
    check_names, check_peer_urls, check_wide, for_peer, load_suite, mock_protocol, redactor,
    run_top, secrets, PeerClients,
};
use super::output::{finish, progress_mode, Outputs};
use crate::cli::{CheckArgs, DemoArgs, RunArgs};
use crate::config::ConfigFile;
use crate::error::{AppError, UsageError};
use crate::fleet::{self, FleetPeer};
use crate::progress::TerminalProgress;
use crate::settings::{PeerLayer, Profiles, Resolved, Sources};
use a2a_conform_client::Redactor;
use a2a_conform_engine::runner::{self, RunOptions};
use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_report::baseline::Baseline;
use a2a_conform_report::exit;
use a2a_conform_report::shard::Shard;
use a2a_conform_report::{conclude, Rules, RunReport};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The signal that stopped a check, and the exit code it calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Interruption {
    Sigint,
    Sigterm,
}

impl Interruption {
    pub(super) fn exit_code(self) -> i32 {
        match self {
            Interruption::Sigint => exit::INTERRUPTED,
            Interruption::Sigterm => exit::TERMINATED,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Interruption::Sigint => "SIGINT",
            Interruption::Sigterm => "SIGTERM",
        }
    }
}

/// Cancels `cancel` on the first SIGINT or SIGTERM and records which one.
/// The handlers are installed before this returns, so a signal that
/// arrives once the check has started is never the default (fatal) one.
pub(super) fn watch_signals(
    cancel: CancellationToken,
) -> (Arc<OnceLock<Interruption>>, tokio::task::JoinHandle<()>) {
    let caught = Arc::new(OnceLock::new());
    let slot = caught.clone();
    #[cfg(unix)]
    let handlers = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    let task = tokio::spawn(async move {
        #[cfg(unix)]
        let which = {
            let (mut int, mut term) = handlers;
            tokio::select! {
                Some(()) = async { int.as_mut()?.recv().await } => Interruption::Sigint,
                Some(()) = async { term.as_mut()?.recv().await } => Interruption::Sigterm,
                else => return,
            }
        };
        #[cfg(not(unix))]
        let which = match tokio::signal::ctrl_c().await {
            Ok(()) => Interruption::Sigint,
            Err(_) => return,
        };
        let _ = slot.set(which);
        cancel.cancel();
    });
    (caught, task)
}

/// Where a check's peers find their own layers: a fleet entry (and the
/// profile it names, which replaces `--profile`), `--profile`, and the
/// config section naming the peer (and the profile it names).
pub(super) struct OwnLayers<'a> {
    pub(super) config: Option<&'a ConfigFile>,
    pub(super) profile: Option<PeerLayer>,
    pub(super) profiles: Profiles,
}

impl OwnLayers<'_> {
    /// The layers of the peer at `url`, most specific first.
    pub(super) fn of(
        &mut self,
        url: &str,
        entry: Option<(&str, &FleetPeer)>,
    ) -> Result<Vec<PeerLayer>, AppError> {
        let mut layers = Vec::new();
        let mut own_profile = false;
        if let Some((file, peer)) = entry {
            let origin = format!("peers file {file}, peer {url}");
            layers.extend(self.profiles.entry(origin, &peer.settings)?);
            own_profile = peer.profile.is_some();
        }
        if !own_profile {
            layers.extend(self.profile.clone());
        }
        if let Some(config) = self.config {
            layers.extend(config.section_layers(url, &mut self.profiles)?);
        }
        Ok(layers)
    }
}

pub(super) async fn check(
    args: CheckArgs,
    config: Option<&ConfigFile>,
    sources: &Sources,
) -> Result<i32, AppError> {
    let (inputs, setup) = fleet_setup(&args, config, sources)?;
    run_check(&inputs, &args.run, setup).await
}

/// The peers `check` (and each `watch` cycle) checks — CARD-URLs, then the
/// fleet file's — and their settings.
pub(super) fn fleet_setup(
    args: &CheckArgs,
    config: Option<&ConfigFile>,
    sources: &Sources,
) -> Result<(Vec<String>, CheckSetup), AppError> {
    let resolved = crate::config::resolve_peers(config, &args.peers)?;
    let fleet = match &args.peers_file {
        Some(path) => fleet::load(path)?,
        None => Vec::new(),
    };
    let mut inputs = resolved.urls.clone();
    inputs.extend(fleet.iter().map(|p| p.url.clone()));
    check_peer_urls(&inputs)?;
    let mut profiles = Profiles::default();
    let profile = args
        .run
        .profile
        .as_deref()
        .map(|path| profiles.layer(path))
        .transpose()?;
    let mut own = OwnLayers {
        config,
        profile,
        profiles,
    };
    let mut layers = Vec::new();
    for url in &resolved.urls {
        layers.push(own.of(url, None)?);
    }
    let file = args
        .peers_file
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    for peer in &fleet {
        layers.push(own.of(&peer.url, Some((&file, peer)))?);
    }
    // A peer whose layers are the check's own shares the check's options.
    let check_layers: Vec<PeerLayer> = own.profile.into_iter().collect();
    let top = run_top(&args.run, sources)?;
    let setup = CheckSetup {
        peers_in_flight: usize::from(args.peers_in_flight),
        shard: args.shard,
        own: layers
            .iter()
            .map(|l| (*l != check_layers).then(|| top.resolve(l, &[])))
            .collect(),
        ..CheckSetup::new(top.resolve(&check_layers, &[]))
    };
    Ok((inputs, setup))
}

/// What a check runs with besides the flags: the peers' settings, and what
/// `check` adds over `demo` (fleet, sharding) or `demo` over `check` (its
/// own mock's credentials and key).
pub(super) struct CheckSetup {
    pub(super) peers_in_flight: usize,
    pub(super) shard: Option<Shard>,
    /// The settings of every peer without its own.
    pub(super) settings: Resolved,
    /// Per input: the peer's own settings, or `None`.
    pub(super) own: Vec<Option<Resolved>>,
    /// A bearer token given by the tool itself (the demo's own secured
    /// mock) rather than through `--bearer-env`.
    pub(super) bearer: Option<(String, String)>,
    /// Card-scheme credentials given by the tool itself (the demo's own
    /// API-key or OAuth mock) rather than through the flags.
    pub(super) auth: Option<a2a_conform_client::auth::AuthSettings>,
    /// Keys card signatures may verify against, given by the tool itself
    /// (the demo's own signing mock), besides `--trusted-key`.
    pub(super) trusted_keys: Vec<a2a_conform_protocol::card::signature::TrustedKey>,
}

impl CheckSetup {
    /// Every peer with `settings`, nothing else added.
    pub(super) fn new(settings: Resolved) -> CheckSetup {
        CheckSetup {
            peers_in_flight: 0,
            shard: None,
            settings,
            own: Vec::new(),
            bearer: None,
            auth: None,
            trusted_keys: Vec::new(),
        }
    }
}

/// The check's options and, per input, the peer's own (or `None`), all
/// with the one redactor built from every peer's secrets.
fn plan_options(
    args: &RunArgs,
    setup: &mut CheckSetup,
) -> Result<(RunOptions, Vec<Option<RunOptions>>), AppError> {
    let mut clients = PeerClients::new(args.tls.insecure);
    let wide = check_wide(args)?;
    // The check's own settings are read (its token variable, its TLS
    // files) only when some peer uses them: a fleet whose every entry has
    // its own must not fail on a top-level variable none of them reads.
    let every_peer_own = !setup.own.is_empty() && setup.own.iter().all(Option::is_some);
    let mut options = if every_peer_own {
        wide
    } else {
        for_peer(&wide, &setup.settings, &mut clients)?
    };
    if let Some(bearer) = setup.bearer.take() {
        options.client.bearer = Some(bearer);
    }
    if let Some(auth) = setup.auth.take() {
        options.auth = Arc::new(auth);
    }
    if !setup.trusted_keys.is_empty() {
        let mut keys = options.trusted_keys.as_ref().clone();
        keys.extend(std::mem::take(&mut setup.trusted_keys));
        options.trusted_keys = Arc::new(keys);
    }
    if setup.peers_in_flight > 0 {
        options.peers_in_flight = setup.peers_in_flight;
    }
    options.shard = setup.shard;
    let own = setup
        .own
        .iter()
        .map(|own| {
            own.as_ref()
                .map(|settings| for_peer(&options, settings, &mut clients))
                .transpose()
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The secret set is collected once, over every peer, and masked in
    // every peer's output.
    let all = secrets(&options)
        .into_iter()
        .chain(own.iter().flatten().flat_map(secrets));
    options.redactor = redactor(all);
    Ok((options, own))
}

/// A check ready to run: every flag and file read, every report path
/// checked writable, before the first request.
pub(super) struct Prepared {
    pub(super) targets: Vec<runner::PeerTarget>,
    pub(super) suite: a2a_conform_engine::scenario::Suite,
    pub(super) options: RunOptions,
    baseline: Option<Baseline>,
}

/// Reads and checks everything a check of `peers` with `setup` needs.
pub(super) fn prepare(
    peers: &[String],
    args: &RunArgs,
    mut setup: CheckSetup,
) -> Result<Prepared, AppError> {
    check_peer_urls(peers)?;
    let (mut options, mut own) = plan_options(args, &mut setup)?;
    // A cassette holds every run's exchanges, passing ones too.
    if args.record.is_some() {
        options.keep_passing_evidence = true;
        options.record_exchanges = true;
        own.iter_mut().flatten().for_each(|o| {
            o.keep_passing_evidence = true;
            o.record_exchanges = true;
        });
    }
    let targets: Vec<runner::PeerTarget> = peers
        .iter()
        .enumerate()
        .map(|(i, input)| runner::PeerTarget {
            input: input.clone(),
            options: own.get(i).cloned().flatten().map(|own| {
                Arc::new(RunOptions {
                    redactor: options.redactor.clone(),
                    issued: options.issued.clone(),
                    cancel: options.cancel.clone(),
                    peers_in_flight: options.peers_in_flight,
                    shard: options.shard,
                    ..own
                })
            }),
            start_after: Duration::ZERO,
        })
        .collect();
    let suite = load_suite(&args.suites, args.no_default_suite)?;
    let every = std::iter::once(&setup.settings).chain(setup.own.iter().flatten());
    check_names(&suite, &options, every)?;
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    Outputs::new(&args.reports).check()?;
    if let Some(path) = &args.record {
        a2a_conform_report::check_writable(path).map_err(|source| UsageError::ReportPath {
            flag: "--record",
            path: path.clone(),
            source,
        })?;
    }
    Ok(Prepared {
        targets,
        suite,
        options,
        baseline,
    })
}

/// One check of the prepared peers: the report, redacted and concluded
/// (its cassette written under `--record`); no report file written yet.
pub(super) async fn check_once(
    plan: &Prepared,
    args: &RunArgs,
    progress: &TerminalProgress,
) -> Result<RunReport, AppError> {
    let (targets, options) = (&plan.targets, &plan.options);
    let waits = match args.wait_for_card {
        Some(wait) => wait_for_cards(targets, options, wait).await,
        None => Vec::new(),
    };
    let mut report = runner::check_fleet(targets, &plan.suite, options, progress).await;
    for (peer, note) in report.peers.iter_mut().zip(waits) {
        if let Some(note) = note {
            peer.card_warnings.insert(0, note);
        }
    }
    // Every format is rendered from this one redacted report.
    let mut report = redacted(report, &options.redactor_with_issued())?;
    report.tool.insecure = options.client.tls.insecure;
    if let Some(path) = &args.record {
        record(&mut report, path, &plan.suite, options, args.output.verbose)?;
    }
    // The rules, the baseline, then the summary: in `conclude`'s one order.
    let rules = Rules {
        fail_on_flaky: args.fail_on_flaky,
        fail_on_unverified: args.fail_on_unverified,
        baseline: plan.baseline.as_ref(),
        strict_baseline: args.strict_baseline,
    };
    conclude(&mut report, &rules);
    Ok(report)
}

/// Checks `peers` with `setup`.
pub(super) async fn run_check(
    peers: &[String],
    args: &RunArgs,
    setup: CheckSetup,
) -> Result<i32, AppError> {
    run_check_inspecting(peers, args, setup, |_| {}).await
}

/// [`run_check`], showing `inspect` the finished report (redacted) once
/// the reports are written (`rejudge` compares it with the recording).
pub(super) async fn run_check_inspecting(
    peers: &[String],
    args: &RunArgs,
    setup: CheckSetup,
    inspect: impl FnOnce(&RunReport),
) -> Result<i32, AppError> {
    let plan = prepare(peers, args, setup)?;
    let outputs = Outputs::new(&args.reports);
    let progress =
        TerminalProgress::new(progress_mode(&args.output)).with_run_starts(args.output.verbose);
    let (caught, watcher) = watch_signals(plan.options.cancel.clone());
    let report = check_once(&plan, args, &progress).await;
    watcher.abort();
    let report = report?;
    // A signal after the last run finished changed nothing: the exit code stays.
    let interruption = caught.get().copied().filter(|_| report.interrupted);
    let code = finish(&report, args, &outputs)?;
    inspect(&report);
    match interruption {
        Some(signal) => {
            eprintln!(
                "interrupted by {}: the reports hold the runs that finished",
                signal.name()
            );
            Ok(signal.exit_code())
        }
        None => Ok(code),
    }
}

/// `--record`: writes the cassette of the redacted `report`, then drops
/// the passing runs' evidence it was kept for (unless `-v` asked for it),
/// so the reports read as without `--record`.
fn record(
    report: &mut RunReport,
    path: &std::path::Path,
    suite: &a2a_conform_engine::scenario::Suite,
    options: &RunOptions,
    verbose: bool,
) -> Result<(), AppError> {
    let shaping = serde_json::json!({
        "only": options.only,
        "skip": options.skip,
        "vars": options.vars,
        "retries": options.retries,
        "max_runs_per_family": options.max_runs_per_family,
    });
    let shaping = options.redactor_with_issued().redact_value(shaping);
    let shaping = match shaping {
        serde_json::Value::Object(map) => map.into_iter().collect(),
        _ => Default::default(),
    };
    let digest = runner::suite_digest(suite, options);
    let cassette = a2a_conform_cassette::Cassette::from_report(report, digest, shaping);
    cassette.write(path).map_err(|e| match e {
        a2a_conform_cassette::CassetteError::Io { path, source } => {
            AppError::WriteReport { path, source }
        }
        other => AppError::WriteReport {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })?;
    point_at_replay(report, path);
    if !verbose {
        let passing = report
            .peers
            .iter_mut()
            .flat_map(|p| p.scenarios.iter_mut())
            .filter(|s| s.verdict == a2a_conform_report::ScenarioVerdict::Pass);
        passing.for_each(|s| s.evidence.clear());
        // A search keeps its exchanges only when it stopped (as without --record).
        let found = report
            .peers
            .iter_mut()
            .flat_map(|p| p.preconditions.iter_mut())
            .filter(|p| p.outcome == a2a_conform_report::PreconditionOutcome::Found);
        found.for_each(|p| p.evidence.clear());
    }
    Ok(())
}

/// Each divergence's evidence ends with the command that replays it from
/// the cassette, next to its `curl` line: the peer's team can rerun it
/// without the peer.
fn point_at_replay(report: &mut RunReport, path: &std::path::Path) {
    use a2a_conform_report::evidence::{Evidence, EvidenceKind};
    use a2a_conform_report::ScenarioVerdict;
    for (index, peer) in report.peers.iter_mut().enumerate() {
        let diverged = peer
            .scenarios
            .iter_mut()
            .filter(|s| matches!(s.verdict, ScenarioVerdict::Fail | ScenarioVerdict::Flaky));
        for run in diverged {
            let peer_flag = match index {
                0 => String::new(),
                n => format!(" --peer {n}"),
            };
            let summary = format!(
                "replay it offline: a2a-conform replay {}{peer_flag} --scenario {} (the recorded run `{}`), then check the URL it prints",
                path.display(),
                run.scenario,
                run.id
            );
            run.evidence.push(Evidence {
                at_ms: run.evidence.last().map_or(0, |e| e.at_ms),
                kind: EvidenceKind::Note,
                summary,
                body: None,
                curl: None,
            });
        }
    }
}

/// `--wait-for-card`: polls each peer's card URL until it answers 2xx or
/// `wait` runs out (the check then reports the peer as it finds it), and
/// returns, per peer, a note of the attempts for its report.
pub(super) async fn wait_for_cards(
    peers: &[runner::PeerTarget],
    check_options: &RunOptions,
    wait: Duration,
) -> Vec<Option<String>> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut notes = Vec::new();
    for peer in peers {
        // Each peer is polled with its own timeout and TLS files.
        let options = peer.options.as_deref().unwrap_or(check_options);
        let Ok(url) = a2a_conform_protocol::card::discovery_url(&peer.input) else {
            notes.push(None);
            continue;
        };
        let started = tokio::time::Instant::now();
        let mut attempts: Vec<String> = Vec::new();
        let mut pause = Duration::from_millis(200);
        let client = a2a_conform_client::http::http_client(
            options.client.timeout.min(wait),
            &options.client.tls,
        );
        loop {
            let outcome = match &client {
                Err(e) => Err(e.to_string()),
                Ok(client) => match client.get(url.clone()).send().await {
                    Ok(response) if response.status().is_success() => Ok(()),
                    Ok(response) => Err(format!("HTTP {}", response.status().as_u16())),
                    Err(e) => Err(a2a_conform_client::http::describe_reqwest_error(&e)),
                },
            };
            let ready = outcome.is_ok();
            attempts.push(outcome.err().unwrap_or_else(|| "answered".into()));
            let now = tokio::time::Instant::now();
            if ready || now + pause > deadline || options.cancel.is_cancelled() {
                break;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(2));
        }
        // The first attempts and the last show how the peer came up.
        let shown: Vec<String> = attempts
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < 5 || *i + 1 == attempts.len())
            .map(|(i, a)| format!("#{} {a}", i + 1))
            .collect();
        notes.push(Some(format!(
            "--wait-for-card: {} attempt(s) over {}: {}",
            attempts.len(),
            a2a_conform_protocol::text::human_duration(started.elapsed()),
            shown.join(", ")
        )));
    }
    notes
}

/// The report with every configured secret masked in every string (peer
/// text included, in the encodings a peer can reflect), so that no format
/// and no line on stderr can carry one. Fails closed: when the masked
/// report no longer reads as a report (a secret equal to a word the report
/// is made of, such as a verdict), it is an error and nothing is written —
/// never the report as it was.
pub(super) fn redacted(report: RunReport, redactor: &Redactor) -> Result<RunReport, AppError> {
    if redactor.is_empty() {
        return Ok(report);
    }
    // The card bodies are no report field: carried across, masked too.
    let mask = |body: &Option<String>| body.as_deref().map(|b| redactor.redact(b));
    let bodies: Vec<(Option<String>, Option<String>)> = report
        .peers
        .iter()
        .map(|p| (mask(&p.card_body), mask(&p.extended_card_body)))
        .collect();
    let value = serde_json::to_value(&report).map_err(AppError::Redaction)?;
    let mut report: RunReport =
        serde_json::from_value(redactor.redact_value(value)).map_err(AppError::Redaction)?;
    for (peer, (card, extended)) in report.peers.iter_mut().zip(bodies) {
        peer.card_body = card;
        peer.extended_card_body = extended;
    }
    Ok(report)
}

pub(super) async fn demo(args: DemoArgs, sources: &Sources) -> Result<i32, AppError> {
    let behaviour = args.behaviour;
    let mut profiles = Profiles::default();
    let layers: Vec<PeerLayer> = args
        .run
        .profile
        .as_deref()
        .map(|path| profiles.layer(path))
        .transpose()?
        .into_iter()
        .collect();
    // The mock asks for input on this keyword and works for about a second;
    // short windows keep the demo quick. Every layer overrides these.
    let defaults: Vec<(String, String)> = [
        (
            "prompt_input_required",
            "need-input: please ask me for more",
        ),
        ("probe_window", "3s"),
        ("quiet_window", "1s"),
        ("stable_interval", "500ms"),
        ("task_window", "10s"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let settings = run_top(&args.run, sources)?.resolve(&layers, &defaults);
    let config = MockConfig {
        protocol: mock_protocol(args.peer_protocol),
        behaviour,
        port: 0,
        timing: MockTiming {
            keepalive_interval: Duration::from_millis(500),
            silence: Duration::from_secs(6),
            ..MockTiming::default()
        },
        auth_token: None,
        ..MockConfig::default()
    };
    let peer = MockPeer::start(config)
        .await
        .map_err(|source| AppError::MockPeer {
            action: "start the mock peer",
            address: "127.0.0.1".into(),
            source,
        })?;
    eprintln!(
        "demo: checking the built-in mock peer ({behaviour}, A2A {}) at {}",
        peer.protocol(),
        peer.card_url()
    );
    // A secured mock is checked with its own token (or API key, or OAuth
    // client), as a user would pass theirs.
    let (bearer, auth) = demo_credentials(&peer, &settings);
    // A signing mock's key is made at its start, so no --trusted-key could
    // name it: the demo trusts it, as a user would trust their peer's key.
    // (The mock's own JWK always reads; were it not to, the row would read
    // unverified, naming --trusted-key.)
    let trusted_keys = match peer.public_jwk() {
        Some(jwk) if args.run.trusted_keys.is_empty() => {
            a2a_conform_protocol::card::signature::read_keys(
                "the demo mock's key",
                &jwk.to_string(),
            )
            .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    let setup = CheckSetup {
        bearer,
        auth,
        trusted_keys,
        ..CheckSetup::new(settings)
    };
    let code = run_check(&[peer.card_url()], &args.run, setup).await;
    peer.shutdown().await;
    code
}

/// The credentials the demo gives its own secured mock, unless the user gave
/// some: the bearer token, the API key, or the OAuth client, by behaviour.
fn demo_credentials(
    peer: &MockPeer,
    settings: &Resolved,
) -> (
    Option<(String, String)>,
    Option<a2a_conform_client::auth::AuthSettings>,
) {
    use a2a_conform_client::auth::{AuthSettings, EnvSecret, OAuthClient};
    let Some(token) = peer.auth_token() else {
        return (None, None);
    };
    let secret = |var: &str, value: &str| EnvSecret {
        var: var.to_string(),
        value: value.to_string(),
    };
    match peer.behaviour() {
        Behaviour::SecuredApiKey if settings.api_key_env.is_none() => (
            None,
            Some(AuthSettings {
                api_key: Some(secret("A2A_CONFORM_DEMO_TOKEN", &token)),
                ..AuthSettings::default()
            }),
        ),
        Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes
            if settings.oauth_client.is_none() =>
        {
            (
                None,
                Some(AuthSettings {
                    oauth_client: Some(OAuthClient {
                        id: secret(
                            "A2A_CONFORM_DEMO_CLIENT_ID",
                            a2a_conform_mock::auth::CLIENT_ID,
                        ),
                        secret: secret("A2A_CONFORM_DEMO_TOKEN", &token),
                    }),
                    ..AuthSettings::default()
                }),
            )
        }
        Behaviour::SecuredApiKey | Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes => {
            (None, None)
        }
        _ if settings.bearer_env.is_none() => {
            (Some(("A2A_CONFORM_DEMO_TOKEN".to_string(), token)), None)
        }
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_report::{PeerReport, ScenarioReport, ScenarioVerdict};

    fn report() -> RunReport {
        let mut peer = PeerReport::new("http://p.example");
        peer.scenarios.push(
            ScenarioReport::builder("streaming-probe", ScenarioVerdict::Pass)
                .message("the peer echoed hunter2-token back")
                .build(),
        );
        RunReport::new(vec![peer])
    }

    #[test]
    fn the_redacted_report_masks_every_secret_or_is_an_error_never_the_original() {
        let masked = redacted(report(), &Redactor::new(["hunter2-token".to_string()])).unwrap();
        let message = &masked.peers[0].scenarios[0].message;
        assert_eq!(message, &format!("the peer echoed {} back", Redactor::MASK));
        // A secret that is a word of the report's own vocabulary (a verdict)
        // leaves a report that no longer reads: an error, no report at all.
        let e = redacted(report(), &Redactor::new(["pass".to_string()])).unwrap_err();
        assert!(matches!(e, AppError::Redaction(_)), "{e}");
        assert!(e.to_string().contains("no report was written"), "{e}");
        assert_eq!(e.exit_code(), exit::USAGE);
    }
}
