//! A JSON report on disk. Reading one is done here and only here, for
//! `diff`, `merge` and any program that reads reports: the file goes
//! through the capped reader ([`crate::input`], [`REPORT_CAP`]), so
//! `/dev/zero` or a huge sparse file is refused at once; its
//! `schema_version` is read before anything else and must be the one this
//! build writes ([`SCHEMA_VERSION`]), so a report of another version is
//! refused with both versions named instead of half-read. Writing is
//! atomic, so a crash never leaves half a report for CI to read.

use crate::input::{read_capped, ReadError, REPORT_CAP};
use crate::{RunReport, SCHEMA_VERSION};
use std::path::{Path, PathBuf};

/// Why a report file cannot be read (exit 2): every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be opened or read.
    #[error("cannot read {file}: {source}")]
    Read {
        /// The file as named.
        file: String,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is larger than [`REPORT_CAP`] (or an endless stream).
    #[error("{file} is larger than {} MiB: not a report a2a-conform wrote", .cap / (1024 * 1024))]
    TooLarge {
        /// The file as named.
        file: String,
        /// The cap, in bytes.
        cap: u64,
    },
    /// The file is not JSON.
    #[error("{file} is not an a2a-conform JSON report: {source}")]
    NotJson {
        /// The file as named.
        file: String,
        /// Where the JSON broke.
        source: serde_json::Error,
    },
    /// JSON, but not an object with a numeric `schema_version`.
    #[error(
        "{file} is not an a2a-conform report: it has no numeric `schema_version` \
         (write one with `a2a-conform check … --json FILE`)"
    )]
    NoSchemaVersion {
        /// The file as named.
        file: String,
    },
    /// A report of a schema version this build does not read.
    #[error(
        "{file} has schema_version {version}; \
         this a2a-conform reads schema_version {SCHEMA_VERSION}"
    )]
    UnsupportedVersion {
        /// The file as named.
        file: String,
        /// The version the file declares.
        version: u64,
    },
    /// The version is right, but the report does not have its shape.
    #[error("{file} is not a valid a2a-conform report (schema_version {version}): {source}")]
    Invalid {
        /// The file as named.
        file: String,
        /// The version the file declares.
        version: u64,
        /// The field that does not fit.
        source: serde_json::Error,
    },
}

/// A report read from a file, named by its path in messages.
#[derive(Debug, Clone)]
pub struct ReportFile {
    /// The file as named on the command line.
    pub file: String,
    /// The report it holds.
    pub report: RunReport,
}

impl ReportFile {
    /// Reads a JSON report a2a-conform wrote: within [`REPORT_CAP`] (so
    /// `/dev/zero` or a huge sparse file is refused at once), its
    /// `schema_version` read first and required to be this build's
    /// [`SCHEMA_VERSION`] (another version is refused naming both), then
    /// parsed. Every error names the file.
    pub fn load(path: &Path) -> Result<ReportFile, LoadError> {
        let probed = Probed::read(path)?;
        if probed.version != u64::from(SCHEMA_VERSION) {
            return Err(LoadError::UnsupportedVersion {
                file: probed.file,
                version: probed.version,
            });
        }
        probed.parse()
    }
}

impl RunReport {
    /// Reads a JSON report from `path` (see [`ReportFile::load`]).
    pub fn load(path: &Path) -> Result<RunReport, LoadError> {
        ReportFile::load(path).map(|loaded| loaded.report)
    }
}

/// A report file read within the cap, with the schema version it declares
/// and not parsed yet: `diff` compares two files' versions before either
/// is parsed, so a mismatch is named as one.
pub struct Probed {
    /// The file, as named.
    pub file: String,
    /// The `schema_version` it declares.
    pub version: u64,
    text: String,
}

/// Only the version: the rest is skipped, not built into a JSON tree.
#[derive(serde::Deserialize)]
struct VersionProbe {
    schema_version: Option<serde_json::Value>,
}

impl Probed {
    /// Reads `path` within the cap and finds its `schema_version`.
    pub fn read(path: &Path) -> Result<Probed, LoadError> {
        let file = path.display().to_string();
        let text = match read_capped(path, REPORT_CAP) {
            Ok(text) => text,
            Err(ReadError::TooLarge { cap }) => return Err(LoadError::TooLarge { file, cap }),
            Err(ReadError::Io(source)) => return Err(LoadError::Read { file, source }),
        };
        let probe = match serde_json::from_str::<VersionProbe>(&text) {
            // serde reads a struct from an array too (`[1]` would be version 1).
            Ok(_) if !text.trim_start().starts_with('{') => {
                return Err(LoadError::NoSchemaVersion { file })
            }
            Ok(probe) => probe,
            Err(source) if source.is_syntax() || source.is_eof() => {
                return Err(LoadError::NotJson { file, source })
            }
            // JSON, but not an object: it has no `schema_version`.
            Err(_) => return Err(LoadError::NoSchemaVersion { file }),
        };
        let Some(version) = probe
            .schema_version
            .as_ref()
            .and_then(serde_json::Value::as_u64)
        else {
            return Err(LoadError::NoSchemaVersion { file });
        };
        Ok(Probed {
            file,
            version,
            text,
        })
    }

