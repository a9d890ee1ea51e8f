//! Texts with `${…}` references, parsed when a suite loads: a [`Template`] is
//! literal text, variables and capture fields, so a run only looks values up
//! and never re-reads the syntax. An unclosed `${` or a capture field that
//! does not exist is a load error at the text's position.

use serde::de::{self, Deserializer};
use serde::Deserialize;
use std::fmt;
use std::str::FromStr;

/// A field of a capture that `${capture.field}` may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureField {
    State,
    Code,
    TaskId,
    ContextId,
    Message,
    HttpStatus,
    /// What was answered, in words: `error <code> <message>`, or the
    /// task's state and its status message (`failed (why)`).
    Answer,
}

impl CaptureField {
    pub(crate) const ALL: [CaptureField; 7] = [
        CaptureField::State,
        CaptureField::Code,
        CaptureField::TaskId,
        CaptureField::ContextId,
        CaptureField::Message,
        CaptureField::HttpStatus,
        CaptureField::Answer,
    ];

    /// The field's name as scenarios write it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            CaptureField::State => "state",
            CaptureField::Code => "code",
            CaptureField::TaskId => "task_id",
            CaptureField::ContextId => "context_id",
            CaptureField::Message => "message",
            CaptureField::HttpStatus => "http_status",
            CaptureField::Answer => "answer",
        }
    }

    fn named(name: &str) -> Option<CaptureField> {
        CaptureField::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// Every field's name, for messages.
    pub(crate) fn names() -> String {
        CaptureField::ALL.map(CaptureField::as_str).join(", ")
    }
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Element {
    Literal(String),
    /// `${name}`: a variable (built in, the suite's, or set by `for_each`).
    Var(String),
    /// `${name.field}`: a field of an earlier step's capture.
    Capture {
        name: String,
        field: CaptureField,
    },
}

/// A text as written, parsed into its elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Template {
    elements: Vec<Element>,
    source: String,
}

/// Why a text is not a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TemplateError {
    /// A `${` without its `}`.
    Unclosed { text: String },
    /// `${name.field}` naming a field captures do not have.
    UnknownField { reference: String, field: String },
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Unclosed { text } => write!(f, "unclosed `${{` in `{text}`"),
            TemplateError::UnknownField { reference, field } => write!(
                f,
                "`${{{reference}}}`: a capture has no field `{field}` (one of {})",
                CaptureField::names()
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

impl Template {
    /// A text without references.
    pub(crate) fn literal(text: &str) -> Template {
        Template {
            elements: vec![Element::Literal(text.to_string())],
            source: text.to_string(),
        }
    }

    /// `${name}`.
    pub(crate) fn var(name: &str) -> Template {
        Template {
            elements: vec![Element::Var(name.to_string())],
            source: format!("${{{name}}}"),
        }
    }

    pub(crate) fn elements(&self) -> &[Element] {
        &self.elements
    }

    /// The text as written (`Display` shows it too).
    #[cfg(test)]
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// The text, when it has no references.
    pub(crate) fn as_literal(&self) -> Option<&str> {
        match self.elements.as_slice() {
            [] => Some(""),
            [Element::Literal(text)] => Some(text),
            _ => None,
        }
    }
}

impl FromStr for Template {
    type Err = TemplateError;

    fn from_str(text: &str) -> Result<Template, TemplateError> {
        let mut elements = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            if start > 0 {
                elements.push(Element::Literal(rest[..start].to_string()));
            }
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                return Err(TemplateError::Unclosed {
                    text: text.to_string(),
                });
            };
            let reference = after[..end].trim();
            elements.push(match reference.split_once('.') {
                Some((name, field)) => Element::Capture {
                    name: name.to_string(),
                    field: CaptureField::named(field).ok_or_else(|| {
                        TemplateError::UnknownField {
                            reference: reference.to_string(),
                            field: field.to_string(),
                        }
                    })?,
                },
                None => Element::Var(reference.to_string()),
            });
            rest = &after[end + 1..];
        }
        if !rest.is_empty() {
            elements.push(Element::Literal(rest.to_string()));
        }
        Ok(Template {
            elements,
            source: text.to_string(),
        })
    }
}

impl<'de> Deserialize<'de> for Template {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Template, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(de::Error::custom)
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_into_vars_and_capture_fields() {
        let t: Template = "a ${x} b ${ c.state }".parse().unwrap();
        assert_eq!(
            t.elements(),
            &[
                Element::Literal("a ".into()),
                Element::Var("x".into()),
                Element::Literal(" b ".into()),
                Element::Capture {
                    name: "c".into(),
                    field: CaptureField::State
                },
            ]
        );
        assert_eq!(t.source(), "a ${x} b ${ c.state }");
        assert_eq!(
            "plain".parse::<Template>().unwrap().as_literal(),
            Some("plain")
        );
        assert_eq!(Template::var("prompt").as_literal(), None);
    }

    #[test]
    fn unclosed_references_and_unknown_fields_are_errors() {
        let e = "hi ${prompt".parse::<Template>().unwrap_err();
        assert_eq!(e.to_string(), "unclosed `${` in `hi ${prompt`");
        let e = "${c.url}".parse::<Template>().unwrap_err();
        assert!(e.to_string().contains("no field `url`"), "{e}");
        assert!(e.to_string().contains("task_id, context_id"), "{e}");
    }
}
