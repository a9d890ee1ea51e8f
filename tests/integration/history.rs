//! `history` (and `watch`) refusing what they would get wrong, end to end:
//! `sqlite:` without a path, and a reader (`show`, `export`, `dashboard`)
//! pointed at a SQLite file that does not exist or belongs to another
//! program. Each runs the built binary in a temporary folder, so nothing
//! it makes by mistake lands in the workspace.

use crate::common::{self, Outcome, FAST_VARS};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use a2a_conform_report::RunReport;
use std::path::Path;
use std::process::{Command, Stdio};

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
