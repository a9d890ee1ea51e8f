//! The cassette's lines: header, peers, runs and trailer, as serialized.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The `format` every cassette header names.
pub const FORMAT: &str = "a2a-conform-cassette";

/// The version of the format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// One line of a cassette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Line {
    /// The first line.
    Header(Header),
    /// A checked peer.
    Peer(PeerLine),
    /// A scenario run.
    Run(RunLine),
    /// The last line.
    Trailer(Trailer),
}

/// What the cassette is and what shaped its requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Header {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version ([`FORMAT_VERSION`] for this build).
    pub version: u32,
    /// The tool that recorded it (`a2a-conform`).
    pub tool: String,
    /// Its version.
    pub tool_version: String,
    /// When the check started (RFC 3339).
    pub started_at: String,
    /// `sha256:…` over the suite and the selection (as in a sharded report).
    pub suite_digest: String,
    /// The options that shape requests (selection, variables, retries, caps).
    #[serde(default)]
    pub options: BTreeMap<String, serde_json::Value>,
}

/// One checked peer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PeerLine {
    /// Its index: runs name it.
    pub peer: usize,
    /// The card URL it was checked at.
    pub card_url: String,
    /// `sha256:…` of the card body as served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_digest: Option<String>,
    /// The protocol version the card declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The binding the check used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// The endpoint it used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Why the card could not be read, if it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_error: Option<String>,
    /// The card's body as served (redacted by value): what a replay serves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<String>,
    /// The extended card a run was served with the credentials given,
    /// whole (redacted by value): what a replay serves for a recorded
    /// extended card answer the evidence cap clipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extended_card: Option<String>,
}

/// One scenario run and everything it exchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunLine {
    /// The peer's index.
    pub peer: usize,
    /// The run's id (`streaming-probe`, `cancel[skill=echo]`; a
    /// precondition search's exchanges as `precondition:<variable>`).
    pub run: String,
    /// The scenario it expands.
    pub scenario: String,
    /// Its verdict when recorded (kebab-case, as in the report).
    pub verdict: String,
    /// The exchanges, one a request, in order.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Webhook deliveries the tool's receiver got (and requests it refused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deliveries: Vec<Entry>,
    /// What the run observed or decided, and entries before its first request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<Entry>,
}

/// One request and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Step {
    /// 1 for the run's first request.
    pub step: u32,
    /// The request as sent (its `curl` reproduces it).
    pub request: Entry,
    /// The answer, if one came.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Entry>,
    /// The stream's events and comments, with their arrival offsets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Entry>,
    /// How the stream ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<Entry>,
}

/// One recorded entry, redacted and clipped as in the report's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Milliseconds since the run started.
    pub at_ms: u64,
    /// The entry's kind as in the report (`request`, `event`, `comment`…).
    pub kind: String,
    /// One line for people.
    pub summary: String,
    /// The body sent or received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A command reproducing a request (secrets as `$VAR` references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl: Option<String>,
}

/// The seal: a cassette without it, or whose lines do not match it, is refused.
/// A plain sha256 anyone can recompute: integrity (corruption, truncation,
/// an edit not resealed), not authenticity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Trailer {
    /// How many lines precede this one.
    pub lines: u64,
    /// `sha256:…` of those lines' bytes, each with its `\n`.
    pub digest: String,
}

/// A whole cassette, read or about to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Cassette {
    /// Its header.
    pub header: Header,
    /// Its peers, by index.
    pub peers: Vec<PeerLine>,
    /// Its runs, in the report's order.
    pub runs: Vec<RunLine>,
}

impl Cassette {
    /// The run `run` of peer `peer`, if recorded.
    pub fn run(&self, peer: usize, run: &str) -> Option<&RunLine> {
        self.runs.iter().find(|r| r.peer == peer && r.run == run)
    }
}
