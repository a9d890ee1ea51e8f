//! The card's revalidation against the mock, which serves its card with
//! `Cache-Control: max-age` and an `ETag` and answers `If-None-Match` with
//! 304: a fresh card is not asked for again, a lapsed one is revalidated
//! and keeps every cache entry, and a changed card resets its peer's.

use crate::support::{guard_with, options, peer};
use a2a_conform_client::ClientConfig;
use a2a_conform_guard::{CacheOptions, CapabilityCache, Guard, Revalidation};
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::{DeclarationId, MessagePart, ProtocolVersion, TaskState};
use std::time::Duration;

fn streaming() -> DeclarationId {
    "capabilities.streaming".parse().expect("a declaration id")
}

#[tokio::test]
async fn max_age_keeps_the_card_and_a_304_keeps_every_entry() {
    let peer = peer(
        Behaviour::Honest,
        ProtocolVersion::V1_0,
        2,
        Duration::from_millis(20),
    )
    .await;
    let cache = CapabilityCache::in_memory(CacheOptions::default());
    let mut guard = guard_with(&peer, cache).await;
    assert_eq!(guard.card_lifetime(), Duration::from_secs(300));
    guard
        .cache()
        .demote(guard.peer(), &streaming(), "silent", Vec::new())
        .expect("in memory");
    // Within max-age=300: no request at all.
    assert_eq!(
        guard.revalidate().await.expect("fresh"),
        Revalidation::Fresh
    );
    assert_eq!(peer.card_requests(), (1, 0));

    // The peer now serves max-age=0: the next refetch learns it, and from
    // then on every revalidation asks, with the ETag, and gets a 304.
    peer.set_card_max_age(0);
    assert_eq!(
        guard.refetch().await.expect("304"),
        Revalidation::NotModified
    );
    assert_eq!(guard.card_lifetime(), Duration::ZERO);
    assert_eq!(
        guard.revalidate().await.expect("304"),
        Revalidation::NotModified
    );
    assert_eq!(
        peer.card_requests(),
        (1, 2),
        "two 304s, no second full card"
    );
    assert!(
        !guard.cache().is_trusted(guard.peer(), &streaming()),
        "a 304 keeps the demotion"
    );
    peer.shutdown().await;
}

#[tokio::test]
async fn a_changed_card_resets_what_the_cache_held_for_its_peer() {
    let peer = peer(
        Behaviour::Honest,
        ProtocolVersion::V1_0,
        2,
        Duration::from_millis(20),
    )
    .await;
    peer.set_card_max_age(0);
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("cache.json");
    let cache = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    let mut guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, options())
        .await
        .expect("the mock's card");
    let before = guard.peer().clone();
    guard
        .cache()
        .demote(&before, &streaming(), "silent", Vec::new())
        .expect("written");

    peer.revise_card();
    let Revalidation::Changed { from, to, reset } = guard.revalidate().await.expect("a card")
    else {
        panic!("a revised card is a change");
    };
    assert_eq!((from, reset), (before.clone(), 1));
    assert_ne!(to.card_digest, before.card_digest);
    assert_eq!(guard.peer(), &to);
    assert!(guard.card().raw["description"]
        .as_str()
        .is_some_and(|d| d.contains("revision 1")));
    assert!(guard.cache().is_trusted(&to, &streaming()));
    // Gone from the file too: another process reads no demotion.
    let other = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    assert!(other.demotions(&before).is_empty());

    // The new card's guard still delivers, on the (now trusted) stream.
    let task = guard
        .open_task(&[MessagePart::Text("hello".into())])
        .await
        .expect("a task");
    assert!(task.is_streaming());
    assert_eq!(
        task.await_terminal().await.expect("done").state,
        TaskState::Completed
    );
    peer.shutdown().await;
}
