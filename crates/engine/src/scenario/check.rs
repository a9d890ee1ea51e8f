//! The load-time checks serde cannot make on a scenario's steps, as each
//! step primitive states them through a [`StepCheck`]: every capture a step
//! reads was made by an earlier step (a stream where a stream is needed),
//! every `${…}` names a known variable or an earlier capture, and what a
//! step captures is known to the steps after it. Errors point at the step.

use super::error::SuiteError;
use super::template::{Element, Template};
use super::values::Condition;
use super::vars;
use std::collections::HashMap;

/// What a capture holds, for reference checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureKind {
    /// An answer (a task, a message, an error, a refusal, an event).
    Answer,
    /// An open stream (`stream`, `subscribe`, a streamed `resume`).
    Stream,
}

/// A step's check passed, or the error that rejects the suite.
pub(crate) type Checked = Result<(), SuiteError>;

/// The HTTP statuses a capture can hold: refusals of the credentials (v1 §7.4).
const REFUSAL_STATUSES: &[u16] = &[401, 403];

/// A suite file's name and text, for positioned errors.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    pub(crate) file: &'a str,
    pub(crate) text: &'a str,
}

impl Source<'_> {
    /// An error at `line:column` of this file.
    pub(crate) fn err(&self, line: u64, column: u64, message: String) -> SuiteError {
        SuiteError::at(self.file, self.text, line, column, message)
    }

    /// Every variable a template names exists, and every capture it reads
    /// an earlier step made; an error points at `line:column`.
    pub(crate) fn check_template(
        &self,
        (line, column): (u64, u64),
        template: &Template,
        var_ok: &[String],
        captures: &HashMap<String, CaptureKind>,
    ) -> Checked {
        for element in template.elements() {
            match element {
                Element::Literal(_) => {}
                Element::Capture { name, field } => {
                    if !captures.contains_key(name) {
                        return Err(self.err(line, column, format!(
                            "`${{{name}.{}}}` refers to capture `{name}`, which no earlier step captured",
                            field.as_str()
                        )));
                    }
                }
                Element::Var(name) => {
                    if !vars::is_builtin(name) && !var_ok.iter().any(|v| v == name) {
                        return Err(self.err(line, column, format!(
                            "unknown variable `${{{name}}}`: not built in, not in the suite's `vars`, and not set by `for_each`"
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// One scenario's steps checked in order: what earlier steps captured, the
/// variables it may read, whether a webhook was registered, and the step
/// being checked (its name and position, for errors).
pub(crate) struct StepCheck<'a> {
    source: Source<'a>,
    vars: &'a [String],
    captures: HashMap<String, CaptureKind>,
    webhook: bool,
    name: &'static str,
    at: (u64, u64),
}

impl<'a> StepCheck<'a> {
    /// The checks of one scenario that may read `vars` (besides the built-ins).
    pub(crate) fn new(source: Source<'a>, vars: &'a [String]) -> StepCheck<'a> {
        StepCheck {
            source,
            vars,
            captures: HashMap::new(),
            webhook: false,
            name: "",
            at: (0, 0),
        }
    }

    /// The next step to check: its name as written and its position.
    pub(crate) fn enter(&mut self, name: &'static str, line: u64, column: u64) {
        self.name = name;
        self.at = (line, column);
    }

    /// An error at the step.
    pub(crate) fn error(&self, message: impl Into<String>) -> SuiteError {
        self.source.err(self.at.0, self.at.1, message.into())
    }

    /// The step reads capture `name`: an earlier step must have made it.
    pub(crate) fn reads(&self, name: &str) -> Checked {
        match self.captures.get(name) {
            Some(_) => Ok(()),
            None => Err(self.error(format!(
                "`{}` refers to `{name}`, which no earlier step captured (use `as: {name}` on an earlier step)",
                self.name
            ))),
        }
    }

    /// The step reads capture `name` as a stream.
    pub(crate) fn reads_stream(&self, name: &str) -> Checked {
        self.reads(name)?;
        match self.captures.get(name) {
            Some(CaptureKind::Stream) => Ok(()),
            _ => Err(self.error(format!(
                "`{}` needs a stream, but `{name}` is not one (capture it from `stream`, `subscribe` or a streamed `resume`)",
                self.name
            ))),
        }
    }

    /// The step's `${…}` texts name known variables and earlier captures.
    pub(crate) fn texts<'t>(&self, texts: impl IntoIterator<Item = &'t Template>) -> Checked {
        for text in texts {
            self.source
                .check_template(self.at, text, self.vars, &self.captures)?;
        }
        Ok(())
    }

    /// The step captures `name`: later steps may read it.
    pub(crate) fn defines(&mut self, name: &str, kind: CaptureKind) {
        self.captures.insert(name.to_string(), kind);
    }

    /// The step registers the run's webhook receiver with the peer.
    pub(crate) fn registers_webhook(&mut self) {
        self.webhook = true;
    }

    /// Whether an earlier step registered the run's webhook receiver.
    pub(crate) fn webhook_registered(&self) -> bool {
        self.webhook
    }

    /// A condition step (`expect`, `inconclusive_if`) names at least one
    /// condition, and only HTTP statuses a capture can hold.
    pub(crate) fn condition(&self, c: &Condition) -> Checked {
        if c.state.is_empty()
            && c.not_state.is_empty()
            && c.code.is_empty()
            && c.not_code.is_empty()
            && !c.error
            && !c.ok
            && c.http_status.is_empty()
        {
            return Err(self.error(format!(
                "`{}` has no condition: give at least one of state, not_state, code, not_code, error, ok, http_status",
                self.name
            )));
        }
        if let Some(status) = c.http_status.iter().find(|s| !REFUSAL_STATUSES.contains(s)) {
            return Err(self.error(format!(
                "`http_status: {status}` can never match: the runner captures only the refusals 401 and 403 as HTTP statuses"
            )));
        }
        Ok(())
    }
}
