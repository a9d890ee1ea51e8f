//! What each subcommand does: turning arguments into options, running, and
//! mapping the outcome to an exit code. Reports go to stdout, problems to
//! stderr: each [`AppError`] printed once, by [`run`].

use crate::baseline::Baseline;
use crate::card::{BindingChoice, ProtocolChoice};
use crate::cli::{
    BindingArg, CardArgs, CheckArgs, Cli, ColorArg, Command, DemoArgs, DiffArgs, MockPeerArgs,
    MockProtocolArg, OutputArgs, ProtocolArg, RunArgs, SuiteCommand,
};
use crate::declaration::closest;
use crate::diff;
use crate::error::{AppError, UsageError};
use crate::exit;
use crate::inert::terminal;
use crate::mock::{MockConfig, MockPeer, MockTiming};
use crate::profile::Profile;
use crate::protocol::{Binding, ProtocolVersion};
use crate::report::{self, human, junit, markdown, RunReport};
use crate::runner::{self, RunOptions};
use crate::scenario::Suite;
use crate::transport::client::{ClientConfig, SENSITIVE_HEADERS};
use crate::transport::Redactor;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// A request's wait for an answer when neither `--timeout` nor the profile sets one.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs a parsed command line; returns the process exit code. An error is
/// printed here, once, as `error: {e}`, and exits with its own code.
pub fn run(cli: Cli) -> i32 {
    execute(cli).unwrap_or_else(|e| {
        e.print();
        e.exit_code()
    })
}

fn execute(cli: Cli) -> Result<i32, AppError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(AppError::Runtime)?;
    runtime.block_on(async move {
        match cli.command {
            Command::Check(args) => check(args).await,
            Command::Demo(args) => demo(args).await,
            Command::Diff(args) => diff(args),
            Command::Card(args) => card(args).await,
            Command::Suite(cmd) => suite(cmd),
            Command::MockPeer(args) => mock_peer(args).await,
            Command::Completions { shell } => crate::docs::completions(shell),
            Command::Man { out_dir } => crate::docs::man(out_dir.as_deref()),
        }
    })
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
    }
}

fn mock_protocol(arg: MockProtocolArg) -> ProtocolVersion {
    match arg {
        MockProtocolArg::V1_0 => ProtocolVersion::V1_0,
        MockProtocolArg::V0_3 => ProtocolVersion::V0_3,
    }
}

/// Reads a non-empty secret from the environment variable a flag names.
fn env_secret(flag: &'static str, var: &str) -> Result<String, UsageError> {
    let token = std::env::var(var).map_err(|_| UsageError::EnvUnset {
        flag,
        var: var.to_string(),
    })?;
    if token.trim().is_empty() {
        return Err(UsageError::EnvEmpty {
            flag,
            var: var.to_string(),
        });
    }
    Ok(token)
}

/// Builds run options from flags and an optional profile (flags win).
fn run_options(args: &RunArgs, extra_vars: &[(String, String)]) -> Result<RunOptions, AppError> {
    let profile = match &args.profile {
        Some(path) => Profile::load(path)?,
        None => Profile::default(),
    };
    let mut options = RunOptions::default();
    for (k, v) in extra_vars {
        options.vars.insert(k.clone(), v.clone());
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
        options.vars.insert(name.to_string(), value.to_string());
    }
    let mut headers: Vec<(String, String)> = profile.headers.clone().into_iter().collect();
    for header in &args.headers {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| UsageError::HeaderSyntax(header.clone()))?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let mut secrets: Vec<String> = headers
        .iter()
        .filter(|(n, _)| SENSITIVE_HEADERS.contains(&n.to_ascii_lowercase().as_str()))
        .flat_map(|(_, v)| {
            // Mask both the whole value and the credential after a scheme word.
            let mut s = vec![v.clone()];
            if let Some((_, cred)) = v.split_once(' ') {
                s.push(cred.trim().to_string());
            }
            s
        })
        .collect();
    let bearer_var = args.bearer_env.clone().or(profile.bearer_env.clone());
    let bearer = match bearer_var {
        Some(var) => {
            let token = env_secret("--bearer-env", &var)?;
            secrets.push(token.clone());
            Some((var, token))
        }
        None => None,
    };
    let timeout = args.timeout.or(profile.timeout).unwrap_or(DEFAULT_TIMEOUT);
    options.client = ClientConfig {
        timeout,
        headers,
        bearer,
        ..ClientConfig::default()
    };
    options.redactor = Arc::new(Redactor::new(secrets));
    options.only = args.scenarios.clone();
    options.skip = args.skip.clone();
    options.protocol = protocol_choice(args.protocol);
    options.binding = binding_choice(args.binding);
    options.retries = args.retries;
    options.jobs = usize::from(args.jobs);
    Ok(options)
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

fn style(output: &OutputArgs) -> human::Style {
    let color = match output.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    };
    human::Style {
        color,
        verbose: output.verbose,
        quiet: output.quiet,
    }
}

