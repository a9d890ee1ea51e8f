//! The capability cache: what an orchestrator has seen each peer do, per
//! declaration. A peer is its card URL and its card's digest, so a changed
//! card starts from nothing; each declaration of it is trusted (seen kept,
//! until a TTL passes), demoted (seen broken, with when, why, the evidence
//! and an expiry) or unknown (the card's word stands: attempt, and watch).
//!
//! A cache is in memory, or backed by a JSON file that several processes
//! share. Every change is written under an exclusive lock on a sidecar
//! `<file>.lock`: the file is read again, merged with this handle's view,
//! and replaced atomically (a temporary file in the same folder, then a
//! rename), so a reader never sees half a file and no writer loses another's
//! demotion. The merge keeps, per declaration, an unexpired demotion over a
//! trust, else the newer observation.

use a2a_conform_client::Record;
use a2a_conform_protocol::{Card, DeclarationId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

mod seed;
mod store;

use store::{Entries, Stored};

/// One peer as the cache keys it: the card's URL and the digest of the
/// card body served there (`sha256:…`, [`Card::digest`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PeerKey {
    /// Where the card was fetched from.
    pub card_url: String,
    /// `sha256:<hex>` of the card body.
    pub card_digest: String,
}

impl PeerKey {
    /// The key of a fetched card.
    ///
    /// ```
    /// # use a2a_conform_guard::PeerKey;
    /// let key = PeerKey::new("https://agent.example/.well-known/agent-card.json", "sha256:ab");
    /// assert_eq!(key.to_string(), "https://agent.example/.well-known/agent-card.json (sha256:ab)");
    /// ```
    pub fn new(card_url: impl Into<String>, card_digest: impl Into<String>) -> PeerKey {
        PeerKey {
            card_url: card_url.into(),
            card_digest: card_digest.into(),
        }
    }

    /// The key of a parsed card: where it came from and its digest.
    pub fn of(card: &Card) -> PeerKey {
        PeerKey::new(card.fetched_from.clone(), card.digest.clone())
    }
}

impl std::fmt::Display for PeerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.card_url, self.card_digest)
    }
}

/// A declaration seen broken: when, why, the exchanges that showed it, and
/// until when the cache routes around it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Demotion {
    /// When the divergence was observed.
    #[serde(with = "store::rfc3339")]
    pub at: SystemTime,
    /// When the demotion lapses and the declaration reads unknown again.
    #[serde(with = "store::rfc3339")]
    pub expires: SystemTime,
    /// What was observed, in a sentence.
    pub reason: String,
    /// The exchanges that showed it (redacted, as a report shows them).
    #[serde(default)]
    pub evidence: Vec<Record>,
}

/// What the cache holds for one declaration of one peer.
#[derive(Debug, Clone, PartialEq)]
pub enum Trust {
    /// Nothing observed (or it lapsed): the card's declaration is a hint
    /// to attempt, and to check.
    Unknown,
    /// Seen kept at `at`; reads unknown again once the trust TTL passes.
    Trusted {
        /// When it was last seen kept.
        at: SystemTime,
    },
    /// Seen broken: route around it until it expires.
    Demoted(Demotion),
}

/// How long observations count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheOptions {
    /// How long a demotion routes around a declaration (default 24 h).
    pub demotion_ttl: Duration,
    /// How long a declaration seen kept reads trusted (default 1 h);
    /// after it, the next task re-validates it.
    pub trust_ttl: Duration,
    /// The longest wait for another process's lock on the file (default 10 s).
    pub lock_timeout: Duration,
}

impl Default for CacheOptions {
    fn default() -> Self {
        CacheOptions {
            demotion_ttl: Duration::from_secs(24 * 3600),
            trust_ttl: Duration::from_secs(3600),
            lock_timeout: Duration::from_secs(10),
        }
    }
}

/// Why the cache file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file (or its lock, or the folder) could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is no cache (or no report) this version reads.
    #[error("{} is not a readable {what}: {reason}", .path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// `capability cache` or `a2a-conform report`.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The file is larger than the cap.
    #[error("{} is larger than {max} bytes", .path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap, in bytes.
        max: u64,
    },
    /// Another process held the lock longer than the lock timeout.
    #[error("{} stayed locked by another process for {}", .path.display(), humantime::format_duration(*.waited))]
    Locked {
        /// The lock file.
        path: PathBuf,
        /// How long this process waited.
        waited: Duration,
    },
}

/// The shared state of every clone of one cache handle.
#[derive(Debug)]
struct Inner {
    file: Option<PathBuf>,
    options: CacheOptions,
    entries: Mutex<Entries>,
}

