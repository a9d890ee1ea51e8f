//! The terminal report: a declaration table per peer, then what failed with
//! its evidence and a reproduction line, then baseline warnings. A pure
//! function of the report. Every string that came from the peer or a report
//! file is shown through [`crate::inert::terminal`]: none can move the
//! cursor, clear the screen or start a line of its own.

use super::timeline;
use crate::inert::terminal;
use crate::RunOutcome;
use crate::Summarized;
use crate::{
    BaselineStatus, DeclarationReport, DeclarationVerdict, PeerReport, RunReport, ScenarioReport,
    ScenarioVerdict,
};
use a2a_conform_protocol::text::one_line;
use std::fmt::Write;

/// How much to show, and how. The default is plain text for a log: no
/// colour, the failures only, no terminal width.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// Colour verdicts and headings with ANSI escapes.
    pub color: bool,
    /// Show every scenario run, and all evidence of failures.
    pub verbose: bool,
    /// Only the summary line and what fails the run.
    pub quiet: bool,
    /// The terminal's width: the `why` column is cut to what is left of it
    /// (none when not a terminal: then cut at 100 characters).
    pub width: Option<usize>,
}

/// The `why` column's length when the output is not a terminal.
const WHY_WIDTH: usize = 100;
/// The longest evidence line shown (before its ellipsis).
const EVIDENCE_WIDTH: usize = 140;
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

/// Renders the whole report for a terminal, ending in the run's headline
/// (from the report's summary, see [`RunReport::summary`]).
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
            crate::INSECURE_NOTE
        );
    }
    if report.interrupted {
        let _ = writeln!(
            out,
            "{} {}",
            paint(style, "33", "interrupted:"),
            crate::INTERRUPTED_NOTE
        );
    }
    let summary = report.summary();
    let color = match summary.outcome {
        RunOutcome::Pass => "1;32",
        RunOutcome::Fail | RunOutcome::Error => "1;31",
        RunOutcome::Unverified => "1;33",
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

/// One line per baseline entry that is stale or matches nothing (already
/// inert for a terminal).
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
        render_card(out, peer, style);
    }
    render_declarations(out, peer, style);
    if !style.quiet {
        render_preconditions(out, peer, style);
        render_runs(out, peer, style);
    }
    let _ = writeln!(out);
    if many {
        let _ = writeln!(out, "  {}", summary_line(peer));
        let _ = writeln!(out);
    }
}

/// What was spoken with the peer, and its card's warnings (wrapped under
/// their indent on a terminal).
fn render_card(out: &mut String, peer: &PeerReport, style: Style) {
    let _ = writeln!(
        out,
        "  A2A {} over {} at {}",
        terminal(peer.protocol_version.as_deref().unwrap_or("?")),
        terminal(peer.binding.as_deref().unwrap_or("?")),
        terminal(peer.endpoint.as_deref().unwrap_or("?"))
    );
    for warning in &peer.card_warnings {
        labelled(out, style, ("card warning:", "33"), &terminal(warning));
    }
    let _ = writeln!(out);
}

/// `  LABEL: text`, the label painted `color`: on a terminal the text wraps
/// under its indent (the terminal would wrap it at column 0); in a log it
/// stays one line, for grep.
fn labelled(out: &mut String, style: Style, (label, color): (&str, &str), text: &str) {
    let text = format!("{label} {text}");
    let lines = match style.width {
        Some(w) => wrap(&text, w.saturating_sub(4).max(WHY_MIN)),
        None => vec![text],
    };
    for (n, line) in lines.iter().enumerate() {
        let _ = match line.strip_prefix(label) {
            Some(rest) if n == 0 => writeln!(out, "  {}{rest}", paint(style, color, label)),
            _ => writeln!(out, "    {line}"),
        };
    }
}

/// The declaration table (under `-q`, only the rows that fail the run).
fn render_declarations(out: &mut String, peer: &PeerReport, style: Style) {
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
        // Room for a readable part of the reason beside the hint, else the
        // hint gets a line of its own: both the why and the fix stay.
        let (why, hint) = fit(&why, why_width, WHY_MIN);
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
}

