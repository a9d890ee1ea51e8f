//! Values in scenarios: `${name}` substitution, the built-in variables and
//! their defaults, durations (`15s`, `500ms`, `2m`) and counts, each checked
//! when the suite loads unless it is a `${…}` template resolved by the run.

use super::template::Template;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;
use std::time::Duration;

/// A built-in variable: name, default (None: unset), what it is for, and
/// the kind of value it takes.
pub struct Builtin {
    /// The name scenarios write it by (`${probe_window}`).
    pub name: &'static str,
    /// Its value unless something sets it (`None`: unset).
    pub default: Option<&'static str>,
    /// What it is for, in a line.
    pub doc: &'static str,
    /// The kind of value it takes.
    pub kind: BuiltinKind,
}

/// What a built-in variable's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltinKind {
    /// Any text.
    Text,
    /// A duration more than zero and at most 24h ([`parse_duration`]).
    Duration,
    /// A whole number of reads from 1 to 100 (the most `poll_until_stable` takes).
    Count,
}

impl Builtin {
    /// `None` if `value` suits this variable, else what it must be instead.
    /// An empty value unsets the variable and always suits.
    pub fn rejects(&self, value: &str) -> Option<&'static str> {
        if value.is_empty() {
            return None;
        }
        match self.kind {
            BuiltinKind::Text => None,
            // A zero window would judge an honest peer silent.
            BuiltinKind::Duration => parse_duration(value)
                .map_or(true, |d| d.is_zero())
                .then_some("a duration more than zero and at most 24h (e.g. 15s, 500ms, 2m)"),
            BuiltinKind::Count => Count::parse(value)
                .is_none()
                .then_some("a whole number from 1 to 100"),
        }
    }
}

/// The built-in variable called `name`, if there is one.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The built-in variables every scenario may use. `probe_window` is computed
/// from the card when it declares a default timeout.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "prompt",
        default: Some("Hello from a2a-conform. Please reply briefly."),
        doc: "a short harmless text for a minimal task",
        kind: BuiltinKind::Text,
    },
    Builtin {
        name: "prompt_long",
        default: None,
        doc: "a text that keeps a task working for a while (default: `prompt`)",
        kind: BuiltinKind::Text,
    },
    Builtin {
        name: "prompt_input_required",
        default: None,
        doc: "a text that drives the peer into `input-required` (unset by default)",
        kind: BuiltinKind::Text,
    },
    Builtin {
        name: "probe_window",
        default: Some("15s"),
        doc: "how long a declared stream may stay silent: 2x the card's default timeout, else 15s",
        kind: BuiltinKind::Duration,
    },
    Builtin {
        name: "task_window",
        default: Some("60s"),
        doc: "how long a task may take to reach a terminal or interrupted state",
        kind: BuiltinKind::Duration,
    },
    Builtin {
        name: "quiet_window",
        default: Some("2s"),
        doc: "how long to watch a stream for events that must not come",
        kind: BuiltinKind::Duration,
    },
    Builtin {
        name: "stable_reads",
        default: Some("2"),
        doc: "how many consecutive equal reads make a task's final state stable",
        kind: BuiltinKind::Count,
    },
    Builtin {
        name: "stable_interval",
        default: Some("1s"),
        doc: "the pause between stability reads",
        kind: BuiltinKind::Duration,
    },
];

/// Variables set by `for_each` (`input_modes`: mode, declaration, skill;
/// `interfaces`: declaration, binding, interface_version, url;
/// `interface_pairs`: those, interface and reference;
/// `signatures`: declaration, signature, kid; `output_modes`: as
/// `input_modes`; `extensions`, `required_extensions`: uri, declaration).
pub(crate) const FOR_EACH_VARS: &[&str] = &[
    "mode",
    "declaration",
    "skill",
    "binding",
    "interface_version",
    "url",
    "interface",
    "reference",
    "signature",
    "kid",
    "uri",
];

/// Whether `name` is a built-in variable.
pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.iter().any(|b| b.name == name)
}

/// Why a text is not a duration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationSyntaxError {
    /// No number where the duration starts (the text as given).
    #[error("`{0}` is not a duration (write e.g. 15s, 500ms, 2m)")]
    NotANumber(String),
    /// A number with a unit other than `ms`, `s` or `m`.
    #[error("`{text}` has an unknown unit `{unit}` (use ms, s or m)")]
    UnknownUnit {
        /// The text as given.
        text: String,
        /// The unit it named.
        unit: String,
    },
    /// Longer than 24 hours, or no finite number (the text as given).
    #[error("`{0}` is not a sensible duration (at most 24h)")]
    OutOfRange(String),
}

