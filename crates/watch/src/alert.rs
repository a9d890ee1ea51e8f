//! Drift alerts: the body POSTed to `--alert-webhook` for each regression
//! the history store reports, in the documented JSON shape ([`Alert`]) or
//! a Slack-compatible `{"text": …}`, redacted by value, and delivered with
//! bounded retries and backoff, [`IN_FLIGHT`] at a time. A webhook that
//! stays down is counted ([`Delivery::failed`]), never an error that stops
//! the watch; a stop abandons what is left ([`Delivery::abandoned`]): the
//! cycle is recorded before its alerts are sent, so nothing is lost.

use a2a_conform_client::redact::Redactor;
use a2a_conform_history::Regression;
use a2a_conform_report::inert;
use futures_util::{stream, StreamExt};
use serde::Serialize;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use url::Url;

/// The alert body's shape on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    /// [`Alert`] as JSON (documented by its JSON Schema in docs/watch.md).
    #[default]
    Json,
    /// `{"text": "…"}`, what a Slack incoming webhook takes.
    Slack,
}

/// One regression as an alert: the JSON body of [`Format::Json`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alert {
    /// `verdict` (a declaration regressed) or `card` (the card changed).
    pub kind: &'static str,
    /// The peer's card URL.
    pub peer: String,
    /// The declaration id; `null` for a card change.
    pub declaration: Option<String>,
    /// The verdict (or card digest) before; `null` for an unreadable card.
    pub before: Option<String>,
    /// The verdict (or card digest) after.
    pub after: Option<String>,
    /// The history record holding the evidence.
    pub record: i64,
    /// Where the evidence is: `--evidence-base` + record, or `record:N`.
    pub evidence: String,
}

fn verdict_name(verdict: impl Serialize) -> Option<String> {
    serde_json::to_value(verdict)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
}

impl Alert {
    /// The alert for a regression. With `evidence_base` (a dashboard's
    /// URL) the evidence link is the dashboard's page of the peer showing
    /// that record's report, `BASE/peer/{peer}?record=N` (the peer's URL
    /// percent-encoded as one path segment); else `record:N`.
    pub fn from_regression(regression: &Regression, evidence_base: Option<&Url>) -> Alert {
        let (Regression::Verdict { peer, record, .. }
        | Regression::CardChanged { peer, record, .. }) = regression;
        let evidence = match evidence_base {
            Some(base) => evidence_link(base, peer, *record),
            None => format!("record:{record}"),
        };
        match regression {
            Regression::Verdict {
                peer,
                declaration,
                before,
                after,
                record,
            } => Alert {
                kind: "verdict",
                peer: peer.clone(),
                declaration: Some(declaration.clone()),
                before: verdict_name(before),
                after: verdict_name(after),
                record: *record,
                evidence: evidence.clone(),
            },
            Regression::CardChanged {
                peer,
                before,
                after,
                record,
            } => Alert {
                kind: "card",
                peer: peer.clone(),
                declaration: None,
                before: before.clone(),
                after: after.clone(),
                record: *record,
                evidence: evidence.clone(),
            },
        }
    }

    /// The body in `format`, with every secret replaced by value.
    pub fn body(&self, format: Format, redactor: &Redactor) -> serde_json::Value {
        let value = match format {
            Format::Json => serde_json::to_value(self).unwrap_or(serde_json::Value::Null),
            Format::Slack => serde_json::json!({ "text": self.slack_text(redactor) }),
        };
        redactor.redact_value(value)
    }

    /// The Slack `text`: every field redacted first (an escaped secret
    /// would no longer be found), then made inert — the declaration (a
    /// peer's skill id may be in it) and the peer's URL as code spans, in
    /// which Slack formats nothing, the rest with `&`, `<`, `>` escaped —
    /// so no peer text can ping a channel, disguise a link or format.
    fn slack_text(&self, redactor: &Redactor) -> String {
        let code = |text: &str| inert::slack_code(&redactor.redact(text));
        let text = |text: Option<&str>| inert::slack_text(&redactor.redact(text.unwrap_or("none")));
        let what = match &self.declaration {
            Some(declaration) => code(declaration),
            None => "the card".to_string(),
        };
        format!(
            "a2a-conform: {what} regressed on {}: {} → {} ({})",
            code(&self.peer),
            text(self.before.as_deref()),
            text(self.after.as_deref()),
            text(Some(&self.evidence)),
        )
    }
}

/// `BASE/peer/{peer}?record=N`: the dashboard's page of `peer` showing
/// `record`'s report of it.
fn evidence_link(base: &Url, peer: &str, record: i64) -> String {
    let mut link = base.clone();
    if let Ok(mut path) = link.path_segments_mut() {
        path.pop_if_empty().push("peer").push(peer);
    }
    link.set_fragment(None);
    link.query_pairs_mut()
        .clear()
        .append_pair("record", &record.to_string());
    link.to_string()
}

