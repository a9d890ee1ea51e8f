//! Baselines: a YAML or JSON file of known divergences (`--baseline`),
//! loaded with `file:line:col` errors, and applied to a report — marking the
//! declarations and scenario runs it excuses and saying which entries are
//! stale. What counts for the exit code stays in [`crate::verdict`].
//!
//! ```yaml
//! - declaration: lifecycle.cancel
//!   reason: "ACME-412: cancel leaks artifacts until 2.4"
//! - scenario: input-mode-resume[application/json]
//!   reason: JSON resume lands with the new parser
//! ```
//!
//! A release gate (`diff --baseline`) may also acknowledge deliberate card
//! changes; the file is then a mapping, the entries above under `known:`:
//!
//! ```yaml
//! known:
//!   - declaration: lifecycle.cancel
//!     reason: "ACME-412"
//! accept:
//!   - "interfaces[JSONRPC 0.3]"
//!   - id: capabilities.pushNotifications
//!     reason: push moves to the gateway
//! ```

use crate::input::ReadError;
use crate::yaml::YamlError;
use crate::{
    BaselineEntryReport, BaselineReport, BaselineStatus, DeclarationVerdict, RunReport,
    ScenarioVerdict,
};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::path::Path;

/// What one entry excuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A declaration id (`lifecycle.cancel`).
    Declaration(String),
    /// A scenario run id (`input-mode-resume[application/json]`).
    Scenario(String),
}

/// One entry of a baseline: a divergence known not to fail the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownDivergence {
    /// The declaration or scenario run it excuses.
    pub target: Target,
    /// Why it is known (a ticket, a release it is fixed in).
    pub reason: String,
    /// Where it is written (1-based; 0 when read back from a report).
    pub line: u64,
}

/// A change `diff` is told to expect: a declaration, scenario run or card
/// field id whose change is listed as accepted instead of failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accept {
    /// The declaration id, scenario run id, card field or peer URL.
    pub id: String,
    /// Why the change is expected, when the file says.
    pub reason: Option<String>,
    /// Where it is written (1-based; 0 for `--accept`).
    pub line: u64,
}

/// A loaded baseline file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Baseline {
    /// The file as named on the command line.
    pub file: String,
    /// The known divergences, in file order.
    pub entries: Vec<KnownDivergence>,
    /// `accept:` ids (read by `diff`; `check` ignores them).
    pub accept: Vec<Accept>,
}

/// The mapping form of a baseline file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    #[serde(default)]
    known: Vec<Spanned<EntryDef>>,
    #[serde(default)]
    accept: Vec<Spanned<AcceptDef>>,
}

/// An `accept:` item: an id, or an id with a reason.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum AcceptDef {
    Id(String),
    Entry(AcceptEntryDef),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AcceptEntryDef {
    id: String,
    #[serde(default)]
    reason: Option<String>,
}

/// An entry as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryDef {
    #[serde(default)]
    declaration: Option<String>,
    #[serde(default)]
    scenario: Option<String>,
    reason: String,
}

/// An entry checked, with where it is written (for a duplicate's error).
struct Placed {
    known: KnownDivergence,
    line: u64,
    column: u64,
}

/// Checks one entry as written: one target, a non-empty id and reason.
fn known_divergence(name: &str, def: Spanned<EntryDef>) -> Result<Placed, BaselineError> {
    let (line, column) = (def.referenced.line(), def.referenced.column());
    let at = |problem| BaselineError::Entry {
        file: name.to_string(),
        line,
        column,
        problem,
    };
    let EntryDef {
        declaration,
        scenario,
        reason,
    } = def.value;
    let target = match (declaration, scenario) {
        (Some(d), None) => Target::Declaration(d),
        (None, Some(s)) => Target::Scenario(s),
        (Some(_), Some(_)) => return Err(at(EntryProblem::BothTargets)),
        (None, None) => return Err(at(EntryProblem::NoTarget)),
    };
    let (Target::Declaration(id) | Target::Scenario(id)) = &target;
    if id.trim().is_empty() {
        return Err(at(EntryProblem::EmptyId));
    }
    if reason.trim().is_empty() {
        return Err(at(EntryProblem::EmptyReason));
    }
    Ok(Placed {
        known: KnownDivergence {
            target,
            reason: reason.trim().to_string(),
            line,
        },
        line,
        column,
    })
}

