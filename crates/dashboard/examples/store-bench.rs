//! store-bench: the history store and the dashboard at fleet scale (issue
//! 23; docs/performance.md, round 4). Fills a store through the public
//! `Store` API the way `watch` does — one concluded report of the whole
//! fleet's peers recorded per cycle, then the record's regressions read,
//! every report kept (watch's default: no `--retention`) — with a share of the
//! (peer, declaration) cells changing verdict each cycle; then prints the
//! database's size and times the dashboard's pages served over HTTP on
//! 127.0.0.1 against that store (median and p95 of several requests).
//!
//! ```sh
//! cargo build --release --offline -p a2a-conform-dashboard --example store-bench
//! target/release/examples/store-bench [--peers 10000] [--declarations 30] \
//!     [--cycles 100] [--change-rate 0.01] [--requests 20] [--shards 1] [--db URL]
//! ```
//!
//! Without `--db` the store is a SQLite file in a temporary folder; with
//! `--db postgres://…` it is that (empty) PostgreSQL database, whose
//! `pg_database_size` is printed. A cycle is recorded as one report, as
//! watch records it (each peer's entry stored apart, so the whole may be
//! larger than the report cap), or as `--shards N` reports, as CI shards
//! import theirs.

use a2a_conform_dashboard::serve;
use a2a_conform_history::Store;
use a2a_conform_report::{
    conclude, DeclarationReport, DeclarationVerdict, PeerReport, Rules, RunReport,
};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the bench is asked to do.
struct Options {
    peers: usize,
    declarations: usize,
    cycles: usize,
    change_rate: f64,
    requests: usize,
    shards: usize,
    db: Option<String>,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        peers: 10_000,
        declarations: 30,
        cycles: 100,
        change_rate: 0.01,
        requests: 20,
        shards: 1,
        db: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag} {value}: not a count"))
        };
        match flag.as_str() {
            "--peers" => o.peers = number()?.max(1),
            "--declarations" => o.declarations = number()?.clamp(1, 200),
            "--cycles" => o.cycles = number()?.max(1),
            "--requests" => o.requests = number()?.max(1),
            "--shards" => o.shards = number()?.max(1),
            "--change-rate" => {
                o.change_rate = value
                    .parse::<f64>()
                    .ok()
                    .filter(|r| (0.0..=1.0).contains(r))
                    .ok_or(format!("--change-rate {value}: a share from 0 to 1"))?
            }
            "--db" => o.db = Some(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(o)
}

/// xorshift64*: a fixed sequence, so every run fills the same store.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

const VERDICTS: [DeclarationVerdict; 4] = [
    DeclarationVerdict::Honoured,
    DeclarationVerdict::Diverged,
    DeclarationVerdict::Unverified,
    DeclarationVerdict::NotDeclared,
];

/// Declaration ids as a card's rows spell them.
fn declaration_ids(n: usize) -> Vec<String> {
    let fixed = [
        "capabilities.streaming",
        "capabilities.pushNotifications",
        "lifecycle.cancel",
        "lifecycle.completion",
        "lifecycle.resubscribe",
        "errors.task-not-found",
        "security",
        "version.negotiation",
    ];
    let mut ids: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
    let mut i = 0;
    while ids.len() < n {
        ids.push(match i % 3 {
            0 => format!("defaultInputModes[application/x-mode-{i}]"),
            1 => format!("skills[skill-{i}].inputModes[text/plain]"),
            _ => format!("interfaces[JSONRPC 1.0 #{i}]"),
        });
        i += 1;
    }
    ids.truncate(n);
    ids
}

fn peer_url(i: usize) -> String {
    format!("https://peer-{i:05}.fleet.example/.well-known/agent-card.json")
}

/// The fleet's state: each cell's verdict (an index into [`VERDICTS`]).
struct Fleet {
    ids: Vec<String>,
    urls: Vec<String>,
    cells: Vec<u8>,
    digests: Vec<u32>,
}

impl Fleet {
    fn new(o: &Options, rng: &mut Rng) -> Fleet {
        // Mostly honoured, as a working fleet is.
        let start = |r: usize| match r {
            0..=79 => 0,
            80..=84 => 1,
            85..=89 => 2,
            _ => 3,
        };
        Fleet {
            ids: declaration_ids(o.declarations),
            urls: (0..o.peers).map(peer_url).collect(),
            cells: (0..o.peers * o.declarations)
                .map(|_| start(rng.below(100)))
                .collect(),
            digests: vec![0; o.peers],
        }
    }

    /// Changes `rate` of the cells to another verdict, and a card now and then.
    fn churn(&mut self, rate: f64, rng: &mut Rng) {
        let changes = (self.cells.len() as f64 * rate).round() as usize;
        for _ in 0..changes {
            let cell = rng.below(self.cells.len());
            self.cells[cell] = (self.cells[cell] + 1 + rng.below(3) as u8) % 4;
        }
        for _ in 0..(self.urls.len() / 1000).max(1) {
            let peer = rng.below(self.urls.len());
            self.digests[peer] += 1;
        }
    }

    /// The cycle's report of peers `range`, concluded as `check` concludes it.
    fn report(&self, cycle: usize, range: std::ops::Range<usize>) -> RunReport {
        let n = self.ids.len();
        let peers = self.urls[range.clone()]
            .iter()
            .zip(range)
            .map(|(url, p)| {
                let rows = self
                    .ids
                    .iter()
                    .enumerate()
                    .map(|(d, id)| {
                        let verdict = VERDICTS[self.cells[p * n + d] as usize];
                        DeclarationReport::builder(id, verdict)
                            .scenario(&format!("probe-{d}"))
                            .build()
                    })
                    .collect();
                PeerReport::builder(url)
                    .name(&format!("Fleet peer {p}"))
                    .card_digest(&format!("sha256:{p:016x}{:08x}", self.digests[p]))
                    .spoken(
                        "1.0",
                        "JSONRPC",
                        &url.replace("/.well-known/agent-card.json", "/a2a"),
                    )
                    .declarations(rows)
                    .duration_ms(1200)
                    .build()
            })
            .collect();
        let mut report = RunReport::new(peers);
        let at = chrono_like(cycle);
        report.started_at = at;
        conclude(&mut report, &Rules::default());
        report
    }
}

/// Hourly cycles from 2026-01-01T00:00:00Z.
fn chrono_like(cycle: usize) -> String {
    let (day, hour) = (cycle / 24, cycle % 24);
    let (month, day) = (1 + day / 28, 1 + day % 28);
    format!("2026-{month:02}-{day:02}T{hour:02}:00:00Z")
}

/// Fills the store; returns the report's JSON size of the last cycle.
fn fill(store: &mut Store, o: &Options) -> Result<usize, String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut fleet = Fleet::new(o, &mut rng);
    let (mut build, mut record, mut regress) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut json = 0;
    let started = Instant::now();
    for cycle in 0..o.cycles {
        if cycle > 0 {
            fleet.churn(o.change_rate, &mut rng);
        }
        let mut found = 0;
        let per_shard = o.peers.div_ceil(o.shards);
        for start in (0..o.peers).step_by(per_shard) {
            let t = Instant::now();
            let report = fleet.report(cycle, start..(start + per_shard).min(o.peers));
            if cycle + 1 == o.cycles {
                json = json.max(report.to_json().len());
            }
            build += t.elapsed();
            let t = Instant::now();
            let id = store.record(&report).map_err(|e| e.to_string())?;
            record += t.elapsed();
            // As watch does: the record's regressions, for its alerts.
            let t = Instant::now();
            found += store.regressions_at(id).map_err(|e| e.to_string())?.len();
            regress += t.elapsed();
        }
        if (cycle + 1) % 10 == 0 || cycle + 1 == o.cycles {
            eprintln!(
                "cycle {}/{}: {:.1} s so far ({found} regressions this cycle)",
                cycle + 1,
                o.cycles,
                started.elapsed().as_secs_f64()
            );
        }
    }
    let per = |d: Duration| d.as_secs_f64() / o.cycles as f64;
    println!(
        "fill: {:.1} s for {} cycles: per cycle {:.2} s building the report, {:.2} s \
         Store::record, {:.2} s regressions of every peer",
        started.elapsed().as_secs_f64(),
        o.cycles,
        per(build),
        per(record),
        per(regress)
    );
    Ok(json)
}

