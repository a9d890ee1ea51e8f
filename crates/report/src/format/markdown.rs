//! The Markdown report (`--markdown FILE`), sized for a CI step summary such
//! as `$GITHUB_STEP_SUMMARY`: the result, the declaration table per peer, then
//! each failure, flaky run and error with its message, a short evidence
//! excerpt and the reproduction, then the baseline. A pure function of the report.
//! Peer and report-file text is inert ([`inert`]): in code spans and fenced
//! blocks, or escaped so no link, image, emphasis, HTML or cell break survives.

use super::timeline;
use crate::Summarized;
use crate::{inert, verdict};
use crate::{
    BaselineStatus, DeclarationReport, DeclarationVerdict, PeerReport, RunReport, ScenarioReport,
    ScenarioVerdict,
};
use crate::{RunOutcome, RunSummary};
use a2a_conform_protocol::text::one_line;
use std::fmt::Write;

/// Evidence entries shown per run (the JSON report has them all).
const EVIDENCE_LINES: usize = 12;
/// The `why` cell's length; a cut keeps the reason's fix hint (the flag or
/// variable that would decide the row).
const WHY_WIDTH: usize = 160;

/// Renders the report as GitHub-flavoured Markdown; its result line comes
/// from the report's summary (see [`RunReport::summary`]).
pub fn render(report: &RunReport) -> String {
    let summary = report.summary();
    let mut out = String::new();
    let _ = writeln!(out, "## a2a-conform\n");
    let _ = writeln!(out, "{}\n", header_line(report, &summary));
    if report.interrupted {
        let _ = writeln!(out, "**⏹ Interrupted** — {}\n", crate::INTERRUPTED_NOTE);
    }
    if report.tool.insecure {
        let _ = writeln!(out, "**⚠ Insecure** — {}\n", crate::INSECURE_NOTE);
    }
    let _ = writeln!(out, "{}\n", result_line(report, &summary));
    for peer in &report.peers {
        render_peer(&mut out, peer, report.peers.len() > 1);
    }
    render_baseline(&mut out, report);
    out
}

/// `a2a-conform 0.3.0 · started 2026-11-30T09:23:38Z · took 12.3 s`.
fn header_line(report: &RunReport, summary: &RunSummary) -> String {
    let mut parts = vec![format!(
        "{} {}",
        text(&report.tool.name),
        text(&report.tool.version)
    )];
    if !report.started_at.is_empty() {
        parts.push(format!("started {}", text(&report.started_at)));
    }
    if report.peers.iter().any(|p| p.duration_ms.is_some()) {
        parts.push(format!("took {:.1} s", summary.duration_ms as f64 / 1000.0));
    }
    parts.join(" · ")
}

/// The headline, from the summary's counts, and what fails the run.
fn result_line(report: &RunReport, summary: &RunSummary) -> String {
    // Every class that fails the run shows, not only the one that decides
    // the exit code; the others name their own code.
    let classes = verdict::failing_classes(report);
    // Which code won comes first: the list below may be cut at ten.
    let mut reasons: Vec<String> = verdict::precedence_note(&classes).into_iter().collect();
    reasons.extend(classes.iter().flat_map(|class| {
        let mark = class.mark(summary.exit_code);
        class.reasons.iter().map(move |r| format!("{r}{mark}"))
    }));
    let shown: Vec<String> = reasons.iter().take(10).map(|r| text(r)).collect();
    let mut why = shown.join("; ");
    if reasons.len() > shown.len() {
        why.push_str(&format!(" (and {} more)", reasons.len() - shown.len()));
    }
    let mark = match summary.outcome {
        RunOutcome::Pass => "✅",
        RunOutcome::Fail | RunOutcome::Error => "❌",
        RunOutcome::Unverified => "⚠️",
    };
    let head = format!(
        "**Result: {mark} {}** — {} · {}",
        summary.word(),
        summary.phrase(),
        summary.counts.runs_phrase()
    );
    if why.is_empty() {
        head
    } else {
        format!("{head}\n\nFails the run: {why}")
    }
}

