//! The terminal report: a declaration table per peer, then what failed with
//! its evidence and a reproduction line, then baseline warnings. A pure
//! function of the report. Every string that came from the peer or a report
//! file is shown through [`crate::inert::terminal`]: none can move the
//! cursor, clear the screen or start a line of its own.

use super::evidence::{self, one_line};
use super::model::{
    BaselineStatus, DeclarationReport, DeclarationVerdict, PeerReport, RunReport, ScenarioReport,
    ScenarioVerdict,
};
use super::model::{Counts, Outcome};
use crate::inert::terminal;
use std::fmt::Write;

/// How much to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    pub color: bool,
    /// Show every scenario run, and all evidence of failures.
    pub verbose: bool,
    /// Only the summary line and what fails the run.
    pub quiet: bool,
    /// The terminal's width: the `why` column is cut to what is left of it
    /// (none when not a terminal: then cut at [`WHY_WIDTH`]).
    pub width: Option<usize>,
}

/// The `why` column's length when the output is not a terminal.
const WHY_WIDTH: usize = 100;
/// The narrowest `why` column worth reading: with less room than this
/// beside a row, the why goes on a line of its own.
const WHY_MIN: usize = 30;

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

/// Renders the whole report for a terminal, ending in the run's headline.
pub fn render(report: &RunReport, style: Style) -> String {
    let mut out = String::new();
    let many = report.peers.len() > 1;
    for peer in &report.peers {
        render_peer(&mut out, peer, style, many);
    }
    for warning in baseline_warnings(report) {
        let _ = writeln!(out, "{} {warning}", paint(style, "33", "warning:"));
    }
    if report.tool.insecure {
        let _ = writeln!(
            out,
            "{} {}",
            paint(style, "33", "warning:"),
            super::INSECURE_NOTE
        );
    }
    if report.interrupted {
        let _ = writeln!(
            out,
            "{} {}",
            paint(style, "33", "interrupted:"),
            super::INTERRUPTED_NOTE
        );
    }
    let summary = crate::verdict::summarize(report);
    let color = match summary.outcome {
        Outcome::Pass => "1;32",
        Outcome::Fail | Outcome::Error => "1;31",
        Outcome::Unverified => "1;33",
    };
    let headline = summary.headline();
    let runs = summary.counts.runs_phrase();
    // Split rather than wrap when the line is wider than the terminal.
    let joint = if style
        .width
        .is_some_and(|w| headline.chars().count() + 2 + runs.chars().count() > w)
    {
        ";\n  "
    } else {
        "; "
    };
    let _ = writeln!(out, "{}{joint}{runs}", paint(style, color, &headline));
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

/// A row that fails the run: all `-q` shows of the table.
fn fails_the_run(d: &DeclarationReport) -> bool {
    d.verdict == DeclarationVerdict::Diverged && !d.baselined
}

fn render_peer(out: &mut String, peer: &PeerReport, style: Style, many: bool) {
    // Quiet: a peer with nothing failing is left to the headline.
    if style.quiet && peer.card_error.is_none() && !peer.declarations.iter().any(fails_the_run) {
        return;
    }
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
    if !style.quiet {
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
    }
    let width = peer
        .declarations
        .iter()
        .map(|d| terminal(&d.id).chars().count())
        .max()
        .unwrap_or(11)
        .max(11);
    // Too little room beside the id and verdict: the why goes on a line of
    // its own under its row, so no row is wider than the terminal.
    let (why_width, stacked) = match style.width {
        None => (WHY_WIDTH, false),
        Some(w) => match w.saturating_sub(2 + width + 2 + 13 + 2) {
            room if room >= WHY_MIN => (room, false),
            _ => (w.saturating_sub(4).max(WHY_MIN), true),
        },
    };
    // Quiet: only the rows that fail the run.
    let rows: Vec<&DeclarationReport> = peer
        .declarations
        .iter()
        .filter(|d| !style.quiet || fails_the_run(d))
        .collect();
    if !rows.is_empty() {
        let _ = writeln!(out, "  {:<width$}  {:<13}  why", "DECLARATION", "VERDICT");
    }
    for d in rows {
        let verdict = if stacked {
            d.verdict.as_str().to_string()
        } else {
            format!("{:<13}", d.verdict.as_str())
        };
        let why = match (&d.baseline_reason, d.baselined) {
            (Some(known), true) => format!("[baselined: {known}] {}", d.reason),
            _ => d.reason.clone(),
        };
        let why = terminal(&one_line(&why, usize::MAX)).into_owned();
        let (why, hint) = fit(&why, why_width);
        let id = terminal(&d.id);
        let verdict = paint(style, declaration_color(d.verdict), &verdict);
        if stacked {
            let _ = writeln!(out, "  {id:<width$}  {verdict}");
            let _ = writeln!(out, "    {why}");
        } else {
            let _ = writeln!(out, "  {id:<width$}  {verdict}  {why}");
        }
        if let Some(hint) = hint {
            let room = style.width.map_or(usize::MAX, |w| w.saturating_sub(6));
            let _ = writeln!(out, "    ↳ {}", cut(&hint, room));
        }
    }
    if !style.quiet {
        render_preconditions(out, peer, style);
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
    if many {
        let _ = writeln!(out, "  {}", summary_line(peer));
        let _ = writeln!(out);
    }
}

/// The peer's precondition searches, and how to pin what they found.
fn render_preconditions(out: &mut String, peer: &PeerReport, style: Style) {
    let lines = super::precondition::lines(peer);
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out);
    for line in lines {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(style, "36", "precondition:"),
            terminal(&line)
        );
    }
    if let Some(pin) = super::precondition::pin(peer) {
        let _ = writeln!(
            out,
            "    ↳ pin it for next time: {} (or in a --profile: {}; {})",
            terminal(&pin.flag),
            terminal(&pin.profile),
            super::precondition::PIN_NOTE
        );
    }
}

