//! What the guard tests share: a mock peer paced for tests, and a guard on
//! it with short, bounded waits.

use a2a_conform_client::ClientConfig;
use a2a_conform_client::{Record, RecordKind};
use a2a_conform_guard::{CacheOptions, CapabilityCache, Guard, GuardOptions};
use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::{Operation, ProtocolVersion};
use std::time::Duration;

/// Both versions the guards speak.
pub const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

/// A mock peer whose tasks take `chunks` × `interval`.
pub async fn peer(
    behaviour: Behaviour,
    protocol: ProtocolVersion,
    chunks: u32,
    interval: Duration,
) -> MockPeer {
    MockPeer::start(MockConfig {
        protocol,
        behaviour,
        timing: MockTiming {
            chunks,
            chunk_interval: interval,
            keepalive_interval: Duration::from_millis(50),
            silence: Duration::from_secs(5),
        },
        ..MockConfig::default()
    })
    .await
    .expect("the mock peer starts")
}

/// Short waits: reads every 100 ms, a 1 s probe (a first event late by a
/// loaded machine's stall is no silent stream), 10 s at most.
pub fn options() -> GuardOptions {
    GuardOptions {
        poll_interval: Duration::from_millis(100),
        max_wait: Duration::from_secs(10),
        probe_window: Some(Duration::from_secs(1)),
        quiet_window: Duration::from_millis(500),
        streaming: true,
    }
}

/// A guard on `peer` with its own cache in memory.
pub async fn guard(peer: &MockPeer) -> Guard {
    guard_with(peer, CapabilityCache::in_memory(CacheOptions::default())).await
}

/// A guard on `peer` sharing `cache`.
pub async fn guard_with(peer: &MockPeer, cache: CapabilityCache) -> Guard {
    Guard::connect(&peer.card_url(), ClientConfig::default(), cache, options())
        .await
        .expect("the mock's card")
}

/// How many requests of `op` the exchanges hold.
pub fn requests(exchanges: &[Record], version: ProtocolVersion, op: Operation) -> usize {
    let method = version.method(op).expect("the version has the method");
    exchanges
        .iter()
        .filter(|r| r.kind == RecordKind::Request && r.summary.contains(&format!(" {method} ")))
        .count()
}
