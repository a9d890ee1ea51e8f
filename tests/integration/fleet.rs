//! Fleets end to end: `check --peers FILE` over many mock peers served by
//! one process, peers and runs scheduled unordered but reported in plan
//! order, `--shard K/N` slices that cover the plan once, and `merge`
//! joining them (and refusing reports that are not shards of one check).

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

const SECRET: &str = "fleet-secret-token-4711";

fn names(report: &Value) -> Vec<String> {
    report["peers"]
        .as_array()
        .expect("peers")
        .iter()
        .map(|p| {
            p["name"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| format!("error:{}", p["card_url"].as_str().unwrap_or("")))
        })
        .collect()
}

fn run_ids(report: &Value, peer: usize) -> Vec<String> {
    report["peers"][peer]["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .map(|r| r["id"].as_str().unwrap_or("").to_string())
        .collect()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    path.display().to_string()
}

/// `check` with the fast windows and a JSON report written to `json`.
fn check_to(json: &str, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.extend_from_slice(FAST_VARS);
    all.extend_from_slice(&["--progress", "lines"]);
    let out = run_env(&all, env);
    if let Some(text) = &out.json_text.clone().or_else(|| {
        out.report
            .as_ref()
            .map(|r| serde_json::to_string(r).expect("json"))
    }) {
        std::fs::write(json, text).expect("keep report");
    }
    out
}

#[test]
fn a_fleet_file_checks_every_peer_in_order_and_one_unreachable_stops_none() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let gone = format!("http://127.0.0.1:{}", closed_port());
    let fleet = format!(
        "peers:\n  - {}\n  - {gone}\n  - url: {}\n    bearer_env: FLEET_TOKEN\n    headers: {{X-Tenant: two}}\n  - {}\n",
        peer.peer.fleet_card_url(1),
        peer.peer.fleet_card_url(2),
        peer.peer.fleet_card_url(3),
    );
    let file = write(dir.path(), "fleet.yaml", &fleet);
    let json = dir.path().join("r.json").display().to_string();
    let out = check_to(
        &json,
        &[
            "--peers",
            &file,
            "--scenario",
            "streaming-probe",
            "--peers-in-flight",
            "4",
        ],
        &[("FLEET_TOKEN", SECRET)],
    );
    let report = out.report();
    let base = "a2a-conform mock peer (honest)";
    assert_eq!(
        names(report),
        vec![
            format!("{base} #1"),
            format!("error:{gone}/.well-known/agent-card.json"),
            format!("{base} #2"),
            format!("{base} #3"),
        ],
        "{}",
        out.explain()
    );
    for i in [0, 2, 3] {
        let runs = &report["peers"][i]["scenarios"];
        let probe = runs
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == "streaming-probe")
            .expect("probe ran");
        assert_eq!(probe["verdict"], "pass", "peer {i}: {}", out.explain());
    }
    assert!(report["peers"][1]["card_error"].is_string());
    // A line per finished peer (several peers), and the secret nowhere.
    assert!(out.stderr.contains("PEER-ERROR"), "{}", out.explain());
    assert!(
        out.stderr.contains(&format!("PEER          {base} #2")),
        "{}",
        out.explain()
    );
    let json_text = serde_json::to_string(report).unwrap();
    for text in [&out.stdout, &out.stderr, &json_text] {
        assert!(!text.contains(SECRET), "the secret leaked: {text}");
    }
}

#[test]
fn a_plain_url_list_is_a_fleet_file_too() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let list = format!(
        "# two peers\n{}\n{}\n",
        peer.peer.fleet_card_url(7),
        peer.peer.fleet_card_url(8)
    );
    let file = write(dir.path(), "fleet.txt", &list);
    let json = dir.path().join("r.json").display().to_string();
    let out = check_to(
        &json,
        &["--peers", &file, "--scenario", "streaming-probe"],
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    let shown = names(out.report());
    assert!(
        shown[0].ends_with("#7") && shown[1].ends_with("#8"),
        "{shown:?}"
    );
}

