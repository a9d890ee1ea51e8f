//! Showing a [`Diff`]: one line per change grouped by peer, or the JSON
//! document `diff --json` prints (its schema is in the README). A report
//! file may come from anyone: its strings are shown through
//! [`inert::terminal`].

use super::{Diff, Kind, Source};
use crate::inert::{self, terminal};
use std::fmt::Write;

impl Diff {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// The human rendering: one line per change, grouped by peer.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let source = |s: &Source| {
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
                let _ = writeln!(
                    out,
                    "  {:<10}  {:<11}  {:<width$}  {}{}",
                    c.label,
                    c.kind,
                    terminal(&c.id),
                    inert::terminal(&crate::report::evidence::one_line(&c.message, 160)),
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
            "{} regression(s), {} fix(es), {} drift — {} (--fail-on {})",
            self.summary.regressions,
            self.summary.fixes,
            self.summary.drift,
            if self.failed { "fails" } else { "passes" },
            self.fail_on
        );
        out
    }
}