fn render_peer(out: &mut String, peer: &PeerReport, many: bool) {
    let title = peer.name.as_deref().unwrap_or("peer");
    let _ = writeln!(out, "### {} — {}\n", text(title), code(&peer.card_url));
    if let Some(error) = &peer.card_error {
        let _ = writeln!(out, "❌ **error:** {}\n", text(error));
        return;
    }
    let _ = writeln!(
        out,
        "A2A {} over {} at {} · card {}\n",
        text(peer.protocol_version.as_deref().unwrap_or("?")),
        text(peer.binding.as_deref().unwrap_or("?")),
        code(peer.endpoint.as_deref().unwrap_or("?")),
        code(peer.card_digest.as_deref().unwrap_or("?"))
    );
    for warning in &peer.card_warnings {
        let _ = writeln!(out, "> ⚠️ card warning: {}\n", text(warning));
    }
    let _ = writeln!(out, "| declaration | verdict | why |");
    let _ = writeln!(out, "|---|---|---|");
    for d in &peer.declarations {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            code(&d.id),
            declaration_verdict(d),
            text(&super::human::clip_keeping_hint(&why(d), WHY_WIDTH))
        );
    }
    let _ = writeln!(out);
    for line in super::precondition::lines(peer) {
        let _ = writeln!(out, "> 🔎 precondition: {}\n", text(&line));
    }
    if let Some(pin) = super::precondition::pin(peer) {
        let _ = writeln!(
            out,
            "> pin it for next time: {} or, in a profile, {} ({})\n",
            code(&pin.flag),
            code(&pin.profile),
            super::precondition::PIN_NOTE
        );
    }
    if many {
        let _ = writeln!(out, "{}\n", super::human::summary_line(peer));
    }
    let shown = peer.scenarios.iter().filter(|s| {
        matches!(
            s.verdict,
            ScenarioVerdict::Fail | ScenarioVerdict::Flaky | ScenarioVerdict::Error
        )
    });
    for run in shown {
        render_run(out, run);
    }
}

fn why(d: &DeclarationReport) -> String {
    match (&d.baseline_reason, d.baselined) {
        (Some(known), true) => format!("baselined: {known} — {}", d.reason),
        _ => d.reason.clone(),
    }
}

/// The verdict cell, its spaces non-breaking so the column never wraps.
fn declaration_verdict(d: &DeclarationReport) -> String {
    let cell = match d.verdict {
        DeclarationVerdict::Honoured => "✅ honoured",
        DeclarationVerdict::Diverged if d.baselined => "⚠️ diverged (baselined)",
        DeclarationVerdict::Diverged => "❌ **diverged**",
        DeclarationVerdict::Unverified => "❔ unverified",
        DeclarationVerdict::NotDeclared => "➖ not-declared",
        DeclarationVerdict::OverDelivers => "➕ over-delivers",
    };
    cell.replace(' ', "&nbsp;")
}

fn run_marker(run: &ScenarioReport) -> &'static str {
    match run.verdict {
        ScenarioVerdict::Fail if run.baselined => "⚠️ fail (baselined)",
        ScenarioVerdict::Fail => "❌ fail",
        ScenarioVerdict::Flaky => "🔁 flaky",
        ScenarioVerdict::Error => "⚠️ error",
        ScenarioVerdict::Pass => "✅ pass",
        ScenarioVerdict::Inconclusive => "❔ inconclusive",
        ScenarioVerdict::Skipped => "➖ skipped",
    }
}

