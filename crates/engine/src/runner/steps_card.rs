//! Steps about what the card declares beyond tasks: the extended agent card
//! (`get_extended_card`, `expect_extended_card`) and the output modes a send
//! accepted (`expect_output_modes`). Each reply goes through
//! [`RunContext::answered`], so a broken answer is a malfunction, never a fail.

use super::capture::{Capture, Captured};
use super::context::{client_credentials, Answered, RunContext, StepResult, Stop};
use crate::scenario::model::{ExpectExtendedCardStep, ExpectOutputModesStep, GetExtendedCardStep};
use a2a_conform_client::client::CallOptions;
use a2a_conform_protocol::card::{parse_card, BindingChoice, CardError, ProtocolChoice};
use a2a_conform_protocol::{codes, Operation};
use std::time::Instant;

impl RunContext<'_> {
    /// `get_extended_card`: GetExtendedAgentCard (v0.3
    /// `agent/getAuthenticatedExtendedCard`) with the step's credentials;
    /// the capture is the card, the error, or the refusal.
    pub(super) async fn get_extended_card(&mut self, s: &GetExtendedCardStep) -> StepResult {
        let op = Operation::GetExtendedCard;
        let options = CallOptions {
            credentials: client_credentials(s.credentials),
            ..CallOptions::default()
        };
        let reply = self
            .client
            .call_with(&self.transcript, op, serde_json::json!({}), &options)
            .await;
        let at = Instant::now();
        let mut capture = match self.answered(op, reply, options.credentials)? {
            Answered::Result(card) => {
                if !card.is_object() {
                    return Err(Stop::malfunction(
                        op,
                        "the answer is no JSON object, so no agent card",
                    ));
                }
                Capture::new(Captured::Card(card), at, "an agent card")
            }
            Answered::Error(error) => Capture::from_error(error, at),
            Answered::Refused { status, detail } => Capture::from_refusal(status, &detail, at),
        };
        capture.source = format!("the {op:?} answer");
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    /// `expect_extended_card`: the captured card is one the card parser
    /// reads, in the endpoint's version, and lists every skill of the public
    /// card (the extended card adds to the public one, v1 §3.1.11).
    pub(super) fn expect_extended_card(&mut self, s: &ExpectExtendedCardStep) -> StepResult {
        let capture = self.capture(&s.of)?;
        let Captured::Card(card) = &capture.value else {
            return Err(Stop::fail(match &s.fail {
                Some(text) => self.text(text)?,
                None => format!("`{}` holds no agent card: it was {}", s.of, capture.summary),
            }));
        };
        let body = card.to_string();
        let here = self.client.endpoint.clone();
        let parsed = parse_card(
            &here,
            body.as_bytes(),
            ProtocolChoice::Force(self.version()),
            BindingChoice::Auto,
        );
        let skills: Vec<String> = match parsed {
            Ok(parsed) => parsed.skills.into_iter().map(|s| s.id).collect(),
            // A valid card may list only interfaces this tool does not speak:
            // that says nothing about the card, so its skills are read as is.
            Err(CardError::NoUsableInterface { reason, .. }) => {
                self.transcript.note(format!(
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
        let missing: Vec<&str> = self
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
        self.transcript.note(format!(
            "the extended agent card parses and lists all {} public skill(s) among its {}",
            self.card.skills.len(),
            skills.len()
        ));
        Ok(())
    }

    /// `expect_output_modes`: a send that accepted only `mode` was refused
    /// with ContentTypeNotSupported (-32005), or answered a task whose
    /// artifacts are all of that type. Another error or a failed task breaks
    /// the declaration. Parts of another type, or of a type the card
    /// declares nowhere, break a SHOULD: inconclusive, or a fail under `--strict`.
    pub(super) fn expect_output_modes(&mut self, s: &ExpectOutputModesStep) -> StepResult {
        let mode = self.text(&s.mode)?.trim().to_ascii_lowercase();
        let capture = self.capture(&s.of)?;
        if let Some(error) = capture.error() {
            if error.code == codes::CONTENT_TYPE_NOT_SUPPORTED {
                return Ok(());
            }
            return Err(Stop::fail(format!(
                "a send accepting only the declared output mode {mode} was answered error {} {} (only ContentTypeNotSupported -32005 refuses an output mode)",
                error.code, error.message
            )));
        }
        if let Some(state) = capture.state() {
            if matches!(
                state,
                a2a_conform_protocol::TaskState::Failed | a2a_conform_protocol::TaskState::Rejected
            ) {
                return Err(Stop::fail(format!(
                    "a send accepting only the declared output mode {mode} ended {state}"
                )));
            }
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
            .filter(|t| !self.card.output_types.iter().any(|d| same_type(t, d)))
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
        if self.strict {
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
fn listed<'a>(items: impl Iterator<Item = &'a str>) -> String {
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
