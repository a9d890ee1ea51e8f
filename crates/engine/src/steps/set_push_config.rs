//! `set_push_config`: registers the run's webhook receiver with the peer
//! for a captured task's push notifications (CreatePushConfig), with an
//! optional token the peer must send back — a secret, redacted from the
//! evidence. The capture is the config the peer answered, or its error.

use super::primitive::Primitive;
use crate::runner::capture::Capture;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use a2a_conform_protocol::Operation;
use serde::Deserialize;
use serde_json::Value;
use std::time::Instant;

/// `set_push_config`: a push notification config for a captured task.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SetPushConfigStep {
    /// The captured task to be notified about.
    task: String,
    /// Capture name for the answer (the config, or the error).
    #[serde(rename = "as")]
    capture: String,
    /// A token the peer should send back with every notification (a secret:
    /// redacted from the evidence).
    #[serde(default)]
    token: Option<Template>,
}

impl Primitive for SetPushConfigStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.registers_webhook();
        ck.reads(&self.task)?;
        ck.texts(&self.token)?;
        ck.defines(&self.capture, CaptureKind::Answer);
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let capture = ctx.capture(&self.task)?;
        let task_id = match capture.task_ref() {
            (Some(id), _) => id,
            (None, _) => {
                return Err(Stop::inconclusive(format!(
                    "`{}` holds no task to configure push notifications for: it was {}",
                    self.task, capture.summary
                )))
            }
        };
        let token = match &self.token {
            Some(text) => Some(ctx.text(text)?).filter(|t| !t.is_empty()),
            None => None,
        };
        if let Some(token) = &token {
            if token.chars().count() < 4 {
                return Err(Stop::error(
                    "a push token must be at least 4 characters: it is a secret, and shorter values cannot be redacted safely",
                ));
            }
            ctx.transcript.add_secret(token.clone());
            ctx.push.token_set = true;
        }
        let version = ctx.version();
        let receiver = ctx.receiver().await?;
        if let Some(token) = &token {
            receiver.expect_token(token);
        }
        let params = version.push_config_params(&task_id, receiver.url(), token.as_deref());
        let reply = ctx
            .client
            .call(&ctx.transcript, Operation::CreatePushConfig, params)
            .await;
        let at = Instant::now();
        let op = Operation::CreatePushConfig;
        let mut capture = match ctx.answered_configured(op, reply)? {
            Ok(result) => {
                ctx.same_task(op, &task_id, config_task_id(&result)).await?;
                Capture::about_task(Some(task_id), None, at, describe_config(&result))
            }
            Err(error) => Capture::from_error(error, at),
        };
        capture.source = "the CreatePushConfig answer".into();
        ctx.captures.insert(self.capture.clone(), capture);
        Ok(())
    }
}

/// The task a push config answer names, in both shapes (`taskId` at the
/// top in v1.0 and v0.3); none when it names none.
fn config_task_id(result: &Value) -> Option<&str> {
    result.get("taskId").and_then(Value::as_str)
}

/// A push config answer in words.
fn describe_config(result: &Value) -> String {
    // v1.0: the flat config; v0.3: `{taskId, pushNotificationConfig: {id, url}}`.
    let config = result.get("pushNotificationConfig").unwrap_or(result);
    match config.get("id").and_then(Value::as_str) {
        Some(id) => format!("a push notification config (id {id})"),
        None if config.is_object() => "a push notification config (no id)".into(),
        None => format!(
            "an answer that is not a push notification config: {}",
            a2a_conform_protocol::text::clip(&result.to_string(), 120)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_answers_read_in_both_shapes() {
        let v1 = serde_json::json!({"id": "cfg1", "taskId": "t", "url": "http://h"});
        assert_eq!(describe_config(&v1), "a push notification config (id cfg1)");
        let v03 = serde_json::json!({"taskId": "t", "pushNotificationConfig": {"id": "cfg2", "url": "http://h"}});
        assert_eq!(
            describe_config(&v03),
            "a push notification config (id cfg2)"
        );
        assert!(
            describe_config(&serde_json::json!(null)).contains("not a push notification config")
        );
    }
}
