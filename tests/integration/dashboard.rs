//! `a2a-conform dashboard` and `check --html` in a real headless browser
//! (Debian's chromium, installed by tests/support/install-chromium.sh on
//! first need; the tests fail, never skip, without it).
//!
//! A history store (a real SQLite file) is filled from real checks of mock
//! peers (honest, diverging) and a hostile peer whose card name and answers
//! hold `<script>`, an event handler and `javascript:` links. Chromium loads
//! each page (`--dump-dom`, `--screenshot`, `--log-net-log`): the grid shows
//! each report's verdicts, the hostile text is text (no element made, no
//! live link, the CSP header strict), and the page asks for nothing from
//! another origin. The screenshots are kept under
//! target/tmp/artifacts/dashboard/. `/metrics` is parsed with
//! prometheus-parse.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use regex::Regex;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// What the hostile peer puts in its card name, description and errors.
const HOSTILE: &str =
    "<script>document.title='owned'</script><img src=x onerror=\"document.title='owned'\">\
    <a href=\"javascript:document.title='owned'\">click</a> javascript:alert(1)";

/// The peer whose records go from the honest check to the diverging one.
const TURNED: &str = "http://turned.invalid/.well-known/agent-card.json";

/// Installs chromium once per test binary, or fails naming the script.
fn chromium() -> &'static str {
    static READY: OnceLock<()> = OnceLock::new();
    READY.get_or_init(|| {
        let status = Command::new("bash")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/support/install-chromium.sh"
            ))
            .status()
            .expect("bash runs");
        assert!(
            status.success(),
            "chromium is needed: bash tests/support/install-chromium.sh"
        );
    });
    "chromium"
}

/// Where the screenshots are kept.
fn artifacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("artifacts/dashboard");
    std::fs::create_dir_all(&dir).expect("artifact dir");
    dir
}

/// What chromium made of a page: its DOM after load, and the URLs the
/// page itself asked for (the net log's requests with a page initiator;
/// the browser's own background requests have none).
struct Loaded {
    dom: String,
    page_requests: Vec<String>,
}

/// Loads `url` in headless chromium: the DOM, the page's own requests, and
/// a screenshot at `screenshot`.
fn load(url: &str, screenshot: &Path) -> Loaded {
    let profile = tempfile::tempdir().expect("profile dir");
    let net_log = profile.path().join("net.json");
    let browse = |extra: &[String]| {
        let mut command = Command::new(chromium());
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--disable-sync",
                "--hide-scrollbars",
                "--window-size=1400,1800",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(url)
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        let output = bounded(command, Duration::from_secs(90));
        assert!(output.status.success(), "chromium failed on {url}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let dom = browse(&[
        format!("--log-net-log={}", net_log.display()),
        "--dump-dom".into(),
    ]);
    browse(&[format!("--screenshot={}", screenshot.display())]);
    let png = std::fs::read(screenshot).expect("the screenshot is written");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 5_000,
        "a real PNG"
    );
    Loaded {
        dom,
        page_requests: page_requests(&net_log),
    }
}

