//! The webhook receiver a scenario run hosts for push notifications: an HTTP
//! server on `127.0.0.1:0`, started on demand by the first step that needs it
//! and stopped when the run ends (on drop). Every request it gets is recorded
//! in the run's transcript with its arrival time; credentials are never
//! recorded, only whether they were present and whether they matched the
//! token the scenario set. It answers 200 to every POST on its path.
//!
//! Whatever the peer sends, what it keeps is bounded: bodies are capped,
//! refused requests (other paths, methods, oversized bodies) are recorded
//! one by one only up to [`RECORDED_REFUSALS`] and counted after that, and
//! deliveries without an event are kept up to [`MAX_JUNK_DELIVERIES`], so a
//! flood of either never pushes a real notification out.
//!
//! It listens on loopback only: a peer on another machine cannot reach it,
//! and agents SHOULD refuse loopback webhook URLs anyway (SSRF protection,
//! v1 §13.2), so scenarios read such refusals as inconclusive.

use a2a_conform_client::stream::describe;
use a2a_conform_client::transcript::RecordKind;
use a2a_conform_client::{Transcript, MAX_SSE_EVENT_BYTES};
use a2a_conform_protocol::{Event, ProtocolVersion, TaskView};
use axum::body::{to_bytes, Body};
use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::Router;
use serde_json::Value;
use std::net::Ipv4Addr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The largest notification body read (1 MiB); a larger one is refused with 413.
pub(crate) const MAX_WEBHOOK_BODY: usize = MAX_SSE_EVENT_BYTES;
/// The most notifications holding an event kept per run: the first half of
/// them, and the latest after that; the ones between are answered and counted.
pub(crate) const MAX_DELIVERIES: usize = 1000;
/// The most notifications without an event (not JSON, no Task or stream
/// event) kept per run; later ones are answered and counted only.
pub(crate) const MAX_JUNK_DELIVERIES: usize = 20;
/// How many refused requests are recorded one by one; later ones are counted.
pub(crate) const RECORDED_REFUSALS: usize = 5;
/// How long one notification's body may take to arrive.
const BODY_WAIT: Duration = Duration::from_secs(10);
/// The header v0.3 (and the official SDKs) carry the config's token in.
pub(crate) const TOKEN_HEADER: &str = "x-a2a-notification-token";

/// A credential header of a notification, judged without keeping its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Credential {
    Absent,
    /// Present; `matches` is whether it carries a token the scenario set
    /// (`None`: no token was set to compare with).
    Present {
        matches: Option<bool>,
    },
}

impl Credential {
    fn judge(value: Option<&str>, tokens: &[String], scheme: bool) -> Credential {
        let Some(value) = value else {
            return Credential::Absent;
        };
        if tokens.is_empty() {
            return Credential::Present { matches: None };
        }
        let value = value.trim();
        // `Authorization: <scheme> <credentials>`: the credentials carry the token.
        let credentials = match (scheme, value.split_once(' ')) {
            (true, Some((_, credentials))) => credentials.trim(),
            _ => value,
        };
        Credential::Present {
            matches: Some(tokens.iter().any(|t| t == credentials)),
        }
    }

    pub(crate) fn words(self) -> &'static str {
        match self {
            Credential::Absent => "absent",
            Credential::Present { matches: None } => "present (no token was set to compare)",
            Credential::Present {
                matches: Some(true),
            } => "present, matches the token set",
            Credential::Present {
                matches: Some(false),
            } => "present, does NOT match the token set",
        }
    }
}

/// How a notification body was shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyShape {
    /// A v1.0 StreamResponse: `{task}|{message}|{statusUpdate}|{artifactUpdate}`.
    StreamResponse,
    /// A v0.3 object tagged with `kind`.
    Kind,
    /// A bare Task without `kind` (`id` and `status`).
    BareTask,
    /// JSON, but none of the above.
    Unrecognized,
    /// Not JSON at all.
    NotJson,
}

/// One notification the receiver got.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    /// 1-based, in arrival order.
    pub(crate) seq: usize,
    pub(crate) at: Instant,
    pub(crate) content_type: Option<String>,
    pub(crate) bytes: usize,
    pub(crate) shape: BodyShape,
    /// The event the body holds, when it holds one.
    pub(crate) event: Option<Event>,
    pub(crate) authorization: Credential,
    pub(crate) token_header: Credential,
}

