//! The versioned schema: each migration is applied once, in order, in its
//! own transaction, and its number written to `schema_version`. Opening a
//! database a newer build migrated is refused ([`Error::NewerSchema`]), since
//! writing into tables this build does not know could corrupt them.
//!
//! The tables (docs/history.md has the row-count arithmetic):
//! - `records`: one row per recorded report (a watch cycle, an imported CI
//!   run or shard), with its time and the deflated JSON report without its
//!   peers (a version 1 record: the whole report); NULL once pruned.
//! - `peer_reports` (version 2): each peer's entry of a record's report,
//!   deflated, in the report's order; deleted when the record is pruned.
//! - `peers`: one row per peer: its last two records, for regressions,
//!   and (version 3) when the last one started.
//! - `intervals`: one row per run of equal verdicts of a (peer,
//!   declaration), from the first record that saw it to the last; since
//!   version 3 the open one (current at the peer's last record) has no
//!   end of its own (NULL), and reads its peer's.
//! - `card_intervals`: the same for the card's digest.

use crate::db::{Db, Value};
use crate::error::Error;

/// One migration: its SQL for SQLite and for PostgreSQL.
struct Migration {
    sqlite: &'static str,
    postgres: &'static str,
}

/// The migrations, version 1 first. Append; never edit a released one.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sqlite: "
        CREATE TABLE records (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at TEXT NOT NULL,
            started_ms BIGINT NOT NULL,
            peers BIGINT NOT NULL,
            report BLOB
        );
        CREATE INDEX records_started ON records (started_ms);
        CREATE TABLE peers (
            peer TEXT PRIMARY KEY,
            last_record BIGINT NOT NULL,
            prev_record BIGINT NOT NULL
        );
        CREATE TABLE intervals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            peer TEXT NOT NULL,
            declaration TEXT NOT NULL,
            verdict TEXT NOT NULL,
            first_record BIGINT NOT NULL,
            last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL
        );
        CREATE INDEX intervals_key ON intervals (peer, declaration, id);
        CREATE TABLE card_intervals (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            peer TEXT NOT NULL,
            digest TEXT,
            first_record BIGINT NOT NULL,
            last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL
        );
        CREATE INDEX card_intervals_key ON card_intervals (peer, id);
    ",
        postgres: "
        CREATE TABLE records (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            started_at TEXT NOT NULL,
            started_ms BIGINT NOT NULL,
            peers BIGINT NOT NULL,
            report BYTEA
        );
        CREATE INDEX records_started ON records (started_ms);
        CREATE TABLE peers (
            peer TEXT PRIMARY KEY,
            last_record BIGINT NOT NULL,
            prev_record BIGINT NOT NULL
        );
        CREATE TABLE intervals (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            peer TEXT NOT NULL,
            declaration TEXT NOT NULL,
            verdict TEXT NOT NULL,
            first_record BIGINT NOT NULL,
            last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL
        );
        CREATE INDEX intervals_key ON intervals (peer, declaration, id);
        CREATE TABLE card_intervals (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            peer TEXT NOT NULL,
            digest TEXT,
            first_record BIGINT NOT NULL,
            last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL,
            last_seen TEXT NOT NULL
        );
        CREATE INDEX card_intervals_key ON card_intervals (peer, id);
    ",
    },
    Migration {
        // Version 2: each peer's entry of a report stored on its own row, so a
        // report's size is no longer bounded by one blob's cap (a watch cycle
        // of 10,000 peers is about 200 MB of JSON), and a peer's page reads its
        // own entry; `records.report` keeps the report without its peers. The
        // second index serves the interval current at a peer's last record.
        sqlite: "
        CREATE TABLE peer_reports (
            record BIGINT NOT NULL,
            position BIGINT NOT NULL,
            peer TEXT NOT NULL,
            report BLOB NOT NULL,
            PRIMARY KEY (record, position)
        );
        CREATE INDEX peer_reports_peer ON peer_reports (peer, record);
        CREATE INDEX intervals_current ON intervals (peer, last_record);
    ",
        postgres: "
        CREATE TABLE peer_reports (
            record BIGINT NOT NULL,
            position BIGINT NOT NULL,
            peer TEXT NOT NULL,
            report BYTEA NOT NULL,
            PRIMARY KEY (record, position)
        );
        CREATE INDEX peer_reports_peer ON peer_reports (peer, record);
        CREATE INDEX intervals_current ON intervals (peer, last_record);
    ",
    },
    Migration {
        // Version 3: an open interval (current at its peer's last record)
        // has no end of its own (NULL): its end is the peer's last record,
        // kept once on `peers` with its time. A cycle in which nothing
        // changed then writes no interval at all, where it updated every
        // open one: 300,000 rows a cycle at 10,000 peers, which PostgreSQL
        // keeps a dead version of each until vacuum (docs/performance.md).
        // SQLite cannot drop a NOT NULL: the tables are rebuilt.
        sqlite: "
        ALTER TABLE peers ADD COLUMN last_seen TEXT;
        UPDATE peers SET last_seen =
            (SELECT r.started_at FROM records r WHERE r.id = peers.last_record);
        CREATE TABLE intervals_v3 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            peer TEXT NOT NULL,
            declaration TEXT NOT NULL,
            verdict TEXT NOT NULL,
            first_record BIGINT NOT NULL,
            last_record BIGINT,
            first_seen TEXT NOT NULL,
            last_seen TEXT
        );
        INSERT INTO intervals_v3
            SELECT i.id, i.peer, i.declaration, i.verdict, i.first_record,
                CASE WHEN p.last_record = i.last_record THEN NULL ELSE i.last_record END,
                i.first_seen,
                CASE WHEN p.last_record = i.last_record THEN NULL ELSE i.last_seen END
            FROM intervals i LEFT JOIN peers p ON p.peer = i.peer;
        DROP TABLE intervals;
        ALTER TABLE intervals_v3 RENAME TO intervals;
        CREATE INDEX intervals_key ON intervals (peer, declaration, id);
        CREATE INDEX intervals_current ON intervals (peer, last_record);
        CREATE TABLE card_intervals_v3 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            peer TEXT NOT NULL,
            digest TEXT,
            first_record BIGINT NOT NULL,
            last_record BIGINT,
            first_seen TEXT NOT NULL,
            last_seen TEXT
        );
        INSERT INTO card_intervals_v3
            SELECT c.id, c.peer, c.digest, c.first_record,
                CASE WHEN p.last_record = c.last_record THEN NULL ELSE c.last_record END,
                c.first_seen,
                CASE WHEN p.last_record = c.last_record THEN NULL ELSE c.last_seen END
            FROM card_intervals c LEFT JOIN peers p ON p.peer = c.peer;
        DROP TABLE card_intervals;
        ALTER TABLE card_intervals_v3 RENAME TO card_intervals;
        CREATE INDEX card_intervals_key ON card_intervals (peer, id);
        CREATE INDEX card_intervals_current ON card_intervals (peer, last_record);
    ",
        postgres: "
        ALTER TABLE peers ADD COLUMN last_seen TEXT;
        UPDATE peers SET last_seen =
            (SELECT r.started_at FROM records r WHERE r.id = peers.last_record);
        ALTER TABLE intervals ALTER COLUMN last_record DROP NOT NULL,
            ALTER COLUMN last_seen DROP NOT NULL;
        UPDATE intervals i SET last_record = NULL, last_seen = NULL
            FROM peers p WHERE p.peer = i.peer AND p.last_record = i.last_record;
        ALTER TABLE card_intervals ALTER COLUMN last_record DROP NOT NULL,
            ALTER COLUMN last_seen DROP NOT NULL;
        UPDATE card_intervals c SET last_record = NULL, last_seen = NULL
            FROM peers p WHERE p.peer = c.peer AND p.last_record = c.last_record;
        CREATE INDEX card_intervals_current ON card_intervals (peer, last_record);
    ",
    },
];

