//! The terminal report: a declaration table per peer, then what failed with
//! its evidence and a reproduction line. A pure function of the report.

use super::{DeclarationVerdict, PeerReport, RunReport, ScenarioReport, ScenarioVerdict};
use crate::transport::EvidenceKind;
use std::fmt::Write;

/// How much to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    /// Show every scenario run, and all evidence of failures.
    pub verbose: bool,
    /// Only the table and the summary line.
    pub quiet: bool,
}

const RESET: &str = "\x1b[0m";

fn paint(style: Style, code: &str, text: &str) -> String {
    if style.color {
        format!("\x1b[{code}m{text}{RESET}")
    } else {
        text.to_string()
    }
}

fn declaration_color(v: DeclarationVerdict) -> &'static str {
    match v {
        DeclarationVerdict::Honoured => "32",
        DeclarationVerdict::Diverged => "1;31",
        DeclarationVerdict::Unverified => "33",
        DeclarationVerdict::NotDeclared => "2",
        DeclarationVerdict::OverDelivers => "36",
    }
}

fn scenario_color(v: ScenarioVerdict) -> &'static str {
    match v {
        ScenarioVerdict::Pass => "32",
        ScenarioVerdict::Fail => "1;31",
        ScenarioVerdict::Flaky => "35",
        ScenarioVerdict::Inconclusive => "33",
        ScenarioVerdict::Skipped => "2",
        ScenarioVerdict::Error => "31",
    }
}

/// Renders the whole report for a terminal.
pub fn render(report: &RunReport, style: Style) -> String {
    let mut out = String::new();
    for peer in &report.peers {
        render_peer(&mut out, peer, style);
    }
    out
}

fn render_peer(out: &mut String, peer: &PeerReport, style: Style) {
    let title = peer.name.as_deref().unwrap_or("peer");
    let _ = writeln!(
        out,
        "{}",
        paint(style, "1", &format!("{title} — {}", peer.card_url))
    );
    if let Some(error) = &peer.card_error {
        let _ = writeln!(out, "  {} {error}", paint(style, "1;31", "error:"));
        return;
    }
    let _ = writeln!(
        out,
        "  A2A {} over {} at {}",
        peer.protocol_version.as_deref().unwrap_or("?"),
        peer.binding.as_deref().unwrap_or("?"),
        peer.endpoint.as_deref().unwrap_or("?")
    );
    for warning in &peer.card_warnings {
        let _ = writeln!(out, "  {} {warning}", paint(style, "33", "card warning:"));
    }
    let _ = writeln!(out);
    let width = peer
        .declarations
        .iter()
        .map(|d| d.id.chars().count())
        .max()
        .unwrap_or(11)
        .max(11);
    let _ = writeln!(out, "  {:<width$}  {:<13}  why", "DECLARATION", "VERDICT");
    for d in &peer.declarations {
        let verdict = format!("{:<13}", d.verdict.as_str());
        let _ = writeln!(
            out,
            "  {:<width$}  {}  {}",
            d.id,
            paint(style, declaration_color(d.verdict), &verdict),
            one_line(&d.reason, 100)
        );
    }
    if !style.quiet {
        let shown: Vec<&ScenarioReport> = peer
            .scenarios
            .iter()
            .filter(|s| {
                style.verbose
                    || matches!(
                        s.verdict,
                        ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
                    )
            })
            .collect();
        if !shown.is_empty() {
            let _ = writeln!(out);
        }
        for s in shown {
            render_scenario(out, s, style);
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "  {}", summary_line(peer));
    let _ = writeln!(out);
}

fn render_scenario(out: &mut String, s: &ScenarioReport, style: Style) {
    let verdict = paint(style, scenario_color(s.verdict), s.verdict.as_str());
    let _ = writeln!(
        out,
        "  {verdict} {} ({} ms{}) — {}",
        s.id,
        s.duration_ms,
        if s.attempts > 1 {
            format!(", {} attempts", s.attempts)
        } else {
            String::new()
        },
        s.title
    );
    let _ = writeln!(out, "    {}", s.message);
    if !matches!(
        s.verdict,
        ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
    ) {
        return;
    }
    let limit = if style.verbose { usize::MAX } else { 12 };
    let evidence: Vec<_> = s
        .evidence
        .iter()
        .filter(|e| style.verbose || e.kind != EvidenceKind::Comment)
        .collect();
    let skipped = evidence.len().saturating_sub(limit);
    if skipped > 0 {
        let _ = writeln!(out, "    … {skipped} earlier entries (see --json or -v)");
    }
    for e in evidence.iter().skip(skipped) {
        let _ = writeln!(
            out,
            "    {} {}",
            paint(style, "2", &format!("+{:>6.2}s", e.at_ms as f64 / 1000.0)),
            one_line(&e.summary, 140)
        );
    }
    if let Some(curl) = s.evidence.iter().rev().find_map(|e| e.curl.as_ref()) {
        let _ = writeln!(out, "    reproduce: {}", one_line(curl, 400));
    }
}

/// "3 honoured, 1 diverged, 0 unverified; 7 scenario runs: 6 pass, 1 fail".
pub fn summary_line(peer: &PeerReport) -> String {
    let count = |v: DeclarationVerdict| peer.declarations.iter().filter(|d| d.verdict == v).count();
    let runs = |v: ScenarioVerdict| peer.scenarios.iter().filter(|s| s.verdict == v).count();
    let mut parts = vec![
        format!("{} honoured", count(DeclarationVerdict::Honoured)),
        format!("{} diverged", count(DeclarationVerdict::Diverged)),
        format!("{} unverified", count(DeclarationVerdict::Unverified)),
    ];
    let od = count(DeclarationVerdict::OverDelivers);
    if od > 0 {
        parts.push(format!("{od} over-delivers"));
    }
    let verdicts = [
        ScenarioVerdict::Pass,
        ScenarioVerdict::Fail,
        ScenarioVerdict::Flaky,
        ScenarioVerdict::Inconclusive,
        ScenarioVerdict::Skipped,
        ScenarioVerdict::Error,
    ];
    let run_parts: Vec<String> = verdicts
        .iter()
        .filter(|v| runs(**v) > 0)
        .map(|v| format!("{} {}", runs(*v), v.as_str()))
        .collect();
    format!(
        "{}; {} scenario runs: {}",
        parts.join(", "),
        peer.scenarios.len(),
        if run_parts.is_empty() {
            "none".to_string()
        } else {
            run_parts.join(", ")
        }
    )
}

fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}
