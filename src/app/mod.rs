//! What each subcommand does: turning arguments into options, running, and
//! mapping the outcome to an exit code. Reports go to stdout, problems to
//! stderr: each [`AppError`] printed once, by [`run`].

mod badge;
mod check;
mod commands;
mod dashboard;
mod history;
mod options;
mod output;
pub mod pipe;
mod profile_init;
mod rejudge;
mod replay;
mod schema;
mod send;
mod show;
mod watch;

use crate::cli::{Cli, Command, ConfigCommand, ProfileCommand, SchemaCommand};
use crate::config::{ConfigFile, Parsed};
use crate::error::AppError;
use crate::settings::Sources;
use check::{check, demo};
use commands::{card, diff, merge, mock_peer, suite};
use std::time::Duration;

/// Runs a parsed command line; returns the process exit code. An error is
/// printed here, once, as `error: {e}`, and exits with its own code. With
/// no record of where its values came from, each counts as a flag.
pub fn run(cli: Cli) -> i32 {
    run_parsed(Parsed {
        cli,
        config: None,
        sources: Sources::unrecorded(),
    })
}

/// [`run`] with the config file the command line was parsed with (its
/// per-peer sections apply to `check`).
pub fn run_parsed(parsed: Parsed) -> i32 {
    execute(parsed.cli, parsed.config, &parsed.sources).unwrap_or_else(|e| {
        e.print();
        e.exit_code()
    })
}

fn execute(cli: Cli, config: Option<ConfigFile>, sources: &Sources) -> Result<i32, AppError> {
    // A fleet holds a socket or two per run in flight, and the usual soft
    // limit on open files (1,024) is far below what 1,000 peers need; the
    // hard limit is the user's real bound (as Go's runtime does). What is
    // left is read back to size the runs in flight (engine `runner::fleet`).
    let _ = rlimit::increase_nofile_limit(u64::MAX);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(AppError::Runtime)?;
    let code = runtime.block_on(async move {
        match cli.command {
            Command::Check(args) => check(args, config.as_ref(), sources).await,
            Command::Demo(args) => demo(args, sources).await,
            Command::Diff(args) => diff(args),
            Command::Merge(args) => merge(args),
            Command::Card(args) => card(args, config.as_ref(), sources).await,
            Command::Suite(cmd) => suite(cmd),
            Command::MockPeer(args) => mock_peer(args).await,
            Command::Completions { shell } => crate::docs::completions(shell),
            Command::Man { out_dir } => crate::docs::man(out_dir.as_deref()),
            Command::Config(ConfigCommand::Show { peer }) => {
                show::config_show(config.as_ref(), peer.as_deref())
            }
            Command::Schema(SchemaCommand::Report) => schema::print(),
            Command::Profile(ProfileCommand::Init(args)) => profile_init::init(args, sources).await,
            Command::Badge(args) => badge::badge(args),
            Command::Send(args) => send::send(args, sources).await,
            Command::Dashboard(args) => dashboard::dashboard(args).await,
            Command::Watch(args) => watch::watch(args, config.as_ref(), sources).await,
            Command::History(cmd) => history::history(cmd).await,
            Command::Replay(args) => replay::replay(args).await,
            Command::Rejudge(args) => rejudge::rejudge(args, sources).await,
        }
    });
    // An interrupted check has written its reports; tasks it left behind
    // (a webhook receiver, a resolver thread) must not hold the exit up.
    runtime.shutdown_timeout(Duration::from_millis(500));
    code
}
