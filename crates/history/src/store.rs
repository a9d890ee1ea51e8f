//! [`Store`]: the history database, opened from a URL and migrated on open,
//! and the calls the CLI's `watch` and `history` commands make on it.

use crate::db::Db;
use crate::error::Error;
use crate::model::{CardInterval, Interval, RecordId, Regression};
#[cfg(feature = "postgres")]
use crate::pg::PgClient;
use crate::{archive, query, record, schema};
use a2a_conform_report::{write_atomically, ReportFile, RunReport};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long SQLite waits for another writer (a second `history import`)
/// before giving up with "database is locked".
const SQLITE_BUSY: Duration = Duration::from_secs(10);

/// The history of checks: SQLite or PostgreSQL, one schema.
pub struct Store {
    db: Db,
}

impl std::fmt::Debug for Store {
    // The connection (and any password in its URL) is not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let backend = if self.db.is_postgres() {
            "postgres"
        } else {
            "sqlite"
        };
        f.debug_struct("Store").field("backend", &backend).finish()
    }
}

/// The connection string of a PostgreSQL URL (`postgres://…`,
/// `postgresql://…`, or `postgres:` followed by key=value parameters).
fn postgres_params(url: &str) -> Option<&str> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Some(url)
    } else {
        url.strip_prefix("postgres:")
    }
}

#[cfg(feature = "postgres")]
fn connect_postgres(params: &str) -> Result<Db, Error> {
    Ok(Db::Postgres(PgClient::connect(params)?))
}

/// A build without the `postgres` feature names the feature it needs.
#[cfg(not(feature = "postgres"))]
fn connect_postgres(_params: &str) -> Result<Db, Error> {
    Err(Error::NoPostgres)
}

/// Opens the SQLite file at `path` as a history store: one this build (or
/// an older one) made, or with `create` a new one (a file that does not
/// exist yet, or holds no table). A SQLite file with tables but no
/// `schema_version` belongs to another program and is refused untouched.
fn open_sqlite(path: &str, create: bool) -> Result<rusqlite::Connection, Error> {
    use rusqlite::OpenFlags;
    // `:memory:` and "" are databases that vanish with the connection.
    if path.is_empty() || path == ":memory:" {
        return Err(Error::NoSqlitePath {
            given: path.to_string(),
        });
    }
    let no_store = || Error::NoStore {
        path: path.to_string(),
    };
    if !create && !Path::new(path).exists() {
        return Err(no_store());
    }
    // Without URI: PATH is a file's path, never `file:…?mode=memory`.
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = rusqlite::Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(SQLITE_BUSY)?;
    match schema::sqlite_kind(&conn) {
        Ok(schema::Kind::Store) => Ok(conn),
        Ok(schema::Kind::Empty) if create => Ok(conn),
        Ok(schema::Kind::Empty) => Err(no_store()),
        Ok(schema::Kind::Other) => Err(Error::NotAStore {
            path: path.to_string(),
            reason: "a SQLite database with tables but no schema_version, another program's".into(),
        }),
        Err(rusqlite::Error::SqliteFailure(failure, _))
            if failure.code == rusqlite::ErrorCode::NotADatabase =>
        {
            Err(Error::NotAStore {
                path: path.to_string(),
                reason: "not a SQLite database".into(),
            })
        }
        Err(error) => Err(error.into()),
    }
}

impl Store {
    /// Opens `sqlite:PATH` (the file is created on first open; its folder
    /// must exist) or `postgres://USER[:PASSWORD]@HOST[:PORT]/DB` (also
    /// `postgresql://`, or a key=value connection string after `postgres:`;
    /// without TLS), and applies the migrations this build has that the
    /// database lacks: what a writer (`watch`, `history import`) opens. A
    /// database a newer build migrated is refused ([`Error::NewerSchema`]);
    /// so are `sqlite:` without a file ([`Error::NoSqlitePath`]: it would
    /// keep nothing) and a SQLite file of another program
    /// ([`Error::NotAStore`]), which is left as it was.
    pub fn open(url: &str) -> Result<Store, Error> {
        Store::open_as(url, true)
    }

    /// Opens a store that exists, as [`Store::open`] does, but never makes
    /// one: a SQLite file that does not exist, or holds no table, is
    /// [`Error::NoStore`] (a mistyped path is not a new, empty history).
    /// What a reader (`history show`, `history export`, the dashboard)
    /// opens. A store an older build wrote is still migrated; a PostgreSQL
    /// database, which only its administrator creates, is set up as
    /// [`Store::open`] sets it up.
    pub fn open_existing(url: &str) -> Result<Store, Error> {
        Store::open_as(url, false)
    }

