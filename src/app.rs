//! What each subcommand does: turning arguments into options, running, and
//! mapping the outcome to an exit code. Reports go to stdout, problems to
//! stderr: each [`AppError`] printed once, by [`run`].

use crate::baseline::Baseline;
use crate::card::{BindingChoice, ProtocolChoice};
use crate::cli::{
    BindingArg, CardArgs, CheckArgs, Cli, ColorArg, Command, ConfigCommand, DemoArgs, DiffArgs,
    MergeArgs, MockPeerArgs, MockProtocolArg, OutputArgs, ProgressArg, ProtocolArg, RunArgs,
    SchemaCommand, SuiteCommand, TlsArgs,
};
use crate::config::{ConfigFile, Parsed};
use crate::declaration::closest;
use crate::diff;
use crate::error::{AppError, UsageError};
use crate::exit;
use crate::fleet::{self, FleetPeer, Shard};
use crate::inert::terminal;
use crate::mock::{MockConfig, MockPeer, MockTiming};
use crate::profile::Profile;
use crate::progress::{ProgressMode, TerminalProgress};
use crate::protocol::{Binding, ProtocolVersion};
use crate::report::{self, human, junit, markdown, RunReport};
use crate::runner::{self, RunOptions};
use crate::scenario::Suite;
use crate::transport::client::ClientConfig;
use crate::transport::http::TlsOptions;
use crate::transport::Limits;
use crate::transport::Redactor;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A request's wait for an answer when neither `--timeout` nor the profile sets one.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs a parsed command line; returns the process exit code. An error is
/// printed here, once, as `error: {e}`, and exits with its own code.
pub fn run(cli: Cli) -> i32 {
    run_parsed(Parsed { cli, config: None })
}

/// [`run`] with the config file the command line was parsed with (its
/// per-peer sections apply to `check`).
pub fn run_parsed(parsed: Parsed) -> i32 {
    execute(parsed.cli, parsed.config).unwrap_or_else(|e| {
        e.print();
        e.exit_code()
    })
}

fn execute(cli: Cli, config: Option<ConfigFile>) -> Result<i32, AppError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(AppError::Runtime)?;
    let code = runtime.block_on(async move {
        match cli.command {
            Command::Check(args) => check(args, config.as_ref()).await,
            Command::Demo(args) => demo(args).await,
            Command::Diff(args) => diff(args),
            Command::Merge(args) => merge(args),
            Command::Card(args) => card(args).await,
            Command::Suite(cmd) => suite(cmd),
            Command::MockPeer(args) => mock_peer(args).await,
            Command::Completions { shell } => crate::docs::completions(shell),
            Command::Man { out_dir } => crate::docs::man(out_dir.as_deref()),
            Command::Config(ConfigCommand::Show { peer }) => {
                Ok(crate::config::show(config.as_ref(), peer.as_deref())?)
            }
            Command::Schema(SchemaCommand::Report) => report::schema::print(),
        }
    });
    // An interrupted check has written its reports; tasks it left behind
    // (a webhook receiver, a resolver thread) must not hold the exit up.
    runtime.shutdown_timeout(Duration::from_millis(500));
    code
}

