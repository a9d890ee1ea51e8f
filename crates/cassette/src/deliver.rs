//! Webhook deliveries under replay. When a check registers its webhook
//! receiver with the replay (a push config, or one inline on a send), the
//! notifications the recorded run's receiver got are POSTed to the URL the
//! check gave *this* time: in their recorded order, at their recorded
//! offsets from the registering request (scaled by the pace), with their
//! recorded bodies (the fresh values the check made put back in) and
//! content type. The recording masked the credentials; they are rebuilt
//! from the token the check's own request carries, so the receiver judges
//! them as it judged the recorded ones (matching, not matching, absent).
//!
//! Both the cassette and the request are untrusted input: deliveries go
//! only to an `http` URL on a loopback address literal (127.0.0.0/8, ::1),
//! never through a proxy, never following a redirect.

use crate::model::Entry;
use crate::recorded::{clip, clipped, swapped, Pace, WEBHOOK_PATH};
use serde_json::Value;
use std::time::Duration;
use tokio::sync::watch;

/// What a kept notification's evidence summary starts with (the engine's
/// receiver); its refusals (other paths, methods, oversized bodies) are
/// recorded too but not replayed.
const DELIVERY_PREFIX: &str = "webhook POST #";

/// How long one delivery may take, as the mock and the SDKs bound theirs.
const POST_TIMEOUT: Duration = Duration::from_secs(10);

/// A credential the check does not hold, for a recorded credential that
/// did not match the token set (or met no token to match).
const OTHER_CREDENTIAL: &str = "a2a-conform-replay-not-the-token";

/// Why the recorded deliveries cannot be made: a replay miss's words
/// (the cassette and the request are untrusted, so each is named).
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum Undeliverable {
    /// The recording delivers, yet this request gives no webhook URL.
    #[error("the request names no webhook URL, yet the recording delivers to one")]
    NoUrl,
    /// The URL is not `http` on a loopback address literal.
    #[error(
        "the webhook URL `{url}` {why}: a replay delivers only to http://127.0.0.1 or http://[::1]"
    )]
    NotLoopback {
        /// The URL, shortened.
        url: String,
        /// What it is instead.
        why: &'static str,
    },
    /// The recording clipped a notification to the evidence cap.
    #[error(
        "the recording clipped {which} (a report's evidence cap), so it cannot be delivered whole"
    )]
    Clipped {
        /// Which notification.
        which: String,
    },
    /// The HTTP client could not be made.
    #[error("cannot make the webhook client: {0}")]
    Client(String),
}

/// How the recorded receiver judged a credential header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Credential {
    Absent,
    /// It carried the token the check set.
    Matching,
    /// It carried something else, or no token was set to compare.
    Other,
}

impl Credential {
    /// From the receiver's masked header line value (`«redacted» (present,
    /// matches the token set)`).
    fn judged(value: Option<&str>) -> Credential {
        match value {
            None => Credential::Absent,
            Some(v) if v.contains("(present, matches the token set)") => Credential::Matching,
            Some(_) => Credential::Other,
        }
    }

    /// The value to send, from the token the check set this time.
    fn value(self, token: Option<&str>) -> Option<&str> {
        match (self, token) {
            (Credential::Absent, _) => None,
            (Credential::Matching, Some(token)) => Some(token),
            _ => Some(OTHER_CREDENTIAL),
        }
    }
}

/// One recorded notification, ready to send again.
#[derive(Debug, Clone, PartialEq)]
struct Notification {
    /// Its offset from the registering request, as recorded.
    after_ms: u64,
    content_type: Option<String>,
    authorization: Credential,
    token_header: Credential,
    body: String,
}

/// The deliveries one registering request starts: where, with which
/// token, what.
#[derive(Debug)]
pub(crate) struct Deliveries {
    url: url::Url,
    token: Option<String>,
    notifications: Vec<Notification>,
}

/// Whether a run's entry is a notification the receiver kept.
pub(crate) fn is_delivery(entry: &Entry) -> bool {
    entry.summary.starts_with(DELIVERY_PREFIX)
}

