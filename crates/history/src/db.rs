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

/// A PostgreSQL connection that may be dropped on any thread, and made
/// again when the server closed it (a restart, a failover, an idle
/// timeout): a long-running reader such as the dashboard would otherwise
/// fail every request until restarted.
///
/// The client says goodbye by blocking on a runtime of its own, which
/// panics on a thread driving a tokio runtime: a dashboard's server, which
/// owns its store, ends on one when a signal stops it. The goodbye is said
/// on a thread of its own, waited for.
pub(crate) struct PgClient {
    /// The connection string as given, password included: kept in memory
    /// only, to connect again; never shown (there is no `Debug`).
    params: String,
    /// `None` once the connection was found lost, until the next use.
    client: Option<Box<postgres::Client>>,
    /// Inside [`Db::transaction`]: a statement there is never run again on
    /// a new connection (the transaction ended with the old one).
    in_transaction: bool,
}

impl PgClient {
    pub(crate) fn connect(params: &str) -> Result<PgClient, Error> {
        let client = postgres::Client::connect(params, postgres::NoTls)?;
        Ok(PgClient {
            params: params.to_string(),
            client: Some(Box::new(client)),
            in_transaction: false,
        })
    }

    /// The open connection; a lost one is made again, one attempt per use
    /// (a server still down fails this use, and the next use tries again).
    fn client(&mut self) -> Result<&mut postgres::Client, Error> {
        if self
            .client
            .as_ref()
            .is_some_and(|client| client.is_closed())
        {
            self.discard();
        }
        if self.client.is_none() {
            if self.in_transaction {
                // ROLLBACK after a lost connection: nothing is left to end.
                return Err(Error::Unexpected(
                    "the PostgreSQL connection was lost during a transaction".into(),
                ));
            }
            let client = postgres::Client::connect(&self.params, postgres::NoTls)?;
            self.client = Some(Box::new(client));
        }
        self.client
            .as_deref_mut()
            .ok_or_else(|| Error::Unexpected("the PostgreSQL connection is closed".into()))
    }

    /// Runs `op` on the connection. When it fails because the connection is
    /// gone, the connection is dropped (the next use makes a new one) and,
    /// with `retry` outside a transaction, `op` runs once more on a new
    /// one: only for what left nothing applied on the old (a read, BEGIN).
    fn run<T>(
        &mut self,
        retry: bool,
        mut op: impl FnMut(&mut postgres::Client) -> Result<T, postgres::Error>,
    ) -> Result<T, Error> {
        let error = match op(self.client()?) {
            Ok(done) => return Ok(done),
            Err(error) => error,
        };
        if !self.lost(&error) {
            return Err(error.into());
        }
        self.discard();
        if !retry || self.in_transaction {
            return Err(error.into());
        }
        Ok(op(self.client()?)?)
    }

    /// Whether `error` means the session is over: the connection closed or
    /// failed, or the server ended the session (FATAL, as a shutdown does;
    /// SQLSTATE class 08, a connection exception).
    fn lost(&self, error: &postgres::Error) -> bool {
        use postgres::error::Severity;
        if error.is_closed() || self.client.as_ref().is_none_or(|c| c.is_closed()) {
            return true;
        }
        if let Some(db) = error.as_db_error() {
            return matches!(
                db.parsed_severity(),
                Some(Severity::Fatal | Severity::Panic)
            ) || db.code().code().starts_with("08");
        }
        std::error::Error::source(error).is_some_and(|cause| cause.is::<std::io::Error>())
    }

    /// Drops the connection on a thread of its own (see the type's doc).
    fn discard(&mut self) {
        if let Some(client) = self.client.take() {
            let _ = std::thread::spawn(move || drop(client)).join();
        }
    }
}

impl Drop for PgClient {
    fn drop(&mut self) {
        self.discard();
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
            // A write that failed with its connection may have been applied:
            // never run again.
            Db::Postgres(pg) => pg.run(false, |client| client.execute(sql, &pg_params(params))),
        }
    }

    /// Runs a script of statements without parameters (migrations, BEGIN).
    pub(crate) fn batch(&mut self, sql: &str) -> Result<(), Error> {
        match self {
            Db::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Db::Postgres(pg) => pg.run(false, |client| client.batch_execute(sql)),
        }
    }

    /// Runs a query and reads every row.
    pub(crate) fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        match self {
            Db::Sqlite(conn) => sqlite_query(conn, sql, params),
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
