//! The evidence entries a scenario run's report carries: what was sent,
//! received or observed, and when. These are report schema: the client
//! records its own exchanges, the engine maps them to these, the report
//! formats read them (the timelines are [`crate::format::timeline`]'s).

use serde::{Deserialize, Serialize};

/// What an evidence entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceKind {
    /// A request the tool sent (its `curl` reproduces it).
    Request,
    /// The peer's answer to a request.
    Response,
    /// An event of a stream, or a push notification the receiver got.
    Event,
    /// A stream comment (an SSE keep-alive): shown only under `-v`.
    Comment,
    /// How a stream ended: closed by the peer, by the tool, or cut.
    StreamEnd,
    /// What the run observed or decided (a wait, a digest, a step's result).
    Note,
    /// Stands for the entries left out between the first and the last ones
    /// a run keeps; its summary says how many.
    Elided,
}

/// One recorded exchange, event or observation, timed from the start of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Evidence {
    /// Milliseconds since the scenario run started.
    pub at_ms: u64,
    /// What the entry records.
    pub kind: EvidenceKind,
    /// One line: the method and URL, the status, the event, the note
    /// (secrets redacted).
    pub summary: String,
    /// The body sent or received, clipped to the evidence cap (secrets redacted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A command that reproduces the request (secrets as `$VAR` references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl: Option<String>,
}

/// How a note opens that a run writes before it sends a control (a request
/// sent only to tell what a failed answer means).
pub const CONTROL_NOTE: &str = "control: ";

/// How a note opens that a run writes when it goes on after the request its
/// verdict is about (an equivalence run after its first difference).
pub const FURTHER_NOTE: &str = "further: ";

/// How a note opens that an equivalence run writes before each side's
/// requests: `over <interface>:`, or `over <interface> (the reference):`.
pub const SIDE_NOTE: &str = "over ";

/// How the note of an equivalence run's reference side ends.
pub const REFERENCE_SIDE: &str = " (the reference):";
