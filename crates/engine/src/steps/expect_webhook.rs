//! `expect_webhook`: waits, bounded, for a push notification on the run's
//! webhook receiver and judges it against the protocol version's delivery
//! rules (v1 §4.3.3 for 1.0; the 0.3 text for 0.3). A body of no A2A shape
//! is a malfunction; a peer that is not on this machine could not reach the
//! loopback receiver, so no delivery from it is inconclusive.

use super::primitive::Primitive;
use crate::runner::capture::Capture;
use crate::runner::context::{or_list, RunContext, StepResult, Stop};
use crate::runner::webhook::{BodyShape, Credential, Delivery};
use crate::scenario::check::{CaptureKind, Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::values::OneOrMany;
use crate::scenario::vars::DurationValue;
use a2a_conform_protocol::text::human_duration;
use a2a_conform_protocol::{ProtocolVersion, TaskState};
use serde::Deserialize;
use std::time::{Duration, Instant};

/// `expect_webhook`: a notification must reach the run's webhook.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectWebhookStep {
    /// How long to wait, from the step's start.
    within: DurationValue,
    /// States that count (the notification's task or status update state).
    #[serde(default)]
    state: Option<OneOrMany<TaskState>>,
    #[serde(rename = "as", default)]
    capture: Option<String>,
    /// What it means when no notification comes, in the scenario's words.
    #[serde(default)]
    fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// no notification comes.
    #[serde(default)]
    otherwise_inconclusive: Option<Template>,
}

impl Primitive for ExpectWebhookStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        if !ck.webhook_registered() {
            return Err(ck.error(
                "`expect_webhook` waits for push notifications no earlier step asked for (register the webhook with `set_push_config`, or `push: true` on `send`/`stream`)",
            ));
        }
        ck.texts(
            self.within
                .template()
                .into_iter()
                .chain(&self.fail)
                .chain(&self.otherwise_inconclusive),
        )?;
        if let Some(c) = &self.capture {
            ck.defines(c, CaptureKind::Answer);
        }
        Ok(())
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let within = ctx.duration(&self.within)?;
        let states = OneOrMany::all(&self.state);
        let cursor = ctx.push.cursor;
        let started = Instant::now();
        let Some(receiver) = ctx.push.receiver.as_ref() else {
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
            return take_delivery(ctx, d, self.capture.as_deref());
        }
        let fresh: Vec<&Delivery> = deliveries.iter().filter(|d| d.seq > cursor).collect();
        let situation = no_delivery(&states, within, &fresh, dropped);
        self.stop_without_delivery(ctx, situation)
    }
}

impl ExpectWebhookStep {
    /// No notification came: inconclusive when the step says so or the peer
    /// could not reach the loopback receiver; otherwise the run fails.
    fn stop_without_delivery(&self, ctx: &RunContext<'_>, situation: String) -> StepResult {
        if let Some(reason) = &self.otherwise_inconclusive {
            return Err(Stop::inconclusive(format!(
                "{}: {situation}",
                ctx.text(reason)?
            )));
        }
        if !peer_is_local(&ctx.client.endpoint) {
            return Err(Stop::inconclusive(format!(
                "{situation}; the peer ({}) is not on this machine, and the webhook receiver listens on 127.0.0.1 only, so the peer could not reach it",
                ctx.client.endpoint.host_str().unwrap_or("?")
            )));
        }
        let lead = match &self.fail {
            Some(text) => format!("{}: ", ctx.text(text)?),
            None => String::new(),
        };
        Err(Stop::fail(format!("{lead}{situation}")))
    }
}

/// The awaited notification came: consume it, capture it, judge it
/// against the version's delivery rules.
fn take_delivery(ctx: &mut RunContext<'_>, d: Delivery, capture: Option<&str>) -> StepResult {
    ctx.push.cursor = d.seq;
    let verdict = judge_delivery(ctx.version(), &d, ctx.push.token_set);
    if let Some(name) = capture {
        let event = d.event.as_ref();
        let mut capture = Capture::about_task(
            event.and_then(|e| e.task_id()).map(str::to_string),
            event.and_then(|e| e.state()),
            d.at,
            d.describe(),
        );
        capture.source = format!("webhook POST #{}", d.seq);
        ctx.captures.insert(name.to_string(), capture);
    }
    match verdict {
        Ok(notes) => {
            for note in notes {
                ctx.transcript.note(note);
            }
            Ok(())
        }
        Err(fault) => Err(fault_stop(d.seq, fault)),
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
pub(crate) fn judge_delivery(
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
pub(crate) enum DeliveryFault {
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
                generation: None,
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
}
