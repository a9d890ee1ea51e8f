//! What every handler and worker of the mock shares: the peer's version,
//! behaviour and pace, its tasks and push configs, how its card is served
//! (revision, max-age) and the shutdown signal.

use super::behaviour::Behaviour;
use super::push_configs::Registry;
use super::store::Store;
use a2a_conform_protocol::ProtocolVersion;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;
use tokio::sync::watch;

/// The pace of the mock's work; tests shrink it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockTiming {
    /// How many chunks the `result` artifact is streamed in (default 5).
    pub chunks: u32,
    /// The pause before each chunk (default 200 ms: about 1 s of work).
    pub chunk_interval: Duration,
    /// How often `stream-silent` sends a keep-alive comment (default 5 s).
    pub keepalive_interval: Duration,
    /// How long a silenced stream stays open before closing (default 60 s).
    pub silence: Duration,
}

impl Default for MockTiming {
    fn default() -> Self {
        MockTiming {
            chunks: 5,
            chunk_interval: Duration::from_millis(200),
            keepalive_interval: Duration::from_secs(5),
            silence: Duration::from_secs(60),
        }
    }
}

/// What every handler and worker shares.
pub(crate) struct Shared {
    pub protocol: ProtocolVersion,
    pub behaviour: Behaviour,
    /// Whether JSON-RPC and HTTP+JSON serve the 1.1 draft additions (a
    /// v1.0 peer with `draft_1_1` or a generation behaviour).
    pub draft: bool,
    pub timing: MockTiming,
    pub base_url: String,
    pub store: Store,
    /// Push notification configs (and the client deliveries go out with).
    pub push: Registry,
    pub shutdown: watch::Receiver<bool>,
    /// The bearer token requests must carry (behaviours that declare security).
    pub auth_token: Option<String>,
    /// Where gRPC is served (v1.0 peers of the gRPC behaviours).
    pub grpc_addr: Option<std::net::SocketAddr>,
    /// Access tokens the token endpoint issued (behaviours that issue tokens).
    pub tokens: super::issued::Issued,
    /// The card's signing key (the signing behaviours).
    pub signing: Option<super::signed::SigningKey>,
    /// How the card is served: its revision and `max-age`, changed by tests.
    pub card: Served,
}

impl Shared {
    /// Sleeps for `duration`; false if the peer shut down meanwhile.
    pub(crate) async fn sleep(&self, duration: Duration) -> bool {
        let mut shutdown = self.shutdown.clone();
        tokio::select! {
            _ = tokio::time::sleep(duration) => true,
            _ = shutdown.wait_for(|down| *down) => false,
        }
    }

    /// Resolves once the peer shuts down.
    pub(crate) async fn stopped(&self) {
        let mut shutdown = self.shutdown.clone();
        let _ = shutdown.wait_for(|down| *down).await;
    }

    /// Whether the HTTP+JSON binding the card declares (both versions) is
    /// served.
    pub(crate) fn serves_rest(&self) -> bool {
        self.behaviour.serves_rest()
    }
}

/// The `max-age` the card is served with until a test sets another.
pub(crate) const DEFAULT_CARD_MAX_AGE: u32 = 300;

/// How the well-known card is served: its revision (0: as it always was)
/// and `max-age`, which tests change to see a client revalidate, and how
/// often it was asked for.
#[derive(Debug)]
pub(crate) struct Served {
    revision: AtomicU32,
    max_age: AtomicU32,
    full: AtomicU32,
    not_modified: AtomicU32,
}

impl Default for Served {
    fn default() -> Self {
        Served {
            revision: AtomicU32::new(0),
            max_age: AtomicU32::new(DEFAULT_CARD_MAX_AGE),
            full: AtomicU32::new(0),
            not_modified: AtomicU32::new(0),
        }
    }
}

impl Served {
    pub(crate) fn revise(&self) -> u32 {
        self.revision.fetch_add(1, Ordering::SeqCst) + 1
    }

    pub(crate) fn set_max_age(&self, seconds: u32) {
        self.max_age.store(seconds, Ordering::SeqCst);
    }

    pub(crate) fn revision(&self) -> u32 {
        self.revision.load(Ordering::SeqCst)
    }

    pub(crate) fn max_age(&self) -> u32 {
        self.max_age.load(Ordering::SeqCst)
    }

    /// Counts one answer: a 304, or the card served whole.
    pub(crate) fn count(&self, not_modified: bool) {
        let counter = if not_modified {
            &self.not_modified
        } else {
            &self.full
        };
        counter.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn requests(&self) -> (u32, u32) {
        (
            self.full.load(Ordering::SeqCst),
            self.not_modified.load(Ordering::SeqCst),
        )
    }
}
