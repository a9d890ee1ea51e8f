//! What each subcommand does: turning arguments into options, running, and
//! mapping the outcome to an exit code. Reports go to stdout, problems to stderr.

use crate::baseline::Baseline;
use crate::card::{BindingChoice, ProtocolChoice};
use crate::cli::{
    BindingArg, CardArgs, CheckArgs, Cli, ColorArg, Command, DemoArgs, DiffArgs, FailOnArg,
    MockPeerArgs, MockProtocolArg, OutputArgs, ProtocolArg, RunArgs, SuiteCommand,
};
use crate::diff::{self, FailOn};
use crate::exit;
use crate::mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use crate::profile::Profile;
use crate::protocol::{Binding, ProtocolVersion};
use crate::report::{self, human, junit, markdown, RunReport};
use crate::runner::{self, RunOptions};
use crate::scenario::{vars, Suite};
use crate::transport::client::{ClientConfig, SENSITIVE_HEADERS};
use crate::transport::Redactor;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Runs a parsed command line; returns the process exit code.
pub fn run(cli: Cli) -> i32 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return exit::USAGE;
        }
    };
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

/// A usage problem: print it and give exit 2.
fn usage(message: impl std::fmt::Display) -> i32 {
    eprintln!("{message}");
    exit::USAGE
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

fn parse_timeout(text: Option<&str>, default: Duration) -> Result<Duration, String> {
    match text {
        None => Ok(default),
        Some(t) => vars::parse_duration(t)
            .map_err(|e| format!("error: --timeout: {e}"))
            .and_then(|d| {
                if d.is_zero() {
                    Err("error: --timeout must be more than zero".into())
                } else {
                    Ok(d)
                }
            }),
    }
}

/// Builds run options from flags and an optional profile (flags win).
fn run_options(args: &RunArgs, extra_vars: &[(String, String)]) -> Result<RunOptions, String> {
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
            .ok_or_else(|| format!("error: --var `{var}` must be NAME=VALUE"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("error: --var `{var}` has an empty name"));
        }
        options.vars.insert(name.to_string(), value.to_string());
    }
    let mut headers: Vec<(String, String)> = profile.headers.clone().into_iter().collect();
    for header in &args.headers {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| format!("error: --header `{header}` must be 'Name: value'"))?;
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
            let token = std::env::var(&var).map_err(|_| {
                format!("error: --bearer-env {var}: the environment variable `{var}` is not set")
            })?;
            if token.trim().is_empty() {
                return Err(format!("error: --bearer-env {var}: `{var}` is empty"));
            }
            secrets.push(token.clone());
            Some((var, token))
        }
        None => None,
    };
    let timeout = parse_timeout(
        args.timeout.as_deref().or(profile.timeout.as_deref()),
        Duration::from_secs(30),
    )?;
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

