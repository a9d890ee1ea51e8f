//! A fleet of peers: the `check --peers FILE` list (YAML with per-peer
//! profile, headers and credential variable, or one URL a line) and the
//! `--shard K/N` slice that lets an existing engine (a CI matrix, a
//! Kubernetes indexed Job) split one check over machines. A leaf: the runner
//! and the app import it, it imports neither.

use crate::yaml::YamlError;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

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

/// `--shard K/N`: the K-th of N deterministic slices (1-based). Item `i` of
/// the plan belongs to shard `i mod N + 1`, so the N shards cover the plan
/// once, with no overlap, and each gets a near-equal share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the item at `position` (0-based, plan order) is this shard's.
    pub fn keeps(self, position: usize) -> bool {
        position % self.count as usize == (self.index - 1) as usize
    }

    /// The plan position of this shard's `nth` item (the inverse of [`Shard::keeps`]).
    pub fn position(self, nth: usize) -> usize {
        nth * self.count as usize + (self.index - 1) as usize
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A `--shard` value that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("must be K/N with 1 <= K <= N, e.g. 2/4")]
pub struct ShardSyntaxError;

impl FromStr for Shard {
    type Err = ShardSyntaxError;

    fn from_str(text: &str) -> Result<Shard, ShardSyntaxError> {
        let (k, n) = text.split_once('/').ok_or(ShardSyntaxError)?;
        let index: u32 = k.trim().parse().map_err(|_| ShardSyntaxError)?;
        let count: u32 = n.trim().parse().map_err(|_| ShardSyntaxError)?;
        if index == 0 || count == 0 || index > count {
            return Err(ShardSyntaxError);
        }
        Ok(Shard { index, count })
    }
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

    #[test]
    fn shards_cover_the_plan_once() {
        for count in 1..=5u32 {
            let mut owners = vec![0u32; 23];
            for index in 1..=count {
                let shard = Shard { index, count };
                let mut nth = 0;
                for (position, owner) in owners.iter_mut().enumerate() {
                    if shard.keeps(position) {
                        *owner += 1;
                        assert_eq!(shard.position(nth), position);
                        nth += 1;
                    }
                }
            }
            assert!(owners.iter().all(|&o| o == 1), "{count}: {owners:?}");
        }
        assert_eq!("2/4".parse::<Shard>(), Ok(Shard { index: 2, count: 4 }));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
            assert_eq!(bad.parse::<Shard>(), Err(ShardSyntaxError), "{bad}");
        }
    }
}
