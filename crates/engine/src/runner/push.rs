//! The push-notification steps: `set_push_config` (and `push: true` on a send)
//! register the run's webhook receiver with the peer; `expect_webhook` waits,
//! bounded, for a notification and judges it against the protocol version's
//! delivery rules (v1 §4.3.3 for 1.0; the 0.3 text for 0.3).

use super::capture::Capture;
use super::context::{or_list, RunContext, StepResult, Stop};
use super::webhook::{BodyShape, Credential, Delivery, WebhookReceiver};
use crate::scenario::model::{ExpectWebhookStep, OneOrMany, SetPushConfigStep};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{Operation, ProtocolVersion, TaskState};
use serde_json::Value;
use std::time::{Duration, Instant};

impl RunContext<'_> {
    /// The run's receiver, started on first use.
    async fn receiver(&mut self) -> Result<&WebhookReceiver, Stop> {
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
    pub(super) async fn inline_push(&mut self, params: Value) -> Result<Value, Stop> {
        let version = self.version();
        let url = self.receiver().await?.url().to_string();
        self.transcript.note(format!(
            "registering the webhook {url} inline in the send configuration"
        ));
        Ok(version.with_inline_push(params, &url))
    }

    pub(super) async fn set_push_config(&mut self, s: &SetPushConfigStep) -> Result<(), Stop> {
        let capture = self.capture(&s.task)?;
        let task_id = match capture.task_ref() {
            (Some(id), _) => id,
            (None, _) => {
                return Err(Stop::inconclusive(format!(
                    "`{}` holds no task to configure push notifications for: it was {}",
                    s.task, capture.summary
                )))
            }
        };
        let token = match &s.token {
            Some(text) => Some(self.text(text)?).filter(|t| !t.is_empty()),
            None => None,
        };
        if let Some(token) = &token {
            if token.chars().count() < 4 {
                return Err(Stop::error(
                    "a push token must be at least 4 characters: it is a secret, and shorter values cannot be redacted safely",
                ));
            }
            self.transcript.add_secret(token.clone());
            self.push.token_set = true;
        }
        let version = self.version();
        let receiver = self.receiver().await?;
        if let Some(token) = &token {
            receiver.expect_token(token);
        }
        let params = version.push_config_params(&task_id, receiver.url(), token.as_deref());
        let reply = self
            .client
            .call(&self.transcript, Operation::CreatePushConfig, params)
            .await;
        let at = Instant::now();
        let op = Operation::CreatePushConfig;
        let mut capture = match self.answered_configured(op, reply)? {
            Ok(result) => Capture::about_task(Some(task_id), None, at, describe_config(&result)),
            Err(error) => Capture::from_error(error, at),
        };
        capture.source = "the CreatePushConfig answer".into();
        self.captures.insert(s.capture.clone(), capture);
        Ok(())
    }

    pub(super) async fn expect_webhook(&mut self, s: &ExpectWebhookStep) -> StepResult {
        let within = self.duration(&s.within)?;
        let states = OneOrMany::all(&s.state);
        let cursor = self.push.cursor;
        let started = Instant::now();
        let Some(receiver) = self.push.receiver.as_ref() else {
            return Err(Stop::error(
                "no webhook receiver: no earlier step registered one with the peer",
            ));
        };
        let matches = |d: &Delivery| {
            d.seq > cursor
                && d.event.as_ref().is_some_and(|e| {
                    states.is_empty() || e.state().is_some_and(|st| states.contains(&st))
                })
        };
        receiver
            .wait_until(started + within, |all| all.iter().any(&matches))
            .await;
        let deliveries = receiver.deliveries();
        let dropped = receiver.dropped();
        if let Some(d) = deliveries.iter().find(|d| matches(d)).cloned() {
            return self.take_delivery(d, s.capture.as_deref());
        }
        let fresh: Vec<&Delivery> = deliveries.iter().filter(|d| d.seq > cursor).collect();
        let situation = no_delivery(&states, within, &fresh, dropped);
        self.stop_without_delivery(s, situation)
    }

    /// The awaited notification came: consume it, capture it, judge it
    /// against the version's delivery rules.
    fn take_delivery(&mut self, d: Delivery, capture: Option<&str>) -> StepResult {
        self.push.cursor = d.seq;
        let verdict = judge_delivery(self.version(), &d, self.push.token_set);
        if let Some(name) = capture {
            let event = d.event.as_ref();
            let mut capture = Capture::about_task(
                event.and_then(|e| e.task_id()).map(str::to_string),
                event.and_then(|e| e.state()),
                d.at,
                d.describe(),
            );
            capture.source = format!("webhook POST #{}", d.seq);
            self.captures.insert(name.to_string(), capture);
        }
        match verdict {
            Ok(notes) => {
                for note in notes {
                    self.transcript.note(note);
                }
                Ok(())
            }
            Err(fault) => Err(fault_stop(d.seq, fault)),
        }
    }

    /// No notification came: inconclusive when the step says so or the peer
    /// could not reach the loopback receiver; otherwise the run fails.
    fn stop_without_delivery(&self, s: &ExpectWebhookStep, situation: String) -> StepResult {
        if let Some(reason) = &s.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                self.text(reason)?
            )));
        }
        if !peer_is_local(&self.client.endpoint) {
            return Err(Stop::inconclusive(format!(
                "{situation}; the peer ({}) is not on this machine, and the webhook receiver listens on 127.0.0.1 only, so the peer could not reach it",
                self.client.endpoint.host_str().unwrap_or("?")
            )));
        }
        let lead = match &s.fail {
            Some(text) => format!("{}: ", self.text(text)?),
            None => String::new(),
        };
        Err(Stop::fail(format!("{lead}{situation}")))
    }
}

