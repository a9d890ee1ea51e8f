//! Loading suites: YAML with positions, typed as it is read (states, event
//! kinds, durations, counts, `${…}` templates: serde rejects a bad one where
//! it stands), then the checks serde cannot make (duplicate ids, references
//! to captures and variables, gates). Every error names `file:line:col` and
//! shows the line.

use super::check::{Source, StepCheck};
use super::error::SuiteError;
use super::model::{ScenarioDef, SuiteFile};
use super::template::{Element, Template, TemplateError};
use super::vars::{self, FOR_EACH_VARS};
use a2a_conform_protocol::declaration::{DeclarationId, Gate};
use a2a_conform_report::input::ReadError;
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The default suite, embedded in the binary.
pub(crate) const EMBEDDED: &[(&str, &str)] = &[
    (
        "scenarios/streaming.yaml",
        include_str!("../../scenarios/streaming.yaml"),
    ),
    (
        "scenarios/cancel.yaml",
        include_str!("../../scenarios/cancel.yaml"),
    ),
    (
        "scenarios/input-modes.yaml",
        include_str!("../../scenarios/input-modes.yaml"),
    ),
    (
        "scenarios/completion.yaml",
        include_str!("../../scenarios/completion.yaml"),
    ),
    (
        "scenarios/interfaces.yaml",
        include_str!("../../scenarios/interfaces.yaml"),
    ),
    (
        "scenarios/push.yaml",
        include_str!("../../scenarios/push.yaml"),
    ),
    (
        "scenarios/security.yaml",
        include_str!("../../scenarios/security.yaml"),
    ),
    (
        "scenarios/protocol.yaml",
        include_str!("../../scenarios/protocol.yaml"),
    ),
    (
        "scenarios/signatures.yaml",
        include_str!("../../scenarios/signatures.yaml"),
    ),
    (
        "scenarios/extended-card.yaml",
        include_str!("../../scenarios/extended-card.yaml"),
    ),
    (
        "scenarios/extensions.yaml",
        include_str!("../../scenarios/extensions.yaml"),
    ),
    (
        "scenarios/output-modes.yaml",
        include_str!("../../scenarios/output-modes.yaml"),
    ),
    (
        "scenarios/draft-1.1.yaml",
        include_str!("../../scenarios/draft-1.1.yaml"),
    ),
];

/// A loaded scenario, its declarations parsed, and where it came from.
#[derive(Debug)]
pub struct Scenario {
    /// The scenario as written.
    pub def: ScenarioDef,
    /// `when:`, parsed.
    pub gate: Option<Gate>,
    /// `verifies:`, parsed; templates (`${declaration}`) are resolved per run.
    pub verifies: Vec<Verifies>,
    /// The suite file it came from.
    pub file: String,
    /// The line of its `id`.
    pub line: u64,
}

impl Scenario {
    /// The scenario's stable id.
    pub fn id(&self) -> &str {
        &self.def.id.value
    }
}

/// One `verifies:` entry: a declaration id, or a template that names one
/// per run (`${declaration}` under `for_each`). It reads as written.
#[derive(Debug, Clone)]
pub struct Verifies(Entry);

#[derive(Debug, Clone)]
enum Entry {
    Id(DeclarationId),
    Template(Template),
}

impl Verifies {
    /// The declaration this entry names for every run, unless it is a
    /// template resolved per run.
    pub fn id(&self) -> Option<&DeclarationId> {
        match &self.0 {
            Entry::Id(id) => Some(id),
            Entry::Template(_) => None,
        }
    }

    /// The id this entry names for a run, given the run's variables (the
    /// loader has made sure a template reads variables only, no captures).
    pub(crate) fn resolve<F>(&self, mut lookup: F) -> Result<DeclarationId, VerifiesError>
    where
        F: FnMut(&str) -> Option<String>,
    {
        let template = match &self.0 {
            Entry::Id(id) => return Ok(id.clone()),
            Entry::Template(template) => template,
        };
        let mut value = String::new();
        for element in template.elements() {
            match element {
                Element::Literal(text) => value.push_str(text),
                Element::Var(name) => match lookup(name) {
                    Some(v) => value.push_str(&v),
                    None => {
                        return Err(VerifiesError::Unset {
                            template: template.to_string(),
                            name: name.clone(),
                        })
                    }
                },
                Element::Capture { .. } => {
                    return Err(VerifiesError::ReadsCapture(template.to_string()))
                }
            }
        }
        value.parse().map_err(|e| VerifiesError::NotAnId {
            template: template.to_string(),
            error: e,
        })
    }
}