/// The URLs a page asked for, from chromium's net log.
fn page_requests(net_log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(net_log).expect("the net log is written");
    // Chromium may leave the log's closing brackets off when it exits.
    let log: Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("the net log is JSON");
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    log["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["type"] == start_job)
        .filter(|e| {
            let initiator = e["params"]["initiator"].as_str().unwrap_or("not an origin");
            initiator != "not an origin"
        })
        .filter_map(|e| e["params"]["url"].as_str().map(str::to_string))
        .collect()
}

/// Runs `command` to its end, killed past `limit`.
fn bounded(mut command: Command, limit: Duration) -> std::process::Output {
    let mut child = command.stdout(Stdio::piped()).spawn().expect("starts");
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{command:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: reader.join().expect("reader"),
        stderr: vec![],
    }
}

/// The hostile markup never became markup: no script or image element, no
/// event handler, no `javascript:` link, and the text is there, as text.
/// (In a serialized DOM a text node's `<` is `&lt;`, so a raw `<` opens a
/// real element.)
fn assert_inert(what: &str, dom: &str) {
    let lower = dom.to_lowercase();
    assert!(
        !lower.contains("<script"),
        "{what}: a script element\n{dom}"
    );
    assert!(!lower.contains("<img"), "{what}: an image element\n{dom}");
    let handler = Regex::new(r#"(?i)<[a-z][^<>]*\son[a-z]+="#).expect("regex");
    assert!(!handler.is_match(dom), "{what}: an event handler\n{dom}");
    assert!(!dom.contains("<title>owned"), "{what}: a script ran\n{dom}");
    let link =
        Regex::new(r#"(?i)<[a-z][^<>]*\s(?:href|src|action|xlink:href)="([^"]*)""#).expect("regex");
    for found in link.captures_iter(dom) {
        let target = &found[1];
        assert!(
            target.starts_with('/') || target.starts_with('#'),
            "{what}: a link or source that leaves the page: {target}\n{dom}"
        );
    }
    assert!(
        dom.contains("&lt;script&gt;document.title='owned'&lt;/script&gt;"),
        "{what}: the hostile name is shown as text\n{dom}"
    );
}

/// The page asked for nothing, or only for `origin`'s own resources.
fn assert_no_external_request(what: &str, loaded: &Loaded, origin: Option<&str>) {
    let outside: Vec<&String> = loaded
        .page_requests
        .iter()
        .filter(|u| origin.is_none_or(|o| !u.starts_with(o)))
        .collect();
    assert!(outside.is_empty(), "{what} asked for {outside:?}");
}

/// A card server whose name, description and every JSON-RPC error are
/// [`HOSTILE`].
fn hostile_peer() -> Served {
    serve_at(|base| {
        let card = serde_json::json!({
            "name": HOSTILE, "description": HOSTILE, "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": false},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "javascript:alert(2)", "name": HOSTILE, "description": HOSTILE, "tags": ["t"]}]
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || {
                    let card = card.clone();
                    async move { axum::Json(card) }
                }),
            )
            .fallback(|body: String| async move {
                let id = serde_json::from_str::<Value>(&body)
                    .ok()
                    .and_then(|v| v.get("id").cloned())
                    .unwrap_or(Value::Null);
                axum::Json(serde_json::json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32603, "message": HOSTILE}}))
            })
    })
}

/// A check of `card_url`, with its JSON report written to `json` (and
/// the HTML report to `html`, when given).
fn check_into(card_url: &str, json: &Path, html: Option<&Path>) -> Value {
    let mut args = vec!["check", card_url];
    args.extend_from_slice(FAST_VARS);
    let html_arg;
    if let Some(html) = html {
        html_arg = html.display().to_string();
        args.extend(["--html", html_arg.as_str()]);
    }
    let outcome = run(&args);
    let report = outcome.report().clone();
    std::fs::write(json, serde_json::to_string(&report).expect("json")).expect("write");
    report
}

/// A running `a2a-conform dashboard`, stopped when dropped.
pub(crate) struct Dashboard {
    child: Child,
    pub(crate) base: String,
}

impl Drop for Dashboard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the dashboard over `db` on `listen`, with `env`; waits for the
/// address it prints.
pub(crate) fn start_dashboard(db: &str, listen: &str, env: &[(&str, &str)]) -> Dashboard {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["dashboard", "--db", db, "--listen", listen])
        .env_remove("A2A_CONFORM_DASHBOARD_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the dashboard starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr"))
        .read_line(&mut line)
        .expect("a line on stderr");
    let port = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|addr| addr.rsplit(':').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    Dashboard {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}

/// A plain HTTP/1.1 GET: the status, the head (lower-cased) and the body.
pub(crate) fn get(base: &str, path: &str, bearer: Option<&str>) -> (u16, String, String) {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let auth = bearer
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, head.to_lowercase(), body.to_string())
}

/// Each declaration's verdict in a grid row of the DOM.
fn grid_row(dom: &str, peer: &str) -> Vec<(String, String)> {
    let start = dom
        .find(&format!("<tr data-peer=\"{peer}\""))
        .unwrap_or_else(|| panic!("no grid row for {peer}\n{dom}"));
    let row = &dom[start..start + dom[start..].find("</tr>").expect("row end")];
    let cell = Regex::new(r#"data-declaration="([^"]*)" data-verdict="([^"]*)""#).expect("re");
    cell.captures_iter(row)
        .map(|c| (c[1].replace("&amp;", "&"), c[2].to_string()))
        .collect()
}

fn report_rows(report: &Value) -> Vec<(String, String)> {
    report["peers"][0]["declarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .map(|d| {
            (
                d["id"].as_str().expect("id").to_string(),
                d["verdict"].as_str().expect("verdict").to_string(),
            )
        })
        .collect()
}

