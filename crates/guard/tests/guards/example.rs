//! `examples/orchestrator.rs`, run as it is: several peers behind one
//! persisted cache, and the stream-silent peer's route changing between
//! its first task (probed, demoted, polled) and its second (polled at once).

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_orchestrator_shows_a_demotion_changing_the_route() {
    let mut out = Vec::new();
    crate::orchestrator::run(&mut out)
        .await
        .expect("the example runs against its mock peers");
    let text = String::from_utf8(out).expect("UTF-8 output");
    assert!(
        text.contains(
            "route changed for stream-silent (v1.0): probe failed, then polling on round 1, \
             polling (streaming demoted in the cache) on round 2"
        ),
        "{text}"
    );
    assert_eq!(
        text.matches("demoted: capabilities.streaming").count(),
        1,
        "demoted once, on round 1 only: {text}"
    );
    assert!(!text.contains("route changed for honest"), "{text}");
    assert_eq!(text.matches("outcome: completed").count(), 6, "{text}");
}
