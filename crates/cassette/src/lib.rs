//! The a2a-conform cassette: the record of one check that `check --record
//! FILE` writes, so a divergence can be handed to the peer's team and
//! re-read without the peer (docs/cassette.md has the format and its JSON
//! Schema, [`cassette_schema`]).
//!
//! # The format (version [`FORMAT_VERSION`])
//!
//! JSON Lines, one object a line, each with a `type`:
//!
//! 1. one `header`: the format name and version, the tool and its version,
//!    the suite digest and the options that shape requests;
//! 2. one `peer` per checked peer: its card URL, what the card said, and
//!    the card (and the extended card a run was served) as served;
//! 3. one `run` per scenario run: its verdict and every exchange, step by
//!    step (a step is one request: its answer, its stream's events with
//!    their arrival offsets and how the stream ended), the webhook
//!    deliveries the tool received and the run's notes;
//! 4. one `trailer`: how many lines precede it and the SHA-256 of their
//!    bytes, so a cut or edited cassette is refused ([`CassetteError`]).
//!
//! A file named `*.gz` is gzip-compressed. Nothing is recorded twice: a
//! cassette is built from the check's redacted report evidence
//! ([`Cassette::from_report`]), which every exchange reaches through the
//! client's transcript, so it is redacted by value and bounded by the
//! same caps as every report.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod build;
mod deliver;
mod error;
mod file;
mod grpc;
mod matching;
mod model;
mod recorded;
pub mod serve;
mod sse;

pub use error::CassetteError;
pub use file::{from_text, CASSETTE_CAP, MAX_ENTRIES};
pub use model::{
    Cassette, Entry, Header, Line, PeerLine, RunLine, Step, Trailer, FORMAT, FORMAT_VERSION,
};
pub use serve::{Miss, Pace, ReplayError, ReplayOptions, ReplayServer};

/// The JSON Schema of one cassette line (docs/cassette.md carries it).
pub fn cassette_schema() -> String {
    let schema = schemars::schema_for!(Line);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests;
