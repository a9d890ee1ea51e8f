//! Property tests over what a peer or a file chooses: the SSE parser, the
//! card parser, duration arithmetic and the YAML loaders. Arbitrary input
//! never panics; the SSE parser also reads the same items however the bytes
//! are split, and never holds more than its cap.

use a2a_conform::profile::Profile;
use a2a_conform_client::sse::{SseItem, SseParser};
use a2a_conform_engine::scenario::vars::{format_duration, parse_duration};
use a2a_conform_engine::scenario::Suite;
use a2a_conform_protocol::card::{parse_card, BindingChoice, ProtocolChoice};
use a2a_conform_protocol::text::human_duration;
use a2a_conform_report::baseline::Baseline;
use proptest::prelude::*;
use serde_json::json;
use std::time::Duration;

/// Bytes that look like an event stream often enough to reach every branch.
fn sse_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data: ".to_vec()),
        Just(b"data".to_vec()),
        Just(b"event: x".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"id: a\0b".to_vec()),
        Just(b"retry: 99999999999999999999999".to_vec()),
        Just(b"retry: 10".to_vec()),
        Just(b": keep-alive".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just("é€😀".as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..16),
    ];
    proptest::collection::vec(piece, 0..64).prop_map(|p| p.concat())
}

fn read_all(
    bytes: &[u8],
    cuts: &[usize],
    max: usize,
) -> (Result<Vec<SseItem>, String>, Option<String>) {
    let mut parser = SseParser::new(max);
    let mut items = Vec::new();
    let mut at = 0;
    let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    bounds.sort_unstable();
    bounds.push(bytes.len());
    for end in bounds {
        if end < at {
            continue;
        }
        match parser.feed(&bytes[at..end]) {
            Ok(more) => items.extend(more),
            Err(e) => return (Err(e.to_string()), parser.finish()),
        }
        at = end;
    }
    (Ok(items), parser.finish())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn sse_never_panics_and_reads_alike_however_split(
        bytes in sse_bytes(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let whole = read_all(&bytes, &[], 1 << 20);
        let split = read_all(&bytes, &cuts, 1 << 20);
        prop_assert_eq!(whole, split);
    }

    #[test]
    fn sse_keeps_to_its_cap_on_arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..4096),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
        max in 1usize..256,
    ) {
        let (items, _) = read_all(&bytes, &cuts, max);
        if let Ok(items) = items {
            for item in items {
                if let SseItem::Frame(frame) = item {
                    let held = frame.data.len()
                        + frame.event.map_or(0, |e| e.len())
                        + frame.id.map_or(0, |i| i.len());
                    prop_assert!(held <= max, "{} > {}", held, max);
                }
            }
        }
    }

    #[test]
    fn card_parsing_never_panics_on_arbitrary_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 0..512),
    ) {
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let _ = parse_card(&url, &bytes, ProtocolChoice::Auto, BindingChoice::Auto);
    }

    #[test]
    fn card_parsing_never_panics_on_peer_chosen_values(
        timeout in prop_oneof![
            any::<f64>().prop_map(|f| json!(f)),
            any::<i64>().prop_map(|n| json!(n)),
            any::<u64>().prop_map(|n| json!(n)),
            ".{0,12}".prop_map(|s| json!(s)),
            Just(json!(1e19)),
            Just(json!(-1)),
            Just(json!("1e19s")),
        ],
        modes in proptest::collection::vec(".{0,8}", 0..20),
        version in prop_oneof![Just("1.0"), Just("0.3"), Just(""), Just("99"), Just("1.0.0")],
        binding in prop_oneof![Just("JSONRPC"), Just("HTTP+JSON"), Just("GRPC"), Just("?")],
        skill_id in ".{0,6}",
        streaming in any::<Option<bool>>(),
    ) {
        let card = json!({
            "name": "p", "description": "d", "version": "1",
            "defaultTimeout": timeout,
            "supportedInterfaces": [{"url": "http://127.0.0.1:9/rpc", "protocolBinding": binding, "protocolVersion": version}],
            "capabilities": {"streaming": streaming, "defaultTimeout": timeout},
            "defaultInputModes": modes, "defaultOutputModes": modes,
            "skills": [{"id": skill_id, "name": "s", "description": "d", "tags": [], "inputModes": modes}, {"id": skill_id}]
        });
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        if let Ok(card) = parse_card(&url, card.to_string().as_bytes(), ProtocolChoice::Auto, BindingChoice::Auto) {
            for d in card.declarations() {
                let _ = card.is_declared(&d.id);
            }
            if let Some(t) = card.default_timeout {
                let _ = human_duration(t);
            }
        }
    }

    #[test]
    fn durations_never_panic(text in ".{0,24}", digits in "[0-9.]{0,30}(ms|s|m|h|)") {
        for t in [&text, &digits] {
            if let Ok(d) = parse_duration(t) {
                prop_assert!(d <= Duration::from_secs(86_400));
                // What the tool writes back, it reads back (to the millisecond).
                let again = parse_duration(&format_duration(d)).expect("a formatted duration parses");
                prop_assert!(again.abs_diff(d) < Duration::from_millis(1));
                let _ = human_duration(d);
            }
        }
    }

    #[test]
    fn human_duration_never_panics(secs in any::<u64>(), nanos in 0u32..1_000_000_000) {
        let _ = human_duration(Duration::new(secs, nanos));
        let _ = format_duration(Duration::new(secs, nanos));
    }

    #[test]
    fn yaml_loaders_never_panic_on_arbitrary_text(text in "(?s).{0,256}") {
        let _ = Suite::default().add("p.yaml", &text);
        let _ = Profile::parse("p.yaml", &text);
        let _ = Baseline::parse("p.yaml", &text);
    }

    #[test]
    fn the_suite_loader_never_panics_on_suite_shaped_yaml(
        id in "[a-z-]{0,8}",
        verifies in prop_oneof![Just("capabilities.streaming"), Just("skills[${skill}].inputModes[${mode}]"), Just("${nope}"), Just("x[")],
        when in prop_oneof![Just("capabilities.streaming"), Just("!capabilities.pushNotifications"), Just("!"), Just("")],
        within in prop_oneof![Just("1s"), Just("${probe_window}"), Just("1e30s"), Just("-1s"), Just("99999999999999999999"), Just("")],
        reads in prop_oneof![Just("2"), Just("0"), Just("999999999999"), Just("${stable_reads}"), Just("-3")],
        for_each in prop_oneof![Just("input_modes"), Just("interfaces"), Just("everything")],
    ) {
        let text = format!(
            "scenarios:\n  - id: {id}\n    title: t\n    verifies: [\"{verifies}\"]\n    when: \"{when}\"\n    for_each: {for_each}\n    steps:\n      - stream: {{ as: s, text: hi }}\n      - expect_event: {{ stream: s, within: \"{within}\" }}\n      - poll_until_stable: {{ task: s, reads: \"{reads}\", interval: \"{within}\" }}\n"
        );
        let _ = Suite::default().add("p.yaml", &text);
    }
}
