//! Every integration test in one binary, one module per topic: one link
//! instead of fourteen on a small machine (as nextest recommends). The
//! support modules (`common`, `gating`) are shared by the topic modules.
//! The interop tests' names start with `sdk_`, so
//! `cargo test -- --skip sdk_` still leaves them out.

mod common;
mod gating;

mod auth_schemes;
mod badge;
mod baseline;
mod bindings;
mod blocking;
mod cassette_trust;
mod check;
mod config;
mod continuity;
mod credentials;
mod dashboard;
mod dashboard_store;
mod declared;
mod demo;
mod diff;
mod draft;
mod fleet;
mod fleet_k8s;
mod grpc;
mod guard_interop;
mod history;
mod hostile;
mod house;
mod hygiene;
mod install;
mod interop;
mod live;
mod matrix;
mod mock_peer;
mod mock_push;
mod prompts;
mod properties;
mod push;
mod readme;
mod replay;
mod reports;
mod rest_v0_3;
mod sdk_cassettes;
mod security;
mod send;
mod settings;
mod signatures;
mod stream_refusals;
mod streams;
mod suites;
mod timeouts;
mod tls;
mod watch;
mod zero_config;