/// The newest history schema version this build knows (and migrates to).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database to [`SCHEMA_VERSION`], or refuses a newer one: in
/// one transaction (PostgreSQL's DDL is transactional), which
/// [`Db::transaction`] serializes against other writers, so shards opening
/// one new database at once migrate it once.
pub(crate) fn migrate(db: &mut Db) -> Result<(), Error> {
    db.transaction(|db| {
        db.batch("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
        let found = current_version(db)?;
        if found > SCHEMA_VERSION {
            return Err(Error::NewerSchema {
                found,
                known: SCHEMA_VERSION,
            });
        }
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(found.max(0) as usize) {
            let sql = if db.is_postgres() {
                migration.postgres
            } else {
                migration.sqlite
            };
            db.batch(sql)?;
            db.execute(
                "INSERT INTO schema_version (version) VALUES ($1)",
                &[Value::Int(index as i64 + 1)],
            )?;
        }
        Ok(())
    })
}

/// What a SQLite file holds.
pub(crate) enum Kind {
    /// No table: a new file (or one made empty).
    Empty,
    /// A `schema_version` table: a history store.
    Store,
    /// Tables, but no `schema_version`: another program's database.
    Other,
}

/// What `conn` holds, read from its catalog before anything is written.
pub(crate) fn sqlite_kind(conn: &rusqlite::Connection) -> Result<Kind, rusqlite::Error> {
    let (tables, versions): (i64, i64) = conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(name = 'schema_version'), 0) FROM sqlite_master \
         WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        [],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )?;
    Ok(match (tables, versions) {
        (0, _) => Kind::Empty,
        (_, 0) => Kind::Other,
        _ => Kind::Store,
    })
}

/// The highest version applied (0 for a new database).
pub(crate) fn current_version(db: &mut Db) -> Result<i64, Error> {
    let rows = db.query("SELECT MAX(version) FROM schema_version", &[])?;
    let value = rows.first().and_then(|row| row.first());
    Ok(value
        .map(|v| v.maybe_int())
        .transpose()?
        .flatten()
        .unwrap_or(0))
}
