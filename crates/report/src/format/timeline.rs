//! Plain-text views of a run's evidence, shared by the terminal, JUnit and
//! Markdown reports: the timeline of what was sent and received, the `curl`
//! line that reproduces the last request, and, for an equivalence run that
//! failed, its first difference's two sides (what each interface was asked
//! and answered), set apart from the timeline where both interleave.

use crate::evidence::{
    Evidence, EvidenceKind, CONTROL_NOTE, FURTHER_NOTE, REFERENCE_SIDE, SIDE_NOTE,
};
use crate::{ScenarioReport, ScenarioVerdict};
use a2a_conform_protocol::text::one_line;

/// One timeline entry: when (`+  0.20s`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Seconds since the run started, right-aligned (`+  0.20s`).
    pub at: String,
    /// The entry's summary on one line, cut to the width asked for.
    pub summary: String,
}

/// The last entries of a run's evidence, and how many earlier ones were left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// Entries before the window that are not shown.
    pub omitted: usize,
    /// The entries shown, oldest first.
    pub lines: Vec<Line>,
}

/// The last `limit` entries of a run's evidence, each on one line of at most
/// `width` characters, led by the run's elided-entries marker if it falls
/// before them. Keep-alive comments only when `comments` is set.
pub fn timeline(run: &ScenarioReport, limit: usize, comments: bool, width: usize) -> Timeline {
    let entries: Vec<_> = run
        .evidence
        .iter()
        .filter(|e| comments || e.kind != EvidenceKind::Comment)
        .collect();
    let mut omitted = entries.len().saturating_sub(limit);
    let mut shown: Vec<_> = entries[omitted..].to_vec();
    // How much the run itself left out is shown even when the window starts
    // after it: "earlier entries" alone would understate what is missing.
    if let Some(marker) = entries[..omitted]
        .iter()
        .find(|e| e.kind == EvidenceKind::Elided)
    {
        shown.insert(0, *marker);
        omitted -= 1;
    }
    let lines = shown
        .iter()
        .map(|e| Line {
            at: format!("+{:>6.2}s", e.at_ms as f64 / 1000.0),
            summary: one_line(&e.summary, width),
        })
        .collect();
    Timeline { omitted, lines }
}

/// The command reproducing the run's last request, if it made one.
pub fn reproduction(run: &ScenarioReport) -> Option<&str> {
    run.evidence.iter().rev().find_map(|e| e.curl.as_deref())
}

/// The evidence as plain text: the timeline, then `reproduce: curl …`.
pub fn plain(run: &ScenarioReport, limit: usize) -> String {
    let timeline = timeline(run, limit, false, 400);
    let mut out = String::new();
    if timeline.omitted > 0 {
        out.push_str(&format!(
            "… {} earlier entries (see the JSON report)\n",
            timeline.omitted
        ));
    }
    for line in &timeline.lines {
        out.push_str(&format!("{} {}\n", line.at, line.summary));
    }
    for side in sides(run).into_iter().flatten() {
        for line in side_lines(&side, 400, Bodies::Whole) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if let Some(curl) = reproduction(run) {
        out.push_str(&format!("reproduce: {}\n", one_line(curl, 2000)));
    }
    out
}

/// One interface's part of an equivalence run's first difference.
#[derive(Debug, Clone, PartialEq)]
pub struct Side<'a> {
    /// Which interface (`over HTTP+JSON 1.0`, `over JSONRPC 1.0 (the reference)`).
    pub label: String,
    /// What was sent to it and what it answered, in order.
    pub entries: Vec<&'a Evidence>,
}

/// The two sides of a failed equivalence run's first difference, the
/// compared interface's first: the entries after the last side notes
/// (`over …:`) before the note that marks the comparisons after it
/// (`further: `). Each side ends at the next side, control or further
/// note. `None` for any other run.
pub fn sides(run: &ScenarioReport) -> Option<[Side<'_>; 2]> {
    if run.verdict != ScenarioVerdict::Fail {
        return None;
    }
    let notes =
        |e: &Evidence, prefix: &str| e.kind == EvidenceKind::Note && e.summary.starts_with(prefix);
    let evidence = &run.evidence;
    let further = evidence.iter().position(|e| notes(e, FURTHER_NOTE))?;
    let is_side = |e: &Evidence| notes(e, SIDE_NOTE) && e.summary.ends_with(':');
    let is_reference = |e: &Evidence| is_side(e) && e.summary.ends_with(REFERENCE_SIDE);
    let other = evidence[..further]
        .iter()
        .rposition(|e| is_side(e) && !is_reference(e))?;
    let reference = evidence[..other].iter().rposition(is_reference)?;
    let side = |start: usize| {
        let head = &evidence[start];
        let entries = evidence[start + 1..]
            .iter()
            .take_while(|e| !(is_side(e) || notes(e, CONTROL_NOTE) || notes(e, FURTHER_NOTE)))
            .collect();
        Side {
            label: head.summary.trim_end_matches(':').to_string(),
            entries,
        }
    };
    Some([side(other), side(reference)])
}

