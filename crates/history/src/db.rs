//! One connection to either backend behind the few calls the store needs:
//! run a statement, run a query, a transaction. Values cross it as
//! [`Value`], so every query is written once; statements number their
//! parameters `$1, $2, …` in order of first use, which PostgreSQL reads as
//! positions and SQLite as names bound by position.

use crate::error::Error;
use postgres::types::{ToSql, Type};

/// A parameter or a column value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
    /// An SQL NULL in a text column.
    NullText,
    /// An SQL NULL read back (any column).
    Null,
}

impl Value {
    /// A text column that may be NULL.
    pub(crate) fn opt_text(text: Option<&str>) -> Value {
        text.map_or(Value::NullText, |t| Value::Text(t.to_string()))
    }

    pub(crate) fn int(&self) -> Result<i64, Error> {
        match self {
            Value::Int(n) => Ok(*n),
            other => Err(Error::Unexpected(format!(
                "{other:?} where a number was stored"
            ))),
        }
    }

    pub(crate) fn text(&self) -> Result<String, Error> {
        match self {
            Value::Text(t) => Ok(t.clone()),
            other => Err(Error::Unexpected(format!(
                "{other:?} where text was stored"
            ))),
        }
    }

    pub(crate) fn maybe_text(&self) -> Result<Option<String>, Error> {
        match self {
            Value::Null => Ok(None),
            other => other.text().map(Some),
        }
    }

    pub(crate) fn maybe_int(&self) -> Result<Option<i64>, Error> {
        match self {
            Value::Null => Ok(None),
            other => other.int().map(Some),
        }
    }
}

/// Which database, and the open connection to it.
pub(crate) enum Db {
    Sqlite(rusqlite::Connection),
    Postgres(PgClient),
}

/// A PostgreSQL connection that may be dropped on any thread. The client
/// says goodbye by blocking on a runtime of its own, which panics on a
/// thread driving a tokio runtime: a dashboard's server, which owns its
/// store, ends on one when a signal stops it. The goodbye is said on a
/// thread of its own, waited for.
pub(crate) struct PgClient(Option<Box<postgres::Client>>);

impl PgClient {
    pub(crate) fn connect(params: &str) -> Result<PgClient, Error> {
        let client = postgres::Client::connect(params, postgres::NoTls)?;
        Ok(PgClient(Some(Box::new(client))))
    }

    fn client(&mut self) -> Result<&mut postgres::Client, Error> {
        self.0
            .as_deref_mut()
            .ok_or_else(|| Error::Unexpected("the PostgreSQL connection is closed".into()))
    }
}

impl Drop for PgClient {
    fn drop(&mut self) {
        if let Some(client) = self.0.take() {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

/// PostgreSQL's start of a write: the advisory lock key is "a2ah" in ASCII.
const PG_BEGIN: &str = "BEGIN; SELECT pg_advisory_xact_lock(1630693992);";

/// A result row.
pub(crate) type Row = Vec<Value>;

impl Db {
    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Db::Postgres(_))
    }

    /// Runs one statement; returns the rows it changed.
    pub(crate) fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64, Error> {
        match self {
            Db::Sqlite(conn) => {
                let sql = sqlite_sql(sql);
                let changed = conn.execute(&sql, rusqlite::params_from_iter(params.iter()))?;
                Ok(changed as u64)
            }
            Db::Postgres(pg) => Ok(pg.client()?.execute(sql, &pg_params(params))?),
        }
    }

    /// Runs a script of statements without parameters (migrations, BEGIN).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<(), Error> {
        match self {
            Db::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Db::Postgres(pg) => Ok(pg.client()?.batch_execute(sql)?),
        }
    }

    /// Runs a query and reads every row.
    pub(crate) fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        match self {
            Db::Sqlite(conn) => sqlite_query(conn, sql, params),
            Db::Postgres(pg) => {
                let rows = pg.client()?.query(sql, &pg_params(params))?;
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
            Db::Postgres(_) => self.batch(PG_BEGIN)?,
        }
        match work(self) {
            Ok(done) => {
                self.batch("COMMIT")?;
                Ok(done)
            }
            Err(error) => {
                // The first error is the one to report; a failed rollback
                // leaves nothing written either (the connection drops it).
                let _ = self.batch("ROLLBACK");
                Err(error)
            }
        }
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

/// PostgreSQL parameters, each typed as its column is.
fn pg_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    const NULL_TEXT: Option<&str> = None;
    params
        .iter()
        .map(|value| -> &(dyn ToSql + Sync) {
            match value {
                Value::Int(n) => n,
                Value::Text(t) => t,
                Value::Bytes(b) => b,
                Value::NullText | Value::Null => &NULL_TEXT,
            }
        })
        .collect()
}

fn pg_row(row: &postgres::Row) -> Result<Row, Error> {
    let mut values = Vec::with_capacity(row.len());
    for (index, column) in row.columns().iter().enumerate() {
        let ty = column.type_();
        let value = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(index)?.map(Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(index)?
                .map(|n| Value::Int(i64::from(n)))
        } else if *ty == Type::TEXT || *ty == Type::VARCHAR {
            row.try_get::<_, Option<String>>(index)?.map(Value::Text)
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(index)?.map(Value::Bytes)
        } else {
            return Err(Error::Unexpected(format!("a column of type {ty}")));
        };
        values.push(value.unwrap_or(Value::Null));
    }
    Ok(values)
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
