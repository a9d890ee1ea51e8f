//! The one versioned run report every output format is a pure function of,
//! and writing report files atomically.

pub mod human;

use crate::transport::Evidence;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Bumped on any incompatible change to the JSON report.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    pub schema_version: u32,
    pub tool: Tool,
    /// UTC start time, RFC 3339.
    pub started_at: String,
    pub peers: Vec<PeerReport>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

impl Tool {
    pub fn this() -> Tool {
        Tool {
            name: env!("CARGO_PKG_NAME").into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
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
}

/// The headline: one row per card declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeclarationVerdict {
    Honoured,
    Diverged,
    Unverified,
    NotDeclared,
    OverDelivers,
}

impl DeclarationVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            DeclarationVerdict::Honoured => "honoured",
            DeclarationVerdict::Diverged => "diverged",
            DeclarationVerdict::Unverified => "unverified",
            DeclarationVerdict::NotDeclared => "not-declared",
            DeclarationVerdict::OverDelivers => "over-delivers",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeclarationReport {
    pub id: String,
    pub declared: bool,
    pub verdict: DeclarationVerdict,
    /// The scenario runs that verified it.
    pub scenarios: Vec<String>,
    pub reason: String,
}

/// The verdict of one scenario run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScenarioVerdict {
    Pass,
    Fail,
    /// Failed, then passed on a retry.
    Flaky,
    /// The peer never reached the precondition.
    Inconclusive,
    Skipped,
    /// Tool trouble or an unreachable peer.
    Error,
}

impl ScenarioVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            ScenarioVerdict::Pass => "pass",
            ScenarioVerdict::Fail => "fail",
            ScenarioVerdict::Flaky => "flaky",
            ScenarioVerdict::Inconclusive => "inconclusive",
            ScenarioVerdict::Skipped => "skipped",
            ScenarioVerdict::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
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
    /// How many times it ran (more than 1 with `--retries`).
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl RunReport {
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

/// The current UTC time as RFC 3339 (`2026-11-30T09:23:38Z`).
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