/// The signal that stopped a check, and the exit code it calls for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interruption {
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
fn watch_signals(
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

fn protocol_choice(arg: ProtocolArg) -> ProtocolChoice {
    match arg {
        ProtocolArg::Auto => ProtocolChoice::Auto,
        ProtocolArg::V1_0 => ProtocolChoice::Force(ProtocolVersion::V1_0),
        ProtocolArg::V0_3 => ProtocolChoice::Force(ProtocolVersion::V0_3),
    }
}

fn binding_choice(arg: BindingArg) -> BindingChoice {
    match arg {
        BindingArg::Auto => BindingChoice::Auto,
        BindingArg::Jsonrpc => BindingChoice::Force(Binding::Jsonrpc),
        BindingArg::Rest => BindingChoice::Force(Binding::Rest),
        BindingArg::Grpc => BindingChoice::Force(Binding::Grpc),
    }
}

fn mock_protocol(arg: MockProtocolArg) -> ProtocolVersion {
    match arg {
        MockProtocolArg::V1_0 => ProtocolVersion::V1_0,
        MockProtocolArg::V0_3 => ProtocolVersion::V0_3,
    }
}

/// Whether `text` is shaped like an environment variable's name
/// (`[A-Za-z_][A-Za-z0-9_]*`) and not like a token: long, without
/// underscores, and mixing letters with digits.
fn name_shaped(text: &str) -> bool {
    let mut chars = text.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let token_like = text.len() >= 20
        && !text.contains('_')
        && text.chars().any(|c| c.is_ascii_digit())
        && text.chars().any(|c| c.is_ascii_alphabetic());
    first_ok && rest_ok && text.len() <= 128 && !token_like
}

/// Whether `text` is a conventional (upper case) variable name, safe to
/// echo in an error: anything else may be the secret itself.
fn conventional_name(text: &str) -> bool {
    name_shaped(text) && !text.chars().any(|c| c.is_ascii_lowercase())
}

/// Reads a non-empty secret from the environment variable a flag names.
/// A value that may be the token itself is never echoed.
fn env_secret(flag: &'static str, var: &str) -> Result<String, UsageError> {
    if !name_shaped(var) {
        return Err(UsageError::NotAnEnvName { flag });
    }
    let token = std::env::var(var).map_err(|_| {
        if conventional_name(var) {
            UsageError::EnvUnset {
                flag,
                var: var.to_string(),
            }
        } else {
            UsageError::NotAnEnvName { flag }
        }
    })?;
    if token.trim().is_empty() {
        return Err(UsageError::EnvEmpty {
            flag,
            var: var.to_string(),
        });
    }
    // It becomes a header value: CR/LF would split the request.
    if token.chars().any(char::is_control) {
        return Err(UsageError::EnvControl {
            flag,
            var: var.to_string(),
        });
    }
    Ok(token)
}

/// The profile a check uses and where it came from: `--profile FILE`, else
/// the config file's section for the peer (flag > config file).
struct ChosenProfile {
    profile: Profile,
    /// How errors name it: `profile FILE` or `config FILE, peer NAME`.
    origin: Option<String>,
}

fn choose_profile(
    args: &RunArgs,
    section: Option<(String, crate::config::PeerSection)>,
    config: Option<&ConfigFile>,
) -> Result<ChosenProfile, AppError> {
    Ok(match (&args.profile, section) {
        (Some(path), _) => ChosenProfile {
            profile: Profile::load(path)?,
            origin: Some(format!("profile {}", path.display())),
        },
        (None, Some((name, section))) => ChosenProfile {
            profile: section.profile(),
            origin: Some(format!(
                "config {}, peer {name}",
                config
                    .map(|c| c.path.display().to_string())
                    .unwrap_or_default()
            )),
        },
        (None, None) => ChosenProfile {
            profile: Profile::default(),
            origin: None,
        },
    })
}

/// A header the tool would send: checked before any request, so a value
/// with CR/LF never reaches a peer and never fails mid-run. Neither error
/// shows the value: it may be a credential.
fn check_header(name: &str, value: &str) -> Result<(), UsageError> {
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(UsageError::HeaderName {
            name: name.to_string(),
        });
    }
    if value.chars().any(char::is_control) {
        return Err(UsageError::HeaderControl {
            name: name.to_string(),
        });
    }
    Ok(())
}

/// A typed built-in variable (`stable_reads`, the windows) must hold a value
/// its steps can use: found before any request, not by the first run that reads it.
fn check_var(origin: &dyn Fn() -> String, name: &str, value: &str) -> Result<(), UsageError> {
    let Some(expected) = crate::scenario::vars::builtin(name).and_then(|b| b.rejects(value)) else {
        return Ok(());
    };
    Err(UsageError::VarValue {
        origin: origin(),
        name: name.to_string(),
        value: crate::transport::clip(value, 40),
        expected,
    })
}