impl Delivery {
    /// One line for people: what came and with which credentials.
    pub(crate) fn describe(&self) -> String {
        format!(
            "webhook POST #{} ({}, {} bytes): {}; Authorization {}; X-A2A-Notification-Token {}",
            self.seq,
            self.content_type.as_deref().unwrap_or("no content-type"),
            self.bytes,
            self.describe_body(),
            self.authorization.words(),
            self.token_header.words()
        )
    }

    pub(crate) fn describe_body(&self) -> String {
        match (&self.event, self.shape) {
            (_, BodyShape::NotJson) => "a body that is not JSON".into(),
            (Some(event), _) => describe(event),
            (None, _) => "JSON that is neither a Task nor a stream event".into(),
        }
    }
}

struct Inner {
    transcript: Arc<Transcript>,
    /// The path the receiver's URL names (a fresh random one per run).
    path: String,
    tokens: Mutex<Vec<String>>,
    deliveries: Mutex<Deliveries>,
    /// Requests refused (other path or method, body too large or too slow).
    refused: AtomicUsize,
    /// Bumped on every delivery kept.
    changed: watch::Sender<usize>,
    closed: AtomicBool,
}

/// The notifications kept, and how many came in all.
#[derive(Default)]
struct Deliveries {
    kept: Vec<Delivery>,
    /// Every notification answered 200, kept or not; the next `seq` is one more.
    arrived: usize,
    /// Answered but not kept: past a cap, or pushed out by later ones.
    dropped: usize,
}

impl Deliveries {
    /// Keeps `delivery` within the caps; returns whether it was kept.
    fn keep(&mut self, delivery: Delivery) -> bool {
        let holds_event = delivery.event.is_some();
        let (kind_kept, cap) = if holds_event {
            (
                self.kept.iter().filter(|d| d.event.is_some()).count(),
                MAX_DELIVERIES,
            )
        } else {
            (
                self.kept.iter().filter(|d| d.event.is_none()).count(),
                MAX_JUNK_DELIVERIES,
            )
        };
        if kind_kept >= cap {
            if !holds_event {
                self.dropped += 1;
                return false;
            }
            // The latest notifications matter most to a waiting step: the
            // oldest one past the first half makes room.
            let victim = self
                .kept
                .iter()
                .enumerate()
                .filter(|(_, d)| d.event.is_some())
                .nth(MAX_DELIVERIES / 2)
                .map(|(i, _)| i);
            if let Some(i) = victim {
                self.kept.remove(i);
                self.dropped += 1;
            }
        }
        self.kept.push(delivery);
        true
    }
}

/// A running receiver. Dropping it stops the server.
pub(crate) struct WebhookReceiver {
    url: String,
    inner: Arc<Inner>,
    stop: watch::Sender<bool>,
    server: JoinHandle<()>,
}

impl WebhookReceiver {
    /// Binds `127.0.0.1:0` and serves on the current runtime.
    pub(crate) async fn start(transcript: Arc<Transcript>) -> std::io::Result<WebhookReceiver> {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let path = format!("/a2a-conform/webhook/{}", uuid::Uuid::new_v4().simple());
        let inner = Arc::new(Inner {
            transcript,
            path: path.clone(),
            tokens: Mutex::new(Vec::new()),
            deliveries: Mutex::new(Deliveries::default()),
            refused: AtomicUsize::new(0),
            changed: watch::channel(0).0,
            closed: AtomicBool::new(false),
        });
        let app = Router::new().fallback(receive).with_state(inner.clone());
        let (stop, mut stopped) = watch::channel(false);
        let server = tokio::spawn(async move {
            let graceful = async move {
                let _ = stopped.wait_for(|s| *s).await;
            };
            // An accept error ends the server; a waiting step then sees no delivery.
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(graceful)
                .await;
        });
        let url = format!("http://{addr}{path}");
        inner
            .transcript
            .note(format!("webhook receiver listening at {url}"));
        Ok(WebhookReceiver {
            url,
            inner,
            stop,
            server,
        })
    }

    /// The URL peers are asked to POST to.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// A token set on a push config: deliveries are compared with it.
    pub(crate) fn expect_token(&self, token: &str) {
        if let Ok(mut tokens) = self.inner.tokens.lock() {
            if !tokens.iter().any(|t| t == token) {
                tokens.push(token.to_string());
            }
        }
    }

