//! `send`: one task delegated to a peer under the guards of
//! `a2a-conform-guard` (docs/guards.md). It prints the task's timeline and
//! every declaration the peer broke on the way (each now demoted in the
//! capability cache), and its exit code says whether the outcome can be
//! trusted: 0 kept, 1 a violation (any demotion the guards made, whatever
//! the run ended in), 2 usage, 3 a peer malfunction. Everything it prints
//! or writes is redacted of every secret by value, then made inert: a peer
//! can echo a token in an error message.

use super::options::{binding_choice, init_top, protocol_choice, PeerClients};
use crate::cli::SendArgs;
use crate::error::AppError;
use crate::settings::Sources;
use a2a_conform_client::auth::{IssuedSecrets, PeerAuth};
use a2a_conform_client::card_fetch::fetch_card;
use a2a_conform_client::{Record, Redactor};
use a2a_conform_guard::{
    CacheOptions, CancelOutcome, CapabilityCache, ContractViolation, EventSource, Guard,
    GuardError, GuardOptions, PartsSent, TaskEvent, TaskHandle,
};
use a2a_conform_protocol::MessagePart;
use a2a_conform_report::exit;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::input::{read_capped_bytes, YAML_CAP};
use base64::Engine as _;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;
use tokio::time::Instant;

