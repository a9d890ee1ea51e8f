//! `profile init`: the precondition search a check makes when nothing is
//! set, run once against a peer, and written as a profile a CI job pins.
//! `-o FILE` never destroys a file: an existing one is refused unless
//! `--force`, a symbolic link always (before any request), and the profile
//! is written to a new temporary file in the same folder, then linked (or,
//! with `--force`, renamed) into place.

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
use std::path::Path;
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
        refuse_to_clobber(path, args.force)?;
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
            write_profile(path, &text, args.force)?;
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

/// Refuses a symbolic link, and an existing file without `force`.
fn refuse_to_clobber(path: &Path, force: bool) -> Result<(), UsageError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(UsageError::OutputSymlink {
            path: path.to_path_buf(),
        }),
        Ok(_) if !force => Err(UsageError::OutputExists {
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// Writes `text` to a new temporary file beside `path`, then puts it in
/// place: without `force` by a hard link, which fails if a file (or link)
/// appeared at `path` meanwhile, so nothing is replaced; with `force` by a
/// rename, which replaces a file (a link itself, never its target).
fn write_profile(path: &Path, text: &str, force: bool) -> Result<(), AppError> {
    use std::io::Write;
    let failed = |source| AppError::WriteReport {
        path: path.to_path_buf(),
        source,
    };
    refuse_to_clobber(path, force)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profile".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        });
    let placed = written.and_then(|()| {
        if force {
            std::fs::rename(&tmp, path)
        } else {
            std::fs::hard_link(&tmp, path)
        }
    });
    let _ = std::fs::remove_file(&tmp);
    match placed {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(UsageError::OutputExists {
            path: path.to_path_buf(),
        }
        .into()),
        other => other.map_err(failed),
    }
}