/// How many times an alert is tried, and the first backoff (doubled each
/// retry).
#[derive(Debug, Clone, Copy)]
pub struct Retry {
    /// Attempts in all (at least one).
    pub attempts: u32,
    /// The wait before the second attempt.
    pub backoff: Duration,
}

impl Default for Retry {
    fn default() -> Retry {
        Retry {
            attempts: 4,
            backoff: Duration::from_millis(500),
        }
    }
}

/// Alerts delivered at once. One at a time, a webhook that never answers
/// held a fleet-wide outage's 24 alerts for 262 s (each ~43 s: 4 timeouts
/// and the backoff); at once without a bound, a large outage would open a
/// connection per regression to one receiver.
pub const IN_FLIGHT: usize = 8;

/// What delivering a batch of alerts came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Delivery {
    /// Alerts the webhook accepted (a 2xx answer).
    pub sent: u64,
    /// Alerts given up on after every attempt.
    pub failed: u64,
    /// Alerts not delivered because the watch was stopped first (those in
    /// flight are dropped, the rest never tried).
    pub abandoned: u64,
}

impl Delivery {
    /// Alerts that did not reach the webhook, whatever the reason.
    pub fn undelivered(&self) -> u64 {
        self.failed + self.abandoned
    }

    /// This delivery and `other` together.
    pub fn add(&mut self, other: Delivery) {
        self.sent += other.sent;
        self.failed += other.failed;
        self.abandoned += other.abandoned;
    }
}

/// POSTs each body to `url`, [`IN_FLIGHT`] at a time, each with up to
/// `retry.attempts` tries; a 2xx answer is delivered, anything else
/// (refused, timeout, 4xx/5xx) is retried and then counted as failed. Once
/// `stop` is cancelled nothing more is tried or waited for: the requests in
/// flight are dropped and every alert not yet settled is abandoned.
pub async fn deliver(
    client: &reqwest::Client,
    url: &Url,
    bodies: &[serde_json::Value],
    retry: Retry,
    stop: &CancellationToken,
) -> Delivery {
    let mut outcome = Delivery::default();
    let mut pending = stream::iter(bodies)
        .map(|body| deliver_one(client, url, body, retry))
        .buffer_unordered(IN_FLIGHT);
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            next = pending.next() => match next {
                Some(true) => outcome.sent += 1,
                Some(false) => outcome.failed += 1,
                None => break,
            },
        }
    }
    let settled = outcome.sent + outcome.failed;
    outcome.abandoned = (bodies.len() as u64).saturating_sub(settled);
    outcome
}