    /// The report itself.
    pub fn parse(self) -> Result<ReportFile, LoadError> {
        match serde_json::from_str(&self.text) {
            Ok(report) => Ok(ReportFile {
                file: self.file,
                report,
            }),
            Err(source) => Err(LoadError::Invalid {
                file: self.file,
                version: self.version,
                source,
            }),
        }
    }
}

/// The directory a file of `path` is written in (`.` for a bare name).
fn directory_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes a file atomically: a temporary file beside it, then a rename, so a
/// crash never leaves half a report for CI to read. A symbolic link is
/// written through (its target is replaced, the link kept), and a file
/// that is no regular file (`/dev/null`, `/dev/stdout`, a FIFO) is written
/// into: a rename would replace the device or pipe itself.
pub fn write_atomically(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(special) = special_file(path) {
        let mut file = std::fs::OpenOptions::new().write(true).open(special)?;
        return file.write_all(contents.as_bytes());
    }
    let linked;
    let path = match std::fs::canonicalize(path) {
        Ok(target) if is_symlink(path) => {
            linked = target;
            linked.as_path()
        }
        _ => path,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let tmp = directory_of(path).join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, contents)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// `path` when it exists (links followed) and is neither a regular file
/// nor a directory: a device, a FIFO, a socket.
fn special_file(path: &Path) -> Option<&Path> {
    std::fs::metadata(path)
        .is_ok_and(|m| !m.is_file() && !m.is_dir())
        .then_some(path)
}

/// Whether two report paths name the same regular file (or would, once
/// written): two reports there would leave only the last. Two names of one
/// device (`/dev/null` twice) are not: each report goes into it.
pub fn same_report_file(a: &Path, b: &Path) -> bool {
    if special_file(a).is_some() || special_file(b).is_some() {
        return false;
    }
    let resolved = |p: &Path| {
        std::fs::canonicalize(p).ok().or_else(|| {
            let parent = std::fs::canonicalize(directory_of(p)).ok()?;
            Some(parent.join(p.file_name()?))
        })
    };
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// Checks that [`write_atomically`] can later write `path`: not a
/// directory, and its directory takes a new file (one is created and
/// removed), unless it is a device or FIFO, written into as it is.
pub fn check_writable(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    if special_file(path).is_some() {
        return Ok(());
    }
    let path = std::fs::canonicalize(path)
        .ok()
        .filter(|_| is_symlink(path))
        .unwrap_or_else(|| path.to_path_buf());
    let probe = directory_of(&path).join(format!(".a2a-conform-probe.{}.tmp", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_link_is_written_through_and_a_fifo_into() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let target = write(dir.path(), "target.json", "old");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        check_writable(&link).unwrap();
        write_atomically(&link, "new").unwrap();
        assert!(is_symlink(&link), "the link is kept");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // A FIFO stays a FIFO, and its reader gets the report.
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        check_writable(&fifo).unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_atomically(&fifo, "into the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "into the pipe");
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{kind:?}");
        // One file under two names is one file; a FIFO twice is not.
        assert!(same_report_file(&link, &target));
        let fresh = dir.path().join("fresh.xml");
        assert!(same_report_file(
            &fresh,
            &dir.path().join(".").join("fresh.xml")
        ));
        assert!(!same_report_file(&fresh, &target));
        assert!(!same_report_file(&fifo, &fifo));
    }

    #[test]
    fn a_report_round_trips_and_other_files_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let report = RunReport::new(vec![crate::PeerReport::new("http://p/card")]);
        let good = write(dir.path(), "good.json", &report.to_json());
        let loaded = ReportFile::load(&good).unwrap();
        assert_eq!(loaded.file, good.display().to_string());
        assert_eq!(loaded.report.peers[0].card_url, "http://p/card");

        let v2 = write(
            dir.path(),
            "v2.json",
            &report
                .to_json()
                .replace("\"schema_version\": 1,", "\"schema_version\": 2,"),
        );
        let e = RunReport::load(&v2).unwrap_err().to_string();
        assert!(
            e.ends_with("v2.json has schema_version 2; this a2a-conform reads schema_version 1"),
            "{e}"
        );
        let cases = [
            ("notes.txt", "not json", "is not an a2a-conform JSON report"),
            ("array.json", "[1]", "has no numeric `schema_version`"),
            ("text.json", r#"{"schema_version": "1"}"#, "has no numeric"),
            (
                "shape.json",
                r#"{"schema_version": 1, "peers": "none"}"#,
                "is not a valid a2a-conform report (schema_version 1)",
            ),
        ];
        for (name, text, says) in cases {
            let e = RunReport::load(&write(dir.path(), name, text))
                .unwrap_err()
                .to_string();
            assert!(e.contains(name) && e.contains(says), "{name}: {e}");
        }
        let e = RunReport::load(&dir.path().join("missing.json")).unwrap_err();
        assert!(matches!(e, LoadError::Read { .. }), "{e}");
    }

    #[test]
    fn an_endless_or_huge_file_is_refused_without_reading_it_whole() {
        let e = RunReport::load(Path::new("/dev/zero")).unwrap_err();
        assert!(matches!(e, LoadError::TooLarge { .. }), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        let e = RunReport::load(&big).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{} is larger than 64 MiB: not a report a2a-conform wrote",
                big.display()
            )
        );
    }

    #[test]
    fn atomic_write_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_atomically(&path, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
        check_writable(&path).unwrap();
        assert!(check_writable(dir.path()).is_err());
    }
}
