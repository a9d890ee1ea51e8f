//! Hostile peers: one small hand-written peer per case on loopback, each a
//! raw TCP server that serves a valid card and then misbehaves its own way.
//! Every case asserts the verdict class, the exit code, that no configured
//! secret appears in any output, and a bound on time and the child's peak
//! RSS ([`harness::Checked::assert_bounded`]).
//!
//! Modules: `harness` (the peer and the runner every case uses),
//! `malfunction` (answers that are not A2A answers: never `fail`),
//! `caps` (the tool's own caps: `error`, naming the flag), `windows` (the
//! card's numbers: clamped, never a panic), `secrets` (credentials kept to
//! their origin, redacted by value in every encoding), `inert` (peer text
//! made harmless in every sink, file inputs capped), `bounded` (floods,
//! huge cards and usage errors before any request), `task_basics` (the
//! `protocol.*` calls answered by malfunctions), `task_pages` (ListTasks
//! pages and GetTask histories past every size), `auth` (token endpoints
//! and OpenID Connect documents), `signatures` (`jku` key sets, `alg: none`,
//! HMAC, thousands of signatures), `rest_v0_3` (0.3 HTTP+JSON content types,
//! error shapes, redirects), `grpc_tls` (gRPC behind TLS), `hygiene` (card
//! caching headers reflecting secrets), `mock_tls` (`mock-peer --tls`
//! against stalled handshakes), `send` (`send` against peers echoing the
//! token, answering another task, refusing a declared resume). Other cases add their own module here and
//! use the harness.

mod auth;
mod bounded;
mod caps;
mod grpc_tls;
pub mod harness;
mod hygiene;
mod inert;
mod malfunction;
mod mock_tls;
mod rest_v0_3;
mod secrets;
mod send;
mod signatures;
mod task_basics;
mod task_pages;
mod windows;