/// One alert, tried until a 2xx answer or `retry.attempts` tries.
async fn deliver_one(
    client: &reqwest::Client,
    url: &Url,
    body: &serde_json::Value,
    retry: Retry,
) -> bool {
    let mut wait = retry.backoff;
    for attempt in 0..retry.attempts.max(1) {
        if attempt > 0 {
            tokio::time::sleep(wait).await;
            wait = wait.saturating_mul(2);
        }
        let answer = client.post(url.clone()).json(body).send().await;
        if answer.is_ok_and(|a| a.status().is_success()) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_report::DeclarationVerdict;

    fn regression() -> Regression {
        Regression::Verdict {
            peer: "http://peer.example/?token=s3cret".into(),
            declaration: "lifecycle.cancel".into(),
            before: DeclarationVerdict::Honoured,
            after: DeclarationVerdict::Diverged,
            record: 7,
        }
    }

    #[test]
    fn the_json_body_names_peer_declaration_before_after_and_evidence() {
        let base = Url::parse("http://dash/").unwrap();
        let alert = Alert::from_regression(&regression(), Some(&base));
        // The dashboard's page of the peer (one path segment) at record 7.
        assert_eq!(
            alert.evidence,
            "http://dash/peer/http:%2F%2Fpeer.example%2F%3Ftoken=s3cret?record=7"
        );
        let body = alert.body(Format::Json, &Redactor::new(["s3cret".to_string()]));
        assert_eq!(body["kind"], "verdict");
        assert_eq!(body["declaration"], "lifecycle.cancel");
        assert_eq!(body["before"], "honoured");
        assert_eq!(body["after"], "diverged");
        let evidence = body["evidence"].as_str().unwrap_or_default();
        assert!(
            evidence.starts_with("http://dash/peer/http:%2F%2Fpeer.example"),
            "{body}"
        );
        assert!(evidence.ends_with("?record=7"), "{body}");
        assert!(!body.to_string().contains("s3cret"), "{body}");
        // A dashboard under a path keeps it; a query or fragment of the base is dropped.
        let base = Url::parse("https://ops.example/a2a?x=1#top").unwrap();
        let alert = Alert::from_regression(&regression(), Some(&base));
        assert!(
            alert
                .evidence
                .starts_with("https://ops.example/a2a/peer/http:%2F%2F")
                && alert.evidence.ends_with("?record=7"),
            "{}",
            alert.evidence
        );
    }

    #[test]
    fn the_slack_body_is_one_redacted_text() {
        let alert = Alert::from_regression(&regression(), None);
        let body = alert.body(Format::Slack, &Redactor::new(["s3cret".to_string()]));
        let text = body["text"].as_str().unwrap_or_default();
        assert!(text.contains("`lifecycle.cancel` regressed"), "{text}");
        assert!(text.contains("honoured → diverged (record:7)"), "{text}");
        assert!(!text.contains("s3cret"), "{text}");
    }

    #[test]
    fn the_slack_body_shows_peer_text_inert_and_still_redacted() {
        let hostile = Regression::Verdict {
            peer: "http://peer.example/<!here>?token=s3cr&t".into(),
            declaration: "skills[<!channel> <https://e.vil|Click> & *b* `x`].inputModes[a]".into(),
            before: DeclarationVerdict::Honoured,
            after: DeclarationVerdict::Unverified,
            record: 2,
        };
        let alert = Alert::from_regression(&hostile, None);
        let body = alert.body(Format::Slack, &Redactor::new(["s3cr&t".to_string()]));
        let text = body["text"].as_str().unwrap_or_default();
        assert!(!text.contains('<') && !text.contains('>'), "{text}");
        assert!(
            !text
                .replace("&amp;", "")
                .replace("&lt;", "")
                .replace("&gt;", "")
                .contains('&'),
            "{text}"
        );
        assert!(!text.contains("s3cr"), "{text}");
        assert!(
            text.starts_with("a2a-conform: `skills[&lt;!channel&gt; &lt;https://e.vil|Click&gt; &amp; *b* \\u{60}x\\u{60}].inputModes[a]` regressed on `http://peer.example/&lt;!here&gt;?token=«redacted»`"),
            "{text}"
        );
        // The JSON body keeps the peer's exact text: its consumer escapes.
        let json = alert.body(Format::Json, &Redactor::default());
        assert_eq!(
            json["declaration"],
            "skills[<!channel> <https://e.vil|Click> & *b* `x`].inputModes[a]"
        );
    }

    #[tokio::test]
    async fn a_down_webhook_is_counted_not_fatal() {
        // A port bound then dropped: connections are refused.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .unwrap_or(9);
        let retry = Retry {
            attempts: 2,
            backoff: Duration::from_millis(10),
        };
        let bodies = [serde_json::json!({"text": "x"})];
        let url = Url::parse(&format!("http://127.0.0.1:{port}/hook")).expect("a URL");
        let stop = CancellationToken::new();
        let outcome = deliver(&reqwest::Client::new(), &url, &bodies, retry, &stop).await;
        let failed = Delivery {
            failed: 1,
            ..Delivery::default()
        };
        assert_eq!(outcome, failed);
    }

    /// A receiver that accepts connections and never answers.
    fn silent() -> (std::net::TcpListener, Url) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("its address");
        let url = Url::parse(&format!("http://{addr}/hook")).expect("a URL");
        (listener, url)
    }

    #[tokio::test]
    async fn alerts_to_a_silent_webhook_wait_together_not_one_after_another() {
        let (_listener, url) = silent();
        let client = reqwest::Client::builder()
            .timeout(Duration::from_millis(300))
            .build()
            .expect("a client");
        let retry = Retry {
            attempts: 1,
            backoff: Duration::ZERO,
        };
        let bodies = vec![serde_json::json!({"text": "x"}); IN_FLIGHT];
        let started = std::time::Instant::now();
        let outcome = deliver(&client, &url, &bodies, retry, &CancellationToken::new()).await;
        assert_eq!(outcome.failed, IN_FLIGHT as u64);
        // One after another: IN_FLIGHT × 300 ms = 2.4 s.
        assert!(
            started.elapsed() < Duration::from_millis(1500),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn a_stop_abandons_what_is_left_at_once() {
        let (_listener, url) = silent();
        let bodies = vec![serde_json::json!({"text": "x"}); IN_FLIGHT * 3];
        let stop = CancellationToken::new();
        let cancel = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            cancel.cancel();
        });
        // No client timeout: only the stop can end these requests.
        let client = reqwest::Client::new();
        let delivery = deliver(&client, &url, &bodies, Retry::default(), &stop);
        let outcome = tokio::time::timeout(Duration::from_secs(10), delivery)
            .await
            .expect("the delivery ended within 10 s of its start");
        let abandoned = Delivery {
            abandoned: bodies.len() as u64,
            ..Delivery::default()
        };
        assert_eq!(outcome, abandoned);
        assert_eq!(outcome.undelivered(), bodies.len() as u64);
    }
}
