//! The caps on what is read from a peer and kept as evidence: a peer that
//! never stops talking must not exhaust the tool's memory or the report.
//! The defaults below are what the `--max-*` flags start from ([`Limits`]);
//! reaching one is the tool's doing, so it ends the run in `error` naming
//! the cap and its flag, never in `fail`.

/// The largest response body read from a peer (non-streaming).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// The largest single SSE event accepted.
pub const MAX_SSE_EVENT_BYTES: usize = 1024 * 1024;
/// The most bytes read from one stream before it is cut.
pub const MAX_STREAM_BYTES: u64 = 32 * 1024 * 1024;
/// The most events kept from one stream before it is cut.
pub const MAX_STREAM_EVENTS: usize = 10_000;
/// How much of a body (and of a summary) is kept in evidence.
pub const EVIDENCE_BODY_CHARS: usize = 4096;

/// The caps in force for one check (`--max-body-bytes`, `--max-event-bytes`,
/// `--max-stream-bytes`, `--max-stream-events`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest response body read (`--max-body-bytes`).
    pub max_body_bytes: usize,
    /// The largest single stream event (`--max-event-bytes`).
    pub max_event_bytes: usize,
    /// The most bytes read from one stream (`--max-stream-bytes`).
    pub max_stream_bytes: u64,
    /// The most events kept from one stream (`--max-stream-events`).
    pub max_stream_events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: MAX_BODY_BYTES,
            max_event_bytes: MAX_SSE_EVENT_BYTES,
            max_stream_bytes: MAX_STREAM_BYTES,
            max_stream_events: MAX_STREAM_EVENTS,
        }
    }
}
/// How much of a reproduction command is kept in evidence.
pub(crate) const EVIDENCE_CURL_CHARS: usize = 16 * 1024;
/// How many entries of a run's evidence are kept from its start…
pub(crate) const EVIDENCE_HEAD: usize = 50;
/// …and from its end; the entries between are counted, not kept.
pub(crate) const EVIDENCE_TAIL: usize = 50;
/// How many SSE comments of one stream are recorded one by one; later ones
/// are counted (number and bytes) and summed up when the stream ends.
pub(crate) const RECORDED_COMMENTS: usize = 3;