    /// Every delivery kept so far, in arrival order.
    pub(crate) fn deliveries(&self) -> Vec<Delivery> {
        self.inner
            .deliveries
            .lock()
            .map(|d| d.kept.clone())
            .unwrap_or_default()
    }

    /// Notifications answered but not kept (past [`MAX_DELIVERIES`] or
    /// [`MAX_JUNK_DELIVERIES`]).
    pub(crate) fn dropped(&self) -> usize {
        self.inner.deliveries.lock().map(|d| d.dropped).unwrap_or(0)
    }

    /// Requests refused: another path or method, a body too large or too slow.
    pub(crate) fn refused(&self) -> usize {
        self.inner.refused.load(Ordering::Relaxed)
    }

    /// Waits until `done` holds for the deliveries, or the deadline passes.
    /// Returns whether `done` held.
    pub(crate) async fn wait_until(
        &self,
        deadline: Instant,
        done: impl Fn(&[Delivery]) -> bool,
    ) -> bool {
        let mut changed = self.inner.changed.subscribe();
        loop {
            if done(&self.deliveries()) {
                return true;
            }
            let deadline = tokio::time::Instant::from_std(deadline);
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => continue,
                // Timed out, or the receiver is gone: one last look.
                _ => return done(&self.deliveries()),
            }
        }
    }
}

impl Drop for WebhookReceiver {
    fn drop(&mut self) {
        self.inner.closed.store(true, Ordering::Relaxed);
        let refused = self.refused();
        if refused > RECORDED_REFUSALS {
            self.inner.transcript.note(format!(
                "webhook receiver: {refused} requests refused in all; the first {RECORDED_REFUSALS} are recorded, the rest counted"
            ));
        }
        let dropped = self.dropped();
        if dropped > 0 {
            self.inner.transcript.note(format!(
                "webhook receiver: {dropped} notifications answered but not kept (caps of {MAX_DELIVERIES} with an event, {MAX_JUNK_DELIVERIES} without)"
            ));
        }
        let _ = self.stop.send(true);
        self.server.abort();
    }
}

async fn receive(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    if inner.closed.load(Ordering::Relaxed) {
        return StatusCode::SERVICE_UNAVAILABLE;
    }
    let at = Instant::now();
    if let Some(refused) = refuse_request(&inner, at, &method, &uri) {
        return refused;
    }
    match read_body(&inner, at, &headers, body).await {
        Ok(bytes) => keep(&inner, at, &headers, &bytes),
        Err(refused) => refused,
    }
}

/// A request to another path or with another method than POST is recorded
/// and refused.
fn refuse_request(inner: &Inner, at: Instant, method: &Method, uri: &Uri) -> Option<StatusCode> {
    let (summary, status) = if uri.path() != inner.path {
        (
            format!(
                "webhook receiver: {method} {} is not the receiver's path (answered 404)",
                uri.path()
            ),
            StatusCode::NOT_FOUND,
        )
    } else if method != Method::POST {
        (
            format!("webhook receiver: {method} instead of POST (answered 405)"),
            StatusCode::METHOD_NOT_ALLOWED,
        )
    } else {
        return None;
    };
    refusal(inner, at, summary, None);
    Some(status)
}

/// Counts a refused request; records it while few have been refused.
fn refusal(inner: &Inner, at: Instant, summary: String, body: Option<String>) {
    let seen = inner.refused.fetch_add(1, Ordering::Relaxed) + 1;
    if seen <= RECORDED_REFUSALS {
        inner
            .transcript
            .record(RecordKind::Event, at, summary, body, None);
    }
}

/// The body, bounded in size ([`MAX_WEBHOOK_BODY`]) and time ([`BODY_WAIT`]);
/// a body past either bound is recorded and refused.
async fn read_body(
    inner: &Inner,
    at: Instant,
    headers: &HeaderMap,
    body: Body,
) -> Result<axum::body::Bytes, StatusCode> {
    match tokio::time::timeout(BODY_WAIT, to_bytes(body, MAX_WEBHOOK_BODY)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => {
            refusal(
                inner,
                at,
                format!(
                    "webhook POST with a body larger than {} MiB or cut off (answered 413, not kept)",
                    MAX_WEBHOOK_BODY / (1024 * 1024)
                ),
                Some(header_lines(headers, &[])),
            );
            Err(StatusCode::PAYLOAD_TOO_LARGE)
        }
        Err(_) => {
            refusal(
                inner,
                at,
                format!(
                    "webhook POST whose body did not arrive within {} s (answered 408)",
                    BODY_WAIT.as_secs()
                ),
                None,
            );
            Err(StatusCode::REQUEST_TIMEOUT)
        }
    }
}

