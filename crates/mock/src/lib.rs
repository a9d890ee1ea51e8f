//! The mock peer: a real A2A server on loopback with an honest lifecycle and
//! named divergences between what its card declares and what it does, for
//! trying the tool, for tests and for demos. It speaks v1.0 (JSON-RPC,
//! HTTP+JSON and, for the gRPC behaviours, gRPC) or v0.3 (JSON-RPC and
//! HTTP+JSON), over HTTP or HTTPS. A v1.0 peer can also serve the additions
//! of the A2A 1.1 draft ([`MockConfig::draft_1_1`]) over JSON-RPC and
//! HTTP+JSON.
//!
//! # API
//!
//! - [`MockPeer::start`] serves a [`MockConfig`] on 127.0.0.1 (port 0 picks
//!   a free one) on the current tokio runtime; the peer's URLs, its public
//!   signing key and the tasks it holds are read from the [`MockPeer`], and
//!   [`MockPeer::shutdown`] (or dropping it) stops it.
//! - [`Behaviour`] names what the peer does: `Honest`, or one divergence
//!   (each described by [`Behaviour::describe`]); [`MockTiming`] paces its
//!   tasks and streams.
//! - TLS: [`MockPki`] makes a throwaway CA with a server and a client
//!   certificate (written as the PEM files `--cacert`, `--cert` and `--key`
//!   read: [`PkiFiles`]); [`MockTls`] serves HTTPS with it, mTLS if asked,
//!   and [`MockTls::listener`] puts handlers of one's own behind the same CA.
//! - [`auth`]: the credentials the secured behaviours expect.
//! - [`DRAFT_HOLD_CAP`]: how long the 1.1 draft's GetTask long-poll is held.
//!
//! ```
//! use a2a_conform_mock::{Behaviour, MockConfig, MockPeer};
//! use a2a_conform_protocol::ProtocolVersion;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let peer = MockPeer::start(MockConfig {
//!     protocol: ProtocolVersion::V0_3,
//!     behaviour: Behaviour::CancelLeak,
//!     ..MockConfig::default()
//! })
//! .await?;
//! let card: serde_json::Value = reqwest::get(peer.card_url()).await?.json().await?;
//! assert_eq!(card["protocolVersion"], "0.3.0");
//! assert!(card["description"].as_str().unwrap().contains(Behaviour::CancelLeak.describe()));
//! peer.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! Layout: `behaviour` names the divergences, `card` publishes the agent
//! card, `jsonrpc` and `rest` are the HTTP bindings, `grpc` the gRPC one (a
//! second loopback port, for the gRPC behaviours; v1.0's or v0.3's service), `service` is the
//! binding-neutral operation layer, `lifecycle` runs tasks, `store` keeps
//! them, `sse` writes streams, `push` keeps push configs and delivers
//! notifications, `auth` checks credentials (and `token` issues OAuth
//! tokens), `model` renders the wire shapes of each version, `tls` serves
//! HTTPS, `bench` serves numbered cards and fast streams for the benchmark,
//! `stale` drops a kept-alive connection after a 500 (`close-after-500`),
//! `draft` renders and long-polls the 1.1 draft's additions.
//! Leaves the others import instead of each other or this file: `published`
//! (paths and media modes), `shared` (what handlers share), `push_configs`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod auth;
mod behaviour;
mod bench;
mod card;
mod declared;
mod draft;
mod error;
mod grpc;
mod issued;
mod jsonrpc;
mod lifecycle;
mod model;
mod published;
mod push;
mod push_configs;
mod rest;
mod service;
mod shared;
mod signed;
mod sse;
mod stale;
mod store;
mod task_basics;
mod tls;
mod token;

pub use behaviour::Behaviour;
pub use draft::HOLD_CAP as DRAFT_HOLD_CAP;
pub use shared::MockTiming;
pub use tls::{MockPki, MockTls, PkiFiles, TlsListener};

use a2a_conform_protocol::ProtocolVersion;
use axum::routing::{any, get, post};
use axum::Router;
use published::{CARD_PATH, JSONRPC_PATH, REST_PATH};
use push_configs::Registry;
use shared::Shared;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How the mock peer is set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockConfig {
    /// The version the peer speaks and its card declares.
    pub protocol: ProtocolVersion,
    /// What the peer does: honest, or one named divergence.
    pub behaviour: Behaviour,
    /// The loopback port; 0 picks a free one.
    pub port: u16,
    /// How tasks and streams are paced (chunks, intervals, silence).
    pub timing: MockTiming,
    /// The bearer token the `secured` behaviour requires; `None` is
    /// [`auth::DEFAULT_TOKEN`]. Other behaviours check no credentials.
    pub auth_token: Option<String>,
    /// Serve HTTPS (the card and both HTTP bindings) with this PKI's server
    /// certificate instead of plain HTTP.
    pub tls: Option<MockTls>,
    /// Also serve gRPC on a second loopback port, and declare it, whatever
    /// the behaviour: a behaviour's divergence then shows over gRPC too.
    /// The gRPC behaviours serve it regardless.
    pub grpc: bool,
    /// Serve the A2A 1.1 draft (the spec's dev-1.1 branch) on top of v1.0
    /// over JSON-RPC and HTTP+JSON: `generation` on tasks and update events,
    /// the GetTask `currentGeneration` long-poll (held at most
    /// [`DRAFT_HOLD_CAP`]), SendMessage `configuration.ifGenerationMatch`
    /// (a mismatch is TaskGenerationMismatchError, -32010 / HTTP 409) and a
    /// `timeline` on tasks. The card's interfaces still declare 1.0; gRPC
    /// stays plain 1.0. Needs `protocol` 1.0: [`MockPeer::start`] refuses it
    /// with 0.3. The generation behaviours serve the draft whatever this says
    /// (a v0.3 peer of theirs is plain v0.3). Off: nothing of it is served.
    pub draft_1_1: bool,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            protocol: ProtocolVersion::V1_0,
            behaviour: Behaviour::Honest,
            port: 0,
            timing: MockTiming::default(),
            auth_token: None,
            tls: None,
            grpc: false,
            draft_1_1: false,
        }
    }
}

