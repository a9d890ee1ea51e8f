//! Configuration like the field's tools (schemathesis, nextest): every
//! `check`/`demo`/`watch` flag also reads an `A2A_CONFORM_*` environment variable,
//! and a config file (`a2a-conform.yaml` or `.config/a2a-conform.yaml`,
//! found walking up from the working directory, read within the input cap)
//! gives values for any of them plus per-peer sections. Env vars are set on
//! each argument and the file's top-level values become each argument's
//! default before the command line is parsed, so every value goes through
//! its flag's own parser; which layer gave a value is then read from clap's
//! record ([`sources`]), never guessed, so that [`crate::settings`] can put
//! the peer's own settings between the env var and the file's top level.
//! Nothing here names individual flags, so flags added later get all of it
//! for free.

use crate::cli::{CheckArgs, Cli};
use crate::settings::{
    FlagSource, Layer, PeerLayer, PeerSettings, ProfileError, Profiles, Sources,
};
use a2a_conform_protocol::card::discovery_url;
use a2a_conform_protocol::declaration::closest;
use a2a_conform_report::input::{read_capped, ReadError, YAML_CAP};
use a2a_conform_report::yaml::YamlError;
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Every configurable flag's environment variable starts with this.
pub const ENV_PREFIX: &str = "A2A_CONFORM_";
/// Names the config file to read (as `--config` does).
pub const CONFIG_ENV: &str = "A2A_CONFORM_CONFIG";
/// The names searched for in each directory from the working directory up.
pub const FILE_NAMES: [&str; 2] = ["a2a-conform.yaml", ".config/a2a-conform.yaml"];
/// The subcommands whose flags take env vars and config-file defaults.
const CONFIGURED: [&str; 3] = ["check", "demo", "watch"];
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
    #[error("config file {} is larger than {} MiB; a config file is a small YAML file", path.display(), YAML_CAP / (1024 * 1024))]
    TooLarge { path: PathBuf },
    #[error(transparent)]
    Invalid(#[from] YamlError),
    /// A per-peer section that cannot be used (or the profile it names).
    #[error(transparent)]
    Section(Box<ProfileError>),
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
    /// An env var of a `check` flag that its parser refuses (`config show`).
    #[error("the environment gives `check` a value it cannot use: {}", clap_message(.0))]
    Env(#[source] clap::Error),
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

/// One flag default as the file writes it.
#[derive(Debug, Clone)]
struct FlagDefault {
    long: String,
    values: Vec<String>,
    line: u64,
    column: u64,
}

/// A loaded config file: flag defaults and per-peer sections (the settings
/// of the peer each names: by card URL, base URL, or a name used in place
/// of the URL together with `url`).
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    pub path: PathBuf,
    flags: Vec<FlagDefault>,
    pub peers: BTreeMap<String, PeerSettings>,
}

/// What the file holds besides flags; other keys are read as flags.
#[derive(Deserialize)]
struct PeersOnly {
    #[serde(default)]
    peers: BTreeMap<String, PeerSettings>,
}

impl ConfigFile {
    /// Reads and validates `path` against the flags of `command`.
    pub fn load(path: &Path, command: &clap::Command) -> Result<ConfigFile, ConfigError> {
        let text = read_capped(path, YAML_CAP).map_err(|e| match e {
            ReadError::TooLarge { .. } => ConfigError::TooLarge {
                path: path.to_path_buf(),
            },
            ReadError::Io(source) => ConfigError::Read {
                path: path.to_path_buf(),
                source,
            },
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
            section
                .check_pairs(&format!("{file}, peer {name}"))
                .map_err(|e| ConfigError::Section(Box::new(e)))?;
            *section = std::mem::take(section).relative_to(dir);
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
    pub fn section(&self, peer: &str) -> Option<(&str, &PeerSettings)> {
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

    /// The layers of `peer`'s section, most specific first: its own keys,
    /// then the profile it names (none without a section).
    pub fn section_layers(
        &self,
        peer: &str,
        profiles: &mut Profiles,
    ) -> Result<Vec<PeerLayer>, ProfileError> {
        match self.section(peer) {
            Some((name, section)) => profiles.entry(
                format!("config {}, peer {name}", self.path.display()),
                section,
            ),
            None => Ok(Vec::new()),
        }
    }

    /// Where the value of `--long` was written and its values, if the file sets it.
    fn flag(&self, long: &str) -> Option<(String, &[String])> {
        self.flags.iter().find(|f| f.long == long).map(|f| {
            (
                format!("{}:{}:{}", self.path.display(), f.line, f.column),
                f.values.as_slice(),
            )
        })
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
                        // A flag the file gives is no longer required of the
                        // command line (clap does not count a default as given).
                        sub = sub.mut_arg(id, |a| a.default_values(values).required(false));
                    }
                }
                sub
            });
        }
    }
    cmd
}

/// What `main` runs on: the parsed command line, the config file it used,
/// and where each of the subcommand's values came from.
#[derive(Debug)]
pub struct Parsed {
    pub cli: Cli,
    pub config: Option<ConfigFile>,
    pub sources: Sources,
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
    let command = configured_command(config.as_ref());
    let matches = command.clone().get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let sources = sources(&command, &matches, config.as_ref());
    Ok(Parsed {
        cli,
        config,
        sources,
    })
}

