//! The JUnit XML report (`--junit FILE`) for CI systems: one `testsuite` per
//! peer, one `testcase` per scenario run. A pure function of the report,
//! written with `quick-junit`.
//!
//! | run verdict | JUnit |
//! |---|---|
//! | pass | passed |
//! | flaky | passed, with a `flakyFailure` per failed attempt |
//! | fail | `failure` (earlier attempts as `rerunFailure`) |
//! | fail, baselined | `skipped` (`type="baselined"`): a known divergence does not fail CI |
//! | error | `error` |
//! | inconclusive, skipped | `skipped` with the reason |
//!
//! A peer whose card could not be used gets one `agent-card` testcase in `error`;
//! an interrupted check (SIGINT/SIGTERM) gets an `interrupted` testcase in `error`.
//!
//! Every string goes through [`crate::inert::xml`] first: `quick-junit`
//! escapes `<`, `>`, `&` and quotes, but a control character from the peer
//! would make the file one no XML 1.0 parser reads.

use super::timeline;
use crate::inert::xml;
use crate::RunSummary;
use crate::Summarized;
use crate::{PeerReport, RunReport, ScenarioReport, ScenarioVerdict};
use a2a_conform_protocol::text::one_line;
use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};
use std::time::Duration;

/// The most evidence entries copied into one `system-out`.
const EVIDENCE_LINES: usize = 200;
/// A `message` attribute's length: one line a CI summary shows whole.
const MESSAGE_CHARS: usize = 160;

/// Why the JUnit report could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the JUnit report: {0}")]
pub struct RenderError(#[from] quick_junit::SerializeError);

/// Renders the report as JUnit XML; the headline properties come from the
/// report's summary (see [`RunReport::summary`]).
pub fn render(report: &RunReport) -> Result<String, RenderError> {
    let mut junit = Report::new("a2a-conform");
    let started = chrono::DateTime::parse_from_rfc3339(&report.started_at).ok();
    let summary = report.summary();
    for peer in &report.peers {
        let mut suite = suite(peer);
        headline_properties(&mut suite, &summary, peer);
        if let Some(at) = started {
            suite.set_timestamp(at);
        }
        if report.tool.insecure {
            suite.add_property(Property::new("insecure", crate::INSECURE_NOTE));
        }
        // The peer's wall time: its runs overlap, so not the sum of theirs.
        if let Some(ms) = peer.duration_ms {
            suite.set_time(Duration::from_millis(ms));
        }
        junit.add_test_suite(suite);
    }
    if report.interrupted {
        // A CI timeout must not read as a clean (if short) run.
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_message(crate::INTERRUPTED_NOTE)
            .set_type("interrupted");
        let mut case = TestCase::new("interrupted", status);
        case.set_classname("a2a-conform");
        let mut suite = TestSuite::new("a2a-conform");
        suite.add_test_case(case);
        junit.add_test_suite(suite);
    }
    Ok(junit.to_string()?)
}

/// The run's headline and this peer's counts, as the other formats say them.
fn headline_properties(suite: &mut TestSuite, summary: &RunSummary, peer: &PeerReport) {
    suite.add_property(Property::new("outcome", summary.outcome.as_str()));
    suite.add_property(Property::new("summary", summary.headline()));
    let counts = crate::verdict::peer_counts(peer);
    let d = counts.declarations;
    for (name, n) in [
        ("declarations.honoured", d.honoured),
        ("declarations.diverged", d.diverged),
        ("declarations.baselined", d.baselined),
        ("declarations.unverified", d.unverified),
        ("declarations.over_delivers", d.over_delivers),
    ] {
        suite.add_property(Property::new(name, n.to_string()));
    }
}

/// A `message` attribute: the first line, short; the full text is the body.
fn short(message: &str) -> String {
    xml(&one_line(
        message.lines().next().unwrap_or(""),
        MESSAGE_CHARS,
    ))
    .into_owned()
}

fn suite(peer: &PeerReport) -> TestSuite {
    let mut suite = TestSuite::new(xml(&peer.card_url));
    suite.add_property(Property::new("card_url", xml(&peer.card_url)));
    let optional = [
        ("peer", &peer.name),
        ("card_digest", &peer.card_digest),
        ("protocol_version", &peer.protocol_version),
        ("binding", &peer.binding),
        ("endpoint", &peer.endpoint),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            suite.add_property(Property::new(name, xml(value)));
        }
    }
    for warning in &peer.card_warnings {
        suite.add_property(Property::new("card_warning", xml(warning)));
    }
    for d in &peer.declarations {
        let mut value = d.verdict.as_str().to_string();
        if d.baselined {
            value.push_str(&format!(
                " (baselined: {})",
                d.baseline_reason.as_deref().unwrap_or("")
            ));
        }
        suite.add_property(Property::new(
            format!("declaration:{}", xml(&d.id)),
            xml(&value).into_owned(),
        ));
    }
    if let Some(error) = &peer.card_error {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status
            .set_message(short(error))
            .set_type("card-error")
            .set_description(xml(error));
        let mut case = TestCase::new("agent-card", status);
        case.set_classname(xml(&peer.card_url));
        if let Some(ms) = peer.duration_ms {
            case.set_time(Duration::from_millis(ms));
        }
        suite.add_test_case(case);
    }
    for run in &peer.scenarios {
        suite.add_test_case(case(peer, run));
    }
    suite
}

