//! The scenario language: what a suite file may say. Scenarios are data,
//! composed from the step primitives of [`crate::steps`]; every struct
//! rejects unknown keys so a typo is an error with a position, not a silent
//! no-op.
//!
//! The leaves are typed as they load: states are `TaskState`s, event kinds
//! `EventKind`s, texts `Template`s, durations and counts checked values or
//! templates the run resolves.

use crate::steps::Step;
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

/// One suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SuiteFile {
    /// Variables the suite introduces, with their defaults (`null`: unset).
    #[serde(default)]
    pub(crate) vars: BTreeMap<String, Option<String>>,
    pub(crate) scenarios: Vec<Spanned<ScenarioDef>>,
}

/// One scenario as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDef {
    /// Stable id; baselines, JUnit and `--scenario` key on it.
    pub id: Spanned<String>,
    /// What the scenario checks, in a line.
    pub title: String,
    /// More words on it, if the suite gives them.
    #[serde(default)]
    pub description: Option<String>,
    /// Declaration ids the scenario verifies (may use `${declaration}` under `for_each`).
    pub verifies: Vec<Spanned<String>>,
    /// Run only if the card declares this (`capabilities.streaming`), or only if
    /// it does not (`!capabilities.streaming`).
    #[serde(default)]
    pub when: Option<Spanned<String>>,
    /// Expand into one run per item.
    #[serde(default)]
    pub for_each: Option<ForEach>,
    pub(crate) steps: Vec<Spanned<Step>>,
}

/// What a scenario can be expanded over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForEach {
    /// Every declared input mode: card defaults, then each skill's own modes.
    /// Sets `${mode}`, `${declaration}` and `${skill}` (empty for defaults).
    InputModes,
    /// Every declared interface the tool can speak; the run's calls go to that
    /// interface's URL, binding and version. Sets `${declaration}`
    /// (`interfaces[JSONRPC 1.0]`), `${binding}`, `${interface_version}`, `${url}`.
    Interfaces,
    /// On a card declaring two interfaces or more, one run per interface
    /// besides the reference (the card's preferred interface the tool
    /// speaks): the run's calls go to that interface, and steps that compare
    /// (`compare_bindings`) ask the reference too. Sets `${declaration}`
    /// (`interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]`), `${binding}`,
    /// `${interface_version}`, `${url}`, `${interface}` (of the interface
    /// compared, its label: `HTTP+JSON 1.0`) and `${reference}` (the
    /// reference's label, `JSONRPC 1.0`).
    InterfacePairs,
    /// Every entry of the card's `signatures`. Sets `${declaration}`
    /// (`signatures[<kid>]`), `${signature}` (its 1-based position) and `${kid}`.
    Signatures,
    /// Every declared output mode: card defaults, then each skill's own modes.
    /// Sets `${mode}`, `${declaration}` and `${skill}` (empty for defaults).
    OutputModes,
    /// Every declared extension. Sets `${uri}` and `${declaration}`
    /// (`capabilities.extensions[<uri>]`).
    Extensions,
    /// Every extension the card marks `required: true`; sets the same.
    RequiredExtensions,
}

impl std::fmt::Display for ForEach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForEach::InputModes => "for each declared input mode",
            ForEach::Interfaces => "for each declared interface",
            ForEach::InterfacePairs => "for each declared interface besides the reference",
            ForEach::Signatures => "for each card signature",
            ForEach::OutputModes => "for each declared output mode",
            ForEach::Extensions => "for each declared extension",
            ForEach::RequiredExtensions => "for each required extension",
        })
    }
}
