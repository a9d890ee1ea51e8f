//! The judge stage: how a step's stop reads as a run's verdict (`fail` is
//! reserved for a valid answer that breaks the promise; an `interfaces[…]`
//! row whose URL serves nothing is that promise broken), and how a peer's
//! runs read as its declaration rows (the report crate's verdict rules).

use super::context::{not_served_message, Stop, StopKind};
use super::plan::Planned;
use a2a_conform_protocol::card::Card;
use a2a_conform_protocol::declaration::DeclarationId;
use a2a_conform_report::{DeclarationReport, ErrorKind, FailKind, ScenarioReport, ScenarioVerdict};

/// The verdict of a run that `stop` ended; an unserved interface's message
/// is reworded as its failure.
pub(crate) fn stop(stop: &mut Stop, planned: &Planned<'_>) -> Judged {
    let (verdict, error_kind, fail_kind) = match stop.kind {
        StopKind::Fail => (ScenarioVerdict::Fail, None, None),
        StopKind::WrongCode => (ScenarioVerdict::Fail, None, Some(FailKind::WrongCode)),
        StopKind::Inconclusive => (ScenarioVerdict::Inconclusive, None, None),
        // An `interfaces[…]` row promises A2A at its URL: nothing
        // served there is the very promise broken, so the run fails.
        StopKind::Error(ErrorKind::NotServed) if verifies_interfaces(planned) => {
            stop.message = not_served_message(&stop.message);
            (ScenarioVerdict::Fail, None, None)
        }
        StopKind::Error(kind) => (ScenarioVerdict::Error, Some(kind), None),
    };
    Judged {
        verdict,
        error_kind,
        fail_kind,
    }
}

/// A stopped run's verdict, and the kind of its error or failure.
pub(crate) struct Judged {
    pub(crate) verdict: ScenarioVerdict,
    pub(crate) error_kind: Option<ErrorKind>,
    pub(crate) fail_kind: Option<FailKind>,
}

/// Whether a run verifies only `interfaces[…]` declarations.
fn verifies_interfaces(planned: &Planned<'_>) -> bool {
    !planned.verifies.is_empty()
        && planned
            .verifies
            .iter()
            .all(|d| matches!(d, DeclarationId::Interface { .. }))
}

/// The peer's declaration rows: every declaration of the card, judged by
/// the runs that verify it.
pub(crate) fn declarations(card: &Card, runs: &[ScenarioReport]) -> Vec<DeclarationReport> {
    a2a_conform_report::verdict::judge_declarations(&card.declarations(), runs)
}
