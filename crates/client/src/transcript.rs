//! The evidence transcript every exchange of a scenario run is recorded in,
//! each entry redacted ([`crate::redact`]) and clipped before it can reach a
//! report. The entries are this crate's own [`Record`]s; a report maps them
//! to its evidence schema, so the client needs no report types.
//!
//! A run's evidence is bounded whatever the peer sends: the first
//! `EVIDENCE_HEAD` (50) and the last `EVIDENCE_TAIL` (50) entries are kept,
//! the ones between are counted and stand as one [`RecordKind::Elided`]
//! entry.
//!
//! Redacting and clipping cost time in proportion to the text, and a long
//! stream records one entry per event, nearly all of them to be dropped
//! from the tail again. So an entry is redacted once it is sure to be kept:
//! at once for the head; for the tail when it is read (or when the tail's
//! raw text passes `RAW_TAIL_BYTES`, 1 MiB, which bounds its memory). Each
//! entry carries the redactor in force when it was recorded, so the result
//! is the same as redacting at once, and no unredacted text ever leaves here.

use super::limits::{EVIDENCE_BODY_CHARS, EVIDENCE_CURL_CHARS, EVIDENCE_HEAD, EVIDENCE_TAIL};
use crate::redact::Redactor;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a transcript record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// A request the client sent.
    Request,
    /// The answer to a request.
    Response,
    /// One event of a stream.
    Event,
    /// A comment line of an event stream (a keep-alive).
    Comment,
    /// How a stream ended.
    StreamEnd,
    /// An observation of the caller's (a step's finding, a retry).
    Note,
    /// Stands for the records left out between the first and the last ones
    /// a transcript keeps; its summary says how many.
    Elided,
}

/// One recorded exchange, event or observation, timed from the start of
/// the transcript, redacted and clipped.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Milliseconds since the transcript started.
    pub at_ms: u64,
    /// What the record is.
    pub kind: RecordKind,
    /// One line for people.
    pub summary: String,
    /// The body sent or received, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// A command that reproduces the request (secrets as `$VAR` references).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curl: Option<String>,
}

/// The most bytes of not yet redacted text the tail holds; past it, its
/// oldest entries are redacted and clipped at once.
const RAW_TAIL_BYTES: usize = 1024 * 1024;

/// The evidence of one scenario run, shared by its steps and stream readers.
#[derive(Debug)]
pub struct Transcript {
    start: Instant,
    /// The redactor in force: the peer's, plus the secrets the run itself
    /// introduced (a push token) once there are any.
    redactor: Mutex<Arc<Redactor>>,
    entries: Mutex<Kept>,
    /// The run this transcript records (its id), sent to the peer in
    /// [`RUN_HEADER`] so a replay can tell the runs' requests apart.
    run: Option<String>,
    /// The next JSON-RPC id: counted per run (shared with its scratch
    /// transcripts), so a run's requests carry the same ids whatever
    /// order the check's runs start in, and a replay sees them again.
    next_rpc_id: Arc<AtomicU64>,
}

/// The header every call carries with its run's id (percent-encoded
/// outside visible ASCII): a recorded run is replayed by it
/// (`a2a-conform replay`). It names a check's run, nothing secret.
pub const RUN_HEADER: &str = "x-a2a-conform-run";

/// An entry as recorded, before redaction, with the redactor in force then.
#[derive(Debug)]
struct Raw {
    at_ms: u64,
    kind: RecordKind,
    summary: String,
    body: Option<String>,
    curl: Option<String>,
    redactor: Arc<Redactor>,
}

impl Raw {
    fn bytes(&self) -> usize {
        self.summary.len()
            + self.body.as_ref().map_or(0, String::len)
            + self.curl.as_ref().map_or(0, String::len)
    }

    /// The entry as a report may show it: redacted before clipping, so a
    /// cut never leaves half a secret; clipped so an entry is bounded
    /// whatever the peer sent. The raw text is moved out.
    fn seal(&mut self) -> Record {
        let redactor = &self.redactor;
        Record {
            at_ms: self.at_ms,
            kind: self.kind,
            summary: redact_clip(
                redactor,
                std::mem::take(&mut self.summary),
                EVIDENCE_BODY_CHARS,
            ),
            body: self
                .body
                .take()
                .map(|b| redact_clip(redactor, b, EVIDENCE_BODY_CHARS)),
            curl: self
                .curl
                .take()
                .map(|c| redact_clip(redactor, c, EVIDENCE_CURL_CHARS)),
        }
    }
}