#[test]
fn runs_finish_unordered_but_the_report_keeps_plan_order() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let one = dir.path().join("one.json").display().to_string();
    let many = dir.path().join("many.json").display().to_string();
    let sequential = check_to(&one, &[&peer.card_url(), "--jobs", "1"], &[]);
    let concurrent = check_to(&many, &[&peer.card_url(), "--jobs", "16"], &[]);
    let planned = run_ids(sequential.report(), 0);
    assert!(planned.len() > 10, "{planned:?}");
    assert_eq!(run_ids(concurrent.report(), 0), planned);
    // The progress lines show the order runs finished in, which differs.
    let finished: Vec<&str> = concurrent
        .stderr
        .lines()
        // `VERDICT(12)  ID  1.02s`: ids may hold single spaces.
        .filter_map(|l| l.get(14..)?.split("  ").next())
        .filter(|id| planned.iter().any(|p| p == id))
        .collect();
    assert_eq!(finished.len(), planned.len(), "{}", concurrent.stderr);
    assert_ne!(finished, planned, "runs did not finish out of plan order");
}

fn merge(args: &[&str]) -> Outcome {
    let mut all = vec!["merge"];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn shards_of_one_peer_cover_its_runs_once_and_merge_restores_the_report() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let whole_path = dir.path().join("whole.json").display().to_string();
    let whole = check_to(&whole_path, &[&peer.card_url()], &[]);
    let planned = run_ids(whole.report(), 0);
    let mut seen: Vec<String> = Vec::new();
    let mut shards = Vec::new();
    for k in 1..=3 {
        let path = dir.path().join(format!("s{k}.json")).display().to_string();
        let shard = format!("{k}/3");
        let out = check_to(&path, &[&peer.card_url(), "--shard", &shard], &[]);
        assert_eq!(out.report()["shard"]["index"], k, "{}", out.explain());
        seen.extend(run_ids(out.report(), 0));
        shards.push(path);
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "overlap: {seen:?}");
    assert_eq!(
        unique,
        planned.iter().collect::<BTreeSet<_>>(),
        "the union of the shards is not the plan"
    );
    let merged_path = dir.path().join("merged.json").display().to_string();
    let mut args: Vec<&str> = shards.iter().map(String::as_str).collect();
    args.extend_from_slice(&["--json", &merged_path]);
    let out = merge(&args);
    assert_eq!(out.code, whole.code, "{}", out.explain());
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    assert_eq!(run_ids(&merged, 0), planned);
    assert!(merged.get("shard").is_none());
    let verdicts = |r: &Value| -> Vec<(String, String)> {
        r["peers"][0]["declarations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| (d["id"].to_string(), d["verdict"].to_string()))
            .collect()
    };
    assert_eq!(verdicts(&merged), verdicts(whole.report()));
}

#[test]
fn shards_of_a_fleet_split_the_peers_and_merge_keeps_their_order() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let list: String = (1..=5)
        .map(|n| format!("{}\n", peer.peer.fleet_card_url(n)))
        .collect();
    let file = write(dir.path(), "fleet.txt", &list);
    let only = ["--scenario", "streaming-probe"];
    let whole_path = dir.path().join("whole.json").display().to_string();
    let mut args = vec!["--peers", file.as_str()];
    args.extend_from_slice(&only);
    let whole = check_to(&whole_path, &args, &[]);
    let all = names(whole.report());
    assert_eq!(all.len(), 5);
    let mut seen = Vec::new();
    let mut shards = Vec::new();
    for k in 1..=2 {
        let path = dir.path().join(format!("s{k}.json")).display().to_string();
        let shard = format!("{k}/2");
        let mut args = vec!["--peers", file.as_str(), "--shard", &shard];
        args.extend_from_slice(&only);
        let out = check_to(&path, &args, &[]);
        seen.extend(names(out.report()));
        shards.push(path);
    }
    let unique: BTreeSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "overlap: {seen:?}");
    assert_eq!(unique, all.iter().collect::<BTreeSet<_>>());
    let merged_path = dir.path().join("merged.json").display().to_string();
    // Given in any order, the shards merge back to plan order.
    let out = merge(&[&shards[1], &shards[0], "--json", &merged_path]);
    assert_eq!(out.code, 0, "{}", out.explain());
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(&merged_path).unwrap()).unwrap();
    assert_eq!(names(&merged), all);
}

