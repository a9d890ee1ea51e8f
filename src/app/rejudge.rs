//! `a2a-conform rejudge FILE`: the current tool and suite over a cassette.
//! The cassette is served in-process on loopback and checked by the same
//! verdict engine as any peer, so nothing is judged twice over; a request
//! the recording does not hold makes its run unverified ("not in the
//! recording"), never a guess. Exit codes as `check`'s.
//!
//! Re-judging is offline by construction: the process is confined to the
//! replay server's origin before any client is built (a token URL, a `jku`
//! key set or an interface the cassette names is never connected to), and
//! no credential is read or sent — the credential flags are set aside, and
//! the card's schemes are met by placeholders the replay does not check.

use super::check::{run_check_inspecting, CheckSetup};
use super::options::run_top;
use super::replay::{inert, load, pace, recorded_by};
use crate::cli::RejudgeArgs;
use crate::error::AppError;
use crate::settings::{Resolved, Sources};
use a2a_conform_cassette::{Cassette, Miss, ReplayOptions};
use a2a_conform_report::RunReport;

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
    let server = super::replay::start(&cassette, options, &args.file).await?;
    eprintln!(
        "rejudge: {} ({}) replayed at {}",
        inert(&args.file.display().to_string()),
        recorded_by(&cassette),
        server.card_url()
    );
    let origin = url::Url::parse(&server.base_url()).map(|u| u.origin());
    if !origin.is_ok_and(a2a_conform_client::http::confine_to) {
        server.shutdown().await;
        return Err(AppError::Replay {
            path: args.file.clone(),
            source: a2a_conform_cassette::ReplayError::Confine,
        });
    }
    let mut settings = run_top(&args.run, sources)?.resolve(&[], &recorded_vars(&cassette));
    let set_aside = without_credentials(&mut settings);
    if !set_aside.is_empty() {
        eprintln!(
            "rejudge: uses no credential (the recording is served as recorded): {} not read",
            set_aside.join(", ")
        );
    }
    let peer = args.peer;
    let compare = |report: &RunReport| say_what_differs(&cassette, peer, report);
    let code = run_check_inspecting(
        &[server.card_url()],
        &args.run,
        offline_setup(settings),
        compare,
    )
    .await;
    server.shutdown().await;
    code
}

/// Clears every credential setting, and names those that were set.
fn without_credentials(settings: &mut Resolved) -> Vec<&'static str> {
    let mut set_aside = Vec::new();
    let mut aside = |was_set: bool, flag: &'static str| {
        if was_set {
            set_aside.push(flag);
        }
    };
    aside(!settings.headers.is_empty(), "--header");
    settings.headers.clear();
    aside(settings.bearer_env.take().is_some(), "--bearer-env");
    aside(settings.api_key_env.take().is_some(), "--api-key-env");
    aside(settings.basic_env.take().is_some(), "--basic-env");
    aside(
        settings.oauth_client.take().is_some(),
        "--oauth-client-id-env/--oauth-client-secret-env",
    );
    aside(settings.client_cert.take().is_some(), "--cert/--key");
    set_aside
}

/// The placeholder every credential is: it meets the card's schemes (a
/// bearer token meets `http` bearer, `oauth2` and `openIdConnect`, so no
/// token URL is asked) and is no secret of anyone's.
const PLACEHOLDER: &str = "a2a-conform-rejudge-sends-no-credential";

/// The check's setup with placeholder credentials instead of real ones.
fn offline_setup(settings: Resolved) -> CheckSetup {
    use a2a_conform_client::auth::{AuthSettings, EnvSecret};
    let placeholder = || EnvSecret {
        var: "A2A_CONFORM_REJUDGE_PLACEHOLDER".to_string(),
        value: PLACEHOLDER.to_string(),
    };
    CheckSetup {
        bearer: Some((
            "A2A_CONFORM_REJUDGE_PLACEHOLDER".to_string(),
            PLACEHOLDER.to_string(),
        )),
        auth: Some(AuthSettings {
            api_key: Some(placeholder()),
            basic: Some((placeholder(), placeholder())),
            oauth_client: None,
        }),
        ..CheckSetup::new(settings)
    }
}

/// Says on stderr, per run, where the verdict now differs from the one
/// recorded (a cassette whose recorded verdict was edited, or a suite or
/// tool that judges otherwise now): `rejudge: run ID: recorded fail, now
/// pass`. The recorded verdict is cassette text: inert.
fn say_what_differs(cassette: &Cassette, peer: usize, report: &RunReport) {
    let Some(checked) = report.peers.first() else {
        return;
    };
    let mut differ = 0;
    for run in &checked.scenarios {
        let Some(recorded) = cassette.run(peer, &run.id) else {
            continue;
        };
        let now: &'static str = run.verdict.into();
        if now != recorded.verdict {
            differ += 1;
            eprintln!(
                "rejudge: run {}: recorded {}, now {now}",
                inert(&run.id),
                inert(&recorded.verdict)
            );
        }
    }
    if differ > 0 {
        eprintln!("rejudge: {differ} run(s) read otherwise than recorded");
    }
}
