//! The report's types: the one versioned run report every output format is a
//! pure function of — peers, their declaration rows and scenario runs, the
//! baseline it was judged against — serialized as the JSON report (its
//! JSON Schema is generated from these types). The run's counts live in
//! [`crate::summary`].

use crate::evidence::Evidence;
use crate::summary::RunSummary;
use serde::{Deserialize, Serialize};
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

/// One `check` (or `merge` of its shards): every peer checked, what each
/// declaration of its card reads, every scenario run with its evidence, and
/// the run's summary. The JSON report (`--json`); every other format is a
/// function of it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct RunReport {
    /// The version of this format (`SCHEMA_VERSION`, 1, when written by
    /// this build); `diff` and `merge` read only their own version.
    pub schema_version: u32,
    /// The tool that wrote the report, and how it was run.
    pub tool: Tool,
    /// UTC start time, RFC 3339.
    pub started_at: String,
    /// One entry per peer checked, in the order they were given.
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
    /// The counts every headline is rendered from, and the exit code the
    /// run calls for: computed once, when the run is concluded (after the
    /// baseline is applied). Absent only in a report that was never
    /// concluded (one built by hand); a reader then computes it from the
    /// rest of the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<RunSummary>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct BaselineReport {
    /// The file as given on the command line.
    pub file: String,
    /// `--strict-baseline`: a stale entry fails the run.
    #[serde(default)]
    pub strict: bool,
    /// Every entry of the file, in its order, with what it did in this run.
    pub entries: Vec<BaselineEntryReport>,
}

/// One known divergence from the baseline file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct BaselineEntryReport {
    /// The declaration id it excuses, or…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<String>,
    /// …the scenario run id it excuses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Why the divergence is known, as the file says it.
    pub reason: String,
    /// Whether the entry excused something, is stale, undecided or matched nothing.
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
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
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
    /// The JSON spelling (`applied`, `stale`, …).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The tool that wrote a report.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct Tool {
    /// `a2a-conform`.
    pub name: String,
    /// Its version; `merge` joins only shards of one version.
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

/// One peer checked: where its card was, what was spoken with it, each
/// declaration's verdict and each scenario run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct PeerReport {
    /// The URL given on the command line, as the card URL it resolved to.
    pub card_url: String,
    /// The card's `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `sha256:…` of the card body, so `diff` can tell a card changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_digest: Option<String>,
    /// The A2A version spoken with the peer (`1.0`, `0.3`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The binding spoken (`jsonrpc`, `rest`, `grpc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// The URL the scenarios were sent to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// Why no scenario could run: unreachable host, bad card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_error: Option<String>,
    /// True when a signal stopped the check before this peer's card was
    /// read: the peer was not checked, which says nothing of it, and
    /// `card_error` says which moment the stop came at. Absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// What is wrong with the card without stopping the check (a missing
    /// field, credentials the card asks for and none were given, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub card_warnings: Vec<String>,
    /// The headline: one row per declaration of the card (and per id a
    /// custom suite verifies), in report order.
    pub declarations: Vec<DeclarationReport>,
    /// Every scenario run of the plan, in plan order.
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
    /// The credentials given for the peer, when the peer refused a request
    /// that carried them (HTTP 401/403) or no request carried them: where
    /// they came from and how many of those requests were refused. Absent
    /// when none were given, or when the peer accepted every request that
    /// carried them. Refused on every one, they fail the run (exit 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials: Option<CredentialsReport>,
    /// The card's body as served (for `check --record`'s cassette, which
    /// a replay serves it from): never in a report file.
    #[serde(skip)]
    #[cfg_attr(feature = "json-schema", schemars(skip))]
    pub card_body: Option<String>,
    /// The extended card a run was served with the credentials given,
    /// whole and redacted by value (for `check --record`'s cassette: a
    /// run's recorded answers are clipped to the evidence cap, and a
    /// replay serves this one whole): never in a report file.
    #[serde(skip)]
    #[cfg_attr(feature = "json-schema", schemars(skip))]
    pub extended_card_body: Option<String>,
}

/// The credentials given for a peer and what the peer made of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct CredentialsReport {
    /// Where each credential came from, never its value: the flag and the
    /// environment variable it names (`--bearer-env PEER_TOKEN`), or the
    /// config key, profile or fleet entry that set it.
    pub sources: Vec<String>,
    /// How many requests of the runs carried them (a token request for
    /// them included) and got an answer.
    pub sent: u32,
    /// How many of those the peer refused with HTTP 401 or 403.
    pub refused: u32,
}

impl CredentialsReport {
    /// Whether the peer refused every request that carried the credentials
    /// (and at least one did): the check could not verify what it was
    /// asked to with them.
    pub fn refused_everywhere(&self) -> bool {
        self.refused > 0 && self.refused >= self.sent
    }

    /// The sources as one phrase: `--bearer-env PEER_TOKEN and header X-Tenant (--header)`.
    pub fn named(&self) -> String {
        match self.sources.as_slice() {
            [] => "the credentials given".to_string(),
            sources => sources.join(" and "),
        }
    }
}

/// The run id a precondition search's requests carry (and a cassette
/// records them under): `precondition:<variable>`, `[skill=<id>]` after it
/// for a skill's search.
pub fn search_run_id(variable: &str, skill: Option<&str>) -> String {
    match skill {
        Some(skill) => format!("precondition:{variable}[skill={skill}]"),
        None => format!("precondition:{variable}"),
    }
}

