//! `expect_output_modes`: a send that accepted only `mode` was refused
//! with ContentTypeNotSupported (-32005), or answered a task whose
//! artifacts are all of that type. Another error breaks the declaration;
//! so does a failed task, but only when the same text sent without
//! `acceptedOutputModes` (a control, sent then) does not fail too: a peer
//! whose tasks fail whatever they may output says nothing about its output
//! modes. Parts of another type, or of a type the card declares nowhere,
//! break a SHOULD: inconclusive, or a fail under `--strict`.

use super::primitive::Primitive;
use super::send::SendStep;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::runner::evidence::CONTROL_NOTE;
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::{codes, TaskState};
use serde::Deserialize;

/// The capture the control send is kept under.
const CONTROL: &str = "output-mode-control";

/// `expect_output_modes`: judge a send answer's artifact types.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectOutputModesStep {
    /// The send answer to judge.
    of: String,
    /// The media type the send accepted.
    mode: Template,
    /// The text the judged send sent: sent again without
    /// `acceptedOutputModes` when its task failed, to tell a refused output
    /// mode from a task that fails anyway. Without it a failed task fails.
    #[serde(default)]
    text: Option<Template>,
}

impl Primitive for ExpectOutputModesStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.texts([&self.mode])?;
        match &self.text {
            Some(text) => ck.texts([text]),
            None => Ok(()),
        }
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let mode = ctx.text(&self.mode)?.trim().to_ascii_lowercase();
        let capture = ctx.capture(&self.of)?;
        if let Some(error) = capture.error() {
            if error.code == codes::CONTENT_TYPE_NOT_SUPPORTED {
                return Ok(());
            }
            return Err(Stop::fail(format!(
                "a send accepting only the declared output mode {mode} was answered error {} {} (only ContentTypeNotSupported -32005 refuses an output mode)",
                error.code, error.message
            )));
        }
        if let Some(state) = capture.state().filter(|s| failed(*s)) {
            return Err(self.judge_failed(ctx, &mode, state).await);
        }
        let Some(types) = capture.part_types.clone().filter(|t| !t.is_empty()) else {
            return Err(Stop::inconclusive(format!(
                "the send answered {}, with no artifact parts to judge",
                capture.summary
            )));
        };
        let other: Vec<&String> = types.iter().filter(|t| !same_type(t, &mode)).collect();
        let undeclared: Vec<&String> = types
            .iter()
            .filter(|t| !ctx.card.output_types.iter().any(|d| same_type(t, d)))
            .collect();
        let mut findings = Vec::new();
        if !other.is_empty() {
            findings.push(format!(
                "a send accepting only {mode} got artifact parts of {}",
                listed(other.iter().map(|t| t.as_str()))
            ));
        }
        if !undeclared.is_empty() {
            findings.push(format!(
                "artifact parts of {}, which the card declares as no output mode",
                listed(undeclared.iter().map(|t| t.as_str()))
            ));
        }
        if findings.is_empty() {
            return Ok(());
        }
        let finding = findings.join("; ");
        if ctx.strict {
            Err(Stop::fail(format!(
                "{finding} (a SHOULD, judged under --strict)"
            )))
        } else {
            Err(Stop::inconclusive(format!(
                "warning: {finding}; agents SHOULD shape output to acceptedOutputModes, so this is no divergence unless --strict"
            )))
        }
    }
}

/// A task that ended without doing the work.
fn failed(state: TaskState) -> bool {
    matches!(state, TaskState::Failed | TaskState::Rejected)
}

impl ExpectOutputModesStep {
    /// The verdict on a send accepting only `mode` whose task ended
    /// `state` (failed or rejected): a fail when the control — the same
    /// text without `acceptedOutputModes` — got a task that did not fail;
    /// inconclusive when it failed too or gave no task to compare.
    async fn judge_failed(&self, ctx: &mut RunContext<'_>, mode: &str, state: TaskState) -> Stop {
        let ended = format!("a send accepting only the declared output mode {mode} ended {state}");
        let Some(text) = &self.text else {
            return Stop::fail(ended);
        };
        let control = match ctx.text(text) {
            Ok(text) => SendStep::of_text(CONTROL, &text),
            Err(stop) => return stop,
        };
        ctx.transcript.note(format!(
            "{CONTROL_NOTE}the same message without acceptedOutputModes tells a refused output mode from a task that fails anyway"
        ));
        if let Err(stop) = control.run(ctx).await {
            return stop;
        }
        let capture = match ctx.capture(CONTROL) {
            Ok(capture) => capture,
            Err(stop) => return stop,
        };
        match capture.state() {
            Some(other) if !failed(other) => Stop::fail(format!(
                "{ended}, while the same message without acceptedOutputModes answered {}",
                capture.summary
            )),
            _ => Stop::inconclusive(format!(
                "{ended}, and the same message without acceptedOutputModes answered {} too: the task does not get done whatever output it may take, so nothing was learned about the output mode",
                capture.summary
            )),
        }
    }
}

/// Whether a part's media type is a declared one: the same essence
/// (parameters dropped, case ignored), or matched by a `type/*` wildcard.
fn same_type(part: &str, declared: &str) -> bool {
    let essence = |t: &str| {
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    };
    let (declared, part) = (essence(declared), essence(part));
    if declared == part || declared == "*/*" {
        return true;
    }
    match declared.strip_suffix("/*") {
        Some(major) => part.split('/').next() == Some(major),
        None => false,
    }
}

/// `a, b, c` (distinct, in order), or `none`.
pub(super) fn listed<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    if seen.is_empty() {
        "none".to_string()
    } else {
        seen.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_match_exactly_or_by_wildcard() {
        assert!(same_type("text/plain", "Text/Plain"));
        assert!(same_type("image/png", "image/*"));
        assert!(!same_type("text/plain", "application/json"));
        assert!(!same_type("application/json", "text/*"));
        assert!(same_type("text/plain", "text/plain; charset=utf-8"));
    }
}
