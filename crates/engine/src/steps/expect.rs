//! `expect`: a captured answer must match a condition; otherwise the
//! scenario fails, in the scenario's words when it gives them.
//!
//! A refusal is an answer and its code is the claim: when the condition
//! names the codes the spec requires (`code`) and the peer refused with
//! another, the run fails as a wrong refusal (`fail_kind: wrong-code`),
//! quoting the code expected and the code got, whatever the scenario's
//! `fail` text says of an answer that served the request. On a v0.3 run,
//! where servers only SHOULD use the A2A codes (0.3 §8.2), a wrong code is a
//! broken SHOULD: a `warning:` inconclusive, a failure under `--strict`.
//! `code_v0_3` gives the codes a v0.3 run requires where they differ;
//! `should: true` makes the whole expectation a SHOULD (its failure a
//! warning unless `--strict`), a wrong code still failing as above.

use super::condition::{condition_step, settle_stream_error};
use super::primitive::Primitive;
use crate::runner::context::{or_list, RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::{codes, ProtocolVersion};

condition_step!(
    /// `expect`: the capture must match, else the scenario fails.
    ExpectStep {
        #[serde(default)]
        fail: Option<Template>,
        /// The codes a v0.3 run requires instead of `code`.
        #[serde(default)]
        code_v0_3: Option<Vec<i64>>,
        /// The spec asks it with SHOULD: an answer that does not match (but
        /// a refusal with the wrong code) is a `warning:` inconclusive, a
        /// failure under `--strict`.
        #[serde(default)]
        should: bool,
    }
);

impl Primitive for ExpectStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.condition(&self.condition())?;
        ck.texts(&self.fail)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let mut condition = self.condition();
        let v0_3 = ctx.version() == ProtocolVersion::V0_3;
        if let (true, Some(required)) = (v0_3, &self.code_v0_3) {
            condition.code = required.clone();
        }
        settle_stream_error(ctx, &self.of, &condition).await?;
        let capture = ctx.capture(&self.of)?;
        if capture.matches(&condition) {
            return Ok(());
        }
        if let (false, Some(got)) = (condition.code.is_empty(), capture.error()) {
            return Err(wrong_code(got.code, &condition.code, v0_3, ctx.strict));
        }
        let message = match &self.fail {
            Some(text) => ctx.text(text)?,
            None => format!("`{}` was {}", self.of, capture.summary),
        };
        Err(match (self.should, ctx.strict) {
            (false, _) => Stop::fail(message),
            (true, true) => Stop::fail(format!("{message} (a SHOULD, judged under --strict)")),
            (true, false) => Stop::inconclusive(format!(
                "warning: {message}; the spec asks it with SHOULD, so this is no divergence unless --strict"
            )),
        })
    }
}

/// A refusal with `got` where the spec requires one of `required`:
/// "refused with -32600 (InvalidRequestError) where the spec requires
/// -32004 (UnsupportedOperationError)".
fn wrong_code(got: i64, required: &[i64], v0_3: bool, strict: bool) -> Stop {
    let named: Vec<String> = required.iter().map(|c| codes::named(*c)).collect();
    let finding = format!(
        "refused with {} where the spec requires {}",
        codes::named(got),
        or_list(&named)
    );
    match (v0_3, strict) {
        (false, _) => Stop::wrong_code(finding),
        (true, true) => Stop::wrong_code(format!(
            "{finding} (0.3 servers SHOULD use the A2A codes; judged under --strict)"
        )),
        (true, false) => Stop::inconclusive(format!(
            "warning: {finding}; 0.3 servers SHOULD use the A2A codes (0.3 §8.2), so this is no divergence unless --strict"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::context::StopKind;

    #[test]
    fn a_wrong_code_quotes_both_and_is_a_should_on_v0_3() {
        let stop = wrong_code(-32600, &[-32004], false, false);
        assert_eq!(stop.kind, StopKind::WrongCode);
        assert_eq!(
            stop.message,
            "refused with -32600 (InvalidRequestError) where the spec requires -32004 (UnsupportedOperationError)"
        );
        let stop = wrong_code(-32007, &[-32004, -32601], true, false);
        assert_eq!(stop.kind, StopKind::Inconclusive);
        assert!(stop.message.starts_with("warning: refused with -32007"));
        assert!(stop
            .message
            .contains("-32004 (UnsupportedOperationError) or -32601"));
        assert_eq!(
            wrong_code(-1, &[-32004], true, true).kind,
            StopKind::WrongCode
        );
        assert!(wrong_code(-1, &[-32004], false, false)
            .message
            .starts_with("refused with -1 where"));
    }
}