/// A store filled from real checks: honest, cancel-leak (diverges) and the
/// hostile peer, each recorded as `history import` would.
struct Fleet {
    _dir: tempfile::TempDir,
    db: String,
    honest: (String, Value),
    leaky: (String, Value),
    hostile: String,
    _peers: (Peer, Peer, Served),
}

fn fleet() -> Fleet {
    let dir = tempfile::tempdir().expect("tempdir");
    let honest_peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let leaky_peer = start_peer(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let hostile = hostile_peer();
    let hostile_url = format!("{}/.well-known/agent-card.json", hostile.base_url);
    let files: Vec<PathBuf> = (0..4)
        .map(|n| dir.path().join(format!("r{n}.json")))
        .collect();
    let honest = check_into(&honest_peer.card_url(), &files[0], None);
    let leaky = check_into(&leaky_peer.card_url(), &files[1], None);
    check_into(&hostile_url, &files[2], None);
    std::fs::copy(&files[0], &files[3]).expect("a second honest record");
    // A peer that turned: the honest check, then the leaky one (checked
    // later), under one card URL, so its history has a change.
    for (n, report) in [(4, &honest), (5, &leaky)] {
        let mut turned = report.clone();
        turned["peers"][0]["card_url"] = Value::from(TURNED);
        std::fs::write(dir.path().join(format!("r{n}.json")), turned.to_string()).expect("write");
    }
    let files: Vec<PathBuf> = (0..6)
        .map(|n| dir.path().join(format!("r{n}.json")))
        .collect();
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    let mut store = a2a_conform_history::Store::open(&db).expect("store");
    store.import(&files).expect("import");
    Fleet {
        db,
        honest: (honest_peer.card_url(), honest),
        leaky: (leaky_peer.card_url(), leaky),
        hostile: hostile_url,
        _peers: (honest_peer, leaky_peer, hostile),
        _dir: dir,
    }
}

#[test]
fn the_grid_in_chromium_shows_each_peer_s_verdicts_and_no_peer_string_runs() {
    let fleet = fleet();
    let dashboard = start_dashboard(&fleet.db, "127.0.0.1:0", &[]);
    let grid = load(
        &format!("{}/", dashboard.base),
        &artifacts().join("fleet.png"),
    );
    for (peer, report) in [&fleet.honest, &fleet.leaky] {
        let mut shown = grid_row(&grid.dom, peer);
        let mut expected = report_rows(report);
        shown.sort();
        expected.sort();
        assert_eq!(shown, expected, "the grid row of {peer}");
    }
    let verdicts = |row: &[(String, String)]| row.iter().filter(|(_, v)| v == "diverged").count();
    assert_eq!(verdicts(&grid_row(&grid.dom, &fleet.honest.0)), 0);
    assert!(
        verdicts(&grid_row(&grid.dom, &fleet.leaky.0)) > 0,
        "cancel-leak diverges"
    );
    assert!(
        grid.dom.contains(&fleet.hostile),
        "the hostile peer has a row"
    );
    // The turned peer's cancel row: diverged now, over a strip of two runs.
    let turned = grid_row(&grid.dom, TURNED);
    assert!(
        turned.contains(&("lifecycle.cancel".into(), "diverged".into())),
        "{turned:?}"
    );
    let start = grid
        .dom
        .find(&format!("<tr data-peer=\"{TURNED}\""))
        .expect("row");
    let row = &grid.dom[start..start + grid.dom[start..].find("</tr>").expect("end")];
    let cancel = &row[row
        .find("data-declaration=\"lifecycle.cancel\"")
        .expect("cell")..];
    let cancel = &cancel[..cancel.find("</td>").expect("cell end")];
    assert_eq!(
        cancel.matches("<rect").count(),
        2,
        "honoured, then diverged: {cancel}"
    );
    assert!(
        cancel.contains("fill=\"#2e8b57\"") && cancel.contains("fill=\"#c0392b\""),
        "{cancel}"
    );
    assert_no_external_request("the grid", &grid, Some(&dashboard.base));

    let (status, head, _) = get(&dashboard.base, "/", None);
    assert_eq!(status, 200);
    let policy = head
        .lines()
        .find_map(|l| l.strip_prefix("content-security-policy: "))
        .expect("a CSP header");
    assert!(
        policy.starts_with("default-src 'none'; style-src 'sha256-"),
        "{policy}"
    );
    assert!(
        !policy.contains("script") && !policy.contains("unsafe"),
        "{policy}"
    );
    assert!(head.contains("x-content-type-options: nosniff"), "{head}");
}

#[test]
fn a_hostile_peer_s_page_in_chromium_is_text_and_asks_for_nothing_outside() {
    let fleet = fleet();
    let dashboard = start_dashboard(&fleet.db, "127.0.0.1:0", &[]);
    let segment: String = fleet
        .hostile
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect();
    let page = load(
        &format!("{}/peer/{segment}", dashboard.base),
        &artifacts().join("peer-hostile.png"),
    );
    assert_inert("the hostile peer's page", &page.dom);
    assert!(page.dom.contains("Timeline of changes"), "{}", page.dom);
    assert!(page.dom.contains("Latest report"), "{}", page.dom);
    assert_no_external_request("the peer page", &page, Some(&dashboard.base));
    let (status, _, json) = get(
        &dashboard.base,
        "/api/peer/http%3A%2F%2Fturned.invalid%2F.well-known%2Fagent-card.json",
        None,
    );
    assert_eq!(status, 200, "{json}");
    let view: Value = serde_json::from_str(&json).expect("JSON");
    let cancel: Vec<&str> = view["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["declaration"] == "lifecycle.cancel")
        .map(|c| c["verdict"].as_str().expect("verdict"))
        .collect();
    assert_eq!(cancel, ["honoured", "diverged"], "the timeline of changes");
    let leaky = load(
        &format!(
            "{}/peer/{}",
            dashboard.base,
            fleet.leaky.0.replace(':', "%3A").replace('/', "%2F")
        ),
        &artifacts().join("peer-diverged.png"),
    );
    assert!(leaky.dom.contains("v-diverged"), "{}", leaky.dom);
    let (status, _, json) = get(&dashboard.base, &format!("/api/peer/{segment}"), None);
    assert_eq!(status, 200);
    let view: Value = serde_json::from_str(&json).expect("the API answers JSON");
    assert_eq!(view["peer"], fleet.hostile.as_str());
    assert_eq!(view["latest_report"]["peers"][0]["name"], HOSTILE);
}

#[test]
fn the_html_report_of_check_in_chromium_is_self_contained_and_inert() {
    let hostile = hostile_peer();
    let leaky_peer = start_peer(ProtocolVersion::V1_0, Behaviour::CancelLeak);
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, url) in [
        (
            "hostile",
            format!("{}/.well-known/agent-card.json", hostile.base_url),
        ),
        ("diverged", leaky_peer.card_url()),
    ] {
        let html = dir.path().join(format!("{name}.html"));
        let report = check_into(&url, &dir.path().join("r.json"), Some(&html));
        let text = std::fs::read_to_string(&html).expect("--html writes the file");
        assert!(text
            .contains("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"));
        let loaded = load(
            &format!("file://{}", html.display()),
            &artifacts().join(format!("report-{name}.png")),
        );
        assert_no_external_request("the HTML report", &loaded, None);
        for (id, verdict) in report_rows(&report) {
            assert!(
                loaded.dom.contains(&format!("v-{verdict}")),
                "{id}: {verdict}"
            );
        }
        if name == "hostile" {
            assert_inert("the HTML report", &loaded.dom);
        } else {
            assert!(
                loaded.dom.contains("curl "),
                "the curl lines: {}",
                loaded.dom
            );
        }
    }
}

#[test]
fn the_probe_catches_a_page_that_loads_an_external_asset() {
    // The browser checks above can fail: a page with an outside image is caught.
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("leaky.html");
    std::fs::write(
        &page,
        "<html><body><img src=\"http://e.invalid/x.png\"></body></html>",
    )
    .expect("write");
    let loaded = load(
        &format!("file://{}", page.display()),
        &dir.path().join("leaky.png"),
    );
    assert_eq!(
        loaded.page_requests,
        vec!["http://e.invalid/x.png".to_string()]
    );
}

#[test]
fn metrics_parse_as_prometheus_text_and_hold_each_current_verdict() {
    let fleet = fleet();
    let dashboard = start_dashboard(&fleet.db, "127.0.0.1:0", &[]);
    let (status, head, body) = get(&dashboard.base, "/metrics", None);
    assert_eq!(status, 200);
    assert!(
        head.contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    let scrape = prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string())))
        .expect("/metrics parses as Prometheus text");
    for (peer, report) in [&fleet.honest, &fleet.leaky] {
        for (id, verdict) in report_rows(report) {
            assert!(
                scrape
                    .samples
                    .iter()
                    .any(|s| s.metric == "a2a_conform_verdict"
                        && s.labels.get("peer") == Some(peer.as_str())
                        && s.labels.get("declaration") == Some(id.as_str())
                        && s.labels.get("verdict") == Some(verdict.as_str())),
                "{peer} {id} {verdict} in\n{body}"
            );
        }
    }
    let diverged = |peer: &str| {
        scrape
            .samples
            .iter()
            .find(|s| s.metric == "a2a_conform_diverged" && s.labels.get("peer") == Some(peer))
            .map(|s| match s.value {
                prometheus_parse::Value::Gauge(v) => v,
                _ => -1.0,
            })
    };
    assert_eq!(diverged(&fleet.honest.0), Some(0.0));
    assert!(diverged(&fleet.leaky.0).is_some_and(|v| v > 0.0));
    let (status, head, svg) = get(
        &dashboard.base,
        &format!(
            "/badge/{}.svg",
            fleet.leaky.0.replace(':', "%3A").replace('/', "%2F")
        ),
        None,
    );
    assert_eq!(status, 200, "{svg}");
    assert!(head.contains("content-type: image/svg+xml"), "{head}");
    assert!(svg.contains("diverged") && svg.contains("#c0392b"), "{svg}");
}

