//! `history import`, `export` and `show`: the history database `watch`
//! writes, read and written from the command line. The store is
//! synchronous (the PostgreSQL client blocks), so each command runs on a
//! blocking thread. Only `import` makes a new store: `export` and `show`
//! refuse a SQLite file that does not exist (a mistyped path is not an
//! empty history).

use crate::cli::HistoryCommand;
use crate::error::{AppError, UsageError};
use a2a_conform_history::{Error, Store};
use a2a_conform_report::inert::terminal;
use a2a_conform_report::{exit, write_atomically};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub(super) async fn history(command: HistoryCommand) -> Result<i32, AppError> {
    if let HistoryCommand::Export { output, .. } = &command {
        if output.as_os_str() == "-" {
            return Err(UsageError::ExportToStdout.into());
        }
    }
    tokio::task::spawn_blocking(move || run(command))
        .await
        .map_err(|e| AppError::History(e.to_string()))?
        .map_err(|e| AppError::History(e.to_string()))
}

fn run(command: HistoryCommand) -> Result<i32, Error> {
    match command {
        HistoryCommand::Import { db, reports } => {
            let ids = Store::open(&db)?.import(&reports)?;
            eprintln!(
                "history: imported {} report(s) as record(s) {ids:?}",
                ids.len()
            );
        }
        HistoryCommand::Export { db, peer, output } => {
            let mut store = Store::open_existing(&db)?;
            if unknown_peer(&mut store, peer.as_deref())? {
                return Ok(exit::OK);
            }
            let written = export(&mut store, peer.as_deref(), &output)?;
            eprintln!(
                "history: wrote {} report(s) into {}",
                written.len(),
                terminal(&output.display().to_string())
            );
        }
        HistoryCommand::Show { db, peer } => {
            let mut store = Store::open_existing(&db)?;
            if unknown_peer(&mut store, peer.as_deref())? {
                return Ok(exit::OK);
            }
            print!("{}", show(&mut store, peer.as_deref())?);
        }
    }
    Ok(exit::OK)
}

/// Whether `--peer` names a peer the store has no record of (every
/// recorded peer has a card interval), said on stderr: an empty result
/// would otherwise look like a peer with nothing to show (a typo in the
/// card URL, most often). Exit 0 still: the store was read.
fn unknown_peer(store: &mut Store, peer: Option<&str>) -> Result<bool, Error> {
    let Some(peer) = peer else {
        return Ok(false);
    };
    if !store.card_history(peer)?.is_empty() || !store.changes(peer)?.is_empty() {
        return Ok(false);
    }
    eprintln!(
        "history: the store has no record of peer {}; `history show` lists the peers it has",
        terminal(peer)
    );
    Ok(true)
}

/// Every stored report into `dir` as `record-NNNNNNNN.json`; with `peer`,
/// each report keeps only that peer's entry (its summary counted again, the
/// baseline left out) and those without it are left out.
fn export(store: &mut Store, peer: Option<&str>, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let io = |source| Error::Write {
        file: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let Some(peer) = peer else {
        return store.export(dir);
    };
    let mut written = Vec::new();
    for (id, mut report) in store.peer_reports(peer)? {
        // The record's summary counted every peer: count this one's.
        report.summary = Some(a2a_conform_report::verdict::summarize(&report));
        let file = dir.join(format!("record-{id:08}.json"));
        write_atomically(&file, &report.to_json()).map_err(|source| Error::Write {
            file: file.display().to_string(),
            source,
        })?;
        written.push(file);
    }
    Ok(written)
}

/// Each peer's card digests and each declaration's verdict intervals, one
/// line each: `records FIRST-LAST  FIRST_SEEN .. LAST_SEEN`.
fn show(store: &mut Store, peer: Option<&str>) -> Result<String, Error> {
    let peers = match peer {
        Some(peer) => vec![peer.to_string()],
        None => store.peers()?,
    };
    let mut out = String::new();
    for peer in peers {
        let _ = writeln!(out, "{}", terminal(&peer));
        for card in store.card_history(&peer)? {
            let digest = card.digest.as_deref().unwrap_or("(no card)");
            let _ = writeln!(
                out,
                "  card {}  records {}-{}  {} .. {}",
                terminal(digest),
                card.first_record,
                card.last_record,
                card.first_seen,
                card.last_seen
            );
        }
        let mut intervals = store.changes(&peer)?;
        intervals.sort_by(|a, b| {
            (&a.declaration, a.first_record).cmp(&(&b.declaration, b.first_record))
        });
        let rows: Vec<(String, String, String)> = intervals
            .iter()
            .map(|interval| {
                let verdict = serde_json::to_value(interval.verdict)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                let span = format!(
                    "records {}-{}  {} .. {}",
                    interval.first_record,
                    interval.last_record,
                    interval.first_seen,
                    interval.last_seen
                );
                (terminal(&interval.declaration).into_owned(), verdict, span)
            })
            .collect();
        // Columns, so a person can read down one declaration's verdicts.
        let width = |pick: fn(&(String, String, String)) -> &String| {
            rows.iter()
                .map(|r| pick(r).chars().count())
                .max()
                .unwrap_or(0)
        };
        let (declaration_width, verdict_width) = (width(|r| &r.0), width(|r| &r.1));
        for (declaration, verdict, span) in &rows {
            let _ = writeln!(
                out,
                "  {declaration:<declaration_width$}  {verdict:<verdict_width$}  {span}"
            );
        }
    }
    Ok(out)
}