fn case(peer: &PeerReport, run: &ScenarioReport) -> TestCase {
    let evidence =
        (!run.evidence.is_empty()).then(|| xml(&timeline::plain(run, EVIDENCE_LINES)).into_owned());
    let status = match run.verdict {
        ScenarioVerdict::Pass => TestCaseStatus::success(),
        ScenarioVerdict::Flaky => {
            let mut status = TestCaseStatus::success();
            status.add_reruns(failed_attempts(run, evidence.as_deref()));
            status
        }
        ScenarioVerdict::Fail if run.baselined => skipped(
            "baselined",
            format!(
                "known divergence (baseline: {}): {}",
                run.baseline_reason.as_deref().unwrap_or(""),
                run.message
            ),
        ),
        ScenarioVerdict::Fail => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let mut text = run.message.clone();
            if let Some(curl) = timeline::reproduction(run) {
                text.push_str(&format!("\nreproduce: {}", one_line(curl, 2000)));
            }
            status
                .set_message(short(&run.message))
                .set_type("fail")
                .set_description(xml(&text));
            let earlier = run.failed_attempts.iter().map(|m| rerun(m, None));
            status.add_reruns(earlier);
            status
        }
        ScenarioVerdict::Error => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            // Whose trouble it was: `peer-malfunction`, `tool-cap`, …
            let kind = run.error_kind.map_or("error", |k| k.as_str());
            status
                .set_message(short(&run.message))
                .set_type(kind)
                .set_description(xml(&run.message));
            status
        }
        ScenarioVerdict::Inconclusive => {
            skipped("inconclusive", format!("inconclusive: {}", run.message))
        }
        ScenarioVerdict::Skipped => skipped("skipped", format!("skipped: {}", run.message)),
    };
    let mut case = TestCase::new(xml(&run.id), status);
    case.set_classname(xml(&peer.card_url))
        .set_time(Duration::from_millis(run.duration_ms));
    case.add_property(Property::new("scenario", xml(&run.scenario)));
    for declaration in &run.verifies {
        case.add_property(Property::new("verifies", xml(declaration)));
    }
    case.add_property(Property::new("verdict", run.verdict.as_str()));
    case.add_property(Property::new("attempts", run.attempts.to_string()));
    if run.baselined {
        case.add_property(Property::new("baselined", "true"));
        case.add_property(Property::new(
            "baseline_reason",
            xml(run.baseline_reason.as_deref().unwrap_or("")),
        ));
    }
    // A flaky run's evidence is its failed attempt's: it sits in the
    // flakyFailure element, not in the passing testcase's output.
    if run.verdict != ScenarioVerdict::Flaky {
        if let Some(evidence) = evidence {
            case.set_system_out(evidence);
        }
    }
    case
}

fn skipped(ty: &str, message: String) -> TestCaseStatus {
    let mut status = TestCaseStatus::skipped();
    status
        .set_message(short(&message))
        .set_type(ty)
        .set_description(xml(&message));
    status
}

/// One `flakyFailure` per failed attempt of a flaky run; the first carries
/// the evidence the report kept.
fn failed_attempts(run: &ScenarioReport, evidence: Option<&str>) -> Vec<TestRerun> {
    if run.failed_attempts.is_empty() {
        return vec![rerun(&run.message, evidence)];
    }
    run.failed_attempts
        .iter()
        .enumerate()
        .map(|(n, message)| rerun(message, if n == 0 { evidence } else { None }))
        .collect()
}

