//! `a2a-conform replay FILE`: a cassette served as a peer on loopback
//! (crate `a2a-conform-cassette`, `ReplayServer`), its card URL printed on
//! stdout as `mock-peer` prints its own, until interrupted.

use crate::cli::ReplayArgs;
use crate::error::AppError;
use a2a_conform_cassette::{Cassette, Miss, Pace, ReplayOptions, ReplayServer};
use a2a_conform_report::exit;

/// The pace `--as-fast-as-possible` and `--speed N` ask for.
pub(super) fn pace(as_fast_as_possible: bool, speed: f64) -> Pace {
    if as_fast_as_possible {
        Pace::AsFastAsPossible
    } else {
        Pace::Speed(speed)
    }
}

/// Cassette text (and a file name) on a terminal: a cassette is peer text,
/// as anyone can write one, so its strings are inert.
pub(super) fn inert(text: &str) -> String {
    a2a_conform_report::inert::terminal(text).into_owned()
}

/// `recorded by TOOL VERSION at TIME`, from the cassette's header, inert,
/// and what its seal is worth: anyone can reseal an edited cassette.
pub(super) fn recorded_by(cassette: &Cassette) -> String {
    let header = &cassette.header;
    format!(
        "recorded by {} {} at {}; sealed for integrity, not authenticity",
        inert(&header.tool),
        inert(&header.tool_version),
        inert(&header.started_at)
    )
}

/// Reads a cassette (refused with exit 2, naming the problem) and keeps,
/// with `scenario`, only that scenario's runs (and the precondition
/// searches they may need).
pub(super) fn load(path: &std::path::Path, scenario: Option<&str>) -> Result<Cassette, AppError> {
    let mut cassette = Cassette::load(path)?;
    if let Some(id) = scenario {
        cassette
            .runs
            .retain(|r| r.scenario == id || r.run == id || r.run.starts_with("precondition:"));
    }
    Ok(cassette)
}

/// Starts a replay of `cassette` on loopback; an error names the file.
pub(super) async fn start(
    cassette: &Cassette,
    options: ReplayOptions,
    path: &std::path::Path,
) -> Result<ReplayServer, AppError> {
    ReplayServer::start(cassette, options)
        .await
        .map_err(|source| AppError::Replay {
            path: path.to_path_buf(),
            source,
        })
}

pub(super) async fn replay(args: ReplayArgs) -> Result<i32, AppError> {
    let cassette = load(&args.file, args.scenario.as_deref())?;
    let options = ReplayOptions {
        port: args.port,
        peer: args.peer,
        pace: pace(args.as_fast_as_possible, args.speed),
        miss: Miss::Error,
    };
    let server = start(&cassette, options, &args.file).await?;
    println!("{}", server.card_url());
    let runs = cassette.runs.iter().filter(|r| r.peer == args.peer).count();
    eprintln!(
        "replay of {} ({runs} runs {}) serving on {}; Ctrl-C stops it",
        inert(&args.file.display().to_string()),
        recorded_by(&cassette),
        server.base_url()
    );
    if let Some(id) = &args.scenario {
        eprintln!(
            "check it with: a2a-conform check {} --scenario {id}",
            server.card_url()
        );
    }
    let _ = tokio::signal::ctrl_c().await;
    let misses = server.misses();
    if !misses.is_empty() {
        eprintln!("{} requests were not in the recording:", misses.len());
        for miss in misses.iter().take(20) {
            eprintln!("  {}", a2a_conform_report::inert::terminal(miss));
        }
    }
    server.shutdown().await;
    Ok(exit::OK)
}
