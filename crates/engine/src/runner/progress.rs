//! Live progress for a person watching a check: the events of its pipeline
//! as they happen (a no-op for reports and tests). The CLI shows them on a
//! terminal; a library user may count or log them.

use a2a_conform_report::{PeerReport, ScenarioReport};

/// Live progress for a person watching (a no-op for reports and tests).
/// Peers run concurrently, so every call names its peer by card URL (the
/// input as given until the card is read). Every method has an empty
/// default: implement the ones you show.
pub trait Progress: Send + Sync {
    /// Before the first peer: how many peers this check covers.
    fn check_started(&self, _peers: usize) {}
    /// A peer's card was read: its URL, the card's name, and its planned runs.
    fn peer_started(&self, _card_url: &str, _name: Option<&str>, _runs: usize) {}
    /// A run got its slot and starts (a run that will not run, skipped or
    /// failed to start, only finishes). It may last up to
    /// [`MAX_RUN`](crate::runner::MAX_RUN) before [`Progress::run_finished`].
    fn run_started(&self, _card_url: &str, _run_id: &str) {}
    /// A run is done: its report, verdict and all.
    fn run_finished(&self, _card_url: &str, _run: &ScenarioReport) {}
    /// A peer is done (its report is final, a card error included).
    fn peer_finished(&self, _peer: &PeerReport) {}
    /// Every peer is done.
    fn check_finished(&self) {}
}

/// Progress that shows nothing.
pub struct Quiet;

impl Progress for Quiet {}