#[test]
fn another_address_needs_the_token_and_every_request_must_carry_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("sqlite:{}", dir.path().join("watch.db").display());
    // The dashboard serves a store; it makes none.
    drop(a2a_conform_history::Store::open(&db).expect("the store opens"));
    let refused = run(&["dashboard", "--db", &db, "--listen", "0.0.0.0:0"]);
    assert_eq!(refused.code, 2, "{}", refused.explain());
    assert!(
        refused.stderr.contains("A2A_CONFORM_DASHBOARD_TOKEN"),
        "{}",
        refused.stderr
    );
    let token = "dash-token-7f3a";
    let dashboard = start_dashboard(&db, "0.0.0.0:0", &[("A2A_CONFORM_DASHBOARD_TOKEN", token)]);
    let help = run(&["--help"]);
    assert!(help.stdout.contains("dashboard"), "{}", help.stdout);
    for path in ["/", "/metrics", "/api/fleet"] {
        let (status, head, body) = get(&dashboard.base, path, None);
        assert_eq!(status, 401, "{path} without the token");
        assert!(head.contains("www-authenticate: bearer"), "{head}");
        assert!(!body.contains(token));
        assert_eq!(get(&dashboard.base, path, Some("wrong")).0, 401, "{path}");
        assert_eq!(
            get(&dashboard.base, path, Some(token)).0,
            200,
            "{path} with it"
        );
    }
    // The scheme's name is case-insensitive (RFC 9110): `bearer` is Bearer.
    let addr = dashboard.base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).expect("connect");
    write!(
        stream,
        "GET / HTTP/1.1\r\nHost: {addr}\r\nAuthorization: bearer {token}\r\nConnection: close\r\n\r\n"
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // A blank token could never be sent back: refused at start.
    let blank = Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["dashboard", "--db", &db, "--listen", "0.0.0.0:0"])
        .env("A2A_CONFORM_DASHBOARD_TOKEN", " ")
        .output()
        .expect("runs");
    assert_eq!(blank.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&blank.stderr).contains("is blank"));
}