/// A side as plain lines of at most `width` characters: its label, then
/// each entry's time and summary, and the body below it, indented.
/// `Bodies::Whole` keeps every body on one line (a Markdown block
/// scrolls); `Bodies::Answers` keeps only the answers' bodies, packed
/// between JSON members into up to [`BODY_LINES`] lines, so that no id or
/// token is split across two (a member longer than a line is cut).
pub fn side_lines(side: &Side<'_>, width: usize, bodies: Bodies) -> Vec<String> {
    let mut lines = vec![format!(
        "{}:",
        one_line(&side.label, width.saturating_sub(2).max(1))
    )];
    for e in &side.entries {
        let at = format!("+{:>6.2}s", e.at_ms as f64 / 1000.0);
        let room = width.saturating_sub(at.chars().count() + 4).max(1);
        lines.push(format!("  {at} {}", one_line(&e.summary, room)));
        let Some(body) = e.body.as_deref().filter(|b| !b.is_empty()) else {
            continue;
        };
        let room = width.saturating_sub(BODY_INDENT.len() + 1).max(1);
        match bodies {
            Bodies::Whole => lines.push(format!("{BODY_INDENT}{}", one_line(body, WHOLE_BODY))),
            Bodies::Answers if e.kind == EvidenceKind::Response => lines.extend(
                packed(&one_line(body, WHOLE_BODY), room)
                    .into_iter()
                    .map(|l| format!("{BODY_INDENT}{l}")),
            ),
            Bodies::Answers => {}
        }
    }
    lines
}

/// Which bodies a side shows, and how ([`side_lines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bodies {
    /// Every body, each on one line.
    Whole,
    /// The answers' bodies only, in lines of the width.
    Answers,
}

/// `text` in at most [`BODY_LINES`] lines of at most `room` characters,
/// broken after a comma only (a piece longer than a line is cut, and the
/// lines past the last are dropped with an ellipsis).
fn packed(text: &str, room: usize) -> Vec<String> {
    let mut lines: Vec<String> = vec![String::new()];
    for piece in text.split_inclusive(',') {
        let last = lines.last_mut().expect("never empty");
        if last.chars().count() + piece.chars().count() <= room {
            last.push_str(piece);
            continue;
        }
        let piece = match piece.chars().count() > room {
            true => one_line(piece, room.saturating_sub(1).max(1)),
            false => piece.to_string(),
        };
        match last.is_empty() {
            true => *last = piece,
            false => lines.push(piece),
        }
    }
    if lines.len() > BODY_LINES {
        lines.truncate(BODY_LINES);
        lines.push("…".into());
    }
    lines
}

/// How many lines of an answer's body a terminal side shows.
pub const BODY_LINES: usize = 4;

/// How much of a body a side keeps at most.
const WHOLE_BODY: usize = 2000;