/// Why a `verifies:` template named no declaration for a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum VerifiesError {
    #[error("`verifies: {template}`: `${{{name}}}` is not set")]
    Unset { template: String, name: String },
    #[error("`verifies: {0}` reads a capture")]
    ReadsCapture(String),
    #[error("`verifies: {template}` gave {error}")]
    NotAnId {
        template: String,
        error: a2a_conform_protocol::declaration::DeclarationIdError,
    },
}

impl fmt::Display for Verifies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Entry::Id(id) => id.fmt(f),
            Entry::Template(template) => template.fmt(f),
        }
    }
}

/// Every scenario to run, from one or more files, in the order loaded.
#[derive(Debug, Default)]
pub struct Suite {
    /// The scenarios, in file order.
    pub scenarios: Vec<Scenario>,
    /// Variables the suites introduced, with their defaults.
    pub vars: BTreeMap<String, Option<String>>,
}

impl Suite {
    /// The embedded default suite.
    pub fn embedded() -> Result<Suite, SuiteError> {
        let mut suite = Suite::default();
        for (file, text) in EMBEDDED {
            suite.add(file, text)?;
        }
        Ok(suite)
    }

    /// Every variable a `--var` or profile may set: the built-ins, then the
    /// loaded suites' own `vars`.
    pub fn variable_names(&self) -> Vec<String> {
        vars::BUILTINS
            .iter()
            .map(|b| b.name.to_string())
            .chain(self.vars.keys().cloned())
            .collect()
    }

    /// Reads and adds a suite file from disk.
    pub fn add_file(&mut self, path: &std::path::Path) -> Result<(), SuiteError> {
        let name = path.display().to_string();
        let text =
            a2a_conform_report::input::read_capped(path, a2a_conform_report::input::YAML_CAP)
                .map_err(|e| {
                    let message = match e {
                        ReadError::TooLarge { .. } => format!("{e}; a suite is a small YAML file"),
                        ReadError::Io(e) => format!("cannot read: {e}"),
                    };
                    SuiteError::whole_file(&name, message)
                })?;
        self.add(&name, &text)
    }

    /// Parses and checks one suite text, adding its scenarios.
    pub fn add(&mut self, file: &str, text: &str) -> Result<(), SuiteError> {
        let parsed: SuiteFile = serde_saphyr::from_str(text).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line(), l.column()))
                .unwrap_or((1, 1));
            let message = first_message(&e.to_string());
            SuiteError::at(file, text, line, column, message)
        })?;
        let source = Source { file, text };
        for name in parsed.vars.keys() {
            if vars::is_builtin(name) || FOR_EACH_VARS.contains(&name.as_str()) {
                return Err(SuiteError::whole_file(
                    file,
                    format!("`vars` redefines the built-in variable `{name}`"),
                ));
            }
        }
        let mut known_vars: Vec<String> = parsed.vars.keys().cloned().collect();
        known_vars.extend(self.vars.keys().cloned());
        let mut seen: HashMap<String, (String, u64, u64)> = self
            .scenarios
            .iter()
            .map(|s| {
                (
                    s.id().to_string(),
                    (s.file.clone(), s.line, s.def.id.referenced.column()),
                )
            })
            .collect();
        let mut added = Vec::new();
        for scenario in parsed.scenarios {
            let Spanned { value: def, .. } = scenario;
            let id = &def.id;
            if let Some((other_file, other_line, other_col)) = seen.get(&id.value) {
                return Err(source.err(
                    id.referenced.line(),
                    id.referenced.column(),
                    format!(
                        "duplicate scenario id `{}` (first defined at {other_file}:{other_line}:{other_col})",
                        id.value
                    ),
                ));
            }
            let (gate, verifies) = check_scenario(source, &def, &known_vars)?;
            seen.insert(
                id.value.clone(),
                (
                    file.to_string(),
                    id.referenced.line(),
                    id.referenced.column(),
                ),
            );
            added.push(Scenario {
                gate,
                verifies,
                line: def.id.referenced.line(),
                file: file.to_string(),
                def,
            });
        }
        self.vars.extend(parsed.vars);
        self.scenarios.extend(added);
        Ok(())
    }
}

