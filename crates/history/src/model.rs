//! What the store answers with: a record's id, the verdict and card
//! intervals of a peer's history, and the regressions between a peer's last
//! two records (the input drift alerts are made from).

use a2a_conform_report::DeclarationVerdict;

/// A recorded report's id: records are numbered in the order they were
/// recorded, from 1.
pub type RecordId = i64;

/// A run of equal verdicts of one declaration of one peer: from the first
/// record that judged it so to the last, with no record of the peer in
/// between that judged it otherwise or left it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interval {
    /// The peer's card URL, as its report names it.
    pub peer: String,
    /// The declaration id (`lifecycle.cancel`, …).
    pub declaration: String,
    /// The verdict throughout.
    pub verdict: DeclarationVerdict,
    /// The first record of this verdict.
    pub first_record: RecordId,
    /// The last record of this verdict so far.
    pub last_record: RecordId,
    /// When the first record's check started (RFC 3339, from the report).
    pub first_seen: String,
    /// When the last record's check started.
    pub last_seen: String,
}

/// A run of one card digest of a peer (`None`: the card could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardInterval {
    /// The peer's card URL.
    pub peer: String,
    /// The card's digest throughout, `None` while it could not be read.
    pub digest: Option<String>,
    /// The first record of this digest.
    pub first_record: RecordId,
    /// The last record of this digest so far.
    pub last_record: RecordId,
    /// When the first record's check started.
    pub first_seen: String,
    /// When the last record's check started.
    pub last_seen: String,
}

/// Something that got worse between a peer's previous record and its
/// latest one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Regression {
    /// A declaration's verdict regressed: to `diverged` from any other
    /// verdict, or to `unverified` from a decided one (`honoured`,
    /// `diverged`: the peer could be checked, and now cannot).
    Verdict {
        /// The peer's card URL.
        peer: String,
        /// The declaration id.
        declaration: String,
        /// Its verdict in the previous record.
        before: DeclarationVerdict,
        /// Its verdict in the latest record.
        after: DeclarationVerdict,
        /// The latest record (whose report holds the evidence).
        record: RecordId,
    },
    /// The card's digest changed (or the card became or stopped being
    /// unreadable: `None`).
    CardChanged {
        /// The peer's card URL.
        peer: String,
        /// The digest in the previous record.
        before: Option<String>,
        /// The digest in the latest record.
        after: Option<String>,
        /// The latest record.
        record: RecordId,
    },
}

/// Whether going from `before` to `after` is a regression (see
/// [`Regression::Verdict`]).
pub(crate) fn regresses(before: DeclarationVerdict, after: DeclarationVerdict) -> bool {
    use DeclarationVerdict::{Diverged, Honoured, Unverified};
    match after {
        Diverged => before != Diverged,
        Unverified => matches!(before, Honoured | Diverged),
        _ => false,
    }
}