fn render_run(out: &mut String, run: &ScenarioReport) {
    let attempts = if run.attempts > 1 {
        format!(" · {} attempts", run.attempts)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "#### {} {} — {} ({} ms{attempts})\n",
        run_marker(run),
        code(&run.id),
        text(&run.title),
        run.duration_ms
    );
    let _ = writeln!(out, "> {}\n", text(&one_line(&run.message, 600)));
    if run.baselined {
        let _ = writeln!(
            out,
            "Known divergence (baseline): {}\n",
            text(run.baseline_reason.as_deref().unwrap_or(""))
        );
    }
    if !run.failed_attempts.is_empty() {
        for (n, failed) in run.failed_attempts.iter().enumerate() {
            let _ = writeln!(
                out,
                "- attempt {} failed: {}",
                n + 1,
                text(&one_line(failed, 300))
            );
        }
        let _ = writeln!(out);
    }
    let timeline = timeline::timeline(run, EVIDENCE_LINES, false, 200);
    if !timeline.lines.is_empty() {
        let total = timeline.omitted + timeline.lines.len();
        let label = if run.verdict == ScenarioVerdict::Flaky {
            "of the failed attempt"
        } else {
            ""
        };
        let summary = if timeline.omitted > 0 {
            format!(
                "Evidence {label} (last {} of {total} entries)",
                timeline.lines.len()
            )
        } else {
            format!("Evidence {label} ({total} entries)")
        };
        let body: String = timeline
            .lines
            .iter()
            .map(|l| format!("{} {}\n", l.at, l.summary))
            .collect();
        let _ = writeln!(
            out,
            "<details><summary>{}</summary>\n\n{}\n</details>\n",
            summary.replace("  ", " "),
            fenced("text", &body)
        );
    }
    write_sides(out, run);
    if let Some(curl) = timeline::reproduction(run) {
        let _ = writeln!(
            out,
            "Reproduce:\n\n{}\n",
            fenced("sh", &format!("{}\n", one_line(curl, 2000)))
        );
    }
}

fn render_baseline(out: &mut String, report: &RunReport) {
    let Some(baseline) = &report.baseline else {
        return;
    };
    let _ = writeln!(
        out,
        "### Baseline {}{}\n",
        code(&baseline.file),
        if baseline.strict { " (strict)" } else { "" }
    );
    if baseline.entries.is_empty() {
        let _ = writeln!(out, "No entries.\n");
        return;
    }
    let _ = writeln!(out, "| entry | status | reason | now |");
    let _ = writeln!(out, "|---|---|---|---|");
    for e in &baseline.entries {
        let status = match e.status {
            BaselineStatus::Applied => "applied",
            BaselineStatus::Stale => "⚠️ **stale** — remove it",
            BaselineStatus::Undecided => "undecided",
            BaselineStatus::Unmatched => "⚠️ matches nothing",
        };
        let _ = writeln!(
            out,
            "| {} | {status} | {} | {} |",
            code(&e.target()),
            text(&one_line(&e.reason, 200)),
            text(&one_line(&e.note, 200))
        );
    }
    let _ = writeln!(out);
}

/// A failed equivalence run's first difference: each interface's side in a
/// labelled block of its own (a table cell cannot hold a body well).
fn write_sides(out: &mut String, run: &ScenarioReport) {
    let Some(sides) = timeline::sides(run) else {
        return;
    };
    let _ = writeln!(
        out,
        "<details><summary>The first difference, over each interface</summary>\n"
    );
    for side in &sides {
        let lines = timeline::side_lines(side, 200, timeline::Bodies::Whole);
        let body: String = lines[1..].iter().map(|l| format!("{l}\n")).collect();
        let _ = writeln!(
            out,
            "**{}**\n\n{}",
            text(&side.label),
            fenced("text", &body)
        );
    }
    let _ = writeln!(out, "</details>\n");
}

/// Peer text in a paragraph or a table cell: shown as written, never
/// markup, never a cell break.
fn text(s: &str) -> String {
    inert::markdown_text(s)
}

/// Peer text as inline code that survives backticks inside and sits in a
/// table cell.
fn code(s: &str) -> String {
    inert::markdown_code(s)
}

