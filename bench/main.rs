//! The end-to-end benchmark of issue #13: starts mock peers in this process,
//! runs the release binary against them, and prints the ratios that
//! `docs/performance.md` records. Not a test: nothing here asserts a time.
//!
//! ```text
//! cargo build --release && cargo run --release --example fleet-bench -- [--quick]
//! ```
//!
//! - suite: wall of `check` (default suite, default `--jobs`) ÷ its longest run;
//! - fleet: wall of K peers (one mock process serving K cards) ÷ one peer, and peak RSS;
//! - stream: MB/s of `streaming-probe` over 1 KiB events ÷ a raw HTTP read
//!   of the same stream in the same run, and peak RSS over a 1 GB stream
//!   read whole (the stream caps raised past it);
//! - requests: the tool's time per GetTask minus a raw client's round trip.

use a2a_conform_mock::{MockConfig, MockPeer, MockTiming};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of the binary cost.
struct Measured {
    wall: Duration,
    peak_rss_kib: u64,
    /// User + system CPU of the check process, from its exit status (`wait4`).
    cpu: Duration,
    report: Value,
}

/// The release binary next to this example (`target/release/a2a-conform`).
fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("A2A_CONFORM_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("own path");
    let dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/examples");
    dir.join("a2a-conform")
}

/// Peak resident set (VmHWM) of a live process, in KiB.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// User + system CPU time of a live process (`/proc/PID/stat`, 100 Hz ticks).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at state.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// If the child has exited: reaps it and returns its CPU time (user +
/// system, to the microsecond, unlike `/proc`'s 10 ms ticks) and peak RSS
/// in KiB, from `wait4`.
fn reap(pid: u32) -> Option<(Duration, u64)> {
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it in or leaves it zeroed.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to each out-parameter; WNOHANG never blocks.
    let reaped = unsafe { libc::wait4(pid as libc::pid_t, &mut status, libc::WNOHANG, &mut usage) };
    if reaped != pid as libc::pid_t {
        assert!(reaped >= 0, "wait4: {}", std::io::Error::last_os_error());
        return None;
    }
    let micros = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    let cpu = Duration::from_micros(micros(usage.ru_utime) + micros(usage.ru_stime));
    Some((cpu, usage.ru_maxrss as u64))
}