fn load_suite(files: &[PathBuf], no_default: bool) -> Result<Suite, String> {
    if no_default && files.is_empty() {
        return Err("error: --no-default-suite needs at least one --suite FILE".into());
    }
    let mut suite = if no_default {
        Suite::default()
    } else {
        Suite::embedded().map_err(|e| e.to_string())?
    };
    for file in files {
        suite.add_file(file).map_err(|e| e.to_string())?;
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

async fn check(args: CheckArgs) -> i32 {
    run_check(&args.peers, &args.run, &[]).await
}

async fn run_check(peers: &[String], args: &RunArgs, extra_vars: &[(String, String)]) -> i32 {
    run_check_with(peers, args, extra_vars, None).await
}

/// [`run_check`], with a bearer token given by the tool itself (the demo's
/// own secured mock) rather than through `--bearer-env`.
async fn run_check_with(
    peers: &[String],
    args: &RunArgs,
    extra_vars: &[(String, String)],
    bearer: Option<(String, String)>,
) -> i32 {
    let mut options = match run_options(args, extra_vars) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    if let Some((var, token)) = bearer {
        options.redactor = Arc::new(options.redactor.with_secret(token.clone()));
        options.client.bearer = Some((var, token));
    }
    let suite = match load_suite(&args.suites, args.no_default_suite) {
        Ok(s) => s,
        Err(e) => return usage(e),
    };
    for id in options.only.iter().chain(options.skip.iter()) {
        if !suite.scenarios.iter().any(|s| s.id() == id) {
            return usage(format!(
                "error: no scenario `{id}` in the suite (see `a2a-conform suite list`)"
            ));
        }
    }
    let baseline = match &args.baseline {
        Some(path) => match Baseline::load(path) {
            Ok(b) => Some(b),
            Err(e) => return usage(e),
        },
        None => None,
    };
    let progress = crate::progress::TerminalProgress::new(args.output.quiet);
    let mut report = runner::check(peers, &suite, &options, &progress).await;
    report.fail_on_flaky = args.fail_on_flaky;
    if let Some(baseline) = &baseline {
        baseline.apply(&mut report, args.strict_baseline);
    }
    finish(&report, args)
}

/// Writes the requested files, prints the terminal report, and picks the exit code.
fn finish(report: &RunReport, args: &RunArgs) -> i32 {
    print!("{}", human::render(report, style(&args.output)));
    let junit = match args
        .junit
        .as_ref()
        .map(|_| junit::render(report))
        .transpose()
    {
        Ok(xml) => xml,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    let files = [
        (&args.json, Some(report.to_json())),
        (&args.junit, junit),
        (
            &args.markdown,
            args.markdown.as_ref().map(|_| markdown::render(report)),
        ),
    ];
    let mut written = true;
    for (path, contents) in files {
        if let (Some(path), Some(contents)) = (path, contents) {
            if let Err(e) = report::write_atomically(path, &contents) {
                eprintln!("error: cannot write {}: {e}", path.display());
                written = false;
            }
        }
    }
    if !written {
        return exit::USAGE;
    }
    for peer in &report.peers {
        if let Some(error) = &peer.card_error {
            eprintln!("error: {error}");
        }
    }
    for warning in human::baseline_warnings(report) {
        eprintln!("warning: {warning}");
    }
    let code = crate::verdict::exit_code(report);
    if code == exit::DIVERGED {
        for reason in crate::verdict::failing_reasons(report) {
            eprintln!("fails the run: {reason}");
        }
    }
    code
}

fn diff(args: DiffArgs) -> i32 {
    let fail_on = match args.fail_on {
        FailOnArg::Regression => FailOn::Regression,
        FailOnArg::Any => FailOn::Any,
        FailOnArg::Never => FailOn::Never,
    };
    match diff::diff_files(&args.old, &args.new, fail_on) {
        Ok(d) => {
            if args.json {
                println!("{}", d.to_json());
            } else {
                print!("{}", d.render());
            }
            if d.failed {
                exit::DIVERGED
            } else {
                exit::OK
            }
        }
        Err(e) => usage(e),
    }
}

async fn demo(args: DemoArgs) -> i32 {
    let behaviour: Behaviour = match args.behaviour.parse() {
        Ok(b) => b,
        Err(e) => return usage(format!("error: --behaviour: {e}")),
    };
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
    let peer = match MockPeer::start(config).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot start the mock peer on 127.0.0.1: {e}");
            return exit::PEER_UNREACHABLE;
        }
    };
    eprintln!(
        "demo: checking the built-in mock peer ({}, A2A {}) at {}",
        behaviour.name(),
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
    let code = run_check_with(&[peer.card_url()], &args.run, &defaults, bearer).await;
    peer.shutdown().await;
    code
}

async fn card(args: CardArgs) -> i32 {
    let timeout = match parse_timeout(args.timeout.as_deref(), Duration::from_secs(30)) {
        Ok(t) => t,
        Err(e) => return usage(e),
    };
    let options = RunOptions {
        protocol: protocol_choice(args.protocol),
        binding: binding_choice(args.binding),
        client: ClientConfig {
            timeout,
            ..ClientConfig::default()
        },
        ..RunOptions::default()
    };
    let card = match runner::fetch_card(&args.peer, &options).await {
        Ok(c) => c,
        Err((_, message)) => {
            eprintln!("error: {message}");
            return exit::PEER_UNREACHABLE;
        }
    };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&card).unwrap_or_else(|e| e.to_string())
        );
        return exit::OK;
    }
    println!("{} — {}", card.name, card.fetched_from);
    println!("  layout:   {}", card.layout);
    println!(
        "  endpoint: A2A {} over {} at {}",
        card.protocol_version(),
        card.binding(),
        card.endpoint.url
    );
    for i in &card.interfaces {
        println!(
            "  interface: {} {} at {}",
            if i.declared_version.is_empty() {
                "?"
            } else {
                &i.declared_version
            },
            i.binding_name,
            i.url
        );
    }
    println!("  digest:   {}", card.digest);
    println!("  declarations:");
    for d in card.declarations() {
        println!(
            "    {:<48} {}",
            d.id,
            if d.declared {
                "declared"
            } else {
                "not declared"
            }
        );
    }
    for w in &card.warnings {
        println!("  warning: {w}");
    }
    exit::OK
}