/// The `accept:` list, each id trimmed and none empty.
fn accepts(name: &str, items: Vec<Spanned<AcceptDef>>) -> Result<Vec<Accept>, BaselineError> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let line = item.referenced.line();
        let (id, reason) = match item.value {
            AcceptDef::Id(id) => (id, None),
            AcceptDef::Entry(e) => (e.id, e.reason),
        };
        if id.trim().is_empty() {
            return Err(BaselineError::Entry {
                file: name.to_string(),
                line,
                column: item.referenced.column(),
                problem: EntryProblem::EmptyId,
            });
        }
        out.push(Accept {
            id: id.trim().to_string(),
            reason: reason
                .map(|r| r.trim().to_string())
                .filter(|r| !r.is_empty()),
            line,
        });
    }
    Ok(out)
}

/// Why a baseline could not be used (exit 2); every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    /// The file could not be opened or read.
    #[error("cannot read baseline {file}: {source}")]
    Read {
        /// The file as named.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is past the YAML cap.
    #[error("baseline {file} is larger than 4 MiB; a baseline is a short list")]
    TooLarge {
        /// The file as named.
        file: String,
    },
    /// The file is YAML, but not a list.
    #[error(
        "{0}\n  = a baseline is a list of entries: \
         `- declaration: <id>` or `- scenario: <run id>`, each with a `reason` \
         (or a mapping: those entries under `known:`, and `accept:` ids for diff)"
    )]
    NotAList(YamlError),
    /// The file is not YAML (or JSON), or has a field no baseline has.
    #[error(transparent)]
    Yaml(YamlError),
    /// One entry is wrong.
    #[error("{file}:{line}:{column}: {problem}")]
    Entry {
        /// The file as named.
        file: String,
        /// Where the entry is (1-based).
        line: u64,
        /// Where the entry is (1-based).
        column: u64,
        /// What is wrong with it.
        problem: EntryProblem,
    },
}

/// What is wrong with one entry of a baseline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EntryProblem {
    /// It names a declaration and a scenario.
    #[error("an entry names either a `declaration` or a `scenario`, not both")]
    BothTargets,
    /// It names neither.
    #[error("an entry needs a `declaration: <id>` or a `scenario: <run id>`")]
    NoTarget,
    /// Its id is blank.
    #[error("the id is empty")]
    EmptyId,
    /// Its reason is blank.
    #[error("the `reason` is empty: say why this divergence is known")]
    EmptyReason,
    /// A second entry for the same target.
    #[error("a second entry for `{id}` (the first is at line {first_line})")]
    Duplicate {
        /// The target both entries name.
        id: String,
        /// Where the first one is.
        first_line: u64,
    },
}