/// Judges a notification's credentials and body, records it and keeps it
/// (within [`MAX_DELIVERIES`] and [`MAX_JUNK_DELIVERIES`]; others are
/// answered and counted only).
fn keep(inner: &Inner, at: Instant, headers: &HeaderMap, bytes: &[u8]) -> StatusCode {
    let tokens = inner.tokens.lock().map(|t| t.clone()).unwrap_or_default();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let authorization = Credential::judge(text(header::AUTHORIZATION), &tokens, true);
    let token_header = Credential::judge(
        headers.get(TOKEN_HEADER).and_then(|v| v.to_str().ok()),
        &tokens,
        false,
    );
    let (shape, event) = parse_body(bytes);
    let mut deliveries = match inner.deliveries.lock() {
        Ok(d) => d,
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR,
    };
    deliveries.arrived += 1;
    let delivery = Delivery {
        seq: deliveries.arrived,
        at,
        content_type: text(header::CONTENT_TYPE).map(str::to_string),
        bytes: bytes.len(),
        shape,
        event,
        authorization,
        token_header,
    };
    let summary = delivery.describe();
    if !deliveries.keep(delivery) {
        return StatusCode::OK;
    }
    let count = deliveries.arrived;
    drop(deliveries);
    let evidence = format!(
        "{}\n\n{}",
        header_lines(headers, &[authorization, token_header]),
        String::from_utf8_lossy(bytes)
    );
    inner
        .transcript
        .record(RecordKind::Event, at, summary, Some(evidence), None);
    inner.changed.send_replace(count);
    StatusCode::OK
}

/// The request's headers as `name: value` lines, credentials replaced by
/// what was judged about them (`judged`: Authorization, then the token header).
fn header_lines(headers: &HeaderMap, judged: &[Credential]) -> String {
    let mut lines = Vec::new();
    for (name, value) in headers {
        let name = name.as_str();
        let shown = if name == header::AUTHORIZATION.as_str() {
            format!(
                "{} ({})",
                a2a_conform_client::Redactor::MASK,
                judged.first().map(|c| c.words()).unwrap_or("present")
            )
        } else if name == TOKEN_HEADER {
            format!(
                "{} ({})",
                a2a_conform_client::Redactor::MASK,
                judged.get(1).map(|c| c.words()).unwrap_or("present")
            )
        } else if a2a_conform_client::client::SENSITIVE_HEADERS.contains(&name) {
            a2a_conform_client::Redactor::MASK.to_string()
        } else {
            value.to_str().unwrap_or("(not text)").to_string()
        };
        lines.push(format!("{name}: {shown}"));
    }
    lines.join("\n")
}