/// One search for a precondition's prompt, and what it found.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct PreconditionReport {
    /// The variable the search stood in for (`prompt_input_required`).
    pub variable: String,
    /// The skill whose examples were tried first (runs of that skill's
    /// modes); absent for runs of the card's default modes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// Whether a prompt reached the precondition.
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
    /// Tasks this search started.
    pub tasks_started: u32,
    /// How many of the tasks started it canceled (a task that finished on
    /// its own needs no cancel).
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct TriedPrompt {
    /// Where the prompt came from (`skills[book-flight].examples[2]`, `built-in[1]`).
    pub source: String,
    /// The text sent.
    pub prompt: String,
    /// What the peer answered (`task input-required`, `task completed`, …).
    pub answer: String,
    /// Whether the answer reached the precondition.
    pub reached: bool,
}

/// How a precondition search ended.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
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
    /// The JSON spelling (`found`, `not-found`, `error`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The headline: one row per card declaration.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum DeclarationVerdict {
    /// Declared, and every scenario run verifying it passed (or was flaky).
    Honoured,
    /// Declared, and at least one run verifying it failed: a valid protocol
    /// answer broke the promise.
    Diverged,
    /// Declared, and no run could decide it (inconclusive, error, skipped,
    /// or no scenario verifies it), or a malfunction left it open.
    Unverified,
    /// Not declared by the card (and, where probed, refused as the spec requires).
    NotDeclared,
    /// Not declared, yet the runtime served it with a valid success answer.
    OverDelivers,
}

impl DeclarationVerdict {
    /// The JSON spelling (`honoured`, `not-declared`, …).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One row of the headline table: a declaration of the card and its verdict.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct DeclarationReport {
    /// The declaration id (`capabilities.streaming`,
    /// `defaultInputModes[application/json]`, `lifecycle.cancel`).
    pub id: String,
    /// Whether the card claims it.
    pub declared: bool,
    /// What the runs that verify it say of it.
    pub verdict: DeclarationVerdict,
    /// The scenario runs that verified it.
    pub scenarios: Vec<String>,
    /// Why it reads as it does, naming the run that decided it.
    pub reason: String,
    /// A known divergence (`--baseline`): still `diverged`, but it does not
    /// fail the run.
    #[serde(default, skip_serializing_if = "is_false")]
    pub baselined: bool,
    /// The baseline entry's reason, when `baselined`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
}

/// The verdict of one scenario run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ScenarioVerdict {
    /// The peer kept the promise.
    Pass,
    /// The peer gave a valid protocol answer that breaks the promise.
    Fail,
    /// Failed, then passed on a retry.
    Flaky,
    /// The peer never reached the precondition.
    Inconclusive,
    /// Not run: not declared, filtered out, or a variable it needs is not set.
    Skipped,
    /// Tool trouble, an unreachable peer, or a peer malfunction (see
    /// `error_kind`).
    Error,
}

impl ScenarioVerdict {
    /// The JSON spelling (`pass`, `inconclusive`, …).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Why a run ended in `error`: whose fault it was decides whether the
/// declaration it verifies may be judged at all.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
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
    /// A malfunction of one kind: the connection of a stream the run read
    /// broke before the stream ended (a TCP reset, or the body cut off
    /// mid-chunk). What the stream would have shown was never seen, so no
    /// promise it carries is kept or broken.
    StreamReset,
}

impl ErrorKind {
    /// The JSON spelling (`peer-malfunction`, `tool-cap`, …).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// What kind of broken promise a `fail` run found, where the kind changes
/// how its declaration reads.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, VariantArray,
)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum FailKind {
    /// The peer refused the request, but with another error than the one
    /// the spec names for it (-32600 where -32004 is required): a valid
    /// answer that breaks the spec. On a row the card does not declare it
    /// diverges (the refusal is owed, its code is wrong), where a request
    /// served instead over-delivers.
    WrongCode,
}

impl FailKind {
    /// The JSON spelling (`wrong-code`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One scenario run: its verdict, why, and the evidence behind it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
pub struct ScenarioReport {
    /// The run's id: the scenario id, with the expansion in brackets
    /// (`input-mode-resume[application/json]`).
    pub id: String,
    /// The scenario id as written in the suite.
    pub scenario: String,
    /// The scenario's title: what it checks, in a sentence.
    pub title: String,
    /// What the run found.
    pub verdict: ScenarioVerdict,
    /// The declaration ids the run verifies.
    pub verifies: Vec<String>,
    /// The run's wall time, every attempt (with `--retries`) included.
    pub duration_ms: u64,
    /// What happened, in a sentence: the broken promise, the unmet
    /// precondition, the error, or why it was skipped.
    pub message: String,
    /// Why an `error` run ended in error (absent in reports of older
    /// versions and on runs that are not `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// What kind of broken promise a `fail` run found, when it matters to
    /// its declaration (absent otherwise, and in reports of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_kind: Option<FailKind>,
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
    /// The baseline entries' reasons, when `baselined`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_reason: Option<String>,
    /// Kept for every run that did not pass; for a `flaky` run, the evidence
    /// of its first failed attempt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

impl PeerReport {
    /// A peer a signal stopped the check before (`when`: before its turn,
    /// or while its card was read): no card, no runs, and not a card error
    /// of the peer's.
    pub fn interrupted(card_url: impl Into<String>, when: &str) -> PeerReport {
        PeerReport {
            card_error: Some(format!("interrupted {when}")),
            interrupted: true,
            ..PeerReport::new(card_url)
        }
    }

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
            interrupted: false,
            card_warnings: vec![],
            declarations: vec![],
            scenarios: vec![],
            duration_ms: None,
            preconditions: vec![],
            credentials: None,
            card_body: None,
            extended_card_body: None,
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

    /// The JSON report, pretty-printed (what `--json FILE` writes).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// The current UTC time as RFC 3339 (`2026-11-30T09:23:38Z`).
pub(crate) fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
