//! The PostgreSQL side of [`crate::db::Db`] (the `postgres` feature): a
//! connection that reconnects, and values typed for the server.

use crate::error::Error;
use crate::value::{Row, Value};
use postgres::types::{ToSql, Type};

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
    pub(crate) in_transaction: bool,
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
    pub(crate) fn run<T>(
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
pub(crate) const PG_BEGIN: &str = "BEGIN; SELECT pg_advisory_xact_lock(1630693992);";

/// PostgreSQL parameters, each typed as its column is.
pub(crate) fn pg_params(params: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
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

pub(crate) fn pg_row(row: &postgres::Row) -> Result<Row, Error> {
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