#[test]
fn the_inert_check_catches_live_markup() {
    // The DOM checks above can fail: each kind of live markup is caught.
    let text = "&lt;script&gt;document.title='owned'&lt;/script&gt;";
    for live in [
        "<script>x</script>",
        "<img src=\"/x\">",
        "<p onclick=\"x\">",
        "<a href=\"javascript:x\">",
        "<a href=\"https://e.vil/\">",
    ] {
        let dom = format!("<html><body><p>{text}</p>{live}</body></html>");
        let caught = std::panic::catch_unwind(|| assert_inert("a test DOM", &dom));
        assert!(caught.is_err(), "{live} was not caught");
    }
    assert_inert(
        "a test DOM",
        &format!("<p>{text}</p><a href=\"/peer/x\">x</a>"),
    );
}

/// A store of `peers` peers recorded in one report (each with two
/// declarations), then a second report of the first peer alone.
fn large_fleet(dir: &Path, peers: usize) -> (String, Vec<String>) {
    use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
    let db = format!("sqlite:{}", dir.join("fleet.db").display());
    let urls: Vec<String> = (0..peers)
        .map(|i| format!("https://peer-{i:04}.example/.well-known/agent-card.json"))
        .collect();
    let entry = |url: &str, cancel| {
        PeerReport::builder(url)
            .card_digest("sha256:1")
            .declarations(vec![
                DeclarationReport::builder("lifecycle.cancel", cancel).build(),
                DeclarationReport::builder("capabilities.streaming", DeclarationVerdict::Honoured)
                    .build(),
            ])
            .build()
    };
    let mut store = a2a_conform_history::Store::open(&db).expect("the store opens");
    let everyone = urls
        .iter()
        .enumerate()
        .map(|(i, url)| {
            let cancel = if i == 1 {
                DeclarationVerdict::Diverged
            } else {
                DeclarationVerdict::Honoured
            };
            entry(url, cancel)
        })
        .collect();
    store.record(&RunReport::new(everyone)).expect("recorded");
    let again = entry(&urls[0], DeclarationVerdict::Honoured);
    store
        .record(&RunReport::new(vec![again]))
        .expect("recorded");
    (db, urls)
}

