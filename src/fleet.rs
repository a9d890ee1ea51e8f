//! A fleet of peers: the `check --peers FILE` list (YAML with per-peer
//! profile, headers and credential variable, or one URL a line). A leaf:
//! the app imports it. (`--shard K/N` is the report crate's `shard`.)

use a2a_conform_report::yaml::YamlError;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One peer of a fleet file, with what it needs beyond the command line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FleetPeer {
    /// Card URL, or base URL of the peer.
    pub url: String,
    /// A profile for this peer (relative to the fleet file); it replaces `--profile`.
    #[serde(default)]
    pub profile: Option<PathBuf>,
    /// Extra headers for this peer, added to `--header`. Secrets belong in `bearer_env`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The environment variable holding this peer's bearer token; it replaces `--bearer-env`.
    #[serde(default)]
    pub bearer_env: Option<String>,
}

/// A fleet file entry: a bare URL or a peer with its own settings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Entry {
    Url(String),
    Peer(FleetPeer),
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
    #[error(transparent)]
    Invalid(#[from] YamlError),
    #[error("the peers file {file} names no peer")]
    Empty { file: String },
}

/// Reads a fleet file: YAML (`peers:` list) or one URL a line (`#` comments).
/// Relative profile paths are resolved against the file's directory.
pub fn load(path: &Path) -> Result<Vec<FleetPeer>, FleetError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| FleetError::Read {
        file: file.clone(),
        source,
    })?;
    let mut peers = parse(&file, &text)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    for peer in &mut peers {
        if let Some(profile) = peer.profile.as_mut().filter(|p| p.is_relative()) {
            *profile = dir.join(&*profile);
        }
    }
    Ok(peers)
}

/// Parses a fleet file's text; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<FleetPeer>, FleetError> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    // One URL a line: every line a single word with a scheme. YAML would
    // fold such lines into one string, so this form is recognised first.
    let peers = if !lines.is_empty()
        && lines
            .iter()
            .all(|l| l.contains("://") && !l.contains(char::is_whitespace))
    {
        lines
            .into_iter()
            .map(|url| FleetPeer {
                url: url.to_string(),
                ..FleetPeer::default()
            })
            .collect()
    } else {
        let parsed: FleetFile =
            serde_saphyr::from_str(text).map_err(|e| YamlError::new(file, &e))?;
        parsed
            .peers
            .into_iter()
            .map(|entry| match entry {
                Entry::Url(url) => FleetPeer {
                    url,
                    ..FleetPeer::default()
                },
                Entry::Peer(peer) => peer,
            })
            .collect::<Vec<_>>()
    };
    if peers.is_empty() {
        return Err(FleetError::Empty {
            file: file.to_string(),
        });
    }
    Ok(peers)
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
            parse("f", "# nothing\n"),
            Err(FleetError::Invalid(_) | FleetError::Empty { .. })
        ));
        assert!(matches!(
            parse("f", "peers: []\n"),
            Err(FleetError::Empty { .. })
        ));
    }
}
