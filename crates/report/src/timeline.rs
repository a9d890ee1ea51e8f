//! Plain-text views of a run's evidence, shared by the terminal, JUnit and
//! Markdown reports: the timeline of what was sent and received, and the
//! `curl` line that reproduces the last request.

use crate::evidence::EvidenceKind;
use crate::ScenarioReport;

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
    if let Some(curl) = reproduction(run) {
        out.push_str(&format!("reproduce: {}\n", one_line(curl, 2000)));
    }
    out
}

/// Flattens text to one line of at most `max` characters (an ellipsis marks a cut).
pub fn one_line(text: &str, max: usize) -> String {
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
    fn one_line_cuts_long_text_with_an_ellipsis() {
        assert_eq!(one_line("a\nb", 10), "a b");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