impl Baseline {
    /// Reads a baseline file; every error names `file:line:col`.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let file = path.display().to_string();
        let read = |source| BaselineError::Read {
            file: file.clone(),
            source,
        };
        let text = match crate::input::read_capped(path, crate::input::YAML_CAP) {
            Ok(text) => text,
            Err(ReadError::TooLarge { .. }) => return Err(BaselineError::TooLarge { file }),
            Err(ReadError::Io(source)) => return Err(read(source)),
        };
        Baseline::parse(&file, &text)
    }

    /// Parses baseline text (YAML, or JSON, which YAML reads too): a list
    /// of entries, or a mapping with `known:` entries and `accept:` ids.
    pub fn parse(name: &str, text: &str) -> Result<Baseline, BaselineError> {
        let mut baseline = Baseline {
            file: name.to_string(),
            ..Baseline::default()
        };
        let mut written = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        let Some(first) = written.next() else {
            return Ok(baseline);
        };
        let defs: Vec<Spanned<EntryDef>> = if first.starts_with('-') || first.starts_with('[') {
            serde_saphyr::from_str(text).map_err(|e| {
                let yaml = YamlError::new(name, &e);
                if yaml.message.contains("sequence") {
                    BaselineError::NotAList(yaml)
                } else {
                    BaselineError::Yaml(yaml)
                }
            })?
        } else {
            let file: FileDef = serde_saphyr::from_str(text).map_err(|e| {
                let yaml = YamlError::new(name, &e);
                if yaml.message.contains("unknown field") {
                    BaselineError::NotAList(yaml)
                } else {
                    BaselineError::Yaml(yaml)
                }
            })?;
            baseline.accept = accepts(name, file.accept)?;
            file.known
        };
        for def in defs {
            let entry = known_divergence(name, def)?;
            if let Some(first) = baseline
                .entries
                .iter()
                .find(|e| e.target == entry.known.target)
            {
                let (Target::Declaration(id) | Target::Scenario(id)) = &entry.known.target;
                return Err(BaselineError::Entry {
                    file: name.to_string(),
                    line: entry.line,
                    column: entry.column,
                    problem: EntryProblem::Duplicate {
                        id: id.clone(),
                        first_line: first.line,
                    },
                });
            }
            baseline.entries.push(entry.known);
        }
        Ok(baseline)
    }

    /// The baseline a report was judged against, read back from what the
    /// report records of it (`merge` applies it again over the joined
    /// shards, so each entry's status is the whole check's).
    pub fn from_report(report: &BaselineReport) -> Baseline {
        let entries = report
            .entries
            .iter()
            .filter_map(|e| {
                let target = match (&e.declaration, &e.scenario) {
                    (Some(d), _) => Target::Declaration(d.clone()),
                    (None, Some(s)) => Target::Scenario(s.clone()),
                    (None, None) => return None,
                };
                Some(KnownDivergence {
                    target,
                    reason: e.reason.clone(),
                    line: 0,
                })
            })
            .collect();
        Baseline {
            file: report.file.clone(),
            entries,
            accept: Vec::new(),
        }
    }

    fn declaration(&self, id: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| matches!(&e.target, Target::Declaration(d) if d == id))
    }

    fn scenario(&self, id: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| matches!(&e.target, Target::Scenario(s) if s == id))
    }

    /// Marks what the baseline excuses in `report` and records, per entry,
    /// whether it applied, is stale, undecided or matches nothing.
    ///
    /// A failing (or flaky) run is excused when an entry names it, or when
    /// every declaration it verifies is named. A diverged declaration is
    /// excused when an entry names it, or when every failing run verifying it
    /// is excused.
    pub fn apply(&self, report: &mut RunReport, strict: bool) {
        let mut used = vec![false; self.entries.len()];
        for peer in &mut report.peers {
            for run in &mut peer.scenarios {
                if !matches!(run.verdict, ScenarioVerdict::Fail | ScenarioVerdict::Flaky) {
                    continue;
                }
                let by: Vec<usize> = match self.scenario(&run.id) {
                    Some(i) => vec![i],
                    None => {
                        let all: Option<Vec<usize>> =
                            run.verifies.iter().map(|v| self.declaration(v)).collect();
                        all.filter(|a| !a.is_empty()).unwrap_or_default()
                    }
                };
                if !by.is_empty() {
                    run.baselined = true;
                    run.baseline_reason = Some(self.reasons(&by));
                    by.iter().for_each(|&i| used[i] = true);
                }
            }
            for row in &mut peer.declarations {
                if row.verdict != DeclarationVerdict::Diverged {
                    continue;
                }
                if let Some(i) = self.declaration(&row.id) {
                    row.baselined = true;
                    row.baseline_reason = Some(self.entries[i].reason.clone());
                    used[i] = true;
                    continue;
                }
                let failing: Vec<_> = peer
                    .scenarios
                    .iter()
                    .filter(|r| r.verdict == ScenarioVerdict::Fail && r.verifies.contains(&row.id))
                    .collect();
                if !failing.is_empty() && failing.iter().all(|r| r.baselined) {
                    let mut reasons: Vec<String> = Vec::new();
                    for r in failing {
                        let reason = r.baseline_reason.clone().unwrap_or_default();
                        if !reasons.contains(&reason) {
                            reasons.push(reason);
                        }
                    }
                    row.baselined = true;
                    row.baseline_reason = Some(reasons.join("; "));
                }
            }
        }
        let entries = self
            .entries
            .iter()
            .zip(used)
            .map(|(entry, used)| self.status(entry, used, report))
            .collect();
        report.baseline = Some(BaselineReport {
            file: self.file.clone(),
            strict,
            entries,
        });
    }

    fn reasons(&self, indices: &[usize]) -> String {
        let mut reasons: Vec<&str> = Vec::new();
        for &i in indices {
            let r = self.entries[i].reason.as_str();
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
        reasons.join("; ")
    }

    fn status(
        &self,
        entry: &KnownDivergence,
        used: bool,
        report: &RunReport,
    ) -> BaselineEntryReport {
        let (declaration, scenario) = match &entry.target {
            Target::Declaration(d) => (Some(d.clone()), None),
            Target::Scenario(s) => (None, Some(s.clone())),
        };
        let (status, note) = match &entry.target {
            Target::Declaration(id) => {
                let rows: Vec<_> = report
                    .peers
                    .iter()
                    .flat_map(|p| &p.declarations)
                    .filter(|d| &d.id == id)
                    .collect();
                let stale = rows.iter().any(|d| {
                    matches!(
                        d.verdict,
                        DeclarationVerdict::Honoured | DeclarationVerdict::NotDeclared
                    )
                });
                let verdicts = distinct(rows.iter().map(|d| d.verdict.as_str()));
                reads(id, used, stale, &verdicts, "declaration")
            }
            Target::Scenario(id) => {
                let runs: Vec<_> = report
                    .peers
                    .iter()
                    .flat_map(|p| &p.scenarios)
                    .filter(|r| &r.id == id)
                    .collect();
                let stale = runs.iter().any(|r| r.verdict == ScenarioVerdict::Pass);
                let verdicts = distinct(runs.iter().map(|r| r.verdict.as_str()));
                let (status, mut note) = reads(id, used, stale, &verdicts, "scenario run");
                if status == BaselineStatus::Unmatched {
                    let expansions = distinct(
                        report
                            .peers
                            .iter()
                            .flat_map(|p| &p.scenarios)
                            .filter(|r| &r.scenario == id)
                            .map(|r| r.id.as_str()),
                    );
                    if !expansions.is_empty() {
                        note.push_str(&format!(
                            "; name one of its runs: {}",
                            expansions.join(", ")
                        ));
                    }
                }
                (status, note)
            }
        };
        BaselineEntryReport {
            declaration,
            scenario,
            reason: entry.reason.clone(),
            status,
            note,
        }
    }
}