    fn open_as(url: &str, create: bool) -> Result<Store, Error> {
        let mut db = if let Some(path) = url.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            Db::Sqlite(open_sqlite(path, create)?)
        } else if let Some(params) = postgres_params(url) {
            connect_postgres(params)?
        } else {
            let scheme = url.split(':').next().unwrap_or(url);
            return Err(Error::UnknownUrl {
                scheme: scheme.to_string(),
            });
        };
        schema::migrate(&mut db)?;
        Ok(Store { db })
    }

    /// The database's schema version (this build's [`crate::SCHEMA_VERSION`]
    /// once opened).
    pub fn schema_version(&mut self) -> Result<i64, Error> {
        schema::current_version(&mut self.db)
    }

    /// Records a report (a watch cycle, a CI run, a shard): its deflated
    /// JSON, each peer's entry apart (so a fleet's report may be larger than
    /// the report cap, each part within it; [`Error::TooLarge`] otherwise),
    /// and for each peer its verdict and card intervals — extended
    /// where the verdict is the one the peer's previous record had, opened
    /// where it changed. One transaction: all of it, or nothing.
    pub fn record(&mut self, report: &RunReport) -> Result<RecordId, Error> {
        record::record(&mut self.db, report)
    }

    /// Reads the `check --json` reports at `paths` (each through the capped,
    /// version-checked [`ReportFile::load`]; all are read before any is
    /// recorded, so a bad file records nothing) and records them oldest
    /// `started_at` first. Returns the records' ids in that order.
    pub fn import<P: AsRef<Path>>(&mut self, paths: &[P]) -> Result<Vec<RecordId>, Error> {
        let mut reports = Vec::with_capacity(paths.len());
        for path in paths {
            let report = ReportFile::load(path.as_ref())?.report;
            let at = record::epoch_ms(&report.started_at).map_err(|_| Error::BadTimestampIn {
                file: path.as_ref().to_path_buf(),
                at: report.started_at.clone(),
            })?;
            reports.push((at, report));
        }
        // Stable: reports of one second keep the order they were named in.
        reports.sort_by_key(|(at, _)| *at);
        reports
            .iter()
            .map(|(_, report)| self.record(report))
            .collect()
    }

    /// Every stored report (not pruned), oldest record first, as recorded
    /// (all in memory: [`Store::report`] reads one).
    pub fn reports(&mut self) -> Result<Vec<(RecordId, RunReport)>, Error> {
        archive::reports(&mut self.db)
    }

    /// Record `id`'s stored report, whole; `None` when it was pruned or
    /// there is no such record.
    pub fn report(&mut self, id: RecordId) -> Result<Option<RunReport>, Error> {
        archive::report(&mut self.db, id)
    }

    /// Writes every stored report into `dir` as `record-NNNNNNNN.json`
    /// (atomically, the JSON `check --json` writes); returns the files. A
    /// record whose report is over the report cap (a large fleet's cycle) is
    /// written as `record-NNNNNNNN-part-K-of-M.json`, each part some of its
    /// peers within the cap, so `import` reads every file back.
    pub fn export(&mut self, dir: &Path) -> Result<Vec<PathBuf>, Error> {
        let mut written = Vec::new();
        // One report in memory at a time: a fleet's can be hundreds of MB.
        for id in archive::stored(&mut self.db)? {
            let Some(report) = archive::report(&mut self.db, id)? else {
                continue;
            };
            let parts = archive::export_parts(report)?;
            let count = parts.len();
            for (k, part) in parts.iter().enumerate() {
                let file = if count == 1 {
                    dir.join(format!("record-{id:08}.json"))
                } else {
                    dir.join(format!("record-{id:08}-part-{}-of-{count}.json", k + 1))
                };
                write_atomically(&file, &part.to_json()).map_err(|source| Error::Write {
                    file: file.display().to_string(),
                    source,
                })?;
                written.push(file);
            }
        }
        Ok(written)
    }

    /// Retention: drops the stored reports of checks that started more than
    /// `older_than` ago, keeping their intervals; returns how many.
    pub fn prune(&mut self, older_than: Duration) -> Result<u64, Error> {
        archive::prune(&mut self.db, older_than)
    }

    /// The intervals of one declaration of one peer, oldest first.
    pub fn intervals(&mut self, peer: &str, declaration: &str) -> Result<Vec<Interval>, Error> {
        query::intervals(&mut self.db, peer, declaration)
    }

    /// A peer's timeline: every interval of every declaration, by first
    /// record, then declaration.
    pub fn changes(&mut self, peer: &str) -> Result<Vec<Interval>, Error> {
        query::changes(&mut self.db, peer)
    }

    /// A peer's card digests over time, oldest first.
    pub fn card_history(&mut self, peer: &str) -> Result<Vec<CardInterval>, Error> {
        query::card_history(&mut self.db, peer)
    }

    /// Every peer recorded, sorted.
    pub fn peers(&mut self) -> Result<Vec<String>, Error> {
        query::peers(&mut self.db)
    }

    /// How many records the store holds, and when the latest check
    /// recorded started (epoch milliseconds; `None` for an empty store):
    /// a watch's next cycle is due from it, so a restart resumes the
    /// schedule.
    pub fn latest(&mut self) -> Result<(i64, Option<i64>), Error> {
        query::latest(&mut self.db)
    }

    /// What got worse between the peer's previous record and its latest
    /// (none before its second record): see [`Regression`].
    pub fn regressions(&mut self, peer: &str) -> Result<Vec<Regression>, Error> {
        query::regressions(&mut self.db, peer)
    }

    /// The [`Store::regressions`] of every peer whose latest record is
    /// `record`, by peer: what a watch alerts after recording a cycle, in
    /// three queries for the whole fleet rather than three a peer.
    pub fn regressions_at(&mut self, record: RecordId) -> Result<Vec<Regression>, Error> {
        query::regressions_at(&mut self.db, record)
    }

    /// How many peers the store has a record of.
    pub fn peer_count(&mut self) -> Result<i64, Error> {
        query::peer_count(&mut self.db)
    }

    /// A page of peers sorted by card URL (`limit` of them after the first
    /// `offset`), each with its latest record and when that check started:
    /// one query.
    pub fn latest_records(
        &mut self,
        offset: i64,
        limit: i64,
    ) -> Result<Vec<crate::query::PeerLatest>, Error> {
        query::latest_records(&mut self.db, offset, limit)
    }

    /// Every interval of the peers [`Store::latest_records`] gives for the
    /// same `offset` and `limit`, by peer, declaration, first record: one
    /// query for the page, not one per peer.
    pub fn page_intervals(&mut self, offset: i64, limit: i64) -> Result<Vec<Interval>, Error> {
        query::page_intervals(&mut self.db, offset, limit)
    }

    /// The current verdicts: every (peer, declaration) interval that holds
    /// at its peer's latest record, by peer then declaration, in one query
    /// (a declaration the latest record left out has none).
    pub fn current_verdicts(&mut self) -> Result<Vec<Interval>, Error> {
        query::current_verdicts(&mut self.db)
    }

    /// Every stored report holding `peer`, oldest record first, each cut
    /// to its entry as [`Store::latest_report`] cuts it: read from the
    /// peer's own rows, never the whole fleet's reports.
    pub fn peer_reports(&mut self, peer: &str) -> Result<Vec<(RecordId, RunReport)>, Error> {
        crate::latest::peer_reports(&mut self.db, peer)
    }

    /// The newest stored report holding `peer`, cut to its entry (the
    /// report's summary and baseline, which were about every peer, left
    /// out), with its record; `None` when no stored report holds it
    /// (pruned, or no record of the peer). Read from the peer's latest
    /// record alone unless its report was pruned, and only the peer's entry
    /// of it is parsed.
    pub fn latest_report(&mut self, peer: &str) -> Result<Option<(RecordId, RunReport)>, Error> {
        crate::latest::latest_report(&mut self.db, peer)
    }

    /// The stored report of `record` cut to `peer`'s entry, as
    /// [`Store::latest_report`] cuts it (an alert's evidence); `None` when
    /// that record holds no entry of the peer or its report was pruned.
    pub fn peer_report_at(
        &mut self,
        peer: &str,
        record: RecordId,
    ) -> Result<Option<RunReport>, Error> {
        crate::latest::report_at(&mut self.db, peer, record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run by CI as `cargo test -p a2a-conform-history --no-default-features`:
    /// a build without PostgreSQL names the feature instead of failing to
    /// connect, and keeps SQLite.
    #[cfg(not(feature = "postgres"))]
    #[test]
    fn without_the_postgres_feature_a_postgres_url_names_the_feature() {
        for url in [
            "postgres://u@127.0.0.1/db",
            "postgresql://h/db",
            "postgres:host=h",
        ] {
            let error = Store::open(url).expect_err("no PostgreSQL in this build");
            assert!(matches!(error, Error::NoPostgres), "{url}: {error}");
            assert!(error.to_string().contains("`postgres` feature"), "{error}");
        }
        let dir = tempfile::tempdir().expect("a temp dir");
        let url = format!("sqlite:{}", dir.path().join("h.db").display());
        assert!(Store::open(&url).is_ok());
    }

    #[test]
    fn postgres_urls_are_told_from_others() {
        assert_eq!(
            postgres_params("postgres://u@h/db"),
            Some("postgres://u@h/db")
        );
        assert_eq!(
            postgres_params("postgresql://h/db"),
            Some("postgresql://h/db")
        );
        assert_eq!(postgres_params("postgres:host=h"), Some("host=h"));
        assert_eq!(postgres_params("sqlite:h.db"), None);
        assert_eq!(postgres_params("mysql://h/db"), None);
    }
}
