//! Each divergent behaviour's distinguishing trait.

use super::support::*;

use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, TaskState};
use serde_json::{json, Value};

#[tokio::test]
async fn input_overdeclared_refuses_a_declared_data_part_on_resume() {
    for version in VERSIONS {
        let p = start(version, Behaviour::InputOverdeclared).await;
        let waiting = p.send(message(version, "need-input"), true).await;
        let code = p
            .error_code(
                Operation::SendMessage,
                json!({"message": follow_up(data_message(version), &waiting)}),
            )
            .await;
        assert_eq!(code, codes::INVALID_PARAMS, "{version}");
        assert_eq!(state(&p.get(&waiting).await), TaskState::InputRequired);
        let resumed = p
            .send(follow_up(message(version, "text"), &waiting), true)
            .await;
        assert_eq!(state(&resumed), TaskState::Completed, "text still resumes");
    }
}

#[tokio::test]
async fn input_overdeclared_fails_turns_a_data_resume_into_failed() {
    for version in VERSIONS {
        let p = start(version, Behaviour::InputOverdeclaredFails).await;
        let waiting = p.send(message(version, "need-input"), true).await;
        let failed = p
            .send(follow_up(data_message(version), &waiting), true)
            .await;
        assert_eq!(state(&failed), TaskState::Failed, "{version}: {failed}");
        let note = failed["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(note.contains("unsupported input"), "{note}");
    }
}

#[tokio::test]
async fn stream_silent_sends_the_task_then_only_keep_alives_while_the_task_completes() {
    for (behaviour, keepalives) in [
        (Behaviour::StreamSilent, true),
        (Behaviour::StreamSilentNothing, false),
    ] {
        for version in VERSIONS {
            let p = start(version, behaviour).await;
            let mut sse = p.stream_message(message(version, "hello")).await;
            let Some(Ev::Task(task)) = sse.next().await else {
                panic!("task first")
            };
            let rest = sse.rest().await;
            assert!(
                rest.is_empty(),
                "{behaviour} {version}: no events after the Task: {rest:?}"
            );
            assert_eq!(
                sse.comments > 0,
                keepalives,
                "{behaviour}: {} comments",
                sse.comments
            );
            let later = p.get(&task).await;
            assert_eq!(
                state(&later),
                TaskState::Completed,
                "work goes on in the background"
            );
        }
    }
}

#[tokio::test]
async fn unstable_completion_changes_artifacts_after_completed() {
    for version in VERSIONS {
        let p = start(version, Behaviour::UnstableCompletion).await;
        let mut sse = p.stream_message(message(version, "hello")).await;
        let Some(Ev::Task(task)) = sse.next().await else {
            panic!("task first")
        };
        let events = sse.rest().await;
        assert!(matches!(
            events.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));
        // What the stream delivered before `completed`.
        let streamed: Vec<&Value> = events
            .iter()
            .filter_map(|e| match e {
                Ev::Artifact(a) => Some(&a["artifact"]),
                _ => None,
            })
            .collect();
        let result_id = streamed[0]["artifactId"].clone();
        let streamed_parts: Vec<Value> = streamed
            .iter()
            .flat_map(|a| a["parts"].as_array().cloned().unwrap_or_default())
            .collect();
        // Reads stay `completed` while the artifact set keeps changing.
        let later = within(WAIT, "artifacts change after completion", async {
            loop {
                let now = p.get(&task).await;
                assert_eq!(state(&now), TaskState::Completed, "{version}");
                let artifacts = now["artifacts"].as_array().cloned().unwrap_or_default();
                let rewritten = artifacts
                    .iter()
                    .any(|a| a["artifactId"] == result_id && a["parts"] != json!(streamed_parts));
                if artifacts.len() == 2 && rewritten {
                    return now;
                }
                tokio::time::sleep(INTERVAL / 2).await;
            }
        })
        .await;
        let ids: Vec<&Value> = later["artifacts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| &a["artifactId"])
            .collect();
        assert!(
            ids.contains(&&result_id),
            "{version}: result artifact kept its id"
        );
        assert_ne!(ids[0], ids[1], "{version}: an artifact was added");
    }
}

#[tokio::test]
async fn instant_tasks_are_completed_from_the_first_snapshot() {
    for version in VERSIONS {
        let p = start(version, Behaviour::Instant).await;
        let task = p.send(message(version, "hello"), false).await;
        assert_eq!(state(&task), TaskState::Completed, "{version}");
        assert_eq!(artifact_texts(&task).len(), CHUNKS as usize);
        let code = p
            .error_code(Operation::CancelTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::TASK_NOT_CANCELABLE);
        let mut sse = p.stream_message(message(version, "hello")).await;
        let Some(Ev::Task(first)) = sse.next().await else {
            panic!("task first")
        };
        assert_eq!(state(&first), TaskState::Completed);
        let rest = sse.rest().await;
        match version {
            ProtocolVersion::V1_0 => assert!(rest.is_empty(), "{rest:?}"),
            ProtocolVersion::V0_3 => {
                let [Ev::Status(TaskState::Completed, s)] = rest.as_slice() else {
                    panic!("v0.3 ends with a final status: {rest:?}")
                };
                assert_eq!(s["final"], true);
            }
        }
    }
}

#[tokio::test]
async fn undeclared_streaming_serves_streams_and_refused_answers_unsupported() {
    for version in VERSIONS {
        let p = start(version, Behaviour::UndeclaredStreaming).await;
        let mut sse = p.stream_message(message(version, "hello")).await;
        assert!(matches!(sse.next().await, Some(Ev::Task(_))));
        assert!(matches!(
            sse.rest().await.last(),
            Some(Ev::Status(TaskState::Completed, _))
        ));

        let p = start(version, Behaviour::UndeclaredStreamingRefused).await;
        let code = p
            .error_code(
                Operation::SendStreamingMessage,
                json!({"message": message(version, "x")}),
            )
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION, "{version}");
        let task = p.send(message(version, "need-input"), true).await;
        let code = p
            .error_code(Operation::SubscribeToTask, json!({"id": task["id"]}))
            .await;
        assert_eq!(code, codes::UNSUPPORTED_OPERATION);
    }
}
