//! The a2a-conform dashboard's renderers over a history store (issue 23,
//! items 4 and 5), first part: a report's badge as SVG ([`badge`]) and
//! the store's current verdicts as Prometheus gauges ([`metrics`]). The
//! HTTP server, the HTML pages and `check --html` are the next step
//! (docs/dashboard.md lists what is left).

#![deny(missing_docs)]

mod badge;
mod escape;
mod metrics;

pub use badge::{badge, Counts};
pub use metrics::metrics;
