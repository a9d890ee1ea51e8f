//! The cache's entries and its file: the merge rule, the JSON format
//! (`{"format": 1, "peers": [...]}`), the capped read, the atomic write
//! and the sidecar lock that serializes writers across processes.
//!
//! The lock is on `<file>.lock`, not on the file itself: the file is
//! replaced by a rename, and a lock held on the old inode would not stop a
//! writer that opened the new one.

use super::{CacheError, Demotion, PeerKey, Trust};
use a2a_conform_protocol::DeclarationId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// The format this version writes and reads.
const FORMAT: u32 = 1;

/// The largest cache file (or report) read: 16 MiB.
pub(super) const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// One declaration's observation as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "trust", rename_all = "kebab-case")]
pub(super) enum Stored {
    /// Seen kept at `at`.
    Trusted {
        #[serde(with = "rfc3339")]
        at: SystemTime,
    },
    /// Seen broken.
    Demoted(Demotion),
}

impl Stored {
    /// How it reads at `now`: lapsed observations are unknown.
    pub(super) fn trust_at(&self, now: SystemTime, trust_ttl: Duration) -> Trust {
        match self {
            Stored::Demoted(d) if d.expires > now => Trust::Demoted(d.clone()),
            Stored::Trusted { at } if *at + trust_ttl > now => Trust::Trusted { at: *at },
            _ => Trust::Unknown,
        }
    }

    fn at(&self) -> SystemTime {
        match self {
            Stored::Trusted { at } => *at,
            Stored::Demoted(d) => d.at,
        }
    }

    /// Two observations of one declaration as one: an unexpired demotion
    /// wins over a trust (no demotion is lost to a writer whose view was
    /// older), else the newer observation.
    fn combine(self, other: Stored, now: SystemTime) -> Stored {
        match (&self, &other) {
            (Stored::Demoted(d), Stored::Trusted { .. }) if d.expires > now => self,
            (Stored::Trusted { .. }, Stored::Demoted(d)) if d.expires > now => other,
            _ if other.at() > self.at() => other,
            _ => self,
        }
    }
}

/// Every observation, by peer and by declaration id (its text form, so an
/// id a later version knows survives a round trip through this one).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Entries {
    peers: BTreeMap<PeerKey, BTreeMap<String, Stored>>,
}

impl Entries {
    pub(super) fn get(&self, peer: &PeerKey, id: &DeclarationId) -> Option<&Stored> {
        self.peers.get(peer)?.get(&id.to_string())
    }

    /// The peer's observations whose id this version reads.
    pub(super) fn of_peer<'a>(
        &'a self,
        peer: &PeerKey,
    ) -> impl Iterator<Item = (DeclarationId, &'a Stored)> + 'a {
        self.peers
            .get(peer)
            .into_iter()
            .flatten()
            .filter_map(|(id, stored)| Some((id.parse().ok()?, stored)))
    }

    pub(super) fn put(
        &mut self,
        peer: PeerKey,
        id: &DeclarationId,
        stored: Stored,
        now: SystemTime,
    ) {
        self.put_text(peer, id.to_string(), stored, now);
    }

    fn put_text(&mut self, peer: PeerKey, id: String, stored: Stored, now: SystemTime) {
        let declarations = self.peers.entry(peer).or_default();
        let merged = match declarations.remove(&id) {
            Some(existing) => existing.combine(stored, now),
            None => stored,
        };
        declarations.insert(id, merged);
    }

    /// Takes in every observation of `other` (see [`Stored::combine`]).
    pub(super) fn merge(&mut self, other: Entries, now: SystemTime) {
        for (peer, declarations) in other.peers {
            for (id, stored) in declarations {
                self.put_text(peer.clone(), id, stored, now);
            }
        }
    }

    /// Drops every entry of `current`'s card URL under another digest;
    /// answers how many.
    pub(super) fn forget_other_digests(&mut self, current: &PeerKey) -> usize {
        let mut dropped = 0;
        self.peers.retain(|key, declarations| {
            let other = key.card_url == current.card_url && key.card_digest != current.card_digest;
            if other {
                dropped += declarations.len();
            }
            !other
        });
        dropped
    }

    /// Drops lapsed observations, so the file does not grow without end.
    pub(super) fn prune(&mut self, now: SystemTime, trust_ttl: Duration) {
        for declarations in self.peers.values_mut() {
            declarations.retain(|_, s| !matches!(s.trust_at(now, trust_ttl), Trust::Unknown));
        }
        self.peers
            .retain(|_, declarations| !declarations.is_empty());
    }
}