/// `GET path` on a new connection; returns the status and the body's size.
async fn get(addr: std::net::SocketAddr, path: &str) -> Result<(u16, usize), String> {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .await
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&answer[..answer.len().min(64)]).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or(format!("no HTTP status in {text:?}"))?;
    let body = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(0, |at| answer.len() - at - 4);
    Ok((status, body))
}

/// A card URL as one path segment (as the grid links it).
fn segment(peer: &str) -> String {
    peer.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// Times `paths` (one request each, after one untimed request of the first).
async fn time(addr: std::net::SocketAddr, what: &str, paths: &[String]) -> Result<(), String> {
    get(addr, &paths[0]).await?;
    let mut times = Vec::with_capacity(paths.len());
    let mut size = 0;
    for path in paths {
        let t = Instant::now();
        let (status, body) = get(addr, path).await?;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        if status != 200 {
            return Err(format!("{path}: HTTP {status}"));
        }
        size = body;
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what}: median {:.1} ms, p95 {:.1} ms, max {:.1} ms over {} requests ({} KB a page)",
        at(0.5),
        at(0.95),
        at(1.0),
        times.len(),
        size / 1024
    );
    Ok(())
}

async fn measure(url: String, o: &Options) -> Result<(), String> {
    // Opened off the runtime: the PostgreSQL client blocks on a runtime of
    // its own (as `dashboard` and `watch` open theirs).
    let store = tokio::task::spawn_blocking(move || Store::open(&url))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, store, None, async {
        let _ = stopped.await;
    }));
    let n = o.requests;
    let pages = (o.peers as i64 + a2a_conform_dashboard::PEERS_PER_PAGE - 1)
        / a2a_conform_dashboard::PEERS_PER_PAGE;
    let mut rng = Rng(7);
    let grid: Vec<String> = (0..n).map(|_| "/".to_string()).collect();
    let paged: Vec<String> = (0..n)
        .map(|_| format!("/?page={}", 1 + rng.below(pages as usize)))
        .collect();
    let peers: Vec<String> = (0..n)
        .map(|_| format!("/peer/{}", segment(&peer_url(rng.below(o.peers)))))
        .collect();
    let api: Vec<String> = (0..n)
        .map(|_| format!("/api/fleet?page={}", 1 + rng.below(pages as usize)))
        .collect();
    time(addr, "grid / (page 1)", &grid).await?;
    time(addr, "grid /?page=N (random pages)", &paged).await?;
    time(addr, "peer page /peer/… (random peers)", &peers).await?;
    time(addr, "/api/fleet?page=N", &api).await?;
    let few = (n / 5).max(3);
    time(
        addr,
        "/api/fleet (every peer)",
        &vec!["/api/fleet".to_string(); few],
    )
    .await?;
    time(
        addr,
        "/metrics (every peer)",
        &vec!["/metrics".to_string(); few],
    )
    .await?;
    let _ = stop.send(());
    server
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())
}

