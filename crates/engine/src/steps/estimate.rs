//! What a step is expected to take, read before its run starts
//! (`Primitive::expected`, summed per run by `runner::order` to start the
//! longest runs first): the run's variables, and the nominal length of a
//! wait for a peer's task.

use crate::runner::run_vars::RunVars;
use crate::scenario::template::{Element, Template};
use crate::scenario::vars::{self, Count, DurationValue};
use std::time::Duration;

/// What one wait for a peer's task (a blocking send, a stream to its end,
/// a resume, a precondition search) is counted as. A peer's task time is
/// unknown until it runs; the order only needs the runs' relative lengths,
/// and a nominal second weighs a task against the windows a run waits out.
pub(crate) const NOMINAL_TASK: Duration = Duration::from_secs(1);

/// A planned run's variables, for reading its steps' windows before it runs.
pub(crate) struct Estimate<'v> {
    vars: &'v RunVars,
}

impl<'v> Estimate<'v> {
    /// An estimate with a planned run's variables.
    pub(crate) fn new(vars: &'v RunVars) -> Estimate<'v> {
        Estimate { vars }
    }

    /// A template's text from the run's variables alone; `None` when it
    /// names a capture or an unset variable (known only once the run runs).
    fn text(&self, template: &Template) -> Option<String> {
        let mut out = String::new();
        for element in template.elements() {
            match element {
                Element::Literal(text) => out.push_str(text),
                Element::Var(name) => out.push_str(self.vars.get(name)?.as_deref()?),
                Element::Capture { .. } => return None,
            }
        }
        Some(out)
    }

    /// A duration as the run would read it; `fallback` when it cannot be read yet.
    pub(crate) fn duration(&self, value: Option<&DurationValue>, fallback: Duration) -> Duration {
        match value {
            None => fallback,
            Some(DurationValue::Literal(d)) => *d,
            Some(DurationValue::Template(t)) => self
                .text(t)
                .and_then(|text| vars::parse_duration(&text).ok())
                .unwrap_or(fallback),
        }
    }

    /// A count as the run would read it; `fallback` when it cannot be read yet.
    pub(crate) fn count(&self, value: Option<&Count>, fallback: u32) -> u32 {
        match value {
            None => fallback,
            Some(Count::Literal(n)) => *n,
            Some(Count::Template(t)) => self
                .text(t)
                .and_then(|text| Count::parse(&text))
                .unwrap_or(fallback),
        }
    }
}
