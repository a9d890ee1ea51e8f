//! The merge rule and the TTLs, on real files.

use super::*;

fn peer() -> PeerKey {
    PeerKey::new(
        "http://127.0.0.1:9/.well-known/agent-card.json",
        "sha256:aa",
    )
}

fn id(text: &str) -> DeclarationId {
    text.parse().expect("a declaration id")
}

#[test]
fn a_trust_from_a_stale_view_does_not_lift_a_demotion() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("cache.json");
    let stale = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    let fresh = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    fresh
        .demote(&peer(), &id("lifecycle.cancel"), "leaked", Vec::new())
        .expect("written");
    // `stale` never saw the demotion, and trusts the declaration later.
    stale
        .trust_now(&peer(), &id("lifecycle.cancel"))
        .expect("written");
    assert!(!stale.is_trusted(&peer(), &id("lifecycle.cancel")));
    let reread = CapabilityCache::open(&path, CacheOptions::default()).expect("opens");
    assert!(matches!(
        reread.trust(&peer(), &id("lifecycle.cancel")),
        Trust::Demoted(d) if d.reason == "leaked"
    ));
}

#[test]
fn lapsed_observations_read_unknown_and_leave_the_file() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("cache.json");
    let options = CacheOptions {
        demotion_ttl: Duration::ZERO,
        trust_ttl: Duration::ZERO,
        ..CacheOptions::default()
    };
    let cache = CapabilityCache::open(&path, options).expect("opens");
    cache
        .demote(&peer(), &id("capabilities.streaming"), "silent", Vec::new())
        .expect("written");
    assert_eq!(
        cache.trust(&peer(), &id("capabilities.streaming")),
        Trust::Unknown
    );
    let text = std::fs::read_to_string(&path).expect("the file");
    assert!(!text.contains("silent"), "{text}");
}

#[test]
fn a_changed_card_is_another_peer() {
    let cache = CapabilityCache::in_memory(CacheOptions::default());
    cache
        .demote(&peer(), &id("capabilities.streaming"), "silent", Vec::new())
        .expect("in memory");
    let changed = PeerKey::new(peer().card_url, "sha256:bb");
    assert!(cache.is_trusted(&changed, &id("capabilities.streaming")));
    assert_eq!(cache.demotions(&peer()).len(), 1);
    assert!(cache.demotions(&changed).is_empty());
}

#[test]
fn a_foreign_file_is_a_format_error_not_an_empty_cache() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("cache.json");
    std::fs::write(&path, r#"{"format": 9, "peers": []}"#).expect("written");
    let error = CapabilityCache::open(&path, CacheOptions::default()).expect_err("format 9");
    assert!(error.to_string().contains("format 9"), "{error}");
    std::fs::write(&path, "[1, 2]").expect("written");
    assert!(matches!(
        CapabilityCache::open(&path, CacheOptions::default()),
        Err(CacheError::Format { .. })
    ));
}

#[test]
fn trust_lasts_its_ttl() {
    let cache = CapabilityCache::in_memory(CacheOptions::default());
    cache
        .trust_now(&peer(), &id("capabilities.streaming"))
        .expect("in memory");
    assert!(matches!(
        cache.trust(&peer(), &id("capabilities.streaming")),
        Trust::Trusted { .. }
    ));
}
