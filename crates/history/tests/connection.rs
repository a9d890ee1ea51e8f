//! Opening a store and keeping its connection, against a real SQLite file
//! and a real PostgreSQL server: a PostgreSQL restart (or outage) under an
//! open store, PostgreSQL's refusals with their cause and never the
//! password, and what `sqlite:PATH` refuses — no path, a missing or empty
//! file when only reading, another program's file — leaving it as it was.

#[allow(dead_code)]
mod support;

use a2a_conform_history::{Error, Store};
use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
use std::path::Path;
use support::PgServer;

const PEER: &str = "https://a.example/.well-known/agent-card.json";

fn report() -> RunReport {
    let row = DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Honoured).build();
    RunReport::new(vec![PeerReport::builder(PEER)
        .declarations(vec![row])
        .build()])
}

#[test]
fn a_store_reads_and_writes_again_after_postgresql_restarts() {
    let server = PgServer::start();
    let mut store = Store::open(&server.url).expect("the store opens");
    store.record(&report()).expect("recorded");
    server.restart();
    // The old session was ended by the shutdown: the read finds it gone,
    // connects again and is answered.
    assert_eq!(
        store.peers().expect("the first read after the restart"),
        vec![PEER.to_string()]
    );
    server.restart();
    // A write's BEGIN runs again on a new connection too.
    assert_eq!(
        store.record(&report()).expect("recorded after a restart"),
        2
    );
    assert_eq!(store.latest().expect("read").0, 2);
}

#[test]
fn while_postgresql_is_down_reads_fail_with_the_cause_and_work_once_it_is_back() {
    let server = PgServer::start();
    let mut store = Store::open(&server.url).expect("the store opens");
    store.record(&report()).expect("recorded");
    server.stop();
    for _ in 0..2 {
        // Each read tries once to connect again, and says why it failed.
        let message = store.peers().expect_err("the server is down").to_string();
        assert!(
            message.starts_with("PostgreSQL history database: error connecting to server: "),
            "{message}"
        );
        assert!(!message.contains('\n'), "{message}");
    }
    server.start_again();
    assert_eq!(
        store.peers().expect("the read once it is back"),
        vec![PEER.to_string()]
    );
}

/// `url` with `user:password@` in place of `user@`, and `db` as database.
fn with(url: &str, credentials: &str, db: &str) -> String {
    let rest = url
        .strip_prefix("postgres://postgres@")
        .expect("the harness URL");
    let host = rest.split('/').next().expect("a host");
    format!("postgres://{credentials}@{host}/{db}")
}

/// Opens `url`, which must fail; its message must hold `cause` and not
/// `password`, nor must its debug form.
fn refused(url: &str, cause: &str, password: &str) {
    let error = Store::open(url).expect_err("refused");
    let message = error.to_string();
    assert!(message.contains(cause), "{message}");
    assert!(!message.contains('\n'), "{message}");
    assert!(!message.contains(password), "{message}");
    assert!(!format!("{error:?}").contains(password), "{error:?}");
}

#[test]
fn postgresql_refusals_say_why_and_never_show_the_password() {
    let server = PgServer::start();
    let password = "s3cret-Pw-8d1c";
    refused(
        &with(&server.url, &format!("postgres:{password}"), "no_such_db"),
        "FATAL: database \"no_such_db\" does not exist",
        password,
    );
    let mut admin = postgres::Client::connect(&server.url, postgres::NoTls).expect("connected");
    admin
        .batch_execute(&format!("ALTER ROLE postgres PASSWORD '{password}'"))
        .expect("the password is set");
    server.require_passwords();
    refused(
        &with(&server.url, "postgres:wrong-Pw-77", "postgres"),
        "FATAL: password authentication failed for user \"postgres\"",
        "wrong-Pw-77",
    );
    refused(
        &server.url,
        "invalid configuration: password missing",
        password,
    );
    let url = with(&server.url, &format!("postgres:{password}"), "postgres");
    let mut store = Store::open(&url).expect("the right password opens it");
    assert_eq!(store.latest().expect("read").0, 0);
    // Connecting again after a restart uses the password it was given.
    server.restart();
    assert_eq!(store.latest().expect("read after a restart").0, 0);
}

fn sqlite(path: &Path) -> String {
    format!("sqlite:{}", path.display())
}

#[test]
fn sqlite_without_a_path_is_refused() {
    for url in ["sqlite:", "sqlite://", "sqlite::memory:"] {
        for open in [Store::open, Store::open_existing] {
            let error = open(url).expect_err("a database that keeps nothing");
            assert!(
                matches!(error, Error::NoSqlitePath { .. }),
                "{url}: {error:?}"
            );
            assert!(error.to_string().contains("use sqlite:PATH"), "{error}");
        }
    }
}

#[test]
fn a_reader_refuses_a_missing_or_empty_file_and_makes_none() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let typo = dir.path().join("typo.db");
    let error = Store::open_existing(&sqlite(&typo)).expect_err("no such file");
    assert!(matches!(error, Error::NoStore { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!(
            "no history database at {}; `watch` or `history import` creates one",
            typo.display()
        )
    );
    assert!(!typo.exists(), "the reader made {}", typo.display());
    std::fs::write(&typo, b"").expect("an empty file");
    let error = Store::open_existing(&sqlite(&typo)).expect_err("an empty file");
    assert!(matches!(error, Error::NoStore { .. }), "{error:?}");
    assert_eq!(std::fs::metadata(&typo).expect("still there").len(), 0);
    // A writer makes the store in it; a reader then opens it.
    Store::open(&sqlite(&typo))
        .expect("a writer opens")
        .record(&report())
        .expect("recorded");
    let mut store = Store::open_existing(&sqlite(&typo)).expect("a reader opens a store");
    assert_eq!(store.peers().expect("read"), vec![PEER.to_string()]);
}

/// The tables of the SQLite file at `path`.
fn tables(path: &Path) -> Vec<String> {
    let conn = rusqlite::Connection::open(path).expect("opens");
    let mut statement = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .expect("prepared");
    let names = statement.query_map([], |row| row.get(0)).expect("read");
    names.collect::<Result<_, _>>().expect("names")
}

#[test]
fn another_program_s_sqlite_file_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let other = dir.path().join("notes.db");
    let conn = rusqlite::Connection::open(&other).expect("opens");
    // Its own `records` table: a migration would have failed on it.
    conn.execute_batch("CREATE TABLE notes (body TEXT); CREATE TABLE records (id INTEGER);")
        .expect("another program's tables");
    drop(conn);
    for open in [Store::open, Store::open_existing] {
        let error = open(&sqlite(&other)).expect_err("not a history store");
        assert!(matches!(error, Error::NotAStore { .. }), "{error:?}");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "{} is not an a2a-conform history database (",
                other.display()
            )),
            "{message}"
        );
        assert!(
            !message.contains('\n') && !message.contains("CREATE"),
            "{message}"
        );
    }
    assert_eq!(tables(&other), vec!["notes", "records"]);

    let text = dir.path().join("README.md");
    let content = "# Not a database\n\nBut long enough to have a SQLite header's length.\n";
    std::fs::write(&text, content).expect("a text file");
    for open in [Store::open, Store::open_existing] {
        let error = open(&sqlite(&text)).expect_err("not SQLite at all");
        assert!(
            error.to_string().contains("(not a SQLite database)"),
            "{error}"
        );
    }
    assert_eq!(std::fs::read_to_string(&text).expect("read"), content);
}
