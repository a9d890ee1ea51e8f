//! The report's formats as one table. Each [`Format`] a user can ask a file
//! of (`--json`, `--junit`, `--markdown`, `--html`) names its flag, its usual
//! file extension and its renderer, a pure function of the concluded report;
//! the CLI loops over the table, so a new format is a renderer module and one
//! variant here (ruff's `OutputFormat` is the model). The terminal report
//! ([`human`]) is not a file format: it is always shown, with a style.
//!
//! Peer text reaches every sink through [`crate::inert`]; the renderers share
//! the one-line summaries and timelines of [`timeline`].

pub mod html;
pub mod human;
pub mod junit;
pub mod markdown;
mod precondition;
pub mod timeline;

use crate::RunReport;

/// A file format of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray, strum::IntoStaticStr)]
#[strum(serialize_all = "lowercase")]
pub enum Format {
    /// The JSON report: the API (`diff`, `merge`, the guards' seed read it).
    Json,
    /// JUnit XML: a testsuite per peer, a testcase per scenario run.
    Junit,
    /// Markdown, for a CI step summary.
    Markdown,
    /// A self-contained HTML page: no script, no external asset.
    Html,
}

impl Format {
    /// Every format, in the order the flags are documented and written.
    pub fn all() -> impl Iterator<Item = Format> {
        <Format as strum::VariantArray>::VARIANTS.iter().copied()
    }

    /// The command-line flag that asks for this format (`--json`).
    pub fn flag(self) -> &'static str {
        match self {
            Format::Json => "--json",
            Format::Junit => "--junit",
            Format::Markdown => "--markdown",
            Format::Html => "--html",
        }
    }

    /// The format's name, as its flag spells it without dashes.
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The usual extension of a file in this format, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Junit => "xml",
            Format::Markdown => "md",
            Format::Html => "html",
        }
    }

    /// The report in this format.
    pub fn render(self, report: &RunReport) -> Result<String, RenderError> {
        Ok(match self {
            Format::Json => report.to_json(),
            Format::Junit => junit::render(report)?,
            Format::Markdown => markdown::render(report),
            Format::Html => html::report_html(report),
        })
    }
}

/// Why a report could not be rendered in a format.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The JUnit writer refused the report.
    #[error(transparent)]
    Junit(#[from] junit::RenderError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_has_its_own_flag_and_extension_and_renders_an_empty_report() {
        let report = RunReport::new(Vec::new());
        let mut flags = Vec::new();
        for format in Format::all() {
            assert_eq!(format.flag(), format!("--{}", format.name()));
            assert!(!flags.contains(&format.flag()), "{format:?} twice");
            flags.push(format.flag());
            let text = format.render(&report).expect("renders");
            assert!(!text.is_empty(), "{format:?} rendered nothing");
        }
        assert_eq!(flags, ["--json", "--junit", "--markdown", "--html"]);
        assert!(Format::Html
            .render(&report)
            .unwrap()
            .starts_with("<!DOCTYPE html>"));
    }
}