/// Builds run options from flags and the chosen profile (flags win).
fn run_options(
    args: &RunArgs,
    extra_vars: &[(String, String)],
    chosen: &ChosenProfile,
) -> Result<RunOptions, AppError> {
    let profile = &chosen.profile;
    let mut options = RunOptions::default();
    for (k, v) in extra_vars {
        options.vars.insert(k.clone(), v.clone());
    }
    let from_profile = || chosen.origin.clone().unwrap_or_else(|| "profile".into());
    for (name, value) in &profile.vars {
        check_var(&from_profile, name, value)?;
    }
    options.vars.extend(profile.vars.clone());
    for var in &args.vars {
        let (name, value) = var
            .split_once('=')
            .ok_or_else(|| UsageError::VarSyntax(var.clone()))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(UsageError::VarEmptyName(var.clone()).into());
        }
        check_var(&|| "--var".to_string(), name, value)?;
        options.vars.insert(name.to_string(), value.to_string());
    }
    let mut headers: Vec<(String, String)> = profile.headers.clone().into_iter().collect();
    for header in &args.headers {
        // A malformed header is still someone's secret: the message shows
        // its first word only.
        let (name, value) = header.split_once(':').ok_or_else(|| {
            let first = header.split_whitespace().next().unwrap_or_default();
            UsageError::HeaderSyntax(format!("{first} {}", Redactor::MASK))
        })?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    for (name, value) in &headers {
        check_header(name, value)?;
    }
    let bearer_var = args.bearer_env.clone().or(profile.bearer_env.clone());
    let bearer = match bearer_var {
        Some(var) => Some((var.clone(), env_secret("--bearer-env", &var)?)),
        None => None,
    };
    let timeout = args.timeout.or(profile.timeout).unwrap_or(DEFAULT_TIMEOUT);
    options.client = ClientConfig {
        timeout,
        headers,
        bearer,
        tls: tls_options(&args.tls)?,
        public_headers: args.public_headers.clone(),
        same_origin_credentials: args.same_origin_credentials,
        limits: Limits {
            max_body_bytes: args.max_body_bytes,
            max_event_bytes: args.max_event_bytes,
            max_stream_bytes: args.max_stream_bytes,
            max_stream_events: args.max_stream_events,
        },
        ..ClientConfig::default()
    };
    options.max_probe_window = args.max_probe_window;
    // Redaction is by value: every credential header's value, the token.
    options.redactor = Arc::new(Redactor::new(options.client.secrets()));
    options.only = args.scenarios.clone();
    options.skip = args.skip.clone();
    options.protocol = protocol_choice(args.protocol);
    options.binding = binding_choice(args.binding);
    options.retries = args.retries;
    options.jobs = usize::from(args.jobs);
    options.keep_passing_evidence = args.output.verbose;
    options.max_runs_per_family = args.max_runs_per_family as usize;
    Ok(options)
}

/// The TLS flags read into client options: files are read here, once.
fn tls_options(args: &TlsArgs) -> Result<TlsOptions, UsageError> {
    let read = |flag: &'static str, path: &Path| {
        std::fs::read(path).map_err(|e| UsageError::TlsFile {
            flag,
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    };
    let mut tls = TlsOptions {
        insecure: args.insecure,
        ..TlsOptions::default()
    };
    if let Some(path) = &args.cacert {
        let pem = read("--cacert", path)?;
        tls.extra_roots =
            reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| UsageError::TlsFile {
                flag: "--cacert",
                path: path.clone(),
                reason: format!("not a PEM certificate: {e}"),
            })?;
        if tls.extra_roots.is_empty() {
            return Err(UsageError::TlsFile {
                flag: "--cacert",
                path: path.clone(),
                reason: "holds no PEM certificate".into(),
            });
        }
    }
    if let (Some(cert), Some(key)) = (&args.cert, &args.key) {
        let mut pem = read("--cert", cert)?;
        pem.push(b'\n');
        pem.extend(read("--key", key)?);
        tls.identity =
            Some(
                reqwest::Identity::from_pem(&pem).map_err(|e| UsageError::TlsFile {
                    flag: "--cert",
                    path: cert.clone(),
                    reason: format!("not a PEM certificate and key: {e}"),
                })?,
            );
    }
    if args.insecure {
        eprintln!("warning: {}", report::INSECURE_NOTE);
    }
    Ok(tls)
}

