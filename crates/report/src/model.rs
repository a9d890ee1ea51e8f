//! The report's types: the one versioned run report every output format is a
//! pure function of, and its summary — the run's counts, computed once, that
//! every headline (terminal, Markdown, JUnit properties, the JSON `summary`)
//! is rendered from, so none says more than the counts do. "Every
//! declaration honoured" appears only when it is literally true.

use crate::evidence::Evidence;
use crate::exit;
use serde::{Deserialize, Serialize};
use std::path::Path;
use strum::{IntoStaticStr, VariantArray};

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
    /// The whole check's wall time. Peers run concurrently, so it is not the
    /// sum of theirs. Absent in reports that predate it (and in merged
    /// reports, whose shards ran apart).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// `check --shard K/N`: the slice of the plan this report holds;
    /// `merge` joins the slices into one report. Absent when unsharded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardReport>,
}

/// Which slice of which plan a sharded report holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ShardReport {
    /// K of `--shard K/N` (1-based).
    pub index: u32,
    /// N of `--shard K/N`.
    pub count: u32,
    /// How many peers the whole (unsharded) check covers: with one, the
    /// shards split its scenario runs; with several, they split the peers.
    pub peers: usize,
    /// SHA-256 of the suite, the selection and the variables the check ran:
    /// `merge` refuses slices of different plans.
    pub suite_digest: String,
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
    /// The tool writing this report. The name is the tool's, not this
    /// crate's; the workspace's crates share one version, so this crate's
    /// version is the tool's.
    pub fn this() -> Tool {
        Tool {
            name: "a2a-conform".into(),
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
    /// Preconditions the check searched the card for (a prompt that reaches
    /// input-required when `prompt_input_required` is not set): one entry
    /// per search, with the runs that used what it found. Absent when
    /// nothing was searched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preconditions: Vec<PreconditionReport>,
}

/// One search for a precondition's prompt, and what it found.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PreconditionReport {
    /// The variable the search stood in for (`prompt_input_required`).
    pub variable: String,
    /// The skill whose examples were tried first (runs of that skill's
    /// modes); absent for runs of the card's default modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    pub outcome: PreconditionOutcome,
    /// The prompt that reached the precondition (`found`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// Where that prompt came from: `skills[book-flight].examples[2]` or
    /// `built-in[1]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Every prompt tried, in order, and what the peer answered.
    pub tried: Vec<TriedPrompt>,
    /// Tasks this search started, and how many of them it canceled (a
    /// task that finished on its own needs no cancel).
    pub tasks_started: u32,
    pub tasks_canceled: u32,
    /// What happened, in a sentence.
    pub message: String,
    /// The scenario runs that used the outcome.
    pub runs: Vec<String>,
    /// The search's requests and answers, kept when it ended in a malfunction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// One prompt a precondition search tried.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TriedPrompt {
    pub source: String,
    pub prompt: String,
    /// What the peer answered (`task input-required`, `task completed`, …).
    pub answer: String,
    pub reached: bool,
}

/// How a precondition search ended.
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
pub enum PreconditionOutcome {
    /// A prompt reached the precondition; the runs used it.
    Found,
    /// No prompt did within the budget: the runs read inconclusive.
    NotFound,
    /// The peer answered the search with no valid A2A answer (or could not
    /// be reached): the runs read error, as the truth rule says.
    Error,
}

impl PreconditionOutcome {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
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
            preconditions: vec![],
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
            duration_ms: None,
            shard: None,
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

/// What the run as a whole reads, from its exit code.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Outcome {
    /// Exit 0: something was verified and nothing fails the run.
    Pass,
    /// Exit 1: a divergence (or a rule such as `--fail-on-flaky`) fails the run.
    Fail,
    /// Exit 3: a peer was unreachable or served no valid card.
    Error,
    /// Exit 4: nothing was verified, or `--fail-on-unverified` found a row left unverified.
    Unverified,
}