/// The fix hint a reason may end in (`pass --var NAME=… or set it in a --profile`).
const HINT: &str = "pass --var ";

/// `why` on one line of at most `max` characters; a cut falls before the
/// fix hint, so the hint (what to do about it) stays readable. A hint too
/// long for the column comes back on its own, for a line of its own.
fn fit(why: &str, max: usize) -> (String, Option<String>) {
    let flat = one_line(why, usize::MAX);
    if flat.chars().count() <= max {
        return (flat, None);
    }
    if let Some(at) = flat.find(HINT) {
        let hint = &flat[at..];
        let room = max.saturating_sub(hint.chars().count() + 2);
        if room >= 8 {
            let head: String = flat[..at].chars().take(room).collect();
            return (format!("{}… {hint}", head.trim_end()), None);
        }
        let head = flat[..at].trim_end().trim_end_matches(':');
        return (cut(head, max), Some(hint.to_string()));
    }
    (cut(&flat, max), None)
}

/// At most `max` characters, an ellipsis marking a cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        one_line(text, max.saturating_sub(1))
    }
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
    // Under -v a passing run shows its evidence too (the runner kept it).
    let failed = matches!(
        s.verdict,
        ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
    );
    let passing_shown = style.verbose && !s.evidence.is_empty();
    if !(failed || passing_shown) {
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

/// One peer's counts: "3 honoured, 1 diverged; 7 scenario runs: 6 pass, 1 fail".
pub fn summary_line(peer: &PeerReport) -> String {
    let counts = Counts::of_peer(peer);
    format!("{}; {}", counts.declarations_phrase(), counts.runs_phrase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_why_keeps_the_fix_hint() {
        let why = "input-mode-resume[text/plain] skipped: variable `prompt_input_required` \
                   is not set: pass --var prompt_input_required=… or set it in a --profile";
        let (cut, hint) = fit(why, 70);
        assert_eq!(cut.chars().count(), 70, "{cut}");
        assert!(
            cut.ends_with("… pass --var prompt_input_required=… or set it in a --profile"),
            "{cut}"
        );
        assert_eq!(hint, None);
        // Too narrow for both: the hint gets a line of its own.
        let (cut, hint) = fit(why, 30);
        assert_eq!(cut.chars().count(), 30, "{cut}");
        assert_eq!(
            hint.as_deref(),
            Some("pass --var prompt_input_required=… or set it in a --profile")
        );
        assert_eq!(fit("short", 70), ("short".to_string(), None));
        let (plain, _) = fit(&"y".repeat(100), 30);
        assert_eq!(plain.chars().count(), 30, "{plain}");
    }

    #[test]
    fn no_table_line_is_wider_than_the_terminal_and_the_hint_stays() {
        let mut peer = PeerReport::new("http://peer/card");
        peer.declarations.push(DeclarationReport {
            id: "defaultInputModes[application/json]".into(),
            declared: true,
            verdict: DeclarationVerdict::Unverified,
            scenarios: vec![],
            reason: format!(
                "{} pass --var x=… or set it in a --profile",
                "z".repeat(200)
            ),
            baselined: false,
            baseline_reason: None,
        });
        let report = RunReport::new(vec![peer]);
        let at = |width| {
            let style = Style {
                color: false,
                verbose: false,
                quiet: false,
                width: Some(width),
            };
            let text = render(&report, style);
            for line in text.lines() {
                assert!(line.chars().count() <= width, "{width}: {line}\n{text}");
            }
            text
        };
        // 80 columns: too narrow beside the row, the why goes under it.
        let text = at(80);
        assert!(
            text.contains("  defaultInputModes[application/json]  unverified\n    zzz"),
            "{text}"
        );
        assert!(
            text.contains("zzz… pass --var x=… or set it in a --profile\n"),
            "{text}"
        );
        // 100 columns: beside the row, with the hint on a line of its own.
        let text = at(100);
        assert!(
            text.contains("    ↳ pass --var x=… or set it in a --profile\n"),
            "{text}"
        );
        assert!(
            text.ends_with("nothing verified — 0 honoured, 1 unverified; 0 scenario runs: none\n"),
            "{text}"
        );
    }
}
