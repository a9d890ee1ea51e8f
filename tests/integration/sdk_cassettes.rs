//! The official SDK interop runs as cassettes (`fixtures/cassettes/`),
//! re-judged with the current tool and suite without starting any SDK peer:
//! the verdict engine is tested deterministically on real SDK traffic, in
//! seconds, beside the live interop tests (`interop`), which stay.
//!
//! Each cassette is `check --record` of an interop run (the SDK agents of
//! `tests/interop/`, the interop tests' variables). A re-judged cassette must
//! give every recorded run its recorded verdict and the rows the live
//! interop tests assert (`interop::expected_row_over`). When the suite changes
//! what a run sends, that run reads "not in the recording": the test fails
//! then, naming the command that re-records the cassettes
//! ([`RECORD_COMMAND`]), instead of passing on fewer rows. The tool version
//! and the suite digest are not compared: a release alone re-records nothing.
//!
//! The gRPC runs (the agents started with `--grpc`: Python v1.0 and v0.3,
//! JS v1.0) are recorded too; `rejudge` and `replay` serve them over gRPC.
//! The Python v1.0 gRPC cassette keeps its finding: version negotiation
//! diverged (`interop::PYTHON_GRPC_1_0_ROW`), exit 1.
//!
//! [`RECORD_ONLY`] names the recordings to re-record when not all should
//! be (a re-recorded cassette is never byte-identical: its times change);
//! the gRPC ones alone: `A2A_CONFORM_RECORD_ONLY=grpc` before
//! [`RECORD_COMMAND`] (docs/interop.md).

use crate::common::*;
use crate::interop::{expected_row_over, start, Sdk, PYTHON_GRPC_1_0_ROW};
use crate::replay::start_replay;
use a2a_conform_cassette::Cassette;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The command that re-records every SDK cassette (it needs the SDKs:
/// `bash tests/interop/setup.sh`).
const RECORD_COMMAND: &str =
    "cargo test --test integration -- --ignored --exact sdk_cassettes::record_the_sdk_cassettes";

/// An environment variable for [`record_the_sdk_cassettes`]: when set, only
/// the recordings whose name (`sdk-<sdk>-<binding>-<version>`) contains its
/// value are re-recorded (`grpc`: the three gRPC ones), so the others stay
/// byte-identical.
const RECORD_ONLY: &str = "A2A_CONFORM_RECORD_ONLY";

/// One interop run kept as a cassette.
#[derive(Debug, Clone, Copy)]
struct Recording {
    sdk: Sdk,
    binding: &'static str,
    version: &'static str,
    /// The agent's start flags (`interop::start`): `--grpc` opens its gRPC port.
    agent: &'static [&'static str],
}

/// The interop runs over HTTP (`interop::sdk_*_keeps_every_declaration`),
/// then over gRPC (`interop::sdk_*_grpc_*`).
const RECORDINGS: &[Recording] = &[
    Recording::new(Sdk::Python, "jsonrpc", "1.0"),
    Recording::new(Sdk::Python, "jsonrpc", "0.3"),
    Recording::new(Sdk::Python, "rest", "1.0"),
    Recording::new(Sdk::Python, "rest", "0.3"),
    Recording::new(Sdk::Js, "jsonrpc", "1.0"),
    Recording::new(Sdk::Js, "jsonrpc", "0.3"),
    Recording::new(Sdk::Js, "rest", "1.0"),
    Recording::new(Sdk::Js, "rest", "0.3"),
    Recording::grpc(Sdk::Python, "1.0"),
    Recording::grpc(Sdk::Python, "0.3"),
    // @a2a-js/sdk has no 0.3 gRPC service.
    Recording::grpc(Sdk::Js, "1.0"),
];

impl Recording {
    const fn new(sdk: Sdk, binding: &'static str, version: &'static str) -> Self {
        Self {
            sdk,
            binding,
            version,
            agent: &[],
        }
    }

    const fn grpc(sdk: Sdk, version: &'static str) -> Self {
        Self {
            sdk,
            binding: "grpc",
            version,
            agent: &["--grpc"],
        }
    }