fn database_size(url: &str, file: Option<&std::path::Path>) -> Result<String, String> {
    if let Some(file) = file {
        let bytes = std::fs::metadata(file).map_err(|e| e.to_string())?.len();
        return Ok(format!(
            "SQLite file: {:.1} MB ({bytes} bytes)",
            bytes as f64 / 1e6
        ));
    }
    let mut client = postgres::Client::connect(url, postgres::NoTls).map_err(|e| e.to_string())?;
    let row = client
        .query_one("SELECT pg_database_size(current_database())", &[])
        .map_err(|e| e.to_string())?;
    let bytes: i64 = row.get(0);
    Ok(format!(
        "pg_database_size: {:.1} MB ({bytes} bytes)",
        bytes as f64 / 1e6
    ))
}

fn main() {
    if let Err(message) = run() {
        eprintln!("store-bench: {message}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let o = options()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join("history.db");
    let (url, sqlite) = match &o.db {
        Some(url) => (url.clone(), None),
        None => (format!("sqlite:{}", file.display()), Some(file.as_path())),
    };
    println!(
        "store-bench: {} peers × {} declarations × {} cycles, {}% of cells changing a cycle",
        o.peers,
        o.declarations,
        o.cycles,
        o.change_rate * 100.0
    );
    let mut store = Store::open(&url).map_err(|e| e.to_string())?;
    if store.latest().map_err(|e| e.to_string())?.0 > 0 {
        return Err("the database already holds records: give an empty one".into());
    }
    let json = fill(&mut store, &o)?;
    drop(store);
    println!(
        "one cycle: {} report(s) of up to {} peers, the largest {:.1} MB of JSON",
        o.shards.min(o.peers),
        o.peers.div_ceil(o.shards),
        json as f64 / 1e6
    );
    println!("{}", database_size(&url, sqlite)?);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(measure(url, &o))
}
