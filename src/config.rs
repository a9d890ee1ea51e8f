//! Configuration like the field's tools (schemathesis, nextest): every
//! `check`/`demo` flag also reads an `A2A_CONFORM_*` environment variable,
//! and a config file (`a2a-conform.yaml` or `.config/a2a-conform.yaml`,
//! found walking up from the working directory) gives defaults for any of
//! them plus per-peer sections. Precedence is flag > env var > config file >
//! built-in default, and it comes from clap itself: env vars are set on each
//! argument and config values become each argument's default before the
//! command line is parsed. Nothing here names individual flags, so flags
//! added later get both for free.

use crate::cli::Cli;
use a2a_conform_protocol::card::discovery_url;
use a2a_conform_protocol::declaration::closest;
use a2a_conform_report::yaml::YamlError;
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Every configurable flag's environment variable starts with this.
pub const ENV_PREFIX: &str = "A2A_CONFORM_";
/// Names the config file to read (as `--config` does).
pub const CONFIG_ENV: &str = "A2A_CONFORM_CONFIG";
/// The names searched for in each directory from the working directory up.
pub const FILE_NAMES: [&str; 2] = ["a2a-conform.yaml", ".config/a2a-conform.yaml"];
/// The subcommands whose flags take env vars and config-file defaults.
const CONFIGURED: [&str; 2] = ["check", "demo"];
/// `card` shares these flags with `check` (same name, same meaning), so it
/// reads their env vars and config defaults too; its other flags (`--json`
/// is a switch there, a report path for `check`) take none.
const CARD: &str = "card";
const CARD_SHARED: [&str; 7] = [
    "protocol", "binding", "timeout", "cacert", "insecure", "cert", "key",
];
/// The config-file key holding per-peer sections; not a flag.
const PEERS_KEY: &str = "peers";

/// The environment variable of the flag `--long`: `--max-probe-window` is
/// `A2A_CONFORM_MAX_PROBE_WINDOW`.
pub fn env_name(long: &str) -> String {
    format!("{ENV_PREFIX}{}", long.to_uppercase().replace('-', "_"))
}

/// The command line with an environment variable on every named flag of
/// the configured subcommands (so `--help`, completions and man pages list
/// them). Positional arguments (the peers) take none.
pub fn command() -> clap::Command {
    subcommands().fold(Cli::command(), |cmd, (name, takes)| {
        cmd.mut_subcommand(name, |sub| with_env(sub, takes))
    })
}

/// Which flags of which subcommand take env vars and config defaults.
type Takes = fn(&str) -> bool;

fn subcommands() -> impl Iterator<Item = (&'static str, Takes)> {
    let every: Takes = |_| true;
    let shared: Takes = |long| CARD_SHARED.contains(&long);
    CONFIGURED
        .into_iter()
        .map(move |name| (name, every))
        .chain([(CARD, shared)])
}

fn with_env(sub: clap::Command, takes: Takes) -> clap::Command {
    let longs: Vec<(clap::Id, String)> = sub
        .get_arguments()
        .filter(|a| !a.is_positional())
        .filter_map(|a| a.get_long().map(|l| (a.get_id().clone(), l.to_string())))
        .filter(|(_, long)| takes(long))
        .collect();
    longs.into_iter().fold(sub, |sub, (id, long)| {
        sub.mut_arg(id, |a| a.env(env_name(&long)))
    })
}

/// Why the config file could not be used (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Invalid(#[from] YamlError),
    /// A per-peer section that cannot be used as a profile.
    #[error(transparent)]
    Section(Box<crate::profile::ProfileError>),
    /// A key that is no flag of `check` or `demo`.
    #[error("{file}:{line}:{column}: unknown key `{key}`{}: not a flag of `check` or `demo`, nor `peers`", did_you_mean(.suggestion))]
    UnknownKey {
        file: String,
        line: u64,
        column: u64,
        key: String,
        suggestion: Option<String>,
    },
    /// A value the flag's own parser refuses, or of the wrong shape.
    #[error("{file}:{line}:{column}: `{key}`: {problem}")]
    BadValue {
        file: String,
        line: u64,
        column: u64,
        key: String,
        problem: ValueProblem,
    },
    /// A peer named by a section of its own, but the section has no `url`.
    #[error("peer `{name}`: the config file's section `{name}` has no `url` (and `{name}` is not a URL)")]
    NoUrl { name: String },
    /// Two peers of one check with different sections: options are per check.
    #[error(
        "peers `{first}` and `{second}` have different config sections; check them one at a time"
    )]
    TwoSections { first: String, second: String },
}

