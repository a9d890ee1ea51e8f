//! The one shape of a peer's own settings, whether a profile file, a config
//! file's `peers:` section or a fleet entry writes them: the same keys,
//! each optional, parsed the same way (a timeout as `--timeout` is, TLS
//! files relative to the file that names them). A section and a fleet
//! entry also say where the peer is (`url`) and may name a `profile` that
//! their own keys build on.

use a2a_conform_report::input::{read_capped, ReadError, YAML_CAP};
use a2a_conform_report::yaml::YamlError;
use serde::{Deserialize, Deserializer};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A peer's own settings. Each key is also a `check` flag of the same name
/// (`bearer_env` is `--bearer-env`); a map key (`vars`, `headers`) is set
/// when it holds an entry.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerSettings {
    /// The card or base URL (a config section keyed by a name, a fleet
    /// entry); a profile has none.
    #[serde(default)]
    pub url: Option<String>,
    /// A profile these settings build on (a config section, a fleet entry:
    /// their own keys win over it); a profile names none.
    #[serde(default)]
    pub profile: Option<PathBuf>,
    /// Scenario variables (`prompt_input_required`, `probe_window`, …), as `--var`.
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// Extra request headers, as `--header`. Secrets belong in `bearer_env`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Bound on each request, written e.g. `30s`; parsed as `--timeout` is.
    #[serde(default, deserialize_with = "timeout")]
    pub timeout: Option<Duration>,
    /// The environment variable holding a bearer token, as `--bearer-env`.
    #[serde(default)]
    pub bearer_env: Option<String>,
    /// A CA (PEM) to trust for this peer, as `--cacert`.
    #[serde(default)]
    pub cacert: Option<PathBuf>,
    /// The client certificate (PEM) this peer requires (mTLS), as `--cert`;
    /// needs `key`.
    #[serde(default)]
    pub cert: Option<PathBuf>,
    /// The client certificate's key (PEM), as `--key`; needs `cert`.
    #[serde(default)]
    pub key: Option<PathBuf>,
    /// The environment variable holding the API key of the card's apiKey
    /// scheme, as `--api-key-env`.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// `USER_VAR:PASS_VAR` for the card's http basic scheme, as `--basic-env`.
    #[serde(default)]
    pub basic_env: Option<String>,
    /// The OAuth 2.0 client id's variable, as `--oauth-client-id-env`; needs
    /// `oauth_client_secret_env`.
    #[serde(default)]
    pub oauth_client_id_env: Option<String>,
    /// The OAuth 2.0 client secret's variable, as `--oauth-client-secret-env`;
    /// needs `oauth_client_id_env`.
    #[serde(default)]
    pub oauth_client_secret_env: Option<String>,
}

/// Why a profile (or a section's or fleet entry's settings) cannot be used (exit 2).
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
    /// One of two keys that only work together (`cert`/`key`, the OAuth
    /// client's id and secret) without the other.
    #[error("{file}: `{given}` needs `{missing}` ({why})")]
    HalfPair {
        file: String,
        given: &'static str,
        missing: &'static str,
        why: &'static str,
    },
    /// `url` or `profile` in a profile file: they belong to the entry that
    /// names the profile.
    #[error("{file}: `{key}` is a key of a config section or a fleet entry, not of a profile")]
    NotAProfileKey { file: String, key: &'static str },
}

impl PeerSettings {
    /// Reads a profile file; errors name `file:line:col`, and its TLS files
    /// are read from its own directory.
    pub fn load(path: &Path) -> Result<PeerSettings, ProfileError> {
        let file = path.display().to_string();
        let text = match read_capped(path, YAML_CAP) {
            Ok(text) => text,
            Err(ReadError::TooLarge { .. }) => return Err(ProfileError::TooLarge { file }),
            Err(ReadError::Io(source)) => return Err(ProfileError::Read { file, source }),
        };
        let profile = PeerSettings::parse(&file, &text)?;
        Ok(match path.parent() {
            Some(dir) => profile.relative_to(dir),
            None => profile,
        })
    }

    /// Parses a profile's text; `name` names it in errors.
    pub fn parse(name: &str, text: &str) -> Result<PeerSettings, ProfileError> {
        let profile: PeerSettings =
            serde_saphyr::from_str(text).map_err(|e| YamlError::new(name, &e))?;
        let misplaced = [
            ("url", profile.url.is_some()),
            ("profile", profile.profile.is_some()),
        ];
        if let Some((key, _)) = misplaced.into_iter().find(|(_, set)| *set) {
            return Err(ProfileError::NotAProfileKey {
                file: name.to_string(),
                key,
            });
        }
        profile.check_pairs(name)?;
        Ok(profile)
    }

    /// Keys that only work together are given together: a client
    /// certificate and its key, an OAuth client's id and secret.
    pub fn check_pairs(&self, file: &str) -> Result<(), ProfileError> {
        let pairs = [
            (
                ("cert", self.cert.is_some()),
                ("key", self.key.is_some()),
                "a client certificate is a certificate and its key",
            ),
            (
                ("oauth_client_id_env", self.oauth_client_id_env.is_some()),
                (
                    "oauth_client_secret_env",
                    self.oauth_client_secret_env.is_some(),
                ),
                "an OAuth client is an id and a secret",
            ),
        ];
        for ((a, has_a), (b, has_b), why) in pairs {
            if has_a != has_b {
                let (given, missing) = if has_a { (a, b) } else { (b, a) };
                return Err(ProfileError::HalfPair {
                    file: file.to_string(),
                    given,
                    missing,
                    why,
                });
            }
        }
        Ok(())
    }

