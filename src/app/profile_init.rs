//! `profile init`: the precondition search a check makes when nothing is
//! set, run once against a peer, and written as a profile a CI job pins.

use super::options::{
    binding_choice, check_peer_urls, init_top, protocol_choice, redactor, secrets, PeerClients,
};
use crate::cli::ProfileInitArgs;
use crate::error::{AppError, UsageError};
use crate::settings::Sources;
use a2a_conform_engine::runner::{self, RunOptions};
use a2a_conform_report::exit;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::{self, PreconditionOutcome};
use std::sync::Arc;

pub(super) async fn init(args: ProfileInitArgs, sources: &Sources) -> Result<i32, AppError> {
    check_peer_urls(std::slice::from_ref(&args.peer))?;
    // The profile is to be written: only the flags set anything.
    let settings = init_top(&args.connect, sources)?.resolve(&[], &[]);
    let (client, auth) = PeerClients::new(args.connect.tls.insecure).client(&settings)?;
    let mut options = RunOptions {
        protocol: protocol_choice(args.connect.protocol),
        binding: binding_choice(args.connect.binding),
        client,
        auth: Arc::new(auth),
        discover_budget: args.discover_budget as usize,
        ..RunOptions::default()
    };
    options.redactor = redactor(secrets(&options));
    if let Some(path) = &args.output {
        a2a_conform_report::check_writable(path).map_err(|source| UsageError::ReportPath {
            flag: "--output",
            path: path.clone(),
            source,
        })?;
    }
    let (card, preconditions) = runner::search_peer(&args.peer, &options)
        .await
        .map_err(|e| AppError::Peer(terminal(&e.reason).into_owned()))?;
    let auth_hints = a2a_conform_client::auth::profile_hints(&card);
    let text = crate::profile::render_init(&crate::profile::Found {
        auth_hints: &auth_hints,
        card_url: &card.fetched_from,
        name: &card.name,
        security_schemes: &card.security_schemes,
        preconditions: &preconditions,
    });
    let text = options.redactor.redact(&text);
    match &args.output {
        Some(path) => {
            a2a_conform_report::write_atomically(path, &text).map_err(|source| {
                AppError::WriteReport {
                    path: path.clone(),
                    source,
                }
            })?;
            eprintln!("wrote {}", terminal(&path.display().to_string()));
        }
        None => print!("{text}"),
    }
    for search in &preconditions {
        eprintln!(
            "{}",
            terminal(&format!("{}: {}", search.outcome.as_str(), search.message))
        );
    }
    Ok(
        match preconditions
            .iter()
            .map(|s| s.outcome)
            .max_by_key(|o| match o {
                PreconditionOutcome::Found => 0,
                PreconditionOutcome::NotFound => 1,
                PreconditionOutcome::Error => 2,
            }) {
            Some(PreconditionOutcome::Error) => exit::PEER_UNREACHABLE,
            Some(PreconditionOutcome::NotFound) => exit::NOTHING_VERIFIED,
            _ => exit::OK,
        },
    )
}
