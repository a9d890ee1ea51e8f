//! The cache file shared between writers, and its seed from a report: many
//! handles writing at once lose no demotion, and a seeded demotion steers
//! the first task without a probe.

use crate::support::{guard_with, peer, requests, VERSIONS};
use a2a_conform_guard::{CacheOptions, CapabilityCache, PeerKey, Trust};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{DeclarationId, MessagePart, Operation, TaskState};
use serde_json::json;
use std::sync::{Arc, Barrier};
use std::time::Duration;

const WRITERS: usize = 8;
const EACH: usize = 12;

#[test]
fn writers_at_once_lose_no_demotion() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("cache.json");
    let peer = PeerKey::new(
        "http://127.0.0.1:9/.well-known/agent-card.json",
        "sha256:aa",
    );
    let start = Arc::new(Barrier::new(WRITERS));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (path, peer, start) = (path.clone(), peer.clone(), start.clone());
            std::thread::spawn(move || {
                // Each writer has its own handle, opened before any write:
                // its view is stale from the first write of another.
                let cache = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
                start.wait();
                for n in 0..EACH {
                    let id: DeclarationId = format!("x-writer{w}.d{n}").parse().expect("an id");
                    cache
                        .demote(&peer, &id, format!("writer {w}"), Vec::new())
                        .expect("written");
                    // A trust of a shared id from a stale view must not
                    // lift another writer's demotion of it.
                    let shared: DeclarationId = "lifecycle.cancel".parse().expect("an id");
                    if w == 0 && n == 0 {
                        cache
                            .demote(&peer, &shared, "leaked", Vec::new())
                            .expect("written");
                    } else {
                        cache.trust_now(&peer, &shared).expect("written");
                    }
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().expect("a writer finished");
    }
    let cache = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    let demotions = cache.demotions(&peer);
    assert_eq!(
        demotions.len(),
        WRITERS * EACH + 1,
        "{:?}",
        demotions.keys()
    );
    assert!(matches!(
        cache.trust(&peer, &"lifecycle.cancel".parse().expect("an id")),
        Trust::Demoted(d) if d.reason == "leaked"
    ));
    // The file is whole JSON, written by rename; no temporary is left.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("listed")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(names.len(), 2, "the cache and its lock: {names:?}");
}

/// A report of one peer with `capabilities.streaming` diverged, as
/// `check --json` writes it (checked against the published schema).
fn report(card_url: &str, digest: &str) -> serde_json::Value {
    json!({
        "schema_version": 1,
        "tool": {"name": "a2a-conform", "version": "0.1.0"},
        "started_at": "2026-11-08T10:00:00Z",
        "peers": [{
            "card_url": card_url,
            "card_digest": digest,
            "declarations": [
                {"id": "capabilities.streaming", "declared": true, "verdict": "diverged",
                 "scenarios": ["streaming-probe"], "reason": "no update within 15s"},
                {"id": "lifecycle.cancel", "declared": true, "verdict": "honoured",
                 "scenarios": ["cancel-then-stream"], "reason": "passed"}
            ],
            "scenarios": [{
                "id": "streaming-probe", "scenario": "streaming-probe",
                "title": "a stream sends its first update in time", "verdict": "fail",
                "verifies": ["capabilities.streaming"], "duration_ms": 15000,
                "message": "no update", "attempts": 1,
                "evidence": [{"at_ms": 0, "kind": "request", "summary": "→ POST …"}]
            }]
        }]
    })
}

fn schema_accepts(report: &serde_json::Value) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the schema")).expect("JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "the fixture is a report: {errors:?}");
}

#[tokio::test]
async fn a_seeded_demotion_routes_the_first_task_without_a_probe() {
    for version in VERSIONS {
        let peer = peer(
            Behaviour::StreamSilent,
            version,
            2,
            Duration::from_millis(30),
        )
        .await;
        let dir = tempfile::tempdir().expect("a temp dir");
        let cache_path = dir.path().join("cache.json");
        let cache = CapabilityCache::open(&cache_path, CacheOptions::default()).expect("opens");
        let guard = guard_with(&peer, cache.clone()).await;
        let key = guard.peer().clone();
        let report = report(&key.card_url, &key.card_digest);
        schema_accepts(&report);
        let report_path = dir.path().join("report.json");
        std::fs::write(&report_path, report.to_string()).expect("written");
        assert_eq!(cache.seed_from_report(&report_path).expect("seeded"), 1);

        let task = guard
            .open_task(&[MessagePart::Text("hello".into())])
            .await
            .expect("a task");
        assert!(
            !task.is_streaming() && task.violations().is_empty(),
            "{version}"
        );
        assert_eq!(
            requests(&task.exchanges(), version, Operation::SendStreamingMessage),
            0
        );
        assert_eq!(
            task.await_terminal().await.expect("done").state,
            TaskState::Completed
        );
        // The seed is in the file, with the failed run's evidence.
        let reread = CapabilityCache::open(&cache_path, CacheOptions::default()).expect("opens");
        let demotions = reread.demotions(&key);
        let streaming: DeclarationId = "capabilities.streaming".parse().expect("an id");
        assert_eq!(demotions[&streaming].evidence.len(), 1);
        assert!(demotions[&streaming]
            .reason
            .contains("no update within 15s"));
        peer.shutdown().await;
    }
}

#[test]
fn a_report_of_another_schema_is_refused() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("report.json");
    std::fs::write(&path, r#"{"schema_version": 7, "peers": []}"#).expect("written");
    let cache = CapabilityCache::in_memory(CacheOptions::default());
    let error = cache.seed_from_report(&path).expect_err("schema 7");
    assert!(error.to_string().contains("schema_version 7"), "{error}");
    let missing = cache
        .seed_from_report(dir.path().join("none.json"))
        .expect_err("no file");
    assert!(missing.to_string().contains("none.json"), "{missing}");
}