/// Why a config value cannot be a flag's default.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueProblem {
    /// The flag's own value parser refused it (clap's message).
    #[error("{0}")]
    Refused(String),
    #[error("expected a single value (text, number or true/false)")]
    NotScalar,
    #[error("has no value")]
    NoValue,
    #[error("takes one value, not a list")]
    List,
    #[error("takes one value, not a map")]
    Map,
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// A per-peer section: the profile of the peer it names (by card URL, base
/// URL, or a name used in place of the URL together with `url`).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeerSection {
    /// The card or base URL, when the section's key is a name.
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Written as `--timeout` is (`30s`).
    #[serde(default, deserialize_with = "section_timeout")]
    pub timeout: Option<Duration>,
    #[serde(default)]
    pub bearer_env: Option<String>,
    /// As `--cacert`, for this peer; relative to the config file's directory.
    #[serde(default)]
    pub cacert: Option<PathBuf>,
    /// As `--cert`, for this peer (mTLS); needs `key`.
    #[serde(default)]
    pub cert: Option<PathBuf>,
    /// As `--key`, for this peer; needs `cert`.
    #[serde(default)]
    pub key: Option<PathBuf>,
    /// As `--api-key-env`, for this peer.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// As `--basic-env`, for this peer.
    #[serde(default)]
    pub basic_env: Option<String>,
    /// As `--oauth-client-id-env`, for this peer; needs the secret's.
    #[serde(default)]
    pub oauth_client_id_env: Option<String>,
    /// As `--oauth-client-secret-env`, for this peer; needs the id's.
    #[serde(default)]
    pub oauth_client_secret_env: Option<String>,
}

fn section_timeout<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(d)?;
    crate::cli::positive_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

impl PeerSection {
    /// The section as the profile it stands for.
    pub fn profile(&self) -> crate::profile::Profile {
        crate::profile::Profile {
            vars: self.vars.clone(),
            headers: self.headers.clone(),
            timeout: self.timeout,
            bearer_env: self.bearer_env.clone(),
            cacert: self.cacert.clone(),
            cert: self.cert.clone(),
            key: self.key.clone(),
            api_key_env: self.api_key_env.clone(),
            basic_env: self.basic_env.clone(),
            oauth_client_id_env: self.oauth_client_id_env.clone(),
            oauth_client_secret_env: self.oauth_client_secret_env.clone(),
        }
    }
}

/// One flag default as the file writes it.
#[derive(Debug, Clone)]
struct FlagDefault {
    long: String,
    values: Vec<String>,
    line: u64,
    column: u64,
}

/// A loaded config file: flag defaults and per-peer sections.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    pub path: PathBuf,
    flags: Vec<FlagDefault>,
    pub peers: BTreeMap<String, PeerSection>,
}

/// What the file holds besides flags; other keys are read as flags.
#[derive(Deserialize)]
struct PeersOnly {
    #[serde(default)]
    peers: BTreeMap<String, PeerSection>,
}

