//! `a2a-conform badge`: a check's JSON report as an SVG badge. The badge's
//! counts are the report's, the SVG is well-formed XML (xmllint), it is
//! green only for a fully judged peer with nothing diverged, and a file
//! that is not a report is refused with exit 2.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;
use std::process::Command;

/// The report's declaration verdict counts: (honoured, diverged, unverified).
fn counts(report: &Value) -> (usize, usize, usize) {
    let rows = report["peers"][0]["declarations"]
        .as_array()
        .expect("declarations");
    let count = |v: &str| rows.iter().filter(|r| r["verdict"] == v).count();
    (count("honoured"), count("diverged"), count("unverified"))
}

/// Checks `behaviour`, writes its report to a file, and returns the report
/// with the SVG `badge` wrote for it (after xmllint found it well-formed).
fn badge_of(behaviour: Behaviour) -> (Value, String) {
    let peer = start_peer(ProtocolVersion::V1_0, behaviour);
    let checked = check(&peer.card_url(), &[]);
    let dir = tempfile::tempdir().expect("tempdir");
    let report = dir.path().join("report.json");
    std::fs::write(
        &report,
        serde_json::to_string(checked.report()).expect("serialize"),
    )
    .expect("write report");
    let svg = dir.path().join("badge.svg");
    let made = run(&[
        "badge",
        report.to_str().expect("utf-8 path"),
        "-o",
        svg.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(made.code, 0, "{}", made.explain());
    let lint = Command::new("xmllint")
        .arg("--noout")
        .arg(&svg)
        .output()
        .expect("xmllint runs (bash tests/support/install-xmllint.sh)");
    assert!(
        lint.status.success(),
        "the badge is not well-formed XML: {}",
        String::from_utf8_lossy(&lint.stderr)
    );
    let text = std::fs::read_to_string(&svg).expect("badge written");
    (checked.report().clone(), text)
}

#[test]
fn a_diverging_peer_s_badge_is_red_with_the_report_s_counts() {
    let (report, svg) = badge_of(Behaviour::CancelLeak);
    let (honoured, diverged, _) = counts(&report);
    assert!(diverged > 0, "cancel-leak diverges: {report:#}");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.contains(&format!("{honoured} honoured")), "{svg}");
    assert!(svg.contains(&format!("{diverged} diverged")), "{svg}");
    assert!(svg.contains("#c0392b"), "red when diverged: {svg}");
}

#[test]
fn an_honest_peer_s_badge_shows_no_divergence_and_is_green_only_when_nothing_is_open() {
    let (report, svg) = badge_of(Behaviour::Honest);
    let (honoured, diverged, unverified) = counts(&report);
    assert_eq!(diverged, 0, "{report:#}");
    assert!(svg.contains(&format!("{honoured} honoured")), "{svg}");
    assert!(!svg.contains("diverged"), "{svg}");
    let green = svg.contains("#2e8b57");
    assert_eq!(
        green,
        unverified == 0,
        "green iff nothing unverified: {svg}"
    );
}

#[test]
fn a_file_that_is_not_a_report_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("not-a-report.json");
    std::fs::write(&path, "{\"hello\": 1}").expect("write");
    let refused = run(&["badge", path.to_str().expect("utf-8 path")]);
    assert_eq!(refused.code, 2, "{}", refused.explain());
    assert!(
        refused.stderr.contains("schema_version"),
        "{}",
        refused.explain()
    );
    assert!(
        refused.stdout.is_empty(),
        "no badge on a refusal: {}",
        refused.stdout
    );
}
