//! Broken streams and repeated card keys (issue 20, item 7): a stream reset
//! mid-way is an `error` of kind `stream-reset` in every run that reads it,
//! never a fail, while the honest peer's clean closes keep their verdicts;
//! a card repeating a key is read with a warning naming the key's path.

use crate::common::*;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;

const STREAM_RUNS: [&str; 3] = [
    "streaming-probe",
    "cancel-then-stream",
    "completion-stream-quiet",
];

#[test]
fn a_reset_stream_is_a_stream_reset_error_and_a_clean_close_is_judged() {
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let peer = start_peer(version, Behaviour::StreamReset);
        let out = check(&peer.card_url(), &[]);
        assert_eq!(out.code, 3, "{version}: {}", out.explain());
        for id in STREAM_RUNS {
            let run = out.run(id);
            assert_eq!(run["verdict"], "error", "{version} {id}: {run:#}");
            assert_eq!(run["error_kind"], "stream-reset", "{version} {id}");
        }
        let honest = start_peer(version, Behaviour::Honest);
        let out = check(&honest.card_url(), &[]);
        assert_eq!(out.code, 0, "{version}: {}", out.explain());
        for id in STREAM_RUNS {
            assert_eq!(out.scenario(id), "pass", "{version} {id}");
        }
    }
}

#[test]
fn a_card_repeating_keys_warns_with_their_paths_and_an_honest_card_does_not() {
    let peer = start_peer(ProtocolVersion::V1_0, Behaviour::CardDuplicateKeys);
    let out = run(&["card", &peer.card_url()]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stdout
            .contains("repeats key(s) `name`, `capabilities.streaming`"),
        "{}",
        out.stdout
    );
    let honest = start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let out = run(&["card", &honest.card_url()]);
    assert!(!out.stdout.contains("repeats key"), "{}", out.stdout);
}
