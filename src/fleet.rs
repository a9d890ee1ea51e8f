//! A fleet of peers: the `check --peers FILE` list, one URL a line or YAML
//! whose `peers:` entries are each a URL or a peer with its own settings —
//! any key a profile holds ([`PeerSettings`]: vars, headers, timeout,
//! every credential variable, TLS files) and a `profile` they build on,
//! paths relative to the file. Read within the input cap. A leaf below the
//! app. (`--shard K/N` is the report crate's `shard`.)

use crate::settings::{PeerSettings, ProfileError};
use a2a_conform_report::input::{read_capped, ReadError, YAML_CAP};
use a2a_conform_report::yaml::YamlError;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::path::Path;

/// One peer of a fleet file: its URL and its own settings (empty for a bare URL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FleetPeer {
    /// Card URL, or base URL of the peer.
    pub url: String,
    /// What the entry sets besides its URL; its `url` is `None`.
    pub settings: PeerSettings,
}

/// An entry reads as the settings it carries (`peer.bearer_env`).
impl std::ops::Deref for FleetPeer {
    type Target = PeerSettings;
    fn deref(&self) -> &PeerSettings {
        &self.settings
    }
}

/// A fleet file entry: a bare URL or a peer with its own settings.
#[derive(Debug)]
enum Entry {
    Url(String),
    Peer(Box<PeerSettings>),
}

