//! The a2a-conform dashboard over a history store (issue 23, items 4 and
//! 5): the HTTP server ([`serve`], [`router`]) with the fleet grid, peer
//! pages, JSON API, `/metrics` and badges (its pages render a report
//! through the report crate's HTML format, the one `check --html` writes);
//! a report's badge as SVG
//! ([`badge`]); the store's current verdicts as Prometheus gauges
//! ([`metrics`]); and what the pages show, as data ([`fleet`], a page of it
//! ([`fleet_page`]), [`peer`]).
//! docs/dashboard.md describes the pages and their security.
//!
//! Every page is server-rendered through maud, which escapes every
//! interpolated string: a peer's card name or answer is text, never markup.

#![deny(missing_docs)]

mod badge;
mod escape;
mod html;
mod metrics;
mod server;
mod view;

pub use a2a_conform_report::format::html::page::content_security_policy;
pub use badge::{badge, Counts};
pub use metrics::metrics;
pub use server::{needs_token, router, serve, TOKEN_ENV};
pub use view::{
    fleet, fleet_page, peer, CardSpan, Cell, Change, Fleet, FleetPeer, PeerView, Span,
    PEERS_PER_PAGE,
};
