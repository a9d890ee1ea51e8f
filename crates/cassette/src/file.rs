//! Writing a cassette (sealed with its trailer, atomically: a temporary
//! file in the same directory, then a rename) and reading one back within
//! a cap, refusing one that is cut, edited, of another version or too big.

use crate::error::CassetteError;
use crate::model::{Cassette, Line, Trailer, FORMAT, FORMAT_VERSION};
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The most bytes a cassette may hold (decompressed, when `*.gz`): the
/// same cap as a JSON report, whose evidence a cassette carries.
pub const CASSETTE_CAP: u64 = a2a_conform_report::input::REPORT_CAP;

/// The most entries (requests, answers, events, stream ends, deliveries,
/// notes: each an object with an `at_ms`) a cassette may hold. A read
/// entry costs a few hundred bytes however small its line, so the size
/// cap alone let 1.3 million tiny events in 53 MB take 564 MB; this caps
/// what a cassette can make a replay hold at about 100 MB. A recording
/// keeps at most 101 events and notes per run, so a real one stays far
/// below it.
pub const MAX_ENTRIES: usize = 250_000;

fn digest(bytes: &[u8]) -> String {
    let mut text = String::from("sha256:");
    for byte in Sha256::digest(bytes) {
        text.push_str(&format!("{byte:02x}"));
    }
    text
}

fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

impl Cassette {
    /// The cassette as JSON Lines, its trailer last.
    pub fn to_text(&self) -> String {
        let mut lines = vec![Line::Header(self.header.clone())];
        lines.extend(self.peers.iter().cloned().map(Line::Peer));
        lines.extend(self.runs.iter().cloned().map(Line::Run));
        let mut text = String::new();
        for line in &lines {
            // These types always serialize (string keys, no maps of non-strings).
            text.push_str(&serde_json::to_string(line).unwrap_or_default());
            text.push('\n');
        }
        let trailer = Line::Trailer(Trailer {
            lines: lines.len() as u64,
            digest: digest(text.as_bytes()),
        });
        text.push_str(&serde_json::to_string(&trailer).unwrap_or_default());
        text.push('\n');
        text
    }

    /// Writes the cassette to `path` atomically, gzip-compressed when the
    /// name ends in `.gz`.
    pub fn write(&self, path: &Path) -> Result<(), CassetteError> {
        let io = |source| CassetteError::Io {
            path: path.to_path_buf(),
            source,
        };
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut tmp = tempfile::NamedTempFile::new_in(&dir).map_err(io)?;
        let text = self.to_text();
        if is_gzip(path) {
            let mut gz = flate2::write::GzEncoder::new(&mut tmp, flate2::Compression::default());
            gz.write_all(text.as_bytes()).map_err(io)?;
            gz.finish().map_err(io)?;
        } else {
            tmp.write_all(text.as_bytes()).map_err(io)?;
        }
        tmp.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// Reads and checks the cassette at `path` (gzip when named `*.gz`).
    pub fn load(path: &Path) -> Result<Cassette, CassetteError> {
        let text = read(path)?;
        from_text(path, &text)
    }
}

/// The file's text, at most [`CASSETTE_CAP`] bytes, decompressed if `*.gz`.
fn read(path: &Path) -> Result<String, CassetteError> {
    let too_large = || CassetteError::TooLarge {
        path: path.to_path_buf(),
        cap: CASSETTE_CAP,
    };
    let io = |source| CassetteError::Io {
        path: path.to_path_buf(),
        source,
    };
    if !is_gzip(path) {
        return a2a_conform_report::input::read_capped(path, CASSETTE_CAP).map_err(|e| match e {
            a2a_conform_report::input::ReadError::TooLarge { .. } => too_large(),
            a2a_conform_report::input::ReadError::Io(source) => io(source),
        });
    }
    // Compressed: the file and what it inflates to are both capped, so a
    // small bomb cannot fill memory either.
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if meta.is_file() && meta.len() > CASSETTE_CAP {
        return Err(too_large());
    }
    let mut text = String::new();
    flate2::read::GzDecoder::new(file.take(CASSETTE_CAP + 1))
        .take(CASSETTE_CAP + 1)
        .read_to_string(&mut text)
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::UnexpectedEof => CassetteError::Truncated {
                path: path.to_path_buf(),
                reason: "the gzip stream ends early".into(),
            },
            _ => io(source),
        })?;
    if text.len() as u64 > CASSETTE_CAP {
        return Err(too_large());
    }
    Ok(text)
}