/// A `send` input that cannot be used: exit 2, before any request.
#[derive(Debug, thiserror::Error)]
enum SendUsage {
    #[error("--{flag} is not JSON: {source}")]
    Json {
        flag: &'static str,
        source: serde_json::Error,
    },
    #[error("cannot read {flag} {}: {source}", path.display())]
    Read {
        flag: &'static str,
        path: PathBuf,
        source: a2a_conform_report::input::ReadError,
    },
    #[error("--cache {}: {source}", path.display())]
    Cache {
        path: PathBuf,
        source: a2a_conform_guard::CacheError,
    },
    #[error("--from-report {}: {source}", path.display())]
    Seed {
        path: PathBuf,
        source: a2a_conform_guard::CacheError,
    },
    #[error("cannot write --json {}: {source}", path.display())]
    JsonOut {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the run came to, for the exit code and `--json`.
struct Run {
    outcome: String,
    code: i32,
    violations: Vec<ContractViolation>,
    exchanges: Vec<Record>,
}

pub(super) async fn send(args: SendArgs, sources: &Sources) -> Result<i32, AppError> {
    let (parts, reply) = match message_parts(&args).and_then(|p| Ok((p, reply_parts(&args)?))) {
        Ok(both) => both,
        Err(e) => return Ok(usage(&e)),
    };
    let settings = init_top(&args.connect, sources)?.resolve(&[], &[]);
    let (config, auth) = PeerClients::new(args.connect.tls.insecure).client(&settings)?;
    let cache = match open_cache(&args) {
        Ok(cache) => cache,
        Err(e) => return Ok(usage(&e)),
    };
    if let Some(path) = &args.json {
        if let Err(source) = a2a_conform_report::check_writable(path) {
            let path = path.clone();
            return Ok(usage(&SendUsage::JsonOut { path, source }));
        }
    }
    let mut redactor = Redactor::new([config.secrets(), auth.secrets()].concat());
    let card = match fetch_card(
        &args.peer,
        &config,
        protocol_choice(args.connect.protocol),
        binding_choice(args.connect.binding),
        &redactor,
    )
    .await
    {
        Ok(card) => card,
        Err(e) => return unusable(&args, &e.to_string(), &redactor),
    };
    let run_auth = PeerAuth::new(&card, &config, Arc::new(auth), IssuedSecrets::default())
        .before_runs()
        .await;
    // The access tokens obtained are secrets too, from here on.
    redactor = Redactor::new([redactor.secrets(), &run_auth.config.secrets()].concat());
    if let Some(trouble) = &run_auth.trouble {
        eprintln!("warning: {}", shown(&redactor, trouble));
    }
    let options = GuardOptions {
        streaming: args.stream,
        probe_window: args.probe_window,
        ..GuardOptions::default()
    };
    let guard = match Guard::new(card, run_auth.config, cache, options) {
        Ok(guard) => guard,
        Err(e) => return unusable(&args, &e.to_string(), &redactor),
    };
    let mut run = delegate(&guard, &args, &parts, reply, &redactor).await;
    // Every operation's exchanges, whatever it ended in: an error too.
    run.exchanges = guard.take_exchanges();
    // Every demotion the guards made, also one an operation made before it
    // ended in an error: a demotion is a violation, and fails the run.
    run.violations = guard.take_violations();
    if !run.violations.is_empty() {
        run.code = exit::DIVERGED;
    }
    report(&args, run, &redactor)
}

/// Peer or error text as `send` prints it: every secret masked by value,
/// then inert on a terminal.
fn shown(redactor: &Redactor, text: &str) -> String {
    terminal(&redactor.redact(text)).into_owned()
}

/// The card or the client could not be had: exit 3, and `--json` says so
/// (no exchange was made).
fn unusable(args: &SendArgs, reason: &str, redactor: &Redactor) -> Result<i32, AppError> {
    let reason = shown(redactor, reason);
    let run = Run {
        outcome: reason.clone(),
        code: malfunction(&reason),
        violations: Vec::new(),
        exchanges: Vec::new(),
    };
    report(args, run, redactor)
}

/// Prints what the run demoted and its outcome, writes `--json`, and
/// answers the exit code.
fn report(args: &SendArgs, run: Run, redactor: &Redactor) -> Result<i32, AppError> {
    for v in &run.violations {
        println!(
            "demoted: {} — {}{}",
            // A mode's id holds the card's media type: peer text too.
            shown(redactor, &v.declaration.to_string()),
            shown(redactor, &v.reason),
            v.task
                .as_deref()
                .map(|t| format!(" (task {})", shown(redactor, t)))
                .unwrap_or_default()
        );
    }
    println!("outcome: {}", shown(redactor, &run.outcome));
    if let Some(path) = &args.json {
        let body = json!({
            "outcome": run.outcome,
            "violations": run.violations,
            "exchanges": run.exchanges,
        });
        // The reasons and the outcome hold peer text: redacted as the
        // exchanges already are.
        let body = redactor.redact_value(body);
        let text = serde_json::to_string_pretty(&body).map_err(AppError::Redaction)?;
        a2a_conform_report::write_atomically(path, &format!("{text}\n")).map_err(|source| {
            AppError::WriteReport {
                path: path.clone(),
                source,
            }
        })?;
    }
    Ok(run.code)
}

/// Prints a usage error the way the other commands do; exit 2.
fn usage(e: &SendUsage) -> i32 {
    eprintln!("error: {}", terminal(&e.to_string()));
    exit::USAGE
}

/// Prints why the peer could not be used; exit 3.
/// `reason` is already redacted and inert.
fn malfunction(reason: &str) -> i32 {
    eprintln!("error: {reason}");
    exit::PEER_UNREACHABLE
}

/// The message to send, from `--text`, `--data` or `--file`.
fn message_parts(args: &SendArgs) -> Result<Vec<MessagePart>, SendUsage> {
    if let Some(text) = &args.text {
        return Ok(vec![MessagePart::Text(text.clone())]);
    }
    if let Some(data) = &args.data {
        return Ok(vec![MessagePart::Data(json_flag("data", data)?)]);
    }
    let Some(path) = &args.file else {
        return Ok(Vec::new()); // clap requires one of the three
    };
    let bytes = read_capped_bytes(path, YAML_CAP).map_err(|source| SendUsage::Read {
        flag: "--file",
        path: path.clone(),
        source,
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(vec![MessagePart::File {
        media_type: file_media_type(path, &bytes).to_string(),
        base64: base64::engine::general_purpose::STANDARD.encode(&bytes),
        name,
    }])
}

/// A file part's media type, from its extension; a file of no known
/// extension is `text/plain` when it is UTF-8 text, else
/// `application/octet-stream` (never text for bytes that are not).
fn file_media_type(path: &std::path::Path, bytes: &[u8]) -> &'static str {
    let extension = path.extension().and_then(|e| e.to_str());
    match extension.map(str::to_ascii_lowercase).as_deref() {
        Some("json") => "application/json",
        Some("md") => "text/markdown",
        Some("csv") => "text/csv",
        Some("txt") => "text/plain",
        Some("pdf") => "application/pdf",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

fn json_flag(flag: &'static str, text: &str) -> Result<Value, SendUsage> {
    serde_json::from_str(text).map_err(|source| SendUsage::Json { flag, source })
}

/// The answer to an input request: the parts, and a fallback (the text
/// of a data part) for a peer seen to refuse the data mode.
type Reply = (Vec<MessagePart>, Option<Vec<MessagePart>>);

/// The answer `--resume-text` / `--resume-data` give, checked before any request.
fn reply_parts(args: &SendArgs) -> Result<Option<Reply>, SendUsage> {
    Ok(match (&args.resume_text, &args.resume_data) {
        (_, Some(data)) => Some((
            vec![MessagePart::Data(json_flag("resume-data", data)?)],
            Some(vec![MessagePart::Text(data.clone())]),
        )),
        (Some(text), None) => Some((vec![MessagePart::Text(text.clone())], None)),
        (None, None) => None,
    })
}

/// The capability cache: the file, else in memory; seeded from a report.
fn open_cache(args: &SendArgs) -> Result<CapabilityCache, SendUsage> {
    let cache = match &args.cache {
        Some(path) => CapabilityCache::open(path, CacheOptions::default()).map_err(|source| {
            SendUsage::Cache {
                path: path.clone(),
                source,
            }
        })?,
        None => CapabilityCache::in_memory(CacheOptions::default()),
    };
    if let Some(path) = &args.from_report {
        let demoted = cache
            .seed_from_report(path)
            .map_err(|source| SendUsage::Seed {
                path: path.clone(),
                source,
            })?;
        println!(
            "seeded: {demoted} declaration(s) demoted from {}",
            terminal(&path.display().to_string())
        );
    }
    Ok(cache)
}

/// Opens the task and takes it to its outcome: cancelled, settled, or
/// resumed and settled.
async fn delegate(
    guard: &Guard,
    args: &SendArgs,
    parts: &[MessagePart],
    reply: Option<Reply>,
    redactor: &Redactor,
) -> Run {
    let mut run = Run {
        outcome: String::new(),
        code: exit::OK,
        violations: Vec::new(),
        exchanges: Vec::new(),
    };
    let mut handle = match guard.open_task(parts).await {
        Ok(handle) => handle,
        Err(e) => return failed(run, e, redactor),
    };
    println!(
        "task {} opened ({})",
        shown(redactor, handle.task_id()),
        if handle.is_streaming() {
            "on a stream"
        } else {
            "polling"
        }
    );
    let result = match args.cancel_after {
        Some(after) => cancel(&mut handle, after, redactor).await,
        None => settle(guard, &mut handle, reply, redactor).await,
    };
    // The violations are the guard's (`Guard::take_violations`), whichever
    // operation found them.
    match result {
        Ok(outcome) => {
            run.outcome = outcome;
            run
        }
        Err(e) => failed(run, e, redactor),
    }
}

/// A guarded operation that did not reach its outcome.
fn failed(mut run: Run, e: GuardError, redactor: &Redactor) -> Run {
    let said = shown(redactor, &e.to_string());
    match e {
        GuardError::Violation(_) => {
            // The violation is among the guard's, listed with the others.
            run.outcome = "no outcome to trust".to_string();
            run.code = exit::DIVERGED;
        }
        GuardError::UndeclaredMode { .. } => {
            // The peer's valid refusal of what its card never offered: the
            // sender's mistake, as a usage error is.
            eprintln!("error: {said}");
            run.outcome = said;
            run.code = exit::USAGE;
        }
        GuardError::NoAcceptedMode { .. } => {
            run.outcome = said;
            run.code = exit::DIVERGED;
        }
        GuardError::Cache(_) => {
            run.outcome = said;
            run.code = exit::USAGE;
        }
        _ => {
            eprintln!("error: {said}");
            run.outcome = said;
            run.code = exit::PEER_UNREACHABLE;
        }
    }
    run
}

/// Prints one task event as a timeline line.
fn print_event(started: Instant, event: &TaskEvent, redactor: &Redactor) {
    let from = |f: &EventSource| match f {
        EventSource::Stream => "stream",
        EventSource::Poll => "poll",
    };
    let at = started.elapsed().as_millis();
    match event {
        TaskEvent::Status { state, from: f } => {
            println!("{at:>6} ms  {:<6} status {}", from(f), state.as_str())
        }
        TaskEvent::Artifact {
            artifact_id,
            from: f,
        } => println!(
            "{at:>6} ms  {:<6} artifact {}",
            from(f),
            shown(redactor, artifact_id.as_deref().unwrap_or("(no id)"))
        ),
    }
}

/// Follows the events for `after`, then cancels and confirms.
async fn cancel(
    handle: &mut TaskHandle<'_>,
    after: std::time::Duration,
    redactor: &Redactor,
) -> Result<String, GuardError> {
    let started = Instant::now();
    let deadline = started + after;
    while let Ok(next) = tokio::time::timeout_at(deadline, handle.next_event()).await {
        match next? {
            Some(event) => print_event(started, &event, redactor),
            None => break,
        }
    }
    let outcome = match handle.cancel_and_confirm().await? {
        CancelOutcome::Confirmed { reads, .. } => {
            format!("canceled, confirmed on {reads} read(s)")
        }
        CancelOutcome::AlreadyTerminal(settled) => {
            format!("already {} before the cancel", settled.state.as_str())
        }
    };
    Ok(outcome)
}

/// Follows the events to the end, settles, and answers an input request.
async fn settle(
    guard: &Guard,
    handle: &mut TaskHandle<'_>,
    reply: Option<Reply>,
    redactor: &Redactor,
) -> Result<String, GuardError> {
    let started = Instant::now();
    while let Some(event) = handle.next_event().await? {
        print_event(started, &event, redactor);
    }
    let settled = handle.await_terminal().await?;
    let (true, Some((primary, fallback))) = (settled.is_interrupted(), reply) else {
        return Ok(settled.state.as_str().to_string());
    };
    println!(
        "task {}: {}, resuming",
        shown(redactor, &settled.task_id),
        settled.state.as_str()
    );
    let resumed = guard
        .resume(&settled.task_id, &primary, fallback.as_deref())
        .await?;
    println!(
        "resumed with the {} part(s)",
        match resumed.sent {
            PartsSent::Primary => "primary",
            PartsSent::Fallback => "fallback",
        }
    );
    let last = guard.await_terminal(&settled.task_id).await?;
    Ok(last.state.as_str().to_string())
}
