//! Guards for orchestrators: an agent card is a declaration, not a
//! contract, so a delegating agent checks what it relies on while it
//! delegates, and remembers what each peer was seen to break. These are
//! the rules a2a-conform's scenarios test, applied to a live delegation,
//! on the same bounded, redacting, recording client.
//!
//! # The rules
//!
//! - **Streaming only after a probe** ([`Guard::open_task`]): the first
//!   status or artifact update must come within twice the card's
//!   `defaultTimeout` (else 15 s); none demotes `capabilities.streaming`
//!   and the task goes on by polling. One [`TaskHandle`] yields the task's
//!   events whichever way they come.
//! - **Done means stable** ([`Guard::await_terminal`]): terminal with the
//!   same artifact set (ids and content) on two consecutive reads;
//!   interrupted states are answered, not waited through; a `completed`
//!   task that changes broke `lifecycle.completion`.
//! - **A cancel is confirmed by reads** ([`Guard::cancel_and_confirm`]):
//!   `canceled` with no artifact change across two reads, and no artifact
//!   frame on a stream the guard holds; a leak broke `lifecycle.cancel`
//!   and names the orphaned task.
//! - **Resume with modes seen accepted** ([`Guard::resume`]): a mode the
//!   peer refused before is replaced by the caller's fallback part; a
//!   refusal (`-32602`, or the task failing) demotes that mode.
//! - **A per-peer [`CapabilityCache`]**, keyed by card URL and card digest,
//!   trusted / demoted (when, why, evidence, expiry) / unknown per
//!   declaration, persisted to a file several processes share, and seeded
//!   from a `check --json` report ([`CapabilityCache::seed_from_report`]).
//!
//! A violation is a value ([`ContractViolation`]: the declaration, the
//! peer, the task, the evidence as a report shows it). Every wait is
//! bounded ([`GuardOptions`]); errors are typed ([`GuardError`]).
//!
//! ```
//! use a2a_conform_client::ClientConfig;
//! use a2a_conform_guard::{CapabilityCache, CacheOptions, Guard, GuardOptions};
//! use a2a_conform_mock::{Behaviour, MockConfig, MockPeer};
//! use a2a_conform_protocol::{DeclarationId, MessagePart, TaskState};
//! use std::time::Duration;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A peer whose card declares streaming, but whose streams fall silent.
//! let peer = MockPeer::start(MockConfig { behaviour: Behaviour::StreamSilent, ..MockConfig::default() }).await?;
//! let cache = CapabilityCache::in_memory(CacheOptions::default());
//! let options = GuardOptions {
//!     poll_interval: Duration::from_millis(50),
//!     probe_window: Some(Duration::from_millis(500)),
//!     ..GuardOptions::default()
//! };
//! let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, options).await?;
//!
//! let task = guard.open_task(&[MessagePart::Text("hello".into())]).await?;
//! assert!(!task.is_streaming(), "the probe failed: polling instead");
//! let streaming: DeclarationId = "capabilities.streaming".parse()?;
//! assert_eq!(task.violations()[0].declaration, streaming);
//! assert!(!guard.cache().is_trusted(guard.peer(), &streaming));
//! // The task is still delivered, by polling.
//! assert_eq!(task.await_terminal().await?.state, TaskState::Completed);
//! peer.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! Layout: `cache` (the cache, its file and its report seed), `error`,
//! `guard` (the guard on one peer and what its operations share), then one
//! file per guarded operation: `task` (open and the handle), `settle`,
//! `cancel`, `resume`, and `revalidate` (re-reading the card once its
//! `max-age` passed, with `If-None-Match`). This file only declares and re-exports; no module
//! imports from it.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod cache;
mod cancel;
mod error;
mod guard;
mod resume;
mod revalidate;
mod settle;
mod task;

pub use cache::{CacheError, CacheOptions, CapabilityCache, Demotion, PeerKey, Trust};
pub use cancel::CancelOutcome;
pub use error::{ContractViolation, GuardError};
pub use guard::{Guard, GuardOptions, DEFAULT_PROBE_WINDOW, KEPT_OPERATIONS};
pub use resume::{PartsSent, Resumed};
pub use revalidate::Revalidation;
pub use settle::Settled;
pub use task::{EventSource, TaskEvent, TaskHandle};
