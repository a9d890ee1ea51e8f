//! What `a2a-conform config show [PEER]` prints: each `check` setting's
//! effective value, the layer it came from, and the lower layers it won
//! over, from the resolver's own answer (so what it shows is what a check
//! uses). Secrets are never shown: header values, any flag whose name
//! says token, header, secret or key, and any variable [`secret_var`]
//! names, read `(redacted)`.

use super::layer::{Layer, Sources};
use super::resolve::{Resolved, Sourced};
use std::fmt::Write;

/// The precedence line `config show` starts with.
pub const PRECEDENCE: &str =
    "precedence, most specific first: flag > env var > the peer's own settings \
(fleet entry, profile, config section) > config file top level > built-in default";

/// One setting as shown: its value, where it came from, and what it won over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShowLine {
    pub flag: String,
    pub value: String,
    pub layer: Layer,
    pub overridden: Vec<(Layer, String)>,
}

/// Whether a flag's values must not be shown: its name says it holds a
/// token, a header, a secret or a key.
pub fn secret_flag(long: &str) -> bool {
    ["token", "header", "secret", "key"]
        .iter()
        .any(|word| long.contains(word))
}

/// Whether a variable's value is a secret: its name ends in token,
/// secret, password or key (the default suite's `push_token`, an
/// `api_key`). Its value is masked in every output of a check, and `config
/// show` reads it `(redacted)`. Only the ending counts: a `keyword_mode`
/// holding `text` must not mask every `text` of the report.
pub fn secret_var(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["token", "secret", "password", "key"]
        .iter()
        .any(|word| name.ends_with(word))
}

impl ShowLine {
    /// A flag's line from clap's values and their source; `values` are the
    /// flag's values as given (empty: unset).
    pub fn from_values(long: &str, values: &[String], sources: &Sources) -> ShowLine {
        let value = if values.is_empty() {
            "(unset)".to_string()
        } else {
            values.join(", ")
        };
        ShowLine {
            flag: format!("--{long}"),
            value,
            layer: sources.layer(long),
            overridden: sources.under(long).to_vec(),
        }
        .redacted(long)
    }

    fn redacted(mut self, long: &str) -> ShowLine {
        if secret_flag(long) && long != "header" {
            if self.value != "(unset)" {
                self.value = "(redacted)".into();
            }
            for (_, value) in &mut self.overridden {
                *value = "(redacted)".into();
            }
        }
        self
    }
}

/// One setting's line from the resolver, with the lower layers of flag, env
/// var and config top level that `sources` knows of (for a single value: a
/// map's entries are resolved one by one, and its text there is the whole list).
fn resolved_line<T>(
    long: &str,
    sourced: Option<&Sourced<T>>,
    show: impl Fn(&T) -> String,
    sources: &Sources,
) -> ShowLine {
    let Some(sourced) = sourced else {
        return ShowLine::from_values(long, &[], sources);
    };
    let mut overridden: Vec<(Layer, String)> = sourced
        .overridden
        .iter()
        .map(|(layer, v)| (layer.clone(), show(v)))
        .collect();
    if !matches!(long, "var" | "header") {
        overridden.extend(sources.under(long).iter().cloned());
    }
    overridden.sort_by_key(|(layer, _)| layer.rank());
    ShowLine {
        flag: format!("--{long}"),
        value: show(&sourced.value),
        layer: sourced.layer.clone(),
        overridden,
    }
    .redacted(long)
}

impl Resolved {
    /// `config show`'s lines for `--long`, when it is a per-peer setting.
    pub fn show_lines(&self, long: &str, sources: &Sources) -> Option<Vec<ShowLine>> {
        let path = |p: &std::path::PathBuf| p.display().to_string();
        let text = |s: &String| s.clone();
        let line = match long {
            "var" => return Some(self.var_lines(sources)),
            "header" => return Some(self.header_lines(sources)),
            "timeout" => resolved_line(
                long,
                Some(&self.timeout),
                |t| humantime::format_duration(*t).to_string(),
                sources,
            ),
            "bearer-env" => resolved_line(long, self.bearer_env.as_ref(), text, sources),
            "api-key-env" => resolved_line(long, self.api_key_env.as_ref(), text, sources),
            "basic-env" => resolved_line(long, self.basic_env.as_ref(), text, sources),
            "oauth-client-id-env" => {
                resolved_line(long, self.oauth_client.as_ref(), |p| p.0.clone(), sources)
            }
            "oauth-client-secret-env" => {
                resolved_line(long, self.oauth_client.as_ref(), |p| p.1.clone(), sources)
            }
            "cacert" => resolved_line(long, self.cacert.as_ref(), path, sources),
            "cert" => resolved_line(long, self.client_cert.as_ref(), |p| path(&p.0), sources),
            "key" => resolved_line(long, self.client_cert.as_ref(), |p| path(&p.1), sources),
            _ => return None,
        };
        Some(vec![line])
    }

    fn var_lines(&self, sources: &Sources) -> Vec<ShowLine> {
        if self.vars.is_empty() {
            return vec![ShowLine::from_values("var", &[], sources)];
        }
        self.vars
            .iter()
            .map(|(name, sourced)| {
                let shown = |v: &String| match secret_var(name) {
                    true => format!("{name}=(redacted)"),
                    false => format!("{name}={v}"),
                };
                resolved_line("var", Some(sourced), shown, sources)
            })
            .collect()
    }

    fn header_lines(&self, sources: &Sources) -> Vec<ShowLine> {
        if self.headers.is_empty() {
            return vec![ShowLine::from_values("header", &[], sources)];
        }
        let shown = |h: &(String, String)| format!("{}: (redacted)", h.0);
        self.headers
            .iter()
            .map(|sourced| resolved_line("header", Some(sourced), shown, sources))
            .collect()
    }
}

/// The text of `config show`: the file in use (`file`), the precedence,
/// each line (`(wins)` where a lower layer set the value too), then each
/// peer section's keys.
pub fn render(file: &str, lines: &[ShowLine], sections: &[(String, Vec<String>)]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "config file: {file}");
    let _ = writeln!(out, "{PRECEDENCE}");
    for line in lines {
        let wins = if line.overridden.is_empty() {
            ""
        } else {
            " (wins)"
        };
        let _ = writeln!(
            out,
            "{:<28} {:<32} {}{wins}",
            line.flag, line.value, line.layer
        );
        for (layer, value) in &line.overridden {
            let _ = writeln!(out, "  {:<26} {value:<32} {layer}", "overridden");
        }
    }
    for (name, described) in sections {
        let _ = writeln!(out, "peer {name}:");
        for line in described {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::secret_var;

    #[test]
    fn a_variable_is_a_secret_by_the_end_of_its_name() {
        for name in ["push_token", "API_KEY", "client_secret", "db_password"] {
            assert!(secret_var(name), "{name}");
        }
        for name in ["keyword_mode", "prompt", "token_count", "probe_window"] {
            assert!(!secret_var(name), "{name}");
        }
    }
}
