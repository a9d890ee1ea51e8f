//! `get_extended_card`: GetExtendedAgentCard (v0.3
//! `agent/getAuthenticatedExtendedCard`) with the step's credentials; the
//! capture is the card, the error, or the refusal. The reply goes through
//! `RunContext::answered`, so a broken answer is a malfunction, never a fail.

use super::primitive::Primitive;
use crate::runner::capture::{Capture, Captured};
use crate::runner::context::{client_credentials, Answered, RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::values::Credentials;
use a2a_conform_client::client::CallOptions;
use a2a_conform_protocol::Operation;
use serde::Deserialize;
use std::time::Instant;

/// `get_extended_card`: ask for the extended agent card.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetExtendedCardStep {
    /// Capture name for the answer (the card, an error, or a refusal).
    #[serde(rename = "as")]
    capture: String,
    /// Which credentials the request carries (default `configured`).
    #[serde(default)]
    credentials: Credentials,
}

impl Primitive for GetExtendedCardStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.defines(&self.capture, CaptureKind::Answer);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let op = Operation::GetExtendedCard;
        let options = CallOptions {
            credentials: client_credentials(self.credentials),
            ..CallOptions::default()
        };
        let reply = ctx
            .client
            .call_with(&ctx.transcript, op, serde_json::json!({}), &options)
            .await;
        let at = Instant::now();
        let mut capture = match ctx.answered(op, reply, options.credentials)? {
            Answered::Result(card) => {
                if !card.is_object() {
                    return Err(Stop::malfunction(
                        op,
                        "the answer is no JSON object, so no agent card",
                    ));
                }
                if self.credentials == Credentials::Configured {
                    keep_whole(ctx, &card);
                }
                Capture::new(Captured::Card(card), at, "an agent card")
            }
            Answered::Error(error) => Capture::from_error(error, at),
            Answered::Refused { status, detail } => Capture::from_refusal(status, &detail, at),
        };
        capture.source = format!("the {op:?} answer");
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }
}

/// Keeps the card served with the credentials given whole for the peer's
/// report (redacted as the run's evidence is): its recorded answer is
/// clipped to the evidence cap, and `check --record` records it whole.
fn keep_whole(ctx: &RunContext<'_>, card: &serde_json::Value) {
    if let Some(slot) = &ctx.extended_card {
        let body = ctx.transcript.redact(&card.to_string());
        if let Ok(mut kept) = slot.lock() {
            *kept = Some(body);
        }
    }
}
