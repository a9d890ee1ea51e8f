//! `watch` and `history` end to end: the built binary watches a fleet of
//! mock peers whose behaviour is switched between cycles (a mock restarted
//! on its own port as another behaviour, or stopped), into a real SQLite
//! file and a real PostgreSQL server, with a webhook receiver in the test.
//! Asserted: the intervals the store holds, one alert per regression and
//! none when nothing changed, a restart resuming the schedule from the
//! database, SIGTERM losing nothing written, a down webhook never stopping
//! the watch, and `history import`/`export`/`show`.

use crate::common::{self, postgres::PgServer, Outcome, Peer, FAST_VARS};
use a2a_conform_history::Store;
use a2a_conform_mock::{Behaviour, MockConfig};
use a2a_conform_protocol::ProtocolVersion;
use a2a_conform_report::DeclarationVerdict;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The one scenario each cycle runs: its declaration flips with cancel-leak.
const SCENARIO: &str = "cancel-then-stream";
const CANCEL: &str = "lifecycle.cancel";

/// A mock peer of `behaviour` on `port` (0: a free one).
fn peer_on(port: u16, behaviour: Behaviour) -> Peer {
    common::start_peer_config(MockConfig {
        port,
        ..common::peer_config(ProtocolVersion::V1_0, behaviour)
    })
}

/// The peer restarted on its own port as `behaviour`: the same card URL.
fn switch(peer: Peer, behaviour: Behaviour) -> Peer {
    let port = peer.peer.addr().port();
    drop(peer);
    peer_on(port, behaviour)
}

fn fleet_file(dir: &Path, peers: &[&str]) -> PathBuf {
    let path = dir.join("fleet.txt");
    std::fs::write(&path, peers.join("\n") + "\n").expect("the fleet file");
    path
}

fn watch_args<'a>(db: &'a str, fleet: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "watch",
        "--peers",
        fleet,
        "--db",
        db,
        "--scenario",
        SCENARIO,
        "-q",
    ];
    args.extend_from_slice(FAST_VARS);
    args.extend_from_slice(extra);
    args
}

/// `watch … --every 1s --cycles N`, to its end.
fn watch(db: &str, fleet: &Path, cycles: &str, extra: &[&str]) -> Outcome {
    let fleet = fleet.display().to_string();
    let mut more = vec!["--every", "1s", "--cycles", cycles];
    more.extend_from_slice(extra);
    let out = common::run(&watch_args(db, &fleet, &more));
    assert_eq!(out.code, 0, "{}", out.explain());
    out
}

/// A webhook receiver: every JSON body POSTed to `/hook`, in order.
struct Receiver {
    served: common::Served,
    bodies: Arc<Mutex<Vec<Value>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let kept = bodies.clone();
        let router = axum::Router::new().route(
            "/hook",
            axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
                let kept = kept.clone();
                async move {
                    kept.lock().expect("lock").push(body);
                    "ok"
                }
            }),
        );
        Receiver {
            served: common::serve(router),
            bodies,
        }
    }
    fn url(&self) -> String {
        format!("{}/hook", self.served.base_url)
    }
    /// The bodies received since the last call.
    fn take(&self) -> Vec<Value> {
        std::mem::take(&mut *self.bodies.lock().expect("lock"))
    }
}

fn verdicts(store: &mut Store, peer: &str) -> Vec<(DeclarationVerdict, i64, i64)> {
    store
        .intervals(peer, CANCEL)
        .expect("intervals")
        .iter()
        .map(|i| (i.verdict, i.first_record, i.last_record))
        .collect()
}

/// The start times of the stored records, oldest first.
fn starts(store: &mut Store) -> Vec<chrono::DateTime<chrono::FixedOffset>> {
    store
        .reports()
        .expect("reports")
        .iter()
        .map(|(_, r)| chrono::DateTime::parse_from_rfc3339(&r.started_at).expect("a time"))
        .collect()
}