    /// The verdict the interop test asserts for row `id` of this run.
    fn expected_row(self, id: &str) -> &'static str {
        expected_row_over(self.sdk, self.binding, id, self.version)
    }

    /// `sdk-<name>-<binding>-<version>`.
    fn name(self) -> String {
        let sdk = match self.sdk {
            Sdk::Python => "python",
            Sdk::Js => "js",
        };
        format!("sdk-{sdk}-{}-{}", self.binding, self.version)
    }

    fn path(self) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/cassettes")
            .join(format!("{}.jsonl.gz", self.name()))
    }

    /// The binding and version flags the interop test checks with.
    fn flags(self) -> [&'static str; 4] {
        ["--binding", self.binding, "--protocol", self.version]
    }

    fn cassette(self) -> Cassette {
        Cassette::load(&self.path()).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; re-record the SDK cassettes: `{RECORD_COMMAND}`",
                self.path().display()
            )
        })
    }

    /// `rejudge` of the cassette, with `extra` flags.
    fn rejudge(self, extra: &[&str]) -> Outcome {
        let path = self.path();
        let mut args = vec!["rejudge", path.to_str().expect("a UTF-8 path")];
        args.extend_from_slice(&self.flags());
        args.extend_from_slice(extra);
        run(&args)
    }
}