#[test]
fn merge_refuses_reports_that_are_not_shards_of_one_check() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).display().to_string();
    let card = peer.card_url();
    let a = path("a.json");
    check_to(
        &a,
        &[&card, "--shard", "1/2", "--scenario", "streaming-probe"],
        &[],
    );
    let b_other_suite = path("b.json");
    check_to(
        &b_other_suite,
        &[&card, "--shard", "2/2", "--scenario", "cancel-then-stream"],
        &[],
    );
    let unsharded = path("c.json");
    check_to(&unsharded, &[&card, "--scenario", "streaming-probe"], &[]);
    let b_ok = path("d.json");
    check_to(
        &b_ok,
        &[&card, "--shard", "2/2", "--scenario", "streaming-probe"],
        &[],
    );
    let mut other_version: Value =
        serde_json::from_str(&std::fs::read_to_string(&b_ok).unwrap()).unwrap();
    other_version["tool"]["version"] = "99.0.0".into();
    let b_version = path("e.json");
    std::fs::write(&b_version, other_version.to_string()).unwrap();

    for (inputs, says) in [
        (vec![a.as_str(), b_other_suite.as_str()], "different suites"),
        (
            vec![a.as_str(), unsharded.as_str()],
            "is not a shard report",
        ),
        (vec![a.as_str()], "shard 2/2 is missing"),
        (vec![a.as_str(), a.as_str()], "are both shard 1/2"),
        (
            vec![a.as_str(), b_version.as_str()],
            "different tool versions",
        ),
    ] {
        let out = merge(&inputs);
        assert_eq!(out.code, 2, "{inputs:?}: {}", out.explain());
        assert!(out.stderr.contains(says), "{inputs:?}: {}", out.explain());
    }
    let out = merge(&[&a, &b_ok]);
    assert_ne!(out.code, 2, "{}", out.explain());
}

#[test]
fn merge_refuses_an_endless_or_huge_input_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sparse = dir.path().join("huge.json");
    // A gibibyte on paper, nothing on disk: read whole, it would fill memory.
    std::fs::File::create(&sparse)
        .and_then(|f| f.set_len(1 << 30))
        .expect("sparse file");
    let sparse = sparse.display().to_string();
    for input in ["/dev/zero", sparse.as_str()] {
        let started = std::time::Instant::now();
        let out = merge(&[input]);
        assert_eq!(out.code, 2, "{input}: {}", out.explain());
        assert!(
            out.stderr.contains(&format!(
                "{input} is larger than 64 MiB: not a report a2a-conform wrote"
            )),
            "{input}: {}",
            out.explain()
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{input} took {:?}",
            started.elapsed()
        );
        assert!(out.stdout.is_empty(), "{}", out.explain());
    }
}

#[test]
fn merge_refuses_a_report_of_another_schema_version_naming_both() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |name: &str| dir.path().join(name).display().to_string();
    let card = peer.card_url();
    let (first, second) = (path("s1.json"), path("s2.json"));
    for (file, shard) in [(&first, "1/2"), (&second, "2/2")] {
        check_to(
            file,
            &[&card, "--shard", shard, "--scenario", "streaming-probe"],
            &[],
        );
    }
    let mut later: Value =
        serde_json::from_str(&std::fs::read_to_string(&second).unwrap()).unwrap();
    later["schema_version"] = 2.into();
    std::fs::write(&second, later.to_string()).unwrap();
    let out = merge(&[&first, &second]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains(&format!(
            "{second} has schema_version 2; this a2a-conform reads schema_version 1"
        )),
        "{}",
        out.explain()
    );
}

#[test]
fn a_slot_frees_when_any_run_ends_not_only_the_oldest() {
    // Two slots; long, short, long, short. Unordered, the second long run
    // starts when the first short one ends: about one long run in all.
    // Ordered (`buffered`), it waited for the first long one: two in a row.
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let scenario = |id: &str, sleep: &str| {
        format!(
            "  - id: {id}\n    title: {id}\n    verifies: [lifecycle.completion]\n    steps:\n      - sleep: {sleep}\n"
        )
    };
    let suite = format!(
        "scenarios:\n{}{}{}{}",
        scenario("long-a", "6s"),
        scenario("short-b", "10ms"),
        scenario("long-c", "6s"),
        scenario("short-d", "10ms"),
    );
    let file = write(dir.path(), "slots.yaml", &suite);
    let out = run(&[
        "check",
        &peer.card_url(),
        "--no-default-suite",
        "--suite",
        &file,
        "--jobs",
        "2",
        "--progress",
        "none",
    ]);
    assert_eq!(
        run_ids(out.report(), 0),
        ["long-a", "short-b", "long-c", "short-d"]
    );
    // The check's own wall (no process start): 6 s of sleep either way,
    // 12 s if the second long run waited; the 3 s between leave a loaded
    // machine room.
    let wall = out.report()["duration_ms"]
        .as_u64()
        .expect("the check's wall");
    assert!(
        wall < 9_000,
        "took {wall} ms: a finished run's slot was not freed\n{}",
        out.explain()
    );
}

