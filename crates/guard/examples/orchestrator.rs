//! An orchestrator that delegates through the guards: one task to each of
//! several peers, two rounds, every guard sharing one capability cache
//! persisted to a file (each round opens it anew, as the next process
//! would). A peer whose card declares streaming but whose streams fall
//! silent is probed on the first round, demoted, and its task delivered by
//! polling; on the second round the cache routes it straight to polling,
//! with no stream and no probe.
//!
//! Run it with no arguments: it starts its own mock peers on 127.0.0.1.
//!
//! ```console
//! $ cargo run -p a2a-conform-guard --example orchestrator
//! ```
//!
//! The waits are paced for the mock (a 300 ms probe, reads every 50 ms);
//! a real orchestrator keeps the defaults (`GuardOptions::default()`).

use a2a_conform_client::ClientConfig;
use a2a_conform_guard::{CacheOptions, CapabilityCache, Guard, GuardError, GuardOptions};
use a2a_conform_mock::{Behaviour, MockConfig, MockPeer, MockTiming};
use a2a_conform_protocol::{DeclarationId, MessagePart, ProtocolVersion};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Why the example stopped.
pub type Failure = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    run(&mut std::io::stdout()).await
}

/// The peers, two rounds of one task each, and what each round routed.
pub async fn run(out: &mut impl Write) -> Result<(), Failure> {
    let peers = [
        ("honest (v1.0)", Behaviour::Honest, ProtocolVersion::V1_0),
        ("honest (v0.3)", Behaviour::Honest, ProtocolVersion::V0_3),
        (
            "stream-silent (v1.0)",
            Behaviour::StreamSilent,
            ProtocolVersion::V1_0,
        ),
    ];
    let mut running = Vec::new();
    for (name, behaviour, protocol) in peers {
        running.push((name, start(behaviour, protocol).await?));
    }
    let dir = tempfile::tempdir()?;
    let cache_file = dir.path().join("peers.json");
    let mut routes = Vec::new();
    for round in 1..=2 {
        writeln!(out, "round {round}")?;
        for (name, peer) in &running {
            let route = delegate(out, name, &peer.card_url(), &cache_file).await?;
            routes.push((round, *name, route));
        }
    }
    for (name, _) in &running {
        let route = |round| routes.iter().find(|r| r.0 == round && r.1 == *name);
        if let (Some(first), Some(second)) = (route(1), route(2)) {
            if first.2 != second.2 {
                writeln!(
                    out,
                    "route changed for {name}: {} on round 1, {} on round 2",
                    first.2, second.2
                )?;
            }
        }
    }
    for (_, peer) in running {
        peer.shutdown().await;
    }
    Ok(())
}

/// A mock peer whose tasks take about 150 ms.
async fn start(behaviour: Behaviour, protocol: ProtocolVersion) -> Result<MockPeer, Failure> {
    let config = MockConfig {
        protocol,
        behaviour,
        timing: MockTiming {
            chunks: 3,
            chunk_interval: Duration::from_millis(50),
            keepalive_interval: Duration::from_millis(50),
            silence: Duration::from_secs(5),
        },
        ..MockConfig::default()
    };
    Ok(MockPeer::start(config).await?)
}

/// One task to the peer at `card_url` under the guards, the cache read
/// from `cache_file`; prints one line and answers the route it took.
async fn delegate(
    out: &mut impl Write,
    name: &str,
    card_url: &str,
    cache_file: &Path,
) -> Result<&'static str, Failure> {
    let cache = CapabilityCache::open(cache_file, CacheOptions::default())?;
    let options = GuardOptions {
        poll_interval: Duration::from_millis(50),
        probe_window: Some(Duration::from_millis(300)),
        ..GuardOptions::default()
    };
    let guard = Guard::connect(card_url, ClientConfig::default(), cache, options).await?;
    let streaming: DeclarationId = "capabilities.streaming".parse()?;
    let declared = guard.card().capabilities.streaming == Some(true);
    let planned = declared && guard.cache().is_trusted(guard.peer(), &streaming);
    let task = guard
        .open_task(&[MessagePart::Text("summarize the quarter".into())])
        .await?;
    let route = match (planned, task.is_streaming()) {
        (true, true) => "stream",
        (true, false) => "probe failed, then polling",
        (false, _) if declared => "polling (streaming demoted in the cache)",
        (false, _) => "polling",
    };
    let outcome = match task.await_terminal().await {
        Ok(settled) => format!("{} (stable over {} reads)", settled.state, settled.reads),
        Err(GuardError::Violation(v)) => format!("no outcome to trust: {v}"),
        Err(other) => return Err(other.into()),
    };
    let demoted: Vec<String> = task
        .violations()
        .iter()
        .map(|v| format!("{} ({})", v.declaration, v.reason))
        .collect();
    writeln!(
        out,
        "  {name:<22} route: {route:<42} outcome: {outcome}{}",
        if demoted.is_empty() {
            String::new()
        } else {
            format!("; demoted: {}", demoted.join(", "))
        }
    )?;
    Ok(route)
}