fn suite(cmd: SuiteCommand) -> i32 {
    match cmd {
        SuiteCommand::Lint { files } => {
            let mut suite = Suite::default();
            let mut failed = false;
            for file in &files {
                let before = suite.scenarios.len();
                match suite.add_file(file) {
                    Ok(()) => println!(
                        "ok: {}: {} scenario(s)",
                        file.display(),
                        suite.scenarios.len() - before
                    ),
                    Err(e) => {
                        eprintln!("{e}");
                        failed = true;
                    }
                }
            }
            if failed {
                exit::USAGE
            } else {
                exit::OK
            }
        }
        SuiteCommand::List {
            suites,
            no_default_suite,
        } => {
            let suite = match load_suite(&suites, no_default_suite) {
                Ok(s) => s,
                Err(e) => return usage(e),
            };
            for s in &suite.scenarios {
                let gate = s
                    .def
                    .when
                    .as_ref()
                    .map(|w| format!(" (when {})", w.value))
                    .unwrap_or_default();
                let each = if s.def.for_each.is_some() {
                    " (for each declared input mode)"
                } else {
                    ""
                };
                println!(
                    "{}  verifies {}{gate}{each}",
                    s.id(),
                    s.def.verifies.join(", ")
                );
                println!("    {}  [{}:{}]", s.def.title, s.file, s.line);
            }
            exit::OK
        }
    }
}

async fn mock_peer(args: MockPeerArgs) -> i32 {
    let behaviour: Behaviour = match args.behaviour.parse() {
        Ok(b) => b,
        Err(e) => return usage(format!("error: --behaviour: {e}")),
    };
    let duration = |flag: &str, text: &str| {
        vars::parse_duration(text).map_err(|e| format!("error: --{flag}: {e}"))
    };
    let (chunk_interval, silence) = match (
        duration("chunk-interval", &args.chunk_interval),
        duration("silence", &args.silence),
    ) {
        (Ok(c), Ok(s)) => (c, s),
        (Err(e), _) | (_, Err(e)) => return usage(e),
    };
    let auth_token = match &args.token_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(token) if !token.trim().is_empty() => Some(token.trim().to_string()),
            Ok(_) => return usage(format!("error: --token-env {var}: `{var}` is empty")),
            Err(_) => {
                return usage(format!(
                    "error: --token-env {var}: the environment variable `{var}` is not set"
                ))
            }
        },
    };
    let config = MockConfig {
        protocol: mock_protocol(args.protocol),
        behaviour,
        port: args.port,
        timing: MockTiming {
            chunks: args.chunks,
            chunk_interval,
            silence,
            ..MockTiming::default()
        },
        auth_token,
    };
    let peer = match MockPeer::start(config).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return exit::PEER_UNREACHABLE;
        }
    };
    println!("{}", peer.card_url());
    eprintln!(
        "mock peer ({}, A2A {}) serving on {}; Ctrl-C stops it",
        behaviour.name(),
        peer.protocol(),
        peer.base_url()
    );
    let _ = tokio::signal::ctrl_c().await;
    peer.shutdown().await;
    exit::OK
}
