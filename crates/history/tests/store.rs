//! The history store against a real SQLite file and a real PostgreSQL
//! server, one test body run against each: intervals across verdict
//! changes, no new row when nothing changed, typed regressions, reopening,
//! import and export of reports, retention, two writers at once, and a
//! newer schema refused.

#[allow(dead_code)]
mod support;

use a2a_conform_history::{Error, Regression, Store, SCHEMA_VERSION};
use a2a_conform_report::{
    write_atomically, DeclarationReport, DeclarationVerdict, PeerReport, ReportFile, RunReport,
    ShardReport,
};
use std::time::Duration;
use support::TestDb;
use DeclarationVerdict::{Diverged, Honoured, Unverified};

const PEER: &str = "https://a.example/.well-known/agent-card.json";
const OTHER: &str = "https://b.example/.well-known/agent-card.json";

/// A peer's report with `rows` (declaration, verdict) and a card digest.
fn peer(url: &str, digest: &str, rows: &[(&str, DeclarationVerdict)]) -> PeerReport {
    PeerReport::builder(url)
        .name("Example peer")
        .card_digest(digest)
        .declarations(
            rows.iter()
                .map(|(id, verdict)| DeclarationReport::builder(id, *verdict).build())
                .collect(),
        )
        .build()
}

/// A report of `peers` started at minute `minute` of 2026-01-01.
fn report_at(minute: u32, peers: Vec<PeerReport>) -> RunReport {
    let mut report = RunReport::new(peers);
    report.started_at = format!("2026-01-01T{:02}:{:02}:00Z", minute / 60, minute % 60);
    report
}

fn time(minute: u32) -> String {
    report_at(minute, vec![]).started_at
}

fn intervals_follow_verdict_changes(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let cancel = [Honoured, Diverged, Diverged, Honoured];
    for (minute, verdict) in cancel.into_iter().enumerate() {
        let rows = [("lifecycle.cancel", verdict), ("streaming", Honoured)];
        let report = report_at(minute as u32, vec![peer(PEER, "sha256:1", &rows)]);
        assert_eq!(store.record(&report).expect("recorded"), minute as i64 + 1);
    }
    let history = store.intervals(PEER, "lifecycle.cancel").expect("read");
    let spans: Vec<_> = history
        .iter()
        .map(|i| (i.verdict, i.first_record, i.last_record))
        .collect();
    assert_eq!(
        spans,
        [(Honoured, 1, 1), (Diverged, 2, 3), (Honoured, 4, 4)]
    );
    assert_eq!(
        (history[1].first_seen.clone(), history[1].last_seen.clone()),
        (time(1), time(2))
    );
    let streaming = store.intervals(PEER, "streaming").expect("read");
    assert_eq!(streaming.len(), 1, "{streaming:?}");
    assert_eq!(
        (streaming[0].first_record, streaming[0].last_record),
        (1, 4)
    );
    assert_eq!(store.changes(PEER).expect("read").len(), 4);
    assert!(store
        .intervals(OTHER, "streaming")
        .expect("read")
        .is_empty());
}
on_both!(intervals, intervals_follow_verdict_changes);

/// A declaration the next report no longer has ends where it was last
/// seen, while the ones still there and unchanged continue (one statement
/// extends them all).
fn a_declaration_gone_ends_at_its_last_record(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let both = [
        ("streaming", Honoured),
        ("push", Honoured),
        ("cancel", Diverged),
    ];
    let fewer = [("streaming", Honoured), ("cancel", Honoured)];
    for (minute, rows) in [&both[..], &fewer[..], &fewer[..]].into_iter().enumerate() {
        store
            .record(&report_at(
                minute as u32,
                vec![peer(PEER, "sha256:1", rows)],
            ))
            .expect("recorded");
    }
    let mut span = |declaration: &str| -> Vec<(i64, i64)> {
        let history = store.intervals(PEER, declaration).expect("read");
        history
            .iter()
            .map(|i| (i.first_record, i.last_record))
            .collect()
    };
    assert_eq!(span("streaming"), [(1, 3)]);
    assert_eq!(span("push"), [(1, 1)]);
    assert_eq!(span("cancel"), [(1, 1), (2, 3)]);
}
on_both!(gone, a_declaration_gone_ends_at_its_last_record);

