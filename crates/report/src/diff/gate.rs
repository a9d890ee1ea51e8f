//! What makes `diff` a release gate beyond labelling: a baseline's known
//! divergences are not regressions (the same file `check --baseline` reads),
//! deliberate changes acknowledged with `--accept ID` or the baseline's
//! `accept:` list are listed as accepted instead of failing, and the
//! changes are ordered regressions, fixes, drift, accepted.

use super::model::{Change, FailOn, Kind, Label};
use crate::baseline::{Accept, Baseline};
use crate::RunReport;

/// How `diff` judges the changes it finds.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// `--fail-on`: which changes make the diff fail.
    pub fail_on: FailOn,
    /// `--accept ID` (repeatable).
    pub accept: Vec<String>,
    /// `--baseline FILE`: its known divergences are applied to the new
    /// report, its `accept:` ids join `--accept`.
    pub baseline: Option<Baseline>,
}

impl DiffOptions {
    /// Options with nothing accepted and no baseline.
    pub fn new(fail_on: FailOn) -> DiffOptions {
        DiffOptions {
            fail_on,
            accept: Vec::new(),
            baseline: None,
        }
    }

    /// Every accepted id: `--accept` first, then the baseline's list.
    pub fn accepts(&self) -> Vec<Accept> {
        let flags = self.accept.iter().map(|id| Accept {
            id: id.trim().to_string(),
            reason: None,
            line: 0,
        });
        let listed = self.baseline.iter().flat_map(|b| b.accept.iter().cloned());
        flags.chain(listed).collect()
    }
}

/// Where a label sorts: regressions first.
pub(crate) fn rank(label: Label) -> u8 {
    match label {
        Label::Regression => 0,
        Label::Fix => 1,
        Label::Drift => 2,
        Label::Accepted => 3,
    }
}

/// Relabels as accepted every change an accepted id names: its own id (a
/// declaration, scenario run, card field or peer URL), or, for a scenario
/// run, a declaration the run verifies. Returns the accepted ids that named
/// no change, so a typo is not silently ignored.
pub(crate) fn accept_changes(
    changes: &mut [Change],
    accepts: &[Accept],
    old: &RunReport,
    new: &RunReport,
) -> Vec<String> {
    let verifies = |run_id: &str| -> Vec<&str> {
        old.peers
            .iter()
            .chain(&new.peers)
            .flat_map(|p| &p.scenarios)
            .filter(|r| r.id == run_id)
            .flat_map(|r| r.verifies.iter().map(String::as_str))
            .collect()
    };
    let mut used = vec![false; accepts.len()];
    for change in changes.iter_mut() {
        let verified = if change.kind == Kind::Scenario {
            verifies(&change.id)
        } else {
            Vec::new()
        };
        let by = accepts
            .iter()
            .position(|a| a.id == change.id || verified.contains(&a.id.as_str()));
        if let Some(i) = by {
            used[i] = true;
            let accept = &accepts[i];
            let why = match &accept.reason {
                Some(reason) => format!("accepted ({}: {reason})", accept.id),
                None => format!("accepted ({})", accept.id),
            };
            change.message = format!("{why}; was {}: {}", change.label, change.message);
            change.label = Label::Accepted;
        }
    }
    let mut unmatched: Vec<String> = Vec::new();
    for (accept, used) in accepts.iter().zip(used) {
        if !used && !unmatched.contains(&accept.id) {
            unmatched.push(accept.id.clone());
        }
    }
    unmatched
}

/// Whether two URLs differ at most in host and port: a peer that moved
/// (another port per run, another host per environment) is the same peer.
pub(crate) fn same_place(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    match (url::Url::parse(a), url::Url::parse(b)) {
        (Ok(a), Ok(b)) => {
            a.scheme() == b.scheme()
                && a.path() == b.path()
                && a.query() == b.query()
                && a.fragment() == b.fragment()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_alone_are_the_same_place() {
        assert!(same_place(
            "http://127.0.0.1:4001/a2a",
            "http://127.0.0.1:5002/a2a"
        ));
        assert!(same_place(
            "https://staging.example/a2a",
            "https://prod.example/a2a"
        ));
        assert!(!same_place("http://h/a2a", "http://h/v2/a2a"));
        assert!(!same_place("http://h/a2a", "https://h/a2a"));
    }

    #[test]
    fn labels_rank_regressions_first() {
        let mut labels = vec![Label::Accepted, Label::Drift, Label::Fix, Label::Regression];
        labels.sort_by_key(|l| rank(*l));
        assert_eq!(
            labels,
            vec![Label::Regression, Label::Fix, Label::Drift, Label::Accepted]
        );
    }
}
