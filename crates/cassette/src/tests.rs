//! The cassette written and read back, and every refusal: cut, edited,
//! another version, over the cap, not a cassette.

use super::*;
use a2a_conform_report::evidence::{Evidence, EvidenceKind};
use a2a_conform_report::{PeerReport, RunReport, ScenarioReport, ScenarioVerdict};
use std::collections::BTreeMap;
use std::path::Path;

fn evidence(at_ms: u64, kind: EvidenceKind, summary: &str) -> Evidence {
    Evidence {
        at_ms,
        kind,
        summary: summary.into(),
        body: Some(format!("{{\"at\":{at_ms}}}")),
        curl: (kind == EvidenceKind::Request).then(|| "curl http://p.example".into()),
    }
}

fn cassette() -> Cassette {
    let mut peer = PeerReport::new("http://p.example/.well-known/agent-card.json");
    peer.protocol_version = Some("1.0".into());
    peer.scenarios.push(
        ScenarioReport::builder("streaming-probe", ScenarioVerdict::Fail)
            .evidence(vec![
                evidence(0, EvidenceKind::Note, "start"),
                evidence(1, EvidenceKind::Request, "POST message:stream"),
                evidence(5, EvidenceKind::Response, "HTTP 200"),
                evidence(7, EvidenceKind::Event, "status-update working"),
                evidence(
                    900,
                    EvidenceKind::Event,
                    "webhook POST #1 (application/json)",
                ),
                evidence(950, EvidenceKind::StreamEnd, "closed by the peer"),
                evidence(960, EvidenceKind::Request, "POST tasks/get"),
                evidence(970, EvidenceKind::Response, "HTTP 200"),
            ])
            .build(),
    );
    let report = RunReport::new(vec![peer]);
    let mut options = BTreeMap::new();
    options.insert("retries".to_string(), serde_json::json!(0));
    Cassette::from_report(&report, "sha256:00", options)
}

#[test]
fn runs_are_split_into_steps_deliveries_and_notes() {
    let c = cassette();
    let run = c.run(0, "streaming-probe").unwrap();
    assert_eq!(run.verdict, "fail");
    assert_eq!(run.steps.len(), 2);
    assert_eq!(run.steps[0].step, 1);
    assert_eq!(run.steps[0].events.len(), 1);
    assert_eq!(run.steps[0].events[0].at_ms, 7);
    assert!(run.steps[0].end.is_some());
    assert_eq!(run.steps[1].response.as_ref().unwrap().at_ms, 970);
    assert_eq!(run.deliveries.len(), 1);
    assert_eq!(run.notes.len(), 1);
}

#[test]
fn a_written_cassette_reads_back_the_same_plain_and_gzip() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["c.jsonl", "c.jsonl.gz"] {
        let path = dir.path().join(name);
        cassette().write(&path).unwrap();
        assert_eq!(Cassette::load(&path).unwrap(), cassette(), "{name}");
    }
    let gz = std::fs::read(dir.path().join("c.jsonl.gz")).unwrap();
    assert_eq!(&gz[..2], &[0x1f, 0x8b], "gzip magic");
    // Nothing but the cassette is left behind (the temporary file was renamed).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

fn refused(text: &str) -> String {
    from_text(Path::new("c.jsonl"), text)
        .unwrap_err()
        .to_string()
}

#[test]
fn a_cut_cassette_is_refused_as_truncated() {
    let text = cassette().to_text();
    let e = refused(&text[..text.len() - 10]);
    assert!(e.contains("truncated"), "{e}");
    let without_trailer: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    let e = refused(&without_trailer);
    assert!(e.contains("truncated") && e.contains("no trailer"), "{e}");
    assert!(refused("").contains("truncated"));
}

#[test]
fn an_edited_cassette_is_refused_as_tampered() {
    let text = cassette().to_text();
    let e = refused(&text.replace("\"fail\"", "\"pass\""));
    assert!(e.contains("tampered") && e.contains("hash"), "{e}");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(1);
    let e = refused(&(lines.join("\n") + "\n"));
    assert!(e.contains("tampered") && e.contains("counts"), "{e}");
}

#[test]
fn another_format_version_is_refused_by_number() {
    let text = cassette()
        .to_text()
        .replacen("\"version\":1", "\"version\":7", 1);
    let e = refused(&text);
    assert!(
        e.contains("format version 7") && e.contains("reads version 1"),
        "{e}"
    );
    let e = refused("{\"type\":\"report\"}\n");
    assert!(e.contains("line 1") && e.contains("header"), "{e}");
}

#[test]
fn a_cassette_over_the_cap_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["big.jsonl", "big.jsonl.gz"] {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(CASSETTE_CAP + 1).unwrap();
        let e = Cassette::load(&path).unwrap_err().to_string();
        assert!(e.contains("larger than 64 MiB"), "{e}");
    }
}

#[test]
fn every_line_matches_the_published_schema() {
    let schema: serde_json::Value = serde_json::from_str(&cassette_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for line in cassette().to_text().lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(validator.is_valid(&value), "{line}");
    }
    let doc = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/cassette.md"
    ))
    .unwrap();
    assert!(
        doc.contains(cassette_schema().trim()),
        "docs/cassette.md carries the schema as cassette_schema() prints it"
    );
}
