//! The JSON-RPC 2.0 binding's answers: the response envelope (version, id,
//! exactly one of `result` and `error`), for plain answers and for each SSE
//! event of a stream.

use super::reply::Reply;
use a2a_conform_protocol::text::clip;
use a2a_conform_protocol::RpcError;
use serde_json::Value;

/// Judges a JSON-RPC answer: valid JSON, `jsonrpc: "2.0"`, our id echoed, and
/// exactly one of `result` and `error`.
/// The caller names the HTTP status and content type of a broken answer.
pub(crate) fn classify_jsonrpc(expect_id: Option<u64>, body: &[u8]) -> Reply {
    let value: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Reply::Broken(format!(
                "the body is not JSON ({e}): {}",
                clip(&String::from_utf8_lossy(body), 120)
            ))
        }
    };
    classify_envelope(expect_id, &value).unwrap_or_else(|e| Reply::Broken(e.to_string()))
}

/// Reads one JSON-RPC response envelope (also used for each SSE event).
pub(crate) fn classify_envelope(
    expect_id: Option<u64>,
    value: &Value,
) -> Result<Reply, EnvelopeError> {
    let Some(obj) = value.as_object() else {
        return Err(EnvelopeError::NotAnObject);
    };
    if let Some(expected) = expect_id {
        match obj.get("id") {
            Some(id)
                if id.as_u64() == Some(expected) || id.as_str() == Some(&expected.to_string()) => {}
            // A parse error may be answered with a null id; anything else is wrong.
            Some(Value::Null) if obj.contains_key("error") => {}
            Some(other) => {
                return Err(EnvelopeError::IdMismatch {
                    got: other.clone(),
                    expected,
                })
            }
            None => return Err(EnvelopeError::NoId),
        }
    }
    match (obj.get("result"), obj.get("error")) {
        (Some(_), Some(_)) => Err(EnvelopeError::Both),
        (Some(result), None) => Ok(Reply::Ok(result.clone())),
        (None, Some(error)) => RpcError::from_json(error)
            .map(Reply::Err)
            .ok_or_else(|| EnvelopeError::NoCode(error.clone())),
        (None, None) => Err(EnvelopeError::Neither),
    }
}

/// What is wrong with a JSON-RPC response envelope.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum EnvelopeError {
    #[error("the answer is not a JSON-RPC object")]
    NotAnObject,
    #[error("response id {got} does not match request id {expected}")]
    IdMismatch { got: Value, expected: u64 },
    #[error("response has no `id`")]
    NoId,
    #[error("response carries both `result` and `error`")]
    Both,
    #[error("`error` has no integer `code`: {0}")]
    NoCode(Value),
    #[error("response has neither `result` nor `error`")]
    Neither,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_checks_id_and_shape() {
        assert!(matches!(
            classify_jsonrpc(Some(3), br#"{"jsonrpc":"2.0","id":3,"result":{"a":1}}"#),
            Reply::Ok(_)
        ));
        assert!(matches!(
            classify_jsonrpc(Some(3), br#"{"jsonrpc":"2.0","id":4,"result":{}}"#),
            Reply::Broken(r) if r.contains("does not match request id 3")
        ));
        assert!(matches!(
            classify_jsonrpc(Some(3), br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"x"}}"#),
            Reply::Err(e) if e.code == -32001
        ));
        assert!(matches!(
            classify_jsonrpc(Some(3), b"<html>oops</html>"),
            Reply::Broken(r) if r.contains("not JSON")
        ));
        assert!(matches!(
            classify_jsonrpc(Some(3), br#"{"jsonrpc":"2.0","id":3}"#),
            Reply::Broken(r) if r.contains("neither")
        ));
        assert!(matches!(
            classify_jsonrpc(Some(3), br#"{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1}}"#),
            Reply::Broken(r) if r.contains("both")
        ));
    }
}