/// `clip(redact(text), max)` without copying text that needs neither.
fn redact_clip(redactor: &Redactor, text: String, max: usize) -> String {
    let text = if redactor.is_empty() {
        text
    } else {
        redactor.redact(&text)
    };
    // Fewer bytes than `max` means fewer chars: nothing to clip.
    if text.len() <= max {
        return text;
    }
    a2a_conform_protocol::text::clip(&text, max)
}

/// A tail entry: still raw, or already sealed.
#[derive(Debug)]
enum Pending {
    Raw(Raw),
    Sealed(Record),
}

impl Pending {
    fn at_ms(&self) -> u64 {
        match self {
            Pending::Raw(raw) => raw.at_ms,
            Pending::Sealed(entry) => entry.at_ms,
        }
    }

    fn raw_bytes(&self) -> usize {
        match self {
            Pending::Raw(raw) => raw.bytes(),
            Pending::Sealed(_) => 0,
        }
    }

    fn seal(&mut self) {
        if let Pending::Raw(raw) = self {
            let sealed = raw.seal();
            *self = Pending::Sealed(sealed);
        }
    }

    /// The entry, sealed if it was not yet.
    fn into_sealed(mut self) -> Record {
        self.seal();
        match self {
            Pending::Sealed(entry) => entry,
            Pending::Raw(mut raw) => raw.seal(),
        }
    }
}

/// The entries a run keeps: its first ones, its last ones, and how many
/// fell between.
#[derive(Debug, Default)]
struct Kept {
    head: Vec<Record>,
    tail: VecDeque<Pending>,
    /// Bytes of raw text in `tail`.
    tail_raw_bytes: usize,
    elided: u64,
    /// When the latest elided entry happened (ms from the run's start).
    elided_at_ms: u64,
    /// Keep every request, answer and stream end past the first entries
    /// (`check --record`: a replay needs every exchange; only events and
    /// notes are elided then).
    pin_exchanges: bool,
    /// The exchanges kept so, sealed.
    pinned: Vec<Record>,
}

impl Kept {
    fn push(&mut self, mut entry: Raw) {
        if self.head.len() < EVIDENCE_HEAD {
            self.head.push(entry.seal());
            return;
        }
        let exchange = matches!(
            entry.kind,
            RecordKind::Request | RecordKind::Response | RecordKind::StreamEnd
        );
        if self.pin_exchanges && exchange {
            self.pinned.push(entry.seal());
            return;
        }
        self.tail_raw_bytes += entry.bytes();
        self.tail.push_back(Pending::Raw(entry));
        if self.tail.len() > EVIDENCE_TAIL {
            if let Some(out) = self.tail.pop_front() {
                self.tail_raw_bytes -= out.raw_bytes();
                self.elided += 1;
                self.elided_at_ms = self.elided_at_ms.max(out.at_ms());
            }
        }
        if self.tail_raw_bytes > RAW_TAIL_BYTES {
            self.seal_tail(RAW_TAIL_BYTES);
        }
    }

    /// Seals the tail's entries, oldest first, until at most `budget` raw bytes are left.
    fn seal_tail(&mut self, budget: usize) {
        for pending in self.tail.iter_mut() {
            if self.tail_raw_bytes <= budget {
                break;
            }
            self.tail_raw_bytes -= pending.raw_bytes();
            pending.seal();
        }
    }

    /// The kept entries in time order, with one [`RecordKind::Elided`]
    /// entry standing for those left out, if any were.
    fn sealed(&mut self, take: bool) -> Vec<Record> {
        self.seal_tail(0);
        let mut entries = if take {
            std::mem::take(&mut self.head)
        } else {
            self.head.clone()
        };
        entries.extend(self.pinned.iter().cloned());
        if self.elided > 0 {
            entries.push(Record {
                at_ms: self.elided_at_ms,
                kind: RecordKind::Elided,
                summary: format!(
                    "… {} entries elided: a run's evidence keeps its first {EVIDENCE_HEAD} and last {EVIDENCE_TAIL} entries",
                    self.elided
                ),
                body: None,
                curl: None,
            });
        }
        if take {
            entries.extend(self.tail.drain(..).map(Pending::into_sealed));
            *self = Kept {
                pin_exchanges: self.pin_exchanges,
                ..Kept::default()
            };
        } else {
            entries.extend(self.tail.iter().filter_map(|pending| match pending {
                Pending::Sealed(entry) => Some(entry.clone()),
                Pending::Raw(_) => None,
            }));
        }
        // Stable: the elided entry stays before tail entries of the same instant.
        entries.sort_by_key(|e| e.at_ms);
        entries
    }
}

