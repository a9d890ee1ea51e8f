//! Why a cassette cannot be read or written: every refusal names the
//! problem (the CLI maps them to exit 2).

use std::path::PathBuf;

/// A cassette refused or unwritable.
#[derive(Debug, thiserror::Error)]
pub enum CassetteError {
    /// The file could not be read or written.
    #[error("cassette {path}: {source}")]
    Io {
        /// The cassette.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file (or its decompressed text) is over the cap.
    #[error("cassette {path}: larger than {} MiB (the cassette cap)", .cap / (1024 * 1024))]
    TooLarge {
        /// The cassette.
        path: PathBuf,
        /// The cap, in bytes.
        cap: u64,
    },
    /// It holds more entries than a replay keeps in memory.
    #[error("cassette {path}: {entries} entries, over the cassette entry cap of {cap}: refused before any is read")]
    TooManyEntries {
        /// The cassette.
        path: PathBuf,
        /// How many it holds.
        entries: usize,
        /// The cap ([`crate::MAX_ENTRIES`]).
        cap: usize,
    },
    /// It ends before its trailer: cut short.
    #[error("cassette {path}: truncated: {reason}")]
    Truncated {
        /// The cassette.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },
    /// Its lines do not match its trailer's count or digest.
    #[error("cassette {path}: tampered: {reason} (the seal catches corruption and edits not resealed; it proves no origin)")]
    Tampered {
        /// The cassette.
        path: PathBuf,
        /// What does not match.
        reason: String,
    },
    /// Another format version than this build reads.
    #[error(
        "cassette {path}: format version {found}, this build reads version {expected} \
         (record it again, or use the a2a-conform that wrote it)"
    )]
    OtherVersion {
        /// The cassette.
        path: PathBuf,
        /// The version its header names.
        found: u32,
        /// The version this build reads.
        expected: u32,
    },
    /// Not a cassette, or a line that does not read.
    #[error("cassette {path}: line {line}: {reason}")]
    Malformed {
        /// The cassette.
        path: PathBuf,
        /// The line (1-based).
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}