/// Parses `15s`, `500ms`, `2m`, `1.5s`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, DurationSyntaxError> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, "s"),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| DurationSyntaxError::NotANumber(text.to_string()))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" | "sec" | "secs" => value,
        "m" | "min" => value * 60.0,
        _ => {
            return Err(DurationSyntaxError::UnknownUnit {
                text: text.to_string(),
                unit: unit.to_string(),
            })
        }
    };
    if !seconds.is_finite() || seconds > 86_400.0 {
        return Err(DurationSyntaxError::OutOfRange(text.to_string()));
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

/// A duration as written: checked at load, or a template the run resolves
/// and parses (`${probe_window}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DurationValue {
    Literal(Duration),
    Template(Template),
}

impl DurationValue {
    /// The template a run resolves, if any.
    pub(crate) fn template(&self) -> Option<&Template> {
        match self {
            DurationValue::Literal(_) => None,
            DurationValue::Template(t) => Some(t),
        }
    }
}

/// The most consecutive reads `poll_until_stable` may ask for.
pub(crate) const MAX_READS: u32 = 100;

/// A count (`reads`) as written: a whole number from 1 to [`MAX_READS`]
/// checked at load, or a template the run resolves and checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Count {
    Literal(u32),
    Template(Template),
}

impl Count {
    /// Reads a count's text: `None` unless it is a whole number in range.
    pub(crate) fn parse(text: &str) -> Option<u32> {
        text.trim()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_READS).contains(n))
    }

    /// The template a run resolves, if any.
    pub(crate) fn template(&self) -> Option<&Template> {
        match self {
            Count::Literal(_) => None,
            Count::Template(t) => Some(t),
        }
    }
}

/// A scalar a duration or count is read from: YAML may give it as a number.
fn scalar<'de, D: Deserializer<'de>>(
    deserializer: D,
    expecting: &'static str,
) -> Result<String, D::Error> {
    struct Scalar(&'static str);
    impl Visitor<'_> for Scalar {
        type Value = String;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<String, E> {
            Ok(v.to_string())
        }
    }
    deserializer.deserialize_any(Scalar(expecting))
}

/// A text with references stays a template; one without is read now.
fn template_or<T, E: de::Error>(
    text: &str,
    literal: impl FnOnce(&str) -> Result<T, E>,
) -> Result<Result<T, Template>, E> {
    let template: Template = text.parse().map_err(E::custom)?;
    match template.as_literal() {
        Some(plain) => literal(plain).map(Ok),
        None => Ok(Err(template)),
    }
}

impl<'de> Deserialize<'de> for DurationValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<DurationValue, D::Error> {
        let text = scalar(
            deserializer,
            "a duration (15s, 500ms, 2m) or a ${…} template",
        )?;
        match template_or(&text, |plain| {
            parse_duration(plain).map_err(de::Error::custom)
        })? {
            Ok(d) => Ok(DurationValue::Literal(d)),
            Err(t) => Ok(DurationValue::Template(t)),
        }
    }
}

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Count, D::Error> {
        let text = scalar(deserializer, "a whole number or a ${…} template")?;
        let literal = |plain: &str| {
            Count::parse(plain).ok_or_else(|| {
                de::Error::custom(format!(
                    "`{plain}` is not a whole number from 1 to {MAX_READS}"
                ))
            })
        };
        match template_or(&text, literal)? {
            Ok(n) => Ok(Count::Literal(n)),
            Err(t) => Ok(Count::Template(t)),
        }
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
        assert!(parse_duration("5h")
            .unwrap_err()
            .to_string()
            .contains("unknown unit"));
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_secs(30)), "30s");
        // A window of zero would read an honest peer silent.
        let window = builtin("probe_window").unwrap();
        assert!(window.rejects("0").is_some() && window.rejects("0ms").is_some());
        assert!(window.rejects("1ms").is_none());
    }

    #[test]
    fn durations_and_counts_load_typed_or_as_templates() {
        let d: DurationValue = serde_saphyr::from_str("3").unwrap();
        assert_eq!(d, DurationValue::Literal(Duration::from_secs(3)));
        let d: DurationValue = serde_saphyr::from_str("${probe_window}").unwrap();
        assert_eq!(d.template().map(|t| t.source()), Some("${probe_window}"));
        assert!(serde_saphyr::from_str::<DurationValue>("soon").is_err());
        assert_eq!(
            serde_saphyr::from_str::<Count>("3").unwrap(),
            Count::Literal(3)
        );
        assert!(serde_saphyr::from_str::<Count>("${stable_reads}")
            .unwrap()
            .template()
            .is_some());
        for bad in ["abc", "0", "101", "2.5"] {
            assert!(serde_saphyr::from_str::<Count>(bad).is_err(), "{bad}");
        }
    }
}
