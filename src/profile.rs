//! Per-peer profiles: a YAML file a team keeps beside its peer, holding the
//! variables, headers and timeouts that peer needs; [`render_init`] writes
//! one from what `profile init` found on the card.

use a2a_conform_report::input::ReadError;
use a2a_conform_report::yaml::YamlError;
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
    /// One of two keys that only work together (`cert`/`key`, the OAuth
    /// client's id and secret) without the other.
    #[error("{file}: `{given}` needs `{missing}` ({why})")]
    HalfPair {
        file: String,
        given: &'static str,
        missing: &'static str,
        why: &'static str,
    },
}

impl Profile {
    /// Reads a profile; errors name `file:line:col`.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let file = path.display().to_string();
        let text =
            match a2a_conform_report::input::read_capped(path, a2a_conform_report::input::YAML_CAP)
            {
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
        profile.check_pairs(name)?;
        Ok(profile)
    }

    /// Keys that only work together are given together: a client
    /// certificate and its key, an OAuth client's id and secret.
    pub(crate) fn check_pairs(&self, file: &str) -> Result<(), ProfileError> {
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

/// What `profile init` found for one peer, to write as a profile.
pub struct Found<'a> {
    /// The card URL the profile is for.
    pub card_url: &'a str,
    pub name: &'a str,
    /// The card's security scheme names (for the auth hook).
    pub security_schemes: &'a [String],
    /// What the card's schemes need (`auth::profile_hints`).
    pub auth_hints: &'a [a2a_conform_client::auth::AuthHint],
    pub preconditions: &'a [a2a_conform_report::PreconditionReport],
}

/// The profile `profile init` writes: the variables the search found, each
/// with a comment saying where it came from, and a marked place for the
/// credentials (environment variable names, never values). It parses back
/// as a [`Profile`].
pub fn render_init(found: &Found<'_>) -> String {
    use a2a_conform_report::PreconditionOutcome;
    use std::fmt::Write;
    // YAML double-quoted scalars accept JSON strings, escapes included.
    let quote = |text: &str| serde_json::Value::String(text.to_string()).to_string();
    let comment = |text: &str| comment_text(text, 200);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# a2a-conform profile for {} ({}),",
        comment(found.name),
        comment(found.card_url)
    );
    let _ = writeln!(
        out,
        "# written by `a2a-conform profile init`. Pin it in CI:\n#   a2a-conform check {} --profile THIS-FILE",
        comment(found.card_url)
    );
    let mut vars = Vec::new();
    let _ = writeln!(out);
    for search in found.preconditions {
        match (search.outcome, &search.prompt, &search.source) {
            (PreconditionOutcome::Found, Some(prompt), Some(source)) => vars.push(format!(
                "  # {source} reached input-required ({} prompt(s) tried, {} task(s) started, {} canceled)\n  {}: {}",
                search.tried.len(),
                search.tasks_started,
                search.tasks_canceled,
                search.variable,
                quote(prompt)
            )),
            _ => {
                let _ = writeln!(
                    out,
                    "# {} not found: {}\n# set it by hand under vars: a text that makes this peer ask for input.",
                    search.variable,
                    comment(&search.message)
                );
            }
        }
    }
    if vars.is_empty() {
        let _ = writeln!(out, "vars: {{}}");
    } else {
        let _ = writeln!(out, "vars:\n{}", vars.join("\n"));
    }
    let _ = writeln!(out);
    out.push_str(&auth_hook(found.security_schemes, found.auth_hints));
    out
}

/// Peer text in a YAML comment: one line, no control characters (YAML
/// refuses most), at most `max` characters.
fn comment_text(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{2028}' || c == '\u{2029}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    a2a_conform_report::timeline::one_line(&flat, max)
}

/// The credentials part of an initialised profile: environment variable
/// names only, never a secret, each commented out for a person to confirm
/// (a profile naming an unset variable is refused).
pub fn auth_hook(schemes: &[String], hints: &[a2a_conform_client::auth::AuthHint]) -> String {
    let mut out = String::from("# --- auth (environment variable names only, never values) ---\n");
    if schemes.is_empty() {
        out.push_str("# The card declares no security scheme.\n");
        return out;
    }
    let names: Vec<String> = schemes.iter().map(|s| comment_text(s, 80)).collect();
    out.push_str(&format!(
        "# The card declares the security scheme(s): {}.\n",
        names.join(", ")
    ));
    for hint in hints {
        out.push_str(&format!(
            "# scheme {}: {}\n",
            comment_text(&hint.scheme, 80),
            comment_text(&hint.description, 160)
        ));
        for setting in &hint.settings {
            // Every credential flag is also a profile key of the same name.
            let key = setting.flag.trim_start_matches("--").replace('-', "_");
            out.push_str(&format!(
                "# {key}: {}\n",
                comment_text(&setting.suggested, 120)
            ));
        }
        if let Some(note) = &hint.note {
            out.push_str(&format!("#   note: {}\n", comment_text(note, 200)));
        }
    }
    out
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
    fn an_initialised_profile_parses_back_with_what_was_found() {
        use a2a_conform_report::{PreconditionOutcome, PreconditionReport};
        let search = |outcome, prompt: Option<&str>| PreconditionReport {
            variable: "prompt_input_required".into(),
            skill: None,
            outcome,
            prompt: prompt.map(str::to_string),
            source: prompt.map(|_| "skills[a].examples[0]".to_string()),
            tried: vec![],
            tasks_started: 1,
            tasks_canceled: 1,
            message: "no prompt the card offers reached input-required\nat all".into(),
            runs: vec![],
            evidence: vec![],
        };
        let found = [search(
            PreconditionOutcome::Found,
            Some("say \"when\"?\n# x: 1"),
        )];
        let schemes = ["bearer".to_string()];
        let text = render_init(&Found {
            card_url: "http://p/.well-known/agent-card.json",
            name: "peer\nvars: {evil: 1}",
            security_schemes: &schemes,
            auth_hints: &[],
            preconditions: &found,
        });
        let profile = Profile::parse("init.yaml", &text).expect(&text);
        assert_eq!(
            profile.vars.into_iter().collect::<Vec<_>>(),
            [(
                "prompt_input_required".to_string(),
                "say \"when\"?\n# x: 1".to_string()
            )]
        );
        assert_eq!(profile.bearer_env, None);
        assert!(
            text.contains("bearer") && text.contains("never values"),
            "{text}"
        );
        let missing = [search(PreconditionOutcome::NotFound, None)];
        let text = render_init(&Found {
            card_url: "http://p",
            name: "p",
            security_schemes: &[],
            auth_hints: &[],
            preconditions: &missing,
        });
        let profile = Profile::parse("init.yaml", &text).expect(&text);
        assert!(profile.vars.is_empty());
        assert!(text.contains("# prompt_input_required not found"), "{text}");
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
