//! `expect_extended_card`: the captured extended card is one the card
//! parser reads, in the endpoint's version, and lists every skill of the
//! public card (the extended card adds to the public one, v1 §3.1.11).

use super::expect_output_modes::listed;
use super::primitive::Primitive;
use crate::runner::capture::Captured;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::card::{parse_card, BindingChoice, CardError, ProtocolChoice};
use serde::Deserialize;

/// `expect_extended_card`: judge a `get_extended_card` capture.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectExtendedCardStep {
    /// The `get_extended_card` capture to judge.
    of: String,
    #[serde(default)]
    fail: Option<Template>,
}

impl Primitive for ExpectExtendedCardStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads(&self.of)?;
        ck.texts(&self.fail)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let capture = ctx.capture(&self.of)?;
        let Captured::Card(card) = &capture.value else {
            return Err(Stop::fail(match &self.fail {
                Some(text) => ctx.text(text)?,
                None => format!(
                    "`{}` holds no agent card: it was {}",
                    self.of, capture.summary
                ),
            }));
        };
        let body = card.to_string();
        let here = ctx.client.endpoint.clone();
        let parsed = parse_card(
            &here,
            body.as_bytes(),
            ProtocolChoice::Force(ctx.version()),
            BindingChoice::Auto,
        );
        let skills: Vec<String> = match parsed {
            Ok(parsed) => parsed.skills.into_iter().map(|s| s.id).collect(),
            // A valid card may list only interfaces this tool does not speak:
            // that says nothing about the card, so its skills are read as is.
            Err(CardError::NoUsableInterface { reason, .. }) => {
                ctx.transcript.note(format!(
                    "the extended agent card lists no interface a2a-conform speaks ({reason}); its skills are read as listed"
                ));
                listed_skill_ids(card)
            }
            Err(e) => {
                return Err(Stop::fail(format!(
                    "the extended agent card is not a valid agent card: {e}"
                )))
            }
        };
        let missing: Vec<&str> = ctx
            .card
            .skills
            .iter()
            .filter(|id| !skills.contains(id))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(Stop::fail(format!(
                "the extended agent card leaves out skill(s) of the public card: {} (it lists {})",
                missing.join(", "),
                listed(skills.iter().map(String::as_str))
            )));
        }
        ctx.transcript.note(format!(
            "the extended agent card parses and lists all {} public skill(s) among its {}",
            ctx.card.skills.len(),
            skills.len()
        ));
        Ok(())
    }
}

/// The `id` of every skill a card's JSON lists.
fn listed_skill_ids(card: &serde_json::Value) -> Vec<String> {
    card.get("skills")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("id").and_then(serde_json::Value::as_str))
        .map(str::to_string)
        .collect()
}