/// Where each value of the subcommand `matches` ran came from, read from
/// clap's record: a value clap holds as a default is the config file's
/// when the file sets that flag (for that subcommand), the built-in
/// default otherwise. Also the lower layers that set it too, for `config show`.
pub fn sources(
    command: &clap::Command,
    matches: &ArgMatches,
    config: Option<&ConfigFile>,
) -> Sources {
    let mut out = Sources::default();
    let Some((name, matches)) = matches.subcommand() else {
        return out;
    };
    let Some(sub) = command.find_subcommand(name) else {
        return out;
    };
    if matches.subcommand().is_some() {
        // `config show`, `profile init`: their flags take no env var nor config value.
        return sources(sub, matches, None);
    }
    let takes = subcommands()
        .find(|(n, _)| *n == name)
        .map(|(_, takes)| takes);
    for arg in sub.get_arguments().filter(|a| !a.is_positional()) {
        let Some(long) = arg.get_long() else { continue };
        let configured = takes.is_some_and(|takes| takes(long));
        let in_file = config.filter(|_| configured).and_then(|c| c.flag(long));
        let env = arg
            .get_env()
            .filter(|_| configured)
            .map(|var| var.to_string_lossy().into_owned());
        let layer = match matches.value_source(arg.get_id().as_str()) {
            Some(ValueSource::CommandLine) => Layer::Flag,
            Some(ValueSource::EnvVariable) => Layer::Env(env.clone().unwrap_or_default()),
            Some(ValueSource::DefaultValue) => match &in_file {
                Some((place, _)) => Layer::Config(place.clone()),
                None => Layer::Default,
            },
            _ => Layer::Default,
        };
        let mut under = Vec::new();
        if layer == Layer::Flag {
            let set = env.and_then(|var| Some(var.clone()).zip(std::env::var(&var).ok()));
            if let Some((var, value)) = set.filter(|(_, v)| !v.is_empty()) {
                under.push((Layer::Env(var), value));
            }
        }
        if let Some((place, values)) = in_file.filter(|_| !matches!(layer, Layer::Config(_))) {
            under.push((Layer::Config(place), values.join(", ")));
        }
        if layer != Layer::Default || !under.is_empty() {
            out.insert(long, FlagSource { layer, under });
        }
    }
    out
}

/// What a `check` of one peer reads before its own settings: its
/// arguments with no flag given (env vars and the config file's top level
/// applied), where each came from, and each flag's values as text, in the
/// command's order (`config show`).
pub struct Effective {
    pub args: CheckArgs,
    pub sources: Sources,
    pub values: Vec<(String, Vec<String>)>,
}

/// [`Effective`] for the environment and `config`.
pub fn effective(config: Option<&ConfigFile>) -> Result<Effective, ConfigError> {
    let command = configured_command(config);
    let matches = command
        .clone()
        .try_get_matches_from(["a2a-conform", "check", "PEER"])
        .map_err(ConfigError::Env)?;
    let sources = sources(&command, &matches, config);
    let check = matches.subcommand_matches("check").ok_or_else(|| {
        ConfigError::Env(clap::Error::new(clap::error::ErrorKind::MissingSubcommand))
    })?;
    let args = CheckArgs::from_arg_matches(check).map_err(ConfigError::Env)?;
    // In the command's own order (setting a default moves an argument last).
    let values = self::command()
        .find_subcommand("check")
        .map(|c| c.get_arguments().cloned().collect::<Vec<_>>())
        .unwrap_or_default()
        .iter()
        .filter(|a| !a.is_positional())
        .filter_map(|a| {
            let long = a.get_long()?.to_string();
            let values = check
                .get_raw(a.get_id().as_str())
                .map(|raw| raw.map(|v| v.to_string_lossy().into_owned()).collect())
                .unwrap_or_default();
            Some((long, values))
        })
        .collect();
    Ok(Effective {
        args,
        sources,
        values,
    })
}

/// A check's peers as URLs, and the config section that applies to them.
#[derive(Debug)]
pub struct ResolvedPeers {
    pub urls: Vec<String>,
    /// The section's name and contents.
    pub section: Option<(String, PeerSettings)>,
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
    let mut found: Option<(String, PeerSettings)> = None;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::time::Duration;

    fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        ConfigFile::parse(Path::new("a2a-conform.yaml"), text, &command())
    }

    #[test]
    fn every_check_and_watch_flag_has_an_env_var_listed_in_help() {
        let mut cmd = command();
        for name in ["check", "watch"] {
            let sub = cmd.find_subcommand_mut(name).unwrap();
            let args: Vec<clap::Arg> = sub.get_arguments().cloned().collect();
            let help = sub.render_help().to_string();
            for arg in args.iter().filter(|a| !a.is_positional()) {
                let long = arg.get_long().unwrap();
                assert_eq!(arg.get_env(), Some(OsStr::new(&env_name(long))), "{long}");
                assert!(
                    help.contains(&env_name(long)),
                    "{name} {long} missing from help"
                );
            }
            assert!(help.contains("A2A_CONFORM_JOBS") && help.contains("A2A_CONFORM_JUNIT"));
        }
        let watch = cmd.find_subcommand_mut("watch").unwrap().render_help();
        assert!(watch.to_string().contains("A2A_CONFORM_EVERY"));
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
