//! The mock peer over real HTTP: card shapes, the honest lifecycle in v1.0 and
//! v0.3, each behaviour's distinguishing trait, and the REST binding.
//!
//! One module of the integration binary, split by topic.

mod behaviours;
mod card;
mod lifecycle;
mod peer;
mod rest;
mod support;