/// The runs that failed, were flaky or ended in error (every run under `-v`).
fn render_runs(out: &mut String, peer: &PeerReport, style: Style) {
    let shown = peer.scenarios.iter().filter(|s| {
        style.verbose
            || matches!(
                s.verdict,
                ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
            )
    });
    for s in shown {
        let _ = writeln!(out);
        render_scenario(out, s, style);
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
        labelled(out, style, ("precondition:", "36"), &terminal(&line));
    }
    if let Some(pin) = super::precondition::pin(peer) {
        let text = format!(
            "↳ pin it for next time: {} (or in a --profile: {}; {})",
            terminal(&pin.flag),
            terminal(&pin.profile),
            super::precondition::PIN_NOTE
        );
        let wrapped = match style.width {
            Some(w) => wrap(&text, w.saturating_sub(6).max(WHY_MIN)),
            None => vec![text],
        };
        for (n, part) in wrapped.iter().enumerate() {
            let indent = if n == 0 { "    " } else { "      " };
            let _ = writeln!(out, "{indent}{part}");
        }
    }
}

/// Where the fix hint a reason ends in starts: the last clause (after a
/// `: ` or `; `) when it names a flag, as the tool's reasons end
/// (`…: pass --var NAME=… or set it in a --profile`, `…: give one with
/// --trusted-key FILE`, `…; raise it with --max-stream-events`, `…: the
/// card's scheme `bearer` (HTTP bearer) needs --bearer-env VAR`). A clause
/// longer than [`HINT_MAX`] is no hint: it is cut like the rest.
fn hint_start(why: &str) -> Option<usize> {
    let flag = why
        .match_indices("--")
        .filter(|(at, _)| {
            let before = why[..*at].chars().next_back();
            let after = why[at + 2..].chars().next();
            matches!(before, None | Some(' ' | '(' | '`'))
                && after.is_some_and(|c| c.is_ascii_lowercase())
        })
        .map(|(at, _)| at)
        .last()?;
    let clause = why[..flag]
        .rfind(": ")
        .max(why[..flag].rfind("; "))
        .map_or(0, |at| at + 2);
    (clause > 0 && why[clause..].chars().count() <= HINT_MAX).then_some(clause)
}

/// The longest clause [`hint_start`] keeps as a fix hint.
const HINT_MAX: usize = 100;

/// `why` on one line of at most `max` characters; a cut falls before the
/// fix hint (see [`hint_start`]), so what to do about it stays readable. A
/// hint that would leave less than `min_head` characters of the reason
/// beside it comes back on its own, for a line of its own.
fn fit(why: &str, max: usize, min_head: usize) -> (String, Option<String>) {
    let flat = one_line(why, usize::MAX);
    if flat.chars().count() <= max {
        return (flat, None);
    }
    if let Some(at) = hint_start(&flat) {
        let hint = &flat[at..];
        let room = max.saturating_sub(hint.chars().count() + 2);
        if room >= min_head.max(8) {
            let head: String = flat[..at].chars().take(room).collect();
            return (format!("{}… {hint}", head.trim_end()), None);
        }
        let head = flat[..at].trim_end().trim_end_matches([':', ';']);
        return (cut(head, max), Some(hint.to_string()));
    }
    (cut(&flat, max), None)
}

/// `why` on one line of at most `max` characters, its fix hint kept: for a
/// table cell that cannot give the hint a line of its own (Markdown).
pub(super) fn clip_keeping_hint(why: &str, max: usize) -> String {
    match fit(why, max, 0) {
        (line, None) => line,
        // Too narrow for both: the hint is what to keep.
        (_, Some(hint)) => cut(&hint, max),
    }
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
    let head = format!(
        "{} ({} ms{}) — {}",
        terminal(&s.id),
        s.duration_ms,
        if s.attempts > 1 {
            format!(", {} attempts", s.attempts)
        } else {
            String::new()
        },
        terminal(&s.title)
    );
    match style.width {
        Some(w) => {
            let room = w.saturating_sub(3 + s.verdict.as_str().len()).max(WHY_MIN);
            for (n, line) in wrap(&head, room).iter().enumerate() {
                let _ = match n {
                    0 => writeln!(out, "  {verdict} {line}"),
                    _ => writeln!(out, "    {line}"),
                };
            }
        }
        None => {
            let _ = writeln!(out, "  {verdict} {head}");
        }
    }
    // On a terminal the message wraps under its indent (the terminal
    // would wrap it at column 0); in a log it stays one line, for grep.
    match style.width {
        Some(w) => {
            for line in wrap(&terminal(&s.message), w.saturating_sub(4).max(WHY_MIN)) {
                let _ = writeln!(out, "    {line}");
            }
        }
        None => {
            let _ = writeln!(out, "    {}", terminal(&s.message));
        }
    }
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
    // An evidence line is a summary (the JSON and -v have it whole): on a
    // terminal it is cut to one row, after its indent and time.
    let room = match style.width {
        Some(w) if !style.verbose => w.saturating_sub(4 + 9 + 1).clamp(WHY_MIN, EVIDENCE_WIDTH),
        _ => EVIDENCE_WIDTH,
    };
    let timeline = timeline::timeline(s, limit, style.verbose, room);
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
    // An equivalence run's first difference, each interface's side in a
    // labelled block of its own, at most 80 columns.
    let side_width = style.width.unwrap_or(SIDE_WIDTH).min(SIDE_WIDTH) - 4;
    for side in timeline::sides(s).into_iter().flatten() {
        for line in timeline::side_lines(&side, side_width, timeline::Bodies::Answers) {
            let _ = writeln!(out, "    {}", terminal(&line));
        }
    }
    if let Some(curl) = timeline::reproduction(s) {
        let _ = writeln!(out, "    reproduce: {}", terminal(&one_line(curl, 400)));
    }
}

