//! The one versioned run report every output format is a pure function of,
//! and writing report files atomically.

pub mod builder;
pub mod evidence;
pub mod human;
pub mod junit;
pub mod markdown;
pub mod schema;
pub mod summary;
pub mod transcript;

use serde::{Deserialize, Serialize};
use std::path::Path;
use strum::{IntoStaticStr, VariantArray};
pub use summary::Summary;
use transcript::Evidence;

/// What every format says of an interrupted report (`interrupted: true`).
pub const INTERRUPTED_NOTE: &str =
    "the check was stopped by a signal; this report holds the runs that finished, \
     runs cut short read error";

/// What every format says of a report made with `--insecure` (`tool.insecure: true`).
pub const INSECURE_NOTE: &str =
    "--insecure: TLS certificates were not verified; this run proves nothing about the peer's identity";

/// Bumped on any incompatible change to the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunReport {
    pub schema_version: u32,
    pub tool: Tool,
    /// UTC start time, RFC 3339.
    pub started_at: String,
    pub peers: Vec<PeerReport>,
    /// `--fail-on-flaky`: a flaky run fails the run (exit 1).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fail_on_flaky: bool,
    /// `--fail-on-unverified`: a declared row left unverified fails the run (exit 4).
    #[serde(default, skip_serializing_if = "is_false")]
    pub fail_on_unverified: bool,
    /// `--baseline`: the known divergences the run was judged against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineReport>,
    /// The counts every headline is rendered from (`verdict::summarize`),
    /// filled in when the run is finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// SIGINT/SIGTERM stopped the check: the report holds what finished,
    /// runs cut short read `error`. Absent means false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub interrupted: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// The baseline file a run was judged against, and what became of each entry.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineReport {
    /// The file as given on the command line.
    pub file: String,
    /// `--strict-baseline`: a stale entry fails the run.
    #[serde(default)]
    pub strict: bool,
    pub entries: Vec<BaselineEntryReport>,
}

/// One known divergence from the baseline file.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineEntryReport {
    /// The declaration id it excuses, or…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    /// …the scenario run id it excuses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    pub reason: String,
    pub status: BaselineStatus,
    /// What the entry's target reads in this run.
    pub note: String,
}

impl BaselineEntryReport {
    /// `declaration lifecycle.cancel` / `scenario cancel-then-stream`.
    pub fn target(&self) -> String {
        match (&self.declaration, &self.scenario) {
            (Some(d), _) => format!("declaration {d}"),
            (None, Some(s)) => format!("scenario {s}"),
            (None, None) => "nothing".into(),
        }
    }
}

/// What a baseline entry did in a run.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum BaselineStatus {
    /// It excused a divergence or a failing run.
    Applied,
    /// Its target now honours / passes: the entry can go.
    Stale,
    /// Its target could not be decided (unverified, inconclusive, skipped, error).
    Undecided,
    /// No declaration or scenario run of this run has its id.
    Unmatched,
}