/// The verdict and card alerts of `bodies` for `peer`: (declaration,
/// before, after), sorted (a cycle's alerts are sent at once: they arrive
/// in no set order).
fn alerts_for(bodies: &[Value], peer: &str) -> Vec<(String, String, String)> {
    let text = |v: &Value| v.as_str().unwrap_or("null").to_string();
    let mut found: Vec<_> = bodies
        .iter()
        .filter(|b| b["peer"] == peer)
        .map(|b| {
            let what = b["declaration"].as_str().unwrap_or("(card)").to_string();
            (what, text(&b["before"]), text(&b["after"]))
        })
        .collect();
    found.sort();
    found
}

/// Two peers watched over four cycles in two restarts: both honest twice,
/// then one turns cancel-leak, then it goes down.
fn a_fleet_over_cycles(db: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let steady = peer_on(0, Behaviour::Honest);
    let flipping = peer_on(0, Behaviour::Honest);
    let (a, b) = (steady.card_url(), flipping.card_url());
    let fleet = fleet_file(dir.path(), &[&a, &b]);
    let hook = Receiver::start();
    let url = hook.url();
    let alerting = ["--alert-webhook", url.as_str()];

    // Two honest cycles: one interval each, no alert.
    let out = watch(db, &fleet, "2", &alerting);
    assert!(
        out.stderr.contains("2 cycle(s) recorded"),
        "{}",
        out.explain()
    );
    let mut store = Store::open(db).expect("the store opens");
    assert_eq!(store.latest().expect("latest").0, 2);
    for peer in [&a, &b] {
        assert_eq!(
            verdicts(&mut store, peer),
            vec![(DeclarationVerdict::Honoured, 1, 2)]
        );
    }
    assert_eq!(
        hook.take(),
        Vec::<Value>::new(),
        "nothing changed: no alert"
    );

    // A restart, the peer now leaking its cancels: the cycle is record 3,
    // due a period after record 2's start, and its regressions are alerted.
    let flipping = switch(flipping, Behaviour::CancelLeak);
    let out = watch(db, &fleet, "1", &alerting);
    assert!(out.stderr.contains("watch: cycle 3:"), "{}", out.explain());
    // The record is announced, then what its delivery came to.
    let recorded = out
        .stderr
        .find("watch: cycle recorded as record 3: 2 regression(s)\n");
    let sent = out.stderr.find("watch: record 3: 2 alert(s) sent\n");
    assert!(recorded.is_some() && recorded < sent, "{}", out.explain());
    let times = starts(&mut store);
    assert_eq!(times.len(), 3);
    for pair in times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(gap >= chrono::Duration::milliseconds(1000), "{times:?}");
    }
    assert_eq!(
        verdicts(&mut store, &b),
        vec![
            (DeclarationVerdict::Honoured, 1, 2),
            (DeclarationVerdict::Diverged, 3, 3)
        ]
    );
    assert_eq!(
        verdicts(&mut store, &a),
        vec![(DeclarationVerdict::Honoured, 1, 3)]
    );
    let bodies = hook.take();
    let mut expected = vec![(CANCEL.to_string(), "honoured".into(), "diverged".into())];
    // The mock's card names its behaviour: a card change, alerted too.
    let cards = store.card_history(&b).expect("cards");
    assert_eq!(cards.len(), 2, "{cards:?}");
    let digest = |i: usize| cards[i].digest.clone().unwrap_or_default();
    expected.push(("(card)".into(), digest(0), digest(1)));
    expected.sort();
    assert_eq!(alerts_for(&bodies, &b), expected, "{bodies:#?}");
    assert_eq!(
        bodies.len(),
        expected.len(),
        "none for the steady peer: {bodies:#?}"
    );
    assert_eq!(bodies[0]["evidence"], "record:3");

    // The peer's endpoint goes away, its card still served: reachable →
    // unverified, and the card changed (it names another endpoint).
    let port = flipping.peer.addr().port();
    let card = fetch(&b);
    drop(flipping);
    let closed = common::closed_port();
    let card = card.replace(&format!("127.0.0.1:{port}"), &format!("127.0.0.1:{closed}"));
    let _card_only = serve_card_on(port, card);
    watch(db, &fleet, "1", &alerting);
    let history = verdicts(&mut store, &b);
    assert_eq!(history.len(), 3, "{history:?}");
    assert_eq!(history[2], (DeclarationVerdict::Unverified, 4, 4));
    let bodies = hook.take();
    let found = alerts_for(&bodies, &b);
    assert!(
        found.contains(&(CANCEL.to_string(), "diverged".into(), "unverified".into())),
        "{bodies:#?}"
    );
    assert!(
        found.iter().any(|(what, _, _)| what == "(card)"),
        "{bodies:#?}"
    );
    assert_eq!(bodies.len(), found.len(), "{bodies:#?}");
    assert_eq!(
        verdicts(&mut store, &a),
        vec![(DeclarationVerdict::Honoured, 1, 4)]
    );

    // Gone altogether: no declaration rows, the card unreadable.
    drop(_card_only);
    watch(db, &fleet, "1", &alerting);
    let cards = store.card_history(&b).expect("cards");
    assert_eq!(
        cards.last().map(|c| c.digest.clone()),
        Some(None),
        "{cards:?}"
    );
    let bodies = hook.take();
    assert_eq!(alerts_for(&bodies, &b).len(), 1, "{bodies:#?}");
    assert_eq!(bodies[0]["kind"], "card");
    assert_eq!(bodies[0]["after"], Value::Null);
    assert_eq!(bodies.len(), 1, "{bodies:#?}");
}