/// The file as written.
#[derive(Debug, Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    peers: Vec<PeerFile>,
}

#[derive(Debug, Serialize, Deserialize)]
struct PeerFile {
    card_url: String,
    card_digest: String,
    declarations: BTreeMap<String, Stored>,
}

/// Reads at most `max` bytes of `path`; `None` when there is no such file.
pub(super) fn read_capped(path: &Path, max: u64) -> Result<Option<Vec<u8>>, CacheError> {
    let io = |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(CacheError::TooLarge {
            path: path.to_path_buf(),
            max,
        });
    }
    Ok(Some(bytes))
}

/// The cache file's entries; a missing or empty file is an empty cache.
pub(super) fn read(path: &Path) -> Result<Entries, CacheError> {
    let Some(bytes) = read_capped(path, MAX_FILE_BYTES)? else {
        return Ok(Entries::default());
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Entries::default());
    }
    let format = |reason: String| CacheError::Format {
        path: path.to_path_buf(),
        what: "capability cache",
        reason,
    };
    let file: CacheFile = serde_json::from_slice(&bytes).map_err(|e| format(e.to_string()))?;
    if file.format != FORMAT {
        return Err(format(format!(
            "format {} (this version reads format {FORMAT})",
            file.format
        )));
    }
    let mut entries = Entries::default();
    for peer in file.peers {
        let key = PeerKey::new(peer.card_url, peer.card_digest);
        entries.peers.insert(key, peer.declarations);
    }
    Ok(entries)
}

/// Replaces the file with `entries`: written to a temporary file in the
/// same folder, flushed to disk, then renamed over it.
pub(super) fn write(path: &Path, entries: &Entries) -> Result<(), CacheError> {
    let io = |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = CacheFile {
        format: FORMAT,
        peers: entries
            .peers
            .iter()
            .map(|(key, declarations)| PeerFile {
                card_url: key.card_url.clone(),
                card_digest: key.card_digest.clone(),
                declarations: declarations.clone(),
            })
            .collect(),
    };
    let mut temp = tempfile::NamedTempFile::new_in(folder(path)).map_err(io)?;
    serde_json::to_writer_pretty(&mut temp, &file).map_err(|e| io(e.into()))?;
    temp.write_all(b"\n").map_err(io)?;
    temp.as_file().sync_all().map_err(io)?;
    temp.persist(path).map_err(|e| io(e.error))?;
    Ok(())
}

/// The folder a file is in (`.` for a bare file name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// An exclusive lock on `<file>.lock`, held until dropped.
pub(super) struct FileLock {
    file: std::fs::File,
}

impl FileLock {
    /// Takes the lock, waiting at most `timeout` for another holder.
    pub(super) fn acquire(path: &Path, timeout: Duration) -> Result<FileLock, CacheError> {
        let lock_path = lock_path(path);
        let io = |source| CacheError::Io {
            path: lock_path.clone(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io)?;
        let started = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(FileLock { file }),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            if started.elapsed() >= timeout {
                return Err(CacheError::Locked {
                    path: lock_path,
                    waited: started.elapsed(),
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first says so.
        let _ = self.file.unlock();
    }
}

fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// `SystemTime` as RFC 3339 text (UTC, milliseconds), as people read it.
pub(super) mod rfc3339 {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::SystemTime;

    pub(crate) fn serialize<S: Serializer>(
        at: &SystemTime,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&humantime::format_rfc3339_millis(*at))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<SystemTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        humantime::parse_rfc3339_weak(&text).map_err(serde::de::Error::custom)
    }
}