/// A fenced block whose fence is longer than any backtick run in `body`.
fn fenced(lang: &str, body: &str) -> String {
    inert::markdown_fenced(lang, body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Evidence, EvidenceKind};
    use crate::{BaselineEntryReport, BaselineReport, Tool};

    fn run(id: &str, verdict: ScenarioVerdict) -> ScenarioReport {
        ScenarioReport {
            id: id.into(),
            scenario: id.into(),
            title: "a title".into(),
            verdict,
            verifies: vec!["lifecycle.cancel".into()],
            duration_ms: 20,
            message: "it <broke> | badly".into(),
            error_kind: None,
            fail_kind: None,
            attempts: 1,
            failed_attempts: vec![],
            baselined: false,
            baseline_reason: None,
            evidence: vec![Evidence {
                at_ms: 200,
                kind: EvidenceKind::Request,
                summary: "step `expect` ```".into(),
                body: None,
                curl: Some("curl -d '{}'".into()),
            }],
        }
    }

    fn report(runs: Vec<ScenarioReport>, verdict: DeclarationVerdict) -> RunReport {
        RunReport {
            schema_version: 1,
            tool: Tool::this(),
            started_at: String::new(),
            peers: vec![PeerReport {
                card_url: "http://peer/card".into(),
                name: Some("peer".into()),
                card_digest: Some("sha256:ab".into()),
                protocol_version: Some("1.0".into()),
                binding: Some("jsonrpc".into()),
                endpoint: Some("http://peer/a2a".into()),
                card_error: None,
                interrupted: false,
                card_warnings: vec![],
                declarations: vec![DeclarationReport {
                    id: "lifecycle.cancel".into(),
                    declared: true,
                    verdict,
                    scenarios: vec![],
                    reason: "why | so".into(),
                    baselined: false,
                    baseline_reason: None,
                }],
                scenarios: runs,
                duration_ms: Some(2500),
                preconditions: vec![],
                credentials: None,
                card_body: None,
                extended_card_body: None,
            }],
            fail_on_flaky: false,
            fail_on_unverified: false,
            baseline: None,
            summary: None,
            interrupted: false,
            duration_ms: None,
            shard: None,
        }
    }

    #[test]
    fn a_failure_shows_message_evidence_and_reproduction_safely() {
        let md = render(&report(
            vec![run("c", ScenarioVerdict::Fail)],
            DeclarationVerdict::Diverged,
        ));
        assert!(
            md.contains("**Result: ❌ fail** — 0 honoured, 1 diverged · 1 scenario runs: 1 fail"),
            "{md}"
        );
        assert!(
            md.contains("Fails the run: lifecycle.cancel diverged"),
            "{md}"
        );
        assert!(
            md.contains("| `lifecycle.cancel` | ❌&nbsp;**diverged** | why \\| so |"),
            "{md}"
        );
        assert!(md.contains(" · took 2.5 s"), "{md}");
        assert!(md.contains("> it \\<broke\\> \\| badly"), "{md}");
        assert!(
            md.contains("````text\n+  0.20s step `expect` ```\n````"),
            "{md}"
        );
        assert!(md.contains("```sh\ncurl -d '{}'\n```"), "{md}");
    }

    #[test]
    fn the_headline_never_says_more_than_its_counts() {
        let mut r = report(vec![], DeclarationVerdict::Diverged);
        let mut row = r.peers[0].declarations[0].clone();
        r.peers[0].declarations[0].baselined = true;
        row.verdict = DeclarationVerdict::Honoured;
        r.peers[0].declarations.push(row.clone());
        row.verdict = DeclarationVerdict::Unverified;
        r.peers[0].declarations.push(row);
        let md = render(&r);
        assert!(
            md.contains("**Result: ✅ pass** — 1 honoured, 1 diverged (baselined), 1 unverified"),
            "{md}"
        );
        assert!(!md.contains("every declaration honoured"), "{md}");
        r.peers[0]
            .declarations
            .retain(|d| d.verdict == DeclarationVerdict::Honoured);
        let md = render(&r);
        assert!(
            md.contains("**Result: ✅ pass** — every declaration honoured (1 honoured)"),
            "{md}"
        );
    }

    #[test]
    fn flaky_runs_and_baselines_are_visible() {
        let mut flaky = run("f", ScenarioVerdict::Flaky);
        flaky.attempts = 2;
        flaky.failed_attempts = vec!["first".into()];
        let mut r = report(vec![flaky], DeclarationVerdict::Honoured);
        r.fail_on_flaky = true;
        r.baseline = Some(BaselineReport {
            file: "known.yaml".into(),
            strict: false,
            entries: vec![BaselineEntryReport {
                declaration: None,
                scenario: Some("x".into()),
                reason: "because".into(),
                status: BaselineStatus::Stale,
                note: "x reads pass".into(),
            }],
        });
        let md = render(&r);
        assert!(md.contains("#### 🔁 flaky `f`"), "{md}");
        assert!(md.contains("- attempt 1 failed: first"), "{md}");
        assert!(md.contains("Evidence of the failed attempt"), "{md}");
        assert!(md.contains("f is flaky"), "{md}");
        assert!(
            md.contains("| `scenario x` | ⚠️ **stale** — remove it | because | x reads pass |"),
            "{md}"
        );
    }
}