    /// The files these settings name (TLS files, a profile) read from
    /// `dir`, so a file kept beside its certificates works from any
    /// working directory.
    pub fn relative_to(mut self, dir: &Path) -> PeerSettings {
        for path in [
            &mut self.cacert,
            &mut self.cert,
            &mut self.key,
            &mut self.profile,
        ]
        .into_iter()
        .flatten()
        {
            if path.is_relative() {
                *path = dir.join(&*path);
            }
        }
        self
    }

    /// Whether these settings set nothing for the peer (a `url` alone sets nothing).
    pub fn is_empty(&self) -> bool {
        self == &PeerSettings {
            url: self.url.clone(),
            ..PeerSettings::default()
        }
    }

    /// One line per key set, as `config show` lists a section: header
    /// values redacted, paths shown (a key file's path is no secret).
    pub fn describe(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let text =
            |key: &str, value: &Option<String>| value.as_ref().map(|v| format!("{key}: {v}"));
        let path = |key: &str, value: &Option<PathBuf>| {
            value.as_ref().map(|p| format!("{key}: {}", p.display()))
        };
        lines.extend(text("url", &self.url));
        lines.extend(path("profile", &self.profile));
        lines.extend(self.vars.iter().map(|(k, v)| format!("var {k} = {v}")));
        lines.extend(
            self.headers
                .keys()
                .map(|k| format!("header {k}: (redacted)")),
        );
        lines.extend(
            self.timeout
                .map(|t| format!("timeout: {}", humantime::format_duration(t))),
        );
        lines.extend(text("bearer_env", &self.bearer_env));
        lines.extend(text("api_key_env", &self.api_key_env));
        lines.extend(text("basic_env", &self.basic_env));
        lines.extend(text("oauth_client_id_env", &self.oauth_client_id_env));
        lines.extend(text(
            "oauth_client_secret_env",
            &self.oauth_client_secret_env,
        ));
        lines.extend(path("cacert", &self.cacert));
        lines.extend(path("cert", &self.cert));
        lines.extend(path("key", &self.key));
        lines
    }
}

fn timeout<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(deserializer)?;
    crate::cli::positive_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// One of a peer's own layers: settings and where they were written
/// (`profile FILE`, `config FILE, peer NAME`, `peers file FILE, peer URL`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerLayer {
    pub origin: String,
    pub settings: PeerSettings,
}

/// Profiles read once per check, however many fleet entries name one.
#[derive(Debug, Default)]
pub struct Profiles {
    read: HashMap<PathBuf, PeerSettings>,
}

impl Profiles {
    /// The profile at `path` as a layer.
    pub fn layer(&mut self, path: &Path) -> Result<PeerLayer, ProfileError> {
        let settings = match self.read.get(path) {
            Some(settings) => settings.clone(),
            None => {
                let settings = PeerSettings::load(path)?;
                self.read.insert(path.to_path_buf(), settings.clone());
                settings
            }
        };
        Ok(PeerLayer {
            origin: format!("profile {}", path.display()),
            settings,
        })
    }

    /// A section's or fleet entry's layers, most specific first: its own
    /// keys, then the profile it names (none when it sets nothing).
    pub fn entry(
        &mut self,
        origin: String,
        settings: &PeerSettings,
    ) -> Result<Vec<PeerLayer>, ProfileError> {
        let mut layers = Vec::new();
        if !settings.is_empty() {
            let own = PeerSettings {
                url: None,
                profile: None,
                ..settings.clone()
            };
            if !own.is_empty() {
                layers.push(PeerLayer {
                    origin,
                    settings: own,
                });
            }
        }
        if let Some(path) = &settings.profile {
            layers.push(self.layer(path)?);
        }
        Ok(layers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_names_no_url_and_no_profile() {
        for (text, key) in [
            ("url: http://p\n", "url"),
            ("profile: other.yaml\n", "profile"),
        ] {
            let e = PeerSettings::parse("p.yaml", text).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("p.yaml: `{key}` is a key of a config section or a fleet entry, not of a profile")
            );
        }
        assert_eq!(
            PeerSettings::parse("p.yaml", "vars: {}\n").unwrap(),
            PeerSettings::default()
        );
    }

    #[test]
    fn an_entry_is_its_own_keys_over_the_profile_it_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("p.yaml"), "timeout: 9s\ncacert: ca.pem\n").unwrap();
        let entry = PeerSettings {
            url: Some("http://p".into()),
            profile: Some("p.yaml".into()),
            bearer_env: Some("TOKEN".into()),
            ..PeerSettings::default()
        }
        .relative_to(dir.path());
        let mut profiles = Profiles::default();
        let layers = profiles
            .entry("fleet f, peer http://p".into(), &entry)
            .unwrap();
        assert_eq!(layers.len(), 2);
        assert_eq!(layers[0].settings.bearer_env.as_deref(), Some("TOKEN"));
        assert_eq!(layers[0].settings.url, None);
        let profile = &layers[1];
        assert_eq!(
            profile.origin,
            format!("profile {}", dir.path().join("p.yaml").display())
        );
        assert_eq!(profile.settings.timeout, Some(Duration::from_secs(9)));
        assert_eq!(profile.settings.cacert, Some(dir.path().join("ca.pem")));
        let url_only = PeerSettings {
            url: Some("http://p".into()),
            ..PeerSettings::default()
        };
        assert!(url_only.is_empty());
        assert!(profiles.entry("x".into(), &url_only).unwrap().is_empty());
    }
}
