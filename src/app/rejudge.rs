//! `a2a-conform rejudge FILE`: the current tool and suite over a cassette.
//! The cassette is served in-process on loopback and checked by the same
//! verdict engine as any peer, so nothing is judged twice over; a request
//! the recording does not hold makes its run unverified ("not in the
//! recording"), never a guess. Exit codes as `check`'s.

use super::check::{run_check, CheckSetup};
use super::options::run_top;
use super::replay::{load, pace};
use crate::cli::RejudgeArgs;
use crate::error::AppError;
use crate::settings::Sources;
use a2a_conform_cassette::{Cassette, Miss, ReplayOptions, ReplayServer};

/// The recorded variables, as the lowest layer: a re-judged check waits
/// and prompts as the recorded one did unless a flag or profile says
/// otherwise.
fn recorded_vars(cassette: &Cassette) -> Vec<(String, String)> {
    let Some(serde_json::Value::Object(vars)) = cassette.header.options.get("vars") else {
        return Vec::new();
    };
    vars.iter()
        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
        .collect()
}

/// A recorded selection (`only`, `skip`), when the command line gives none.
fn recorded_list(cassette: &Cassette, key: &str) -> Vec<String> {
    match cassette.header.options.get(key) {
        Some(serde_json::Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) async fn rejudge(mut args: RejudgeArgs, sources: &Sources) -> Result<i32, AppError> {
    let cassette = load(&args.file, None)?;
    if args.run.scenarios.is_empty() {
        args.run.scenarios = recorded_list(&cassette, "only");
    }
    if args.run.skip.is_empty() {
        args.run.skip = recorded_list(&cassette, "skip");
    }
    let options = ReplayOptions {
        port: 0,
        peer: args.peer,
        pace: pace(args.as_fast_as_possible, args.speed),
        miss: Miss::Unverified,
    };
    let server = ReplayServer::start(&cassette, options)
        .await
        .map_err(|source| AppError::Replay {
            path: args.file.clone(),
            source,
        })?;
    eprintln!(
        "rejudge: {} (recorded by {} {} at {}) replayed at {}",
        args.file.display(),
        cassette.header.tool,
        cassette.header.tool_version,
        cassette.header.started_at,
        server.card_url()
    );
    let settings = run_top(&args.run, sources)?.resolve(&[], &recorded_vars(&cassette));
    let code = run_check(&[server.card_url()], &args.run, CheckSetup::new(settings)).await;
    server.shutdown().await;
    code
}
