//! A suite error: where (`file:line:col`) and what, rendered with the
//! offending line and a caret under the column, as compilers show theirs.

use std::fmt;

/// A suite error: where and what, with the offending line shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteError {
    /// The suite file, as it was named (`scenarios/cancel.yaml`).
    pub file: String,
    /// The 1-based line (0 when the error is about the whole file).
    pub line: u64,
    /// The 1-based column (0 when the error is about the whole file).
    pub column: u64,
    /// What is wrong, in one line.
    pub message: String,
    rendered: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl std::error::Error for SuiteError {}

impl SuiteError {
    /// An error at `line:column` of `source`, the text of `file`.
    pub(crate) fn at(
        file: &str,
        source: &str,
        line: u64,
        column: u64,
        message: String,
    ) -> SuiteError {
        let rendered = render_snippet(file, source, line, column, &message);
        SuiteError {
            file: file.to_string(),
            line,
            column,
            message,
            rendered,
        }
    }

    /// An error about the whole file (it cannot be read, or its `vars`).
    pub(crate) fn whole_file(file: &str, message: String) -> SuiteError {
        SuiteError {
            rendered: format!("error: {file}: {message}"),
            file: file.to_string(),
            line: 0,
            column: 0,
            message,
        }
    }
}

fn render_snippet(file: &str, source: &str, line: u64, column: u64, message: &str) -> String {
    let mut out = format!("error: {file}:{line}:{column}: {message}\n");
    let width = (line.max(1)).to_string().len();
    out.push_str(&format!("{:width$}--> {file}:{line}:{column}\n", ""));
    out.push_str(&format!("{:width$} |\n", ""));
    let lines: Vec<&str> = source.lines().collect();
    let first = line.saturating_sub(2).max(1);
    for n in first..=line {
        if let Some(text) = lines.get((n - 1) as usize) {
            out.push_str(&format!("{n:>width$} | {text}\n"));
        }
    }
    let pad = " ".repeat(column.saturating_sub(1) as usize);
    out.push_str(&format!("{:width$} | {pad}^ {message}", ""));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_points_at_the_column() {
        let e = SuiteError::at("f.yaml", "a: 1\nbb: 2\n", 2, 1, "bad".into());
        let text = e.to_string();
        assert!(text.starts_with("error: f.yaml:2:1: bad"), "{text}");
        assert!(text.contains("2 | bb: 2"), "{text}");
    }
}
