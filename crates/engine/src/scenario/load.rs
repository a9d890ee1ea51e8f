//! Loading suites: YAML with positions, typed as it is read (states, event
//! kinds, durations, counts, `${…}` templates: serde rejects a bad one where
//! it stands), then the checks serde cannot make (duplicate ids, references
//! to captures and variables, gates). Every error names `file:line:col` and
//! shows the line.

use super::model::{ScenarioDef, Step, SuiteFile};
use super::template::{Element, Template};
use super::vars::{self, FOR_EACH_VARS};
use a2a_conform_protocol::declaration::{DeclarationId, Gate};
use a2a_conform_report::input::ReadError;
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// The default suite, embedded in the binary.
pub const EMBEDDED: &[(&str, &str)] = &[
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
];

/// A suite error: where and what, with the offending line shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    pub file: String,
    pub line: u64,
    pub column: u64,
    pub message: String,
    rendered: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl std::error::Error for SuiteError {}

impl SuiteError {
    fn at(file: &str, source: &str, line: u64, column: u64, message: String) -> SuiteError {
        let rendered = render_snippet(file, source, line, column, &message);
        SuiteError {
            file: file.to_string(),
            line,
            column,
            message,
            rendered,
        }
    }

    fn whole_file(file: &str, message: String) -> SuiteError {
        SuiteError {
            rendered: format!("error: {file}: {message}"),
            file: file.to_string(),
            line: 0,
            column: 0,
            message,
        }
    }
}

fn render_snippet(file: &str, source: &str, line: u64, column: u64, message: &str) -> String {
    let mut out = format!("error: {file}:{line}:{column}: {message}\n");
    let width = (line.max(1)).to_string().len();
    out.push_str(&format!("{:width$}--> {file}:{line}:{column}\n", ""));
    out.push_str(&format!("{:width$} |\n", ""));
    let lines: Vec<&str> = source.lines().collect();
    let first = line.saturating_sub(2).max(1);
    for n in first..=line {
        if let Some(text) = lines.get((n - 1) as usize) {
            out.push_str(&format!("{n:>width$} | {text}\n"));
        }
    }
    let pad = " ".repeat(column.saturating_sub(1) as usize);
    out.push_str(&format!("{:width$} | {pad}^ {message}", ""));
    out
}

/// A loaded scenario, its declarations parsed, and where it came from.
#[derive(Debug)]
pub struct Scenario {
    pub def: ScenarioDef,
    /// `when:`, parsed.
    pub gate: Option<Gate>,
    /// `verifies:`, parsed; templates (`${declaration}`) are resolved per run.
    pub verifies: Vec<Verifies>,
    pub file: String,
    pub line: u64,
}

/// One `verifies:` entry: an id, or a template that names one per run
/// (`${declaration}` under `for_each`).
#[derive(Debug, Clone)]
pub enum Verifies {
    Id(DeclarationId),
    Template(Template),
}

impl Verifies {
    /// The id this entry names for a run, given the run's variables (the
    /// loader has made sure a template reads variables only, no captures).
    pub fn resolve<F>(&self, mut lookup: F) -> Result<DeclarationId, VerifiesError>
    where
        F: FnMut(&str) -> Option<String>,
    {
        let template = match self {
            Verifies::Id(id) => return Ok(id.clone()),
            Verifies::Template(template) => template,
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
pub enum VerifiesError {
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

impl std::fmt::Display for Verifies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verifies::Id(id) => id.fmt(f),
            Verifies::Template(template) => template.fmt(f),
        }
    }
}

impl Scenario {
    pub fn id(&self) -> &str {
        &self.def.id.value
    }
}

/// Every scenario to run, from one or more files.
#[derive(Debug, Default)]
pub struct Suite {
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
        let checker = Checker { file, text };
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
                return Err(checker.err(
                    id,
                    format!(
                        "duplicate scenario id `{}` (first defined at {other_file}:{other_line}:{other_col})",
                        id.value
                    ),
                ));
            }
            let (gate, verifies) = checker.check_scenario(&def, &known_vars)?;
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

struct Checker<'a> {
    file: &'a str,
    text: &'a str,
}

