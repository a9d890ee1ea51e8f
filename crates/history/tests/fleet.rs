//! What a dashboard reads at fleet scale, against a real SQLite file and a
//! real PostgreSQL server: a peer's newest stored report read from its
//! latest record and cut to its entry (also when that report was pruned
//! and an older one kept), a page of peers with their latest records and
//! intervals, and every current verdict in one call.

// The support module serves store.rs too: not all of it is used here.
#[allow(dead_code)]
mod support;

use a2a_conform_history::{PeerLatest, Store};
use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
use std::time::Duration;
use support::TestDb;
use DeclarationVerdict::{Diverged, Honoured};

const A: &str = "https://a.example/.well-known/agent-card.json";
const B: &str = "https://b.example/.well-known/agent-card.json";
const C: &str = "https://c.example/.well-known/agent-card.json";

fn peer(url: &str, rows: &[(&str, DeclarationVerdict)]) -> PeerReport {
    PeerReport::builder(url)
        .name(url)
        .card_digest("sha256:1")
        .declarations(
            rows.iter()
                .map(|(id, verdict)| DeclarationReport::builder(id, *verdict).build())
                .collect(),
        )
        .build()
}

/// A report of `peers` started at minute `minute` of 2026-01-01, concluded
/// (so it carries a summary of every peer).
fn report_at(minute: u32, peers: Vec<PeerReport>) -> RunReport {
    let mut report = RunReport::new(peers);
    report.started_at = format!("2026-01-01T00:{minute:02}:00Z");
    a2a_conform_report::conclude(&mut report, &a2a_conform_report::Rules::default());
    report
}

fn latest_report_is_the_peer_s_entry_of_its_latest_record(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let both = vec![
        peer(A, &[("streaming", Honoured)]),
        peer(B, &[("streaming", Honoured)]),
    ];
    store.record(&report_at(0, both)).expect("recorded");
    store
        .record(&report_at(1, vec![peer(A, &[("streaming", Diverged)])]))
        .expect("recorded");
    let (record, report) = store.latest_report(A).expect("read").expect("A's report");
    assert_eq!(record, 2);
    assert_eq!(report.peers.len(), 1);
    assert_eq!(report.peers[0].card_url, A);
    assert_eq!(report.peers[0].declarations[0].verdict, Diverged);
    assert_eq!(report.started_at, "2026-01-01T00:01:00Z");
    assert!(report.summary.is_none(), "the summary counted every peer");
    // B's latest record is the first: its entry there, not A's.
    let (record, report) = store.latest_report(B).expect("read").expect("B's report");
    assert_eq!((record, report.peers.len()), (1, 1));
    assert_eq!(report.peers[0].card_url, B);
    assert!(store.latest_report(C).expect("read").is_none());
    // A given record's entry (an alert's evidence): A's older one, and none
    // where the record does not hold the peer.
    let older = store.peer_report_at(A, 1).expect("read").expect("A at 1");
    assert_eq!(older.peers.len(), 1);
    assert_eq!(older.peers[0].card_url, A);
    assert_eq!(older.peers[0].declarations[0].verdict, Honoured);
    assert!(store.peer_report_at(B, 2).expect("read").is_none());
    assert!(store.peer_report_at(A, 99).expect("read").is_none());
}
on_both!(
    latest_report,
    latest_report_is_the_peer_s_entry_of_its_latest_record
);

fn latest_report_falls_back_past_a_pruned_latest(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    // Record 1 started now, record 2 (recorded later) in January: retention
    // drops record 2's report and keeps record 1's.
    store
        .record(&RunReport::new(vec![peer(A, &[("streaming", Honoured)])]))
        .expect("recorded");
    store
        .record(&report_at(0, vec![peer(A, &[("streaming", Diverged)])]))
        .expect("recorded");
    store
        .record(&RunReport::new(vec![peer(B, &[("streaming", Honoured)])]))
        .expect("recorded");
    assert_eq!(
        store.prune(Duration::from_secs(24 * 3600)).expect("pruned"),
        1
    );
    let (record, report) = store.latest_report(A).expect("read").expect("A's report");
    assert_eq!(record, 1, "the newest report still stored that holds A");
    assert_eq!(report.peers[0].declarations[0].verdict, Honoured);
    assert_eq!(store.prune(Duration::ZERO).expect("pruned"), 2);
    assert!(
        store.latest_report(A).expect("read").is_none(),
        "all pruned"
    );
}
on_both!(
    latest_report_pruned,
    latest_report_falls_back_past_a_pruned_latest
);

