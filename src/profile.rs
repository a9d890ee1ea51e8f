//! Per-peer profiles: a YAML file a team keeps beside its peer, holding the
//! variables, headers and timeouts that peer needs.

use crate::input::ReadError;
use crate::yaml::YamlError;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A profile as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Scenario variables (`prompt_input_required`, `probe_window`, …).
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// Extra request headers. Secrets belong in `bearer_env`, not here.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Bound on each request, written e.g. `30s`; parsed as `--timeout` is.
    #[serde(default, deserialize_with = "timeout")]
    pub timeout: Option<Duration>,
    /// The environment variable holding a bearer token.
    #[serde(default)]
    pub bearer_env: Option<String>,
    /// A CA (PEM) to trust for this peer, as `--cacert`. A relative path is
    /// read from the profile's own directory.
    #[serde(default)]
    pub cacert: Option<PathBuf>,
    /// The client certificate (PEM) this peer requires (mTLS), as `--cert`;
    /// needs `key`.
    #[serde(default)]
    pub cert: Option<PathBuf>,
    /// The client certificate's key (PEM), as `--key`; needs `cert`.
    #[serde(default)]
    pub key: Option<PathBuf>,
}

/// Why a profile could not be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error("profile {file} is larger than 4 MiB; a profile is a small YAML file")]
    TooLarge { file: String },
    #[error(transparent)]
    Invalid(#[from] YamlError),
    /// `cert` without `key`, or `key` without `cert`.
    #[error(
        "{file}: `{given}` needs `{missing}` (a client certificate is a certificate and its key)"
    )]
    HalfIdentity {
        file: String,
        given: &'static str,
        missing: &'static str,
    },
}

impl Profile {
    /// Reads a profile; errors name `file:line:col`.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let file = path.display().to_string();
        let text = match crate::input::read_capped(path, crate::input::YAML_CAP) {
            Ok(text) => text,
            Err(ReadError::TooLarge { .. }) => return Err(ProfileError::TooLarge { file }),
            Err(ReadError::Io(source)) => return Err(ProfileError::Read { file, source }),
        };
        let profile = Profile::parse(&file, &text)?;
        Ok(match path.parent() {
            Some(dir) => profile.relative_to(dir),
            None => profile,
        })
    }

    pub fn parse(name: &str, text: &str) -> Result<Profile, ProfileError> {
        let profile: Profile =
            serde_saphyr::from_str(text).map_err(|e| YamlError::new(name, &e))?;
        profile.check_identity(name)?;
        Ok(profile)
    }

    /// A client certificate is given whole or not at all.
    pub(crate) fn check_identity(&self, file: &str) -> Result<(), ProfileError> {
        let half = |given, missing| ProfileError::HalfIdentity {
            file: file.to_string(),
            given,
            missing,
        };
        match (&self.cert, &self.key) {
            (Some(_), None) => Err(half("cert", "key")),
            (None, Some(_)) => Err(half("key", "cert")),
            _ => Ok(()),
        }
    }

    /// The TLS files of a profile read from `dir`, so a profile (or config
    /// file) kept beside its certificates works from any working directory.
    pub fn relative_to(mut self, dir: &Path) -> Profile {
        for path in [&mut self.cacert, &mut self.cert, &mut self.key]
            .into_iter()
            .flatten()
        {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
        self
    }
}

fn timeout<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(deserializer)?;
    crate::cli::positive_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_reject_unknown_keys_with_a_position() {
        let p = Profile::parse("p.yaml", "vars:\n  prompt: hi\ntimeout: 5s\n").unwrap();
        assert_eq!(p.vars["prompt"], "hi");
        assert_eq!(p.timeout, Some(Duration::from_secs(5)));
        let e = Profile::parse("p.yaml", "vars: {}\ntimout: 5s\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p.yaml:2:1: unknown field `timout`"), "{e}");
    }

    #[test]
    fn tls_files_are_read_beside_the_profile_and_come_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("peer.yaml");
        std::fs::write(
            &path,
            "cacert: ca.pem\ncert: /abs/client.pem\nkey: client.key\n",
        )
        .unwrap();
        let p = Profile::load(&path).unwrap();
        assert_eq!(p.cacert, Some(dir.path().join("ca.pem")));
        assert_eq!(p.cert, Some(PathBuf::from("/abs/client.pem")));
        assert_eq!(p.key, Some(dir.path().join("client.key")));
        let e = Profile::parse("p.yaml", "cert: c.pem\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.yaml: `cert` needs `key` (a client certificate is a certificate and its key)"
        );
    }

    #[test]
    fn a_bad_timeout_is_refused_where_it_is_written() {
        for (text, says) in [
            ("timeout: soon\n", "`soon` is not a duration"),
            ("timeout: 0s\n", "more than zero"),
        ] {
            let e = Profile::parse("p.yaml", text).unwrap_err().to_string();
            assert!(e.starts_with("p.yaml:1:"), "{text:?} → {e}");
            assert!(e.contains(says), "{text:?} → {e}");
        }
    }
}