impl ConfigFile {
    /// Reads and validates `path` against the flags of `command`.
    pub fn load(path: &Path, command: &clap::Command) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        ConfigFile::parse(path, &text, command)
    }

    pub fn parse(
        path: &Path,
        text: &str,
        command: &clap::Command,
    ) -> Result<ConfigFile, ConfigError> {
        let file = path.display().to_string();
        let yaml = |e: serde_saphyr::Error| YamlError::new(&file, &e);
        let entries: Option<HashMap<Spanned<String>, Spanned<serde_json::Value>>> =
            serde_saphyr::from_str(text).map_err(yaml)?;
        let mut peers = serde_saphyr::from_str::<Option<PeersOnly>>(text)
            .map_err(yaml)?
            .map(|p| p.peers)
            .unwrap_or_default();
        let dir = path.parent().unwrap_or(Path::new(""));
        for (name, section) in &mut peers {
            let profile = section.profile().relative_to(dir);
            profile
                .check_pairs(&format!("{file}, peer {name}"))
                .map_err(|e| ConfigError::Section(Box::new(e)))?;
            (section.cacert, section.cert, section.key) =
                (profile.cacert, profile.cert, profile.key);
        }
        let mut entries: Vec<_> = entries.unwrap_or_default().into_iter().collect();
        entries.sort_by_key(|(k, _)| (k.referenced.line(), k.referenced.column()));
        let args: Vec<&clap::Arg> = CONFIGURED
            .iter()
            .filter_map(|name| command.find_subcommand(name))
            .flat_map(|sub| sub.get_arguments())
            .filter(|a| !a.is_positional() && a.get_long().is_some())
            .collect();
        let mut flags = Vec::new();
        for (key, value) in entries {
            if key.value == PEERS_KEY {
                continue;
            }
            let (line, column) = (key.referenced.line(), key.referenced.column());
            let spelled = key.value.replace('_', "-");
            let Some(arg) = args.iter().find(|a| {
                a.get_long() == Some(spelled.as_str()) || a.get_id().as_str() == key.value
            }) else {
                let longs = args.iter().filter_map(|a| a.get_long());
                return Err(ConfigError::UnknownKey {
                    file,
                    line,
                    column,
                    suggestion: closest(&spelled, longs).map(str::to_string),
                    key: key.value,
                });
            };
            let bad = |problem: ValueProblem| ConfigError::BadValue {
                file: file.clone(),
                line,
                column,
                key: key.value.clone(),
                problem,
            };
            let values = flag_values(arg, &value.value).map_err(bad)?;
            for v in &values {
                validate(arg, v).map_err(bad)?;
            }
            let long = arg.get_long().unwrap_or_default().to_string();
            flags.push(FlagDefault {
                long,
                values,
                line,
                column,
            });
        }
        Ok(ConfigFile {
            path: path.to_path_buf(),
            flags,
            peers,
        })
    }

    /// The section for `peer`: its key or `url` names the same card.
    pub fn section(&self, peer: &str) -> Option<(&str, &PeerSection)> {
        let card = discovery_url(peer).ok();
        self.peers
            .iter()
            .find(|(name, section)| {
                name.as_str() == peer
                    || section.url.as_deref() == Some(peer)
                    || card.as_ref().is_some_and(|card| {
                        [Some(name.as_str()), section.url.as_deref()]
                            .into_iter()
                            .flatten()
                            .any(|u| discovery_url(u).ok().as_ref() == Some(card))
                    })
            })
            .map(|(name, section)| (name.as_str(), section))
    }

    /// Where the default for `--long` was written, if the file sets it.
    fn place(&self, long: &str) -> Option<String> {
        self.flags
            .iter()
            .find(|f| f.long == long)
            .map(|f| format!("{}:{}:{}", self.path.display(), f.line, f.column))
    }
}

/// Runs `value` through `arg`'s own value parser (a one-argument command:
/// the real one's `requires`/`conflicts` would not resolve there).
fn validate(arg: &clap::Arg, value: &str) -> Result<(), ValueProblem> {
    let probe = clap::Arg::new("value")
        .long("value")
        .action(ArgAction::Set)
        .value_parser(arg.get_value_parser().clone());
    clap::Command::new("config")
        .no_binary_name(true)
        .arg(probe)
        .try_get_matches_from([OsString::from("--value"), OsString::from(value)])
        .map(|_| ())
        .map_err(|e| ValueProblem::Refused(clap_message(&e).replace("'--value <value>'", "it")))
}

/// clap's message without its `error: ` prefix and usage lines.
fn clap_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or_default();
    first.trim_start_matches("error: ").to_string()
}