#[test]
fn the_grid_pages_a_large_fleet_and_the_json_api_has_all_of_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, urls) = large_fleet(dir.path(), 150);
    let dashboard = start_dashboard(&db, "127.0.0.1:0", &[]);
    let rows = |body: &str| body.matches("<tr data-peer=").count();
    let (status, _, first) = get(&dashboard.base, "/", None);
    assert_eq!(status, 200, "{first}");
    assert_eq!(rows(&first), 100, "the first page holds 100 peers");
    assert!(first.contains("page 1 of 2") && first.contains("href=\"/?page=2\""));
    assert!(first.contains("150 peers"), "the whole fleet is counted");
    assert!(first.contains(&urls[99]) && !first.contains(&urls[100]));
    let (status, _, second) = get(&dashboard.base, "/?page=2", None);
    assert_eq!(status, 200);
    assert_eq!(rows(&second), 50);
    assert!(second.contains(&urls[149]) && !second.contains(&urls[99]));
    assert!(second.contains("href=\"/?page=1\""), "a link back");
    assert_eq!(
        get(&dashboard.base, "/?page=3", None).0,
        404,
        "past the end"
    );
    for bad in ["0", "-1", "two", ""] {
        let (status, _, body) = get(&dashboard.base, &format!("/?page={bad}"), None);
        assert_eq!(status, 400, "?page={bad}: {body}");
        assert!(body.contains("page number"), "{body}");
    }
    let (status, _, json) = get(&dashboard.base, "/api/fleet", None);
    assert_eq!(status, 200);
    let all: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(all["peers"].as_array().map(Vec::len), Some(150));
    assert_eq!(
        (all["total_peers"].as_i64(), all["pages"].as_i64()),
        (Some(150), Some(1))
    );
    let (_, _, json) = get(&dashboard.base, "/api/fleet?page=2", None);
    let page: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(page["peers"].as_array().map(Vec::len), Some(50));
    assert_eq!(
        (page["page"].as_i64(), page["pages"].as_i64()),
        (Some(2), Some(2))
    );
    // The current verdict is the latest record's: peer 0 was recorded again.
    let peer0 = &all["peers"][0];
    assert_eq!(peer0["latest_record"].as_i64(), Some(2));
    let peer1 = &all["peers"][1];
    assert_eq!(peer1["cells"]["lifecycle.cancel"]["verdict"], "diverged");
}

