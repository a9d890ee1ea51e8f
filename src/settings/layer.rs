//! Where a setting came from: the layers of the one precedence order, and
//! clap's record of which layer gave each flag's value (read with
//! `ArgMatches::value_source`, so a config file's value, which clap holds
//! as the flag's default, is never mistaken for a flag).

use std::collections::BTreeMap;
use std::fmt;

/// One layer of the precedence order, most specific first: flag > env var
/// > the peer's own settings > the config file's top level > default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    /// Given on the command line.
    Flag,
    /// The flag's environment variable (its name).
    Env(String),
    /// One of the peer's own settings, named as errors name it: its fleet
    /// entry, its profile or its config section.
    Peer(String),
    /// The config file's top level, `FILE:LINE:COL`.
    Config(String),
    /// The built-in default, or a value the tool gives itself (the demo's
    /// short windows).
    Default,
}

impl Layer {
    /// The position in the precedence order: lower wins.
    pub fn rank(&self) -> u8 {
        match self {
            Layer::Flag => 0,
            Layer::Env(_) => 1,
            Layer::Peer(_) => 2,
            Layer::Config(_) => 3,
            Layer::Default => 4,
        }
    }

    /// Whether the layer is above the peer's own settings (flag, env var).
    pub fn explicit(&self) -> bool {
        self.rank() < 2
    }

    /// How an error names a value of `--long` from this layer: `--var`,
    /// `env A2A_CONFORM_VAR`, `profile FILE`, `config FILE:LINE:COL`.
    pub fn origin(&self, long: &str) -> String {
        match self {
            Layer::Flag => format!("--{long}"),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::Flag => f.write_str("flag"),
            Layer::Env(var) => write!(f, "env {var}"),
            Layer::Peer(origin) => f.write_str(origin),
            Layer::Config(place) => write!(f, "config {place}"),
            Layer::Default => f.write_str("default"),
        }
    }
}

/// Where one flag's value came from, and the lower layers among flag, env
/// var and config top level that set it too (their text, for `config show`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagSource {
    pub layer: Layer,
    pub under: Vec<(Layer, String)>,
}

/// Per long flag name, where the subcommand's value came from. A flag it
/// does not list has its built-in default (or no value).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    flags: BTreeMap<String, FlagSource>,
    /// No record (a [`crate::cli::Cli`] built by hand): every value counts
    /// as given on the command line.
    unrecorded: bool,
}

impl Sources {
    /// Sources for a command line parsed without a record of them: every
    /// value set counts as a flag.
    pub fn unrecorded() -> Sources {
        Sources {
            flags: BTreeMap::new(),
            unrecorded: true,
        }
    }

    /// Records where `--long`'s value came from.
    pub fn insert(&mut self, long: &str, source: FlagSource) {
        self.flags.insert(long.to_string(), source);
    }

    /// The layer of `--long`'s value.
    pub fn layer(&self, long: &str) -> Layer {
        match self.flags.get(long) {
            Some(source) => source.layer.clone(),
            None if self.unrecorded => Layer::Flag,
            None => Layer::Default,
        }
    }

    /// The lower layers that set `--long` too, each with its text.
    pub fn under(&self, long: &str) -> &[(Layer, String)] {
        self.flags
            .get(long)
            .map(|s| s.under.as_slice())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_rank_in_the_documented_order_and_name_themselves() {
        let order = [
            Layer::Flag,
            Layer::Env("A2A_CONFORM_TIMEOUT".into()),
            Layer::Peer("profile p.yaml".into()),
            Layer::Config("a2a-conform.yaml:1:1".into()),
            Layer::Default,
        ];
        assert!(order.windows(2).all(|w| w[0].rank() < w[1].rank()));
        let shown: Vec<String> = order.iter().map(|l| l.origin("timeout")).collect();
        assert_eq!(
            shown,
            [
                "--timeout",
                "env A2A_CONFORM_TIMEOUT",
                "profile p.yaml",
                "config a2a-conform.yaml:1:1",
                "default"
            ]
        );
        assert!(order[1].explicit() && !order[2].explicit());
        assert_eq!(Sources::default().layer("jobs"), Layer::Default);
        assert_eq!(Sources::unrecorded().layer("jobs"), Layer::Flag);
    }
}