/// What reached the webhook instead of the awaited notification (`fresh`:
/// the deliveries after the last one consumed), in words.
fn no_delivery(
    states: &[TaskState],
    within: Duration,
    fresh: &[&Delivery],
    dropped: usize,
) -> String {
    let wanted = if states.is_empty() {
        "push notification".to_string()
    } else {
        format!("push notification with state {}", or_list(states))
    };
    let mut situation = format!(
        "no {wanted} reached the webhook within {}",
        human_duration(within)
    );
    if !fresh.is_empty() {
        let seen: Vec<String> = fresh
            .iter()
            .take(5)
            .map(|d| format!("#{} {}", d.seq, d.describe_body()))
            .collect();
        situation.push_str(&format!(
            " ({} other notification(s): {}{})",
            fresh.len(),
            seen.join("; "),
            if fresh.len() > 5 { "; …" } else { "" }
        ));
    }
    if dropped > 0 {
        situation.push_str(&format!(
            "; {dropped} more POST(s) past the cap were not kept"
        ));
    }
    situation
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

/// Whether the peer's endpoint is on this machine (loopback), where it can
/// reach the receiver.
fn peer_is_local(endpoint: &url::Url) -> bool {
    match endpoint.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// How a faulty delivery stops the run. A body that is no JSON, or JSON of
/// no A2A shape, is not a notification at all: a peer malfunction (`error`),
/// never a broken promise; every other fault is a valid notification that
/// breaks the delivery rules (`fail`).
fn fault_stop(seq: usize, fault: DeliveryFault) -> Stop {
    let message = format!("webhook POST #{seq}: {fault}");
    match fault {
        DeliveryFault::Body(_) => Stop::malfunction_in(message),
        _ => Stop::fail(message),
    }
}

/// Judges a notification against the version's delivery rules: `Ok` with
/// notes on what was tolerated, or `Err` saying what is wrong.
///
/// - v1.0 (v1 §4.3.3): a JSON body that is a StreamResponse, sent as
///   `application/a2a+json` (`application/json` is tolerated with a note); when
///   the config carried credentials, an `Authorization` header with them (a
///   MUST; `X-A2A-Notification-Token` alone does not do, v1.0.1 removed it).
/// - v0.3: the body is not defined (the spec's example sends the Task); the
///   token SHOULD be sent, e.g. as `X-A2A-Notification-Token`: a missing one is
///   tolerated with a note, a wrong one fails.
pub(super) fn judge_delivery(
    version: ProtocolVersion,
    d: &Delivery,
    token_set: bool,
) -> Result<Vec<String>, DeliveryFault> {
    let mut notes = Vec::new();
    let content_type = d.content_type.as_deref().map(|c| {
        c.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    });
    match content_type.as_deref() {
        None => return Err(DeliveryFault::NoContentType),
        Some("application/a2a+json") => {}
        Some("application/json") if version == ProtocolVersion::V1_0 => notes.push(
            "tolerated: the notification was sent as application/json, not application/a2a+json (v1 §4.3.3)".into(),
        ),
        Some("application/json") => {}
        Some(c) if c.starts_with("application/") && c.ends_with("+json") => {}
        Some(other) => {
            return Err(DeliveryFault::NotJsonContentType(other.to_string()))
        }
    }
    match (version, d.shape) {
        (ProtocolVersion::V1_0, BodyShape::StreamResponse) => {}
        (ProtocolVersion::V1_0, BodyShape::Kind) => return Err(DeliveryFault::KindTagged),
        (ProtocolVersion::V1_0, BodyShape::BareTask) => return Err(DeliveryFault::BareTask),
        (ProtocolVersion::V0_3, BodyShape::StreamResponse) => notes.push(
            "noted: the v0.3 notification is a v1.0 StreamResponse (0.3 leaves the body undefined)"
                .into(),
        ),
        (_, BodyShape::NotJson | BodyShape::Unrecognized) => {
            return Err(DeliveryFault::Body(d.describe_body()))
        }
        (ProtocolVersion::V0_3, _) => {}
    }
    if !token_set {
        return Ok(notes);
    }
    if d.token_header
        == (Credential::Present {
            matches: Some(false),
        })
    {
        return Err(DeliveryFault::TokenMismatch);
    }
    match version {
        ProtocolVersion::V1_0 => match d.authorization {
            Credential::Present {
                matches: Some(false),
            } => Err(DeliveryFault::AuthorizationMismatch),
            Credential::Absent => Err(DeliveryFault::NoAuthorization {
                token_header_only: d.token_header != Credential::Absent,
            }),
            Credential::Present { .. } => Ok(notes),
        },
        ProtocolVersion::V0_3 => {
            if d.token_header == Credential::Absent {
                notes.push(
                    "tolerated: the v0.3 notification carried no X-A2A-Notification-Token (0.3: the token SHOULD be sent)".into(),
                );
            }
            Ok(notes)
        }
    }
}

/// How a notification breaks the version's delivery rules (the step fails
/// with this reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum DeliveryFault {
    #[error("the notification has no Content-Type")]
    NoContentType,
    #[error("the notification's Content-Type is {0}, not JSON (v1 §4.3.3: application/a2a+json)")]
    NotJsonContentType(String),
    #[error("the body is a v0.3 `kind`-tagged object, not a StreamResponse (v1 §4.3.3)")]
    KindTagged,
    #[error(
        "the body is a bare Task, not a StreamResponse (v1 §4.3.3: `{{\"task\": …}}` or an update)"
    )]
    BareTask,
    /// Not JSON, or JSON of no known shape (the description says which).
    #[error("the body is {0}")]
    Body(String),
    #[error("X-A2A-Notification-Token does not match the token set on the config")]
    TokenMismatch,
    #[error("the Authorization credentials do not match the ones set on the config (v1 §4.3.3)")]
    AuthorizationMismatch,
    #[error(
        "no Authorization header: v1 §4.3.3 requires one, built from the config's authentication (the token was set as Bearer credentials){}",
        if *.token_header_only { "; only X-A2A-Notification-Token was sent, which v1.0.1 removed from the spec" } else { "" }
    )]
    NoAuthorization { token_header_only: bool },
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_body_of_no_a2a_shape_is_a_malfunction_other_faults_fail() {
        use crate::runner::context::StopKind;
        use a2a_conform_report::ErrorKind;
        let stop = super::fault_stop(3, super::DeliveryFault::Body("not JSON: `<html>`".into()));
        assert_eq!(stop.kind, StopKind::Error(ErrorKind::PeerMalfunction));
        assert!(stop.message.contains("webhook POST #3"), "{}", stop.message);
        let stop = super::fault_stop(1, super::DeliveryFault::BareTask);
        assert_eq!(stop.kind, StopKind::Fail);
    }

    use super::*;
    use a2a_conform_protocol::{Event, TaskState};

    fn delivery(
        content_type: &str,
        shape: BodyShape,
        auth: Credential,
        token: Credential,
    ) -> Delivery {
        Delivery {
            seq: 1,
            at: Instant::now(),
            content_type: Some(content_type.into()),
            bytes: 10,
            shape,
            event: Some(Event::StatusUpdate {
                task_id: Some("t".into()),
                state: Some(TaskState::Completed),
                final_flag: None,
            }),
            authorization: auth,
            token_header: token,
        }
    }

    const OK: Credential = Credential::Present {
        matches: Some(true),
    };
    const WRONG: Credential = Credential::Present {
        matches: Some(false),
    };
    const NONE: Credential = Credential::Absent;
    use BodyShape::*;
    use ProtocolVersion::{V0_3, V1_0};

    #[test]
    fn v1_0_needs_a_stream_response_and_an_authorization_header() {
        let good = delivery("application/a2a+json", StreamResponse, OK, NONE);
        assert_eq!(judge_delivery(V1_0, &good, true), Ok(vec![]));
        let token_only = delivery("application/a2a+json", StreamResponse, NONE, OK);
        let e = judge_delivery(V1_0, &token_only, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("no Authorization header"), "{e}");
        assert!(e.contains("v1.0.1 removed"), "{e}");
        let wrong = delivery("application/a2a+json", StreamResponse, WRONG, NONE);
        assert!(judge_delivery(V1_0, &wrong, true)
            .unwrap_err()
            .to_string()
            .contains("do not match"));
        // Without a token, credentials are not judged.
        let bare = delivery("application/a2a+json", StreamResponse, NONE, NONE);
        assert_eq!(judge_delivery(V1_0, &bare, false), Ok(vec![]));
        let task = delivery("application/a2a+json", BareTask, OK, NONE);
        assert!(judge_delivery(V1_0, &task, true)
            .unwrap_err()
            .to_string()
            .contains("not a StreamResponse"));
    }

    #[test]
    fn content_types_json_is_tolerated_in_1_0_anything_else_fails() {
        let json = delivery("application/json; charset=utf-8", StreamResponse, OK, NONE);
        let notes = judge_delivery(V1_0, &json, true).unwrap();
        assert!(notes[0].contains("application/json"), "{notes:?}");
        let text = delivery("text/plain", StreamResponse, OK, NONE);
        assert!(judge_delivery(V1_0, &text, true)
            .unwrap_err()
            .to_string()
            .contains("text/plain"));
        let mut none = delivery("x", StreamResponse, OK, NONE);
        none.content_type = None;
        assert!(judge_delivery(V0_3, &none, true).is_err());
    }

    #[test]
    fn v0_3_takes_the_task_and_only_notes_a_missing_token() {
        let good = delivery("application/json", Kind, NONE, OK);
        assert_eq!(judge_delivery(V0_3, &good, true), Ok(vec![]));
        let bare = delivery("application/json", BareTask, NONE, NONE);
        let notes = judge_delivery(V0_3, &bare, true).unwrap();
        assert!(
            notes[0].contains("no X-A2A-Notification-Token"),
            "{notes:?}"
        );
        let wrong = delivery("application/json", Kind, NONE, WRONG);
        assert!(judge_delivery(V0_3, &wrong, true)
            .unwrap_err()
            .to_string()
            .contains("does not match"));
        let junk = delivery("application/json", NotJson, NONE, OK);
        assert!(judge_delivery(V0_3, &junk, true).is_err());
    }

    #[test]
    fn only_loopback_peers_count_as_local() {
        for (url, local) in [
            ("http://127.0.0.1:9/a2a", true),
            ("http://127.1.2.3/a2a", true),
            ("http://[::1]:9/a2a", true),
            ("http://localhost:9/a2a", true),
            ("http://agent.localhost/a2a", true),
            ("https://peer.example.com/a2a", false),
            ("http://10.0.0.5/a2a", false),
        ] {
            assert_eq!(
                peer_is_local(&url::Url::parse(url).unwrap()),
                local,
                "{url}"
            );
        }
    }

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
