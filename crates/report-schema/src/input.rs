//! Reading a file the user names (suite, profile, baseline, report), within
//! a cap: its size is checked before it is read, and the read stops at the
//! cap, so a huge, sparse or endless file (a FIFO, `/dev/zero`) is refused
//! at once instead of filling memory.

use std::io::Read;
use std::path::Path;

/// A suite, profile or baseline: a small YAML file a person writes.
pub const YAML_CAP: u64 = 4 * 1024 * 1024;

/// A JSON report read by `diff` or `merge` ([`crate::ReportFile::load`]): evidence
/// makes these larger, but a report past this is not one a2a-conform wrote.
pub const REPORT_CAP: u64 = 64 * 1024 * 1024;

/// Why a capped file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read, or is not UTF-8.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file (or stream) holds more than the cap.
    #[error("is larger than {} MiB", .cap / (1024 * 1024))]
    TooLarge {
        /// The cap, in bytes.
        cap: u64,
    },
}

/// Reads `path` as UTF-8 text of at most `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<String, ReadError> {
    let bytes = read_capped_bytes(path, cap)?;
    String::from_utf8(bytes).map_err(|_| {
        ReadError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        ))
    })
}

/// Reads at most `cap` bytes of `path`, as bytes (a file part to send, of
/// any content); like [`read_capped`], a larger file is refused before
/// it is read.
pub fn read_capped_bytes(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.len() > cap {
        return Err(ReadError::TooLarge { cap });
    }
    let mut bytes = Vec::new();
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { cap });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_past_the_cap_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let file = std::fs::File::create(&path).unwrap();
        // Sparse: a gibibyte of nothing on disk, which reading would hold in memory.
        file.set_len(1 << 30).unwrap();
        let e = read_capped(&path, YAML_CAP).unwrap_err();
        assert_eq!(e.to_string(), "is larger than 4 MiB");
        assert!(matches!(
            read_capped_bytes(&path, YAML_CAP),
            Err(ReadError::TooLarge { .. })
        ));
        std::fs::write(&path, "ok").unwrap();
        assert_eq!(read_capped(&path, 2).unwrap(), "ok");
        assert_eq!(read_capped_bytes(&path, 2).unwrap(), b"ok");
        assert!(matches!(
            read_capped(&path, 1),
            Err(ReadError::TooLarge { cap: 1 })
        ));
    }

    #[test]
    fn an_endless_stream_stops_at_the_cap() {
        let e = read_capped(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { cap: 1024 }), "{e}");
    }
}
