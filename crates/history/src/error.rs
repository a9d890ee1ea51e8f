//! The history store's errors: every way opening, recording, importing or
//! exporting can fail, typed, so a caller (the CLI's exit 2, a watch loop
//! that retries) can tell a bad URL from a database that is down or newer
//! than this build.

use a2a_conform_report::LoadError;

/// Why the history store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The URL names no database this build opens. Only the scheme is
    /// shown: the rest may hold a password.
    #[error(
        "unknown history database URL scheme {scheme:?}: use sqlite:PATH or postgres://USER@HOST/DB"
    )]
    UnknownUrl {
        /// What came before the first `:` (or the whole URL if none).
        scheme: String,
    },
    /// `sqlite:` without a file path (or `:memory:`): a database that
    /// would keep nothing once the command ends.
    #[error("the history database URL sqlite:{given} names no file: use sqlite:PATH")]
    NoSqlitePath {
        /// What followed `sqlite:`.
        given: String,
    },
    /// A reader (`history show`, `history export`, the dashboard) was
    /// pointed at a SQLite file that does not exist or holds no table:
    /// it makes no store, so a mistyped path is an error, not an empty
    /// history.
    #[error("no history database at {path}; `watch` or `history import` creates one")]
    NoStore {
        /// The path given.
        path: String,
    },
    /// A file that is not a history store (another program's SQLite
    /// database, or not SQLite at all): left as it was.
    #[error("{path} is not an a2a-conform history database ({reason}); it was left as it was")]
    NotAStore {
        /// The path given.
        path: String,
        /// What it is instead.
        reason: String,
    },
    /// SQLite refused (cannot create the file, locked, corrupt …).
    #[error("SQLite history database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL refused, or the server cannot be reached. The message
    /// says why (the server's own words, or the connection's failure),
    /// never the password or the URL.
    #[cfg(feature = "postgres")]
    #[error("PostgreSQL history database: {}", pg_cause(.0))]
    Postgres(#[from] postgres::Error),
    /// A PostgreSQL URL given to a build without the `postgres` feature.
    #[cfg(not(feature = "postgres"))]
    #[error(
        "this a2a-conform was built without PostgreSQL: build it with the `postgres` feature \
         (on by default: `cargo install a2a-conform`), or use a sqlite: history"
    )]
    NoPostgres,
    /// The database was migrated by a newer a2a-conform: this build will
    /// not write into a schema it does not know.
    #[error(
        "the history database has schema version {found}; this a2a-conform knows versions up to \
         {known}: use a newer a2a-conform with this database"
    )]
    NewerSchema {
        /// The version the database declares.
        found: i64,
        /// The newest version this build migrates to.
        known: i64,
    },
    /// A report to import could not be read (each message names its file).
    #[error(transparent)]
    Load(#[from] LoadError),
    /// A report's `started_at` is not an RFC 3339 time, so it cannot be
    /// placed in the history.
    #[error("the report's started_at {0:?} is not an RFC 3339 time")]
    BadTimestamp(String),
    /// [`Error::BadTimestamp`] of a report named for import: its file.
    #[error("{}: the report's started_at {at:?} is not an RFC 3339 time", file.display())]
    BadTimestampIn {
        /// The report file.
        file: std::path::PathBuf,
        /// Its `started_at`.
        at: String,
    },
    /// A part of a report (the report without its peers, or one peer's
    /// entry) is larger than the report cap: it could be stored but never
    /// read back, so the report is refused. The whole report may be larger.
    #[error("a part of the report (its fields besides the peers, or one peer's entry) is {size} bytes of JSON, more than the {} MiB a stored part may be", .cap / (1024 * 1024))]
    TooLarge {
        /// The part's JSON size.
        size: u64,
        /// The cap ([`a2a_conform_report::input::REPORT_CAP`]).
        cap: u64,
    },
    /// Deflating a report failed (in memory: not expected, but not hidden).
    #[error("cannot compress the report: {0}")]
    Compress(std::io::Error),
    /// A stored report could not be decompressed or parsed back.
    #[error("the stored report of record {record} cannot be read back: {reason}")]
    CorruptReport {
        /// The record it belongs to.
        record: i64,
        /// What broke.
        reason: String,
    },
    /// A value in the database is not one this build writes (a verdict
    /// spelled otherwise, a column of another type).
    #[error("unexpected value in the history database: {0}")]
    Unexpected(String),
    /// Writing an exported report failed.
    #[error("cannot write {file}: {source}")]
    Write {
        /// The file being written.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
}

/// Why PostgreSQL failed, on one line: the server's message (its
/// severity, message, detail and hint: "FATAL: password authentication
/// failed for user \"x\"", "FATAL: database \"x\" does not exist"), or the
/// client's error and its causes ("invalid configuration: password
/// missing", "error connecting to server: Connection refused"), where
/// the client's own display says only "db error" or "invalid
/// configuration". Neither holds the password: the client never puts the
/// connection string in an error, nor does the server the password.
#[cfg(feature = "postgres")]
fn pg_cause(error: &postgres::Error) -> String {
    let text = match error.as_db_error() {
        Some(db) => {
            let mut text = format!("{}: {}", db.severity(), db.message());
            for (label, part) in [("detail", db.detail()), ("hint", db.hint())] {
                if let Some(part) = part {
                    text.push_str(&format!(" ({label}: {part})"));
                }
            }
            text
        }
        None => {
            let mut text = error.to_string();
            let mut cause = std::error::Error::source(error);
            while let Some(next) = cause {
                text.push_str(&format!(": {next}"));
                cause = next.source();
            }
            text
        }
    };
    // One line: a message is shown in a log line and an HTTP 500's body.
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
