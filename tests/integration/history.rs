//! `history` (and `watch`) refusing what they would get wrong, end to end:
//! `sqlite:` without a path, a reader (`show`, `export`) pointed at a
//! SQLite file that does not exist or belongs to another program, `export
//! -o -`, and `--peer` naming a peer the store never saw. Each runs the
//! built binary in a temporary folder, so nothing it makes by mistake
//! lands in the workspace.

use crate::common::{self, Outcome, FAST_VARS};
use a2a_conform_history::Store;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
use std::path::Path;
use std::process::{Command, Stdio};

const PEER: &str = "https://a.example/.well-known/agent-card.json";

/// The built binary run with `args` in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> Outcome {
    let output = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    Outcome {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        report: None,
        json_text: None,
        junit: None,
        markdown: None,
    }
}

/// A SQLite store at `dir/name` holding one record of [`PEER`].
fn store_in(dir: &Path, name: &str) -> String {
    let url = format!("sqlite:{}", dir.join(name).display());
    let row = DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Honoured).build();
    let report = RunReport::new(vec![PeerReport::builder(PEER)
        .declarations(vec![row])
        .build()]);
    let mut store = Store::open(&url).expect("the store opens");
    store.record(&report).expect("recorded");
    url
}

#[test]
fn readers_refuse_a_sqlite_file_that_does_not_exist_and_make_none() {
    let dir = tempfile::tempdir().expect("tempdir");
    let expected = "no history database at typo.db; `watch` or `history import` creates one\n";
    for args in [
        &["history", "show", "--db", "sqlite:typo.db"][..],
        &["history", "export", "--db", "sqlite:typo.db", "-o", "out"],
        &[
            "dashboard",
            "--db",
            "sqlite:typo.db",
            "--listen",
            "127.0.0.1:0",
        ],
    ] {
        let out = run_in(dir.path(), args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.explain());
        // The dashboard says what it could not do first.
        let said = out.stderr.strip_prefix("error: ").unwrap_or(&out.stderr);
        let said = said
            .strip_prefix("cannot open the history store: ")
            .unwrap_or(said);
        assert_eq!(said, expected, "{args:?}");
        assert!(!dir.path().join("typo.db").exists(), "{args:?} made it");
        assert!(!dir.path().join("out").exists(), "{args:?} made out/");
    }
}

#[test]
fn another_program_s_sqlite_file_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().expect("tempdir");
    let conn = rusqlite::Connection::open(dir.path().join("app.db")).expect("opens");
    conn.execute_batch("CREATE TABLE settings (key TEXT, value TEXT)")
        .expect("another program's table");
    drop(conn);
    let before = std::fs::read(dir.path().join("app.db")).expect("read");
    for args in [
        &["history", "show", "--db", "sqlite:app.db"][..],
        &["history", "import", "--db", "sqlite:app.db", "report.json"],
        &[
            "dashboard",
            "--db",
            "sqlite:app.db",
            "--listen",
            "127.0.0.1:0",
        ],
    ] {
        let out = run_in(dir.path(), args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.explain());
        assert!(
            out.stderr.starts_with("error: ")
                && out
                    .stderr
                    .contains("app.db is not an a2a-conform history database ("),
            "{args:?}: {}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    let after = std::fs::read(dir.path().join("app.db")).expect("read");
    assert!(before == after, "the file was changed");
}

#[test]
fn writers_refuse_sqlite_without_a_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    std::fs::write(&report, RunReport::new(vec![]).to_json()).expect("a report");
    let report = report.display().to_string();
    let out = run_in(
        dir.path(),
        &["history", "import", "--db", "sqlite:", &report],
    );
    assert_eq!(out.code, 2, "{}", out.explain());
    assert_eq!(
        out.stderr,
        "error: the history database URL sqlite: names no file: use sqlite:PATH\n"
    );
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let card = peer.card_url();
    let mut args = vec!["watch", card.as_str(), "--db", "sqlite:", "--cycles", "1"];
    args.extend_from_slice(&["--every", "1s"]);
    args.extend_from_slice(&["--scenario", "cancel-then-stream", "-q"]);
    args.extend_from_slice(FAST_VARS);
    let out = run_in(dir.path(), &args);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("names no file: use sqlite:PATH"),
        "{}",
        out.explain()
    );
    // The writers still make a new store at a new path.
    let out = run_in(
        dir.path(),
        &["history", "import", "--db", "sqlite:new.db", &report],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(dir.path().join("new.db").is_file());
}

#[test]
fn export_to_dash_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store_in(dir.path(), "h.db");
    let out = run_in(dir.path(), &["history", "export", "--db", &db, "-o", "-"]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .starts_with("error: history export -o takes a folder"),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("-").exists(), "a folder named - was made");
}

#[test]
fn a_peer_the_store_never_saw_is_said_on_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = store_in(dir.path(), "h.db");
    let typo = "https://a.example/.well-known/agent.json";
    let note = format!(
        "history: the store has no record of peer {typo}; `history show` lists the peers it has\n"
    );
    let out = run_in(
        dir.path(),
        &["history", "show", "--db", &db, "--peer", typo],
    );
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, ""),
        "{}",
        out.explain()
    );
    assert_eq!(out.stderr, note);
    let args = [
        "history", "export", "--db", &db, "--peer", typo, "-o", "out",
    ];
    let out = run_in(dir.path(), &args);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(out.stderr, note);
    assert!(
        !dir.path().join("out").exists(),
        "nothing to write: no folder"
    );
    // The peer it has is shown and exported, without the note.
    let out = run_in(
        dir.path(),
        &["history", "show", "--db", &db, "--peer", PEER],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stdout.starts_with(PEER) && out.stderr.is_empty(),
        "{}",
        out.explain()
    );
    let args = [
        "history", "export", "--db", &db, "--peer", PEER, "-o", "out",
    ];
    let out = run_in(dir.path(), &args);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(dir.path().join("out/record-00000001.json").is_file());
}
