//! One check's report as HTML (`check --html FILE`, and the latest report
//! on a dashboard peer page): the result, each peer's declaration table
//! with verdicts and reasons, each scenario run with its steps, its stream
//! events on a time axis and the `curl` lines that reproduce it, then the
//! baseline. A pure function of the report, like the Markdown one. Every
//! string from the report (the peer's card, answers, errors) goes through
//! maud's escaping: it is text, never markup; a URL is shown, never linked.

mod axis;
pub mod page;

use super::human;
use super::timeline;
use crate::evidence::EvidenceKind;
use crate::Summarized;
use crate::{
    DeclarationReport, PeerReport, RunReport, ScenarioReport, ScenarioVerdict, INSECURE_NOTE,
    INTERRUPTED_NOTE,
};
use a2a_conform_protocol::text::one_line;
use maud::{html, Markup};

/// A body is clipped to this many characters (the JSON report has it whole).
const BODY_CHARS: usize = 4000;

/// The report as a self-contained HTML file: inline style, no script, no
/// external asset, its own Content-Security-Policy in a `<meta>`.
pub fn report_html(report: &RunReport) -> String {
    let title = match report.peers.as_slice() {
        [one] => format!(
            "a2a-conform: {}",
            one.name.as_deref().unwrap_or(&one.card_url)
        ),
        _ => format!("a2a-conform: {} peers", report.peers.len()),
    };
    page::page(page::Shell::File, &title, report_body(report))
}

/// The report's markup, for a page of its own or a dashboard page.
pub fn report_body(report: &RunReport) -> Markup {
    let summary = report.summary();
    let outcome = summary.outcome.as_str();
    html! {
        h1 { "a2a-conform report" }
        p.muted {
            (report.tool.name) " " (report.tool.version) " · started " (report.started_at)
            @if let Some(ms) = report.duration_ms { " · took " (format!("{:.1}", ms as f64 / 1000.0)) " s" }
        }
        @if report.interrupted { p.note { "Interrupted — " (INTERRUPTED_NOTE) } }
        @if report.tool.insecure { p.note { "Insecure — " (INSECURE_NOTE) } }
        p.result {
            "Result: " span class={ "verdict r-" (outcome) } { (summary.word()) }
            " — " (summary.phrase()) " · " (summary.counts.runs_phrase())
        }
        @for peer in &report.peers { (peer_section(peer)) }
        (baseline(report))
    }
}

fn peer_section(peer: &PeerReport) -> Markup {
    html! {
        section.peer {
            h2 { (peer.name.as_deref().unwrap_or("peer")) " — " code { (peer.card_url) } }
            @if let Some(error) = &peer.card_error {
                p.note { "error: " (error) }
            } @else {
                p.muted {
                    "A2A " (peer.protocol_version.as_deref().unwrap_or("?"))
                    " over " (peer.binding.as_deref().unwrap_or("?"))
                    " at " code { (peer.endpoint.as_deref().unwrap_or("?")) }
                    " · card " code { (peer.card_digest.as_deref().unwrap_or("?")) }
                }
                @for warning in &peer.card_warnings { p.note { "card warning: " (warning) } }
                (declaration_table(&peer.declarations))
                p.muted { (human::summary_line(peer)) }
                h3 { "Scenario runs" }
                @for run in &peer.scenarios { (run_section(run)) }
            }
        }
    }
}

/// The headline table: one row per declaration.
pub(crate) fn declaration_table(rows: &[DeclarationReport]) -> Markup {
    html! {
        table.declarations {
            thead { tr { th { "declaration" } th { "verdict" } th { "why" } th { "runs" } } }
            tbody {
                @for d in rows {
                    tr {
                        td { code { (d.id) } }
                        td { span class={ "verdict v-" (d.verdict.as_str()) } {
                            (d.verdict.as_str()) @if d.baselined { " (baselined)" }
                        } }
                        td.why {
                            @if let (true, Some(known)) = (d.baselined, &d.baseline_reason) {
                                "baselined: " (known) " — "
                            }
                            (d.reason)
                        }
                        td { @for s in &d.scenarios { code { (s) } " " } }
                    }
                }
            }
        }
    }
}

/// One run: open when it did not pass, so the evidence is in view.
fn run_section(run: &ScenarioReport) -> Markup {
    let open = matches!(
        run.verdict,
        ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
    );
    let curls: Vec<&str> = run
        .evidence
        .iter()
        .filter_map(|e| e.curl.as_deref())
        .collect();
    html! {
        details.run open[open] {
            summary {
                span class={ "verdict s-" (run.verdict.as_str()) } { (run.verdict.as_str()) }
                " " code { (run.id) } " — " (run.title)
                span.muted { " (" (run.duration_ms) " ms" @if run.attempts > 1 { ", " (run.attempts) " attempts" } ")" }
            }
            p { (run.message) }
            @if let Some(kind) = run.error_kind { p.muted { "error kind: " (kind.as_str()) } }
            @if run.baselined { p.note { "Known divergence (baseline): " (run.baseline_reason.as_deref().unwrap_or("")) } }
            @for (n, failed) in run.failed_attempts.iter().enumerate() {
                p.muted { "attempt " (n + 1) " failed: " (failed) }
            }
            @if let Some(axis) = axis::time_axis(&run.evidence) { (axis) }
            @if let Some(sides) = timeline::sides(run) { (side_by_side(&sides)) }
            @if !run.evidence.is_empty() { (steps(run)) }
            @if !curls.is_empty() {
                h3 { "Reproduce" }
                @for curl in curls { pre.curl { (curl) } }
            }
        }
    }
}