/// saphyr renders "error: line L column C: message\n --> …"; keep the message.
fn first_message(rendered: &str) -> String {
    let first = rendered.lines().next().unwrap_or(rendered);
    let first = first.trim_start_matches("error: ");
    match first.find(": ") {
        Some(i) if first.starts_with("line ") => first[i + 2..].to_string(),
        _ => first.to_string(),
    }
}

/// An error at a spanned value.
fn err_at<T>(source: Source<'_>, at: &Spanned<T>, message: String) -> SuiteError {
    source.err(at.referenced.line(), at.referenced.column(), message)
}

/// Checks a scenario; gives its parsed `when:` gate and `verifies:` entries.
fn check_scenario(
    source: Source<'_>,
    def: &ScenarioDef,
    known_vars: &[String],
) -> Result<(Option<Gate>, Vec<Verifies>), SuiteError> {
    let id = &def.id;
    if id.value.is_empty()
        || !id
            .value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(err_at(
            source,
            id,
            format!(
                "scenario id `{}` must be lowercase letters, digits, '-' or '_'",
                id.value
            ),
        ));
    }
    if def.verifies.is_empty() {
        return Err(err_at(
            source,
            id,
            format!(
                "scenario `{}` verifies nothing: list at least one declaration in `verifies`",
                id.value
            ),
        ));
    }
    let gate = match &def.when {
        None => None,
        Some(when) => Some(
            when.value
                .parse::<Gate>()
                .map_err(|e| err_at(source, when, format!("`when: {}`: {e}", when.value)))?,
        ),
    };
    if def.steps.is_empty() {
        return Err(err_at(
            source,
            id,
            format!("scenario `{}` has no steps", id.value),
        ));
    }
    let mut var_ok: Vec<String> = known_vars.to_vec();
    if def.for_each.is_some() {
        var_ok.extend(FOR_EACH_VARS.iter().map(|s| s.to_string()));
    }
    let verifies = check_verifies(source, def, &var_ok)?;
    let mut steps = StepCheck::new(source, &var_ok);
    for step in &def.steps {
        steps.enter(
            step.value.name(),
            step.referenced.line(),
            step.referenced.column(),
        );
        step.value.check(&mut steps)?;
    }
    Ok((gate, verifies))
}

/// The `verifies:` entries parsed: an id, or a template of variables.
fn check_verifies(
    source: Source<'_>,
    def: &ScenarioDef,
    var_ok: &[String],
) -> Result<Vec<Verifies>, SuiteError> {
    let mut verifies = Vec::new();
    for text in &def.verifies {
        let at = (text.referenced.line(), text.referenced.column());
        let template: Template = text
            .value
            .parse()
            .map_err(|e: TemplateError| err_at(source, text, e.to_string()))?;
        source.check_template(at, &template, var_ok, &HashMap::new())?;
        verifies.push(Verifies(match template.as_literal() {
            Some(literal) => Entry::Id(
                literal
                    .parse()
                    .map_err(|e| err_at(source, text, format!("`verifies`: {e}")))?,
            ),
            None => Entry::Template(template),
        }));
    }
    Ok(verifies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_suite_loads() {
        let suite = Suite::embedded().expect("embedded suite loads");
        let ids: Vec<&str> = suite.scenarios.iter().map(|s| s.id()).collect();
        for id in [
            "streaming-probe",
            "cancel-then-stream",
            "input-mode-resume",
            "completion-stability",
            "push-delivers",
            "push-refused-when-undeclared",
            "security-enforced",
        ] {
            assert!(ids.contains(&id), "{id} missing from {ids:?}");
        }
    }
}