/// Every peer must be an http(s) URL before anything is fetched: a missing
/// scheme is a usage error, not an unreachable peer.
fn check_peer_urls(peers: &[String]) -> Result<(), UsageError> {
    for peer in peers {
        crate::card::discovery_url(peer)?;
    }
    Ok(())
}

/// The report files a check writes: `-` is stdout.
struct Outputs<'a> {
    files: [(&'static str, Option<&'a Path>); 3],
}

impl<'a> Outputs<'a> {
    fn new(args: &'a RunArgs) -> Outputs<'a> {
        Outputs {
            files: [
                ("--json", args.json.as_deref()),
                ("--junit", args.junit.as_deref()),
                ("--markdown", args.markdown.as_deref()),
            ],
        }
    }

    /// Whether a report goes to stdout (the terminal report then goes to stderr).
    fn stdout_taken(&self) -> bool {
        self.files.iter().any(|(_, p)| p.is_some_and(is_stdout))
    }

    /// Checks, before the first request, that every report can be written:
    /// a check that runs for minutes must not end in "cannot write".
    fn check(&self) -> Result<(), UsageError> {
        let to_stdout = self
            .files
            .iter()
            .filter(|(_, p)| p.is_some_and(is_stdout))
            .count();
        if to_stdout > 1 {
            return Err(UsageError::StdoutTwice);
        }
        for (flag, path) in self.files {
            if let Some(path) = path.filter(|p| !is_stdout(p)) {
                report::check_writable(path).map_err(|source| UsageError::ReportPath {
                    flag,
                    path: path.to_path_buf(),
                    source,
                })?;
            }
        }
        Ok(())
    }
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// `--progress` resolved: `auto` is a bar on a terminal, lines in a log,
/// nothing under `-q`.
fn progress_mode(output: &OutputArgs) -> ProgressMode {
    match output.progress {
        ProgressArg::Bar => ProgressMode::Bar,
        ProgressArg::Lines => ProgressMode::Lines,
        ProgressArg::None => ProgressMode::None,
        ProgressArg::Auto if output.quiet => ProgressMode::None,
        ProgressArg::Auto if std::io::stderr().is_terminal() => ProgressMode::Bar,
        ProgressArg::Auto => ProgressMode::Lines,
    }
}

fn load_suite(files: &[PathBuf], no_default: bool) -> Result<Suite, AppError> {
    if no_default && files.is_empty() {
        return Err(UsageError::NoSuiteFile.into());
    }
    let mut suite = if no_default {
        Suite::default()
    } else {
        Suite::embedded()?
    };
    for file in files {
        suite.add_file(file)?;
    }
    Ok(suite)
}

/// Whether to colour text bound for stdout (or stderr, `on_stderr`).
fn use_color(color: ColorArg, on_stderr: bool) -> bool {
    match color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && if on_stderr {
                    std::io::stderr().is_terminal()
                } else {
                    std::io::stdout().is_terminal()
                }
        }
    }
}

