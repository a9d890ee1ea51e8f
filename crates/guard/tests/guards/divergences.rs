//! The guards against real mock peers on loopback, both protocol versions:
//! each divergence the guards exist for is caught, demoted and routed
//! around, and the honest peer, driven the same way, demotes nothing.

use crate::support::{guard, peer, requests, VERSIONS};
use a2a_conform_guard::{CancelOutcome, EventSource, GuardError, PartsSent, TaskEvent, Trust};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{DeclarationId, MessagePart, Operation, ProtocolVersion, TaskState};
use serde_json::json;
use std::time::Duration;

fn id(text: &str) -> DeclarationId {
    text.parse().expect("a declaration id")
}

fn text(t: &str) -> Vec<MessagePart> {
    vec![MessagePart::Text(t.into())]
}

#[tokio::test]
async fn a_silent_stream_is_demoted_and_the_task_delivered_by_polling() {
    for version in VERSIONS {
        let peer = peer(
            Behaviour::StreamSilent,
            version,
            3,
            Duration::from_millis(40),
        )
        .await;
        let guard = guard(&peer).await;
        let task = guard.open_task(&text("hello")).await.expect("a task");
        assert!(!task.is_streaming(), "{version}: the probe failed");
        let violation = &task.violations()[0];
        assert_eq!(
            violation.declaration,
            id("capabilities.streaming"),
            "{version}"
        );
        assert_eq!(violation.task.as_deref(), Some(task.task_id()));
        assert!(
            violation.reason.contains("probe window"),
            "{}",
            violation.reason
        );
        assert!(!violation.evidence.is_empty());
        let settled = task.await_terminal().await.expect("delivered by polling");
        assert_eq!(settled.state, TaskState::Completed, "{version}");
        assert!(!settled.task.artifacts.is_empty(), "{version}");

        // The next task goes straight to polling: no stream, no probe.
        let next = guard.open_task(&text("hello")).await.expect("a task");
        assert!(next.violations().is_empty() && !next.is_streaming());
        assert_eq!(
            requests(&next.exchanges(), version, Operation::SendStreamingMessage),
            0,
            "{version}: a demoted stream is not tried"
        );
        assert_eq!(
            next.await_terminal().await.expect("done").state,
            TaskState::Completed
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn an_honest_stream_is_trusted_and_yields_the_events() {
    for version in VERSIONS {
        let peer = peer(Behaviour::Honest, version, 3, Duration::from_millis(40)).await;
        let guard = guard(&peer).await;
        let mut task = guard.open_task(&text("hello")).await.expect("a task");
        assert!(
            task.is_streaming() && task.violations().is_empty(),
            "{version}"
        );
        let mut events = Vec::new();
        while let Some(event) = task.next_event().await.expect("bounded") {
            events.push(event);
        }
        assert!(
            events.iter().any(|e| matches!(
                e,
                TaskEvent::Artifact {
                    from: EventSource::Stream,
                    ..
                }
            )),
            "{version}: {events:?}"
        );
        assert_eq!(
            events.last(),
            Some(&TaskEvent::Status {
                state: TaskState::Completed,
                from: EventSource::Stream
            })
        );
        let settled = task.await_terminal().await.expect("stable");
        assert_eq!(settled.state, TaskState::Completed);
        assert!(settled.reads >= 2, "two reads, at least");
        assert!(matches!(
            guard
                .cache()
                .trust(guard.peer(), &id("capabilities.streaming")),
            Trust::Trusted { .. }
        ));
        assert!(
            guard.cache().demotions(guard.peer()).is_empty(),
            "{version}"
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn a_leaking_cancel_is_a_violation_naming_the_orphaned_task() {
    for version in VERSIONS {
        let peer = peer(
            Behaviour::CancelLeak,
            version,
            25,
            Duration::from_millis(40),
        )
        .await;
        let guard = guard(&peer).await;
        let mut task = guard.open_task(&text("hello")).await.expect("a task");
        assert!(task.is_streaming(), "{version}");
        while let Some(event) = task.next_event().await.expect("bounded") {
            if matches!(event, TaskEvent::Artifact { .. }) {
                break;
            }
        }
        let error = task.cancel_and_confirm().await.expect_err("a leak");
        let violation = error.violation().expect("a violation");
        assert_eq!(violation.declaration, id("lifecycle.cancel"), "{version}");
        assert_eq!(
            violation.task.as_deref(),
            Some(task.task_id()),
            "names the task"
        );
        assert!(
            violation.reason.contains("after the cancel"),
            "{}",
            violation.reason
        );
        assert!(!guard
            .cache()
            .is_trusted(guard.peer(), &id("lifecycle.cancel")));
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn an_honest_cancel_is_confirmed_on_a_stream_and_by_reads() {
    for version in VERSIONS {
        let peer = peer(Behaviour::Honest, version, 25, Duration::from_millis(40)).await;
        let guard = guard(&peer).await;
        let mut task = guard.open_task(&text("hello")).await.expect("a task");
        while let Some(event) = task.next_event().await.expect("bounded") {
            if matches!(event, TaskEvent::Artifact { .. }) {
                break;
            }
        }
        let outcome = task.cancel_and_confirm().await.expect("confirmed");
        assert!(
            matches!(&outcome, CancelOutcome::Confirmed { task, reads, .. }
                if task.state == Some(TaskState::Canceled) && *reads >= 2),
            "{version}: {outcome:?}"
        );
        // And without a stream: the reads alone.
        let second = guard.open_task(&text("hello")).await.expect("a task");
        let outcome = guard
            .cancel_and_confirm(second.task_id())
            .await
            .expect("confirmed");
        assert!(
            matches!(outcome, CancelOutcome::Confirmed { .. }),
            "{version}"
        );
        assert!(
            guard.cache().demotions(guard.peer()).is_empty(),
            "{version}"
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn a_finished_task_is_no_cancel_to_confirm() {
    let peer = peer(
        Behaviour::Instant,
        VERSIONS[0],
        2,
        Duration::from_millis(10),
    )
    .await;
    let guard = guard(&peer).await;
    let task = guard.open_task(&text("hello")).await.expect("a task");
    let outcome = task.cancel_and_confirm().await.expect("settled");
    assert!(
        matches!(&outcome, CancelOutcome::AlreadyTerminal(s) if s.state == TaskState::Completed),
        "{outcome:?}"
    );
    peer.shutdown().await;
}

#[tokio::test]
async fn a_completed_task_that_changes_is_a_violation() {
    for version in VERSIONS {
        // Changes 80, 160 and 240 ms after completion; reads 100 ms apart.
        let peer = peer(
            Behaviour::UnstableCompletion,
            version,
            2,
            Duration::from_millis(80),
        )
        .await;
        let guard = guard(&peer).await;
        let task = guard.open_task(&text("hello")).await.expect("a task");
        let error = task.await_terminal().await.expect_err("unstable");
        let violation = error.violation().expect("a violation");
        assert_eq!(
            violation.declaration,
            id("lifecycle.completion"),
            "{version}"
        );
        assert!(
            violation.reason.contains("completed task changed"),
            "{}",
            violation.reason
        );
        assert!(!guard
            .cache()
            .is_trusted(guard.peer(), &id("lifecycle.completion")));

        let honest =
            crate::support::peer(Behaviour::Honest, version, 2, Duration::from_millis(80)).await;
        let guard = crate::support::guard(&honest).await;
        let task = guard.open_task(&text("hello")).await.expect("a task");
        let settled = task.await_terminal().await.expect("stable");
        assert_eq!(settled.state, TaskState::Completed, "{version}");
        assert!(guard.cache().demotions(guard.peer()).is_empty());
        peer.shutdown().await;
        honest.shutdown().await;
    }
}

/// Opens a task that asks for input and waits until it does.
async fn waiting_task(guard: &a2a_conform_guard::Guard) -> String {
    let task = guard.open_task(&text("need-input")).await.expect("a task");
    let settled = task.await_terminal().await.expect("interrupted");
    assert_eq!(settled.state, TaskState::InputRequired);
    assert!(settled.is_interrupted());
    task.task_id().to_string()
}

#[tokio::test]
async fn a_refused_mode_is_demoted_and_the_fallback_used_next() {
    for version in VERSIONS {
        let peer = peer(
            Behaviour::InputOverdeclared,
            version,
            2,
            Duration::from_millis(30),
        )
        .await;
        let guard = guard(&peer).await;
        let data = vec![MessagePart::Data(json!({"answer": 42}))];
        let fallback = text("42");
        let json_mode = id("defaultInputModes[application/json]");

        let first = waiting_task(&guard).await;
        let resumed = guard
            .resume(&first, &data, Some(&fallback))
            .await
            .expect("the fallback went at once");
        assert_eq!(resumed.sent, PartsSent::Fallback, "{version}");
        assert_eq!(resumed.violations[0].declaration, json_mode);
        assert!(
            resumed.violations[0].reason.contains("-32602"),
            "{}",
            resumed.violations[0].reason
        );
        assert!(!guard.cache().is_trusted(guard.peer(), &json_mode));
        assert_eq!(
            guard.await_terminal(&first).await.expect("done").state,
            TaskState::Completed
        );

        // The next resume sends the fallback without trying the data part.
        let second = waiting_task(&guard).await;
        let resumed = guard
            .resume(&second, &data, Some(&fallback))
            .await
            .expect("resumed");
        assert_eq!(resumed.sent, PartsSent::Fallback, "{version}");
        assert!(resumed.violations.is_empty());
        assert_eq!(
            requests(&resumed.exchanges, version, Operation::SendMessage),
            1
        );
        assert_eq!(
            guard.await_terminal(&second).await.expect("done").state,
            TaskState::Completed
        );

        // With no fallback there is nothing the peer takes.
        let third = waiting_task(&guard).await;
        let error = guard
            .resume(&third, &data, None)
            .await
            .expect_err("refused before");
        assert!(
            matches!(error, GuardError::NoAcceptedMode { .. }),
            "{error}"
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn a_task_failing_on_resume_demotes_the_mode() {
    for version in VERSIONS {
        let peer = peer(
            Behaviour::InputOverdeclaredFails,
            version,
            2,
            Duration::from_millis(30),
        )
        .await;
        let guard = guard(&peer).await;
        let task = waiting_task(&guard).await;
        let data = vec![MessagePart::Data(json!({"answer": 42}))];
        let error = guard
            .resume(&task, &data, Some(&text("42")))
            .await
            .expect_err("failed");
        let violation = error.violation().expect("a violation");
        assert_eq!(
            violation.declaration,
            id("defaultInputModes[application/json]")
        );
        assert!(
            violation.reason.contains("failed"),
            "{version}: {}",
            violation.reason
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn an_honest_resume_sends_the_declared_mode_and_trusts_it() {
    for version in VERSIONS {
        let peer = peer(Behaviour::Honest, version, 2, Duration::from_millis(30)).await;
        let guard = guard(&peer).await;
        let task = waiting_task(&guard).await;
        let data = vec![MessagePart::Data(json!({"answer": 42}))];
        let resumed = guard
            .resume(&task, &data, Some(&text("42")))
            .await
            .expect("resumed");
        assert_eq!(resumed.sent, PartsSent::Primary, "{version}");
        assert!(resumed.violations.is_empty());
        assert!(matches!(
            guard
                .cache()
                .trust(guard.peer(), &id("defaultInputModes[application/json]")),
            Trust::Trusted { .. }
        ));
        assert_eq!(
            guard.await_terminal(&task).await.expect("done").state,
            TaskState::Completed
        );
        assert!(
            guard.cache().demotions(guard.peer()).is_empty(),
            "{version}"
        );
        peer.shutdown().await;
    }
}

#[tokio::test]
async fn the_guards_speak_http_json_too() {
    use a2a_conform_client::card_fetch::fetch_card;
    use a2a_conform_client::{ClientConfig, Redactor};
    use a2a_conform_guard::{CacheOptions, CapabilityCache, Guard};
    use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
    use a2a_conform_protocol::Binding;

    for version in VERSIONS {
        for behaviour in [Behaviour::StreamSilent, Behaviour::CancelLeak] {
            let peer = peer(behaviour, version, 25, Duration::from_millis(40)).await;
            let config = ClientConfig::default();
            let rest = BindingChoice::Force(Binding::Rest);
            let card = fetch_card(
                &peer.card_url(),
                &config,
                ProtocolChoice::Auto,
                rest,
                &Redactor::default(),
            )
            .await
            .expect("the card");
            assert_eq!(card.binding(), Binding::Rest);
            let cache = CapabilityCache::in_memory(CacheOptions::default());
            let guard =
                Guard::new(card, config, cache, crate::support::options()).expect("a guard");
            let mut task = guard.open_task(&text("hello")).await.expect("a task");
            if behaviour == Behaviour::StreamSilent {
                assert!(!task.is_streaming(), "{version}");
                assert_eq!(
                    task.violations()[0].declaration,
                    id("capabilities.streaming")
                );
                let settled = task.await_terminal().await.expect("by polling");
                assert_eq!(settled.state, TaskState::Completed, "{version}");
            } else {
                assert!(task.is_streaming(), "{version}");
                while let Some(event) = task.next_event().await.expect("bounded") {
                    if matches!(event, TaskEvent::Artifact { .. }) {
                        break;
                    }
                }
                let error = task.cancel_and_confirm().await.expect_err("a leak");
                assert_eq!(
                    error.violation().expect("a violation").declaration,
                    id("lifecycle.cancel")
                );
            }
            peer.shutdown().await;
        }
    }
}

#[tokio::test]
async fn a_refused_undeclared_mode_is_no_violation_and_its_exchange_is_kept() {
    // The mock declares text/plain and application/json input, and refuses
    // any other media type with -32005: its valid answer.
    let peer = peer(
        Behaviour::Honest,
        ProtocolVersion::V1_0,
        2,
        Duration::from_millis(20),
    )
    .await;
    let guard = guard(&peer).await;
    let photo = MessagePart::File {
        media_type: "image/png".into(),
        base64: "iVBORw0KGgo=".into(),
        name: "photo.png".into(),
    };
    let error = guard
        .open_task(&[photo])
        .await
        .err()
        .expect("the peer refuses image/png");
    let GuardError::UndeclaredMode {
        modes,
        declared,
        reason,
    } = &error
    else {
        panic!("not an undeclared mode: {error}");
    };
    assert_eq!(modes, &["image/png".to_string()]);
    assert!(
        declared.contains(&"application/json".to_string()),
        "{declared:?}"
    );
    assert!(reason.contains("-32005"), "{reason}");
    assert!(guard.cache().demotions(guard.peer()).is_empty());
    // The failed operation's exchanges are still there, then taken.
    let exchanges = guard.take_exchanges();
    // One message, on the probed stream the card declares, refused.
    assert_eq!(
        requests(
            &exchanges,
            ProtocolVersion::V1_0,
            Operation::SendStreamingMessage
        ),
        1
    );
    assert!(guard.take_exchanges().is_empty());

    // The honest pair: a declared mode goes through, and is trusted.
    let task = guard
        .open_task(&[MessagePart::Data(json!({"a": 1}))])
        .await
        .expect("a declared mode");
    assert_eq!(
        task.await_terminal().await.expect("done").state,
        TaskState::Completed
    );
    assert!(matches!(
        guard
            .cache()
            .trust(guard.peer(), &id("defaultInputModes[application/json]")),
        Trust::Trusted { .. }
    ));
    peer.shutdown().await;
}
