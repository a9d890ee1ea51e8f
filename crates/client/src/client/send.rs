//! Sending one request, once more on a fresh connection when the first try
//! broke before any byte of the answer.
//!
//! After an HTTP 500 some servers close the kept-alive connection without
//! `Connection: close`; the next request sent on it — often another run's —
//! gets "connection reset by peer". That is no answer of the peer's to that
//! request, so, as curl does, the request is sent once more on a connection
//! of its own ([`super::super::http::fresh_client`]), and the evidence says
//! so. Never after a byte of the answer arrived (a response head read, a body
//! broken: that is the peer answering), never on a timeout, and only once.
//!
//! reqwest does not say whether the connection was a reused one, so any send
//! that broke before the answer's head is tried again
//! ([`super::super::http::broke_before_answer`]). For a `SendMessage` that is
//! safe in the stale case (the peer closed the connection before reading the
//! request, so it never saw it) and tellable in the others: the second try
//! carries the same `messageId` (and JSON-RPC id), which identifies the
//! message to a peer that did receive the first.

use super::super::http::{broke_before_answer, describe_reqwest_error};
use super::super::transcript::Transcript;
use crate::transcript::RecordKind;
use std::time::Instant;

/// How a send ended.
pub(super) enum Sent {
    /// The response head arrived (on the first try or the second).
    Answer(reqwest::Response),
    /// The send failed (on the second try, when there was one).
    Failed(reqwest::Error),
    /// The deadline (`--timeout` from the first try) passed first.
    TimedOut,
}

/// Sends `request` through `client`; if it breaks before any byte of the
/// answer, sends it once more through `fresh()` (a client that opens a new
/// connection), within the same `deadline`, noting the retry in the
/// transcript. `resent` says what sending it twice means for this request.
pub(super) async fn send(
    client: &reqwest::Client,
    fresh: impl FnOnce() -> Option<reqwest::Client>,
    request: reqwest::Request,
    deadline: tokio::time::Instant,
    (transcript, resent): (&Transcript, &str),
) -> Sent {
    let again = request.try_clone();
    let error = match tokio::time::timeout_at(deadline, client.execute(request)).await {
        Err(_) => return Sent::TimedOut,
        Ok(Ok(response)) => return Sent::Answer(response),
        Ok(Err(error)) => error,
    };
    let (Some(again), true) = (again, broke_before_answer(&error)) else {
        return Sent::Failed(error);
    };
    let Some(fresh) = fresh() else {
        return Sent::Failed(error);
    };
    transcript.record(
        RecordKind::Note,
        Instant::now(),
        format!(
            "sent once more on a fresh connection: the first try's broke before any byte of \
             the answer ({}), as a kept-alive connection the peer closed without saying so \
             does, which is no answer of the peer's (curl retries it too){resent}",
            describe_reqwest_error(&error)
        ),
        None,
        None,
    );
    match tokio::time::timeout_at(deadline, fresh.execute(again)).await {
        Err(_) => Sent::TimedOut,
        Ok(Ok(response)) => Sent::Answer(response),
        Ok(Err(error)) => Sent::Failed(error),
    }
}