/// The deliveries a registering request (recorded at `request_at`) starts,
/// or why they cannot be made (the miss's words, without run and step):
/// a notification the recording clipped, or a webhook URL that is not an
/// http URL on loopback. `None` when nothing was delivered.
pub(crate) fn plan(
    recorded: &[Entry],
    request_at: u64,
    incoming: Option<&Value>,
    swaps: &[(String, String)],
) -> Result<Option<Deliveries>, Undeliverable> {
    if recorded.is_empty() {
        return Ok(None);
    }
    let Some(url) = incoming.and_then(webhook_url) else {
        return Err(Undeliverable::NoUrl);
    };
    let url = loopback(&url)?;
    let notifications = recorded
        .iter()
        .map(|entry| notification(entry, request_at, swaps))
        .collect::<Result<Vec<_>, _>>()?;
    let token = incoming.and_then(|body| text_at(body, "token").or(text_at(body, "credentials")));
    Ok(Some(Deliveries {
        url,
        token,
        notifications,
    }))
}

/// The recorded notification `entry` (`headers\n\nbody`), its fresh values
/// swapped in; refused when the recording clipped it.
fn notification(
    entry: &Entry,
    request_at: u64,
    swaps: &[(String, String)],
) -> Result<Notification, Undeliverable> {
    let recorded = entry.body.as_deref().unwrap_or_default();
    let (headers, body) = recorded.split_once("\n\n").unwrap_or(("", recorded));
    if clipped(body) {
        let which = entry
            .summary
            .split(' ')
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        return Err(Undeliverable::Clipped { which });
    }
    let header = |name: &str| {
        headers.lines().find_map(|line| {
            let (key, value) = line.split_once(": ")?;
            key.eq_ignore_ascii_case(name).then_some(value)
        })
    };
    Ok(Notification {
        after_ms: entry.at_ms.saturating_sub(request_at),
        content_type: header("content-type").map(str::to_string),
        authorization: Credential::judged(header("authorization")),
        token_header: Credential::judged(header("x-a2a-notification-token")),
        body: swapped(body, swaps),
    })
}

/// The webhook receiver URL a request carries (the first string naming
/// the receiver's path).
fn webhook_url(body: &Value) -> Option<String> {
    match body {
        Value::String(s) if s.contains(WEBHOOK_PATH) => Some(s.clone()),
        Value::Array(items) => items.iter().find_map(webhook_url),
        Value::Object(map) => map.values().find_map(webhook_url),
        _ => None,
    }
}

/// The first string under key `key`, at any depth.
fn text_at(body: &Value, key: &str) -> Option<String> {
    match body {
        Value::Object(map) => map
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| map.values().find_map(|v| text_at(v, key))),
        Value::Array(items) => items.iter().find_map(|v| text_at(v, key)),
        _ => None,
    }
}

/// `url` if it is an `http` URL on a loopback address literal. A name
/// (even `localhost`) is refused: it could resolve anywhere.
pub(crate) fn loopback(url: &str) -> Result<url::Url, Undeliverable> {
    let refuse = |why: &'static str| {
        Err(Undeliverable::NotLoopback {
            url: clip(url),
            why,
        })
    };
    let Ok(parsed) = url::Url::parse(url) else {
        return refuse("is not a URL");
    };
    if parsed.scheme() != "http" {
        return refuse("is not an http URL");
    }
    match parsed.host() {
        Some(url::Host::Ipv4(ip)) if ip.is_loopback() => Ok(parsed),
        Some(url::Host::Ipv6(ip)) if ip.is_loopback() => Ok(parsed),
        _ => refuse("is not on a loopback address"),
    }
}

/// The client deliveries are POSTed with: no proxy (an environment's proxy
/// would carry a loopback URL elsewhere), no redirects, bounded.
pub(crate) fn client() -> Result<reqwest::Client, Undeliverable> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(POST_TIMEOUT)
        .build()
        .map_err(|e| Undeliverable::Client(e.to_string()))
}

