//! The condition keys `expect` and `inconclusive_if` share (`state`,
//! `not_state`, `code`, `not_code`, `error`, `ok`, `http_status`), spelled
//! out in both structs by one macro, and what both do before judging a
//! stream capture: wait for its first event, which may be the refusal.

use crate::runner::calls::malformed_end;
use crate::runner::capture::Captured;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::values::Condition;
use a2a_conform_client::StreamItem;
use a2a_conform_protocol::Event;
use std::time::Instant;

// serde's `flatten` does not mix with `deny_unknown_fields`, so the condition
// keys are spelled out in both steps that take one.
macro_rules! condition_step {
    ($(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub(crate) struct $name {
            /// The capture to judge.
            of: String,
            #[serde(default)]
            state: Option<$crate::scenario::values::OneOrMany<a2a_conform_protocol::TaskState>>,
            #[serde(default)]
            not_state: Option<$crate::scenario::values::OneOrMany<a2a_conform_protocol::TaskState>>,
            #[serde(default)]
            code: Option<Vec<i64>>,
            #[serde(default)]
            not_code: Option<Vec<i64>>,
            #[serde(default)]
            error: Option<bool>,
            #[serde(default)]
            ok: Option<bool>,
            #[serde(default)]
            http_status: Option<Vec<u16>>,
            $($extra)*
        }

        impl $name {
            /// The condition keys, as one [`Condition`](crate::scenario::values::Condition).
            pub(crate) fn condition(&self) -> $crate::scenario::values::Condition {
                use $crate::scenario::values::{Condition, OneOrMany};
                Condition {
                    state: OneOrMany::all(&self.state),
                    not_state: OneOrMany::all(&self.not_state),
                    code: self.code.clone().unwrap_or_default(),
                    not_code: self.not_code.clone().unwrap_or_default(),
                    error: self.error.unwrap_or(false),
                    ok: self.ok.unwrap_or(false),
                    http_status: self.http_status.clone().unwrap_or_default(),
                }
            }
        }
    };
}
pub(super) use condition_step;

/// A streaming call may be refused inside the stream: the SSE stream's
/// first event is the JSON-RPC error (both official SDKs answer a v0.3
/// resubscribe to a finished task that way). When a condition asks about
/// errors and the capture is a stream, waits (bounded by the request
/// timeout) for its first event and, if that is an error, records it as
/// the capture's answer.
pub(super) async fn settle_stream_error(
    ctx: &mut RunContext<'_>,
    name: &str,
    condition: &Condition,
) -> StepResult {
    if !condition.error && condition.code.is_empty() {
        return Ok(());
    }
    let timeout = ctx.client.timeout();
    let capture = ctx
        .captures
        .get_mut(name)
        .ok_or_else(|| Stop::error(format!("no capture named `{name}`")))?;
    let Captured::Stream {
        handle,
        error: None,
    } = &mut capture.value
    else {
        return Ok(());
    };
    handle
        .wait_until(Instant::now() + timeout, |items, end| {
            !items.is_empty() || end.is_some()
        })
        .await;
    let (items, end) = handle.snapshot();
    let first = items.first();
    // A stream that ends or speaks nonsense before its first event is
    // neither a refusal nor a served stream.
    if first.is_none() {
        if let Some(stop) = end.as_ref().and_then(malformed_end) {
            return Err(stop);
        }
    }
    if let Some(StreamItem {
        event: Event::Unrecognized { reason },
        seq,
        ..
    }) = &first
    {
        return Err(Stop::malfunction_in(format!(
            "stream event #{seq} is not a valid A2A event: {reason}"
        )));
    }
    if let Some(StreamItem {
        event: Event::Error(error),
        seq,
        ..
    }) = first
    {
        let error = error.clone();
        capture.summary = format!(
            "error {} {} (stream event #{seq}: refused inside the stream)",
            error.code, error.message
        );
        if let Captured::Stream { error: slot, .. } = &mut capture.value {
            *slot = Some(error);
        }
    }
    Ok(())
}
