//! Task continuity: a follow-up to an `input-required` task answered by a
//! *new* task (another id) breaks the promise of continuing the task, with
//! the original left input-required or settled behind the check's back. The
//! input-mode rows are diverged, naming both ids and what a re-read of the
//! original found; the honest mock, which continues its tasks, stays honoured.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const INPUT_ROWS: [(&str, &str); 4] = [
    (
        "defaultInputModes[text/plain]",
        "input-mode-resume[text/plain]",
    ),
    (
        "defaultInputModes[application/json]",
        "input-mode-resume[application/json]",
    ),
    (
        "skills[echo].inputModes[text/plain]",
        "input-mode-resume[echo:text/plain]",
    ),
    (
        "skills[echo].inputModes[application/json]",
        "input-mode-resume[echo:application/json]",
    ),
];

/// Every input row is diverged, its run's message naming the new task, the
/// asked one and the state the re-read found; exit 1.
fn caught(behaviour: Behaviour, reread_state: &str) {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, behaviour);
        let out = check(&peer.card_url(), &[]);
        let cell = format!("{} × {version}", behaviour.name());
        assert_eq!(out.code, 1, "{cell}: {}", out.explain());
        for (row, run) in INPUT_ROWS {
            assert_eq!(out.declaration(row), "diverged", "{cell} {row}");
            let run = out.run(run);
            assert_eq!(run["verdict"], "fail", "{cell}: {run:#}");
            let message = run["message"].as_str().unwrap_or("");
            let (asked, other) =
                ids(message).unwrap_or_else(|| panic!("{cell}: no two task ids in {message:?}"));
            assert_ne!(asked, other, "{cell}: {message}");
            assert!(
                message.contains(&format!(
                    "a re-read of task {asked} (GetTask) found task state={reread_state}"
                )),
                "{cell}: the re-read of {asked} ({reread_state}) is not in {message:?}"
            );
            let evidence = run["evidence"].to_string();
            assert!(
                evidence.contains("GetTask") || evidence.contains("tasks/get"),
                "{cell}: the re-read is not in the evidence: {evidence}"
            );
        }
    }
}

/// `(asked, answered)` from "… answered with task X instead of Y …".
fn ids(message: &str) -> Option<(String, String)> {
    let (_, rest) = message.split_once("answered with task ")?;
    let (other, rest) = rest.split_once(" instead of ")?;
    let asked = rest.split([' ', ':']).next()?;
    Some((asked.to_string(), other.to_string()))
}

#[test]
fn a_new_task_answering_a_resume_is_caught_and_the_orphan_reads_input_required() {
    caught(Behaviour::ResumeNewTask, "input-required");
}

#[test]
fn a_new_task_answering_a_resume_is_caught_when_the_original_is_settled_too() {
    caught(Behaviour::ResumeNewTaskSettled, "completed");
}

#[test]
fn the_honest_peer_continues_its_tasks_and_every_input_row_is_honoured() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::Honest);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        for (row, run) in INPUT_ROWS {
            assert_eq!(out.declaration(row), "honoured", "{version} {row}");
            let message = out.run(run)["message"].as_str().unwrap_or("").to_string();
            assert!(!message.contains("instead of"), "{version}: {message}");
        }
    }
}

/// The reproduction line of a run that got another task is the request
/// that got it (the resume), not the re-read of the task asked.
#[test]
fn the_reproduction_of_a_forked_resume_is_the_resume_not_the_re_read() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::ResumeNewTask);
        let out = check(&peer.card_url(), &["--scenario", "input-mode-resume"]);
        let run = out.run("input-mode-resume[text/plain]");
        assert_eq!(run["verdict"], "fail", "{version}: {run:#}");
        let evidence = run["evidence"].as_array().expect("evidence");
        let last_curl = evidence
            .iter()
            .rev()
            .find_map(|e| e["curl"].as_str())
            .unwrap_or_else(|| panic!("{version}: no reproduction line: {run:#}"));
        let send = if version == ProtocolVersion::V1_0 {
            "SendMessage"
        } else {
            "message/send"
        };
        assert!(last_curl.contains(send), "{version}: {last_curl}");
        assert!(
            !last_curl.contains("GetTask") && !last_curl.contains("tasks/get"),
            "{version}: the reproduction is the re-read: {last_curl}"
        );
        // The resume it reproduces names the task asked (its taskId).
        let (asked, _) = ids(run["message"].as_str().unwrap_or("")).expect("two ids");
        assert!(last_curl.contains(&asked), "{version}: {last_curl}");
        assert!(
            out.stdout.contains("reproduce: curl")
                && !out.stdout.contains("\"method\":\"GetTask\""),
            "{version}: {}",
            out.stdout
        );
    }
}

/// A suite whose resume and subscribe open streams on the task named.
const STREAMED: &str = r#"
scenarios:
  - id: streamed-resume
    title: A streamed resume continues the task named
    verifies: ["defaultInputModes[text/plain]"]
    steps:
      - send: { as: t, text: "need-input" }
      - inconclusive_if: { of: t, not_state: [input-required], reason: "no input-required (${t.state})" }
      - resume: { task: t, stream: true, as: r }
      - expect_closed: { stream: r, within: 10s }
"#;

/// A resume sent on a stream is checked on the task its first event names:
/// a new task there fails the run as a plain answer does; the honest peer's
/// stream continues the task and passes.
#[test]
fn a_streamed_resume_answered_by_a_new_task_is_caught_on_its_first_event() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("streamed.yaml");
    std::fs::write(&suite, STREAMED).unwrap();
    let suite = suite.to_str().unwrap();
    let args = ["--suite", suite, "--no-default-suite"];
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::ResumeNewTask);
        let out = check(&peer.card_url(), &args);
        let run = out.run("streamed-resume");
        assert_eq!(run["verdict"], "fail", "{version}: {}", out.explain());
        let message = run["message"].as_str().unwrap_or("");
        let op = "SendStreamingMessage on task ";
        assert!(message.starts_with(op), "{version}: {message}");
        let (asked, other) = ids(message).expect("two ids");
        assert_ne!(asked, other, "{version}: {message}");
        assert!(
            message.contains("(GetTask) found task state=input-required"),
            "{version}: {message}"
        );
        assert_eq!(out.code, 1, "{version}: {}", out.explain());

        let honest = start_peer(version, Behaviour::Honest);
        let out = check(&honest.card_url(), &args);
        assert_eq!(
            out.scenario("streamed-resume"),
            "pass",
            "{version}: {}",
            out.explain()
        );
    }
}