/// Per peer and per declaration: trusted, demoted or unknown. Cheap to
/// clone; clones share one view (and one file, if any).
///
/// ```
/// use a2a_conform_guard::{CapabilityCache, CacheOptions, PeerKey, Trust};
/// use a2a_conform_protocol::DeclarationId;
///
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("cache.json");
/// let peer = PeerKey::new("https://agent.example/.well-known/agent-card.json", "sha256:ab");
/// let streaming: DeclarationId = "capabilities.streaming".parse().unwrap();
///
/// let cache = CapabilityCache::open(&path, CacheOptions::default()).unwrap();
/// assert!(cache.is_trusted(&peer, &streaming)); // unknown: the card's word stands
/// cache.demote(&peer, &streaming, "no update within the probe window", Vec::new()).unwrap();
/// assert!(!cache.is_trusted(&peer, &streaming));
///
/// // Another handle (another process) on the same file sees it.
/// let other = CapabilityCache::open(&path, CacheOptions::default()).unwrap();
/// assert!(matches!(other.trust(&peer, &streaming), Trust::Demoted(d) if d.reason.contains("probe")));
/// ```
#[derive(Debug, Clone)]
pub struct CapabilityCache {
    inner: Arc<Inner>,
}

impl CapabilityCache {
    /// A cache kept in memory only (shared by its clones).
    pub fn in_memory(options: CacheOptions) -> CapabilityCache {
        CapabilityCache::with(None, options, Entries::default())
    }

    /// A cache backed by `path`, read now (a missing file is an empty
    /// cache); every change is merged into it under its lock.
    pub fn open(
        path: impl AsRef<Path>,
        options: CacheOptions,
    ) -> Result<CapabilityCache, CacheError> {
        let path = path.as_ref().to_path_buf();
        let entries = store::read(&path)?;
        Ok(CapabilityCache::with(Some(path), options, entries))
    }

    fn with(file: Option<PathBuf>, options: CacheOptions, entries: Entries) -> CapabilityCache {
        CapabilityCache {
            inner: Arc::new(Inner {
                file,
                options,
                entries: Mutex::new(entries),
            }),
        }
    }

    /// The file behind the cache, if any.
    pub fn path(&self) -> Option<&Path> {
        self.inner.file.as_deref()
    }

    /// The TTLs in force.
    pub fn options(&self) -> CacheOptions {
        self.inner.options
    }

    /// What the cache holds for `declaration` of `peer` now (lapsed
    /// observations read [`Trust::Unknown`]).
    pub fn trust(&self, peer: &PeerKey, declaration: &DeclarationId) -> Trust {
        let entries = self.lock_entries();
        let now = SystemTime::now();
        match entries.get(peer, declaration) {
            Some(stored) => stored.trust_at(now, self.inner.options.trust_ttl),
            None => Trust::Unknown,
        }
    }

    /// Whether a guard may rely on the declaration: it is not under an
    /// unexpired demotion (trusted, or unknown: the card's word stands).
    pub fn is_trusted(&self, peer: &PeerKey, declaration: &DeclarationId) -> bool {
        !matches!(self.trust(peer, declaration), Trust::Demoted(_))
    }

    /// Every unexpired demotion of `peer`, by declaration.
    pub fn demotions(&self, peer: &PeerKey) -> BTreeMap<DeclarationId, Demotion> {
        let entries = self.lock_entries();
        let now = SystemTime::now();
        entries
            .of_peer(peer)
            .filter_map(
                |(id, stored)| match stored.trust_at(now, self.inner.options.trust_ttl) {
                    Trust::Demoted(d) => Some((id, d)),
                    _ => None,
                },
            )
            .collect()
    }

    /// Records a divergence: `declaration` of `peer` is demoted from now
    /// for the demotion TTL, with why and the evidence. Written through
    /// to the file, if any (merged under its lock).
    pub fn demote(
        &self,
        peer: &PeerKey,
        declaration: &DeclarationId,
        reason: impl Into<String>,
        evidence: Vec<Record>,
    ) -> Result<(), CacheError> {
        let at = SystemTime::now();
        let demotion = Demotion {
            at,
            expires: at + self.inner.options.demotion_ttl,
            reason: reason.into(),
            evidence,
        };
        self.apply(vec![(
            peer.clone(),
            declaration.clone(),
            Stored::Demoted(demotion),
        )])
    }

    /// Records that `declaration` of `peer` was seen kept now. An
    /// unexpired demotion stays (only its expiry lifts it).
    pub fn trust_now(&self, peer: &PeerKey, declaration: &DeclarationId) -> Result<(), CacheError> {
        let stored = Stored::Trusted {
            at: SystemTime::now(),
        };
        self.apply(vec![(peer.clone(), declaration.clone(), stored)])
    }

