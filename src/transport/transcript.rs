//! The evidence transcript every exchange of a scenario run is recorded in,
//! each entry redacted ([`crate::redact`]) as it is recorded. The entries themselves
//! are report schema ([`crate::report::transcript`]).

use super::limits::EVIDENCE_BODY_CHARS;
use super::text::clip;
pub use crate::redact::Redactor;
use crate::report::transcript::{Evidence, EvidenceKind};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The evidence of one scenario run, shared by its steps and stream readers.
#[derive(Debug)]
pub struct Transcript {
    start: Instant,
    redactor: Arc<Redactor>,
    /// Secrets the run itself introduced (a push token): the run's redactor
    /// is the peer's, plus these.
    run_redactor: Mutex<Option<Redactor>>,
    entries: Mutex<Vec<Evidence>>,
}

impl Transcript {
    pub fn new(redactor: Arc<Redactor>) -> Arc<Transcript> {
        Arc::new(Transcript {
            start: Instant::now(),
            redactor,
            run_redactor: Mutex::new(None),
            entries: Mutex::new(Vec::new()),
        })
    }

    /// Adds a secret of this run: from now on it is masked in everything
    /// recorded and in [`Transcript::redact`].
    pub fn add_secret(&self, secret: impl Into<String>) {
        if let Ok(mut run) = self.run_redactor.lock() {
            let mut secrets = self.redactor.secrets().to_vec();
            if let Some(r) = run.as_ref() {
                secrets.extend(r.secrets().iter().cloned());
            }
            secrets.push(secret.into());
            secrets.dedup();
            *run = Some(Redactor::new(secrets));
        }
    }

    /// Masks every secret the run knows: the peer's and the run's own.
    pub fn redact(&self, text: &str) -> String {
        match self
            .run_redactor
            .lock()
            .ok()
            .as_deref()
            .and_then(Option::as_ref)
        {
            Some(run) => run.redact(text),
            None => self.redactor.redact(text),
        }
    }

    pub fn start(&self) -> Instant {
        self.start
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The offset of an instant from the run's start.
    pub fn offset(&self, at: Instant) -> Duration {
        at.saturating_duration_since(self.start)
    }

    pub fn record(
        &self,
        kind: EvidenceKind,
        at: Instant,
        summary: impl Into<String>,
        body: Option<String>,
        curl: Option<String>,
    ) {
        let entry = Evidence {
            at_ms: self.offset(at).as_millis() as u64,
            kind,
            summary: self.redact(&summary.into()),
            // Redacted before clipping, so a cut never leaves half a secret.
            body: body.map(|b| clip(&self.redact(&b), EVIDENCE_BODY_CHARS)),
            curl: curl.map(|c| self.redact(&c)),
        };
        if let Ok(mut entries) = self.entries.lock() {
            entries.push(entry);
        }
    }

    pub fn note(&self, summary: impl Into<String>) {
        self.record(EvidenceKind::Note, Instant::now(), summary, None, None);
    }

    pub fn entries(&self) -> Vec<Evidence> {
        let mut entries = self.entries.lock().map(|e| e.clone()).unwrap_or_default();
        entries.sort_by_key(|e| e.at_ms);
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_redacts_bodies_and_curl() {
        let t = Transcript::new(Arc::new(Redactor::new(vec!["hunter22".to_string()])));
        t.record(
            EvidenceKind::Request,
            Instant::now(),
            "POST with hunter22",
            Some("{\"token\":\"hunter22\"}".into()),
            Some("curl -H 'Authorization: Bearer hunter22'".into()),
        );
        let e = &t.entries()[0];
        assert!(!e.summary.contains("hunter22"));
        assert!(!e.body.as_ref().unwrap().contains("hunter22"));
        assert!(!e.curl.as_ref().unwrap().contains("hunter22"));
    }

    #[test]
    fn secrets_added_during_a_run_are_masked_from_then_on() {
        let t = Transcript::new(Arc::new(Redactor::new(vec!["peer-secret".to_string()])));
        t.add_secret("run-token-1");
        t.record(
            EvidenceKind::Event,
            Instant::now(),
            "token run-token-1 and peer-secret",
            Some("{\"token\":\"run-token-1\"}".into()),
            None,
        );
        let e = &t.entries()[0];
        assert!(!e.summary.contains("run-token-1"), "{}", e.summary);
        assert!(!e.summary.contains("peer-secret"), "{}", e.summary);
        assert!(!e.body.as_ref().unwrap().contains("run-token-1"));
        assert_eq!(
            t.redact("run-token-1"),
            Redactor::MASK,
            "messages are masked too"
        );
    }
}