fn a_page_of_peers_in_fixed_queries(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let rows = [("lifecycle.cancel", Honoured), ("streaming", Honoured)];
    let all = vec![peer(C, &rows), peer(A, &rows), peer(B, &rows)];
    store.record(&report_at(0, all)).expect("recorded");
    let changed = [("lifecycle.cancel", Diverged), ("streaming", Honoured)];
    store
        .record(&report_at(1, vec![peer(B, &changed)]))
        .expect("recorded");
    assert_eq!(store.peer_count().expect("count"), 3);
    let first = store.latest_records(0, 2).expect("page");
    let at = |minute: u32| format!("2026-01-01T00:{minute:02}:00Z");
    assert_eq!(
        first,
        [
            PeerLatest {
                peer: A.into(),
                record: 1,
                started_at: at(0)
            },
            PeerLatest {
                peer: B.into(),
                record: 2,
                started_at: at(1)
            },
        ]
    );
    let second = store.latest_records(2, 2).expect("page");
    assert_eq!(
        second.iter().map(|p| p.peer.as_str()).collect::<Vec<_>>(),
        [C]
    );
    let intervals = store.page_intervals(0, 2).expect("page");
    let seen: Vec<_> = intervals
        .iter()
        .map(|i| {
            (
                i.peer.as_str(),
                i.declaration.as_str(),
                i.verdict,
                i.last_record,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (A, "lifecycle.cancel", Honoured, 1),
            (A, "streaming", Honoured, 1),
            (B, "lifecycle.cancel", Honoured, 1),
            (B, "lifecycle.cancel", Diverged, 2),
            (B, "streaming", Honoured, 2),
        ]
    );
    assert!(store.page_intervals(3, 2).expect("page").is_empty());
}
on_both!(page, a_page_of_peers_in_fixed_queries);

fn current_verdicts_are_those_of_each_latest_record(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let rows = [("lifecycle.cancel", Honoured), ("streaming", Honoured)];
    store
        .record(&report_at(0, vec![peer(A, &rows), peer(B, &rows)]))
        .expect("recorded");
    // A's cancel diverges and its card stops declaring streaming.
    store
        .record(&report_at(
            1,
            vec![peer(A, &[("lifecycle.cancel", Diverged)])],
        ))
        .expect("recorded");
    let current: Vec<_> = store
        .current_verdicts()
        .expect("read")
        .into_iter()
        .map(|i| (i.peer, i.declaration, i.verdict))
        .collect();
    let row = |p: &str, d: &str, v| (p.to_string(), d.to_string(), v);
    assert_eq!(
        current,
        [
            row(A, "lifecycle.cancel", Diverged),
            row(B, "lifecycle.cancel", Honoured),
            row(B, "streaming", Honoured),
        ]
    );
}
on_both!(current, current_verdicts_are_those_of_each_latest_record);

/// A watch cycle's report of a large fleet is far more JSON than the report
/// cap (10,000 peers: about 200 MB). Each peer's entry is stored apart, so
/// the report records, reads back whole, exports, and a peer's page reads
/// its entry alone; only a single part over the cap is refused.
fn a_fleet_report_over_the_cap_is_stored_in_parts(db: &TestDb) {
    let cap = a2a_conform_report::input::REPORT_CAP as usize;
    // 66 peers × 1 MiB of evidence: more than the 64 MiB cap in all.
    let evidence = "x".repeat(1 << 20);
    let peers: Vec<PeerReport> = (0..66)
        .map(|i| {
            let row = DeclarationReport::builder("streaming", Honoured)
                .reason(&evidence)
                .build();
            PeerReport::builder(&format!("https://p{i:02}.example/card.json"))
                .declarations(vec![row])
                .build()
        })
        .collect();
    let report = report_at(0, peers);
    let json = report.to_json();
    assert!(json.len() > cap, "the report is over the cap");
    let mut store = Store::open(&db.url).expect("the store opens");
    let id = store.record(&report).expect("recorded in parts");
    let back = store.report(id).expect("read").expect("stored");
    assert!(back.to_json() == json, "read back whole, in order");
    let (record, one) = store
        .latest_report("https://p42.example/card.json")
        .expect("read")
        .expect("p42's entry");
    assert_eq!((record, one.peers.len()), (id, 1));
    assert_eq!(one.peers[0].card_url, "https://p42.example/card.json");
    assert_eq!(one.peers[0].declarations[0].reason.len(), 1 << 20);
    // Exported in parts within the cap, which import reads back into a
    // new store as the same peers' history.
    let dir = tempfile::tempdir().expect("a folder");
    let files = store.export(dir.path()).expect("exported");
    assert!(files.len() >= 2, "{files:?}");
    for file in &files {
        let size = std::fs::metadata(file).expect("written").len() as usize;
        assert!(size <= cap, "{} is {size} bytes", file.display());
        let name = file.file_name().expect("a name").to_string_lossy();
        assert!(name.starts_with("record-00000001-part-"), "{name}");
    }
    let other = tempfile::tempdir().expect("a folder");
    let url = format!("sqlite:{}", other.path().join("other.db").display());
    let mut imported = Store::open(&url).expect("the other store");
    imported.import(&files).expect("every part imports");
    assert_eq!(imported.peer_count().expect("count"), 66);
    let (_, again) = imported
        .latest_report("https://p42.example/card.json")
        .expect("read")
        .expect("p42's entry");
    assert_eq!(again.peers[0].declarations[0].reason.len(), 1 << 20);
    assert_eq!(again.started_at, report.started_at);
    // One peer's entry over the cap cannot be read back: refused, nothing
    // recorded.
    let huge = DeclarationReport::builder("streaming", Honoured)
        .reason(&"y".repeat(cap + 1))
        .build();
    let alone = PeerReport::builder(A).declarations(vec![huge]).build();
    let refused = store.record(&report_at(1, vec![alone]));
    assert!(
        matches!(refused, Err(a2a_conform_history::Error::TooLarge { .. })),
        "{refused:?}"
    );
    assert_eq!(store.latest().expect("latest").0, 1, "nothing recorded");
    // Pruning drops the entries with the record's other fields.
    assert_eq!(store.prune(Duration::ZERO).expect("pruned"), 1);
    assert!(store.report(id).expect("read").is_none());
    assert!(store
        .latest_report("https://p42.example/card.json")
        .expect("read")
        .is_none());
}
on_both!(over_the_cap, a_fleet_report_over_the_cap_is_stored_in_parts);

/// A record written by a version 1 build kept the whole report in one blob
/// (and no entries apart): after the migration it still reads back, and a
/// peer's page still finds its entry there.
fn a_version_1_record_still_reads(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let old = report_at(0, vec![peer(A, &[("streaming", Diverged)]), peer(B, &[])]);
    db.insert_version_1_record(&old.to_json(), &old.started_at, &[A, B]);
    let back = store.report(1).expect("read").expect("stored");
    assert_eq!(back.to_json(), old.to_json());
    let (record, report) = store.latest_report(A).expect("read").expect("A's entry");
    assert_eq!((record, report.peers.len()), (1, 1));
    assert_eq!(report.peers[0].declarations[0].verdict, Diverged);
    // A newer record, stored in parts, is read before it.
    store
        .record(&report_at(1, vec![peer(A, &[("streaming", Honoured)])]))
        .expect("recorded");
    let (record, report) = store.latest_report(A).expect("read").expect("A's entry");
    assert_eq!(record, 2);
    assert_eq!(report.peers[0].declarations[0].verdict, Honoured);
    assert_eq!(store.reports().expect("read").len(), 2);
    // Every report holding A, from the version 1 blob and from A's rows.
    let all: Vec<_> = store
        .peer_reports(A)
        .expect("read")
        .into_iter()
        .map(|(id, r)| (id, r.peers.len(), r.peers[0].declarations[0].verdict))
        .collect();
    assert_eq!(all, [(1, 1, Diverged), (2, 1, Honoured)]);
    let b: Vec<_> = store.peer_reports(B).expect("read");
    assert_eq!(b.len(), 1);
    assert_eq!((b[0].0, b[0].1.peers[0].card_url.as_str()), (1, B));
    assert!(store.peer_reports(C).expect("read").is_empty());
}
on_both!(version_1, a_version_1_record_still_reads);