/// A YAML value as the command-line values of `arg`: a scalar is one value,
/// a list several (for repeatable flags), and a map `NAME: VALUE` pairs
/// (written `NAME=VALUE` for `var`, `NAME: VALUE` for `header`).
fn flag_values(arg: &clap::Arg, value: &serde_json::Value) -> Result<Vec<String>, ValueProblem> {
    use serde_json::Value;
    let repeatable = matches!(arg.get_action(), ArgAction::Append);
    let scalar = |v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(ValueProblem::NotScalar),
    };
    match value {
        Value::Null => Err(ValueProblem::NoValue),
        Value::Array(items) if repeatable => items.iter().map(scalar).collect(),
        Value::Array(_) => Err(ValueProblem::List),
        Value::Object(map) if repeatable => {
            let separator = if arg.get_long() == Some("header") {
                ": "
            } else {
                "="
            };
            map.iter()
                .map(|(k, v)| scalar(v).map(|v| format!("{k}{separator}{v}")))
                .collect()
        }
        Value::Object(_) => Err(ValueProblem::Map),
        other => scalar(other).map(|v| vec![v]),
    }
}

/// Which config file to read, decided before clap parses (config values
/// are defaults clap must know): `--config FILE`, `--no-config`,
/// `A2A_CONFORM_CONFIG`, or the first file found walking up from `cwd`.
pub fn locate(args: &[OsString], cwd: &Path) -> Option<PathBuf> {
    let mut explicit = None;
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        let Some(text) = arg.to_str() else { continue };
        match text {
            "--" => break,
            "--no-config" => return None,
            "--config" => explicit = iter.next().map(PathBuf::from),
            _ => {
                if let Some(path) = text.strip_prefix("--config=") {
                    explicit = Some(PathBuf::from(path));
                }
            }
        }
    }
    if explicit.is_some() {
        return explicit;
    }
    if let Some(path) = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(path));
    }
    cwd.ancestors()
        .flat_map(|dir| FILE_NAMES.iter().map(move |name| dir.join(name)))
        .find(|path| path.is_file())
}

/// The command line with env vars, and the config file's values as the
/// defaults of the flags it sets.
pub fn configured_command(config: Option<&ConfigFile>) -> clap::Command {
    let mut cmd = command();
    if let Some(config) = config {
        for (name, takes) in subcommands() {
            cmd = cmd.mut_subcommand(name, |mut sub| {
                for flag in config.flags.iter().filter(|f| takes(&f.long)) {
                    let id = sub
                        .get_arguments()
                        .find(|a| a.get_long() == Some(flag.long.as_str()))
                        .map(|a| a.get_id().clone());
                    if let Some(id) = id {
                        let values = flag.values.clone();
                        sub = sub.mut_arg(id, |a| a.default_values(values));
                    }
                }
                sub
            });
        }
    }
    cmd
}

/// What `main` runs on: the parsed command line and the config file it used.
#[derive(Debug)]
pub struct Parsed {
    pub cli: Cli,
    pub config: Option<ConfigFile>,
}

/// Parses the process's command line with env vars and the config file
/// applied; a bad config file is an error, clap's own errors exit as clap
/// does (2).
pub fn parse() -> Result<Parsed, ConfigError> {
    let args: Vec<OsString> = std::env::args_os().collect();
    let cwd = std::env::current_dir().unwrap_or_default();
    let config = locate(&args, &cwd)
        .map(|path| ConfigFile::load(&path, &command()))
        .transpose()?;
    let matches = configured_command(config.as_ref()).get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    Ok(Parsed { cli, config })
}

/// A check's peers as URLs, and the config section that applies to them.
#[derive(Debug)]
pub struct ResolvedPeers {
    pub urls: Vec<String>,
    /// The section's name and contents.
    pub section: Option<(String, PeerSection)>,
}

/// Replaces peers given by a section name with the section's URL, and
/// returns the one section the peers have (different sections for peers
/// of one check are refused: options are per check).
pub fn resolve_peers(
    config: Option<&ConfigFile>,
    peers: &[String],
) -> Result<ResolvedPeers, ConfigError> {
    let Some(config) = config else {
        return Ok(ResolvedPeers {
            urls: peers.to_vec(),
            section: None,
        });
    };
    let mut urls = Vec::new();
    let mut found: Option<(String, PeerSection)> = None;
    for peer in peers {
        let section = config.section(peer);
        let url = match section {
            Some((name, s)) if name == peer && !peer.contains("://") => s
                .url
                .clone()
                .ok_or_else(|| ConfigError::NoUrl { name: peer.clone() })?,
            _ => peer.clone(),
        };
        if let Some((name, s)) = section {
            match &found {
                Some((first, _)) if first != name => {
                    return Err(ConfigError::TwoSections {
                        first: first.clone(),
                        second: name.to_string(),
                    })
                }
                _ => found = Some((name.to_string(), s.clone())),
            }
        }
        urls.push(url);
    }
    Ok(ResolvedPeers {
        urls,
        section: found,
    })
}