fn nothing_changed_adds_no_interval(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let rows = [("lifecycle.cancel", Honoured), ("streaming", Unverified)];
    for minute in 0..6 {
        store
            .record(&report_at(minute, vec![peer(PEER, "sha256:1", &rows)]))
            .expect("recorded");
    }
    let changes = store.changes(PEER).expect("read");
    assert_eq!(
        changes.len(),
        2,
        "one interval per declaration: {changes:?}"
    );
    assert!(changes
        .iter()
        .all(|i| (i.first_record, i.last_record) == (1, 6)));
    assert_eq!(changes[0].last_seen, time(5));
    let cards = store.card_history(PEER).expect("read");
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0].digest.as_deref(), Some("sha256:1"));
    assert!(store.regressions(PEER).expect("read").is_empty());
}
on_both!(unchanged, nothing_changed_adds_no_interval);

fn regressions_are_typed(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let before = [
        ("a", Honoured),
        ("b", Honoured),
        ("c", Diverged),
        ("d", Honoured),
    ];
    let after = [
        ("a", Diverged),
        ("b", Unverified),
        ("c", Honoured),
        ("d", Honoured),
    ];
    store
        .record(&report_at(0, vec![peer(PEER, "sha256:1", &before)]))
        .expect("recorded");
    assert!(
        store.regressions(PEER).expect("read").is_empty(),
        "one record: nothing to compare"
    );
    let latest = store
        .record(&report_at(1, vec![peer(PEER, "sha256:2", &after)]))
        .expect("recorded");
    let verdict = |declaration: &str, before, after| Regression::Verdict {
        peer: PEER.into(),
        declaration: declaration.into(),
        before,
        after,
        record: latest,
    };
    assert_eq!(
        store.regressions(PEER).expect("read"),
        [
            verdict("a", Honoured, Diverged),
            verdict("b", Honoured, Unverified),
            Regression::CardChanged {
                peer: PEER.into(),
                before: Some("sha256:1".into()),
                after: Some("sha256:2".into()),
                record: latest,
            },
        ]
    );
    // The same again: the regression was between the two records before.
    store
        .record(&report_at(2, vec![peer(PEER, "sha256:2", &after)]))
        .expect("recorded");
    assert!(store.regressions(PEER).expect("read").is_empty());
}
on_both!(regressions, regressions_are_typed);

fn reopening_continues(db: &TestDb) {
    let rows = [("lifecycle.cancel", Honoured)];
    {
        let mut store = Store::open(&db.url).expect("the store opens");
        store
            .record(&report_at(0, vec![peer(PEER, "sha256:1", &rows)]))
            .expect("recorded");
    }
    let mut store = Store::open(&db.url).expect("the store reopens");
    assert_eq!(store.schema_version().expect("read"), SCHEMA_VERSION);
    let second = store
        .record(&report_at(1, vec![peer(PEER, "sha256:1", &rows)]))
        .expect("recorded");
    assert_eq!(second, 2);
    let history = store.intervals(PEER, "lifecycle.cancel").expect("read");
    assert_eq!(
        history.len(),
        1,
        "the reopened store extends the interval: {history:?}"
    );
    assert_eq!(history[0].last_record, 2);
    store
        .record(&report_at(
            2,
            vec![peer(PEER, "sha256:1", &[("lifecycle.cancel", Diverged)])],
        ))
        .expect("recorded");
    assert_eq!(store.regressions(PEER).expect("read").len(), 1);
}
on_both!(reopen, reopening_continues);

fn latest_is_where_a_watch_resumes(db: &TestDb) {
    let rows = [("lifecycle.cancel", Honoured)];
    let mut store = Store::open(&db.url).expect("the store opens");
    assert_eq!(store.latest().expect("read"), (0, None));
    // Recorded out of time order (an import of an older run): the latest
    // start wins, not the last record.
    for minute in [5, 3] {
        store
            .record(&report_at(minute, vec![peer(PEER, "sha256:1", &rows)]))
            .expect("recorded");
    }
    let at = chrono::DateTime::parse_from_rfc3339(&time(5)).expect("a time");
    assert_eq!(
        store.latest().expect("read"),
        (2, Some(at.timestamp_millis()))
    );
}
on_both!(latest, latest_is_where_a_watch_resumes);

