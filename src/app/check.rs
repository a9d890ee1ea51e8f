//! `check` and `demo`: options and suite loaded, peers checked with signals
//! watched (a report is written even when a CI timeout stops the run), the
//! report redacted and finished.

use super::options::{
    check_names, check_peer_urls, choose_profile, fleet_peer_options, fleet_profile, load_suite,
    mock_protocol, run_options, unknown_var, ChosenProfile,
};
use super::output::{finish, progress_mode, Outputs};
use crate::cli::{CheckArgs, DemoArgs, RunArgs};
use crate::config::ConfigFile;
use crate::error::AppError;
use crate::fleet::{self, FleetPeer};
use crate::progress::TerminalProgress;
use a2a_conform_client::Redactor;
use a2a_conform_engine::runner::{self, RunOptions};
use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_report::baseline::Baseline;
use a2a_conform_report::exit;
use a2a_conform_report::shard::Shard;
use a2a_conform_report::RunReport;
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
    fn exit_code(self) -> i32 {
        match self {
            Interruption::Sigint => exit::INTERRUPTED,
            Interruption::Sigterm => exit::TERMINATED,
        }
    }

    fn name(self) -> &'static str {
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

pub(super) async fn check(args: CheckArgs, config: Option<&ConfigFile>) -> Result<i32, AppError> {
    let resolved = crate::config::resolve_peers(config, &args.peers)?;
    let profile = choose_profile(&args.run, resolved.section, config)?;
    let fleet = match &args.peers_file {
        Some(path) => fleet::load(path)?,
        None => Vec::new(),
    };
    let mut inputs = resolved.urls.clone();
    inputs.extend(fleet.iter().map(|p| p.url.clone()));
    check_peer_urls(&inputs)?;
    let plain =
        |p: &FleetPeer| p.profile.is_none() && p.headers.is_empty() && p.bearer_env.is_none();
    // Peers with settings of their own get their own options; every
    // configured secret is redacted from every peer's output.
    let mut secrets = Vec::new();
    let mut own: Vec<Option<RunOptions>> = vec![None; resolved.urls.len()];
    let mut profiles = Vec::new();
    for peer in &fleet {
        if plain(peer) {
            own.push(None);
        } else {
            let own_profile = fleet_profile(peer)?;
            let options = fleet_peer_options(&args.run, peer, own_profile.as_ref(), &profile)?;
            secrets.extend(options.client.secrets());
            own.push(Some(options));
            profiles.extend(own_profile);
        }
    }
    let setup = CheckSetup {
        peers_in_flight: usize::from(args.peers_in_flight),
        shard: args.shard,
        own,
        secrets,
        profiles,
        auth: None,
        trusted_keys: Vec::new(),
    };
    run_check(&inputs, &args.run, &[], None, &profile, setup).await
}

/// What `check` adds to a run over `demo`: fleet options and sharding.
#[derive(Default)]
pub(super) struct CheckSetup {
    pub(super) peers_in_flight: usize,
    pub(super) shard: Option<Shard>,
    /// Per input: the peer's own options (fleet file), or `None`.
    pub(super) own: Vec<Option<RunOptions>>,
    /// The fleet's secrets, redacted from every peer's output.
    pub(super) secrets: Vec<String>,
    /// The fleet's own profiles: their variable names are checked like `--profile`'s.
    pub(super) profiles: Vec<ChosenProfile>,
    /// Card-scheme credentials given by the tool itself (the demo's own
    /// API-key or OAuth mock) rather than through the flags.
    pub(super) auth: Option<a2a_conform_client::auth::AuthSettings>,
    /// Keys card signatures may verify against, given by the tool itself
    /// (the demo's own signing mock), besides `--trusted-key`.
    pub(super) trusted_keys: Vec<a2a_conform_protocol::card::signature::TrustedKey>,
}

