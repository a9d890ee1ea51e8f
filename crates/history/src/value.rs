//! The values that cross [`crate::db::Db`] either way, whichever the
//! backend: a statement's parameters and a query's columns.

use crate::error::Error;

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

/// A result row.
pub(crate) type Row = Vec<Value>;