fn import_export_round_trip(db: &TestDb) {
    let files = tempfile::tempdir().expect("a temporary folder");
    let mut shard = report_at(
        5,
        vec![
            peer(PEER, "sha256:1", &[("streaming", Diverged)]),
            peer(OTHER, "sha256:9", &[("streaming", Honoured)]),
        ],
    );
    shard.shard = Some(ShardReport {
        index: 1,
        count: 2,
        peers: 2,
        suite_digest: "sha256:suite".into(),
    });
    let earlier = report_at(1, vec![peer(PEER, "sha256:1", &[("streaming", Honoured)])]);
    let (late_file, early_file) = (
        files.path().join("shard.json"),
        files.path().join("ci.json"),
    );
    write_atomically(&late_file, &shard.to_json()).expect("written");
    write_atomically(&early_file, &earlier.to_json()).expect("written");

    let mut store = Store::open(&db.url).expect("the store opens");
    let bad = files.path().join("not-a-report.json");
    write_atomically(&bad, "{\"hello\": 1}").expect("written");
    let refused = store.import(&[&early_file, &bad]);
    assert!(matches!(refused, Err(Error::Load(_))), "{refused:?}");
    assert!(
        store.peers().expect("read").is_empty(),
        "a bad file records nothing"
    );

    let ids = store.import(&[&late_file, &early_file]).expect("imported");
    assert_eq!(ids, [1, 2], "recorded oldest first");
    assert_eq!(store.peers().expect("read"), [PEER, OTHER]);
    assert_eq!(
        store.regressions(PEER).expect("read"),
        [Regression::Verdict {
            peer: PEER.into(),
            declaration: "streaming".into(),
            before: Honoured,
            after: Diverged,
            record: 2,
        }]
    );

    let out = tempfile::tempdir().expect("a temporary folder");
    let written = store.export(out.path()).expect("exported");
    assert_eq!(written.len(), 2);
    let back: Vec<String> = written
        .iter()
        .map(|file| {
            ReportFile::load(file)
                .expect("a valid report")
                .report
                .to_json()
        })
        .collect();
    assert_eq!(back, [earlier.to_json(), shard.to_json()]);
}
on_both!(import_export, import_export_round_trip);

fn prune_keeps_intervals(db: &TestDb) {
    let mut store = Store::open(&db.url).expect("the store opens");
    let rows = [("streaming", Honoured)];
    store
        .record(&report_at(0, vec![peer(PEER, "sha256:1", &rows)]))
        .expect("recorded");
    store
        .record(&RunReport::new(vec![peer(PEER, "sha256:1", &rows)]))
        .expect("recorded");
    assert_eq!(
        store.prune(Duration::from_secs(24 * 3600)).expect("pruned"),
        1
    );
    assert_eq!(
        store.prune(Duration::from_secs(24 * 3600)).expect("pruned"),
        0
    );
    let kept = store.reports().expect("read");
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].0, 2, "the recent report stays");
    let history = store.intervals(PEER, "streaming").expect("read");
    assert_eq!((history[0].first_record, history[0].last_record), (1, 2));
}
on_both!(prune, prune_keeps_intervals);