/// Checks `peers`; `bearer` is a token given by the tool itself (the demo's
/// own secured mock) rather than through `--bearer-env`.
pub(super) async fn run_check(
    peers: &[String],
    args: &RunArgs,
    extra_vars: &[(String, String)],
    bearer: Option<(String, String)>,
    profile: &ChosenProfile,
    setup: CheckSetup,
) -> Result<i32, AppError> {
    check_peer_urls(peers)?;
    let mut options = run_options(args, extra_vars, profile)?;
    if let Some((var, token)) = bearer {
        options.redactor = Arc::new(options.redactor.with_secret(token.clone()));
        options.client.bearer = Some((var, token));
    }
    for secret in setup.secrets {
        options.redactor = Arc::new(options.redactor.with_secret(secret));
    }
    if let Some(auth) = setup.auth {
        for secret in auth.secrets() {
            options.redactor = Arc::new(options.redactor.with_secret(secret));
        }
        options.auth = Arc::new(auth);
    }
    if !setup.trusted_keys.is_empty() {
        let mut keys = options.trusted_keys.as_ref().clone();
        keys.extend(setup.trusted_keys);
        options.trusted_keys = Arc::new(keys);
    }
    if setup.peers_in_flight > 0 {
        options.peers_in_flight = setup.peers_in_flight;
    }
    options.shard = setup.shard;
    let targets: Vec<runner::PeerTarget> = peers
        .iter()
        .enumerate()
        .map(|(i, input)| runner::PeerTarget {
            input: input.clone(),
            options: setup.own.get(i).cloned().flatten().map(|own| {
                Arc::new(RunOptions {
                    redactor: options.redactor.clone(),
                    issued: options.issued.clone(),
                    cancel: options.cancel.clone(),
                    peers_in_flight: options.peers_in_flight,
                    shard: options.shard,
                    ..own
                })
            }),
        })
        .collect();
    let suite = load_suite(&args.suites, args.no_default_suite)?;
    check_names(&suite, args, &options, profile)?;
    let known = suite.variable_names();
    for own in &setup.profiles {
        unknown_var(&known, own)?;
    }
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let outputs = Outputs::new(args);
    outputs.check()?;
    let progress =
        TerminalProgress::new(progress_mode(&args.output)).with_run_starts(args.output.verbose);
    let (caught, watcher) = watch_signals(options.cancel.clone());
    let waits = match args.wait_for_card {
        Some(wait) => wait_for_cards(peers, &options, wait).await,
        None => Vec::new(),
    };
    let mut report = runner::check_fleet(&targets, &suite, &options, &progress).await;
    for (peer, note) in report.peers.iter_mut().zip(waits) {
        if let Some(note) = note {
            peer.card_warnings.insert(0, note);
        }
    }
    watcher.abort();
    // Every format is rendered from this one redacted report.
    let mut report = redacted(report, &options.redactor_with_issued());
    report.fail_on_flaky = args.fail_on_flaky;
    report.tool.insecure = options.client.tls.insecure;
    report.fail_on_unverified = args.fail_on_unverified;
    if let Some(baseline) = &baseline {
        baseline.apply(&mut report, args.strict_baseline);
    }
    // A signal after the last run finished changed nothing: the exit code stays.
    let interruption = caught.get().copied().filter(|_| report.interrupted);
    let code = finish(&report, args, &outputs)?;
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

/// `--wait-for-card`: polls each peer's card URL until it answers 2xx or
/// `wait` runs out (the check then reports the peer as it finds it), and
/// returns, per peer, a note of the attempts for its report.
pub(super) async fn wait_for_cards(
    peers: &[String],
    options: &RunOptions,
    wait: Duration,
) -> Vec<Option<String>> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut notes = Vec::new();
    for peer in peers {
        let Ok(url) = a2a_conform_protocol::card::discovery_url(peer) else {
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
/// and no line on stderr can carry one.
pub(super) fn redacted(report: RunReport, redactor: &Redactor) -> RunReport {
    if redactor.is_empty() {
        return report;
    }
    serde_json::to_value(&report)
        .ok()
        .and_then(|value| serde_json::from_value(redactor.redact_value(value)).ok())
        .unwrap_or(report)
}

pub(super) async fn demo(args: DemoArgs) -> Result<i32, AppError> {
    let behaviour = args.behaviour;
    let profile = choose_profile(&args.run, None, None)?;
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
    // The mock asks for input on this keyword and works for about a second;
    // short windows keep the demo quick. --var still overrides all of these.
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
    // A secured mock is checked with its own token (or API key, or OAuth
    // client), as a user would pass theirs.
    let (bearer, auth) = demo_credentials(&peer, &args.run);
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
    let code = run_check(
        &[peer.card_url()],
        &args.run,
        &defaults,
        bearer,
        &profile,
        CheckSetup {
            auth,
            trusted_keys,
            ..CheckSetup::default()
        },
    )
    .await;
    peer.shutdown().await;
    code
}

/// The credentials the demo gives its own secured mock, unless the user gave
/// some: the bearer token, the API key, or the OAuth client, by behaviour.
fn demo_credentials(
    peer: &MockPeer,
    args: &RunArgs,
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
        Behaviour::SecuredApiKey if args.schemes.api_key_env.is_none() => (
            None,
            Some(AuthSettings {
                api_key: Some(secret("A2A_CONFORM_DEMO_TOKEN", &token)),
                ..AuthSettings::default()
            }),
        ),
        Behaviour::SecuredOauth | Behaviour::SecuredSkillScopes
            if args.schemes.oauth_client_id_env.is_none() =>
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
        _ if args.bearer_env.is_none() => {
            (Some(("A2A_CONFORM_DEMO_TOKEN".to_string(), token)), None)
        }
        _ => (None, None),
    }
}