impl Transcript {
    /// An empty transcript starting now, masking `redactor`'s secrets (the
    /// peer's configured credentials) in everything recorded. Shared: a
    /// run's steps and its stream readers record into the same one.
    pub fn new(redactor: Arc<Redactor>) -> Arc<Transcript> {
        Arc::new(Transcript {
            start: Instant::now(),
            redactor: Mutex::new(redactor),
            entries: Mutex::new(Kept::default()),
            run: None,
            next_rpc_id: Arc::new(AtomicU64::new(1)),
        })
    }

    /// [`Transcript::new`] for the run `run` (its id): its calls name it
    /// in [`RUN_HEADER`].
    pub fn for_run(redactor: Arc<Redactor>, run: impl Into<String>) -> Arc<Transcript> {
        Arc::new(Transcript {
            start: Instant::now(),
            redactor: Mutex::new(redactor),
            entries: Mutex::new(Kept::default()),
            run: Some(run.into()),
            next_rpc_id: Arc::new(AtomicU64::new(1)),
        })
    }

    /// From now on every request, answer and stream end is kept, however
    /// long the run (`check --record`: a replay needs each exchange); only
    /// events and notes past the first entries are elided.
    pub fn keep_every_exchange(&self) {
        if let Ok(mut kept) = self.entries.lock() {
            kept.pin_exchanges = true;
        }
    }

    /// Whether [`Transcript::keep_every_exchange`] is on.
    pub fn keeps_every_exchange(&self) -> bool {
        self.entries
            .lock()
            .map(|k| k.pin_exchanges)
            .unwrap_or(false)
    }

    /// The run this transcript records, if it was made for one.
    pub fn run(&self) -> Option<&str> {
        self.run.as_deref()
    }

    /// The JSON-RPC id of the run's next request: 1, 2, … per run.
    pub fn next_rpc_id(&self) -> u64 {
        self.next_rpc_id.fetch_add(1, Ordering::Relaxed)
    }

    /// An empty transcript with this one's start and the redactor in force
    /// now: for exchanges a caller keeps out of the evidence unless they
    /// matter (a poll's reads before the one it stops at). Its entries, as
    /// [`Transcript::entries`] gives them, are redacted with the same
    /// secrets, so copying them back ([`Transcript::record`]) is safe.
    pub fn scratch(&self) -> Arc<Transcript> {
        Arc::new(Transcript {
            start: self.start,
            redactor: Mutex::new(self.redactor()),
            entries: Mutex::new(Kept {
                pin_exchanges: self.keeps_every_exchange(),
                ..Kept::default()
            }),
            run: self.run.clone(),
            next_rpc_id: self.next_rpc_id.clone(),
        })
    }