/// By hand rather than `untagged`, so a bad key keeps its line and column.
impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entry, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = Entry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a URL, or `url:` with the peer's own settings")
            }
            fn visit_str<E: de::Error>(self, url: &str) -> Result<Entry, E> {
                Ok(Entry::Url(url.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entry, A::Error> {
                PeerSettings::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|settings| Entry::Peer(Box::new(settings)))
            }
        }
        deserializer.deserialize_any(EntryVisitor)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FleetFile {
    peers: Vec<Entry>,
}

/// Why a fleet file cannot be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error("cannot read the peers file {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("the peers file {file} is larger than {} MiB; a fleet file lists peers", YAML_CAP / (1024 * 1024))]
    TooLarge { file: String },
    #[error(transparent)]
    Invalid(#[from] YamlError),
    #[error("the peers file {file} names no peer")]
    Empty { file: String },
    /// A line of a one-URL-a-line file that is no usable peer URL.
    #[error("{file}:{line}: {reason}")]
    BadLine {
        file: String,
        line: usize,
        reason: String,
    },
    /// An entry with settings but no `url`.
    #[error("the peers file {file}: peer #{number} has no `url`")]
    NoUrl { file: String, number: usize },
    /// An entry's settings that cannot be used (half a client certificate).
    #[error(transparent)]
    Settings(Box<ProfileError>),
}

/// Reads a fleet file (within the input cap): YAML (`peers:` list) or one
/// URL a line (`#` comments). Relative paths (profiles, TLS files) are
/// resolved against the file's directory.
pub fn load(path: &Path) -> Result<Vec<FleetPeer>, FleetError> {
    let file = path.display().to_string();
    let text = read_capped(path, YAML_CAP).map_err(|e| match e {
        ReadError::TooLarge { .. } => FleetError::TooLarge { file: file.clone() },
        ReadError::Io(source) => FleetError::Read {
            file: file.clone(),
            source,
        },
    })?;
    let mut peers = parse(&file, &text)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    for peer in &mut peers {
        peer.settings = std::mem::take(&mut peer.settings).relative_to(dir);
    }
    Ok(peers)
}

/// Parses a fleet file's text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<FleetPeer>, FleetError> {
    // (line number, text) of every line that is neither blank nor a comment.
    let lines: Vec<(usize, &str)> = text
        .lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(n, l)| (n + 1, l))
        .collect();
    let empty = || FleetError::Empty {
        file: file.to_string(),
    };
    // One URL a line, recognised by its first line (YAML would fold such
    // lines into one string): each line is then a peer URL, or an error
    // naming its line.
    let peers = match lines.first() {
        None => return Err(empty()),
        Some((_, first)) if is_url_word(first) => url_lines(file, &lines)?,
        Some(_) => {
            let parsed: FleetFile =
                serde_saphyr::from_str(text).map_err(|e| YamlError::new(file, &e))?;
            parsed
                .peers
                .into_iter()
                .enumerate()
                .map(|(i, entry)| peer(file, i + 1, entry))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    if peers.is_empty() {
        return Err(empty());
    }
    Ok(peers)
}

/// A single word with a scheme: a line of the one-URL-a-line form.
fn is_url_word(line: &str) -> bool {
    line.contains("://") && !line.contains(char::is_whitespace)
}

/// The peers of a one-URL-a-line file, each line checked as a card URL.
fn url_lines(file: &str, lines: &[(usize, &str)]) -> Result<Vec<FleetPeer>, FleetError> {
    lines
        .iter()
        .map(|&(line, url)| {
            let bad = |reason: String| FleetError::BadLine {
                file: file.to_string(),
                line,
                reason,
            };
            if !is_url_word(url) {
                return Err(bad(format!(
                    "`{}` is not a peer URL (one URL a line, each with http:// or https://)",
                    a2a_conform_report::inert::terminal(url)
                )));
            }
            a2a_conform_protocol::discovery_url(url).map_err(|e| bad(e.to_string()))?;
            Ok(FleetPeer {
                url: url.to_string(),
                ..FleetPeer::default()
            })
        })
        .collect()
}

/// The `number`-th entry as a peer: its URL taken out of its settings.
fn peer(file: &str, number: usize, entry: Entry) -> Result<FleetPeer, FleetError> {
    let mut settings = match entry {
        Entry::Url(url) => {
            return Ok(FleetPeer {
                url,
                ..FleetPeer::default()
            })
        }
        Entry::Peer(settings) => *settings,
    };
    let url = settings.url.take().ok_or_else(|| FleetError::NoUrl {
        file: file.to_string(),
        number,
    })?;
    settings
        .check_pairs(&format!("{file}, peer #{number}"))
        .map_err(|e| FleetError::Settings(Box::new(e)))?;
    Ok(FleetPeer { url, settings })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_lines_and_yaml_both_read() {
        let peers = parse(
            "f",
            "# fleet\nhttp://a.example\n\nhttps://b.example/card.json\n",
        )
        .expect("lines parse");
        let urls: Vec<&str> = peers.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(urls, ["http://a.example", "https://b.example/card.json"]);
        let yaml = "peers:\n  - http://a.example\n  - url: http://b.example\n    \
                    bearer_env: B_TOKEN\n    headers: {X-Tenant: b}\n    profile: b.yaml\n";
        let peers = parse("f", yaml).expect("yaml parses");
        assert_eq!(peers[0].url, "http://a.example");
        assert_eq!(peers[1].bearer_env.as_deref(), Some("B_TOKEN"));
        assert_eq!(peers[1].headers["X-Tenant"], "b");
        assert_eq!(peers[1].profile.as_deref(), Some(Path::new("b.yaml")));
    }

    #[test]
    fn unknown_keys_and_empty_files_are_refused() {
        let e = parse("f", "peers:\n  - url: http://a\n    tokn: x\n").unwrap_err();
        assert!(matches!(e, FleetError::Invalid(_)), "{e}");
        assert!(matches!(
            parse("f", "# nothing\n\n"),
            Err(FleetError::Empty { .. })
        ));
        // A bad line of a URL list is named by its line.
        let e = parse("f", "# fleet\nhttp://a\n127.0.0.1:9\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f:3: `127.0.0.1:9` is not a peer URL (one URL a line, each with http:// or https://)"
        );
        let e = parse("f", "http://a\nftp://b/\n").unwrap_err().to_string();
        assert!(
            e.starts_with("f:2: ") && e.contains("not http or https"),
            "{e}"
        );
        assert!(matches!(
            parse("f", "peers: []\n"),
            Err(FleetError::Empty { .. })
        ));
    }

    #[test]
    fn an_entry_carries_every_profile_key_and_is_checked_where_it_is_written() {
        let yaml = "peers:\n  - url: http://a\n    api_key_env: A_KEY\n    basic_env: U:P\n    \
                    oauth_client_id_env: ID\n    oauth_client_secret_env: SECRET\n    \
                    timeout: 5s\n    vars: {probe_window: 2s}\n    cacert: ca.pem\n";
        let peers = parse("f", yaml).expect("every profile key parses");
        let peer = &peers[0];
        assert_eq!(peer.url, "http://a");
        assert_eq!(peer.settings.url, None);
        assert_eq!(peer.api_key_env.as_deref(), Some("A_KEY"));
        assert_eq!(peer.basic_env.as_deref(), Some("U:P"));
        assert_eq!(peer.oauth_client_secret_env.as_deref(), Some("SECRET"));
        assert_eq!(peer.timeout, Some(std::time::Duration::from_secs(5)));
        assert_eq!(peer.vars["probe_window"], "2s");
        let e = parse("f", "peers:\n  - url: http://a\n    api_kee_env: X\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("f:3:"), "{e}");
        let e = parse("f", "peers:\n  - http://a\n  - bearer_env: T\n").unwrap_err();
        assert_eq!(e.to_string(), "the peers file f: peer #2 has no `url`");
        let e = parse("f", "peers:\n  - url: http://a\n    cert: c.pem\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "f, peer #1: `cert` needs `key` (a client certificate is a certificate and its key)"
        );
    }
}