impl Outcome {
    pub fn of_exit_code(code: i32) -> Outcome {
        match code {
            exit::OK => Outcome::Pass,
            exit::DIVERGED => Outcome::Fail,
            exit::PEER_UNREACHABLE => Outcome::Error,
            _ => Outcome::Unverified,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Declaration rows by verdict. `diverged` counts the baselined ones too.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct DeclarationCounts {
    pub honoured: usize,
    pub diverged: usize,
    /// Of the diverged rows, those a baseline entry excuses.
    pub baselined: usize,
    pub unverified: usize,
    pub not_declared: usize,
    pub over_delivers: usize,
}

/// Scenario runs by verdict.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct RunCounts {
    pub total: usize,
    pub pass: usize,
    pub fail: usize,
    pub flaky: usize,
    pub inconclusive: usize,
    pub skipped: usize,
    pub error: usize,
}

/// One peer's counts (or a whole run's, added up).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct Counts {
    pub declarations: DeclarationCounts,
    pub runs: RunCounts,
    /// Declared rows (the card's promises); `honoured` of them is literal
    /// success only when it equals this.
    pub declared: usize,
    /// Declared rows that read honoured.
    pub declared_honoured: usize,
}

impl Counts {
    pub fn of_peer(peer: &PeerReport) -> Counts {
        let mut c = Counts::default();
        for d in &peer.declarations {
            let n = &mut c.declarations;
            match d.verdict {
                DeclarationVerdict::Honoured => n.honoured += 1,
                DeclarationVerdict::Diverged => {
                    n.diverged += 1;
                    if d.baselined {
                        n.baselined += 1;
                    }
                }
                DeclarationVerdict::Unverified => n.unverified += 1,
                DeclarationVerdict::NotDeclared => n.not_declared += 1,
                DeclarationVerdict::OverDelivers => n.over_delivers += 1,
            }
            if d.declared {
                c.declared += 1;
                if d.verdict == DeclarationVerdict::Honoured {
                    c.declared_honoured += 1;
                }
            }
        }
        for s in &peer.scenarios {
            let n = &mut c.runs;
            n.total += 1;
            match s.verdict {
                ScenarioVerdict::Pass => n.pass += 1,
                ScenarioVerdict::Fail => n.fail += 1,
                ScenarioVerdict::Flaky => n.flaky += 1,
                ScenarioVerdict::Inconclusive => n.inconclusive += 1,
                ScenarioVerdict::Skipped => n.skipped += 1,
                ScenarioVerdict::Error => n.error += 1,
            }
        }
        c
    }

    fn add(mut self, o: Counts) -> Counts {
        let (d, e) = (&mut self.declarations, o.declarations);
        d.honoured += e.honoured;
        d.diverged += e.diverged;
        d.baselined += e.baselined;
        d.unverified += e.unverified;
        d.not_declared += e.not_declared;
        d.over_delivers += e.over_delivers;
        let (r, s) = (&mut self.runs, o.runs);
        r.total += s.total;
        r.pass += s.pass;
        r.fail += s.fail;
        r.flaky += s.flaky;
        r.inconclusive += s.inconclusive;
        r.skipped += s.skipped;
        r.error += s.error;
        self.declared += o.declared;
        self.declared_honoured += o.declared_honoured;
        self
    }

    /// Whether every declared row reads honoured, and there is one.
    pub fn every_declaration_honoured(&self) -> bool {
        self.declared > 0 && self.declared_honoured == self.declared
    }

    /// `6 honoured, 1 diverged (baselined), 4 unverified`: only what the
    /// counts say; zero diverged / unverified rows are left out.
    pub fn declarations_phrase(&self) -> String {
        let d = self.declarations;
        let mut parts = vec![format!("{} honoured", d.honoured)];
        if d.diverged > 0 {
            parts.push(match d.baselined {
                0 => format!("{} diverged", d.diverged),
                b if b == d.diverged => format!("{} diverged (baselined)", d.diverged),
                b => format!("{} diverged ({b} baselined)", d.diverged),
            });
        }
        if d.unverified > 0 {
            parts.push(format!("{} unverified", d.unverified));
        }
        if d.over_delivers > 0 {
            parts.push(format!("{} over-delivers", d.over_delivers));
        }
        let phrase = parts.join(", ");
        if self.every_declaration_honoured() {
            format!("every declaration honoured ({phrase})")
        } else {
            phrase
        }
    }

    /// `7 scenario runs: 1 pass, 2 fail, 1 flaky`.
    pub fn runs_phrase(&self) -> String {
        let r = self.runs;
        let parts: Vec<String> = [
            (r.pass, ScenarioVerdict::Pass),
            (r.fail, ScenarioVerdict::Fail),
            (r.flaky, ScenarioVerdict::Flaky),
            (r.inconclusive, ScenarioVerdict::Inconclusive),
            (r.skipped, ScenarioVerdict::Skipped),
            (r.error, ScenarioVerdict::Error),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, v)| format!("{n} {}", v.as_str()))
        .collect();
        format!(
            "{} scenario runs: {}",
            r.total,
            if parts.is_empty() {
                "none".to_string()
            } else {
                parts.join(", ")
            }
        )
    }
}