/// `(id, verdict)` of the first peer's `list` (`declarations`, `scenarios`).
fn verdicts(out: &Outcome, list: &str) -> BTreeMap<String, String> {
    out.report()["peers"][0][list]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap_or("").to_string(),
                item["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// Compares a check of a cassette (re-judged or replayed) with what the
/// cassette recorded: every recorded scenario run, and no other, with its
/// recorded verdict. `Err` says why not and how to re-record.
fn compare_with_recording(cassette: &Cassette, out: &Outcome, what: &str) -> Result<(), String> {
    let rerecord = format!("re-record the SDK cassettes: `{RECORD_COMMAND}`");
    let runs = out.report()["peers"][0]["scenarios"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let unrecorded: Vec<String> = runs
        .iter()
        .filter(|r| {
            r["message"]
                .as_str()
                .is_some_and(|m| m.contains("not in the recording"))
        })
        .map(|r| format!("{}: {}", r["id"], r["message"]))
        .collect();
    if !unrecorded.is_empty() {
        return Err(format!(
            "{what}: the suite sends what the cassette did not record (the suite changed since it was recorded), so these runs read unverified:\n  {}\n{rerecord}",
            unrecorded.join("\n  ")
        ));
    }
    // A precondition search is recorded as a run of its own, not a scenario.
    let recorded: BTreeMap<String, String> = cassette
        .runs
        .iter()
        .filter(|r| r.peer == 0 && !r.run.starts_with("precondition:"))
        .map(|r| (r.run.clone(), r.verdict.clone()))
        .collect();
    let now = verdicts(out, "scenarios");
    let added: Vec<&String> = now
        .keys()
        .filter(|id| !recorded.contains_key(*id))
        .collect();
    let gone: Vec<&String> = recorded
        .keys()
        .filter(|id| !now.contains_key(*id))
        .collect();
    if !added.is_empty() || !gone.is_empty() {
        return Err(format!(
            "{what}: the suite's runs are not the recorded ones (new: {added:?}; no longer run: {gone:?}); {rerecord}"
        ));
    }
    let changed: Vec<String> = recorded
        .iter()
        .filter(|(id, verdict)| now[*id] != **verdict)
        .map(|(id, verdict)| format!("{id}: recorded {verdict}, now {}", now[id]))
        .collect();
    if !changed.is_empty() {
        return Err(format!(
            "{what}: the verdict engine judges the recorded SDK traffic differently now:\n  {}\nIf the suite or the judging changed on purpose, {rerecord}; otherwise this is a regression.\n{}",
            changed.join("\n  "),
            out.explain()
        ));
    }
    Ok(())
}

/// The declaration rows the live interop test asserts for an SDK agent:
/// each row its expected verdict (honoured but for the findings,
/// `interop::expected_row_over`), interfaces served, exit 0 (1 with a
/// finding).
fn assert_interop_rows(out: &Outcome, recording: Recording, what: &str) {
    let rows = verdicts(out, "declarations");
    assert!(
        rows.keys()
            .filter(|id| id.starts_with("interfaces["))
            .count()
            >= 2,
        "{what}: the SDK card declares at least a 1.0 and a 0.3 interface: {}",
        out.explain()
    );
    for (id, verdict) in &rows {
        assert_eq!(
            verdict,
            recording.expected_row(id),
            "{what}: {id}\n{}",
            out.explain()
        );
    }
    if recording.binding == "grpc" {
        // The gRPC interface the run spoke is declared, and judged above.
        let interface = format!("interfaces[GRPC {}]", recording.version);
        assert!(rows.contains_key(&interface), "{what}: {}", out.explain());
    }
    if recording.expected_row(PYTHON_GRPC_1_0_ROW) == "diverged" {
        // Diverged for the interop test's reason: the 0.5 call was served.
        let message = out.run("version-unsupported-refused")["message"]
            .as_str()
            .unwrap_or("");
        assert!(message.contains("was served"), "{what}: {}", out.explain());
    }
    let findings = rows
        .keys()
        .filter(|id| recording.expected_row(id) == "diverged")
        .count();
    let counts = &out.report()["summary"]["declarations"];
    assert_eq!(counts["diverged"], findings, "{what}: {}", out.explain());
    // The rows an SDK leaves unverified by a known finding (a broken SHOULD).
    let warned = rows
        .keys()
        .filter(|id| recording.expected_row(id) == "unverified")
        .count();
    assert_eq!(counts["unverified"], warned, "{what}: {}", out.explain());
    let code = if findings == 0 { 0 } else { 1 };
    assert_eq!(out.code, code, "{what}: {}", out.explain());
}

/// Re-judges one cassette and asserts the recorded table.
fn assert_rejudges_to_the_recording(recording: Recording) {
    let what = recording.name();
    let cassette = recording.cassette();
    let out = recording.rejudge(&[]);
    if let Err(message) = compare_with_recording(&cassette, &out, &what) {
        panic!("{message}");
    }
    assert_interop_rows(&out, recording, &what);
    let peer = &out.report()["peers"][0];
    assert_eq!(peer["protocol_version"], recording.version, "{what}");
    assert_eq!(peer["binding"], recording.binding, "{what}");
}

fn recording(sdk: Sdk, binding: &str, version: &str) -> Recording {
    *RECORDINGS
        .iter()
        .find(|r| r.sdk == sdk && r.binding == binding && r.version == version)
        .expect("a listed recording")
}

#[test]
fn python_jsonrpc_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "jsonrpc", "1.0"));
}

#[test]
fn python_jsonrpc_v0_3_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "jsonrpc", "0.3"));
}

#[test]
fn python_rest_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "rest", "1.0"));
}

#[test]
fn python_rest_v0_3_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "rest", "0.3"));
}

#[test]
fn js_jsonrpc_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Js, "jsonrpc", "1.0"));
}

#[test]
fn js_jsonrpc_v0_3_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Js, "jsonrpc", "0.3"));
}

#[test]
fn js_rest_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Js, "rest", "1.0"));
}

#[test]
fn js_rest_v0_3_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Js, "rest", "0.3"));
}

#[test]
fn python_grpc_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "grpc", "1.0"));
}

#[test]
fn python_grpc_v0_3_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Python, "grpc", "0.3"));
}

#[test]
fn js_grpc_v1_0_cassette_rejudges_to_its_recorded_table() {
    assert_rejudges_to_the_recording(recording(Sdk::Js, "grpc", "1.0"));
}

