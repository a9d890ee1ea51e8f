//! The evidence transcript every exchange of a scenario run is recorded in,
//! each entry redacted ([`crate::redact`]) as it is recorded. The entries themselves
//! are report schema ([`crate::report::transcript`]).
//!
//! A run's evidence is bounded whatever the peer sends: the first
//! [`EVIDENCE_HEAD`] and the last [`EVIDENCE_TAIL`] entries are kept, the ones
//! between are counted and stand as one [`EvidenceKind::Elided`] entry.

use super::limits::{EVIDENCE_BODY_CHARS, EVIDENCE_CURL_CHARS, EVIDENCE_HEAD, EVIDENCE_TAIL};
use super::text::clip;
pub use crate::redact::Redactor;
use crate::report::transcript::{Evidence, EvidenceKind};
use std::collections::VecDeque;
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
    entries: Mutex<Kept>,
}

/// The entries a run keeps: its first ones, its last ones, and how many
/// fell between.
#[derive(Debug, Default)]
struct Kept {
    head: Vec<Evidence>,
    tail: VecDeque<Evidence>,
    elided: u64,
    /// When the latest elided entry happened (ms from the run's start).
    elided_at_ms: u64,
}

impl Kept {
    fn push(&mut self, entry: Evidence) {
        if self.head.len() < EVIDENCE_HEAD {
            self.head.push(entry);
            return;
        }
        self.tail.push_back(entry);
        if self.tail.len() > EVIDENCE_TAIL {
            if let Some(out) = self.tail.pop_front() {
                self.elided += 1;
                self.elided_at_ms = self.elided_at_ms.max(out.at_ms);
            }
        }
    }
}

impl Transcript {
    pub fn new(redactor: Arc<Redactor>) -> Arc<Transcript> {
        Arc::new(Transcript {
            start: Instant::now(),
            redactor,
            run_redactor: Mutex::new(None),
            entries: Mutex::new(Kept::default()),
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
            // Redacted before clipping, so a cut never leaves half a secret;
            // clipped so an entry is bounded whatever the peer sent.
            summary: clip(&self.redact(&summary.into()), EVIDENCE_BODY_CHARS),
            body: body.map(|b| clip(&self.redact(&b), EVIDENCE_BODY_CHARS)),
            curl: curl.map(|c| clip(&self.redact(&c), EVIDENCE_CURL_CHARS)),
        };
        if let Ok(mut kept) = self.entries.lock() {
            kept.push(entry);
        }
    }

    pub fn note(&self, summary: impl Into<String>) {
        self.record(EvidenceKind::Note, Instant::now(), summary, None, None);
    }

    /// The kept entries in time order, with one [`EvidenceKind::Elided`]
    /// entry standing for those left out, if any were.
    pub fn entries(&self) -> Vec<Evidence> {
        let Ok(kept) = self.entries.lock() else {
            return Vec::new();
        };
        let mut entries = kept.head.clone();
        if kept.elided > 0 {
            entries.push(Evidence {
                at_ms: kept.elided_at_ms,
                kind: EvidenceKind::Elided,
                summary: format!(
                    "… {} entries elided: a run's evidence keeps its first {EVIDENCE_HEAD} and last {EVIDENCE_TAIL} entries",
                    kept.elided
                ),
                body: None,
                curl: None,
            });
        }
        entries.extend(kept.tail.iter().cloned());
        // Stable: the elided entry stays before tail entries of the same instant.
        entries.sort_by_key(|e| e.at_ms);
        entries
    }

    /// How many entries were left out (neither among the first nor the last kept).
    pub fn elided(&self) -> u64 {
        self.entries.lock().map(|k| k.elided).unwrap_or(0)
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
    fn evidence_keeps_the_first_and_last_entries_and_counts_the_rest() {
        let t = Transcript::new(Arc::new(Redactor::default()));
        let at = t.start();
        for n in 0..10_000 {
            t.record(
                EvidenceKind::Comment,
                at + Duration::from_millis(n),
                format!("entry {n}"),
                None,
                None,
            );
        }
        let entries = t.entries();
        assert_eq!(entries.len(), EVIDENCE_HEAD + 1 + EVIDENCE_TAIL);
        assert_eq!(t.elided(), (10_000 - EVIDENCE_HEAD - EVIDENCE_TAIL) as u64);
        assert_eq!(entries[0].summary, "entry 0");
        assert_eq!(entries[EVIDENCE_HEAD - 1].summary, "entry 49");
        let marker = &entries[EVIDENCE_HEAD];
        assert_eq!(marker.kind, EvidenceKind::Elided);
        assert!(
            marker.summary.contains("9900 entries elided"),
            "{}",
            marker.summary
        );
        assert_eq!(entries[EVIDENCE_HEAD + 1].summary, "entry 9950");
        assert_eq!(entries.last().unwrap().summary, "entry 9999");
    }

    #[test]
    fn a_short_run_keeps_everything_without_a_marker() {
        let t = Transcript::new(Arc::new(Redactor::default()));
        for n in 0..EVIDENCE_HEAD + EVIDENCE_TAIL {
            t.note(format!("note {n}"));
        }
        assert_eq!(t.elided(), 0);
        let entries = t.entries();
        assert_eq!(entries.len(), EVIDENCE_HEAD + EVIDENCE_TAIL);
        assert!(entries.iter().all(|e| e.kind == EvidenceKind::Note));
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