/// The status and note of an entry whose target reads `verdicts`.
fn reads(
    id: &str,
    used: bool,
    stale: bool,
    verdicts: &[&str],
    what: &str,
) -> (BaselineStatus, String) {
    let now = format!("{id} reads {}", verdicts.join(" / "));
    if used {
        (BaselineStatus::Applied, now)
    } else if verdicts.is_empty() {
        (
            BaselineStatus::Unmatched,
            format!("no {what} `{id}` in this run"),
        )
    } else if stale {
        (BaselineStatus::Stale, now)
    } else {
        (BaselineStatus::Undecided, now)
    }
}

fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PeerReport, ScenarioReport};

    fn run(id: &str, verifies: &str, verdict: ScenarioVerdict) -> ScenarioReport {
        ScenarioReport::builder(id, verdict)
            .verifies(verifies)
            .message(&format!("{id} said so"))
            .build()
    }

    fn report(runs: Vec<ScenarioReport>) -> RunReport {
        let declared: Vec<a2a_conform_protocol::card::Declaration> = runs
            .iter()
            .flat_map(|r| r.verifies.clone())
            .map(|v| a2a_conform_protocol::card::Declaration {
                id: v.parse().expect("a declaration id"),
                declared: true,
            })
            .collect();
        let declarations = crate::verdict::judge_declarations(&declared, &runs);
        RunReport::new(vec![PeerReport::builder("u")
            .declarations(declarations)
            .scenarios(runs)
            .build()])
    }

    #[test]
    fn the_mapping_form_holds_known_entries_and_accepted_changes() {
        let b = Baseline::parse(
            "b.yaml",
            "# release gate\nknown:\n  - declaration: lifecycle.cancel\n    reason: leaks\naccept:\n  - \"interfaces[JSONRPC 0.3]\"\n  - id: card_digest\n    reason: new skills\n",
        )
        .unwrap();
        assert_eq!(b.entries.len(), 1);
        let ids: Vec<(&str, Option<&str>, u64)> = b
            .accept
            .iter()
            .map(|a| (a.id.as_str(), a.reason.as_deref(), a.line))
            .collect();
        assert_eq!(
            ids,
            vec![
                ("interfaces[JSONRPC 0.3]", None, 6),
                ("card_digest", Some("new skills"), 7)
            ]
        );
        let e = Baseline::parse("b.yaml", "accepted:\n  - x\n").unwrap_err();
        assert!(e.to_string().starts_with("b.yaml:1:"), "{e}");
    }

    #[test]
    fn yaml_and_json_baselines_load() {
        let b = Baseline::parse(
            "b.yaml",
            "# known\n- declaration: lifecycle.cancel\n  reason: leaks\n- scenario: x[a/b]\n  reason: soon\n",
        )
        .unwrap();
        assert_eq!(b.entries.len(), 2);
        assert_eq!(
            b.entries[0].target,
            Target::Declaration("lifecycle.cancel".into())
        );
        assert_eq!(b.entries[1].line, 4);
        let j = Baseline::parse(
            "b.json",
            r#"[{"declaration": "lifecycle.cancel", "reason": "leaks"}]"#,
        )
        .unwrap();
        assert_eq!(j.entries[0].reason, "leaks");
        assert!(Baseline::parse("e.yaml", "# nothing yet\n")
            .unwrap()
            .entries
            .is_empty());
    }

    #[test]
    fn bad_baselines_name_file_line_and_column() {
        let cases = [
            ("- declaration: a\n  reson: typo\n", "b.yaml:2:", "reson"),
            ("- declaration: a\n", "b.yaml:1:", "reason"),
            (
                "- declaration: a\n  reason: r\n- declaration: b\n  scenario: c\n  reason: r\n",
                "b.yaml:3:3",
                "not both",
            ),
            ("- reason: r\n", "b.yaml:1:3", "needs a `declaration"),
            (
                "- declaration: a\n  reason: \"  \"\n",
                "b.yaml:1:3",
                "empty",
            ),
            (
                "- declaration: a\n  reason: r\n- declaration: a\n  reason: again\n",
                "b.yaml:3:3",
                "first is at line 1",
            ),
            (
                "declaration: a\nreason: r\n",
                "b.yaml:1:",
                "list of entries",
            ),
            ("- [unclosed\n", "b.yaml:", ""),
        ];
        for (text, at, says) in cases {
            let e = Baseline::parse("b.yaml", text).unwrap_err().to_string();
            assert!(e.starts_with(at), "{text:?} → {e}");
            assert!(e.contains(says), "{text:?} → {e}");
        }
    }

    #[test]
    fn a_declaration_entry_excuses_the_row_and_its_failing_runs() {
        let mut r = report(vec![
            run("cancel", "lifecycle.cancel", ScenarioVerdict::Fail),
            run("probe", "capabilities.streaming", ScenarioVerdict::Pass),
        ]);
        let b = Baseline::parse("b", "- declaration: lifecycle.cancel\n  reason: leaks\n").unwrap();
        b.apply(&mut r, false);
        let peer = &r.peers[0];
        assert!(peer.declarations[0].baselined);
        assert_eq!(peer.declarations[0].verdict, DeclarationVerdict::Diverged);
        assert_eq!(
            peer.declarations[0].baseline_reason.as_deref(),
            Some("leaks")
        );
        assert!(peer.scenarios[0].baselined);
        assert!(!peer.declarations[1].baselined);
        let entries = &r.baseline.as_ref().unwrap().entries;
        assert_eq!(entries[0].status, BaselineStatus::Applied);
        assert_eq!(crate::verdict::exit_code(&r), crate::exit::OK);
    }

    #[test]
    fn a_scenario_entry_excuses_its_run_and_a_declaration_only_if_all_failures_are_known() {
        let runs = || {
            vec![
                run("resume[a]", "defaultInputModes[a]", ScenarioVerdict::Fail),
                run("other[a]", "defaultInputModes[a]", ScenarioVerdict::Fail),
            ]
        };
        let b = Baseline::parse("b", "- scenario: resume[a]\n  reason: known\n").unwrap();
        let mut r = report(runs());
        b.apply(&mut r, false);
        assert!(r.peers[0].scenarios[0].baselined);
        assert!(!r.peers[0].scenarios[1].baselined);
        assert!(!r.peers[0].declarations[0].baselined, "a new failure");
        assert_eq!(crate::verdict::exit_code(&r), crate::exit::DIVERGED);
        let b = Baseline::parse(
            "b",
            "- scenario: resume[a]\n  reason: known\n- scenario: other[a]\n  reason: also\n",
        )
        .unwrap();
        let mut r = report(runs());
        b.apply(&mut r, false);
        assert!(r.peers[0].declarations[0].baselined);
        assert_eq!(
            r.peers[0].declarations[0].baseline_reason.as_deref(),
            Some("known; also")
        );
        assert_eq!(crate::verdict::exit_code(&r), crate::exit::OK);
    }

    #[test]
    fn entries_that_now_pass_are_stale_and_unknown_ids_unmatched() {
        let mut r = report(vec![
            run("cancel", "lifecycle.cancel", ScenarioVerdict::Pass),
            run(
                "resume[a]",
                "defaultInputModes[a]",
                ScenarioVerdict::Inconclusive,
            ),
        ]);
        let b = Baseline::parse(
            "b",
            "- declaration: lifecycle.cancel\n  reason: r\n\
             - scenario: cancel\n  reason: r\n\
             - scenario: resume[a]\n  reason: r\n\
             - scenario: resume\n  reason: r\n\
             - declaration: nowhere\n  reason: r\n",
        )
        .unwrap();
        b.apply(&mut r, true);
        let baseline = r.baseline.as_ref().unwrap();
        let statuses: Vec<_> = baseline.entries.iter().map(|e| e.status).collect();
        assert_eq!(
            statuses,
            vec![
                BaselineStatus::Stale,
                BaselineStatus::Stale,
                BaselineStatus::Undecided,
                BaselineStatus::Unmatched,
                BaselineStatus::Unmatched,
            ]
        );
        assert_eq!(baseline.entries[0].note, "lifecycle.cancel reads honoured");
        assert!(
            baseline.entries[3]
                .note
                .contains("name one of its runs: resume[a]"),
            "{}",
            baseline.entries[3].note
        );
        assert!(baseline.strict);
        assert_eq!(crate::verdict::exit_code(&r), crate::exit::DIVERGED);
        r.baseline.as_mut().unwrap().strict = false;
        assert_eq!(crate::verdict::exit_code(&r), crate::exit::OK);
    }
}