fn style(output: &OutputArgs, on_stderr: bool) -> human::Style {
    let color = use_color(output.color, on_stderr);
    // The table is cut to the width of the terminal it goes to, if any.
    let on_terminal = if on_stderr {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    let width = on_terminal
        .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
        .flatten();
    human::Style {
        color,
        verbose: output.verbose,
        quiet: output.quiet,
        width,
    }
}

async fn check(args: CheckArgs, config: Option<&ConfigFile>) -> Result<i32, AppError> {
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
    for peer in &fleet {
        if plain(peer) {
            own.push(None);
        } else {
            let options = fleet_peer_options(&args.run, peer, &profile)?;
            secrets.extend(options.client.secrets());
            own.push(Some(options));
        }
    }
    let setup = CheckSetup {
        peers_in_flight: usize::from(args.peers_in_flight),
        shard: args.shard,
        own,
        secrets,
        profiles: fleet.iter().filter_map(|p| p.profile.clone()).collect(),
    };
    run_check(&inputs, &args.run, &[], None, &profile, setup).await
}

/// Run options for a fleet file's peer: its own profile replaces the
/// check's (flags still win over it), its headers are added, and its
/// credential variable replaces `--bearer-env`.
fn fleet_peer_options(
    args: &RunArgs,
    peer: &FleetPeer,
    chosen: &ChosenProfile,
) -> Result<RunOptions, AppError> {
    let own;
    let chosen = match &peer.profile {
        Some(path) => {
            own = ChosenProfile {
                profile: Profile::load(path)?,
                origin: Some(format!("profile {}", path.display())),
            };
            &own
        }
        None => chosen,
    };
    let mut options = run_options(args, &[], chosen)?;
    for (name, value) in &peer.headers {
        check_header(name, value)?;
        options.client.headers.push((name.clone(), value.clone()));
    }
    if let Some(var) = &peer.bearer_env {
        options.client.bearer = Some((var.clone(), env_secret("--bearer-env", var)?));
    }
    options.redactor = Arc::new(Redactor::new(options.client.secrets()));
    Ok(options)
}

/// What `check` adds to a run over `demo`: fleet options and sharding.
#[derive(Default)]
struct CheckSetup {
    peers_in_flight: usize,
    shard: Option<Shard>,
    /// Per input: the peer's own options (fleet file), or `None`.
    own: Vec<Option<RunOptions>>,
    /// The fleet's secrets, redacted from every peer's output.
    secrets: Vec<String>,
    /// The fleet's own profiles: their variable names are checked like `--profile`'s.
    profiles: Vec<PathBuf>,
}

/// Checks `peers`; `bearer` is a token given by the tool itself (the demo's
/// own secured mock) rather than through `--bearer-env`.
async fn run_check(
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
    for path in &setup.profiles {
        check_profile_vars(&suite, path)?;
    }
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let outputs = Outputs::new(args);
    outputs.check()?;
    let progress = TerminalProgress::new(progress_mode(&args.output));
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
    let mut report = redacted(report, &options.redactor);
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
async fn wait_for_cards(
    peers: &[String],
    options: &RunOptions,
    wait: Duration,
) -> Vec<Option<String>> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut notes = Vec::new();
    for peer in peers {
        let Ok(url) = crate::card::discovery_url(peer) else {
            notes.push(None);
            continue;
        };
        let started = tokio::time::Instant::now();
        let mut attempts: Vec<String> = Vec::new();
        let mut pause = Duration::from_millis(200);
        let client = crate::transport::http::http_client(
            options.client.timeout.min(wait),
            &options.client.tls,
        );
        loop {
            let outcome = match &client {
                Err(e) => Err(e.to_string()),
                Ok(client) => match client.get(url.clone()).send().await {
                    Ok(response) if response.status().is_success() => Ok(()),
                    Ok(response) => Err(format!("HTTP {}", response.status().as_u16())),
                    Err(e) => Err(crate::transport::http::describe_reqwest_error(&e)),
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
            crate::transport::human_duration(started.elapsed()),
            shown.join(", ")
        )));
    }
    notes
}

/// The report with every configured secret masked in every string (peer
/// text included, in the encodings a peer can reflect), so that no format
/// and no line on stderr can carry one.
fn redacted(report: RunReport, redactor: &Redactor) -> RunReport {
    if redactor.is_empty() {
        return report;
    }
    serde_json::to_value(&report)
        .ok()
        .and_then(|value| serde_json::from_value(redactor.redact_value(value)).ok())
        .unwrap_or(report)
}

/// Scenario ids (`--scenario`, `--skip`) and variable names (`--var`, the
/// profile's `vars`) must name something in the loaded suite: a typo would
/// otherwise leave rows unverified under a green run.
fn check_names(
    suite: &Suite,
    args: &RunArgs,
    options: &RunOptions,
    profile: &ChosenProfile,
) -> Result<(), UsageError> {
    let ids: Vec<&str> = suite.scenarios.iter().map(|s| s.id()).collect();
    for id in options.only.iter().chain(options.skip.iter()) {
        if !ids.contains(&id.as_str()) {
            return Err(UsageError::UnknownScenario {
                id: id.clone(),
                suggestion: closest(id, ids.iter().copied()).map(str::to_string),
            });
        }
    }
    let known = suite.variable_names();
    let profile_vars: Vec<String> = profile.profile.vars.keys().cloned().collect();
    let from_flags = args
        .vars
        .iter()
        .filter_map(|v| v.split_once('=').map(|(n, _)| n.trim().to_string()));
    let named = profile_vars
        .into_iter()
        .map(|n| (n, true))
        .chain(from_flags.map(|n| (n, false)));
    for (name, in_profile) in named {
        if !known.contains(&name) {
            let origin = match (&profile.origin, in_profile) {
                (Some(origin), true) => origin.clone(),
                _ => "--var".to_string(),
            };
            return Err(UsageError::UnknownVar {
                suggestion: closest(&name, known.iter().map(String::as_str)).map(str::to_string),
                origin,
                name,
                known: known.clone(),
            });
        }
    }
    Ok(())
}

/// A fleet peer's profile must name only variables the suite knows, as
/// `--profile` must.
fn check_profile_vars(suite: &Suite, path: &Path) -> Result<(), AppError> {
    let known = suite.variable_names();
    for name in Profile::load(path)?.vars.into_keys() {
        if !known.contains(&name) {
            return Err(UsageError::UnknownVar {
                suggestion: closest(&name, known.iter().map(String::as_str)).map(str::to_string),
                origin: format!("profile {}", path.display()),
                name,
                known: known.clone(),
            }
            .into());
        }
    }
    Ok(())
}

/// Writes the requested files, prints the terminal report, and picks the exit code.
fn finish(report: &RunReport, args: &RunArgs, outputs: &Outputs<'_>) -> Result<i32, AppError> {
    let report = &RunReport {
        summary: Some(crate::verdict::summarize(report)),
        ..report.clone()
    };
    if outputs.stdout_taken() {
        eprint!("{}", human::render(report, style(&args.output, true)));
    } else {
        print!("{}", human::render(report, style(&args.output, false)));
    }
    let junit = args
        .junit
        .as_ref()
        .map(|_| junit::render(report))
        .transpose()
        .map_err(|e| AppError::RenderReport(e.to_string()))?;
    let files = [
        (&args.json, Some(report.to_json())),
        (&args.junit, junit),
        (
            &args.markdown,
            args.markdown.as_ref().map(|_| markdown::render(report)),
        ),
    ];
    // Every file is attempted; all failures are shown, the last one by `run`.
    let mut unwritten: Vec<AppError> = Vec::new();
    for (path, contents) in files {
        if let (Some(path), Some(contents)) = (path, contents) {
            if is_stdout(path) {
                print!("{contents}");
                continue;
            }
            if let Err(source) = report::write_atomically(path, &contents) {
                unwritten.push(AppError::WriteReport {
                    path: path.clone(),
                    source,
                });
            }
        }
    }
    if let Some(last) = unwritten.pop() {
        unwritten.iter().for_each(AppError::print);
        return Err(last);
    }
    for peer in &report.peers {
        if let Some(error) = &peer.card_error {
            eprintln!("error: {}", terminal(error));
        }
    }
    // Already shown through `inert::terminal` by the human renderer.
    for warning in human::baseline_warnings(report) {
        eprintln!("warning: {warning}");
    }
    let code = crate::verdict::exit_code(report);
    // Exit 1 and exit 4 always say why, one line per row that decides it.
    for reason in crate::verdict::exit_reasons(report) {
        eprintln!("fails the run: {}", terminal(&reason));
    }
    if code == exit::PEER_UNREACHABLE {
        for reason in crate::verdict::malfunction_reasons(report) {
            eprintln!("fails the run (exit 3): {}", terminal(&reason));
        }
    }
    Ok(code)
}

/// `merge`: joins shard reports, prints the terminal report, writes the files.
fn merge(args: MergeArgs) -> Result<i32, AppError> {
    let loaded = args
        .reports
        .iter()
        .map(|path| crate::merge::load(path))
        .collect::<Result<Vec<_>, _>>()?;
    let report = crate::merge::merge(loaded)?;
    let targets = [
        ("--json", args.json.as_deref()),
        ("--junit", args.junit.as_deref()),
        ("--markdown", args.markdown.as_deref()),
    ];
    let outputs = Outputs { files: targets };
    outputs.check()?;
    let output = OutputArgs {
        color: args.color,
        quiet: args.quiet,
        verbose: args.verbose,
        progress: ProgressArg::None,
    };
    let junit = args
        .junit
        .as_ref()
        .map(|_| junit::render(&report))
        .transpose()
        .map_err(|e| AppError::RenderReport(e.to_string()))?;
    let human = human::render(&report, style(&output, outputs.stdout_taken()));
    if outputs.stdout_taken() {
        eprint!("{human}");
    } else {
        print!("{human}");
    }
    let files = [
        (&args.json, Some(report.to_json())),
        (&args.junit, junit),
        (
            &args.markdown,
            args.markdown.as_ref().map(|_| markdown::render(&report)),
        ),
    ];
    for (path, contents) in files {
        if let (Some(path), Some(contents)) = (path, contents) {
            if is_stdout(path) {
                print!("{contents}");
            } else {
                report::write_atomically(path, &contents).map_err(|source| {
                    AppError::WriteReport {
                        path: path.clone(),
                        source,
                    }
                })?;
            }
        }
    }
    Ok(crate::verdict::exit_code(&report))
}

fn diff(args: DiffArgs) -> Result<i32, AppError> {
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let markdown_to_stdout = args.markdown.as_deref().is_some_and(is_stdout);
    if let Some(path) = args.markdown.as_deref().filter(|p| !is_stdout(p)) {
        report::check_writable(path).map_err(|source| UsageError::ReportPath {
            flag: "--markdown",
            path: path.to_path_buf(),
            source,
        })?;
    }
    let options = diff::DiffOptions {
        fail_on: args.fail_on,
        accept: args.accept.clone(),
        baseline,
    };
    if args.json && markdown_to_stdout {
        return Err(UsageError::StdoutTwice.into());
    }
    let d = diff::diff_files(&args.old, &args.new, &options)?;
    let shown = if args.json {
        format!("{}\n", d.to_json())
    } else {
        d.render_styled(use_color(args.color, markdown_to_stdout))
    };
    if markdown_to_stdout {
        eprint!("{shown}");
    } else {
        print!("{shown}");
    }
    if let Some(path) = &args.markdown {
        let text = d.render_markdown();
        if is_stdout(path) {
            print!("{text}");
        } else {
            report::write_atomically(path, &text).map_err(|source| AppError::WriteReport {
                path: path.clone(),
                source,
            })?;
        }
    }
    for id in &d.unmatched_accepts {
        eprintln!(
            "warning: accepted `{}` names no change between these reports",
            terminal(id)
        );
    }
    Ok(if d.failed { exit::DIVERGED } else { exit::OK })
}

async fn demo(args: DemoArgs) -> Result<i32, AppError> {
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
    // A secured mock is checked with its own token, as a user would pass theirs.
    let bearer = peer
        .auth_token()
        .filter(|_| args.run.bearer_env.is_none())
        .map(|token| ("A2A_CONFORM_DEMO_TOKEN".to_string(), token));
    let code = run_check(
        &[peer.card_url()],
        &args.run,
        &defaults,
        bearer,
        &profile,
        CheckSetup::default(),
    )
    .await;
    peer.shutdown().await;
    code
}

async fn card(args: CardArgs) -> Result<i32, AppError> {
    check_peer_urls(std::slice::from_ref(&args.peer))?;
    let timeout = args.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let options = RunOptions {
        protocol: protocol_choice(args.protocol),
        binding: binding_choice(args.binding),
        client: ClientConfig {
            timeout,
            tls: tls_options(&args.tls)?,
            ..ClientConfig::default()
        },
        ..RunOptions::default()
    };
    let card = runner::fetch_card(&args.peer, &options)
        .await
        .map_err(|(_, message)| AppError::Peer(terminal(&message).into_owned()))?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&card).unwrap_or_else(|e| e.to_string())
        );
        return Ok(exit::OK);
    }
    // Everything here but the labels is the peer's text.
    let name = terminal(&card.name);
    println!("{name} — {}", terminal(card.fetched_from.as_str()));
    println!("  layout:   {}", card.layout);
    println!(
        "  endpoint: A2A {} over {} at {}",
        card.protocol_version(),
        card.binding(),
        terminal(card.endpoint.url.as_str())
    );
    for i in &card.interfaces {
        println!(
            "  interface: {} {} at {}",
            if i.declared_version.is_empty() {
                "?".into()
            } else {
                terminal(&i.declared_version)
            },
            terminal(&i.binding_name),
            terminal(i.url.as_str())
        );
    }
    println!("  digest:   {}", card.digest);
    println!("  declarations:");
    for d in card.declarations() {
        println!(
            "    {:<48} {}",
            terminal(&d.id.to_string()),
            if d.declared {
                "declared"
            } else {
                "not declared"
            }
        );
    }
    for w in &card.warnings {
        println!("  warning: {}", terminal(&w.to_string()));
    }
    Ok(exit::OK)
}

