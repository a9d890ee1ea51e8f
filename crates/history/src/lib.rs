//! The history of a fleet's checks in a real database — SQLite embedded
//! (`sqlite:PATH`, created on first open) or PostgreSQL shared
//! (`postgres://…`) — for `a2a-conform watch` and `history`. Each check's
//! report is recorded; what is kept per (peer, declaration) is not a row
//! per check but an *interval* per run of equal verdicts, so a year of
//! hourly checks of a stable fleet is a row per declaration
//! (docs/history.md has the arithmetic).
//!
//! # The API
//!
//! - [`Store::open`] opens (and migrates: [`SCHEMA_VERSION`]) a store,
//!   making a new SQLite file if need be; [`Store::open_existing`], for a
//!   reader, never makes one ([`Error::NoStore`]). A database a newer
//!   build migrated is refused ([`Error::NewerSchema`]); so is a SQLite
//!   file of another program ([`Error::NotAStore`]).
//! - [`Store::record`] adds a report ([`RunReport`](a2a_conform_report::RunReport)):
//!   one record, its deflated JSON as evidence, the peers' intervals
//!   extended or opened. [`Store::import`] records `check --json` files
//!   (shards too: a report of several peers); [`Store::export`] and
//!   [`Store::reports`] give them back; [`Store::prune`] drops old reports
//!   and keeps their intervals.
//! - The history: [`Store::intervals`] (one declaration), [`Store::changes`]
//!   (a peer's timeline), [`Store::card_history`], [`Store::peers`], and
//!   [`Store::regressions`] between a peer's last two records, typed
//!   ([`Regression`]) for drift alerts.
//! - What a dashboard reads at fleet scale, each in a fixed number of
//!   queries whatever the fleet's size: [`Store::peer_count`],
//!   [`Store::latest_records`] and [`Store::page_intervals`] (a page of
//!   peers), [`Store::current_verdicts`] (every current verdict) and
//!   [`Store::latest_report`] (one peer's newest stored report, read from
//!   its latest record alone).
//!
//! The store is synchronous (one connection); an async caller runs it on
//! a blocking thread (`tokio::task::spawn_blocking`). Writers are
//! serialized per transaction, so shards may import into one store at once.
//! A PostgreSQL connection the server closed (a restart) is made again on
//! its next use, and a read that found it closed runs once more, so a
//! long-running reader (the dashboard) outlives a database restart.
//!
//! # Example
//!
//! ```
//! use a2a_conform_history::{Regression, Store};
//! use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};
//!
//! let peer = "https://peer.example/.well-known/agent-card.json";
//! let check = |verdict| {
//!     let row = DeclarationReport::builder("lifecycle.cancel", verdict).build();
//!     RunReport::new(vec![PeerReport::builder(peer).declarations(vec![row]).build()])
//! };
//! let dir = tempfile::tempdir()?;
//! let mut store = Store::open(&format!("sqlite:{}", dir.path().join("watch.db").display()))?;
//! store.record(&check(DeclarationVerdict::Honoured))?;
//! store.record(&check(DeclarationVerdict::Honoured))?; // extends the interval
//! let latest = store.record(&check(DeclarationVerdict::Diverged))?; // opens one
//!
//! let history = store.intervals(peer, "lifecycle.cancel")?;
//! assert_eq!(history.len(), 2);
//! assert_eq!((history[0].first_record, history[0].last_record), (1, 2));
//! assert_eq!(
//!     store.regressions(peer)?,
//!     vec![Regression::Verdict {
//!         peer: peer.into(),
//!         declaration: "lifecycle.cancel".into(),
//!         before: DeclarationVerdict::Honoured,
//!         after: DeclarationVerdict::Diverged,
//!         record: latest,
//!     }]
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

mod archive;
mod db;
mod error;
mod latest;
mod model;
#[cfg(feature = "postgres")]
mod pg;
mod query;
mod record;
mod schema;
mod store;
mod value;

pub use error::Error;
pub use model::{CardInterval, Interval, RecordId, Regression};
pub use query::PeerLatest;
pub use schema::SCHEMA_VERSION;
pub use store::Store;
