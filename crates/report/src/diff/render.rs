//! Showing a [`Diff`]: one line per change grouped by peer (coloured like
//! `check` on a terminal), a Markdown summary for a CI step, or the JSON
//! document `diff --json` prints (its schema is in docs/reports.md). A report
//! file may come from anyone: its strings are shown through [`inert`].

use super::model::{ComparedReport, Diff, Kind, Label};
use crate::inert::{self, terminal};
use std::fmt::Write;

/// The ANSI colour of a label: red, green, yellow, cyan.
fn label_color(label: Label) -> &'static str {
    match label {
        Label::Regression => "31",
        Label::Fix => "32",
        Label::Drift => "33",
        Label::Accepted => "36",
    }
}

impl Diff {
    /// The comparison as pretty JSON (what `diff --json` prints).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The human rendering without colour.
    pub fn render(&self) -> String {
        self.render_styled(false)
    }

    /// The human rendering: one line per change, grouped by peer, the peer
    /// with the first regression first; labels coloured when `color`.
    pub fn render_styled(&self, color: bool) -> String {
        let mut out = String::new();
        let source = |s: &ComparedReport| {
            format!(
                "{} (a2a-conform {}, started {})",
                terminal(&s.file),
                if s.tool_version.is_empty() {
                    "?".into()
                } else {
                    terminal(&s.tool_version)
                },
                if s.started_at.is_empty() {
                    "?".into()
                } else {
                    terminal(&s.started_at)
                }
            )
        };
        let _ = writeln!(out, "old: {}", source(&self.old));
        let _ = writeln!(out, "new: {}", source(&self.new));
        let _ = writeln!(out);
        let mut peers: Vec<&str> = Vec::new();
        for c in &self.changes {
            if !peers.contains(&c.peer.as_str()) {
                peers.push(&c.peer);
            }
        }
        let width = self
            .changes
            .iter()
            .map(|c| terminal(&c.id).chars().count())
            .max()
            .unwrap_or(0)
            .min(48);
        for peer in peers {
            let was = self
                .peers
                .iter()
                .find(|p| p.new.as_deref() == Some(peer))
                .and_then(|p| p.old.as_deref())
                .filter(|old| *old != peer);
            match was {
                Some(old) => {
                    let _ = writeln!(out, "peer {} (was {})", terminal(peer), terminal(old));
                }
                None => {
                    let _ = writeln!(out, "peer {}", terminal(peer));
                }
            }
            for c in self.changes.iter().filter(|c| c.peer == peer) {
                let values = match (&c.old, &c.new) {
                    (Some(o), Some(n)) if c.kind == Kind::Card => {
                        format!("{} → {}", terminal(o), terminal(n))
                    }
                    _ => String::new(),
                };
                let label = format!("{:<10}", c.label);
                let label = if color {
                    format!("\x1b[{}m{label}\x1b[0m", label_color(c.label))
                } else {
                    label
                };
                let _ = writeln!(
                    out,
                    "  {}  {:<11}  {:<width$}  {}{}",
                    label,
                    c.kind,
                    terminal(&c.id),
                    inert::terminal(&a2a_conform_protocol::text::one_line(&c.message, 160)),
                    if values.is_empty() {
                        String::new()
                    } else {
                        format!(": {values}")
                    }
                );
            }
            let _ = writeln!(out);
        }
        if self.changes.is_empty() {
            let _ = writeln!(out, "no changes");
        }
        let _ = writeln!(
            out,
            "{} — {} (--fail-on {})",
            self.counts(),
            if self.failed { "fails" } else { "passes" },
            self.fail_on
        );
        out
    }

    /// `1 regression(s), 0 fix(es), 2 drift` (`, 1 accepted` when any).
    fn counts(&self) -> String {
        let mut text = format!(
            "{} regression(s), {} fix(es), {} drift",
            self.summary.regressions, self.summary.fixes, self.summary.drift
        );
        if self.summary.accepted > 0 {
            let _ = write!(text, ", {} accepted", self.summary.accepted);
        }
        text
    }

    /// A Markdown summary (`diff --markdown FILE`): the result, then one
    /// table row per change, regressions first. Report text is escaped, so a
    /// peer's words cannot become markup.
    pub fn render_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "## a2a-conform diff\n");
        let result = if self.failed {
            "**Result: ❌ fails**"
        } else {
            "**Result: ✅ passes**"
        };
        let _ = writeln!(
            out,
            "{result} — {} (--fail-on {})\n",
            self.counts(),
            self.fail_on
        );
        let _ = writeln!(
            out,
            "Old: {} · new: {}\n",
            escape(&self.old.file),
            escape(&self.new.file)
        );
        if self.changes.is_empty() {
            let _ = writeln!(out, "No changes.");
            return out;
        }
        let _ = writeln!(out, "| | change | peer | kind | id | what |");
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        for c in &self.changes {
            let mark = match c.label {
                Label::Regression => "❌",
                Label::Fix => "✅",
                Label::Drift => "➖",
                Label::Accepted => "☑️",
            };
            let _ = writeln!(
                out,
                "| {mark} | {} | {} | {} | {} | {} |",
                c.label,
                escape(&c.peer),
                c.kind,
                escape(&c.id),
                escape(&a2a_conform_protocol::text::one_line(&c.message, 300))
            );
        }
        for id in &self.unmatched_accepts {
            let _ = writeln!(
                out,
                "\nAccepted {} names no change between these reports.",
                escape(id)
            );
        }
        out
    }
}

/// Text for a Markdown table cell: nothing in it is markup, no control
/// acts and no line breaks ([`inert::markdown_text`]).
fn escape(text: &str) -> String {
    inert::markdown_text(text)
}