#[test]
fn a_peer_page_shows_its_own_entry_of_the_fleet_s_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (db, urls) = large_fleet(dir.path(), 3);
    let dashboard = start_dashboard(&db, "127.0.0.1:0", &[]);
    let path = |url: &str| format!("/peer/{}", url.replace(':', "%3A").replace('/', "%2F"));
    let (status, _, page) = get(&dashboard.base, &path(&urls[1]), None);
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Latest report (record 1)"), "{page}");
    for other in [&urls[0], &urls[2]] {
        assert!(
            !page.contains(other.as_str()),
            "another peer's entry on the page"
        );
    }
    let (_, _, json) = get(&dashboard.base, &format!("/api{}", path(&urls[0])), None);
    let view: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(view["latest_report_record"].as_i64(), Some(2));
    assert_eq!(
        view["latest_report"]["peers"].as_array().map(Vec::len),
        Some(1)
    );
    assert_eq!(
        view["latest_report"]["peers"][0]["card_url"],
        urls[0].as_str()
    );
    let unknown = path("https://nobody.example/.well-known/agent-card.json");
    assert_eq!(get(&dashboard.base, &unknown, None).0, 404);
    // `?record=N` (an alert's evidence): that record's entry, not the latest.
    let at = |url: &str, query: &str| format!("/api{}?{query}", path(url));
    let (_, _, json) = get(&dashboard.base, &at(&urls[0], "record=1"), None);
    let view: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(view["asked_record"].as_i64(), Some(1), "{view}");
    assert_eq!(view["latest_report_record"].as_i64(), Some(1), "{view}");
    assert_eq!(
        view["latest_report"]["peers"][0]["card_url"],
        urls[0].as_str()
    );
    let (status, _, page) = get(
        &dashboard.base,
        &format!("{}?record=1", path(&urls[0])),
        None,
    );
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("Report of record 1"), "{page}");
    // A record that does not hold the peer says so; a bad number is a 400.
    let (status, _, page) = get(
        &dashboard.base,
        &format!("{}?record=2", path(&urls[1])),
        None,
    );
    assert_eq!(status, 200, "{page}");
    assert!(
        page.contains("No stored report of this peer at record 2"),
        "{page}"
    );
    assert_eq!(get(&dashboard.base, &at(&urls[0], "record=x"), None).0, 400);
    assert_eq!(get(&dashboard.base, &at(&urls[0], "record=0"), None).0, 400);
}

/// SIGTERM stops the dashboard with 0 over either backend: the store it
/// owns is closed as its server ends, on a thread driving the runtime,
/// where the PostgreSQL client's goodbye panicked (exit 101) until the
/// store said it on a thread of its own.
#[test]
fn sigterm_stops_the_dashboard_cleanly_over_sqlite_and_postgres() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = crate::common::postgres::PgServer::start();
    let sqlite = format!("sqlite:{}", dir.path().join("history.db").display());
    for db in [sqlite.as_str(), server.url.as_str()] {
        drop(a2a_conform_history::Store::open(db).expect("the store opens"));
        let mut dashboard = start_dashboard(db, "127.0.0.1:0", &[]);
        let (status, _, _) = get(&dashboard.base, "/", None);
        assert_eq!(status, 200, "{db}");
        let pid = i32::try_from(dashboard.child.id()).expect("a pid");
        // SAFETY: kill(2) on the child this test started; no memory is shared.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
        let deadline = Instant::now() + Duration::from_secs(30);
        let code = loop {
            if let Some(status) = dashboard.child.try_wait().expect("wait") {
                break status.code();
            }
            assert!(
                Instant::now() < deadline,
                "{db}: still serving 30 s after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert_eq!(code, Some(0), "{db}: the dashboard's exit after SIGTERM");
    }
}