/// The body at `url`.
fn fetch(url: &str) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        reqwest::get(url)
            .await
            .expect("the card answers")
            .text()
            .await
            .expect("its body")
    })
}

/// Only a card, served on `port`, for as long as the runtime lives.
fn serve_card_on(port: u16, card: String) -> tokio::runtime::Runtime {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("the peer's port is free again");
        let app = axum::Router::new().route(
            "/.well-known/agent-card.json",
            axum::routing::get(move || {
                let card = card.clone();
                async move {
                    (
                        [(axum::http::header::CONTENT_TYPE, "application/json")],
                        card,
                    )
                }
            }),
        );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
    });
    runtime
}

#[test]
fn a_watched_fleet_records_intervals_and_alerts_each_regression_in_sqlite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    a_fleet_over_cycles(&db);
}

#[test]
fn a_watched_fleet_records_intervals_and_alerts_each_regression_in_postgres() {
    let server = PgServer::start();
    a_fleet_over_cycles(&server.url);
}

/// A `watch` process left running, its stderr kept.
fn spawn_watch(args: &[&str], stderr: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr).expect("a stderr file"))
        .spawn()
        .expect("the binary starts")
}

fn terminate(child: &mut std::process::Child) -> i32 {
    signal(child, libc::SIGTERM)
}

fn signal(child: &mut std::process::Child, signal: i32) -> i32 {
    let pid = i32::try_from(child.id()).expect("a pid");
    // SAFETY: kill(2) on the child this test started; no memory is shared.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status.code().unwrap_or(-1);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("watch did not stop within 30 s of signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn records(db: &str) -> i64 {
    Store::open(db)
        .and_then(|mut s| s.latest())
        .map_or(0, |(n, _)| n)
}

#[test]
fn sigterm_between_cycles_keeps_what_was_written_and_mid_cycle_records_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let fleet = fleet_file(dir.path(), &[&peer.card_url()])
        .display()
        .to_string();
    let log = dir.path().join("stderr.txt");

    // Between cycles: the first is recorded, the next not due for long.
    let mut child = spawn_watch(&watch_args(&db, &fleet, &["--every", "30s"]), &log);
    let deadline = Instant::now() + Duration::from_secs(60);
    while records(&db) < 1 {
        assert!(Instant::now() < deadline, "no cycle recorded within 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    let code = terminate(&mut child);
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("cycle 2 due in"), "{stderr}");
    assert!(stderr.contains("1 cycle(s) recorded"), "{stderr}");
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    assert_eq!(records(&db), 1);

    // Mid-cycle: nothing half-done is stored; SIGTERM exits 0, SIGINT 130.
    // The peer accepts connections and never answers, so the signal lands
    // inside the cycle wherever the peer's jitter offset falls (an honest
    // peer hashed near the window's start finished its cycle first).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a silent peer");
    let stalled = dir.path().join("stalled");
    std::fs::create_dir(&stalled).expect("a directory");
    let card = format!(
        "http://{}/.well-known/agent-card.json",
        silent.local_addr().expect("its address")
    );
    let stalled = fleet_file(&stalled, &[&card]).display().to_string();
    for (name, sig, expected) in [("term", libc::SIGTERM, 0), ("int", libc::SIGINT, 130)] {
        let db = format!("sqlite:{}", dir.path().join(format!("{name}.db")).display());
        let (code, stderr) = stop_mid_cycle(&db, &stalled, &log, sig);
        assert_eq!(code, expected, "{stderr}");
        assert!(stderr.contains("not recorded"), "{stderr}");
        assert_eq!(records(&db), 0, "{stderr}");
    }
}

