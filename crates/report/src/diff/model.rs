//! What a diff says: labels, kinds and `--fail-on` (each spelled once, by
//! clap's `ValueEnum`), the changes, and the whole comparison `--json`
//! prints. The comparison itself is in the parent module, the release-gate
//! rules in `gate`, the showing in `render`.

use clap::ValueEnum;
use serde::{Serialize, Serializer};
use std::fmt;

/// Bumped on any incompatible change to the diff JSON.
pub const DIFF_SCHEMA_VERSION: u32 = 1;

/// What a change means for a release.
///
/// This enum, [`Kind`] and [`FailOn`] are spelled once, by clap's
/// [`ValueEnum`] (kebab-case): [`fmt::Display`] and the JSON both use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Label {
    /// A promise that was kept is now broken, or dropped from the card.
    Regression,
    /// A broken promise is now kept.
    Fix,
    /// Anything else that changed (a known, baselined divergence included).
    Drift,
    /// A change acknowledged with `--accept` or a baseline's `accept:` list:
    /// listed, never failing.
    Accepted,
}

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// A peer is in only one of the reports.
    Peer,
    /// A field of the card: `name`, `card_digest`, `protocol_version`,
    /// `binding`, `endpoint`, `card_error`.
    Card,
    /// A declaration row's verdict (or whether the card declares it).
    Declaration,
    /// A scenario run's verdict.
    Scenario,
}

/// `--fail-on`: which changes make `diff` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Exit 1 when a kept promise broke or was dropped (honoured → diverged, pass → fail).
    Regression,
    /// Exit 1 on any change, drift included.
    Any,
    /// Always exit 0 (report only).
    Never,
}

/// Writes a value by its [`ValueEnum`] name, honouring width and alignment.
fn write_name(value: &impl ValueEnum, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match value.to_possible_value() {
        Some(name) => f.pad(name.get_name()),
        None => Ok(()),
    }
}

/// Serializes a value as its [`fmt::Display`] name.
fn serialize_name<S: Serializer>(value: &impl fmt::Display, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(self, f)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(self, f)
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_name(self, f)
    }
}

/// One change between the reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// What the change means for a release.
    #[serde(serialize_with = "serialize_name")]
    pub label: Label,
    /// The peer's card URL (the new report's, when both have it).
    pub peer: String,
    /// What changed: a peer, a card field, a declaration or a scenario run.
    #[serde(serialize_with = "serialize_name")]
    pub kind: Kind,
    /// The card field, declaration id, scenario run id, or peer card URL.
    pub id: String,
    /// The value before (a verdict for declarations and runs); null when absent.
    pub old: Option<String>,
    /// The value after; null when absent.
    pub new: Option<String>,
    /// What changed, in a sentence, with the new row's reason or message.
    pub message: String,
}

/// One of the two reports compared: where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComparedReport {
    /// The file as named on the command line.
    pub file: String,
    /// When its check started (RFC 3339; empty when the report has none).
    pub started_at: String,
    /// The a2a-conform version that wrote it.
    pub tool_version: String,
}

/// The changes by label (the diff's `summary`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ChangeCounts {
    /// Kept promises now broken or dropped.
    pub regressions: usize,
    /// Broken promises now kept.
    pub fixes: usize,
    /// Every other change.
    pub drift: usize,
    /// Changes acknowledged with `--accept` or a baseline's `accept:`.
    pub accepted: usize,
}

/// Which peer of the old report was compared with which of the new one
/// (`null` on the side a peer is missing from).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PeerPair {
    /// The old report's card URL.
    pub old: Option<String>,
    /// The new report's card URL.
    pub new: Option<String>,
}

/// The whole comparison; `--json` prints it as is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// The version of this JSON ([`DIFF_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// The old report.
    pub old: ComparedReport,
    /// The new report.
    pub new: ComparedReport,
    /// How the peers were paired.
    pub peers: Vec<PeerPair>,
    /// The `--fail-on` the diff was judged by.
    #[serde(serialize_with = "serialize_name")]
    pub fail_on: FailOn,
    /// Whether `--fail-on` is triggered (exit 1).
    pub failed: bool,
    /// The changes by label.
    pub summary: ChangeCounts,
    /// Regressions first, then fixes, drift, accepted.
    pub changes: Vec<Change>,
    /// Accepted ids (`--accept`, `accept:`) that named no change.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmatched_accepts: Vec<String>,
}