/// The whole run in numbers, and what it reads as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    pub outcome: Outcome,
    /// The process exit code the run calls for.
    pub exit_code: i32,
    pub peers: usize,
    /// Peers that were unreachable or served no valid card.
    pub peers_without_card: usize,
    #[serde(flatten)]
    pub counts: Counts,
    /// True only when every declared row of every peer reads honoured.
    pub every_declaration_honoured: bool,
    /// The check's wall time; for a report without one (a merge of
    /// shards), the longest peer's.
    pub duration_ms: u64,
}

impl Summary {
    /// The counts of `report`, read as `exit_code` (see `verdict::summarize`).
    pub fn new(report: &RunReport, exit_code: i32) -> Summary {
        let counts = report
            .peers
            .iter()
            .map(Counts::of_peer)
            .fold(Counts::default(), Counts::add);
        Summary {
            outcome: Outcome::of_exit_code(exit_code),
            exit_code,
            peers: report.peers.len(),
            peers_without_card: report
                .peers
                .iter()
                .filter(|p| p.card_error.is_some())
                .count(),
            every_declaration_honoured: counts.every_declaration_honoured()
                && report.peers.iter().all(|p| p.card_error.is_none()),
            counts,
            duration_ms: report.duration_ms.unwrap_or_else(|| {
                report
                    .peers
                    .iter()
                    .filter_map(|p| p.duration_ms)
                    .max()
                    .unwrap_or(0)
            }),
        }
    }

    /// `pass — 6 honoured, 1 diverged (baselined), 4 unverified`.
    pub fn headline(&self) -> String {
        format!("{} — {}", self.word(), self.phrase())
    }

    /// The outcome as the headline says it: `pass`, `fail`, `error`,
    /// `unverified`, or `nothing verified` when not one row was honoured.
    pub fn word(&self) -> &'static str {
        match self.outcome {
            Outcome::Unverified if self.counts.declarations.honoured == 0 => "nothing verified",
            o => o.as_str(),
        }
    }

    /// The headline after its word: the declaration counts, and the peers
    /// that could not be checked.
    pub fn phrase(&self) -> String {
        let mut text = self.counts.declarations_phrase();
        if self.peers_without_card > 0 {
            text.push_str(&format!(
                "; {} of {} peer(s) unreachable or without a valid card",
                self.peers_without_card, self.peers
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(verdict: DeclarationVerdict, baselined: bool) -> DeclarationReport {
        DeclarationReport {
            id: "x".into(),
            declared: verdict != DeclarationVerdict::NotDeclared,
            verdict,
            scenarios: vec![],
            reason: String::new(),
            baselined,
            baseline_reason: None,
        }
    }

    fn report(rows: Vec<DeclarationReport>) -> RunReport {
        RunReport::new(vec![PeerReport {
            declarations: rows,
            ..PeerReport::new("u")
        }])
    }

    #[test]
    fn the_headline_says_only_what_the_counts_say() {
        use DeclarationVerdict::*;
        let mut rows = vec![row(Diverged, true)];
        rows.extend((0..6).map(|_| row(Honoured, false)));
        rows.extend((0..4).map(|_| row(Unverified, false)));
        let s = Summary::new(&report(rows), exit::OK);
        assert_eq!(
            s.headline(),
            "pass — 6 honoured, 1 diverged (baselined), 4 unverified"
        );
        assert!(!s.every_declaration_honoured);
        let s = Summary::new(
            &report(vec![row(Honoured, false), row(NotDeclared, false)]),
            exit::OK,
        );
        assert!(s.every_declaration_honoured);
        assert_eq!(
            s.headline(),
            "pass — every declaration honoured (1 honoured)"
        );
        let s = Summary::new(
            &report(vec![row(Unverified, false)]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "nothing verified — 0 honoured, 1 unverified");
        let s = Summary::new(
            &report(vec![row(Honoured, false), row(Unverified, false)]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "unverified — 1 honoured, 1 unverified");
        let s = Summary::new(
            &report(vec![row(Diverged, true), row(Diverged, false)]),
            exit::DIVERGED,
        );
        assert_eq!(s.headline(), "fail — 0 honoured, 2 diverged (1 baselined)");
    }

    #[test]
    fn the_json_summary_carries_the_counts_flat() {
        let s = Summary::new(
            &report(vec![row(DeclarationVerdict::Honoured, false)]),
            exit::OK,
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["outcome"], "pass");
        assert_eq!(v["declarations"]["honoured"], 1);
        assert_eq!(v["runs"]["total"], 0);
        assert_eq!(v["every_declaration_honoured"], true);
    }
}