/// A watch on a fresh database stopped by `sig` while its first cycle is
/// under way (its peer's offset in a 1h period's window, or its card read).
fn stop_mid_cycle(db: &str, fleet: &str, log: &Path, sig: i32) -> (i32, String) {
    let mut child = spawn_watch(&watch_args(db, fleet, &["--every", "1h"]), log);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(log)
        .unwrap_or_default()
        .contains("checking 1 peer(s)")
    {
        assert!(Instant::now() < deadline, "the cycle did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let code = signal(&mut child, sig);
    (code, std::fs::read_to_string(log).unwrap_or_default())
}

#[test]
fn a_down_webhook_is_counted_and_the_watch_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let fleet = fleet_file(dir.path(), &[&peer.card_url()]);
    let down = format!("http://127.0.0.1:{}/hook", common::closed_port());
    let alerting = ["--alert-webhook", down.as_str(), "--alert-format", "slack"];
    watch(&db, &fleet, "1", &alerting);
    let _peer = switch(peer, Behaviour::CancelLeak);
    let out = watch(&db, &fleet, "1", &alerting);
    assert!(
        out.stderr
            .contains("alert(s) could not be delivered to --alert-webhook this cycle"),
        "{}",
        out.explain()
    );
    assert!(
        !out.stderr.contains(&down),
        "the webhook URL is never printed"
    );
    assert_eq!(records(&db), 2);
}

/// A webhook answering 307 to another port: the alert is never sent there
/// (it carries evidence), and counts as undelivered.
#[test]
fn an_alert_webhook_redirect_is_never_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let fleet = fleet_file(dir.path(), &[&peer.card_url()]);
    let elsewhere = Receiver::start();
    let target = elsewhere.url();
    let redirector = common::serve(axum::Router::new().fallback(move || {
        let target = target.clone();
        async move {
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, target)],
            )
        }
    }));
    let hook = format!("{}/hook", redirector.base_url);
    let alerting = ["--alert-webhook", hook.as_str()];
    watch(&db, &fleet, "1", &alerting);
    let _peer = switch(peer, Behaviour::CancelLeak);
    let out = watch(&db, &fleet, "1", &alerting);
    assert!(
        out.stderr
            .contains("alert(s) could not be delivered to --alert-webhook this cycle"),
        "{}",
        out.explain()
    );
    assert_eq!(
        elsewhere.take(),
        Vec::<Value>::new(),
        "followed the redirect"
    );
}

/// A skill id that, unescaped in a Slack message, would ping the channel,
/// show a link under a label of the peer's choosing and format.
const HOSTILE_SKILL: &str = "<!channel> <https://evil.example|Click me> & *bold* `x`";

/// Whether `text` holds a `&` that is not one of Slack's three entities.
fn bare_ampersand(text: &str) -> bool {
    text.match_indices('&').any(|(at, _)| {
        !["&amp;", "&lt;", "&gt;"]
            .iter()
            .any(|e| text[at..].starts_with(e))
    })
}