/// Reads a cassette's text (`path` names it in errors): header first,
/// trailer last, its count and digest matching the lines before it.
pub fn from_text(path: &Path, text: &str) -> Result<Cassette, CassetteError> {
    let path_buf = || path.to_path_buf();
    let malformed = |line: usize, reason: String| CassetteError::Malformed {
        path: path_buf(),
        line,
        reason,
    };
    let raw: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(first) = raw.first() else {
        return Err(CassetteError::Truncated {
            path: path_buf(),
            reason: "the file is empty".into(),
        });
    };
    check_header(path, first)?;
    // Counted on the text, before any line is parsed: a key `"at_ms"` is
    // never inside a JSON string (there its quotes are escaped), so each
    // occurrence is one entry.
    let entries = text.matches("\"at_ms\"").count();
    if entries > MAX_ENTRIES {
        return Err(CassetteError::TooManyEntries {
            path: path_buf(),
            entries,
            cap: MAX_ENTRIES,
        });
    }
    let last_index = raw.len() - 1;
    let trailer = match serde_json::from_str::<Line>(raw[last_index]) {
        Ok(Line::Trailer(trailer)) if raw[last_index].ends_with('\n') => trailer,
        _ => {
            return Err(CassetteError::Truncated {
                path: path_buf(),
                reason: format!(
                    "no trailer line after line {}: the cassette was cut short",
                    last_index
                ),
            })
        }
    };
    let body_len: usize = raw[..last_index].iter().map(|l| l.len()).sum();
    if trailer.lines != last_index as u64 {
        return Err(CassetteError::Tampered {
            path: path_buf(),
            reason: format!(
                "the trailer counts {} lines, the file holds {last_index}",
                trailer.lines
            ),
        });
    }
    let found = digest(&text.as_bytes()[..body_len]);
    if found != trailer.digest {
        return Err(CassetteError::Tampered {
            path: path_buf(),
            reason: format!(
                "its lines hash to {found}, the trailer says {}",
                trailer.digest
            ),
        });
    }
    let mut header = None;
    let mut cassette_peers = Vec::new();
    let mut runs = Vec::new();
    for (index, line) in raw[..last_index].iter().enumerate() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Header(h)) if index == 0 => header = Some(h),
            Ok(Line::Peer(p)) if index > 0 => cassette_peers.push(p),
            Ok(Line::Run(r)) if index > 0 => runs.push(r),
            Ok(_) => return Err(malformed(index + 1, "a line out of place".into())),
            Err(e) => return Err(malformed(index + 1, e.to_string())),
        }
    }
    let header = header.ok_or_else(|| malformed(1, "no header".into()))?;
    Ok(Cassette {
        header,
        peers: cassette_peers,
        runs,
    })
}

/// Refuses a first line that is not a header of this format and version,
/// before anything else is read (another version may not parse at all).
fn check_header(path: &Path, first: &str) -> Result<(), CassetteError> {
    let value: serde_json::Value =
        serde_json::from_str(first).map_err(|e| CassetteError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            reason: format!("not a cassette header: {e}"),
        })?;
    let format = value.get("format").and_then(|f| f.as_str());
    if value.get("type").and_then(|t| t.as_str()) != Some("header") || format != Some(FORMAT) {
        return Err(CassetteError::Malformed {
            path: path.to_path_buf(),
            line: 1,
            reason: format!("not an {FORMAT} header"),
        });
    }
    let found = value.get("version").and_then(|v| v.as_u64()).unwrap_or(0);
    if found != u64::from(FORMAT_VERSION) {
        return Err(CassetteError::OtherVersion {
            path: path.to_path_buf(),
            found: u32::try_from(found).unwrap_or(u32::MAX),
            expected: FORMAT_VERSION,
        });
    }
    Ok(())
}