/// The indent of a side's body lines.
const BODY_INDENT: &str = "      ";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Evidence;
    use crate::ScenarioVerdict;

    fn entry(at_ms: u64, kind: EvidenceKind, summary: &str, curl: Option<&str>) -> Evidence {
        Evidence {
            at_ms,
            kind,
            summary: summary.into(),
            body: None,
            curl: curl.map(str::to_string),
        }
    }

    fn run(evidence: Vec<Evidence>) -> ScenarioReport {
        ScenarioReport::builder("r", ScenarioVerdict::Fail)
            .evidence(evidence)
            .build()
    }

    #[test]
    fn the_timeline_keeps_the_last_entries_and_counts_the_rest() {
        let r = run(vec![
            entry(0, EvidenceKind::Request, "first", Some("curl one")),
            entry(10, EvidenceKind::Comment, ": keep-alive", None),
            entry(200, EvidenceKind::Event, "second\nline", None),
            entry(1500, EvidenceKind::Request, "third", Some("curl two")),
        ]);
        let t = timeline(&r, 2, false, 100);
        assert_eq!(t.omitted, 1);
        assert_eq!(t.lines[0].at, "+  0.20s");
        assert_eq!(t.lines[0].summary, "second line");
        assert_eq!(t.lines[1].at, "+  1.50s");
        assert_eq!(timeline(&r, 10, true, 100).lines.len(), 4);
        assert_eq!(reproduction(&r), Some("curl two"));
        let text = plain(&r, 2);
        assert!(text.starts_with("… 1 earlier entries"), "{text}");
        assert!(text.ends_with("reproduce: curl two\n"), "{text}");
    }

    #[test]
    fn the_elided_marker_is_shown_even_before_the_window() {
        let mut evidence = vec![entry(0, EvidenceKind::Request, "first", None)];
        evidence.push(entry(
            5,
            EvidenceKind::Elided,
            "… 9900 entries elided",
            None,
        ));
        for n in 0..5 {
            evidence.push(entry(10 + n, EvidenceKind::Event, "later", None));
        }
        let t = timeline(&run(evidence), 2, false, 100);
        assert_eq!(t.lines.len(), 3);
        assert_eq!(t.lines[0].summary, "… 9900 entries elided");
        assert_eq!(t.omitted, 4, "the request and three events");
    }

    #[test]
    fn a_failed_equivalence_run_shows_its_first_differences_two_sides() {
        let note = |s: &str| entry(0, EvidenceKind::Note, s, None);
        let mut answer = entry(5, EvidenceKind::Response, "← HTTP 400", None);
        answer.body = Some("{\"error\": -32004}".into());
        let r = run(vec![
            note("over A (the reference):"),
            entry(1, EvidenceKind::Request, "→ GetTask A", None),
            note("over B:"),
            entry(2, EvidenceKind::Request, "→ GetTask B", None),
            note("over A (the reference):"),
            entry(3, EvidenceKind::Request, "→ push A", None),
            entry(4, EvidenceKind::Response, "← HTTP 200", None),
            note("over B:"),
            entry(5, EvidenceKind::Request, "→ push B", None),
            answer,
            note("further: the comparisons after the first difference"),
            note("over A (the reference):"),
            entry(9, EvidenceKind::Request, "→ stream A", None),
        ]);
        let [other, reference] = sides(&r).expect("two sides");
        assert_eq!(other.label, "over B");
        assert_eq!(reference.label, "over A (the reference)");
        let said = |s: &Side<'_>| {
            s.entries
                .iter()
                .map(|e| e.summary.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(said(&other), ["→ push B", "← HTTP 400"]);
        assert_eq!(said(&reference), ["→ push A", "← HTTP 200"]);
        let lines = side_lines(&other, 30, Bodies::Answers);
        assert_eq!(lines[0], "over B:");
        assert!(lines[3].contains("-32004"), "{lines:?}");
        // Answers' bodies break between JSON members only, and stop at
        // BODY_LINES lines; a whole body stays on one line.
        let long = Evidence {
            body: Some(format!(
                "{{{}}}",
                vec!["\"id\":\"0123456789abcdef\""; 40].join(",")
            )),
            ..entry(0, EvidenceKind::Response, "← HTTP 400", None)
        };
        let side = Side {
            label: "over B".into(),
            entries: vec![&long],
        };
        let wrapped = side_lines(&side, 30, Bodies::Answers);
        assert_eq!(wrapped.len(), 2 + BODY_LINES + 1, "{wrapped:?}");
        assert!(
            wrapped[2..2 + BODY_LINES]
                .iter()
                .all(|l| l.trim_start().trim_start_matches('{').starts_with("\"id\"")),
            "{wrapped:?}"
        );
        assert!(
            wrapped.iter().all(|l| l.chars().count() <= 30),
            "{wrapped:?}"
        );
        assert_eq!(side_lines(&side, 30, Bodies::Whole).len(), 3);
        assert!(lines.iter().all(|l| l.chars().count() <= 30), "{lines:?}");
        assert!(plain(&r, 3).contains("over A (the reference):\n"));
        // Any other run, or a passing one, has no sides.
        let passed = ScenarioReport::builder("r", ScenarioVerdict::Pass)
            .evidence(r.evidence.clone())
            .build();
        assert!(sides(&passed).is_none());
        assert!(sides(&run(vec![entry(0, EvidenceKind::Request, "x", None)])).is_none());
    }

    #[test]
    fn one_line_cuts_long_text_with_an_ellipsis() {
        assert_eq!(one_line("a\nb", 10), "a b");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
