//! Counting a report: each peer's declaration rows and scenario runs by
//! verdict, added up into the run's [`RunSummary`] for the exit code
//! [`crate::verdict`] picks. Counting only: what counts is decided there.

use crate::summary::{Counts, RunOutcome, RunSummary};
use crate::{DeclarationVerdict, PeerReport, RunReport, ScenarioVerdict};

/// The counts of `report`, read as `exit_code`.
pub fn summary_with(report: &RunReport, exit_code: i32) -> RunSummary {
    let counts = report
        .peers
        .iter()
        .map(peer_counts)
        .fold(Counts::default(), Counts::add);
    RunSummary {
        outcome: RunOutcome::of_exit_code(exit_code),
        exit_code,
        peers: report.peers.len(),
        peers_without_card: report
            .peers
            .iter()
            .filter(|p| p.card_error.is_some() && !p.interrupted)
            .count(),
        peers_interrupted: report.peers.iter().filter(|p| p.interrupted).count(),
        every_declaration_honoured: counts.every_declaration_honoured()
            && report.peers.iter().all(|p| p.card_error.is_none()),
        counts,
        duration_ms: report.duration_ms.unwrap_or_else(|| {
            report
                .peers
                .iter()
                .filter_map(|p| p.duration_ms)
                .max()
                .unwrap_or(0)
        }),
    }
}

/// One peer's rows and runs, counted by verdict.
pub fn peer_counts(peer: &PeerReport) -> Counts {
    let mut c = Counts::default();
    for d in &peer.declarations {
        let n = &mut c.declarations;
        match d.verdict {
            DeclarationVerdict::Honoured => n.honoured += 1,
            DeclarationVerdict::Diverged => {
                n.diverged += 1;
                if d.baselined {
                    n.baselined += 1;
                }
            }
            DeclarationVerdict::Unverified => n.unverified += 1,
            DeclarationVerdict::NotDeclared => n.not_declared += 1,
            DeclarationVerdict::OverDelivers => n.over_delivers += 1,
        }
        if d.declared {
            c.declared += 1;
            if d.verdict == DeclarationVerdict::Honoured {
                c.declared_honoured += 1;
            }
        }
    }
    for s in &peer.scenarios {
        let n = &mut c.runs;
        n.total += 1;
        match s.verdict {
            ScenarioVerdict::Pass => n.pass += 1,
            ScenarioVerdict::Fail => n.fail += 1,
            ScenarioVerdict::Flaky => n.flaky += 1,
            ScenarioVerdict::Inconclusive => n.inconclusive += 1,
            ScenarioVerdict::Skipped => n.skipped += 1,
            ScenarioVerdict::Error => n.error += 1,
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{exit, DeclarationReport};

    fn summary_row(verdict: DeclarationVerdict, baselined: bool) -> DeclarationReport {
        DeclarationReport {
            id: "x".into(),
            declared: verdict != DeclarationVerdict::NotDeclared,
            verdict,
            scenarios: vec![],
            reason: String::new(),
            baselined,
            baseline_reason: None,
        }
    }

    fn rows_report(rows: Vec<DeclarationReport>) -> RunReport {
        RunReport::new(vec![PeerReport {
            declarations: rows,
            ..PeerReport::new("u")
        }])
    }

    #[test]
    fn the_headline_says_only_what_the_counts_say() {
        use DeclarationVerdict::*;
        let mut rows = vec![summary_row(Diverged, true)];
        rows.extend((0..6).map(|_| summary_row(Honoured, false)));
        rows.extend((0..4).map(|_| summary_row(Unverified, false)));
        let s = summary_with(&rows_report(rows), exit::OK);
        assert_eq!(
            s.headline(),
            "pass — 6 honoured, 1 diverged (baselined), 4 unverified"
        );
        assert!(!s.every_declaration_honoured);
        let s = summary_with(
            &rows_report(vec![
                summary_row(Honoured, false),
                summary_row(NotDeclared, false),
            ]),
            exit::OK,
        );
        assert!(s.every_declaration_honoured);
        assert_eq!(
            s.headline(),
            "pass — every declaration honoured (1 honoured)"
        );
        // An undeclared row left unverified: every declared row is
        // honoured, but the headline leads with the counts.
        let mut undeclared = summary_row(Unverified, false);
        undeclared.declared = false;
        let s = summary_with(
            &rows_report(vec![summary_row(Honoured, false), undeclared]),
            exit::OK,
        );
        assert!(s.every_declaration_honoured);
        assert_eq!(
            s.headline(),
            "pass — 1 honoured, 1 unverified; every declared row honoured"
        );
        let s = summary_with(
            &rows_report(vec![summary_row(Unverified, false)]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "nothing verified — 0 honoured, 1 unverified");
        let s = summary_with(
            &rows_report(vec![
                summary_row(Honoured, false),
                summary_row(Unverified, false),
            ]),
            exit::NOTHING_VERIFIED,
        );
        assert_eq!(s.headline(), "unverified — 1 honoured, 1 unverified");
        let s = summary_with(
            &rows_report(vec![
                summary_row(Diverged, true),
                summary_row(Diverged, false),
            ]),
            exit::DIVERGED,
        );
        assert_eq!(s.headline(), "fail — 0 honoured, 2 diverged (1 baselined)");
    }

    #[test]
    fn a_peer_not_reached_before_a_signal_is_not_counted_as_without_a_card() {
        let down = PeerReport {
            card_error: Some("connection refused".into()),
            ..PeerReport::new("down")
        };
        let report = RunReport::new(vec![
            down,
            PeerReport::interrupted("later", "before this peer was checked"),
        ]);
        let s = summary_with(&report, exit::INTERRUPTED);
        assert_eq!((s.peers_without_card, s.peers_interrupted), (1, 1));
        assert!(!s.every_declaration_honoured);
        assert!(
            s.phrase().ends_with(
                "; 1 of 2 peer(s) unreachable or without a valid card; \
                 1 of 2 peer(s) not checked before the interruption"
            ),
            "{}",
            s.phrase()
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["peers_interrupted"], 1);
        let none = summary_with(&rows_report(vec![]), exit::OK);
        let v = serde_json::to_value(&none).unwrap();
        assert!(v.get("peers_interrupted").is_none(), "{v}");
    }

    #[test]
    fn the_json_summary_carries_the_counts_flat() {
        let s = summary_with(
            &rows_report(vec![summary_row(DeclarationVerdict::Honoured, false)]),
            exit::OK,
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["outcome"], "pass");
        assert_eq!(v["declarations"]["honoured"], 1);
        assert_eq!(v["runs"]["total"], 0);
        assert_eq!(v["every_declaration_honoured"], true);
    }
}
