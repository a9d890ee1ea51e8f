//! The two backends the store's tests run against: a SQLite file in a
//! temporary folder, and a real PostgreSQL server this harness starts on a
//! temporary data directory and 127.0.0.1 (as the `postgres` or `nobody`
//! user when the tests run as root, which PostgreSQL refuses), stopped when
//! the test ends. Missing server binaries fail the test, naming the package.

pub mod pg;

pub use pg::PgServer;

/// A database for one test, and what keeps it alive.
pub struct TestDb {
    pub url: String,
    kind: Kind,
}

enum Kind {
    Sqlite(tempfile::TempDir),
    Postgres(PgServer),
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let url = format!("sqlite:{}", dir.path().join("history.db").display());
        TestDb {
            url,
            kind: Kind::Sqlite(dir),
        }
    }

    pub fn postgres() -> TestDb {
        let server = PgServer::start();
        TestDb {
            url: server.url.clone(),
            kind: Kind::Postgres(server),
        }
    }

    /// Writes a record as a version 1 build did: the whole report deflated
    /// in `records.report`, no entries apart, each peer's last record set
    /// to it (behind the store's back).
    pub fn insert_version_1_record(&self, json: &str, started_at: &str, peers: &[&str]) {
        use std::io::Write;
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(json.as_bytes()).expect("deflated");
        let blob = encoder.finish().expect("deflated");
        let ms = chrono::DateTime::parse_from_rfc3339(started_at)
            .expect("an RFC 3339 time")
            .timestamp_millis();
        let record = "INSERT INTO records (started_at, started_ms, peers, report) \
                      VALUES ($1, $2, $3, $4)";
        let peer = "INSERT INTO peers (peer, last_record, prev_record) VALUES ($1, 1, 0)";
        match &self.kind {
            Kind::Sqlite(dir) => {
                let conn = rusqlite::Connection::open(dir.path().join("history.db"))
                    .expect("the SQLite file opens");
                let count = peers.len() as i64;
                conn.execute(record, rusqlite::params![started_at, ms, count, blob])
                    .expect("the record is written");
                for url in peers {
                    conn.execute(peer, [url]).expect("the peer is written");
                }
            }
            Kind::Postgres(server) => {
                let mut client = postgres::Client::connect(&server.url, postgres::NoTls)
                    .expect("the server answers");
                let count = peers.len() as i64;
                client
                    .execute(record, &[&started_at, &ms, &count, &blob])
                    .expect("the record is written");
                for url in peers {
                    client.execute(peer, &[url]).expect("the peer is written");
                }
            }
        }
    }

    /// Runs `sqlite` or `postgres` (one batch of statements) on the
    /// database, behind the store's back: what an older build wrote.
    pub fn batch(&self, sqlite: &str, postgres: &str) {
        match &self.kind {
            Kind::Sqlite(dir) => {
                let conn = rusqlite::Connection::open(dir.path().join("history.db"))
                    .expect("the SQLite file opens");
                conn.execute_batch(sqlite).expect("the batch runs");
            }
            Kind::Postgres(server) => {
                let mut client = postgres::Client::connect(&server.url, postgres::NoTls)
                    .expect("the server answers");
                client.batch_execute(postgres).expect("the batch runs");
            }
        }
    }

    /// Marks the database as migrated by a newer build (behind the store's back).
    pub fn set_schema_version(&self, version: i64) {
        let sql = format!("INSERT INTO schema_version (version) VALUES ({version})");
        match &self.kind {
            Kind::Sqlite(dir) => {
                let conn = rusqlite::Connection::open(dir.path().join("history.db"))
                    .expect("the SQLite file opens");
                conn.execute_batch(&sql).expect("the version is written");
            }
            Kind::Postgres(server) => {
                let mut client = postgres::Client::connect(&server.url, postgres::NoTls)
                    .expect("the server answers");
                client.batch_execute(&sql).expect("the version is written");
            }
        }
    }
}

/// Runs `$body(&TestDb)` as a test against SQLite and against PostgreSQL.
#[macro_export]
macro_rules! on_both {
    ($name:ident, $body:ident) => {
        mod $name {
            #[test]
            fn sqlite() {
                super::$body(&$crate::support::TestDb::sqlite());
            }
            #[test]
            fn postgres() {
                super::$body(&$crate::support::TestDb::postgres());
            }
        }
    };
}
