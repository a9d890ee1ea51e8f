//! Values in scenarios: `${name}` substitution, the built-in variables and
//! their defaults, and durations (`15s`, `500ms`, `2m`).

use std::time::Duration;

/// A built-in variable: name, default (None: unset), and what it is for.
pub struct Builtin {
    pub name: &'static str,
    pub default: Option<&'static str>,
    pub doc: &'static str,
}

/// The built-in variables every scenario may use. `probe_window` is computed
/// from the card when it declares a default timeout.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "prompt",
        default: Some("Hello from a2a-conform. Please reply briefly."),
        doc: "a short harmless text for a minimal task",
    },
    Builtin {
        name: "prompt_long",
        default: None,
        doc: "a text that keeps a task working for a while (default: `prompt`)",
    },
    Builtin {
        name: "prompt_input_required",
        default: None,
        doc: "a text that drives the peer into `input-required` (unset by default)",
    },
    Builtin {
        name: "probe_window",
        default: Some("15s"),
        doc: "how long a declared stream may stay silent: 2x the card's default timeout, else 15s",
    },
    Builtin {
        name: "task_window",
        default: Some("60s"),
        doc: "how long a task may take to reach a terminal or interrupted state",
    },
    Builtin {
        name: "quiet_window",
        default: Some("2s"),
        doc: "how long to watch a stream for events that must not come",
    },
    Builtin {
        name: "stable_reads",
        default: Some("2"),
        doc: "how many consecutive equal reads make a task's final state stable",
    },
    Builtin {
        name: "stable_interval",
        default: Some("1s"),
        doc: "the pause between stability reads",
    },
];

/// Variables set by `for_each` (`input_modes`: mode, declaration, skill;
/// `interfaces`: declaration, binding, interface_version, url).
pub const FOR_EACH_VARS: &[&str] = &[
    "mode",
    "declaration",
    "skill",
    "binding",
    "interface_version",
    "url",
];

/// Fields of a capture that `${capture.field}` may name.
pub const CAPTURE_FIELDS: &[&str] = &[
    "state",
    "code",
    "task_id",
    "context_id",
    "message",
    "http_status",
];

pub fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().any(|b| b.name == name)
}

/// The names referenced as `${name}` in a text, in order (`${a.b}` gives `a.b`).
pub fn references(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) => {
                names.push(after[..end].trim().to_string());
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    names
}

/// Replaces every `${name}` using `lookup`; the first name it cannot resolve is the error.
pub fn substitute<F>(text: &str, mut lookup: F) -> Result<String, String>
where
    F: FnMut(&str) -> Option<String>,
{
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unclosed `${{` in `{text}`"));
        };
        let name = after[..end].trim();
        match lookup(name) {
            Some(value) => out.push_str(&value),
            None => return Err(name.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Parses `15s`, `500ms`, `2m`, `1.5s`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (write e.g. 15s, 500ms, 2m)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "sec" | "secs" => value,
        "m" | "min" => value * 60.0,
        _ => {
            return Err(format!(
                "`{text}` has an unknown unit `{unit}` (use ms, s or m)"
            ))
        }
    };
    if !seconds.is_finite() || seconds > 86_400.0 {
        return Err(format!("`{text}` is not a sensible duration (at most 24h)"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// Formats a duration the way scenarios write them.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_and_reject() {
        assert_eq!(parse_duration("15s").unwrap(), Duration::from_secs(15));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5h").unwrap_err().contains("unknown unit"));
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
    }

    #[test]
    fn substitution_resolves_and_names_the_missing() {
        let out = substitute("a ${x} b ${ y }", |n| Some(n.to_uppercase())).unwrap();
        assert_eq!(out, "a X b Y");
        assert_eq!(substitute("${nope}", |_| None).unwrap_err(), "nope");
        assert_eq!(references("${a} and ${b.state}"), vec!["a", "b.state"]);
    }
}