/// Reads a notification body leniently: a v1.0 StreamResponse, a v0.3
/// `kind`-tagged object, or a bare Task.
pub(crate) fn parse_body(bytes: &[u8]) -> (BodyShape, Option<Event>) {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return (BodyShape::NotJson, None);
    };
    let Some(obj) = value.as_object() else {
        return (BodyShape::Unrecognized, None);
    };
    let shape = if obj.contains_key("kind") {
        BodyShape::Kind
    } else if ["task", "message", "statusUpdate", "artifactUpdate"]
        .iter()
        .any(|k| obj.contains_key(*k))
    {
        BodyShape::StreamResponse
    } else if obj.contains_key("id") && obj.contains_key("status") {
        return (
            BodyShape::BareTask,
            Some(Event::Task(TaskView::from_json(&value))),
        );
    } else {
        return (BodyShape::Unrecognized, None);
    };
    // The version only matters for notes; both shapes are read either way.
    match Event::from_result(ProtocolVersion::V1_0, &value) {
        Event::Unrecognized { .. } => (BodyShape::Unrecognized, None),
        event => (shape, Some(event)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_client::Redactor;
    use serde_json::json;

    fn started() -> (tokio::runtime::Runtime, WebhookReceiver, Arc<Transcript>) {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let transcript = Transcript::new(Arc::new(Redactor::default()));
        let receiver = runtime
            .block_on(WebhookReceiver::start(transcript.clone()))
            .expect("binds 127.0.0.1:0");
        (runtime, receiver, transcript)
    }

    async fn post(url: &str, headers: &[(&str, &str)], body: Vec<u8>) -> u16 {
        let mut request = reqwest::Client::new().post(url).body(body);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = tokio::time::timeout(Duration::from_secs(10), request.send())
            .await
            .expect("answered in time")
            .expect("reaches the receiver");
        response.status().as_u16()
    }

    #[test]
    fn bodies_parse_in_both_versions_shapes() {
        let v1 =
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
        let (shape, event) = parse_body(v1.to_string().as_bytes());
        assert_eq!(shape, BodyShape::StreamResponse);
        assert_eq!(event.unwrap().state().unwrap().as_str(), "completed");
        let v03 = json!({"kind": "task", "id": "t", "status": {"state": "working"}});
        assert_eq!(parse_body(v03.to_string().as_bytes()).0, BodyShape::Kind);
        let bare = json!({"id": "t", "contextId": "c", "status": {"state": "failed"}});
        let (shape, event) = parse_body(bare.to_string().as_bytes());
        assert_eq!(shape, BodyShape::BareTask);
        assert_eq!(event.unwrap().state().unwrap().as_str(), "failed");
        assert_eq!(parse_body(b"{\"hello\":1}").0, BodyShape::Unrecognized);
        assert_eq!(parse_body(b"<html>").0, BodyShape::NotJson);
    }

    #[test]
    fn credentials_are_judged_and_never_recorded() {
        let (runtime, receiver, transcript) = started();
        receiver.expect_token("tok-secret-1");
        let url = receiver.url().to_string();
        let body =
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}});
        let body = body.to_string().into_bytes();
        runtime.block_on(async {
            let ok = [
                ("Authorization", "Bearer tok-secret-1"),
                ("Content-Type", "application/a2a+json"),
            ];
            assert_eq!(post(&url, &ok, body.clone()).await, 200);
            let wrong = [("X-A2A-Notification-Token", "tok-secret-2")];
            assert_eq!(post(&url, &wrong, body.clone()).await, 200);
            assert_eq!(post(&url, &[], body.clone()).await, 200);
        });
        let d = receiver.deliveries();
        assert_eq!(d.len(), 3);
        assert_eq!(
            d[0].authorization,
            Credential::Present {
                matches: Some(true)
            }
        );
        assert_eq!(d[0].token_header, Credential::Absent);
        assert_eq!(
            d[1].token_header,
            Credential::Present {
                matches: Some(false)
            }
        );
        assert_eq!(d[2].authorization, Credential::Absent);
        assert_eq!(d[0].content_type.as_deref(), Some("application/a2a+json"));
        let all = format!("{:?}", transcript.entries());
        assert!(!all.contains("tok-secret"), "{all}");
        assert!(all.contains("matches the token set"), "{all}");
        assert!(all.contains("does NOT match"), "{all}");
    }

    #[test]
    fn other_paths_methods_and_oversized_bodies_are_refused_and_recorded() {
        let (runtime, receiver, transcript) = started();
        let url = receiver.url().to_string();
        let base = url.rsplit_once("/a2a-conform/").unwrap().0.to_string();
        runtime.block_on(async {
            assert_eq!(post(&format!("{base}/elsewhere"), &[], vec![]).await, 404);
            let big = vec![b'x'; MAX_WEBHOOK_BODY + 1];
            assert_eq!(post(&url, &[], big).await, 413);
            let status = reqwest::Client::new()
                .get(&url)
                .send()
                .await
                .unwrap()
                .status();
            assert_eq!(status.as_u16(), 405);
        });
        assert!(receiver.deliveries().is_empty());
        let notes: Vec<String> = transcript
            .entries()
            .into_iter()
            .map(|e| e.summary)
            .collect();
        assert!(notes.iter().any(|n| n.contains("not the receiver's path")));
        assert!(notes.iter().any(|n| n.contains("larger than 1 MiB")));
        assert!(notes.iter().any(|n| n.contains("GET instead of POST")));
    }

    #[test]
    fn a_flood_is_counted_not_recorded_and_does_not_hide_a_real_delivery() {
        let (runtime, receiver, transcript) = started();
        let url = receiver.url().to_string();
        let base = url.rsplit_once("/a2a-conform/").unwrap().0.to_string();
        let event =
            json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}});
        runtime.block_on(async {
            let client = reqwest::Client::new();
            for n in 0..300 {
                let wrong = format!("{base}/elsewhere/{n}");
                assert_eq!(client.post(&wrong).send().await.unwrap().status(), 404);
                let junk = client.post(&url).body("<html>").send().await.unwrap();
                assert_eq!(junk.status(), 200);
            }
            assert_eq!(post(&url, &[], event.to_string().into_bytes()).await, 200);
        });
        assert_eq!(receiver.refused(), 300);
        let kept = receiver.deliveries();
        assert_eq!(kept.len(), MAX_JUNK_DELIVERIES + 1);
        assert_eq!(receiver.dropped(), 300 - MAX_JUNK_DELIVERIES);
        let real = kept.last().unwrap();
        assert_eq!(real.seq, 301, "arrival order counts every notification");
        assert_eq!(
            real.event
                .as_ref()
                .and_then(|e| e.state())
                .unwrap()
                .as_str(),
            "completed"
        );
        drop(receiver);
        let entries = transcript.entries();
        let refusals = entries
            .iter()
            .filter(|e| e.summary.contains("not the receiver's path"))
            .count();
        assert_eq!(refusals, RECORDED_REFUSALS);
        assert!(entries.len() < 60, "{} entries", entries.len());
        let all: Vec<&str> = entries.iter().map(|e| e.summary.as_str()).collect();
        assert!(
            all.iter()
                .any(|s| s.contains("300 requests refused in all")),
            "{all:?}"
        );
        assert!(
            all.iter()
                .any(|s| s.contains("280 notifications answered but not kept")),
            "{all:?}"
        );
    }

    #[test]
    fn past_the_cap_the_latest_deliveries_push_out_the_middle_ones() {
        let mut d = Deliveries::default();
        for n in 1..=MAX_DELIVERIES + 10 {
            d.arrived += 1;
            let (_, event) = parse_body(
                json!({"kind": "task", "id": format!("t{n}"), "status": {"state": "working"}})
                    .to_string()
                    .as_bytes(),
            );
            assert!(d.keep(Delivery {
                seq: n,
                at: Instant::now(),
                content_type: None,
                bytes: 0,
                shape: BodyShape::Kind,
                event,
                authorization: Credential::Absent,
                token_header: Credential::Absent,
            }));
        }
        assert_eq!(d.kept.len(), MAX_DELIVERIES);
        assert_eq!(d.dropped, 10);
        assert_eq!(d.kept[0].seq, 1);
        assert_eq!(d.kept.last().unwrap().seq, MAX_DELIVERIES + 10);
        assert_eq!(d.kept[MAX_DELIVERIES / 2].seq, MAX_DELIVERIES / 2 + 11);
    }

    #[test]
    fn waits_are_bounded_and_wake_on_a_delivery() {
        let (runtime, receiver, _) = started();
        let url = receiver.url().to_string();
        runtime.block_on(async {
            let t0 = Instant::now();
            let got = receiver
                .wait_until(Instant::now() + Duration::from_millis(200), |d| {
                    !d.is_empty()
                })
                .await;
            assert!(!got);
            assert!(t0.elapsed() >= Duration::from_millis(190));
            let poster = tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                post(&url, &[], b"{}".to_vec()).await
            });
            let got = receiver
                .wait_until(Instant::now() + Duration::from_secs(10), |d| !d.is_empty())
                .await;
            assert!(got);
            assert_eq!(poster.await.unwrap(), 200);
        });
    }

    #[test]
    fn dropping_the_receiver_stops_the_server() {
        let (runtime, receiver, _) = started();
        let url = receiver.url().to_string();
        drop(receiver);
        runtime.block_on(async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let result = reqwest::Client::new()
                .post(&url)
                .timeout(Duration::from_secs(5))
                .send()
                .await;
            assert!(result.is_err(), "the receiver still answers: {result:?}");
        });
    }
}