impl BaselineStatus {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Tool {
    pub name: String,
    pub version: String,
    /// `--insecure`: TLS certificates were not verified. Absent means false.
    #[serde(default, skip_serializing_if = "is_false")]
    pub insecure: bool,
}

impl Tool {
    pub fn this() -> Tool {
        Tool {
            name: env!("CARGO_PKG_NAME").into(),
            version: env!("CARGO_PKG_VERSION").into(),
            insecure: false,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PeerReport {
    /// The URL given on the command line, as the card URL it resolved to.
    pub card_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `sha256:…` of the card body, so `diff` can tell a card changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Why no scenario could run: unreachable host, bad card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_error: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub card_warnings: Vec<String>,
    pub declarations: Vec<DeclarationReport>,
    pub scenarios: Vec<ScenarioReport>,
    /// The peer's wall time, card fetch to last run (runs overlap, so this
    /// is not the sum of their durations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// The headline: one row per card declaration.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum DeclarationVerdict {
    Honoured,
    Diverged,
    Unverified,
    NotDeclared,
    OverDelivers,
}

impl DeclarationVerdict {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DeclarationReport {
    pub id: String,
    pub declared: bool,
    pub verdict: DeclarationVerdict,
    /// The scenario runs that verified it.
    pub scenarios: Vec<String>,
    pub reason: String,
    /// A known divergence (`--baseline`): still `diverged`, but it does not
    /// fail the run.
    #[serde(default, skip_serializing_if = "is_false")]
    pub baselined: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
}

/// The verdict of one scenario run.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ScenarioVerdict {
    Pass,
    Fail,
    /// Failed, then passed on a retry.
    Flaky,
    /// The peer never reached the precondition.
    Inconclusive,
    Skipped,
    /// Tool trouble, an unreachable peer, or a peer malfunction (see
    /// [`ErrorKind`]).
    Error,
}

impl ScenarioVerdict {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a run ended in `error`: whose fault it was decides whether the
/// declaration it verifies may be judged at all.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    IntoStaticStr,
    VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ErrorKind {
    /// The peer answered, but not with a valid A2A answer (HTTP 5xx, HTML,
    /// not JSON, an invalid envelope or event, a wrong id, no answer in
    /// time, a reset): nothing it said keeps or breaks a promise.
    PeerMalfunction,
    /// A malfunction of one kind: HTTP 404, 405 or 501 and no A2A answer,
    /// nothing speaks the protocol at that URL. Where the promise is that
    /// something does (an `interfaces[…]` row), that is the divergence.
    NotServed,
    /// One of the tool's own caps (events, bytes, per-event size, body size)
    /// was reached: never the peer's fault.
    ToolCap,
    /// The peer could not be reached after its card was read.
    Unreachable,
    /// The tool itself could not run the scenario (a suite or plan problem).
    Tool,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScenarioReport {
    /// The run's id: the scenario id, with the expansion in brackets
    /// (`input-mode-resume[application/json]`).
    pub id: String,
    /// The scenario id as written in the suite.
    pub scenario: String,
    pub title: String,
    pub verdict: ScenarioVerdict,
    pub verifies: Vec<String>,
    pub duration_ms: u64,
    pub message: String,
    /// Why an `error` run ended in error (absent in reports of older
    /// versions and on runs that are not `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// How many times it ran (more than 1 with `--retries`).
    pub attempts: u32,
    /// The messages of the attempts that failed before the last one (with
    /// `--retries`): the failed attempts of a `flaky` run, or the earlier
    /// attempts of a run that failed every time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_attempts: Vec<String>,
    /// A known failure (`--baseline`): it does not fail the run.
    #[serde(default, skip_serializing_if = "is_false")]
    pub baselined: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
    /// Kept for every run that did not pass; for a `flaky` run, the evidence
    /// of its first failed attempt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl PeerReport {
    /// A peer with nothing known or judged yet.
    pub fn new(card_url: impl Into<String>) -> PeerReport {
        PeerReport {
            card_url: card_url.into(),
            name: None,
            card_digest: None,
            protocol_version: None,
            binding: None,
            endpoint: None,
            card_error: None,
            card_warnings: vec![],
            declarations: vec![],
            scenarios: vec![],
            duration_ms: None,
        }
    }
}

impl RunReport {
    /// A report of this tool's schema over `peers`, started now.
    pub fn new(peers: Vec<PeerReport>) -> RunReport {
        RunReport {
            schema_version: SCHEMA_VERSION,
            tool: Tool::this(),
            started_at: now_rfc3339(),
            peers,
            fail_on_flaky: false,
            fail_on_unverified: false,
            baseline: None,
            summary: None,
            interrupted: false,
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// Writes a file atomically: a temporary file beside it, then a rename, so a
/// crash never leaves half a report for CI to read.
pub fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Checks that [`write_atomically`] can later write `path`: not a
/// directory, and its directory takes a new file (one is created and removed).
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let probe = dir.join(format!(".a2a-conform-probe.{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

/// The current UTC time as RFC 3339 (`2026-11-30T09:23:38Z`).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The human and Markdown reports print `as_str`; the JSON report the serde
    /// spelling. They must be the same word.
    fn same_names<T: Serialize + Copy + Into<&'static str>>(all: &[T]) {
        for v in all {
            let name: &'static str = (*v).into();
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(name));
        }
    }

    #[test]
    fn verdict_names_are_the_json_spellings() {
        same_names(ScenarioVerdict::VARIANTS);
        same_names(DeclarationVerdict::VARIANTS);
        same_names(BaselineStatus::VARIANTS);
        assert_eq!(DeclarationVerdict::OverDelivers.as_str(), "over-delivers");
        assert_eq!(ScenarioVerdict::Inconclusive.as_str(), "inconclusive");
    }

    #[test]
    fn timestamps_look_like_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }

    #[test]
    fn atomic_write_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_atomically(&path, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
