//! Concluding a report: the last verdict stage, where the run's rules and
//! its baseline are applied and the summary is taken, in one order, once.
//! `check` concludes the report the engine returns; `merge` concludes the
//! report it joined. Above [`crate::verdict`] and [`crate::baseline`], which
//! it calls.

use crate::baseline::Baseline;
use crate::verdict::summarize;
use crate::RunReport;

/// The rules of a run that change what counts, as `check` was given them.
/// The default is `check` with none of these flags.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rules<'a> {
    /// `--fail-on-flaky`: a flaky run fails the run (exit 1).
    pub fail_on_flaky: bool,
    /// `--fail-on-unverified`: a declared row left unverified fails the run (exit 4).
    pub fail_on_unverified: bool,
    /// `--baseline FILE`: the known divergences that do not fail the run.
    pub baseline: Option<&'a Baseline>,
    /// `--strict-baseline`: a stale baseline entry fails the run.
    pub strict_baseline: bool,
}

/// Concludes a report: the last of the verdict decisions, in the one order
/// they are made, after which the report is what every format renders.
///
/// 1. Each declaration row was judged from the runs that verify it when
///    its peer's runs ended ([`judge_declarations`](crate::verdict::judge_declarations), in the engine; `merge`
///    judges again over the union of a peer's runs). Nothing after this
///    changes a verdict.
/// 2. The rules are recorded in the report (`fail_on_flaky`,
///    `fail_on_unverified`), so a report read back counts as it did here.
/// 3. The baseline marks the rows and runs it excuses (`baselined`) and
///    records what each entry did ([`Baseline::apply`]).
/// 4. The summary is computed from all of that — the counts and the exit
///    code ([`summarize`], [`exit_code`](crate::verdict::exit_code)) — and stored in
///    `report.summary`, which the renderers and the CLI read.
///
/// Call it again after changing the report (a re-applied baseline, a
/// merge): the summary is of the report as it stood when concluded.
pub fn conclude(report: &mut RunReport, rules: &Rules<'_>) {
    report.fail_on_flaky = rules.fail_on_flaky;
    report.fail_on_unverified = rules.fail_on_unverified;
    if let Some(baseline) = rules.baseline {
        baseline.apply(report, rules.strict_baseline);
    }
    report.summary = Some(summarize(report));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::{exit_reasons, judge_declarations};
    use crate::Summarized;
    use crate::{exit, PeerReport, RunOutcome, ScenarioReport, ScenarioVerdict};
    use a2a_conform_protocol::card::Declaration;

    fn d(id: &str) -> Declaration {
        Declaration {
            id: id.parse().expect("a declaration id"),
            declared: true,
        }
    }

    fn run(id: &str, verifies: &str, verdict: ScenarioVerdict) -> ScenarioReport {
        ScenarioReport::builder(id, verdict)
            .verifies(verifies)
            .build()
    }

    fn one_peer(runs: Vec<ScenarioReport>) -> RunReport {
        let declarations =
            judge_declarations(&[d("lifecycle.cancel"), d("capabilities.streaming")], &runs);
        RunReport::new(vec![PeerReport::builder("u")
            .declarations(declarations)
            .scenarios(runs)
            .build()])
    }

    #[test]
    fn conclude_records_the_rules_applies_the_baseline_then_summarizes_once() {
        let mut report = one_peer(vec![
            run("c", "lifecycle.cancel", ScenarioVerdict::Fail),
            run("s", "capabilities.streaming", ScenarioVerdict::Flaky),
        ]);
        assert_eq!(
            report.summary().exit_code,
            exit::DIVERGED,
            "not concluded yet"
        );
        assert!(report.summary.is_none());
        let baseline = Baseline::parse(
            "known.yaml",
            "- declaration: lifecycle.cancel\n  reason: ACME-1\n",
        )
        .unwrap();
        let rules = Rules {
            baseline: Some(&baseline),
            ..Rules::default()
        };
        conclude(&mut report, &rules);
        let summary = report.summary.clone().expect("stored");
        // The baseline was applied before the summary was taken.
        assert_eq!(summary.exit_code, exit::OK);
        assert_eq!(summary.counts.declarations.baselined, 1);
        assert!(report.peers[0].declarations[0].baselined);
        assert_eq!(*report.summary(), summary);
        // The rules are recorded in the report, and count.
        conclude(
            &mut report,
            &Rules {
                fail_on_flaky: true,
                ..rules
            },
        );
        assert!(report.fail_on_flaky);
        assert_eq!(report.summary().outcome, RunOutcome::Fail);
        assert_eq!(exit_reasons(&report), vec!["s is flaky (--fail-on-flaky)"]);
    }
}
