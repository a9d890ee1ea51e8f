//! The terminal report: a declaration table per peer, then what failed with
//! its evidence and a reproduction line, then baseline warnings. A pure
//! function of the report. Every string that came from the peer or a report
//! file is shown through [`crate::inert::terminal`]: none can move the cursor,
//! clear the screen or start a line of its own.

use super::evidence::{self, one_line};
use super::{
    BaselineStatus, DeclarationVerdict, PeerReport, RunReport, ScenarioReport, ScenarioVerdict,
};
use crate::inert::terminal;
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
    for warning in baseline_warnings(report) {
        let _ = writeln!(out, "{} {warning}", paint(style, "33", "warning:"));
    }
    if report.interrupted {
        let _ = writeln!(
            out,
            "{} {}",
            paint(style, "33", "interrupted:"),
            super::INTERRUPTED_NOTE
        );
    }
    out
}

/// One line per baseline entry that is stale or matches nothing.
pub fn baseline_warnings(report: &RunReport) -> Vec<String> {
    let Some(baseline) = &report.baseline else {
        return vec![];
    };
    baseline
        .entries
        .iter()
        .filter_map(|e| match e.status {
            BaselineStatus::Stale => Some(format!(
                "baseline {}: stale entry `{}`: {}; remove it{}",
                terminal(&baseline.file),
                terminal(&e.target()),
                terminal(&e.note),
                if baseline.strict {
                    " (--strict-baseline fails the run)"
                } else {
                    ""
                }
            )),
            BaselineStatus::Unmatched => Some(format!(
                "baseline {}: entry `{}` matches nothing in this run",
                terminal(&baseline.file),
                terminal(&e.target())
            )),
            BaselineStatus::Applied | BaselineStatus::Undecided => None,
        })
        .collect()
}

fn render_peer(out: &mut String, peer: &PeerReport, style: Style) {
    let title = terminal(peer.name.as_deref().unwrap_or("peer"));
    let _ = writeln!(
        out,
        "{}",
        paint(
            style,
            "1",
            &format!("{title} — {}", terminal(&peer.card_url))
        )
    );
    if let Some(error) = &peer.card_error {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(style, "1;31", "error:"),
            terminal(error)
        );
        return;
    }
    let _ = writeln!(
        out,
        "  A2A {} over {} at {}",
        terminal(peer.protocol_version.as_deref().unwrap_or("?")),
        terminal(peer.binding.as_deref().unwrap_or("?")),
        terminal(peer.endpoint.as_deref().unwrap_or("?"))
    );
    for warning in &peer.card_warnings {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(style, "33", "card warning:"),
            terminal(warning)
        );
    }
    let _ = writeln!(out);
    let width = peer
        .declarations
        .iter()
        .map(|d| terminal(&d.id).chars().count())
        .max()
        .unwrap_or(11)
        .max(11);
    let _ = writeln!(out, "  {:<width$}  {:<13}  why", "DECLARATION", "VERDICT");
    for d in &peer.declarations {
        let verdict = format!("{:<13}", d.verdict.as_str());
        let why = match (&d.baseline_reason, d.baselined) {
            (Some(known), true) => format!("[baselined: {known}] {}", d.reason),
            _ => d.reason.clone(),
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {}  {}",
            terminal(&d.id),
            paint(style, declaration_color(d.verdict), &verdict),
            terminal(&one_line(&why, 100))
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
        for s in shown {
            let _ = writeln!(out);
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
        terminal(&s.id),
        s.duration_ms,
        if s.attempts > 1 {
            format!(", {} attempts", s.attempts)
        } else {
            String::new()
        },
        terminal(&s.title)
    );
    let _ = writeln!(out, "    {}", terminal(&s.message));
    if s.baselined {
        let _ = writeln!(
            out,
            "    baselined (known, does not fail the run): {}",
            terminal(s.baseline_reason.as_deref().unwrap_or(""))
        );
    }
    for (n, failed) in s.failed_attempts.iter().enumerate() {
        let _ = writeln!(
            out,
            "    attempt {} failed: {}",
            n + 1,
            terminal(&one_line(failed, 200))
        );
    }
    if !matches!(
        s.verdict,
        ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
    ) {
        return;
    }
    let limit = if style.verbose { usize::MAX } else { 12 };
    let timeline = evidence::timeline(s, limit, style.verbose, 140);
    if timeline.omitted > 0 {
        let _ = writeln!(
            out,
            "    … {} earlier entries (see --json or -v)",
            timeline.omitted
        );
    }
    for line in &timeline.lines {
        let _ = writeln!(
            out,
            "    {} {}",
            paint(style, "2", &line.at),
            terminal(&line.summary)
        );
    }
    if let Some(curl) = evidence::reproduction(s) {
        let _ = writeln!(out, "    reproduce: {}", terminal(&one_line(curl, 400)));
    }
}

/// "3 honoured, 1 diverged, 0 unverified; 7 scenario runs: 6 pass, 1 fail".
pub fn summary_line(peer: &PeerReport) -> String {
    let count = |v: DeclarationVerdict| peer.declarations.iter().filter(|d| d.verdict == v).count();
    let runs = |v: ScenarioVerdict| peer.scenarios.iter().filter(|s| s.verdict == v).count();
    let baselined = peer
        .declarations
        .iter()
        .filter(|d| d.verdict == DeclarationVerdict::Diverged && d.baselined)
        .count();
    let mut parts = vec![
        format!("{} honoured", count(DeclarationVerdict::Honoured)),
        if baselined > 0 {
            format!(
                "{} diverged ({baselined} baselined)",
                count(DeclarationVerdict::Diverged)
            )
        } else {
            format!("{} diverged", count(DeclarationVerdict::Diverged))
        },
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
