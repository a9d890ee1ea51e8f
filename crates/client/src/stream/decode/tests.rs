//! The fast reading of a frame either declines it or reads what the
//! lenient reading reads: on the common shapes, on unusual ones, and on
//! frames generated from the keys and values both readings look at.

use super::*;
use a2a_conform_protocol::TaskState;
use proptest::prelude::*;

const V1: ProtocolVersion = ProtocolVersion::V1_0;

/// The fast reading of a frame, after checking it agrees with the lenient one.
fn fast(expect_id: Option<u64>, event_name: Option<&str>, data: &str) -> Option<Event> {
    let fast = a2a_conform_protocol::wire::stream_event(expect_id, event_name, data);
    let lenient = lenient_frame(V1, expect_id, event_name, data);
    if let Some(event) = &fast {
        assert_eq!(event, &lenient, "the two readings differ on {data}");
    }
    fast
}

#[test]
fn common_frames_are_read_the_fast_way() {
    let frames = [
        r#"{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a","parts":[{"text":"xyz"}]}}}}"#,
        r#"{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-01T00:00:00Z"}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}]}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"status-update","taskId":"t","status":{"state":"completed"},"final":true}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update","taskId":"t\u00e9","artifact":{"artifactId":"a\"b","parts":[]},"lastChunk":true}}"#,
        r#"{"statusUpdate":{"taskId":"t","status":{"state":3}}}"#,
        r#"{"artifactUpdate":{"taskId":"t","artifact":{"parts":[{"data":{"deep":[1,2.5,null,true]}}]}}}"#,
    ];
    let read: Vec<_> = frames
        .iter()
        .map(|data| fast(Some(1), None, data).unwrap_or_else(|| panic!("declined: {data}")))
        .collect();
    assert_eq!(
        read[0],
        Event::ArtifactUpdate {
            task_id: Some("t".into()),
            artifact_id: Some("a".into()),
            append: true,
            last_chunk: false,
            generation: None,
        }
    );
    assert_eq!(read[1].state(), Some(TaskState::Working));
    assert_eq!(read[2], Event::Message { task_id: None });
    assert!(read[3].is_final());
    assert_eq!(
        read[4],
        Event::ArtifactUpdate {
            task_id: Some("té".into()),
            artifact_id: Some("a\"b".into()),
            append: false,
            last_chunk: true,
            generation: None,
        }
    );
    assert_eq!(read[5].state(), Some(TaskState::Completed));
    assert_eq!(read[6].kind(), "artifact-update");
}

#[test]
fn unusual_frames_are_left_to_the_lenient_reading() {
    let deep = format!(
        r#"{{"statusUpdate":{{"taskId":"t","metadata":{}1{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let declined = [
        // The lenient reading refuses these (too deep; a number out of range).
        deep.as_str(),
        r#"{"statusUpdate":{"taskId":"t","metadata":1e400}}"#,
        // Read differently by the lenient reading, or by the envelope check.
        r#"{"jsonrpc":"2.0","id":2,"result":{"statusUpdate":{"taskId":"t"}}}"#,
        r#"{"jsonrpc":"2.0","id":1.0,"result":{"statusUpdate":{"taskId":"t"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","status":{"state":"working"}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"a"},"artifactUpdate":{"taskId":"b"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"a","taskId":"b"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":7,"final":null}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"status":{"state":null}}}}"#,
        // The 1.1 draft's generation, a string or a number, is read leniently.
        r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"},"generation":"2"}}"#,
        r#"{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a"},"generation":3}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"task","id":"t"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"kind":"nonsense"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":["statusUpdate"]}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":null}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"statusUpdate":{"taskId":"t"}} trailing"#,
        r#"{"statusUpdate":{"taskId":"\ud800"}}"#,
        r#"[1, 2]"#,
        "not json",
    ];
    for data in declined {
        assert_eq!(fast(Some(1), None, data), None, "read the fast way: {data}");
    }
    let generations: Vec<Option<i64>> = declined
        .iter()
        .filter(|data| data.contains("\"generation\""))
        .map(|data| lenient_frame(V1, None, None, data).generation())
        .collect();
    assert_eq!(generations, [Some(2), Some(3)]);
    // An `event: error` frame is the lenient reading's to judge.
    let plain = r#"{"statusUpdate":{"taskId":"t"}}"#;
    assert!(fast(None, None, plain).is_some());
    assert_eq!(fast(None, Some("error"), plain), None);
}