/// A card whose skill id is hostile, its endpoint a mock that is stopped
/// after the first cycle: its input rows go honoured → unverified, and the
/// regressions reach a Slack-format webhook as text, never as markup.
#[test]
fn a_slack_alert_shows_a_hostile_skill_id_as_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let mock = peer_on(0, Behaviour::Honest);
    let mut card: Value = serde_json::from_str(&fetch(&mock.card_url())).expect("a card");
    card["skills"][0]["id"] = HOSTILE_SKILL.into();
    let served = common::serve(axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get(move || {
            let card = card.clone();
            async move { axum::Json(card) }
        }),
    ));
    let card_url = format!("{}/.well-known/agent-card.json", served.base_url);
    let fleet = fleet_file(dir.path(), &[&card_url]).display().to_string();
    let hook = Receiver::start();
    let url = hook.url();
    let mut args = vec![
        "watch",
        "--peers",
        &fleet,
        "--db",
        &db,
        "--scenario",
        "input-mode-resume",
        "-q",
        "--every",
        "1s",
        "--cycles",
        "1",
        "--alert-webhook",
        &url,
        "--alert-format",
        "slack",
    ];
    args.extend_from_slice(FAST_VARS);
    let out = common::run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        hook.take(),
        Vec::<Value>::new(),
        "the first record: no alert"
    );
    drop(mock);
    let out = common::run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    let texts: Vec<String> = hook
        .take()
        .iter()
        .map(|b| b["text"].as_str().unwrap_or_default().to_string())
        .collect();
    let shown = "`skills[&lt;!channel&gt; &lt;https://evil.example|Click me&gt; &amp; *bold* \\u{60}x\\u{60}].inputModes[";
    assert!(texts.iter().any(|t| t.contains(shown)), "{texts:#?}");
    for text in &texts {
        assert!(!text.contains("<!") && !text.contains("<http"), "{text}");
        assert!(!bare_ampersand(text), "{text}");
    }
}

/// A card server that counts the requests it gets.
fn counting_peer() -> (common::Served, Arc<std::sync::atomic::AtomicUsize>) {
    let hits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = hits.clone();
    let router = axum::Router::new().fallback(move || {
        counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async { axum::http::StatusCode::NOT_FOUND }
    });
    (common::serve(router), hits)
}

/// A webhook or evidence base that is no http(s) URL with a host is a
/// usage error at start (exit 2, the flag named, the value never shown),
/// before the database is created or any peer is asked.
#[test]
fn a_bad_webhook_or_evidence_url_is_refused_before_any_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("watch.db");
    let db = format!("sqlite:{}", path.display());
    let (peer, hits) = counting_peer();
    let card = format!("{}/.well-known/agent-card.json", peer.base_url);
    let fleet = fleet_file(dir.path(), &[&card]);
    let fleet = fleet.display().to_string();
    let hook = Receiver::start();
    let good = hook.url();
    // Each value, and the part of it that must not be echoed.
    let cases = [
        ("--alert-webhook", "notaurl", "notaurl"),
        ("--alert-webhook", "ftp://x.example/hook", "x.example"),
        ("--alert-webhook", "file:///etc/passwd", "passwd"),
        ("--alert-webhook", "https://h.example:99999/x", "h.example"),
        ("--alert-webhook", "http://", "http://"),
        ("--alert-webhook", "", ""),
        ("--evidence-base", "notaurl", "notaurl"),
        ("--evidence-base", "javascript:alert(1)", "alert(1)"),
    ];
    for (flag, value, shown) in cases {
        let mut extra = vec!["--every", "1s", "--cycles", "1", flag, value];
        if flag == "--evidence-base" {
            extra.extend_from_slice(&["--alert-webhook", &good]);
        }
        let out = common::run(&watch_args(&db, &fleet, &extra));
        assert_eq!(out.code, 2, "{flag} {value:?}: {}", out.explain());
        let said = format!("error: {flag}: not an http(s) URL (");
        assert!(
            out.stderr.contains(&said),
            "{flag} {value:?}: {}",
            out.explain()
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.explain());
        assert!(
            shown.is_empty() || !out.stderr.contains(shown),
            "{value} echoed: {}",
            out.stderr
        );
    }
    assert_eq!(
        hits.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "a peer was asked"
    );
    assert_eq!(hook.take(), Vec::<Value>::new());
    assert!(!path.exists(), "the database was created");
}

