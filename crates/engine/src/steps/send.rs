//! `send`: a message (default text `${prompt}`), answered by a task, a
//! message, an error or a refusal the step provoked; with `push: true` the
//! run's webhook is registered inline. `stream` sends the same message on a
//! stream and shares this file's check and call. A blocking send answered
//! by a task still `submitted` or `working` is polled until the task
//! settles (`settle_answer`), unless the step says `settle: false` (the
//! `protocol.blocking` scenario judges the answer as it came).

use super::primitive::Primitive;
use crate::runner::context::{client_credentials, RunContext, StepResult};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::values::Credentials;
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use a2a_conform_client::client::{CallOptions, Extensions};
use a2a_conform_protocol::{MessagePart, Operation};
use serde::Deserialize;
use std::time::Duration;

/// `send` (and `stream`): one message to the peer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SendStep {
    /// Capture name for the answer (task, error, or stream).
    #[serde(rename = "as")]
    pub(crate) capture: String,
    /// Message text (default `${prompt}`).
    #[serde(default)]
    pub(crate) text: Option<Template>,
    /// For `send`: wait for a terminal or interrupted state (default true).
    #[serde(default)]
    pub(crate) blocking: Option<bool>,
    /// For a blocking `send`: poll a task answered still `submitted` or
    /// `working` until it is terminal or interrupted (default true); `false`
    /// keeps the answer as it came.
    #[serde(default)]
    pub(crate) settle: Option<bool>,
    /// Send this `A2A-Version` header instead of the interface's own (to
    /// probe version negotiation).
    #[serde(default)]
    pub(crate) a2a_version: Option<Template>,
    /// Register the run's webhook receiver inline, in the send configuration.
    #[serde(default)]
    pub(crate) push: bool,
    /// Which credentials the request carries: `configured` (default),
    /// `none`, or `invalid` (a made-up bearer token), to probe enforcement.
    #[serde(default)]
    pub(crate) credentials: Credentials,
    /// Start the new task in the context of this captured task (its `contextId`).
    #[serde(default)]
    pub(crate) context_of: Option<String>,
    /// Also ask for these extensions (comma-separated URIs) in the version's
    /// extensions header, besides the card's required ones.
    #[serde(default)]
    pub(crate) extensions: Option<Template>,
    /// Send no extensions header at all (not even the card's required ones).
    #[serde(default)]
    pub(crate) without_extensions: bool,
    /// `configuration.acceptedOutputModes` (comma-separated media types).
    #[serde(default)]
    pub(crate) accepted_output_modes: Option<Template>,
}

impl SendStep {
    /// A `send` of `text` with every other key at its default.
    pub(crate) fn of_text(capture: &str, text: &str) -> SendStep {
        SendStep {
            capture: capture.into(),
            text: Some(Template::literal(text)),
            blocking: None,
            settle: None,
            a2a_version: None,
            push: false,
            credentials: Credentials::Configured,
            context_of: None,
            extensions: None,
            without_extensions: false,
            accepted_output_modes: None,
        }
    }
}

impl Primitive for SendStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        check_message(self, ck, false)
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        send(ctx, self, false).await
    }

    /// A blocking send waits for the task; one that returns at once does not.
    fn expected(&self, _estimate: &Estimate<'_>) -> Duration {
        match self.blocking.unwrap_or(true) {
            true => NOMINAL_TASK,
            false => Duration::ZERO,
        }
    }
}

/// The checks of `send` and `stream`: `streaming` for the latter.
pub(super) fn check_message(s: &SendStep, ck: &mut StepCheck<'_>, streaming: bool) -> Checked {
    if s.push {
        ck.registers_webhook();
    }
    if let Some(name) = &s.context_of {
        ck.reads(name)?;
    }
    if s.extensions.is_some() && s.without_extensions {
        return Err(ck.error("`extensions` and `without_extensions: true` contradict each other"));
    }
    if s.settle.is_some() && (streaming || s.blocking == Some(false)) {
        return Err(ck.error("`settle` applies to a blocking `send` only"));
    }
    if s.a2a_version.is_some() && streaming {
        return Err(ck.error("`a2a_version` is supported on `send` only"));
    }
    ck.texts(
        s.text
            .iter()
            .chain(&s.a2a_version)
            .chain(&s.extensions)
            .chain(&s.accepted_output_modes),
    )?;
    let kind = if streaming {
        CaptureKind::Stream
    } else {
        CaptureKind::Answer
    };
    ck.defines(&s.capture, kind);
    Ok(())
}

/// Sends the step's message, blocking or on a stream (`streaming`), and
/// captures the answer.
pub(super) async fn send(ctx: &mut RunContext<'_>, s: &SendStep, streaming: bool) -> StepResult {
    let text = ctx.text(s.text.as_ref().unwrap_or(&Template::var("prompt")))?;
    let parts = [MessagePart::Text(text)];
    let context = match &s.context_of {
        Some(name) => ctx.task_of(name)?.1,
        None => None,
    };
    let message = ctx.version().message(
        &parts,
        &crate::runner::calls::new_message_id(),
        None,
        context.as_deref(),
    );
    let params = ctx
        .version()
        .send_params(message, s.blocking.unwrap_or(true));
    let params = if s.push {
        ctx.inline_push(params).await?
    } else {
        params
    };
    let params = match &s.accepted_output_modes {
        Some(modes) => {
            let modes = comma_list(&ctx.text(modes)?);
            ctx.version().with_accepted_output_modes(params, &modes)
        }
        None => params,
    };
    let extensions = match &s.extensions {
        _ if s.without_extensions => Extensions::Without,
        Some(uris) => Extensions::Also(comma_list(&ctx.text(uris)?)),
        None => Extensions::Configured,
    };
    let options = CallOptions {
        a2a_version: match &s.a2a_version {
            Some(v) => Some(ctx.text(v)?),
            None => None,
        },
        credentials: client_credentials(s.credentials),
        extensions,
    };
    let capture = if streaming {
        ctx.open_with(Operation::SendStreamingMessage, params, &options)
            .await?
    } else {
        let capture = ctx
            .answer_with(Operation::SendMessage, params, &options)
            .await?;
        if s.blocking.unwrap_or(true) && s.settle.unwrap_or(true) {
            super::settle_answer(ctx, capture).await?
        } else {
            capture
        }
    };
    ctx.captures.insert(s.capture.clone(), capture);
    Ok(())
}

/// `a, b` → `["a", "b"]` (empty items dropped).
fn comma_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}
