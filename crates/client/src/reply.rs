//! How a call to a peer ended, as the runner judges it: a result, a protocol
//! error, a broken answer, an answer cut at a cap, no answer, or refused
//! credentials.

use a2a_conform_protocol::RpcError;
use serde_json::Value;

/// How a call ended, as the runner judges it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A well-formed success with its result.
    Ok(Value),
    /// A well-formed protocol error.
    Err(RpcError),
    /// The peer answered, but not with something the protocol allows (not
    /// JSON, wrong id, no result nor error, HTTP error page, a connection
    /// broken before or during the answer).
    Broken(String),
    /// HTTP 404, 405 or 501 without a valid A2A answer: nothing speaks the
    /// protocol at that URL. A malfunction, except where the promise is that
    /// something does (an `interfaces[…]` row).
    NotServed(String),
    /// The answer was cut at one of the tool's own caps (`--max-body-bytes`),
    /// or did not come within the tool's `--timeout`: the tool's doing, not a
    /// finding. The text names the cap and its flag.
    Capped(String),
    /// The peer could not be reached at all: tool-side trouble, not a finding.
    Unreachable(String),
    /// HTTP 401 or 403, whatever the body (v1 §7.4): the peer refused the
    /// request's credentials. `detail` names the `WWW-Authenticate`
    /// challenge and the start of the body.
    Refused {
        /// 401 or 403.
        status: u16,
        /// The challenge and the start of the body.
        detail: String,
    },
    /// A replay (`a2a-conform replay`, `rejudge`) does not hold this
    /// request: the recording's gap, never the peer's answer. `reason`
    /// names the run and step; `unverified` when the replay re-judges
    /// (`rejudge`: the run reads unverified, "not in the recording"),
    /// else the run is an error.
    NotRecorded {
        /// The replay's words: which run and step it has no answer for.
        reason: String,
        /// Whether the run then reads unverified rather than error.
        unverified: bool,
    },
}

/// The header a replay marks a request it does not hold with: `error` or
/// `unverified` (how the run should read), its body the reason.
pub const REPLAY_MISS_HEADER: &str = "x-a2a-conform-replay-miss";