/// SIGTERM while a recorded cycle's alerts wait on a webhook that accepts
/// connections and never answers (each alert would take ~43 s: 4 timeouts
/// and the backoff): the watch stops at once with 0, the record is kept,
/// and stderr says the alerts were not delivered.
#[test]
fn sigterm_during_alert_delivery_stops_the_watch_and_keeps_the_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let fleet = fleet_file(dir.path(), &[&peer.card_url()]);
    watch(&db, &fleet, "1", &[]);
    let _peer = switch(peer, Behaviour::CancelLeak);
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a silent webhook");
    let hook = format!("http://{}/hook", silent.local_addr().expect("its address"));
    let fleet = fleet.display().to_string();
    let log = dir.path().join("stderr.txt");
    let args = ["--every", "1s", "--alert-webhook", hook.as_str()];
    let mut child = spawn_watch(&watch_args(&db, &fleet, &args), &log);
    let deadline = Instant::now() + Duration::from_secs(60);
    let read = || std::fs::read_to_string(&log).unwrap_or_default();
    // Announced before the delivery starts.
    while !read().contains("cycle recorded as record 2: 2 regression(s)") {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("no record 2 announced within 60 s: {}", read());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    let code = terminate(&mut child);
    let stderr = read();
    // A liveness bound, not a timing test: the POSTs alone would take ~43 s.
    assert!(
        sent.elapsed() < Duration::from_secs(15),
        "{:?}: {stderr}",
        sent.elapsed()
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("watch: 2 alert(s) not delivered: the watch was stopped while sending them (record 2 is kept)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 cycle(s) recorded, 0 alert(s) sent, 2 undelivered (2 abandoned at the stop); stopped by SIGTERM"),
        "{stderr}"
    );
    assert!(!stderr.contains(&hook), "the webhook URL is never printed");
    assert_eq!(records(&db), 2, "{stderr}");
}

#[test]
fn history_imports_a_check_report_and_exports_and_shows_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("ci.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let ran = common::check_every_format(&peer.card_url(), &["--scenario", SCENARIO], &[]);
    let json = ran.json_text.clone().expect("a JSON report");
    let report = dir.path().join("report.json");
    std::fs::write(&report, &json).expect("write");
    let report = report.display().to_string();

    let out = common::run(&["history", "import", "--db", &db, &report]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stderr.contains("imported 1 report(s)"),
        "{}",
        out.explain()
    );

    let shown = common::run(&["history", "show", "--db", &db]);
    assert_eq!(shown.code, 0, "{}", shown.explain());
    assert!(shown.stdout.contains(&peer.card_url()), "{}", shown.stdout);
    let cancel = shown
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("lifecycle.cancel "))
        .unwrap_or_else(|| panic!("no lifecycle.cancel row: {}", shown.stdout));
    assert!(
        cancel.contains(" honoured ") && cancel.contains("records 1-1"),
        "{cancel}"
    );
    // One column each: every interval row's records start where the others' do.
    let columns: Vec<Option<usize>> = shown
        .stdout
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("  card "))
        // In characters, not bytes: a pair row's `≡` is one column, three bytes.
        .map(|l| l.find("records ").map(|at| l[..at].chars().count()))
        .collect();
    assert!(columns.len() > 1, "{}", shown.stdout);
    assert!(columns.windows(2).all(|w| w[0] == w[1]), "{}", shown.stdout);

    let exported = dir.path().join("out");
    let out_dir = exported.display().to_string();
    let out = common::run(&["history", "export", "--db", &db, "-o", &out_dir]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let back = std::fs::read_to_string(exported.join("record-00000001.json")).expect("exported");
    assert_eq!(back, json, "the report comes back as check wrote it");

    // --peer keeps only reports naming that peer.
    let other = dir.path().join("other");
    let other_dir = other.display().to_string();
    let args = [
        "history",
        "export",
        "--db",
        &db,
        "--peer",
        "http://nobody.example/",
        "-o",
        &other_dir,
    ];
    let out = common::run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stderr
            .contains("the store has no record of peer http://nobody.example/"),
        "{}",
        out.explain()
    );
    assert!(!other.exists(), "nothing to write: no folder");
    // The peer's own: its entry, with its own summary.
    let card = peer.card_url();
    let mine = dir.path().join("mine");
    let mine_dir = mine.display().to_string();
    let args = [
        "history", "export", "--db", &db, "--peer", &card, "-o", &mine_dir,
    ];
    let out = common::run(&args);
    assert_eq!(out.code, 0, "{}", out.explain());
    let text = std::fs::read_to_string(mine.join("record-00000001.json")).expect("exported");
    let cut: Value = serde_json::from_str(&text).expect("a report");
    assert_eq!(cut["peers"].as_array().map(Vec::len), Some(1), "{cut}");
    assert_eq!(cut["peers"][0]["card_url"], card.as_str());
    assert_eq!(cut["summary"]["peers"], 1, "{cut}");

    // A file that is no report records nothing and says so.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").expect("write");
    let out = common::run(&["history", "import", "--db", &db, &bad.display().to_string()]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.starts_with("error: ") && out.stderr.contains("bad.json"),
        "{}",
        out.explain()
    );
    assert_eq!(records(&db), 1, "the bad file recorded nothing");
}

