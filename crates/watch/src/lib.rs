//! The watch service of a2a-conform, as a library: when each peer of a
//! fleet is next due ([`schedule`]: a fixed period with a per-peer jitter,
//! resumed from the last stored cycle so a restart does not re-hit the
//! fleet), and drift alerts ([`alert`]: the body, JSON or Slack, built from
//! the history store's regressions, redacted by value, and POSTed with
//! bounded retries that never stop the watch).
//!
//! The loop ([`cycle::run`]) waits for each cycle, records its report,
//! alerts and prunes; the check itself (the engine over the fleet) is the
//! CLI's fleet runner behind [`cycle::Checker`], so this crate stays free
//! of the engine and the runner is not copied.

#![deny(missing_docs)]

pub mod alert;
pub mod cycle;
pub mod schedule;