/// The widest line of the two sides' blocks, on any terminal.
const SIDE_WIDTH: usize = 80;

/// `text` in lines of at most `width` characters, broken at spaces (a word
/// longer than a line is cut into pieces).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let last = lines.last_mut().expect("never empty");
        let len = last.chars().count();
        if len > 0 && len + 1 + word.len() <= width {
            last.push(' ');
            last.extend(word);
            continue;
        }
        if len > 0 {
            lines.push(String::new());
        }
        while word.len() > width {
            let rest = word.split_off(width);
            lines.last_mut().expect("never empty").extend(word);
            lines.push(String::new());
            word = rest;
        }
        lines.last_mut().expect("never empty").extend(word);
    }
    lines
}

/// One peer's counts: "3 honoured, 1 diverged; 7 scenario runs: 6 pass, 1 fail".
pub fn summary_line(peer: &PeerReport) -> String {
    let counts = crate::verdict::peer_counts(peer);
    format!("{}; {}", counts.declarations_phrase(), counts.runs_phrase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_why_keeps_the_fix_hint() {
        let why = "input-mode-resume[text/plain] skipped: variable `prompt_input_required` \
                   is not set: pass --var prompt_input_required=… or set it in a --profile";
        let (cut, hint) = fit(why, 70, 0);
        assert_eq!(cut.chars().count(), 70, "{cut}");
        assert!(
            cut.ends_with("… pass --var prompt_input_required=… or set it in a --profile"),
            "{cut}"
        );
        assert_eq!(hint, None);
        // Too narrow for both: the hint gets a line of its own.
        let (cut, hint) = fit(why, 30, 0);
        assert_eq!(cut.chars().count(), 30, "{cut}");
        assert_eq!(
            hint.as_deref(),
            Some("pass --var prompt_input_required=… or set it in a --profile")
        );
        assert_eq!(fit("short", 70, 0), ("short".to_string(), None));
        // Any flag the reason ends in is the hint, whatever the clause says.
        let why = "signature-verifies[k] inconclusive: no key to verify signature #1 \
                   (kid a2a-conform-mock-key): give one with --trusted-key FILE";
        let (line, hint) = fit(why, 70, 0);
        assert!(
            line.ends_with("… give one with --trusted-key FILE"),
            "{line}"
        );
        assert!(line.chars().count() <= 70 && hint.is_none(), "{line}");
        let why = "streaming-probe inconclusive: the peer refused SendStreamingMessage with \
                   HTTP 401 (WWW-Authenticate: Bearer realm=\"a2a\"; body: {\"code\":401}); \
                   no credentials were given: the card's scheme `bearer` (HTTP bearer) \
                   needs --bearer-env VAR";
        let (line, _) = fit(why, 100, 0);
        assert!(
            line.ends_with("… the card's scheme `bearer` (HTTP bearer) needs --bearer-env VAR"),
            "{line}"
        );
        let why = "streaming-probe error: the tool's cap of 2 events was reached; \
                   raise it with --max-stream-events";
        assert!(fit(why, 50, 0)
            .0
            .ends_with("… raise it with --max-stream-events"));
        // No flag, or `--` that is no flag: a plain cut.
        let (line, hint) = fit(
            &format!("{}: see https://a--b.example/x", "w".repeat(80)),
            40,
            0,
        );
        assert!(line.starts_with("www") && line.ends_with('…'), "{line}");
        assert_eq!(hint, None);
        // Too little of the reason would be left beside the hint: it gets
        // a line of its own, and the reason the whole column.
        let why = "input-mode-resume[text/plain] inconclusive: the peer never reached \
                   input-required (it answered completed); set --var \
                   prompt_input_required=<a text that makes this peer ask for input>";
        let (line, hint) = fit(why, 100, WHY_MIN);
        assert!(line.starts_with("input-mode-resume[text/plain] inconclusive: the peer never"));
        assert_eq!(
            hint.as_deref(),
            Some("set --var prompt_input_required=<a text that makes this peer ask for input>")
        );
        // A cell that has no line for the hint keeps the hint alone.
        assert_eq!(clip_keeping_hint(why, 20), "set --var prompt_in…");
        let (plain, _) = fit(&"y".repeat(100), 30, 0);
        assert_eq!(plain.chars().count(), 30, "{plain}");
    }

    #[test]
    fn a_failure_fits_the_terminal_but_its_reproduction_stays_whole() {
        use crate::evidence::{Evidence, EvidenceKind};
        let leak = "artifact-update artifactId=72e964bc-3a8b-4982-9f67-bdb9cd6de8b3 append";
        let curl = format!(
            "curl -sS -X POST 'http://127.0.0.1:1/a2a' -d '{}'",
            "x".repeat(120)
        );
        let run = ScenarioReport::builder("cancel-then-stream", ScenarioVerdict::Fail)
            .title("A canceled task stops emitting and reads canceled on every later read of it")
            .message(&format!(
                "the stream kept emitting: {}",
                [leak; 4].join("; ")
            ))
            .evidence(vec![Evidence {
                at_ms: 200,
                kind: EvidenceKind::Event,
                summary: format!("event #4 {leak} {leak}"),
                body: None,
                curl: Some(curl.clone()),
            }])
            .build();
        let mut peer = PeerReport::new("http://peer/card");
        peer.card_warnings.push(format!(
            "the card requires credentials but none were given: {}; the card's scheme \
             `bearer` (HTTP bearer) needs --bearer-env VAR",
            "the peer will likely refuse every request with HTTP 401/403 ".repeat(2)
        ));
        peer.scenarios.push(run);
        // A precondition's line and its pin hint run past 80 columns too.
        peer.preconditions.push(crate::PreconditionReport {
            variable: "prompt_input_required".into(),
            skill: Some("echo".into()),
            outcome: crate::PreconditionOutcome::Found,
            prompt: Some("need-input".into()),
            source: Some("skills[echo].examples[1]".into()),
            tried: vec![],
            tasks_started: 2,
            tasks_canceled: 1,
            message: String::new(),
            runs: vec!["r".into()],
            evidence: vec![],
        });
        let report = RunReport::new(vec![peer]);
        let style = |width| Style {
            color: false,
            verbose: false,
            quiet: false,
            width,
        };
        let text = render(&report, style(Some(80)));
        for line in text.lines().filter(|l| !l.contains("reproduce: ")) {
            assert!(line.chars().count() <= 80, "{line}\n{text}");
        }
        assert!(text.contains(&format!("    reproduce: {curl}\n")), "{text}");
        assert!(
            text.contains("\n  card warning: the card requires credentials"),
            "{text}"
        );
        assert!(text.contains("needs --bearer-env VAR\n"), "{text}");
        assert!(
            text.contains("\n  precondition: prompt_input_required"),
            "{text}"
        );
        assert!(text.contains("\n    ↳ pin it for next time: "), "{text}");
        // The message is wrapped, not cut: every word of it is there.
        let words = |t: &str| t.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert!(
            text.contains("    the stream kept emitting: artifact-update"),
            "{text}"
        );
        assert_eq!(
            words(&text)
                .iter()
                .filter(|w| w.starts_with("artifactId="))
                .count(),
            4 + 1
        );
        // A log (no terminal) keeps the message on one line.
        let log = render(&report, style(None));
        assert!(log.contains(&format!(
            "    the stream kept emitting: {}\n",
            [leak; 4].join("; ")
        )));
    }

    #[test]
    fn wrap_breaks_at_spaces_and_cuts_only_words_longer_than_a_line() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("abcdefgh ij", 3), ["abc", "def", "gh", "ij"]);
        assert_eq!(wrap("", 10), [""]);
        let text = "the stream kept emitting after the cancel was acknowledged: 4 event(s)";
        for width in [10, 20, 33] {
            let lines = wrap(text, width);
            assert!(
                lines.iter().all(|l| l.chars().count() <= width),
                "{lines:?}"
            );
            if width > 13 {
                assert_eq!(lines.join(" "), text);
            }
        }
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
                "{}: pass --var x=… or set it in a --profile",
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
