//! One connection to either backend behind the few calls the store needs:
//! run a statement, run a query, a transaction. Values cross it as
//! [`Value`], so every query is written once; statements number their
//! parameters `$1, $2, …` in order of first use, which PostgreSQL reads as
//! positions and SQLite as names bound by position.

use crate::error::Error;
#[cfg(feature = "postgres")]
use crate::pg::{pg_params, pg_row, PgClient, PG_BEGIN};
pub(crate) use crate::value::{Row, Value};

/// Which database, and the open connection to it.
pub(crate) enum Db {
    Sqlite(rusqlite::Connection),
    /// Only in a build with the `postgres` feature.
    #[cfg(feature = "postgres")]
    Postgres(PgClient),
}

impl Db {
    pub(crate) fn is_postgres(&self) -> bool {
        #[cfg(feature = "postgres")]
        return matches!(self, Db::Postgres(_));
        #[cfg(not(feature = "postgres"))]
        false
    }

    /// Runs one statement; returns the rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, Error> {
        match self {
            Db::Sqlite(conn) => {
                let sql = sqlite_sql(sql);
                let changed = conn.execute(&sql, rusqlite::params_from_iter(params.iter()))?;
                Ok(changed as u64)
            }
            // A write that failed with its connection may have been applied:
            // never run again.
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => pg.run(false, |client| client.execute(sql, &pg_params(params))),
        }
    }

    /// Runs a script of statements without parameters (migrations, BEGIN).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<(), Error> {
        match self {
            Db::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => pg.run(false, |client| client.batch_execute(sql)),
        }
    }

    /// Runs a query and reads every row.
    pub(crate) fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        match self {
            Db::Sqlite(conn) => sqlite_query(conn, sql, params),
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => {
                let rows = pg.run(true, |client| client.query(sql, &pg_params(params)))?;
                rows.iter().map(pg_row).collect()
            }
        }
    }

    /// Runs `work` in one transaction: all of it is written, or none.
    /// Writers are serialized — SQLite's `BEGIN IMMEDIATE` takes the write
    /// lock at once (no deadlock upgrading a read lock), PostgreSQL takes a
    /// transaction advisory lock — so shards importing into one store at
    /// once never interleave one peer's intervals.
    pub(crate) fn transaction<T>(
        &mut self,
        work: impl FnOnce(&mut Db) -> Result<T, Error>,
    ) -> Result<T, Error> {
        match self {
            Db::Sqlite(_) => self.batch("BEGIN IMMEDIATE")?,
            // Nothing was applied before BEGIN: on a lost connection it runs
            // again on a new one.
            #[cfg(feature = "postgres")]
            Db::Postgres(pg) => {
                pg.run(true, |client| client.batch_execute(PG_BEGIN))?;
                pg.in_transaction = true;
            }
        }
        let outcome = match work(self) {
            Ok(done) => self.batch("COMMIT").map(|()| done),
            Err(error) => {
                // The first error is the one to report; a failed rollback
                // leaves nothing written either (the connection drops it).
                let _ = self.batch("ROLLBACK");
                Err(error)
            }
        };
        #[cfg(feature = "postgres")]
        if let Db::Postgres(pg) = self {
            pg.in_transaction = false;
        }
        outcome
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Int(n) => ToSqlOutput::Borrowed(ValueRef::Integer(*n)),
            Value::Text(t) => ToSqlOutput::Borrowed(ValueRef::Text(t.as_bytes())),
            Value::Bytes(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
            Value::NullText | Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
        })
    }
}

/// A statement as SQLite reads it fastest: each `$N` written `?N`. SQLite
/// takes `$N` for a name and finds each in a list of the names before it,
/// which a statement of thousands of parameters (a record's batches) pays
/// for quadratically; `?N` is a number. No statement holds a `$` but its
/// parameters' (peer text always travels as a parameter).
fn sqlite_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        let numbered = c == '$' && chars.peek().is_some_and(char::is_ascii_digit);
        out.push(if numbered { '?' } else { c });
    }
    out
}

fn sqlite_query(
    conn: &rusqlite::Connection,
    sql: &str,
    params: &[Value],
) -> Result<Vec<Row>, Error> {
    use rusqlite::types::ValueRef;
    let mut statement = conn.prepare_cached(&sqlite_sql(sql))?;
    let width = statement.column_count();
    let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut values = Vec::with_capacity(width);
        for column in 0..width {
            values.push(match row.get_ref(column)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::Int(n),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Bytes(b.to_vec()),
                ValueRef::Real(r) => {
                    return Err(Error::Unexpected(format!("a real number {r}")));
                }
            });
        }
        out.push(values);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_reads_numbered_parameters_as_numbers() {
        assert_eq!(
            sqlite_sql("SELECT a FROM t WHERE b = $1 AND c IN ($2, $10) AND d = '$'"),
            "SELECT a FROM t WHERE b = ?1 AND c IN (?2, ?10) AND d = '$'"
        );
    }
}
