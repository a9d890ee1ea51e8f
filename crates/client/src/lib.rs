//! An A2A client for programs that must not trust the peer: every body
//! bounded, every credential kept to its origin and redacted by value, every
//! exchange recorded in a [`Transcript`] as evidence. JSON-RPC, HTTP+JSON and
//! gRPC, A2A v1.0 and v0.3; credentials obtained from a card's security
//! schemes ([`auth`]); secrets redacted with [`redact`]. It depends on the
//! protocol crate only.
//!
//! Layout, leaves first: `limits` (caps), `reply` (how a call ended), `transcript` (recording, redacted with
//! [`crate::redact`]), `credentials` (what is a credential, and for which
//! origin), `http` (the bounded reqwest client), `redirect` (the card GET's
//! redirects, credentials kept to their origin), `jsonrpc` and `rest` (reading each
//! binding's answers), `sse` (the event-stream parser), `stream_log` (a stream's
//! events in bounded memory), `stream` (streams read in the background), `grpc` (the gRPC binding, its own calls and streams),
//! `client` (the peer client over all of them). This
//! file only declares and re-exports; no module imports from it.

pub mod auth;
pub mod card_fetch;
pub mod client;
pub mod credentials;
pub mod grpc;
pub mod http;
pub mod jsonrpc;
pub mod limits;
pub mod redact;
pub mod redirect;
pub mod reply;
pub mod rest;
pub mod sse;
pub mod stream;
pub mod stream_log;
pub mod transcript;

pub use client::{PeerClient, StreamOpen};
pub use limits::{
    Limits, EVIDENCE_BODY_CHARS, MAX_BODY_BYTES, MAX_SSE_EVENT_BYTES, MAX_STREAM_BYTES,
    MAX_STREAM_EVENTS,
};
pub use reply::Reply;
pub use stream::{StreamEnd, StreamHandle};
pub use stream_log::{StreamItem, StreamLog};
pub use transcript::{Redactor, Transcript};
