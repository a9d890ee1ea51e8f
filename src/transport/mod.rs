//! Talking to a peer over HTTP: the recording client, JSON-RPC calls and SSE streams.

pub mod sse;
