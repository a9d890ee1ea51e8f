//! The watch service of a2a-conform, as a library: when each peer of a
//! fleet is next due ([`schedule`]: a fixed period with a per-peer jitter,
//! resumed from the last stored cycle so a restart does not re-hit the
//! fleet), and drift alerts ([`alert`]: the body, JSON or Slack, built from
//! the history store's regressions, redacted by value, and POSTed with
//! bounded retries that never stop the watch).
//!
//! The cycle itself (running the check engine over the fleet) is the CLI's
//! fleet runner; this crate stays free of it so the runner is not copied.

#![deny(missing_docs)]

pub mod alert;
pub mod schedule;
