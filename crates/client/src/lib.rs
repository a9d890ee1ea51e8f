//! An A2A client for programs that must not trust the peer: every body
//! bounded, every credential kept to its origin and redacted by value, every
//! exchange recorded as evidence. JSON-RPC, HTTP+JSON and gRPC, A2A v1.0 and
//! v0.3. It depends on the protocol crate only and records its own
//! [`Record`]s: a report maps them to its evidence schema, so the client
//! needs no report types.
//!
//! # API
//!
//! - [`PeerClient`]: one peer endpoint (URL, version, binding) and its
//!   settings; [`PeerClient::call`] and [`PeerClient::open_stream`] run an
//!   operation and answer a [`Reply`] (or a [`StreamHandle`] read in the
//!   background). A call never trusts the answer: a malformed one is
//!   [`Reply::Broken`], a cap reached is [`Reply::Capped`], never a panic or
//!   an unbounded read.
//! - [`ClientConfig`]: timeouts, headers, the bearer token, TLS
//!   ([`http::TlsOptions`]), the caps ([`Limits`]); which of it is a
//!   credential ([`Credentials`] per call, [`ClientConfig::secrets`] for
//!   redaction), and for which origin.
//! - [`Transcript`] and [`Record`]: the evidence of a run, redacted
//!   ([`Redactor`], [`redact`]) and clipped before anything can read it,
//!   bounded to its first and last entries.
//! - [`auth`]: credentials from a card's security schemes (API keys, basic,
//!   OAuth 2.0 client credentials, OpenID Connect), secrets from the
//!   environment only.
//! - [`decode_grpc_request`], [`encode_grpc_answer`], [`grpc_status_headers`]:
//!   the gRPC wire the other way round, for a replay serving recorded gRPC
//!   exchanges with the same proto types the calls use.
//! - [`http`]: the one HTTP client builder (trust, identity, proxies, no
//!   redirects) and bounded body reads; [`redirect`]: the card GET, whose
//!   redirects are followed by hand so credentials never change origin.
//!
//! ```
//! use a2a_conform_client::{ClientConfig, PeerClient, Redactor, Reply, Transcript};
//! use a2a_conform_mock::{MockConfig, MockPeer};
//! use a2a_conform_protocol::{Binding, MessagePart, Operation, ProtocolVersion};
//! use std::sync::Arc;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let peer = MockPeer::start(MockConfig::default()).await.unwrap();
//! let config = ClientConfig {
//!     bearer: Some(("PEER_TOKEN".into(), "s3cret-token".into())),
//!     ..ClientConfig::default()
//! };
//! let transcript = Transcript::new(Arc::new(Redactor::new(config.secrets())));
//! let endpoint = peer.jsonrpc_url().parse().unwrap();
//! let client =
//!     PeerClient::new(endpoint, ProtocolVersion::V1_0, Binding::Jsonrpc, config).unwrap();
//!
//! let version = client.version;
//! let message = version.message(&[MessagePart::Text("hello".into())], "m-1", None, None);
//! let reply = client
//!     .call(&transcript, Operation::SendMessage, version.send_params(message, true))
//!     .await;
//! assert!(matches!(reply, Reply::Ok(_)), "{reply:?}");
//!
//! // The request and the answer are evidence; the token is never in it:
//! // the reproduction names its variable instead.
//! let records = transcript.take_entries();
//! let curl = records[0].curl.as_deref().unwrap();
//! assert!(curl.contains("Bearer $PEER_TOKEN") && !curl.contains("s3cret-token"));
//! peer.shutdown().await;
//! # }
//! ```
//!
//! Layout, leaves first: `limits` (caps), `reply` (how a call ended),
//! `transcript` (recording, redacted with [`redact`]), `credentials` (what
//! is a credential, and for which origin), `http` (the bounded reqwest
//! client), `redirect` (the card GET's redirects, credentials kept to their
//! origin), `jsonrpc` and `rest` (reading each binding's answers), `sse` (the
//! event-stream parser), `stream_log` (a stream's events in bounded memory),
//! `stream` (streams read in the background), `grpc` (the gRPC binding, its
//! own calls and streams), `client` (the peer client over all of them, and
//! its one retry of a request whose connection broke before the answer). This
//! file only declares and re-exports; no module imports from it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod auth;
pub mod card_fetch;
pub mod client;
mod credentials;
mod grpc;
pub mod http;
mod jsonrpc;
mod limits;
pub mod redact;
pub mod redirect;
mod reply;
mod rest;
pub mod sse;
pub mod stream;
mod stream_log;
pub mod transcript;

pub use client::{
    CallOptions, ClientConfig, ClientError, Credentials, Extensions, FetchError, Fetched,
    PeerClient, StreamOpen,
};
pub use grpc::wire::{
    decode_grpc_request, encode_grpc_answer, grpc_method, grpc_status_headers, GrpcWireError,
};
pub use limits::{
    Limits, EVIDENCE_BODY_CHARS, MAX_BODY_BYTES, MAX_SSE_EVENT_BYTES, MAX_STREAM_BYTES,
    MAX_STREAM_EVENTS,
};
pub use redact::Redactor;
pub use reply::{Reply, REPLAY_MISS_HEADER};
pub use stream::{StreamEnd, StreamHandle};
pub use stream_log::{StreamItem, StreamLog};
pub use transcript::{Record, RecordKind, Transcript, RUN_HEADER};