/// A running mock peer. Dropping it stops the server.
pub struct MockPeer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    server: Option<JoinHandle<()>>,
    grpc_server: Option<JoinHandle<()>>,
}

impl MockPeer {
    /// Binds 127.0.0.1:`port` (loopback only) and serves on the current
    /// tokio runtime. A config asking for the 1.1 draft over v0.3 is refused
    /// (`InvalidInput`): the draft builds on 1.0.
    pub async fn start(config: MockConfig) -> std::io::Result<MockPeer> {
        if config.draft_1_1 && config.protocol != ProtocolVersion::V1_0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "the A2A 1.1 draft builds on 1.0: draft_1_1 needs protocol 1.0, not {}",
                    config.protocol
                ),
            ));
        }
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, config.port)).await?;
        let addr = listener.local_addr()?;
        let grpc_listener = if config.grpc || config.behaviour.serves_grpc() {
            Some(tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?)
        } else {
            None
        };
        let grpc_addr = grpc_listener.as_ref().map(|l| l.local_addr()).transpose()?;
        let (shutdown, shutdown_rx) = watch::channel(false);
        let capacity = (config.timing.chunks as usize).saturating_mul(2) + 64;
        let shared = Arc::new(Shared {
            protocol: config.protocol,
            behaviour: config.behaviour,
            draft: config.protocol == ProtocolVersion::V1_0
                && (config.draft_1_1 || config.behaviour.implies_draft()),
            timing: config.timing,
            base_url: format!(
                "{}://{addr}",
                if config.tls.is_some() {
                    "https"
                } else {
                    "http"
                }
            ),
            store: store::Store::new(capacity).counting(counting(config.behaviour)),
            push: Registry::new().map_err(std::io::Error::other)?,
            shutdown: shutdown_rx.clone(),
            auth_token: (config.behaviour.declares_security()
                || declared::guards_extended_card(config.behaviour))
            .then(|| {
                config
                    .auth_token
                    .clone()
                    .unwrap_or_else(|| auth::DEFAULT_TOKEN.to_string())
            }),
            grpc_addr,
            tokens: issued::Issued::default(),
            signing: signed::SigningKey::for_behaviour(config.behaviour),
            card: shared::Served::default(),
        });
        let grpc_server =
            grpc_listener.map(|listener| tokio::spawn(grpc::serve(shared.clone(), listener)));
        let app = router(shared.clone());
        let mut signal = shutdown_rx;
        let graceful = async move {
            let _ = signal.wait_for(|down| *down).await;
        };
        let server = match &config.tls {
            None if config.behaviour == Behaviour::CloseAfter500 => tokio::spawn(async move {
                let listener = stale::StaleListener(listener);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(graceful)
                    .await;
            }),
            None => tokio::spawn(async move {
                // stream-reset: every connection is accepted with a zero
                // linger, so the connection a failed stream body drops
                // ends in an RST, as a crashed or reset peer's would.
                let resets = config.behaviour.resets_streams();
                let listener = axum::serve::ListenerExt::tap_io(listener, move |tcp| {
                    if resets {
                        let _ = tcp.set_zero_linger();
                    }
                });
                // An accept error ends the server; the peer then reads as unreachable.
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(graceful)
                    .await;
            }),
            Some(tls) => {
                let listener = tls.listener(listener)?;
                tokio::spawn(async move {
                    let _ = axum::serve(listener, app)
                        .with_graceful_shutdown(graceful)
                        .await;
                })
            }
        };
        Ok(MockPeer {
            addr,
            shared,
            shutdown,
            server: Some(server),
            grpc_server,
        })
    }

    /// `http://127.0.0.1:PORT` (`https://` when serving TLS)
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The well-known card URL.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.shared.base_url, CARD_PATH)
    }

    /// The card of numbered peer `n`: one process serves any number of
    /// distinct cards (named `… #n`) for fleet tests and the benchmark.
    pub fn fleet_card_url(&self, n: u32) -> String {
        format!("{}/peers/{n}{}", self.shared.base_url, CARD_PATH)
    }

    /// The JSON-RPC endpoint (the card's first interface).
    pub fn jsonrpc_url(&self) -> String {
        format!("{}{}", self.shared.base_url, JSONRPC_PATH)
    }

    /// The HTTP+JSON endpoint, served (and declared) for v1.0 only.
    pub fn rest_url(&self) -> Option<String> {
        self.shared
            .serves_rest()
            .then(|| format!("{}{}", self.shared.base_url, REST_PATH))
    }

    /// The gRPC address (`host:port`), served (and declared) by v1.0 peers
    /// of the gRPC behaviours.
    pub fn grpc_addr(&self) -> Option<SocketAddr> {
        self.shared.grpc_addr
    }

    /// The address the card and the HTTP bindings are served on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Changes the card from now on (its description names the revision),
    /// as a redeployed peer's would: a new body, so a new digest and `ETag`.
    /// Answers the new revision.
    pub fn revise_card(&self) -> u32 {
        self.shared.card.revise()
    }

    /// Serves the card with `Cache-Control: max-age=<seconds>` from now on
    /// (300 until set).
    pub fn set_card_max_age(&self, seconds: u32) {
        self.shared.card.set_max_age(seconds);
    }

    /// How the card was asked for so far: full answers (200) and
    /// revalidations answered `304 Not Modified`.
    pub fn card_requests(&self) -> (u32, u32) {
        self.shared.card.requests()
    }

    /// The version the peer speaks.
    pub fn protocol(&self) -> ProtocolVersion {
        self.shared.protocol
    }

    /// Whether JSON-RPC and HTTP+JSON serve the A2A 1.1 draft's additions
    /// ([`MockConfig::draft_1_1`], or a generation behaviour on v1.0).
    pub fn serves_draft(&self) -> bool {
        self.shared.draft
    }

    /// The behaviour the peer was started with.
    pub fn behaviour(&self) -> Behaviour {
        self.shared.behaviour
    }

    /// The public key (a JWK with `kid`) the card is signed with, for the
    /// signing behaviours: what `--trusted-key` takes.
    pub fn public_jwk(&self) -> Option<serde_json::Value> {
        self.shared.signing.as_ref().map(|k| k.jwk.clone())
    }

    /// The bearer token the peer's card requires (behaviours that declare
    /// security; only `secured` checks it).
    pub fn auth_token(&self) -> Option<String> {
        self.shared.auth_token.clone()
    }

    /// Every task the peer holds, oldest first: the text of the message
    /// that created it and its state now (tests read what a check left).
    pub fn tasks(&self) -> Vec<(String, a2a_conform_protocol::TaskState)> {
        self.shared
            .store
            .snapshot_all()
            .into_iter()
            .map(|task| {
                let text = task
                    .history
                    .first()
                    .map(|m| {
                        m.parts
                            .iter()
                            .filter_map(|p| match &p.content {
                                model::Content::Text(t) => Some(t.as_str()),
                                _ => None,
                            })
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                (text, task.status.state)
            })
            .collect()
    }

    /// Stops accepting, ends every open stream and worker, and waits (at most
    /// a few seconds) for open connections to finish.
    pub async fn shutdown(mut self) {
        self.signal_stop();
        for mut server in [self.server.take(), self.grpc_server.take()]
            .into_iter()
            .flatten()
        {
            if tokio::time::timeout(Duration::from_secs(5), &mut server)
                .await
                .is_err()
            {
                server.abort();
            }
        }
    }

    fn signal_stop(&self) {
        let _ = self.shutdown.send(true);
        self.shared.store.stop_all();
    }
}

impl Drop for MockPeer {
    fn drop(&mut self) {
        self.signal_stop();
        for server in [self.server.take(), self.grpc_server.take()]
            .into_iter()
            .flatten()
        {
            server.abort();
        }
    }
}

/// How the store counts generations: by one, unless a generation behaviour
/// breaks that.
fn counting(behaviour: Behaviour) -> store::Counting {
    match behaviour {
        Behaviour::GenerationSkips => store::Counting::ArtifactsByTwo,
        Behaviour::GenerationRepeats => store::Counting::RepeatAfterArtifact,
        _ => store::Counting::ByOne,
    }
}

fn router(shared: Arc<Shared>) -> Router {
    let mut a2a = Router::new().route(JSONRPC_PATH, post(jsonrpc::handle));
    if shared.serves_rest() {
        a2a = a2a.route(&format!("{}/{{*rest}}", REST_PATH), any(rest::handle));
    }
    // Credentials guard the A2A endpoints; the card stays public.
    let a2a = a2a.route_layer(axum::middleware::from_fn_with_state(
        shared.clone(),
        auth::require,
    ));
    let mut router = Router::new();
    if shared.behaviour.issues_tokens() {
        router = router.route(published::TOKEN_PATH, post(token::issue));
    }
    router
        .route(CARD_PATH, get(card::serve))
        .route(bench::FLEET_CARD_ROUTE, get(bench::serve_card))
        .merge(a2a)
        .with_state(shared)
}