    /// Reads the file again and merges what other processes wrote into
    /// this handle's view (nothing to do in memory).
    ///
    /// ```
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, PeerKey};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("cache.json");
    /// let mine = CapabilityCache::open(&path, CacheOptions::default()).unwrap();
    /// let theirs = CapabilityCache::open(&path, CacheOptions::default()).unwrap();
    /// assert_eq!(mine.path(), Some(path.as_path()));
    /// let peer = PeerKey::new("https://agent.example/.well-known/agent-card.json", "sha256:ab");
    /// let cancel = "lifecycle.cancel".parse().unwrap();
    /// theirs.demote(&peer, &cancel, "leaked", Vec::new()).unwrap();
    /// assert!(mine.is_trusted(&peer, &cancel), "not read yet");
    /// mine.refresh().unwrap();
    /// assert!(!mine.is_trusted(&peer, &cancel));
    /// ```
    pub fn refresh(&self) -> Result<(), CacheError> {
        let Some(path) = &self.inner.file else {
            return Ok(());
        };
        let on_disk = store::read(path)?;
        let now = SystemTime::now();
        self.lock_entries().merge(on_disk, now);
        Ok(())
    }

    /// Seeds the cache from an a2a-conform JSON report (`check --json`):
    /// each declaration whose verdict is `diverged` demotes that
    /// declaration of that peer (card URL and digest as the report names
    /// them), with the row's reason and the failed runs' evidence. Answers
    /// how many demotions were recorded.
    ///
    /// ```
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, PeerKey};
    /// use a2a_conform_report_schema::{DeclarationReport, DeclarationVerdict::*, PeerReport, RunReport};
    ///
    /// let card = "http://127.0.0.1:9/.well-known/agent-card.json";
    /// let mut peer = PeerReport::builder(card)
    ///     .declarations(vec![
    ///         DeclarationReport::builder("lifecycle.cancel", Diverged)
    ///             .scenario("cancel-then-stream")
    ///             .reason("artifacts after the cancel")
    ///             .build(),
    ///         DeclarationReport::builder("capabilities.streaming", Honoured).build(),
    ///     ])
    ///     .build();
    /// peer.card_digest = Some("sha256:ab".into());
    /// let dir = tempfile::tempdir().unwrap();
    /// let report = dir.path().join("report.json");
    /// std::fs::write(&report, RunReport::new(vec![peer]).to_json()).unwrap();
    /// let cache = CapabilityCache::in_memory(CacheOptions::default());
    /// assert_eq!(cache.seed_from_report(&report).unwrap(), 1);
    /// let peer = PeerKey::new("http://127.0.0.1:9/.well-known/agent-card.json", "sha256:ab");
    /// assert!(!cache.is_trusted(&peer, &"lifecycle.cancel".parse().unwrap()));
    /// assert!(cache.is_trusted(&peer, &"capabilities.streaming".parse().unwrap()));
    /// ```
    pub fn seed_from_report(&self, report: impl AsRef<Path>) -> Result<usize, CacheError> {
        let at = SystemTime::now();
        let expires = at + self.inner.options.demotion_ttl;
        let demotions = seed::diverged(report.as_ref())?;
        let count = demotions.len();
        let changes = demotions
            .into_iter()
            .map(|row| {
                let demotion = Demotion {
                    at,
                    expires,
                    reason: row.reason,
                    evidence: row.evidence,
                };
                (row.peer, row.declaration, Stored::Demoted(demotion))
            })
            .collect();
        self.apply(changes)?;
        Ok(count)
    }

    /// Forgets what the cache holds for every other version of `current`'s
    /// card (the same card URL, another digest): the card changed, so its
    /// peer starts from the new card's word. Removed from the file too,
    /// under its lock. Answers how many entries were dropped.
    ///
    /// ```
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, PeerKey};
    ///
    /// let cache = CapabilityCache::in_memory(CacheOptions::default());
    /// let url = "https://agent.example/.well-known/agent-card.json";
    /// let (old, new) = (PeerKey::new(url, "sha256:aa"), PeerKey::new(url, "sha256:bb"));
    /// let streaming = "capabilities.streaming".parse().unwrap();
    /// cache.demote(&old, &streaming, "silent", Vec::new()).unwrap();
    /// assert_eq!(cache.reset_card(&new).unwrap(), 1);
    /// assert!(cache.demotions(&old).is_empty());
    /// ```
    pub fn reset_card(&self, current: &PeerKey) -> Result<usize, CacheError> {
        let dropped = self.lock_entries().forget_other_digests(current);
        let Some(path) = &self.inner.file else {
            return Ok(dropped);
        };
        let _lock = store::FileLock::acquire(path, self.inner.options.lock_timeout)?;
        let mut on_disk = store::read(path)?;
        let on_file = on_disk.forget_other_digests(current);
        if on_file > 0 {
            store::write(path, &on_disk)?;
        }
        Ok(dropped.max(on_file))
    }

    /// Applies observations to this handle's view and, with a file, merges
    /// them into it under its lock.
    fn apply(&self, changes: Vec<(PeerKey, DeclarationId, Stored)>) -> Result<(), CacheError> {
        let now = SystemTime::now();
        let mut fresh = Entries::default();
        for (peer, id, stored) in changes {
            fresh.put(peer, &id, stored, now);
        }
        self.lock_entries().merge(fresh.clone(), now);
        let Some(path) = &self.inner.file else {
            return Ok(());
        };
        let _lock = store::FileLock::acquire(path, self.inner.options.lock_timeout)?;
        let mut on_disk = store::read(path)?;
        on_disk.merge(fresh, now);
        on_disk.prune(now, self.inner.options.trust_ttl);
        store::write(path, &on_disk)?;
        self.lock_entries().merge(on_disk, now);
        Ok(())
    }

    fn lock_entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic elsewhere while holding it leaves a consistent map (every
        // change is one insert): keep using it.
        self.inner
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests;