fn rerun(message: &str, evidence: Option<&str>) -> TestRerun {
    let mut rerun = TestRerun::new(NonSuccessKind::Failure);
    rerun
        .set_message(short(message))
        .set_type("fail")
        .set_description(xml(message));
    if let Some(evidence) = evidence {
        rerun.set_system_out(evidence);
    }
    rerun
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{Evidence, EvidenceKind};
    use crate::{DeclarationReport, DeclarationVerdict, Tool};

    fn run(id: &str, verdict: ScenarioVerdict) -> ScenarioReport {
        ScenarioReport {
            id: id.into(),
            scenario: id.into(),
            title: "t".into(),
            verdict,
            verifies: vec!["lifecycle.cancel".into()],
            duration_ms: 1500,
            message: format!("{id} <said> & so"),
            error_kind: None,
            fail_kind: None,
            attempts: 1,
            failed_attempts: vec![],
            baselined: false,
            baseline_reason: None,
            evidence: vec![Evidence {
                at_ms: 10,
                kind: EvidenceKind::Request,
                summary: "→ POST".into(),
                body: None,
                curl: Some("curl -d '{}'".into()),
            }],
        }
    }

    fn report(scenarios: Vec<ScenarioReport>) -> RunReport {
        RunReport {
            schema_version: 1,
            tool: Tool::this(),
            started_at: "2026-11-30T09:23:38Z".into(),
            peers: vec![PeerReport {
                card_url: "http://peer/.well-known/agent-card.json".into(),
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
                    verdict: DeclarationVerdict::Diverged,
                    scenarios: vec![],
                    reason: String::new(),
                    baselined: true,
                    baseline_reason: Some("known".into()),
                }],
                scenarios,
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
    fn each_verdict_maps_to_its_junit_element() {
        let mut flaky = run("flaky", ScenarioVerdict::Flaky);
        flaky.attempts = 3;
        flaky.failed_attempts = vec!["first try".into(), "second try".into()];
        let mut retried = run("retried", ScenarioVerdict::Fail);
        retried.failed_attempts = vec!["earlier".into()];
        let mut known = run("known", ScenarioVerdict::Fail);
        known.baselined = true;
        known.baseline_reason = Some("ACME-1".into());
        let xml = render(&report(vec![
            run("pass", ScenarioVerdict::Pass),
            flaky,
            run("fail", ScenarioVerdict::Fail),
            retried,
            known,
            run("error", ScenarioVerdict::Error),
            run("inconclusive", ScenarioVerdict::Inconclusive),
            run("skipped", ScenarioVerdict::Skipped),
        ]))
        .unwrap();
        assert!(
            xml.contains(r#"tests="8" skipped="3" failures="2" errors="1""#),
            "{xml}"
        );
        assert_eq!(xml.matches("<flakyFailure").count(), 2, "{xml}");
        assert!(xml.contains(r#"<flakyFailure message="first try" type="fail">"#));
        assert_eq!(xml.matches("<rerunFailure").count(), 1, "{xml}");
        assert!(xml.contains(r#"<failure message="fail &lt;said&gt; &amp; so" type="fail">"#));
        assert!(xml.contains(r#"<skipped message="known divergence (baseline: ACME-1): known"#));
        assert!(xml.contains(r#"<error message="error"#));
        assert!(xml.contains(r#"<skipped message="inconclusive: inconclusive"#));
        assert!(xml.contains(r#"<property name="verifies" value="lifecycle.cancel"/>"#));
        assert!(xml.contains(
            r#"name="declaration:lifecycle.cancel" value="diverged (baselined: known)""#
        ));
        assert!(
            xml.contains("reproduce: curl -d &apos;{}&apos;")
                || xml.contains("reproduce: curl -d '{}'")
        );
        assert!(xml.contains(r#"time="1.500""#));
        assert!(xml.contains(r#"timestamp="2026-11-30T09:23:38.000+00:00""#));
    }

    #[test]
    fn the_suite_has_the_peers_wall_time_and_messages_are_one_short_line() {
        let mut long = run("long", ScenarioVerdict::Fail);
        long.message = format!("{}\nsecond line", "x".repeat(400));
        let mut r = report(vec![long, run("pass", ScenarioVerdict::Pass)]);
        r.peers[0].duration_ms = Some(2500);
        let xml = render(&r).unwrap();
        // 2.5 s of wall time, not the 3 s the two runs add up to.
        assert!(
            xml.contains(
                r#"errors="0" failures="1" timestamp="2026-11-30T09:23:38.000+00:00" time="2.500">"#
            ),
            "{xml}"
        );
        let message = xml
            .split(r#"<failure message=""#)
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap();
        assert_eq!(message.chars().count(), MESSAGE_CHARS + 1, "{message}");
        assert!(!message.contains("second line"));
        assert_eq!(
            xml.matches("second line").count(),
            1,
            "the body, once: {xml}"
        );
        assert!(
            xml.contains(r#"<property name="outcome" value="pass"/>"#),
            "{xml}"
        );
        assert!(
            xml.contains(
                r#"<property name="summary" value="pass — 0 honoured, 1 diverged (baselined)"/>"#
            ),
            "{xml}"
        );
    }

    #[test]
    fn an_unusable_card_is_one_error_testcase() {
        let mut r = report(vec![]);
        r.peers[0].card_error = Some("cannot fetch the card".into());
        r.peers[0].declarations.clear();
        r.peers[0].duration_ms = Some(120);
        let xml = render(&r).unwrap();
        assert!(
            xml.contains(r#"<testcase name="agent-card" classname="http://peer/.well-known/agent-card.json" time="0.120">"#),
            "{xml}"
        );
        assert!(xml.contains(r#"type="card-error""#), "{xml}");
    }
}