/// Runs `a2a-conform check ARGS --json FILE` and measures it.
// The child is reaped by `reap` (wait4), which also gives its exact CPU time.
#[allow(clippy::zombie_processes)]
fn check(args: &[&str]) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("report.json");
    let started = Instant::now();
    let child = Command::new(binary())
        .arg("check")
        .args(args)
        .arg("--progress")
        .arg("none")
        .arg("--json")
        .arg(&json)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e} (cargo build --release first)",
                binary().display()
            )
        });
    let mut peak = 0;
    let cpu = loop {
        peak = peak.max(peak_rss(child.id()).unwrap_or(0));
        if let Some((cpu, max_rss_kib)) = reap(child.id()) {
            peak = peak.max(max_rss_kib);
            break cpu;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let wall = started.elapsed();
    let text = std::fs::read_to_string(&json).expect("the check wrote its report");
    Measured {
        wall,
        peak_rss_kib: peak,
        cpu,
        report: serde_json::from_str(&text).expect("report parses"),
    }
}

fn runs(report: &Value) -> impl Iterator<Item = &Value> {
    report["peers"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|p| p["scenarios"].as_array().into_iter().flatten())
}

fn longest_run_ms(report: &Value) -> u64 {
    runs(report)
        .filter_map(|r| r["duration_ms"].as_u64())
        .max()
        .unwrap_or(1)
        .max(1)
}

fn run_ms(report: &Value, id: &str) -> u64 {
    runs(report)
        .find(|r| r["id"] == id)
        .and_then(|r| r["duration_ms"].as_u64())
        .unwrap_or(0)
        .max(1)
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn suite_ratio(card: &str) {
    for (label, extra) in [
        ("default suite", vec![]),
        (
            "default suite + prompt_input_required",
            vec!["--var", "prompt_input_required=need-input please"],
        ),
    ] {
        let mut args = vec![card];
        args.extend(extra);
        let m = check(&args);
        let longest = longest_run_ms(&m.report);
        // No schedule with the default 8 slots beats max(longest, total ÷ 8).
        let total: u64 = runs(&m.report)
            .filter_map(|r| r["duration_ms"].as_u64())
            .sum();
        let bound = longest.max(total / 8);
        println!(
            "suite   {label:<40} wall {:>7.2}s  longest run {:>6.2}s  ratio {:.2}x  (bound max(longest, sum/jobs) = {:.2}x)",
            m.wall.as_secs_f64(),
            longest as f64 / 1000.0,
            m.wall.as_millis() as f64 / longest as f64,
            bound as f64 / longest as f64
        );
    }
}

/// `--peers-in-flight` for K peers: `--in-flight=N` if given, else K.
fn fleet_ratio(peer: &MockPeer, sizes: &[u32], in_flight: Option<u32>, jobs: Option<u32>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut one = None;
    for &k in sizes {
        let list: String = (1..=k)
            .map(|n| format!("{}\n", peer.fleet_card_url(n)))
            .collect();
        let file = dir.path().join(format!("fleet-{k}.txt"));
        std::fs::write(&file, list).expect("fleet file");
        let in_flight = in_flight.unwrap_or(k).min(k).to_string();
        let jobs = jobs.unwrap_or(8).to_string();
        let mock_before = cpu_time(std::process::id()).unwrap_or_default();
        let m = check(&[
            "--peers",
            file.to_str().expect("utf-8 path"),
            "--peers-in-flight",
            &in_flight,
            "--jobs",
            &jobs,
        ]);
        let mock_cpu = cpu_time(std::process::id()).unwrap_or_default() - mock_before;
        let base = *one.get_or_insert(m.wall);
        let failed = m.report["peers"]
            .as_array()
            .map(|p| p.iter().filter(|p| p["card_error"].is_string()).count())
            .unwrap_or(0);
        let runs_done = runs(&m.report).count();
        println!(
            "fleet   K={k:<5} in flight {in_flight:<5} jobs {jobs:<2} wall {:>7.2}s  ÷ one peer {:>6.2}x  peak RSS {:>7.1} MB  CPU tool {:>5.2}s + mock {:>5.2}s  runs {runs_done}  card errors {failed}",
            m.wall.as_secs_f64(),
            m.wall.as_secs_f64() / base.as_secs_f64(),
            mib(m.peak_rss_kib),
            m.cpu.as_secs_f64(),
            mock_cpu.as_secs_f64(),
        );
    }
}

/// A raw read of the fast stream: one POST, bytes counted, nothing parsed.
async fn raw_stream(endpoint: &str, events: u64, size: usize) -> (u64, Duration) {
    let client = reqwest::Client::new();
    let body = json!({"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{
        "message":{"messageId":"bench","role":"ROLE_USER","parts":[{"text":format!("fast-stream {events} {size}")}]}}});
    let started = Instant::now();
    let mut response = client
        .post(endpoint)
        .header("A2A-Version", "1.0")
        .header("Accept", "text/event-stream")
        .json(&body)
        .send()
        .await
        .expect("raw stream opens");
    let mut bytes = 0u64;
    while let Some(chunk) = response.chunk().await.expect("raw stream reads") {
        bytes += chunk.len() as u64;
    }
    (bytes, started.elapsed())
}

/// `streaming-probe` over a fast stream of EVENTS × SIZE bytes. The tool's
/// stream caps are raised past the stream's length, so it is read whole
/// (the defaults would cut it at 10,000 events / 32 MiB).
async fn stream_ratio(peer: &MockPeer, events: u64, size: usize) {
    let (bytes, raw) = raw_stream(&peer.jsonrpc_url(), events, size).await;
    let raw_mbs = bytes as f64 / 1e6 / raw.as_secs_f64();
    let prompt = format!("prompt=fast-stream {events} {size}");
    let card = peer.card_url();
    let max_events = (events + 10).to_string();
    let max_bytes = (bytes * 2).to_string();
    let m = tokio::task::block_in_place(|| {
        check(&[
            &card,
            "--scenario",
            "streaming-probe",
            "--var",
            &prompt,
            "--var",
            "probe_window=60s",
            "--var",
            "task_window=600s",
            "--timeout",
            "600s",
            "--max-stream-events",
            &max_events,
            "--max-stream-bytes",
            &max_bytes,
        ])
    });
    let verdict = runs(&m.report)
        .find(|r| r["id"] == "streaming-probe")
        .map(|r| r["verdict"].as_str().unwrap_or("?").to_string())
        .unwrap_or_default();
    let head = format!("stream  {events} x {size} B ({:.0} MB)", bytes as f64 / 1e6);
    if verdict != "pass" {
        println!(
            "{head}  raw {raw_mbs:>7.0} MB/s  the run did not pass  peak RSS {:>6.1} MB  verdict {verdict}",
            mib(m.peak_rss_kib),
        );
        return;
    }
    let tool = run_ms(&m.report, "streaming-probe");
    let tool_mbs = bytes as f64 / 1e6 / (tool as f64 / 1000.0);
    // CPU of the whole check process (start-up, card, report included),
    // per event: what the load of the machine does not change.
    let per_event_us = m.cpu.as_secs_f64() * 1e6 / events as f64;
    println!(
        "{head}  raw {raw_mbs:>7.0} MB/s  tool {tool_mbs:>7.0} MB/s  (raw ÷ tool {:.2}x)  CPU {:>5.2}s = {per_event_us:.2} µs/event  peak RSS {:>6.1} MB  verdict {verdict}",
        raw_mbs / tool_mbs,
        m.cpu.as_secs_f64(),
        mib(m.peak_rss_kib),
    );
}

async fn request_overhead(peer: &MockPeer) {
    let client = reqwest::Client::new();
    let endpoint = peer.jsonrpc_url();
    let send = json!({"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{
        "message":{"messageId":"bench-raw","role":"ROLE_USER","parts":[{"text":"hello"}]}}});
    let answer: Value = client
        .post(&endpoint)
        .header("A2A-Version", "1.0")
        .json(&send)
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    let task = answer["result"]["task"]["id"]
        .as_str()
        .or(answer["result"]["id"].as_str())
        .unwrap_or("none")
        .to_string();
    const CALLS: u32 = 200;
    let started = Instant::now();
    for i in 0..CALLS {
        let get = json!({"jsonrpc":"2.0","id":i,"method":"GetTask","params":{"id":task}});
        let _ = client
            .post(&endpoint)
            .header("A2A-Version", "1.0")
            .json(&get)
            .send()
            .await
            .expect("get")
            .bytes()
            .await;
    }
    let raw_ms = started.elapsed().as_secs_f64() * 1000.0 / f64::from(CALLS);
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/requests.yaml");
    let card = peer.card_url();
    let m = tokio::task::block_in_place(|| check(&[&card, "--no-default-suite", "--suite", suite]));
    let tool_ms = run_ms(&m.report, "bench-requests") as f64 / f64::from(CALLS + 1);
    println!(
        "request raw {raw_ms:.3} ms  tool {tool_ms:.3} ms  overhead {:.3} ms per request",
        tool_ms - raw_ms
    );
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores available")
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only = |part: &str| {
        !args.iter().any(|a| a.starts_with("--only"))
            || args.iter().any(|a| a == &format!("--only={part}"))
    };
    let value = |prefix: &str| {
        args.iter()
            .find_map(|a| a.strip_prefix(prefix))
            .and_then(|v| v.parse::<u32>().ok())
    };
    println!("machine {}", machine());
    println!("binary  {}", binary().display());
    let peer = MockPeer::start(MockConfig::default())
        .await
        .expect("mock starts");
    if only("suite") {
        let card = peer.card_url();
        tokio::task::block_in_place(|| suite_ratio(&card));
    }
    if only("fleet") {
        let sizes: &[u32] = if quick {
            &[1, 10, 100]
        } else {
            &[1, 10, 100, 1000]
        };
        let in_flight = value("--in-flight=");
        let jobs = value("--jobs=");
        tokio::task::block_in_place(|| fleet_ratio(&peer, sizes, in_flight, jobs));
    }
    let fast = MockPeer::start(MockConfig {
        timing: MockTiming {
            chunks: 1,
            chunk_interval: Duration::ZERO,
            ..MockTiming::default()
        },
        ..MockConfig::default()
    })
    .await
    .expect("mock starts");
    if only("stream") {
        stream_ratio(&fast, 9_000, 1024).await;
        if !quick {
            // About 1 GB (`--long-events=N` for another length): memory
            // must not grow with the stream.
            let long = value("--long-events=").map_or(1_000_000, u64::from);
            stream_ratio(&fast, long, 1024).await;
        }
    }
    if only("requests") {
        request_overhead(&fast).await;
    }
    fast.shutdown().await;
    peer.shutdown().await;
}