#[test]
fn a_changed_scenario_fails_the_cassette_test_naming_the_re_record_command() {
    // The suite changed: the input prompt is another text, so the runs that
    // send it are not in the recording. The comparison must refuse that,
    // not pass on the runs that are left.
    let recording = recording(Sdk::Python, "jsonrpc", "1.0");
    let cassette = recording.cassette();
    let changed = recording.rejudge(&[
        "--var",
        "prompt_input_required=need-input but worded otherwise",
    ]);
    let message = compare_with_recording(&cassette, &changed, "changed")
        .expect_err("a changed scenario must fail the comparison");
    assert!(message.contains(RECORD_COMMAND), "{message}");
    assert!(message.contains("not in the recording"), "{message}");
    assert!(
        verdicts(&changed, "declarations")
            .values()
            .any(|v| v == "unverified"),
        "the changed runs' rows read unverified: {}",
        changed.explain()
    );
}

/// Checks a `replay` of one cassette, with the recorded variables, and
/// asserts the recorded table, with no replay miss.
fn assert_replay_gives_the_recording(recording: Recording) {
    let what = format!("replay of {}", recording.name());
    let cassette = recording.cassette();
    let replay = start_replay(&recording.path(), &[]);
    // The recorded variables, as `rejudge` takes them from the header.
    let vars: Vec<String> = cassette.header.options["vars"]
        .as_object()
        .expect("recorded vars")
        .iter()
        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
        .collect();
    let mut args = vec!["check", replay.card.as_str()];
    for var in &vars {
        args.extend(["--var", var.as_str()]);
    }
    args.extend_from_slice(&recording.flags());
    let out = run(&args);
    if let Err(message) = compare_with_recording(&cassette, &out, &what) {
        panic!("{message}");
    }
    assert!(
        !out.report().to_string().contains("replay miss"),
        "{what}: {}",
        out.explain()
    );
    assert_interop_rows(&out, recording, &what);
    assert_eq!(
        out.report()["peers"][0]["binding"],
        recording.binding,
        "{what}"
    );
}

#[test]
fn a_replay_of_the_python_jsonrpc_v1_0_cassette_gives_the_recorded_table() {
    assert_replay_gives_the_recording(recording(Sdk::Python, "jsonrpc", "1.0"));
}

#[test]
fn a_replay_of_the_python_grpc_v1_0_cassette_gives_the_recorded_table() {
    // Over the replay's gRPC interface (the replayed card points it there),
    // finding included: the recorded answer to the 0.5 call is served again.
    assert_replay_gives_the_recording(recording(Sdk::Python, "grpc", "1.0"));
}

/// Re-records every cassette of [`RECORDINGS`] (those [`RECORD_ONLY`]
/// names, when set) against a fresh SDK agent each, with the interop tests'
/// variables; a recording is kept only when its check shows what the
/// interop test asserts.
#[test]
#[ignore = "starts the SDK peers and rewrites fixtures/cassettes/; run after a suite change"]
fn record_the_sdk_cassettes() {
    let only = std::env::var(RECORD_ONLY).unwrap_or_default();
    let chosen: Vec<&Recording> = RECORDINGS
        .iter()
        .filter(|r| r.name().contains(&only))
        .collect();
    // A filter that matches nothing must not pass as a recording made.
    assert!(
        !chosen.is_empty(),
        "{RECORD_ONLY}={only} names no recording"
    );
    for recording in chosen {
        let what = recording.name();
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("run.jsonl.gz");
        let agent = start(recording.sdk, recording.agent);
        let mut args = recording.flags().to_vec();
        args.extend(["--record", fresh.to_str().unwrap()]);
        let out = agent.check(&args);
        assert_interop_rows(&out, *recording, &format!("{what}\n{}", agent.log()));
        drop(agent);
        let cassette = Cassette::load(&fresh).unwrap_or_else(|e| panic!("{what}: {e}"));
        compare_with_recording(&cassette, &out, &what).unwrap_or_else(|m| panic!("{m}"));
        std::fs::create_dir_all(recording.path().parent().unwrap()).unwrap();
        std::fs::copy(&fresh, recording.path()).unwrap();
        let size = std::fs::metadata(recording.path()).unwrap().len();
        eprintln!("recorded {} ({size} bytes)", recording.path().display());
    }
}
