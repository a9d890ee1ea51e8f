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