    /// The redactor in force now.
    fn redactor(&self) -> Arc<Redactor> {
        self.redactor
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Adds a secret of this run: from now on it is masked in everything
    /// recorded and in [`Transcript::redact`].
    pub fn add_secret(&self, secret: impl Into<String>) {
        let mut current = self.redactor.lock().unwrap_or_else(|p| p.into_inner());
        *current = Arc::new(current.with_secret(secret.into()));
    }

    /// Masks every secret the run knows: the peer's and the run's own.
    pub fn redact(&self, text: &str) -> String {
        self.redactor().redact(text)
    }

    /// When the transcript started: records are timed from it.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// How long since the transcript started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The offset of an instant from the run's start.
    pub fn offset(&self, at: Instant) -> Duration {
        at.saturating_duration_since(self.start)
    }

    /// Records one entry at `at`: a summary line for people, the body sent
    /// or received, and a command reproducing a request. Redacted with the
    /// secrets known now and clipped before anyone can read it; past the
    /// first and last entries a run keeps, it is counted instead.
    pub fn record(
        &self,
        kind: RecordKind,
        at: Instant,
        summary: impl Into<String>,
        body: Option<String>,
        curl: Option<String>,
    ) {
        let entry = Raw {
            at_ms: self.offset(at).as_millis() as u64,
            kind,
            summary: summary.into(),
            body,
            curl,
            redactor: self.redactor(),
        };
        if let Ok(mut kept) = self.entries.lock() {
            kept.push(entry);
        }
    }

    /// Records a replay's miss, now: the answer that stands for the
    /// recording's gap, read alike over every binding.
    pub(crate) fn replay_miss(&self, reason: &str) {
        self.record(
            RecordKind::Response,
            Instant::now(),
            format!("← replay miss: {reason}"),
            None,
            None,
        );
    }

    /// Records an observation of the caller's, now ([`RecordKind::Note`]).
    pub fn note(&self, summary: impl Into<String>) {
        self.record(RecordKind::Note, Instant::now(), summary, None, None);
    }

    /// The kept entries in time order, with one [`RecordKind::Elided`]
    /// entry standing for those left out, if any were.
    pub fn entries(&self) -> Vec<Record> {
        match self.entries.lock() {
            Ok(mut kept) => kept.sealed(false),
            Err(_) => Vec::new(),
        }
    }

    /// Like [`Transcript::entries`], but moves them out: the transcript is
    /// left empty. What a finished run hands its report.
    pub fn take_entries(&self) -> Vec<Record> {
        match self.entries.lock() {
            Ok(mut kept) => kept.sealed(true),
            Err(_) => Vec::new(),
        }
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
            RecordKind::Request,
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
                RecordKind::Comment,
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
        assert_eq!(marker.kind, RecordKind::Elided);
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
        assert!(entries.iter().all(|e| e.kind == RecordKind::Note));
    }

    #[test]
    fn the_tail_is_redacted_when_read_with_the_secrets_known_at_recording() {
        let t = Transcript::new(Arc::new(Redactor::new(vec!["peer-secret".to_string()])));
        let at = t.start();
        for n in 0..(EVIDENCE_HEAD + EVIDENCE_TAIL + 10) as u64 {
            if n == (EVIDENCE_HEAD + EVIDENCE_TAIL) as u64 {
                t.add_secret("run-token-2");
            }
            t.record(
                RecordKind::Event,
                at + Duration::from_millis(n),
                format!("event {n} peer-secret run-token-2"),
                Some(format!("{{\"n\":{n},\"s\":\"peer-secret\"}}")),
                None,
            );
        }
        let entries = t.take_entries();
        assert_eq!(entries.len(), EVIDENCE_HEAD + 1 + EVIDENCE_TAIL);
        for e in &entries {
            assert!(!e.summary.contains("peer-secret"), "{}", e.summary);
            assert!(!e.body.as_deref().unwrap_or("").contains("peer-secret"));
        }
        // Redacted as it would have been when recorded: the run's token is
        // masked only in entries recorded after it was added.
        let last = entries.last().unwrap();
        assert!(!last.summary.contains("run-token-2"), "{}", last.summary);
        let before = &entries[entries.len() - 11];
        assert!(before.summary.contains("run-token-2"), "{}", before.summary);
        assert!(t.take_entries().is_empty(), "taking moves the entries out");
    }

    #[test]
    fn long_tail_entries_are_sealed_early_and_clipped() {
        let t = Transcript::new(Arc::new(Redactor::new(vec!["hunter22".to_string()])));
        let body = format!("hunter22{}", "x".repeat(400 * 1024));
        for _ in 0..EVIDENCE_HEAD + EVIDENCE_TAIL {
            t.record(RecordKind::Event, t.start(), "e", Some(body.clone()), None);
        }
        let kept = t.entries.lock().unwrap();
        assert!(
            kept.tail_raw_bytes <= RAW_TAIL_BYTES,
            "{}",
            kept.tail_raw_bytes
        );
        drop(kept);
        for e in t.entries() {
            let b = e.body.unwrap();
            assert!(b.starts_with(Redactor::MASK), "{}", &b[..20]);
            assert!(b.chars().count() < EVIDENCE_BODY_CHARS + 40);
        }
    }

    #[test]
    fn secrets_added_during_a_run_are_masked_from_then_on() {
        let t = Transcript::new(Arc::new(Redactor::new(vec!["peer-secret".to_string()])));
        t.add_secret("run-token-1");
        t.record(
            RecordKind::Event,
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
