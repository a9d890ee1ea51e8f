//! Per-peer profiles: a YAML file a team keeps beside its peer, holding the
//! variables, headers and timeouts that peer needs.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

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
    /// Bound on each request, e.g. `30s`.
    #[serde(default)]
    pub timeout: Option<String>,
    /// The environment variable holding a bearer token.
    #[serde(default)]
    pub bearer_env: Option<String>,
}

impl Profile {
    /// Reads a profile; errors name `file:line:col`.
    pub fn load(path: &Path) -> Result<Profile, String> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("error: cannot read profile {name}: {e}"))?;
        Profile::parse(&name, &text)
    }

    pub fn parse(name: &str, text: &str) -> Result<Profile, String> {
        serde_saphyr::from_str(text).map_err(|e| positioned_error(name, &e))
    }
}

/// A YAML error as `error: FILE:LINE:COL: message`, then saphyr's snippet.
pub fn positioned_error(name: &str, e: &serde_saphyr::Error) -> String {
    let (line, col) = e
        .location()
        .map(|l| (l.line(), l.column()))
        .unwrap_or((1, 1));
    let rendered = e.to_string().replace("<input>", name);
    let detail = rendered.lines().skip(1).collect::<Vec<_>>().join("\n");
    let first = rendered.lines().next().unwrap_or("");
    let message = first
        .trim_start_matches("error: ")
        .split_once(": ")
        .map(|(_, m)| m)
        .unwrap_or(first);
    format!("error: {name}:{line}:{col}: {message}\n{detail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_parse_and_reject_unknown_keys_with_a_position() {
        let p = Profile::parse("p.yaml", "vars:\n  prompt: hi\ntimeout: 5s\n").unwrap();
        assert_eq!(p.vars["prompt"], "hi");
        let e = Profile::parse("p.yaml", "vars: {}\ntimout: 5s\n").unwrap_err();
        assert!(
            e.starts_with("error: p.yaml:2:1: unknown field `timout`"),
            "{e}"
        );
    }
}