/// POSTs `deliveries` one after the other, each at its offset (scaled by
/// `pace`) from now; stops when the replay does.
pub(crate) fn start(
    deliveries: Deliveries,
    client: reqwest::Client,
    pace: Pace,
    mut stopped: watch::Receiver<bool>,
) {
    let started = tokio::time::Instant::now();
    tokio::spawn(async move {
        let token = deliveries.token.as_deref();
        for n in &deliveries.notifications {
            let mut request = client.post(deliveries.url.clone()).body(n.body.clone());
            if let Some(content_type) = &n.content_type {
                request = request.header(reqwest::header::CONTENT_TYPE, content_type);
            }
            if let Some(credentials) = n.authorization.value(token) {
                request = request.header(
                    reqwest::header::AUTHORIZATION,
                    format!("Bearer {credentials}"),
                );
            }
            if let Some(credentials) = n.token_header.value(token) {
                request = request.header("x-a2a-notification-token", credentials);
            }
            let due = started + pace.delay(n.after_ms);
            // One at a time, in order: a receiver numbers what it gets.
            let sent = async move {
                tokio::time::sleep_until(due).await;
                // The receiver's answer is its own business, as a peer's would be.
                let _ = request.send().await;
            };
            tokio::select! {
                _ = sent => {}
                _ = stopped.wait_for(|down| *down) => return,
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn delivery(at_ms: u64, headers: &str, body: &str) -> Entry {
        Entry {
            at_ms,
            kind: "event".into(),
            summary: "webhook POST #1 (application/a2a+json, 90 bytes): status working".into(),
            body: Some(format!("{headers}\n\n{body}")),
            curl: None,
        }
    }

    fn config(url: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 4, "method": "CreateTaskPushNotificationConfig",
            "params": {"taskId": "t-1", "url": url, "token": "tok-fresh-1234",
                "authentication": {"scheme": "Bearer", "credentials": "tok-fresh-1234"}}})
    }

    #[test]
    fn deliveries_keep_their_offsets_bodies_and_judged_credentials() {
        let recorded = [delivery(
            1500,
            "content-type: application/a2a+json\nauthorization: «redacted» (present, matches the token set)",
            r#"{"statusUpdate":{"taskId":"t-1","status":{"state":"TASK_STATE_WORKING"},"x":"a2a-conform-old-1"}}"#,
        )];
        let swaps = [(
            "a2a-conform-old-1".to_string(),
            "a2a-conform-new-2".to_string(),
        )];
        let incoming = config("http://127.0.0.1:4321/a2a-conform/webhook/abc");
        let plan = plan(&recorded, 1000, Some(&incoming), &swaps)
            .unwrap()
            .unwrap();
        assert_eq!(
            plan.url.as_str(),
            "http://127.0.0.1:4321/a2a-conform/webhook/abc"
        );
        assert_eq!(plan.token.as_deref(), Some("tok-fresh-1234"));
        let n = &plan.notifications[0];
        assert_eq!(n.after_ms, 500);
        assert_eq!(n.content_type.as_deref(), Some("application/a2a+json"));
        assert_eq!(
            n.authorization.value(plan.token.as_deref()),
            Some("tok-fresh-1234")
        );
        assert_eq!(n.token_header, Credential::Absent);
        assert!(n.body.contains("a2a-conform-new-2"), "{}", n.body);
        let other = Credential::judged(Some("«redacted» (present, does NOT match the token set)"));
        assert_eq!(other.value(Some("tok-fresh-1234")), Some(OTHER_CREDENTIAL));
    }

    #[test]
    fn only_loopback_address_literals_over_http_are_delivered_to() {
        for url in [
            "http://127.0.0.1:9/h",
            "http://127.8.0.1/h",
            "http://[::1]:9/h",
        ] {
            assert!(loopback(url).is_ok(), "{url}");
        }
        for url in [
            "http://localhost:9/h",
            "http://example.com/a2a-conform/webhook/x",
            "http://10.0.0.1/h",
            "https://127.0.0.1/h",
            "file:///etc/passwd",
            "http://[::ffff:8.8.8.8]/h",
            "not a url",
        ] {
            let e = loopback(url).unwrap_err().to_string();
            assert!(e.contains("delivers only to"), "{url}: {e}");
        }
        let recorded = [delivery(10, "", "{}")];
        let hostile = config("http://203.0.113.9/a2a-conform/webhook/abc");
        let e = plan(&recorded, 0, Some(&hostile), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("203.0.113.9") && e.contains("loopback"), "{e}");
    }

    #[test]
    fn a_clipped_notification_cannot_be_delivered() {
        let recorded = [delivery(10, "", "{\"task\":… [5000 more bytes]")];
        let incoming = config("http://127.0.0.1:9/a2a-conform/webhook/abc");
        let e = plan(&recorded, 0, Some(&incoming), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("clipped webhook POST #1"), "{e}");
        assert!(plan(&[], 0, Some(&incoming), &[]).unwrap().is_none());
    }
}