fn kind_name(kind: EvidenceKind) -> &'static str {
    match kind {
        EvidenceKind::Request => "request",
        EvidenceKind::Response => "response",
        EvidenceKind::Event => "event",
        EvidenceKind::Comment => "comment",
        EvidenceKind::StreamEnd => "stream end",
        EvidenceKind::Note => "note",
        EvidenceKind::Elided => "elided",
    }
}

/// A failed equivalence run's first difference: what each interface was
/// asked and answered, in two columns (the compared one first).
fn side_by_side(sides: &[timeline::Side<'_>; 2]) -> Markup {
    html! {
        h3 { "The first difference, over each interface" }
        table.sides {
            thead { tr { @for side in sides { th { (side.label) } } } }
            tbody {
                tr {
                    @for side in sides {
                        td {
                            @for e in &side.entries {
                                div {
                                    span.muted { (format!("+{:.3}s ", e.at_ms as f64 / 1000.0)) }
                                    (e.summary)
                                }
                                @if let Some(body) = &e.body { pre { (one_line_block(body)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The run's steps: every evidence entry, its body clipped.
fn steps(run: &ScenarioReport) -> Markup {
    html! {
        table.steps {
            thead { tr { th { "at" } th { "step" } th { "what" } } }
            tbody {
                @for e in &run.evidence {
                    tr {
                        td.at { (format!("+{:.3}s", e.at_ms as f64 / 1000.0)) }
                        td { (kind_name(e.kind)) }
                        td {
                            (e.summary)
                            @if let Some(body) = &e.body { pre { (one_line_block(body)) } }
                        }
                    }
                }
            }
        }
    }
}

/// A body clipped to [`BODY_CHARS`], its lines kept.
fn one_line_block(body: &str) -> String {
    if body.chars().count() > BODY_CHARS {
        let cut: String = body.chars().take(BODY_CHARS).collect();
        format!("{cut}…")
    } else {
        body.to_string()
    }
}

fn baseline(report: &RunReport) -> Markup {
    let Some(baseline) = &report.baseline else {
        return html! {};
    };
    html! {
        h2 { "Baseline " code { (baseline.file) } }
        table {
            thead { tr { th { "entry" } th { "status" } th { "reason" } th { "note" } } }
            tbody {
                @for entry in &baseline.entries {
                    tr {
                        td { (entry.target()) }
                        td { (entry.status.as_str()) }
                        td { (one_line(&entry.reason, 400)) }
                        td { (entry.note) }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::Evidence;
    use crate::DeclarationVerdict;

    #[test]
    fn peer_strings_are_text_and_urls_are_not_links() {
        let hostile = "<script>alert(1)</script><a href=\"javascript:alert(2)\">x</a>";
        let row =
            DeclarationReport::builder("lifecycle.cancel", DeclarationVerdict::Diverged).build();
        let run = ScenarioReport::builder("cancel", ScenarioVerdict::Fail)
            .evidence(vec![Evidence {
                at_ms: 3,
                kind: EvidenceKind::Request,
                summary: hostile.into(),
                body: Some(hostile.into()),
                curl: Some("curl 'javascript:alert(3)'".into()),
            }])
            .build();
        let mut peer = PeerReport::builder("javascript:alert(4)")
            .declarations(vec![row])
            .build();
        peer.name = Some(hostile.into());
        peer.scenarios = vec![run];
        let html = report_html(&RunReport::new(vec![peer]));
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<a "), "{html}");
        assert!(!html.contains("href=\""), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(html.contains("class=\"verdict v-diverged\""), "{html}");
        assert!(
            html.contains("<pre class=\"curl\">curl 'javascript:alert(3)'</pre>"),
            "{html}"
        );
    }

    #[test]
    fn a_failed_equivalence_run_shows_each_interfaces_side_in_a_column() {
        let entry = |kind, summary: &str| Evidence {
            at_ms: 1,
            kind,
            summary: summary.into(),
            body: None,
            curl: None,
        };
        let run = ScenarioReport::builder("bindings-agree[B ≡ A]", ScenarioVerdict::Fail)
            .evidence(vec![
                entry(EvidenceKind::Note, "over A (the reference):"),
                entry(EvidenceKind::Response, "answer of A"),
                entry(EvidenceKind::Note, "over B:"),
                entry(EvidenceKind::Response, "answer of <B>"),
                entry(EvidenceKind::Note, "further: the comparisons after"),
            ])
            .build();
        let html = side_by_side(&timeline::sides(&run).expect("sides")).into_string();
        let (b, a) = (
            html.find("<th>over B</th>"),
            html.find("<th>over A (the reference)</th>"),
        );
        assert!(b.is_some() && a.is_some() && b < a, "{html}");
        assert!(html.contains("answer of &lt;B&gt;"), "{html}");
        let cells: Vec<&str> = html.split("<td>").skip(1).collect();
        assert_eq!(cells.len(), 2, "{html}");
        assert!(cells[0].contains("answer of &lt;B&gt;") && !cells[0].contains("answer of A"));
    }
}