/// What a capture holds, for reference checks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CaptureKind {
    Answer,
    Stream,
}

/// The HTTP statuses a capture can hold: refusals of the credentials (v1 §7.4).
const REFUSAL_STATUSES: &[u16] = &[401, 403];

impl Checker<'_> {
    fn err<T>(&self, at: &Spanned<T>, message: String) -> SuiteError {
        SuiteError::at(
            self.file,
            self.text,
            at.referenced.line(),
            at.referenced.column(),
            message,
        )
    }

    /// Checks a scenario; gives its parsed `when:` gate and `verifies:` entries.
    fn check_scenario(
        &self,
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
            return Err(self.err(
                id,
                format!(
                    "scenario id `{}` must be lowercase letters, digits, '-' or '_'",
                    id.value
                ),
            ));
        }
        if def.verifies.is_empty() {
            return Err(self.err(
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
                    .map_err(|e| self.err(when, format!("`when: {}`: {e}", when.value)))?,
            ),
        };
        if def.steps.is_empty() {
            return Err(self.err(id, format!("scenario `{}` has no steps", id.value)));
        }
        let mut var_ok: Vec<String> = known_vars.to_vec();
        if def.for_each.is_some() {
            var_ok.extend(FOR_EACH_VARS.iter().map(|s| s.to_string()));
        }
        let mut verifies = Vec::new();
        for text in &def.verifies {
            let template: Template = text
                .value
                .parse()
                .map_err(|e: super::template::TemplateError| self.err(text, e.to_string()))?;
            self.check_template(text, &template, &var_ok, &HashMap::new())?;
            verifies.push(match template.as_literal() {
                Some(literal) => Verifies::Id(
                    literal
                        .parse()
                        .map_err(|e| self.err(text, format!("`verifies`: {e}")))?,
                ),
                None => Verifies::Template(template),
            });
        }
        let mut captures: HashMap<String, CaptureKind> = HashMap::new();
        // Whether an earlier step started the run's webhook receiver.
        let mut webhook = false;
        for step in &def.steps {
            if matches!(step.value, Step::ExpectWebhook(_)) && !webhook {
                return Err(self.err(
                    step,
                    "`expect_webhook` waits for push notifications no earlier step asked for (register the webhook with `set_push_config`, or `push: true` on `send`/`stream`)".to_string(),
                ));
            }
            webhook |= match &step.value {
                Step::SetPushConfig(_) => true,
                Step::Send(s) | Step::Stream(s) => s.push,
                _ => false,
            };
            self.check_step(step, &var_ok, &mut captures)?;
        }
        Ok((gate, verifies))
    }

    fn check_step(
        &self,
        step: &Spanned<Step>,
        var_ok: &[String],
        captures: &mut HashMap<String, CaptureKind>,
    ) -> Result<(), SuiteError> {
        let need = |name: &str, kind: Option<CaptureKind>, caps: &HashMap<String, CaptureKind>| {
            match caps.get(name) {
                None => Err(self.err(
                    step,
                    format!(
                        "`{}` refers to `{name}`, which no earlier step captured (use `as: {name}` on an earlier step)",
                        step.value.name()
                    ),
                )),
                Some(k) if Some(*k) != kind && kind == Some(CaptureKind::Stream) => Err(self.err(
                    step,
                    format!("`{}` needs a stream, but `{name}` is not one (capture it from `stream`, `subscribe` or a streamed `resume`)", step.value.name()),
                )),
                Some(_) => Ok(()),
            }
        };
        let mut texts: Vec<&Template> = Vec::new();
        let mut defines: Option<(&str, CaptureKind)> = None;
        match &step.value {
            Step::Send(s) | Step::Stream(s) => {
                if let Some(name) = &s.context_of {
                    need(name, None, captures)?;
                }
                texts.extend(&s.text);
                texts.extend(&s.a2a_version);
                texts.extend(&s.extensions);
                texts.extend(&s.accepted_output_modes);
                if s.extensions.is_some() && s.without_extensions {
                    return Err(self.err(
                        step,
                        "`extensions` and `without_extensions: true` contradict each other"
                            .to_string(),
                    ));
                }
                if s.a2a_version.is_some() && matches!(step.value, Step::Stream(_)) {
                    return Err(self.err(
                        step,
                        "`a2a_version` is supported on `send` only".to_string(),
                    ));
                }
                let kind = if matches!(step.value, Step::Stream(_)) {
                    CaptureKind::Stream
                } else {
                    CaptureKind::Answer
                };
                defines = Some((&s.capture, kind));
            }
            Step::Resume(s) => {
                need(&s.task, None, captures)?;
                texts.extend(&s.text);
                texts.extend(&s.mode);
                let kind = if s.stream {
                    CaptureKind::Stream
                } else {
                    CaptureKind::Answer
                };
                defines = Some((&s.capture, kind));
            }
            Step::Cancel(s) | Step::Get(s) => {
                need(&s.task, None, captures)?;
                if let Some(c) = &s.capture {
                    defines = Some((c, CaptureKind::Answer));
                }
            }
            Step::Subscribe(s) => {
                need(&s.task, None, captures)?;
                if let Some(c) = &s.capture {
                    defines = Some((c, CaptureKind::Stream));
                }
            }
            Step::ExpectEvent(s) => {
                need(&s.stream, Some(CaptureKind::Stream), captures)?;
                texts.extend(s.within.template());
                texts.extend(&s.fail);
                texts.extend(&s.otherwise_inconclusive);
                if let Some(c) = &s.capture {
                    defines = Some((c, CaptureKind::Answer));
                }
            }
            Step::ExpectQuiet(s) => {
                need(&s.stream, Some(CaptureKind::Stream), captures)?;
                if let Some(after) = &s.after {
                    need(after, None, captures)?;
                }
                texts.extend(s.duration.template());
                texts.extend(&s.fail);
            }
            Step::ExpectClosed(s) => {
                need(&s.stream, Some(CaptureKind::Stream), captures)?;
                texts.extend(s.within.template());
                texts.extend(&s.fail);
            }
            Step::PollUntilStable(s) => {
                need(&s.task, None, captures)?;
                texts.extend(s.interval.iter().filter_map(|d| d.template()));
                texts.extend(s.within.iter().filter_map(|d| d.template()));
                texts.extend(s.reads.iter().filter_map(|r| r.template()));
                if let Some(c) = &s.capture {
                    defines = Some((c, CaptureKind::Answer));
                }
            }
            Step::Expect(s) => {
                need(&s.of, None, captures)?;
                texts.extend(&s.fail);
                self.check_condition_present(step, &s.condition())?;
            }
            Step::InconclusiveIf(s) => {
                need(&s.of, None, captures)?;
                texts.push(&s.reason);
                self.check_condition_present(step, &s.condition())?;
            }
            Step::Sleep(d) => texts.extend(d.template()),
            Step::SetPushConfig(s) => {
                need(&s.task, None, captures)?;
                texts.extend(&s.token);
                defines = Some((&s.capture, CaptureKind::Answer));
            }
            Step::GetExtendedCard(s) => defines = Some((&s.capture, CaptureKind::Answer)),
            Step::ExpectExtendedCard(s) => {
                need(&s.of, None, captures)?;
                texts.extend(&s.fail);
            }
            Step::ExpectOutputModes(s) => {
                need(&s.of, None, captures)?;
                texts.push(&s.mode);
            }
            Step::ExpectWebhook(s) => {
                texts.extend(s.within.template());
                texts.extend(&s.fail);
                texts.extend(&s.otherwise_inconclusive);
                if let Some(c) = &s.capture {
                    defines = Some((c, CaptureKind::Answer));
                }
            }
            Step::CallTask(s) => {
                match (&s.task, &s.id) {
                    (Some(task), None) => need(task, None, captures)?,
                    (None, Some(id)) => texts.push(id),
                    _ => return Err(self.err(
                        step,
                        "`call_task` takes exactly one of `task` (a capture) and `id` (a task id)"
                            .to_string(),
                    )),
                }
                defines = Some((&s.capture, CaptureKind::Answer));
            }
            Step::ListTasks(s) => {
                if let Some(task) = &s.context_of {
                    need(task, None, captures)?;
                }
                defines = Some((&s.capture, CaptureKind::Answer));
            }
            Step::SendInTask(s) => {
                need(&s.task, None, captures)?;
                texts.push(&s.context_id);
                texts.extend(&s.text);
                defines = Some((&s.capture, CaptureKind::Answer));
            }
            Step::ExpectCount(s) => {
                need(&s.of, None, captures)?;
                if s.at_least.is_none() && s.at_most.is_none() {
                    return Err(self.err(
                        step,
                        "`expect_count` needs `at_least`, `at_most` or both".to_string(),
                    ));
                }
                texts.extend(&s.fail);
                texts.extend(&s.otherwise_inconclusive);
            }
            Step::VerifySignature(s) => texts.push(&s.signature),
            Step::ExpectListed(s) => {
                need(&s.of, None, captures)?;
                need(&s.task, None, captures)?;
                texts.extend(&s.fail);
            }
        }
        for text in texts {
            self.check_template(step, text, var_ok, captures)?;
        }
        if let Some((name, kind)) = defines {
            captures.insert(name.to_string(), kind);
        }
        Ok(())
    }

    fn check_condition_present(
        &self,
        step: &Spanned<Step>,
        c: &super::model::Condition,
    ) -> Result<(), SuiteError> {
        if c.state.is_empty()
            && c.not_state.is_empty()
            && c.code.is_empty()
            && c.not_code.is_empty()
            && !c.error
            && !c.ok
            && c.http_status.is_empty()
        {
            return Err(self.err(
                step,
                format!(
                    "`{}` has no condition: give at least one of state, not_state, code, not_code, error, ok, http_status",
                    step.value.name()
                ),
            ));
        }
        if let Some(status) = c.http_status.iter().find(|s| !REFUSAL_STATUSES.contains(s)) {
            return Err(self.err(
                step,
                format!(
                    "`http_status: {status}` can never match: the runner captures only the refusals 401 and 403 as HTTP statuses"
                ),
            ));
        }
        Ok(())
    }

    /// Every variable a template names exists, and every capture it reads
    /// an earlier step made.
    fn check_template<T>(
        &self,
        at: &Spanned<T>,
        template: &Template,
        var_ok: &[String],
        captures: &HashMap<String, CaptureKind>,
    ) -> Result<(), SuiteError> {
        for element in template.elements() {
            match element {
                Element::Literal(_) => {}
                Element::Capture { name, field } => {
                    if !captures.contains_key(name) {
                        return Err(self.err(
                            at,
                            format!(
                                "`${{{name}.{}}}` refers to capture `{name}`, which no earlier step captured",
                                field.as_str()
                            ),
                        ));
                    }
                }
                Element::Var(name) => {
                    if !vars::is_builtin(name) && !var_ok.iter().any(|v| v == name) {
                        return Err(self.err(
                            at,
                            format!("unknown variable `${{{name}}}`: not built in, not in the suite's `vars`, and not set by `for_each`"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
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

    #[test]
    fn snippet_points_at_the_column() {
        let e = SuiteError::at("f.yaml", "a: 1\nbb: 2\n", 2, 1, "bad".into());
        let text = e.to_string();
        assert!(text.starts_with("error: f.yaml:2:1: bad"), "{text}");
        assert!(text.contains("2 | bb: 2"), "{text}");
    }
}