/// `watch` reads its flags from the config file's top level and from
/// `A2A_CONFORM_*` variables as `check` does: here `--every` and the scenario
/// from the file, `--db` and `--cycles` from the environment, and the
/// command line over both.
#[test]
fn watch_flags_come_from_the_config_file_and_the_environment() {
    let peer = peer_on(0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("w.db").display());
    let config = dir.path().join("a2a-conform.yaml");
    std::fs::write(
        &config,
        format!("every: 1s\nscenario: [{SCENARIO}]\ncycles: 5\n"),
    )
    .expect("the config file");
    let config = config.display().to_string();
    let card = peer.card_url();
    let mut args = vec!["watch", card.as_str(), "-q"];
    args.extend_from_slice(FAST_VARS);
    let env = [
        ("A2A_CONFORM_CONFIG", config.as_str()),
        ("A2A_CONFORM_DB", db.as_str()),
        ("A2A_CONFORM_CYCLES", "2"),
    ];
    let out = common::run_env(&args, &env);
    assert_eq!(out.code, 0, "{}", out.explain());
    // Two cycles (the variable over the file's 5), one scenario each.
    assert_eq!(records(&db), 2, "{}", out.explain());
    let mut store = Store::open(&db).expect("the store");
    let verdicts = verdicts(&mut store, &card);
    assert_eq!(verdicts, [(DeclarationVerdict::Honoured, 1, 2)]);
    // The command line over the variable.
    args.extend_from_slice(&["--cycles", "1"]);
    let out = common::run_env(&args, &env);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(records(&db), 3, "{}", out.explain());
    // A key no configured command knows is refused with a suggestion.
    std::fs::write(&config, "evry: 1s\n").expect("the config file");
    let out = common::run_env(&args, &env);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(out.stderr.contains("every"), "{}", out.explain());
}

#[test]
fn an_alerts_evidence_link_opens_that_records_report_on_the_dashboard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let peer = peer_on(0, Behaviour::Honest);
    let fleet = fleet_file(dir.path(), &[&peer.card_url()]);
    watch(&db, &fleet, "1", &[]);
    let dashboard = crate::dashboard::start_dashboard(&db, "127.0.0.1:0", &[]);
    let hook = Receiver::start();
    let url = hook.url();
    let _peer = switch(peer, Behaviour::CancelLeak);
    let base = dashboard.base.clone();
    let alerting = ["--alert-webhook", url.as_str(), "--evidence-base", &base];
    watch(&db, &fleet, "1", &alerting);
    let bodies = hook.take();
    let alert = bodies
        .iter()
        .find(|b| b["declaration"] == CANCEL)
        .unwrap_or_else(|| panic!("no cancel alert: {bodies:#?}"));
    let evidence = alert["evidence"].as_str().expect("a link");
    let path = evidence
        .strip_prefix(base.as_str())
        .unwrap_or_else(|| panic!("{evidence} is not on the dashboard {base}"));
    assert!(
        path.starts_with("/peer/") && path.ends_with("?record=2"),
        "{path}"
    );
    let (status, _, page) = crate::dashboard::get(&base, path, None);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Report of record 2"), "{page}");
    assert!(page.contains("diverged"), "{page}");
}