#[test]
fn a_fleet_peers_profile_is_checked_like_profile_before_any_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "acme.yaml", "vars:\n  promt: hello\n");
    let gone = format!("http://127.0.0.1:{}", closed_port());
    let fleet = format!("peers:\n  - url: {gone}\n    profile: acme.yaml\n");
    let file = write(dir.path(), "fleet.yaml", &fleet);
    let out = run(&["check", "--peers", &file]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr.contains("promt") && out.stderr.contains("acme.yaml"),
        "{}",
        out.explain()
    );
}

/// A fleet under a low open-files limit (soft 160, hard 320: 40 peers × 8
/// jobs, up to three sockets a run, need more): the tool raises the
/// soft limit to the hard one and sizes its runs in flight to fit, so every
/// run is judged and none is an error of the tool's own making ("Too many
/// open files", which before read as 40 unreachable peers).
#[test]
fn a_low_open_files_limit_sizes_the_runs_in_flight_instead_of_failing_them() {
    use std::os::unix::process::CommandExt;
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dir = tempfile::tempdir().expect("tempdir");
    let list: String = (1..=40)
        .map(|n| format!("{}\n", peer.peer.fleet_card_url(n)))
        .collect();
    let file = write(dir.path(), "fleet.txt", &list);
    let json = dir.path().join("r.json");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
    command
        .args(["check", "--peers", &file, "--peers-in-flight", "40"])
        .args(["--jobs", "8", "--progress", "none", "--json"])
        .arg(&json)
        .args(FAST_VARS)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null());
    // SAFETY: setrlimit is async-signal-safe and touches only the child.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 160,
                rlim_max: 320,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = command.output().expect("the check runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stdout.contains("Too many open files") && !stderr.contains("Too many open files"),
        "{stdout}\n{stderr}"
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    let peers = report["peers"].as_array().expect("peers");
    assert_eq!(peers.len(), 40);
    for peer in peers {
        assert!(peer["card_error"].is_null(), "{peer}");
        for run in peer["scenarios"].as_array().expect("scenarios") {
            assert_ne!(run["verdict"], "error", "{run}");
        }
    }
}

/// A hundred honest peers checked at once (issue 40): on a loaded machine
/// the artifacts an honest peer made before a cancel reach its stream after
/// the CancelTask answer, which came back on another connection. They come
/// before the stream's canceled status, so they were in flight: every
/// `lifecycle.cancel` reads honoured, none diverged (13 of 100 did when a
/// leak was judged by arrival time).
#[test]
fn a_hundred_honest_peers_at_once_read_every_cancel_honoured() {
    // The default pace (about 1 s of work) keeps the cancel ahead of the
    // task's end under load, so no run is inconclusive by timing either.
    let peer = start_peer_with(
        ProtocolVersion::V1_0,
        Behaviour::Honest,
        a2a_conform_mock::MockTiming::default(),
        None,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let list: String = (1..=100)
        .map(|n| format!("{}\n", peer.peer.fleet_card_url(n)))
        .collect();
    let file = write(dir.path(), "fleet.txt", &list);
    let json = dir.path().join("r.json");
    // Its terminal report (half a megabyte) would fill a pipe: not read.
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conform"))
        .args(["check", "--peers", &file, "--peers-in-flight", "100"])
        .args(["--scenario", "cancel-then-stream", "--progress", "none"])
        .arg("--json")
        .arg(&json)
        .args(FAST_VARS)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("the check runs");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("report")).expect("json");
    assert_eq!(status.code(), Some(0), "{report}");
    let peers = report["peers"].as_array().expect("peers");
    assert_eq!(peers.len(), 100);
    let verdicts: Vec<String> = peers
        .iter()
        .map(|peer| {
            peer["declarations"]
                .as_array()
                .expect("declarations")
                .iter()
                .find(|d| d["id"] == "lifecycle.cancel")
                .map(|d| format!("{} {}", d["verdict"], d["reason"]))
                .unwrap_or_default()
        })
        .collect();
    let off: Vec<&String> = verdicts
        .iter()
        .filter(|v| !v.starts_with("\"honoured\""))
        .collect();
    assert!(off.is_empty(), "{} not honoured: {off:#?}", off.len());
}