fn newer_schema_is_refused(db: &TestDb) {
    drop(Store::open(&db.url).expect("the store opens"));
    db.set_schema_version(SCHEMA_VERSION + 1);
    match Store::open(&db.url) {
        Err(Error::NewerSchema { found, known }) => {
            assert_eq!((found, known), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        other => panic!("a newer schema must be refused, got {other:?}"),
    }
}
on_both!(newer_schema, newer_schema_is_refused);

#[test]
fn an_unknown_url_is_refused_without_its_password() {
    let error = Store::open("mysql://watch:hunter2@db.example/history").expect_err("refused");
    assert!(matches!(error, Error::UnknownUrl { .. }), "{error:?}");
    let message = error.to_string();
    assert!(
        message.contains("\"mysql\"") && !message.contains("hunter2"),
        "{message}"
    );
}

#[test]
fn a_sqlite_file_in_a_missing_folder_is_an_error() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let url = format!("sqlite:{}", dir.path().join("no/such/watch.db").display());
    assert!(matches!(Store::open(&url), Err(Error::Sqlite(_))));
}

fn shards_record_at_once(db: &TestDb) {
    // Two writers open a new database at once (both migrate it) and record
    // alternately: every record lands, each peer's interval is one run.
    let writers: Vec<_> = [PEER, OTHER]
        .into_iter()
        .map(|url| {
            let db_url = db.url.clone();
            std::thread::spawn(move || {
                let mut store = Store::open(&db_url).expect("the store opens");
                (0..5)
                    .map(|minute| {
                        let rows = [("streaming", Honoured)];
                        store.record(&report_at(minute, vec![peer(url, "sha256:1", &rows)]))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .expect("recorded")
            })
        })
        .collect();
    let mut ids: Vec<i64> = writers
        .into_iter()
        .flat_map(|writer| writer.join().expect("the writer finished"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=10).collect::<Vec<_>>());
    let mut store = Store::open(&db.url).expect("the store opens");
    assert_eq!(store.schema_version().expect("read"), SCHEMA_VERSION);
    for url in [PEER, OTHER] {
        let history = store.intervals(url, "streaming").expect("read");
        assert_eq!(history.len(), 1, "{url}: {history:?}");
    }
}
on_both!(concurrent, shards_record_at_once);

/// The tables as a version 2 build made them, frozen here (the store's
/// own migrations are the code under test), with `id` as each backend
/// spells an identity column.
fn version_2_tables(id: &str) -> String {
    format!(
        "CREATE TABLE schema_version (version BIGINT NOT NULL);
        INSERT INTO schema_version (version) VALUES (1), (2);
        CREATE TABLE records (id {id}, started_at TEXT NOT NULL, started_ms BIGINT NOT NULL,
            peers BIGINT NOT NULL, report BYTEA);
        CREATE TABLE peers (peer TEXT PRIMARY KEY, last_record BIGINT NOT NULL,
            prev_record BIGINT NOT NULL);
        CREATE TABLE intervals (id {id}, peer TEXT NOT NULL, declaration TEXT NOT NULL,
            verdict TEXT NOT NULL, first_record BIGINT NOT NULL, last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL, last_seen TEXT NOT NULL);
        CREATE INDEX intervals_key ON intervals (peer, declaration, id);
        CREATE TABLE card_intervals (id {id}, peer TEXT NOT NULL, digest TEXT,
            first_record BIGINT NOT NULL, last_record BIGINT NOT NULL,
            first_seen TEXT NOT NULL, last_seen TEXT NOT NULL);
        CREATE INDEX card_intervals_key ON card_intervals (peer, id);
        CREATE TABLE peer_reports (record BIGINT NOT NULL, position BIGINT NOT NULL,
            peer TEXT NOT NULL, report BYTEA NOT NULL, PRIMARY KEY (record, position));
        CREATE INDEX peer_reports_peer ON peer_reports (peer, record);
        CREATE INDEX intervals_current ON intervals (peer, last_record);
        INSERT INTO records (started_at, started_ms, peers) VALUES
            ('{t0}', 0, 1), ('{t1}', 60000, 1);
        INSERT INTO peers VALUES ('{PEER}', 2, 1);
        INSERT INTO intervals (peer, declaration, verdict, first_record, last_record,
            first_seen, last_seen) VALUES
            ('{PEER}', 'streaming', 'honoured', 1, 1, '{t0}', '{t0}'),
            ('{PEER}', 'streaming', 'diverged', 2, 2, '{t1}', '{t1}'),
            ('{PEER}', 'push', 'honoured', 1, 2, '{t0}', '{t1}');
        INSERT INTO card_intervals (peer, digest, first_record, last_record, first_seen,
            last_seen) VALUES ('{PEER}', 'sha256:1', 1, 2, '{t0}', '{t1}');",
        t0 = time(0),
        t1 = time(1),
    )
}

/// A version 2 database (every open interval's end written on it) reads
/// the same once migrated, where an open interval ends at its peer's last
/// record; the next record then continues the one still held and ends the
/// one that changed at the record before.
fn a_version_2_history_migrates(db: &TestDb) {
    db.batch(
        &version_2_tables("INTEGER PRIMARY KEY AUTOINCREMENT"),
        &version_2_tables("BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    );
    let mut store = Store::open(&db.url).expect("the store opens and migrates");
    assert_eq!(store.schema_version().expect("read"), SCHEMA_VERSION);
    let spans = |store: &mut Store, declaration: &str| -> Vec<_> {
        store
            .intervals(PEER, declaration)
            .expect("read")
            .into_iter()
            .map(|i| (i.verdict, i.first_record, i.last_record, i.last_seen))
            .collect()
    };
    assert_eq!(
        spans(&mut store, "streaming"),
        [(Honoured, 1, 1, time(0)), (Diverged, 2, 2, time(1))]
    );
    assert_eq!(spans(&mut store, "push"), [(Honoured, 1, 2, time(1))]);
    let current: Vec<_> = store
        .current_verdicts()
        .expect("read")
        .into_iter()
        .map(|i| (i.declaration, i.verdict))
        .collect();
    assert_eq!(
        current,
        [
            ("push".to_string(), Honoured),
            ("streaming".to_string(), Diverged)
        ]
    );
    store
        .record(&report_at(
            2,
            vec![peer(
                PEER,
                "sha256:2",
                &[("streaming", Diverged), ("push", Unverified)],
            )],
        ))
        .expect("recorded");
    assert_eq!(
        spans(&mut store, "streaming"),
        [(Honoured, 1, 1, time(0)), (Diverged, 2, 3, time(2))]
    );
    assert_eq!(
        spans(&mut store, "push"),
        [(Honoured, 1, 2, time(1)), (Unverified, 3, 3, time(2))]
    );
    let cards: Vec<_> = store
        .card_history(PEER)
        .expect("read")
        .into_iter()
        .map(|c| (c.digest, c.first_record, c.last_record))
        .collect();
    assert_eq!(
        cards,
        [
            (Some("sha256:1".to_string()), 1, 2),
            (Some("sha256:2".to_string()), 3, 3)
        ]
    );
    let regressions = store.regressions(PEER).expect("read");
    assert!(
        regressions.iter().any(|r| matches!(r, Regression::Verdict { declaration, before: Honoured, after: Unverified, record: 3, .. } if declaration == "push")),
        "{regressions:?}"
    );
    assert!(
        regressions.iter().any(|r| matches!(r, Regression::CardChanged { before: Some(b), after: Some(a), .. } if b == "sha256:1" && a == "sha256:2")),
        "{regressions:?}"
    );
    assert_eq!(regressions.len(), 2, "{regressions:?}");
}
on_both!(version_2, a_version_2_history_migrates);

/// A reading of one peer's reports in order, as the intervals should
/// tell it: each (declaration, verdict, first record, last record) run of
/// its appearances (a record without the peer changes nothing; one with
/// the peer but not the declaration ends its run), and each digest run.
type Runs = (
    Vec<(String, DeclarationVerdict, i64, i64)>,
    Vec<(Option<String>, i64, i64)>,
);

fn runs_of(appearances: &[(i64, &PeerReport)]) -> Runs {
    let mut open: std::collections::BTreeMap<String, (DeclarationVerdict, i64, i64)> =
        Default::default();
    let mut verdicts = Vec::new();
    let mut cards: Vec<(Option<String>, i64, i64)> = Vec::new();
    for (record, peer) in appearances {
        let now: std::collections::BTreeMap<_, _> = peer
            .declarations
            .iter()
            .map(|row| (row.id.clone(), row.verdict))
            .collect();
        for (declaration, (verdict, first, last)) in std::mem::take(&mut open) {
            if now.get(&declaration) == Some(&verdict) {
                open.insert(declaration, (verdict, first, *record));
            } else {
                verdicts.push((declaration, verdict, first, last));
            }
        }
        for (declaration, verdict) in now {
            open.entry(declaration)
                .or_insert((verdict, *record, *record));
        }
        match cards.last_mut() {
            Some((digest, _, last)) if *digest == peer.card_digest => *last = *record,
            _ => cards.push((peer.card_digest.clone(), *record, *record)),
        }
    }
    verdicts.extend(open.into_iter().map(|(d, (v, f, l))| (d, v, f, l)));
    verdicts.sort_by(|a, b| (a.2, &a.0).cmp(&(b.2, &b.0)));
    (verdicts, cards)
}

/// A fleet larger than one statement's worth of peers, over cycles in
/// which some peers change verdicts, lose a declaration, change cards,
/// miss a cycle (their intervals then end at an older record than their
/// neighbours'), appear twice in one report (the first entry counts) or
/// appear for the first time: every peer's intervals read as its own
/// reports alone would give them.
fn a_fleet_past_one_statement_is_recorded_peer_by_peer(db: &TestDb) {
    const FLEET: usize = 2_345;
    let url = |i: usize| format!("https://p{i}.example/.well-known/agent-card.json");
    let ids = ["streaming", "lifecycle.cancel", "push"];
    let fleet_at = |cycle: usize| -> Vec<PeerReport> {
        let mut peers: Vec<PeerReport> = (0..FLEET + cycle.min(2) / 2)
            .filter(|i| !(cycle == 1 && i % 13 == 0))
            .map(|i| {
                let rows: Vec<(&str, DeclarationVerdict)> = ids
                    .iter()
                    .enumerate()
                    .filter(|(d, _)| !(cycle == 2 && i % 17 == 0 && *d == 2))
                    .map(|(d, id)| {
                        let flipped = cycle % 2 == 1 && (i + d) % 7 == 0;
                        (*id, if flipped { Diverged } else { Honoured })
                    })
                    .collect();
                let digest = if cycle >= 2 && i % 11 == 0 {
                    "sha256:2"
                } else {
                    "sha256:1"
                };
                peer(&url(i), digest, &rows)
            })
            .collect();
        // Peer 5 twice: the second entry, all unverified, is not recorded.
        peers.push(peer(&url(5), "sha256:9", &[("streaming", Unverified)]));
        peers
    };
    let mut store = Store::open(&db.url).expect("the store opens");
    let cycles: Vec<Vec<PeerReport>> = (0..4).map(fleet_at).collect();
    let mut regressed = 0;
    for (minute, peers) in cycles.iter().enumerate() {
        let report = report_at(minute as u32, peers.clone());
        let record = store.record(&report).expect("recorded");
        assert_eq!(record, minute as i64 + 1);
        // The whole record's regressions are each of its peers', by peer.
        let mut urls: Vec<&str> = peers.iter().map(|p| p.card_url.as_str()).collect();
        urls.sort_unstable();
        urls.dedup();
        let mut each = Vec::new();
        for url in urls {
            each.extend(store.regressions(url).expect("read"));
        }
        assert_eq!(store.regressions_at(record).expect("read"), each);
        regressed += each.len();
    }
    assert!(regressed > 300, "{regressed} regressions");
    for i in 0..=FLEET {
        let appearances: Vec<(i64, &PeerReport)> = cycles
            .iter()
            .enumerate()
            .filter_map(|(n, peers)| {
                let first = peers.iter().find(|p| p.card_url == url(i))?;
                Some((n as i64 + 1, first))
            })
            .collect();
        let (verdicts, cards) = runs_of(&appearances);
        let stored: Vec<_> = store
            .changes(&url(i))
            .expect("read")
            .into_iter()
            .map(|v| (v.declaration, v.verdict, v.first_record, v.last_record))
            .collect();
        assert_eq!(stored, verdicts, "peer {i}");
        let stored: Vec<_> = store
            .card_history(&url(i))
            .expect("read")
            .into_iter()
            .map(|c| (c.digest, c.first_record, c.last_record))
            .collect();
        assert_eq!(stored, cards, "peer {i}");
    }
    // Peers 17 and 221 lose `push` in record 3; 221 missed record 2, so its
    // run ended at record 1, at record 1's time, where 17's ended at 2.
    let mut push = |i: usize| -> Vec<(i64, i64, String)> {
        let runs = store.intervals(&url(i), "push").expect("read");
        runs.iter()
            .map(|r| (r.first_record, r.last_record, r.last_seen.clone()))
            .collect()
    };
    assert_eq!(push(17), [(1, 2, time(1)), (4, 4, time(3))]);
    assert_eq!(push(221), [(1, 1, time(0)), (4, 4, time(3))]);
}
on_both!(
    a_fleet_past_one_statement,
    a_fleet_past_one_statement_is_recorded_peer_by_peer
);

#[test]
fn an_imported_report_with_a_bad_start_time_is_named_by_its_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut report = report_at(0, vec![peer(PEER, "sha256:1", &[("streaming", Honoured)])]);
    report.started_at = "yesterday".into();
    let file = dir.path().join("r1.json");
    write_atomically(&file, &report.to_json()).expect("written");
    let db = format!("sqlite:{}", dir.path().join("h.db").display());
    let mut store = Store::open(&db).expect("the store opens");
    let e = store.import(&[&file]).expect_err("refused");
    assert!(matches!(e, Error::BadTimestampIn { .. }), "{e:?}");
    let said = e.to_string();
    assert!(said.starts_with(&file.display().to_string()), "{said}");
    assert!(
        said.contains("\"yesterday\" is not an RFC 3339 time"),
        "{said}"
    );
    assert_eq!(store.latest().expect("latest").0, 0, "nothing recorded");
}
