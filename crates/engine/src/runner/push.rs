//! The run's webhook receiver, shared by the steps that register it with
//! the peer (`set_push_config`, and `push: true` on `send`/`stream`):
//! started on the first use, on 127.0.0.1, and stopped when the run ends.

use super::context::{RunContext, Stop};
use super::webhook::WebhookReceiver;
use serde_json::Value;

impl RunContext<'_> {
    /// The run's receiver, started on first use.
    pub(crate) async fn receiver(&mut self) -> Result<&WebhookReceiver, Stop> {
        if self.push.receiver.is_none() {
            let receiver = WebhookReceiver::start(self.transcript.clone())
                .await
                .map_err(|e| {
                    Stop::error(format!(
                        "cannot start the webhook receiver on 127.0.0.1: {e}"
                    ))
                })?;
            self.push.receiver = Some(receiver);
        }
        self.push
            .receiver
            .as_ref()
            .ok_or_else(|| Stop::error("the webhook receiver is not running"))
    }

    /// `push: true` on `send`/`stream`: registers the receiver inline.
    pub(crate) async fn inline_push(&mut self, params: Value) -> Result<Value, Stop> {
        let version = self.version();
        let url = self.receiver().await?.url().to_string();
        self.transcript.note(format!(
            "registering the webhook {url} inline in the send configuration"
        ));
        Ok(version.with_inline_push(params, &url))
    }
}