/// Whether an argument's values must not be shown: its name says it holds
/// a token, a header, a secret or a key.
fn secret_arg(long: &str) -> bool {
    ["token", "header", "secret", "key"]
        .iter()
        .any(|word| long.contains(word))
}

/// One effective setting of `config show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    pub flag: String,
    pub value: String,
    /// `flag`, `env NAME`, `config FILE:LINE:COL`, or `default`.
    pub source: String,
}

/// The effective `check` settings (no flags given) and where each came
/// from, secrets redacted.
pub fn effective(config: Option<&ConfigFile>) -> Vec<Setting> {
    let cmd = configured_command(config);
    let Some(check) = cmd.find_subcommand("check").cloned() else {
        return Vec::new();
    };
    // In the command's own order (setting a default moves an argument last).
    let args: Vec<clap::Arg> = command()
        .find_subcommand("check")
        .map(|c| c.get_arguments().cloned().collect())
        .unwrap_or_default();
    let matches: ArgMatches = match check.try_get_matches_from(["check", "PEER"]) {
        Ok(m) => m,
        Err(e) => {
            return vec![Setting {
                flag: "(env)".into(),
                value: clap_message(&e),
                source: "error".into(),
            }]
        }
    };
    let mut settings = Vec::new();
    for arg in args.iter().filter(|a| !a.is_positional()) {
        let Some(long) = arg.get_long() else { continue };
        let id = arg.get_id().as_str();
        let values: Vec<String> = matches
            .get_raw(id)
            .map(|raw| raw.map(|v| v.to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        let value = if values.is_empty() {
            "(unset)".to_string()
        } else if secret_arg(long) {
            "(redacted)".to_string()
        } else {
            values.join(", ")
        };
        let source = match matches.value_source(id) {
            Some(ValueSource::CommandLine) => "flag".to_string(),
            Some(ValueSource::EnvVariable) => format!("env {}", env_name(long)),
            Some(ValueSource::DefaultValue) => config
                .and_then(|c| c.place(long))
                .map(|p| format!("config {p}"))
                .unwrap_or_else(|| "default".into()),
            _ => "default".into(),
        };
        settings.push(Setting {
            flag: format!("--{long}"),
            value,
            source,
        });
    }
    settings
}

/// `a2a-conform config show [PEER]`: the config file in use, each `check`
/// setting with its source, and the section that applies to PEER.
pub fn show(config: Option<&ConfigFile>, peer: Option<&str>) -> Result<i32, ConfigError> {
    match config {
        Some(c) => println!("config file: {}", c.path.display()),
        None => println!(
            "config file: none ({} or {} walking up from the working directory, or --config FILE)",
            FILE_NAMES[0], FILE_NAMES[1]
        ),
    }
    println!("precedence: flag > env var > config file > built-in default");
    for s in effective(config) {
        println!("{:<28} {:<32} {}", s.flag, s.value, s.source);
    }
    let Some(config) = config else {
        return Ok(a2a_conform_report::exit::OK);
    };
    for (name, section) in &config.peers {
        if peer.is_some_and(|p| config.section(p).map(|(n, _)| n) != Some(name.as_str())) {
            continue;
        }
        println!("peer {name}:");
        if let Some(url) = &section.url {
            println!("  url: {url}");
        }
        for (k, v) in &section.vars {
            println!("  var {k} = {v}");
        }
        for k in section.headers.keys() {
            println!("  header {k}: (redacted)");
        }
        if let Some(t) = section.timeout {
            println!("  timeout: {}", humantime::format_duration(t));
        }
        if let Some(var) = &section.bearer_env {
            println!("  bearer_env: {var}");
        }
        // Paths, not contents: a key file's path is no secret.
        for (key, path) in [
            ("cacert", &section.cacert),
            ("cert", &section.cert),
            ("key", &section.key),
        ] {
            if let Some(path) = path {
                println!("  {key}: {}", path.display());
            }
        }
    }
    Ok(a2a_conform_report::exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        ConfigFile::parse(Path::new("a2a-conform.yaml"), text, &command())
    }

    #[test]
    fn every_check_flag_has_an_env_var_listed_in_help() {
        let mut cmd = command();
        let check = cmd.find_subcommand_mut("check").unwrap();
        let args: Vec<clap::Arg> = check.get_arguments().cloned().collect();
        let help = check.render_help().to_string();
        for arg in args.iter().filter(|a| !a.is_positional()) {
            let long = arg.get_long().unwrap();
            assert_eq!(arg.get_env(), Some(OsStr::new(&env_name(long))), "{long}");
            assert!(help.contains(&env_name(long)), "{long} missing from help");
        }
        assert!(help.contains("A2A_CONFORM_JOBS") && help.contains("A2A_CONFORM_JUNIT"));
    }

    #[test]
    fn unknown_keys_are_positioned_with_a_suggestion() {
        let e = parse("jobs: 2\njbos: 3\n").unwrap_err().to_string();
        assert!(
            e.starts_with("a2a-conform.yaml:2:1: unknown key `jbos`"),
            "{e}"
        );
        assert!(e.contains("did you mean `jobs`"), "{e}");
        let e = parse("peers:\n  x:\n    timout: 3s\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("a2a-conform.yaml:3:"), "{e}");
    }

    #[test]
    fn values_are_checked_by_the_flags_own_parser() {
        let e = parse("timeout: 30s\njobs: 0\n").unwrap_err().to_string();
        assert!(e.starts_with("a2a-conform.yaml:2:1: `jobs`:"), "{e}");
        let e = parse("timeout: [1s, 2s]\n").unwrap_err().to_string();
        assert!(e.contains("not a list"), "{e}");
        let c =
            parse("var: {probe_window: 2s}\nheader: [\"X-A: 1\"]\nfail_on_flaky: true\n").unwrap();
        let values: Vec<_> = c.flags.iter().map(|f| f.values.clone()).collect();
        assert_eq!(values[0], ["probe_window=2s"]);
        assert_eq!(values[2], ["true"]);
    }

    #[test]
    fn the_file_is_found_walking_up_and_flags_choose_another() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(deep.join(".config")).unwrap();
        std::fs::write(dir.path().join(FILE_NAMES[0]), "jobs: 2\n").unwrap();
        let argv = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
        let found = locate(&argv(&["a2a", "check"]), &deep).unwrap();
        assert_eq!(found, dir.path().join(FILE_NAMES[0]));
        std::fs::write(deep.join(FILE_NAMES[1]), "jobs: 3\n").unwrap();
        assert_eq!(
            locate(&argv(&["a2a"]), &deep).unwrap(),
            deep.join(FILE_NAMES[1])
        );
        assert_eq!(locate(&argv(&["a2a", "--no-config"]), &deep), None);
        assert_eq!(
            locate(&argv(&["a2a", "--config=x.yaml"]), &deep),
            Some(PathBuf::from("x.yaml"))
        );
    }

    #[test]
    fn sections_match_by_name_card_url_or_base_url() {
        let c = parse(
            "peers:\n  staging:\n    url: https://s.example\n    timeout: 5s\n  https://p.example/.well-known/agent-card.json:\n    vars: {a: b}\n",
        )
        .unwrap();
        assert_eq!(c.section("staging").unwrap().0, "staging");
        assert_eq!(c.section("https://s.example/").unwrap().0, "staging");
        assert!(c.section("https://p.example").is_some());
        assert!(c.section("https://q.example").is_none());
        let resolved = resolve_peers(Some(&c), &["staging".into()]).unwrap();
        assert_eq!(resolved.urls, ["https://s.example"]);
        assert_eq!(
            resolved.section.unwrap().1.timeout,
            Some(Duration::from_secs(5))
        );
        let e = resolve_peers(Some(&c), &["staging".into(), "https://p.example".into()]);
        assert!(matches!(e, Err(ConfigError::TwoSections { .. })));
    }
}