/// A JSON value of the kinds a frame's fields might hold, right or wrong.
fn leaf() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        r#""t""#,
        r#""a\u0062""#,
        r#""""#,
        r#""working""#,
        r#""TASK_STATE_COMPLETED""#,
        r#""status-update""#,
        r#""artifact-update""#,
        r#""message""#,
        r#""task""#,
        r#""2.0""#,
        r#""1""#,
        "1",
        "2",
        "3",
        "-1",
        "1.0",
        "1e400",
        "18446744073709551615",
        "null",
        "true",
        "false",
        "{}",
        "[]",
        r#"[{"text":"x"},1]"#,
    ])
    .prop_map(str::to_string)
}

/// The keys either reading looks at, and one neither does.
fn key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "jsonrpc",
        "id",
        "result",
        "error",
        "kind",
        "task",
        "message",
        "statusUpdate",
        "artifactUpdate",
        "taskId",
        "status",
        "state",
        "final",
        "artifact",
        "artifactId",
        "append",
        "lastChunk",
        "code",
        "parts",
    ])
}

/// Objects (and now and then arrays) of those keys, nested a few deep.
fn value() -> impl Strategy<Value = String> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            3 => prop::collection::vec((key(), inner.clone()), 0..6).prop_map(|entries| {
                let body: Vec<String> = entries
                    .into_iter()
                    .map(|(k, v)| format!("\"{k}\":{v}"))
                    .collect();
                format!("{{{}}}", body.join(","))
            }),
            1 => prop::collection::vec(inner, 0..3).prop_map(|items| format!("[{}]", items.join(","))),
        ]
    })
}

/// A value of the type the fast reading expects under `key`.
fn typed(key: &str) -> BoxedStrategy<String> {
    let pick = |values: &[&str]| {
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        prop::sample::select(values).boxed()
    };
    match key {
        "taskId" | "kind" | "artifactId" => pick(&[r#""t""#, r#""a\"b""#, r#""message""#]),
        "status" => pick(&[
            r#"{"state":"working"}"#,
            r#"{"state":"TASK_STATE_FAILED","message":{"parts":[]}}"#,
            r#"{"state":3}"#,
            r#"{"timestamp":"now"}"#,
        ]),
        "artifact" => pick(&[
            r#"{"artifactId":"a","parts":[{"text":"x"}]}"#,
            r#"{"parts":[{"data":{"k":[1,2]}}],"name":"n"}"#,
        ]),
        "final" | "append" | "lastChunk" => pick(&["true", "false"]),
        _ => value().boxed(),
    }
}

/// A field of an event body: mostly of the expected type, now and then not.
fn body_field() -> impl Strategy<Value = String> {
    key().prop_flat_map(|key| {
        prop_oneof![3 => typed(key), 1 => value()].prop_map(move |v| format!("\"{key}\":{v}"))
    })
}

/// A frame close to a common one: an envelope (or not) around a result in
/// either shape, its fields right or wrong.
fn near_common() -> impl Strategy<Value = String> {
    let body = prop::collection::vec(body_field(), 0..5);
    let kind = prop::sample::select(vec![
        "\"kind\":\"status-update\",",
        "\"kind\":\"artifact-update\",",
        "\"kind\":\"message\",",
        "",
    ]);
    let wrapper = prop::sample::select(vec!["statusUpdate", "artifactUpdate", "message"]);
    let envelope = prop::sample::select(vec![
        r#""jsonrpc":"2.0","id":1,"#,
        r#""jsonrpc":"2.0","id":"1","#,
        r#""jsonrpc":"2.0","id":2,"#,
        r#""id":1,"#,
        "",
    ]);
    (envelope, kind, wrapper, body, any::<bool>()).prop_map(
        |(envelope, kind, wrapper, body, wrapped)| {
            let fields = body.join(",");
            let result = if wrapped {
                format!("{{\"{wrapper}\":{{{fields}}}}}")
            } else {
                format!("{{{kind}{fields}}}").replace(",}", "}")
            };
            if envelope.is_empty() {
                result
            } else {
                format!("{{{envelope}\"result\":{result}}}")
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn both_readings_agree(
        data in prop_oneof![3 => near_common(), 1 => value()],
        expect_id in prop::option::of(1u64..3),
        event_name in prop::sample::select(vec![None, Some("error"), Some("message")]),
    ) {
        fast(expect_id, event_name, &data);
    }
}

/// A 1.1 draft event's description names its generation after its kind;
/// one without a generation reads as before.
#[test]
fn a_generation_is_described_after_the_kind() {
    let data =
        r#"{"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a"},"generation":"4"}}"#;
    let event = lenient_frame(V1, None, None, data);
    assert_eq!(
        describe(&event),
        "artifact-update generation=4 artifactId=a"
    );
    let plain = lenient_frame(
        V1,
        None,
        None,
        r#"{"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_WORKING"}}}"#,
    );
    assert_eq!(describe(&plain), "status-update state=working");
}
