//! The evidence entries a scenario run's report carries: what was sent,
//! received or observed, and when. These are report schema; the transport
//! records them (`transport::transcript`), the report formats read them.

use serde::{Deserialize, Serialize};

/// What an evidence entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceKind {
    Request,
    Response,
    Event,
    Comment,
    StreamEnd,
    Note,
    /// Stands for the entries left out between the first and the last ones
    /// a run keeps; its summary says how many.
    Elided,
}

/// One recorded exchange, event or observation, timed from the start of the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Evidence {
    /// Milliseconds since the scenario run started.
    pub at_ms: u64,
    pub kind: EvidenceKind,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A command that reproduces the request (secrets as `$VAR` references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl: Option<String>,
}