fn suite(cmd: SuiteCommand) -> Result<i32, AppError> {
    match cmd {
        SuiteCommand::Lint {
            files,
            no_default_suite,
        } => {
            // Checked against the default suite, as `check --suite` loads
            // them: a file redefining a default id fails both the same way.
            let mut suite = if no_default_suite {
                Suite::default()
            } else {
                Suite::embedded()?
            };
            let mut failed = false;
            for file in &files {
                let before = suite.scenarios.len();
                match suite.add_file(file) {
                    Ok(()) => println!(
                        "ok: {}: {} scenario(s)",
                        terminal(&file.display().to_string()),
                        suite.scenarios.len() - before
                    ),
                    Err(e) => {
                        // Lint shows every bad file, not only the first.
                        AppError::from(e).print();
                        failed = true;
                    }
                }
            }
            Ok(if failed { exit::USAGE } else { exit::OK })
        }
        SuiteCommand::List {
            suites,
            no_default_suite,
            json,
        } => {
            let suite = load_suite(&suites, no_default_suite)?;
            if json {
                let rows: Vec<serde_json::Value> = suite
                    .scenarios
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "id": s.id(),
                            "title": s.def.title,
                            "verifies": s.verifies.iter().map(ToString::to_string).collect::<Vec<_>>(),
                            "when": s.gate.as_ref().map(ToString::to_string),
                            "for_each": s.def.for_each.map(|f| f.to_string()),
                            "file": s.file,
                            "line": s.line,
                        })
                    })
                    .collect();
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rows).unwrap_or_else(|e| e.to_string())
                );
                return Ok(exit::OK);
            }
            for s in &suite.scenarios {
                let gate = s
                    .gate
                    .as_ref()
                    .map(|g| format!(" (when {g})"))
                    .unwrap_or_default();
                let each = s
                    .def
                    .for_each
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default();
                let verifies: Vec<String> = s.verifies.iter().map(ToString::to_string).collect();
                println!(
                    "{}  verifies {}{gate}{each}",
                    terminal(s.id()),
                    terminal(&verifies.join(", "))
                );
                println!(
                    "    {}  [{}:{}]",
                    terminal(&s.def.title.to_string()),
                    terminal(&s.file),
                    s.line
                );
            }
            Ok(exit::OK)
        }
    }
}

async fn mock_peer(args: MockPeerArgs) -> Result<i32, AppError> {
    let behaviour = args.behaviour;
    let auth_token = match &args.token_env {
        None => None,
        Some(var) => Some(env_secret("--token-env", var)?.trim().to_string()),
    };
    let config = MockConfig {
        protocol: mock_protocol(args.protocol),
        behaviour,
        port: args.port,
        timing: MockTiming {
            chunks: args.chunks,
            chunk_interval: args.chunk_interval,
            silence: args.silence,
            ..MockTiming::default()
        },
        auth_token,
    };
    let peer = MockPeer::start(config)
        .await
        .map_err(|source| AppError::MockPeer {
            action: "listen",
            address: format!("127.0.0.1:{}", args.port),
            source,
        })?;
    println!("{}", peer.card_url());
    eprintln!(
        "mock peer ({behaviour}, A2A {}) serving on {}; Ctrl-C stops it",
        peer.protocol(),
        peer.base_url()
    );
    let _ = tokio::signal::ctrl_c().await;
    peer.shutdown().await;
    Ok(exit::OK)
}
