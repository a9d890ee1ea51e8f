//! One peer through the pipeline: card, auth, plan, schedule (and run),
//! judge. Each stage lives in its own module; this is the order they run
//! in and what the peer's report gathers from each.

use super::auth::{self, Auth};
use super::card;
use super::judge;
use super::options::RunOptions;
use super::plan::{plan_runs, probe_window, Planned};
use super::precondition::Search;
use super::progress::Progress;
use super::schedule::PeerRuns;
use crate::scenario::Suite;
use a2a_conform_report::shard::Shard;
use a2a_conform_report::PeerReport;
use tokio::sync::Semaphore;

/// Checks one peer: its report, with a card error when the card cannot be
/// read or its endpoint used. Under `shard`, only that slice of its plan runs.
pub(crate) async fn check_peer(
    input: &str,
    suite: &Suite,
    options: &RunOptions,
    shard: Option<Shard>,
    slots: &Semaphore,
    progress: &dyn Progress,
) -> PeerReport {
    // Card: fetched, parsed, redacted; the peer's credentials belong to its origin.
    // The card fetch and the auth resolution are boxed: inline, their
    // futures' state (kilobytes) would stay in every peer's future while
    // its runs run, and a fleet holds a thousand peers in flight.
    let card = match Box::pin(card::fetch_until_cancelled(input, options)).await {
        Ok(card) => card,
        Err(without_card) => return without_card,
    };
    let options = &options.for_card(&card);
    let mut report = card::peer_report(&card);
    // Auth: the card's schemes resolved, a first token fetched.
    let (auth, warnings) = Box::pin(Auth::resolve(&card, options)).await;
    report.card_warnings.extend(warnings);
    report
        .card_warnings
        .extend(probe_window(&card, options).and_then(|w| w.warning()));
    let client = match auth::peer_client(&card, options) {
        Ok(client) => client,
        Err(e) => {
            report.card_error = Some(e.to_string());
            return report;
        }
    };
    // Plan: this shard's slice of the card's runs.
    let plan: Vec<Planned<'_>> = plan_runs(&card, suite, options)
        .into_iter()
        .enumerate()
        .filter(|(position, _)| shard.is_none_or(|s| s.keeps(*position)))
        .map(|(_, planned)| planned)
        .collect();
    progress.peer_started(&report.card_url, Some(&card.name), plan.len());
    // Schedule and run, with one precondition search the runs share.
    let search_client = auth.search_client(&client);
    let search = Search::new(search_client.as_ref().unwrap_or(&client), &card, options);
    let runs = PeerRuns {
        card_url: &report.card_url,
        client: &client,
        auth: &auth,
        search: &search,
        options,
        slots,
        progress,
    }
    .run_all(plan)
    .await;
    // Judge: the declaration rows from the runs.
    report.preconditions = Box::pin(search.report()).await;
    report.credentials = auth.credentials_report(options);
    report.extended_card_body = auth.served_extended_card();
    report.declarations = judge::declarations(&card, &runs);
    report.scenarios = runs;
    report
}