async fn check(args: CheckArgs) -> Result<i32, AppError> {
    run_check(&args.peers, &args.run, &[], None).await
}

/// Checks `peers`; `bearer` is a token given by the tool itself (the demo's
/// own secured mock) rather than through `--bearer-env`.
async fn run_check(
    peers: &[String],
    args: &RunArgs,
    extra_vars: &[(String, String)],
    bearer: Option<(String, String)>,
) -> Result<i32, AppError> {
    let mut options = run_options(args, extra_vars)?;
    if let Some((var, token)) = bearer {
        options.redactor = Arc::new(options.redactor.with_secret(token.clone()));
        options.client.bearer = Some((var, token));
    }
    let suite = load_suite(&args.suites, args.no_default_suite)?;
    check_names(&suite, args, &options)?;
    let baseline = args.baseline.as_deref().map(Baseline::load).transpose()?;
    let progress = crate::progress::TerminalProgress::new(args.output.quiet);
    let mut report = runner::check(peers, &suite, &options, &progress).await;
    report.fail_on_flaky = args.fail_on_flaky;
    if let Some(baseline) = &baseline {
        baseline.apply(&mut report, args.strict_baseline);
    }
    finish(&report, args)
}

/// Scenario ids (`--scenario`, `--skip`) and variable names (`--var`, the
/// profile's `vars`) must name something in the loaded suite: a typo would
/// otherwise leave rows unverified under a green run.
fn check_names(suite: &Suite, args: &RunArgs, options: &RunOptions) -> Result<(), UsageError> {
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
    let profile_vars = match &args.profile {
        Some(path) => Profile::load(path)
            .map(|p| p.vars.into_keys().collect::<Vec<_>>())
            .unwrap_or_default(),
        None => Vec::new(),
    };
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
            let origin = match (&args.profile, in_profile) {
                (Some(path), true) => format!("profile {}", path.display()),
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

/// Writes the requested files, prints the terminal report, and picks the exit code.
fn finish(report: &RunReport, args: &RunArgs) -> Result<i32, AppError> {
    print!("{}", human::render(report, style(&args.output)));
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
    if code == exit::DIVERGED {
        for reason in crate::verdict::failing_reasons(report) {
            eprintln!("fails the run: {}", terminal(&reason));
        }
    }
    Ok(code)
}

fn diff(args: DiffArgs) -> Result<i32, AppError> {
    let d = diff::diff_files(&args.old, &args.new, args.fail_on)?;
    if args.json {
        println!("{}", d.to_json());
    } else {
        print!("{}", d.render());
    }
    Ok(if d.failed { exit::DIVERGED } else { exit::OK })
}

async fn demo(args: DemoArgs) -> Result<i32, AppError> {
    let behaviour = args.behaviour;
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
    let code = run_check(&[peer.card_url()], &args.run, &defaults, bearer).await;
    peer.shutdown().await;
    code
}

async fn card(args: CardArgs) -> Result<i32, AppError> {
    let timeout = args.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let options = RunOptions {
        protocol: protocol_choice(args.protocol),
        binding: binding_choice(args.binding),
        client: ClientConfig {
            timeout,
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
        SuiteCommand::Lint { files } => {
            let mut suite = Suite::default();
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
        } => {
            let suite = load_suite(&suites, no_default_suite)?;
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
