//! Talking to a peer over HTTP: the evidence transcript every exchange is
//! recorded in, secret redaction, the bounded HTTP client, JSON-RPC and REST
//! calls, and SSE streams read in the background.
//!
//! Layout, leaves first: `limits` (caps), `text` (clipping, durations),
//! `reply` (how a call ended), `transcript` (recording, redacted with
//! [`crate::redact`]), `credentials` (what is a credential, and for which
//! origin), `http` (the bounded reqwest client), `redirect` (the card GET's
//! redirects, credentials kept to their origin), `jsonrpc` and `rest` (reading each
//! binding's answers), `sse` (the event-stream parser), `stream_log` (a stream's
//! events in bounded memory), `stream` (streams read in the background), `grpc` (the gRPC binding, its own calls and streams),
//! `client` (the peer client over all of them). This
//! file only declares and re-exports; no module imports from it.

pub mod client;
pub mod credentials;
pub mod grpc;
pub mod http;
pub mod jsonrpc;
pub mod limits;
pub mod redirect;
pub mod reply;
pub mod rest;
pub mod sse;
pub mod stream;
pub mod stream_log;
pub mod text;
pub mod transcript;

pub use client::{PeerClient, StreamOpen};
pub use limits::{
    Limits, EVIDENCE_BODY_CHARS, MAX_BODY_BYTES, MAX_SSE_EVENT_BYTES, MAX_STREAM_BYTES,
    MAX_STREAM_EVENTS,
};
pub use reply::Reply;
pub use stream::{StreamEnd, StreamHandle};
pub use stream_log::{StreamItem, StreamLog};
pub use text::{clip, human_duration};
pub use transcript::{Redactor, Transcript};
