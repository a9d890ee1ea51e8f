//! The one place that decides what counts: scenario runs → declaration
//! verdicts ([`judge_declarations`]), and a report → its [`RunSummary`] and
//! the process exit code ([`summarize`], [`exit_code`]: known divergences
//! from a baseline excused, flaky runs, unverified rows and stale baseline
//! entries counted when the report's rules say so). A run that tested
//! nothing never reads as success. [`crate::conclude`] calls these in their
//! one order to finish a report.
//!
//! `fail` is a valid protocol answer that breaks the promise; an answer that
//! is no valid A2A answer is a peer malfunction (an `error` run): it never
//! diverges nor over-delivers a declaration, which reads `unverified` with
//! the malfunction as its reason, and it fails the run with exit 3.

use crate::exit;
use crate::{
    BaselineStatus, DeclarationReport, DeclarationVerdict, ErrorKind, FailKind, PeerReport,
    RunReport, RunSummary, ScenarioReport, ScenarioVerdict,
};
use a2a_conform_protocol::card::Declaration;
use a2a_conform_report_schema::tally;
pub use a2a_conform_report_schema::tally::peer_counts;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// A report's summary whether or not it was concluded: the judging half of
/// [`RunReport`], which the schema crate defines without the rules.
pub trait Summarized {
    /// The run's summary: the one [`crate::conclude`] stored, or, for a
    /// report that has none (built by hand, or not concluded yet), computed
    /// from the report as it stands.
    fn summary(&self) -> Cow<'_, RunSummary>;
}

impl Summarized for RunReport {
    fn summary(&self) -> Cow<'_, RunSummary> {
        match self.stored_summary() {
            Some(summary) => Cow::Borrowed(summary),
            None => Cow::Owned(summarize(self)),
        }
    }
}

/// Whether a run ended in a peer malfunction (not a valid A2A answer).
pub fn malfunctioned(run: &ScenarioReport) -> bool {
    run.verdict == ScenarioVerdict::Error
        && matches!(
            run.error_kind,
            Some(ErrorKind::PeerMalfunction | ErrorKind::NotServed | ErrorKind::StreamReset)
        )
}

/// Judges each declaration from the scenario runs that verify it.
/// `declarations` is the card's list, in report order.
///
/// Runs are indexed by the ids they verify, so a card with 100,000 rows and
/// as many runs is judged in near-linear time, not rows × runs.
pub fn judge_declarations(
    declarations: &[Declaration],
    runs: &[ScenarioReport],
) -> Vec<DeclarationReport> {
    // Rows key on the id's wire spelling: runs carry it as written in the report.
    let mut rows: Vec<(String, bool)> = declarations
        .iter()
        .map(|d| (d.id.to_string(), d.declared))
        .collect();
    let mut by_id: HashMap<String, Vec<&ScenarioReport>> = HashMap::new();
    for run in runs {
        for id in &run.verifies {
            let related = by_id.entry(id.clone()).or_default();
            // A run naming an id twice still counts once.
            if !related.last().is_some_and(|r| std::ptr::eq(*r, run)) {
                related.push(run);
            }
        }
    }
    // A scenario may verify something the card's list does not name (a custom
    // suite's own declaration id): it gets a row too, as declared, in the
    // order the runs first name it.
    let mut listed: HashSet<String> = rows.iter().map(|(id, _)| id.clone()).collect();
    for run in runs {
        for id in &run.verifies {
            if listed.insert(id.clone()) {
                rows.push((id.clone(), true));
            }
        }
    }
    rows.into_iter()
        .map(|(id, declared)| {
            let related = by_id.get(&id).cloned().unwrap_or_default();
            let (verdict, reason) = judge_one(declared, &related);
            DeclarationReport {
                scenarios: related
                    .iter()
                    .filter(|r| r.verdict != ScenarioVerdict::Skipped)
                    .map(|r| r.id.clone())
                    .collect(),
                id,
                declared,
                verdict,
                reason,
                baselined: false,
                baseline_reason: None,
            }
        })
        .collect()
}

fn judge_one(declared: bool, runs: &[&ScenarioReport]) -> (DeclarationVerdict, String) {
    let with = |v: ScenarioVerdict| runs.iter().filter(move |r| r.verdict == v);
    let failed: Vec<&&ScenarioReport> = with(ScenarioVerdict::Fail).collect();
    let passed = with(ScenarioVerdict::Pass).count() + with(ScenarioVerdict::Flaky).count();
    let flaky: Vec<&&ScenarioReport> = with(ScenarioVerdict::Flaky).collect();
    let open: Vec<&&ScenarioReport> = runs
        .iter()
        .filter(|r| {
            matches!(
                r.verdict,
                ScenarioVerdict::Inconclusive | ScenarioVerdict::Error
            )
        })
        .collect();
    let broken: Vec<&&ScenarioReport> = runs.iter().filter(|r| malfunctioned(r)).collect();
    if !declared {
        return judge_undeclared(runs, &failed, passed, &open, &broken);
    }
    if let Some(run) = failed.first() {
        let more = if failed.len() > 1 {
            format!(" (and {} more failing run(s))", failed.len() - 1)
        } else {
            String::new()
        };
        return (
            DeclarationVerdict::Diverged,
            format!("{}: {}{more}", run.id, run.message),
        );
    }
    // A run the peer answered with no valid A2A answer leaves the promise
    // unverified, whatever other runs passed.
    if let Some(run) = broken.first() {
        let more = if broken.len() > 1 {
            format!(" (and {} more malfunctioning run(s))", broken.len() - 1)
        } else {
            String::new()
        };
        return (
            DeclarationVerdict::Unverified,
            format!("{}: {}{more}", run.id, run.message),
        );
    }
    if passed > 0 {
        return (
            DeclarationVerdict::Honoured,
            honoured_reason(passed, &flaky, open.len(), runs),
        );
    }
    if let Some(run) = open.first() {
        return (
            DeclarationVerdict::Unverified,
            format!("{} {}: {}", run.id, run.verdict.as_str(), run.message),
        );
    }
    let skipped = runs
        .iter()
        .find(|r| r.verdict == ScenarioVerdict::Skipped)
        .map(|r| format!("{} skipped: {}", r.id, r.message));
    (
        DeclarationVerdict::Unverified,
        skipped.unwrap_or_else(|| "no scenario in the suite verifies it".into()),
    )
}

/// An undeclared row: the refusal the spec requires, checked by the runs
/// gated on "not declared".
fn judge_undeclared(
    runs: &[&ScenarioReport],
    failed: &[&&ScenarioReport],
    passed: usize,
    open: &[&&ScenarioReport],
    broken: &[&&ScenarioReport],
) -> (DeclarationVerdict, String) {
    // A refusal is owed and came with another code than the spec names:
    // the runtime breaks the spec, whatever the card says.
    if let Some(run) = failed
        .iter()
        .find(|r| r.fail_kind == Some(FailKind::WrongCode))
    {
        return (
            DeclarationVerdict::Diverged,
            format!(
                "not declared, and the runtime refuses it with another error than the spec requires: {}: {}",
                run.id, run.message
            ),
        );
    }
    // Scenarios gated on "not declared" check the refusal the spec
    // requires; a failure there (a valid answer that served the request)
    // means the runtime serves it anyway. A malfunction is never that.
    if let Some(run) = failed.first() {
        return (
            DeclarationVerdict::OverDelivers,
            format!("not declared, yet {}: {}", run.id, run.message),
        );
    }
    // Nor is a run the tool's own cap (or an unreachable peer) ended:
    // the refusal was not seen either way.
    let unknown = runs.iter().find(|r| r.verdict == ScenarioVerdict::Error);
    if let Some(run) = broken.first().copied().or(unknown) {
        return (
            DeclarationVerdict::Unverified,
            format!(
                "not declared; whether the runtime refuses it is unknown: {}: {}",
                run.id, run.message
            ),
        );
    }
    // A refusal that breaks a SHOULD (a 0.3 peer's other code) leaves
    // the refusal the spec names unseen: said, never "as required".
    let warned = open.iter().find(|r| r.message.starts_with("warning: "));
    if let (0, Some(run)) = (passed, warned) {
        return (
            DeclarationVerdict::Unverified,
            format!("not declared; {}: {}", run.id, run.message),
        );
    }
    let reason = if passed > 0 {
        "not declared, and the runtime refuses it as the spec requires".to_string()
    } else {
        "not declared by the card".to_string()
    };
    (DeclarationVerdict::NotDeclared, reason)
}

/// An honoured row's reason: how many runs passed, which were flaky, how
/// many more could not be verified, and what each passing run noted.
fn honoured_reason(
    passed: usize,
    flaky: &[&&ScenarioReport],
    open: usize,
    runs: &[&ScenarioReport],
) -> String {
    let mut reason = format!("{passed} scenario run(s) passed");
    if !flaky.is_empty() {
        reason.push_str(&format!(
            "; flaky: {}",
            flaky
                .iter()
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if open > 0 {
        reason.push_str(&format!("; {open} more could not be verified"));
    }
    for run in runs.iter().filter(|r| r.verdict == ScenarioVerdict::Pass) {
        if let Some(remarks) = pass_remarks(&run.message) {
            reason.push_str(&format!("; {}: {remarks}", run.id));
        }
    }
    reason
}

/// What a passing run noted besides passing (the engine writes `all N
/// steps passed; <remark>; …`): the canonical form a card signature
/// verified over, a resume answered by a re-prompt. A row honoured on such
/// a run says it, not only its evidence.
fn pass_remarks(message: &str) -> Option<&str> {
    let (count, remarks) = message
        .strip_prefix("all ")?
        .split_once(" steps passed; ")?;
    (count.parse::<usize>().is_ok() && !remarks.is_empty()).then_some(remarks)
}

/// Why the report fails the run (exit 1), one line each: every diverged
/// declaration that no baseline entry excuses, every flaky run under
/// `--fail-on-flaky`, every stale baseline entry under `--strict-baseline`.
pub fn failing_reasons(report: &RunReport) -> Vec<String> {
    let mut reasons = Vec::new();
    let many = report.peers.len() > 1;
    let on = |peer: &PeerReport| {
        if many {
            format!(" ({})", peer.card_url)
        } else {
            String::new()
        }
    };
    for peer in &report.peers {
        for d in &peer.declarations {
            if d.verdict == DeclarationVerdict::Diverged && !d.baselined {
                reasons.push(format!("{} diverged{}", d.id, on(peer)));
            }
        }
    }
    if report.fail_on_flaky {
        for peer in &report.peers {
            for s in &peer.scenarios {
                if s.verdict == ScenarioVerdict::Flaky && !s.baselined {
                    reasons.push(format!("{} is flaky{} (--fail-on-flaky)", s.id, on(peer)));
                }
            }
        }
    }
    if let Some(baseline) = report.baseline.as_ref().filter(|b| b.strict) {
        for e in &baseline.entries {
            if e.status == BaselineStatus::Stale {
                reasons.push(format!(
                    "baseline entry `{}` is stale: {} (--strict-baseline)",
                    e.target(),
                    e.note
                ));
            }
        }
    }
    reasons
}

/// Under `--fail-on-unverified`, one line per declared row left unverified:
/// each fails the run with exit 4.
pub fn unverified_reasons(report: &RunReport) -> Vec<String> {
    if !report.fail_on_unverified {
        return vec![];
    }
    let many = report.peers.len() > 1;
    report
        .peers
        .iter()
        .flat_map(|peer| {
            peer.declarations
                .iter()
                .filter(|d| d.declared && d.verdict == DeclarationVerdict::Unverified)
                .map(move |d| {
                    let on = if many {
                        format!(" ({})", peer.card_url)
                    } else {
                        String::new()
                    };
                    format!(
                        "{} unverified{on}: {} (--fail-on-unverified)",
                        d.id,
                        a2a_conform_protocol::text::one_line(&d.reason, 200)
                    )
                })
        })
        .collect()
}

/// One line per peer that refused the credentials given on every request
/// that carried them: the check could not verify what it was asked to with
/// them, so it fails closed (exit 4) even when a probe that needs none
/// passed. The line names where the credentials came from, never their
/// value. A peer that accepted some of them (a scope refused on one skill)
/// is judged row by row instead: those rows read unverified, with the
/// refusal as their reason.
pub fn credentials_reasons(report: &RunReport) -> Vec<String> {
    let many = report.peers.len() > 1;
    report
        .peers
        .iter()
        .filter(|p| p.card_error.is_none())
        .filter_map(|peer| {
            let credentials = peer.credentials.as_ref()?;
            if !credentials.refused_everywhere() {
                return None;
            }
            let on = if many {
                format!(" ({})", peer.card_url)
            } else {
                String::new()
            };
            Some(format!(
                "the credentials given were refused{on}: HTTP 401/403 on all {} request(s) that carried them ({}); check or renew them",
                credentials.sent,
                credentials.named()
            ))
        })
        .collect()
}

/// Why the report fails the run with exit 3 although every card was read:
/// one line per run that ended in a peer malfunction.
pub fn malfunction_reasons(report: &RunReport) -> Vec<String> {
    let many = report.peers.len() > 1;
    report
        .peers
        .iter()
        .flat_map(|peer| {
            peer.scenarios
                .iter()
                .filter(|s| malfunctioned(s))
                .map(move |s| {
                    let on = if many {
                        format!(" ({})", peer.card_url)
                    } else {
                        String::new()
                    };
                    format!("{}{on}: {}", s.id, s.message)
                })
        })
        .collect()
}

/// Why the run exits as it does, one line each, for stderr: what fails the
/// run (exit 1), the unverified rows under `--fail-on-unverified` or why
/// nothing counts as verified (exit 4). Empty for exit 0 and 3 (a card error
/// is printed on its own, malfunctions by [`malfunction_reasons`]). Read
/// from the report's summary (see [`RunReport::summary`]). Only the class
/// that decides the exit code: [`failing_classes`] holds every class.
pub fn exit_reasons(report: &RunReport) -> Vec<String> {
    let summary = report.summary();
    match summary.exit_code {
        exit::DIVERGED => failing_reasons(report),
        exit::NOTHING_VERIFIED => {
            let mut reasons = credentials_reasons(report);
            reasons.extend(unverified_reasons(report));
            if reasons.is_empty() {
                reasons = nothing_verified_reason(report).into_iter().collect();
            }
            reasons
        }
        _ => vec![],
    }
}

/// One class of reasons that fails the run, with the exit code it calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailingClass {
    /// The exit code this class calls for on its own (see [`exit`]).
    pub code: i32,
    /// What the class is, for the precedence note: `diverged`, `peer malfunction`, ….
    pub name: &'static str,
    /// One line per row, run or peer that is in the class.
    pub reasons: Vec<String>,
}

/// Every class of reason present in the report, in precedence order: the
/// first decides the exit code ([`exit_code`]). The order: a card that
/// could not be read (3; its error is printed on its own and holds no
/// line here), a divergence or `--fail-on-flaky` / `--strict-baseline`
/// rule (1), a peer malfunction (3), a peer unreachable on every run (3),
/// credentials given and refused on every request that carried them (4),
/// a declared row unverified under `--fail-on-unverified` (4), nothing
/// verified (4). A report with none exits 0.
///
/// Refused credentials call for 4, not 3: the peer answered as A2A
/// requires (a 401/403 to credentials it does not accept is the correct
/// answer, no malfunction, and the peer was reached), and what fails is
/// that nothing the check was asked to verify with them could be: the
/// "nothing verified" code, failing closed. They outrank the other code-4
/// classes because they are those rows' cause.
pub fn failing_classes(report: &RunReport) -> Vec<FailingClass> {
    let class = |code, name, reasons: Vec<String>| {
        (!reasons.is_empty()).then_some(FailingClass {
            code,
            name,
            reasons,
        })
    };
    let many = report.peers.len() > 1;
    let unreachable: Vec<String> = report
        .peers
        .iter()
        .filter(|p| p.card_error.is_none() && all_runs_unreachable(p))
        // A peer whose runs malfunctioned is named by those runs' lines.
        .filter(|p| !p.scenarios.iter().any(malfunctioned))
        .map(|p| {
            let on = if many {
                format!(" ({})", p.card_url)
            } else {
                String::new()
            };
            format!("every scenario run ended in error: the peer could not be reached after its card was read{on}")
        })
        .collect();
    // No peer at all is a card that could not be read, unless the report
    // is a shard of a fleet whose peers all fell in other shards: nothing
    // was reached or refused there, so it reads "nothing verified" (4).
    let cards_unread = (report.peers.is_empty() && empty_shard(report).is_none())
        || report.peers.iter().any(|p| p.card_error.is_some());
    let card_class = cards_unread.then_some(FailingClass {
        code: exit::PEER_UNREACHABLE,
        name: "card unreadable",
        reasons: vec![],
    });
    [
        card_class,
        class(exit::DIVERGED, "diverged", failing_reasons(report)),
        class(
            exit::PEER_UNREACHABLE,
            "peer malfunction",
            malfunction_reasons(report),
        ),
        class(exit::PEER_UNREACHABLE, "peer unreachable", unreachable),
        class(
            exit::NOTHING_VERIFIED,
            "credentials refused",
            credentials_reasons(report),
        ),
        class(
            exit::NOTHING_VERIFIED,
            "unverified",
            unverified_reasons(report),
        ),
        class(
            exit::NOTHING_VERIFIED,
            "nothing verified",
            nothing_verified_reason(report).into_iter().collect(),
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

impl FailingClass {
    /// How the class's lines are marked when the run exits `exit_code`:
    /// ` (exit N)` naming the class's own code unless it is the class that
    /// decides the exit code; a code-3 class (malfunction, unreachable)
    /// always names it, as its lines always have.
    pub fn mark(&self, exit_code: i32) -> String {
        if self.code == exit_code && self.code != exit::PEER_UNREACHABLE {
            String::new()
        } else {
            format!(" (exit {})", self.code)
        }
    }
}

/// When classes calling for different exit codes are present, the one line
/// that says which won: `exit 1: diverged outranks peer malfunction (exit
/// 3)`. `None` when one code is all there is.
pub fn precedence_note(classes: &[FailingClass]) -> Option<String> {
    let winner = classes.first()?;
    let mut others: Vec<String> = Vec::new();
    for c in &classes[1..] {
        let named = format!("{} (exit {})", c.name, c.code);
        if c.code != winner.code && !others.contains(&named) {
            others.push(named);
        }
    }
    (!others.is_empty()).then(|| {
        format!(
            "exit {}: {} outranks {}",
            winner.code,
            winner.name,
            others.join(", ")
        )
    })
}

/// Why nothing counts as verified, when no row of a card that was read
/// reads honoured or diverged (a divergence is verified too): one line.
/// The shard of a fleet that holds none of its peers (more shards than
/// peers), if `report` is one.
fn empty_shard(report: &RunReport) -> Option<&crate::ShardReport> {
    report
        .shard
        .as_ref()
        .filter(|shard| report.peers.is_empty() && shard.peers > 0)
}

fn nothing_verified_reason(report: &RunReport) -> Option<String> {
    if let Some(shard) = empty_shard(report) {
        return Some(format!(
            "nothing was verified: shard {}/{} holds none of the fleet's {} peer(s) \
             (they are all in other shards)",
            shard.index, shard.count, shard.peers
        ));
    }
    let read = || report.peers.iter().filter(|p| p.card_error.is_none());
    let verified = read().flat_map(|p| p.declarations.iter()).any(|d| {
        matches!(
            d.verdict,
            DeclarationVerdict::Honoured | DeclarationVerdict::Diverged
        )
    });
    if verified || read().next().is_none() {
        return None;
    }
    let counts = tally::summary_with(report, exit::NOTHING_VERIFIED).counts;
    Some(format!(
        "nothing was verified: no declaration reads honoured ({} unverified; {})",
        counts.declarations.unverified,
        counts.runs_phrase()
    ))
}

/// The report's counts and what they read as, computed now: what
/// [`crate::conclude`] stores as the one source of every headline and of the JSON
/// `summary`.
pub fn summarize(report: &RunReport) -> RunSummary {
    tally::summary_with(report, exit_code(report))
}

/// The exit code a whole report calls for (see [`exit`]), computed now:
/// the first of its [`failing_classes`], else 0. A concluded report
/// carries it in its summary.
pub fn exit_code(report: &RunReport) -> i32 {
    failing_classes(report)
        .first()
        .map_or(exit::OK, |class| class.code)
}

/// Whether every scenario that ran ended in error (the peer went away after
/// its card was read).
fn all_runs_unreachable(peer: &PeerReport) -> bool {
    let ran: Vec<&ScenarioReport> = peer
        .scenarios
        .iter()
        .filter(|s| s.verdict != ScenarioVerdict::Skipped)
        .collect();
    // A cap of the tool's own is no sign the peer went away.
    !ran.is_empty()
        && ran.iter().all(|s| {
            s.verdict == ScenarioVerdict::Error && s.error_kind != Some(ErrorKind::ToolCap)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(id: &str, declared: bool) -> Declaration {
        Declaration {
            id: id.parse().expect("a declaration id"),
            declared,
        }
    }

    fn run(id: &str, verifies: &str, verdict: ScenarioVerdict) -> ScenarioReport {
        ScenarioReport::builder(id, verdict)
            .verifies(verifies)
            .message(&format!("{id} said so"))
            .build()
    }

    #[test]
    fn a_hundred_thousand_rows_and_runs_are_judged_quickly_and_alike() {
        let n = 100_000;
        let declarations: Vec<Declaration> = (0..n)
            .map(|i| d(&format!("skills[s].inputModes[a/{i}]"), true))
            .collect();
        let runs: Vec<ScenarioReport> = (0..n)
            .map(|i| {
                let verdict = if i % 2 == 0 {
                    ScenarioVerdict::Pass
                } else {
                    ScenarioVerdict::Skipped
                };
                run(
                    &format!("r{i}"),
                    &format!("skills[s].inputModes[a/{i}]"),
                    verdict,
                )
            })
            .collect();
        let started = std::time::Instant::now();
        let rows = judge_declarations(&declarations, &runs);
        // rows × runs would be 10^10 comparisons: minutes, not seconds.
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert_eq!(rows.len(), n);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Honoured);
        assert_eq!(rows[0].scenarios, vec!["r0".to_string()]);
        assert_eq!(rows[1].verdict, DeclarationVerdict::Unverified);
        assert!(rows[1].scenarios.is_empty());
    }

    #[test]
    fn a_single_failure_diverges_a_declaration() {
        let decl = vec![d("lifecycle.cancel", true)];
        let rows = judge_declarations(
            &decl,
            &[
                run("a", "lifecycle.cancel", ScenarioVerdict::Pass),
                run("b", "lifecycle.cancel", ScenarioVerdict::Fail),
            ],
        );
        assert_eq!(rows[0].verdict, DeclarationVerdict::Diverged);
        assert!(rows[0].reason.contains("b said so"));
    }

    #[test]
    fn a_passing_runs_remarks_are_the_honoured_rows_reason_and_plain_passes_add_nothing() {
        let decl = vec![d("signatures[k1]", true), d("lifecycle.cancel", true)];
        let remarked = ScenarioReport::builder("sig[k1]", ScenarioVerdict::Pass)
            .verifies("signatures[k1]")
            .message("all 1 steps passed; verified over the SDK form")
            .build();
        let plain = ScenarioReport::builder("cancel", ScenarioVerdict::Pass)
            .verifies("lifecycle.cancel")
            .message("all 3 steps passed")
            .build();
        let rows = judge_declarations(&decl, &[remarked, plain]);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Honoured);
        assert_eq!(
            rows[0].reason,
            "1 scenario run(s) passed; sig[k1]: verified over the SDK form"
        );
        assert_eq!(rows[1].reason, "1 scenario run(s) passed");
        assert_eq!(pass_remarks("all steps passed; x"), None);
    }

    #[test]
    fn only_inconclusive_is_unverified_and_nothing_is_not_honoured() {
        let decl = vec![d("lifecycle.cancel", true), d("lifecycle.completion", true)];
        let rows = judge_declarations(
            &decl,
            &[run("a", "lifecycle.cancel", ScenarioVerdict::Inconclusive)],
        );
        assert_eq!(rows[0].verdict, DeclarationVerdict::Unverified);
        assert_eq!(rows[1].verdict, DeclarationVerdict::Unverified);
        assert!(rows[1].reason.contains("no scenario"));
    }

    #[test]
    fn undeclared_refused_with_the_wrong_code_diverges() {
        let decl = vec![d("capabilities.streaming", false)];
        let mut wrong = run("r", "capabilities.streaming", ScenarioVerdict::Fail);
        wrong.fail_kind = Some(FailKind::WrongCode);
        wrong.message = "refused with -32600 (InvalidRequestError) where the spec requires -32004 (UnsupportedOperationError)".into();
        let served = run("s", "capabilities.streaming", ScenarioVerdict::Fail);
        let rows = judge_declarations(&decl, &[served, wrong]);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Diverged);
        assert!(rows[0].reason.contains("-32600"), "{:?}", rows[0]);
        assert!(
            !rows[0].reason.contains("as the spec requires"),
            "{:?}",
            rows[0]
        );
        // A 0.3 peer's other code breaks a SHOULD: unverified, with the warning.
        let mut warned = run("w", "capabilities.streaming", ScenarioVerdict::Inconclusive);
        warned.message = "warning: refused with -32600 where the spec requires -32004".into();
        let rows = judge_declarations(&decl, &[warned]);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Unverified);
        assert!(
            rows[0].reason.starts_with("not declared; w: warning: "),
            "{:?}",
            rows[0]
        );
    }

    #[test]
    fn undeclared_served_anyway_over_delivers() {
        let decl = vec![d("capabilities.streaming", false)];
        let rows = judge_declarations(
            &decl,
            &[run("r", "capabilities.streaming", ScenarioVerdict::Fail)],
        );
        assert_eq!(rows[0].verdict, DeclarationVerdict::OverDelivers);
        let rows = judge_declarations(&decl, &[]);
        assert_eq!(rows[0].verdict, DeclarationVerdict::NotDeclared);
        let rows = judge_declarations(
            &decl,
            &[run("r", "capabilities.streaming", ScenarioVerdict::Pass)],
        );
        assert_eq!(rows[0].verdict, DeclarationVerdict::NotDeclared);
        assert!(rows[0].reason.contains("refuses it as the spec requires"));
        // The tool's own cap ended the probe: the refusal was never seen.
        let mut capped = broken("r", "capabilities.streaming");
        capped.error_kind = Some(ErrorKind::ToolCap);
        capped.message = "no answer within 1.00 s (--timeout)".into();
        let rows = judge_declarations(&decl, &[capped]);
        assert_eq!(
            rows[0].verdict,
            DeclarationVerdict::Unverified,
            "{:?}",
            rows[0]
        );
        assert!(
            rows[0]
                .reason
                .contains("whether the runtime refuses it is unknown")
                && rows[0].reason.contains("--timeout"),
            "{:?}",
            rows[0]
        );
    }

    fn broken(id: &str, verifies: &str) -> ScenarioReport {
        ScenarioReport::builder(id, ScenarioVerdict::Error)
            .verifies(verifies)
            .message("peer malfunction: HTTP 500 text/html on SendMessage: not JSON")
            .error_kind(ErrorKind::PeerMalfunction)
            .build()
    }

    #[test]
    fn an_empty_shard_verified_nothing_and_reached_no_peer() {
        let mut report = RunReport::new(vec![]);
        assert_eq!(exit_code(&report), exit::PEER_UNREACHABLE, "no card read");
        report.shard = Some(crate::ShardReport {
            index: 4,
            count: 4,
            peers: 3,
            suite_digest: "sha256:0".into(),
        });
        assert_eq!(exit_code(&report), exit::NOTHING_VERIFIED);
        let reasons = exit_reasons(&report);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].contains("shard 4/4 holds none of the fleet's 3 peer(s)"),
            "{reasons:?}"
        );
        // A shard of a fleet that itself has no peer is no such excuse.
        report.shard.as_mut().expect("shard").peers = 0;
        assert_eq!(exit_code(&report), exit::PEER_UNREACHABLE);
    }

    #[test]
    fn a_malfunction_never_over_delivers_nor_diverges() {
        let decl = vec![
            d("capabilities.pushNotifications", false),
            d("capabilities.streaming", true),
        ];
        let runs = vec![
            broken("push-refused", "capabilities.pushNotifications"),
            broken("stream", "capabilities.streaming"),
            run("other", "capabilities.streaming", ScenarioVerdict::Pass),
        ];
        let rows = judge_declarations(&decl, &runs);
        for row in &rows {
            assert_eq!(row.verdict, DeclarationVerdict::Unverified, "{row:?}");
            assert!(row.reason.contains("peer malfunction: HTTP 500"), "{row:?}");
        }
        let report = one_peer(rows, runs);
        assert_eq!(exit_code(&report), exit::PEER_UNREACHABLE);
        assert_eq!(malfunction_reasons(&report).len(), 2);
        // An error of the tool's own (a cap) is no malfunction.
        let mut capped = broken("stream", "capabilities.streaming");
        capped.error_kind = Some(ErrorKind::ToolCap);
        let runs = vec![
            capped,
            run("other", "capabilities.streaming", ScenarioVerdict::Pass),
        ];
        let rows = judge_declarations(&decl[1..], &runs);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Honoured);
        assert_eq!(exit_code(&one_peer(rows, runs)), exit::OK);
    }

    #[test]
    fn exit_codes_follow_the_contract() {
        let peer =
            |decls: Vec<DeclarationReport>| PeerReport::builder("u").declarations(decls).build();
        let row = |v| DeclarationReport::builder("x", v).build();
        let report = |p| RunReport::new(vec![p]);
        assert_eq!(
            exit_code(&report(peer(vec![row(DeclarationVerdict::Honoured)]))),
            exit::OK
        );
        assert_eq!(
            exit_code(&report(peer(vec![
                row(DeclarationVerdict::Honoured),
                row(DeclarationVerdict::Diverged)
            ]))),
            exit::DIVERGED
        );
        assert_eq!(
            exit_code(&report(peer(vec![row(DeclarationVerdict::Unverified)]))),
            exit::NOTHING_VERIFIED
        );
        let mut bad = peer(vec![]);
        bad.card_error = Some("down".into());
        assert_eq!(exit_code(&report(bad)), exit::PEER_UNREACHABLE);
    }

    fn one_peer(declarations: Vec<DeclarationReport>, scenarios: Vec<ScenarioReport>) -> RunReport {
        RunReport::new(vec![PeerReport::builder("u")
            .declarations(declarations)
            .scenarios(scenarios)
            .build()])
    }

    #[test]
    fn a_baselined_divergence_does_not_fail_the_run_but_a_new_one_does() {
        let decl = vec![
            d("lifecycle.cancel", true),
            d("capabilities.streaming", true),
        ];
        let runs = vec![
            run("c", "lifecycle.cancel", ScenarioVerdict::Fail),
            run("s", "capabilities.streaming", ScenarioVerdict::Pass),
        ];
        let mut rows = judge_declarations(&decl, &runs);
        rows[0].baselined = true;
        let report = one_peer(rows.clone(), runs.clone());
        assert_eq!(exit_code(&report), exit::OK);
        assert!(failing_reasons(&report).is_empty());
        // Only a known divergence and nothing else verified: still verified.
        let report = one_peer(vec![rows[0].clone()], runs.clone());
        assert_eq!(exit_code(&report), exit::OK);
        rows[0].baselined = false;
        let report = one_peer(rows, runs);
        assert_eq!(exit_code(&report), exit::DIVERGED);
        assert_eq!(failing_reasons(&report), vec!["lifecycle.cancel diverged"]);
    }

    #[test]
    fn flaky_fails_the_run_only_when_the_report_says_so() {
        let decl = vec![d("lifecycle.cancel", true)];
        let runs = vec![run("c", "lifecycle.cancel", ScenarioVerdict::Flaky)];
        let rows = judge_declarations(&decl, &runs);
        assert_eq!(rows[0].verdict, DeclarationVerdict::Honoured);
        assert!(rows[0].reason.contains("flaky: c"), "{}", rows[0].reason);
        let mut report = one_peer(rows, runs);
        assert_eq!(exit_code(&report), exit::OK);
        report.fail_on_flaky = true;
        assert_eq!(exit_code(&report), exit::DIVERGED);
        assert!(failing_reasons(&report)[0].contains("c is flaky"));
        report.peers[0].scenarios[0].baselined = true;
        assert_eq!(exit_code(&report), exit::OK);
    }

    #[test]
    fn a_stale_baseline_entry_fails_only_under_strict() {
        use crate::{BaselineEntryReport, BaselineReport};
        let decl = vec![d("lifecycle.cancel", true)];
        let runs = vec![run("c", "lifecycle.cancel", ScenarioVerdict::Pass)];
        let mut report = one_peer(judge_declarations(&decl, &runs), runs);
        report.baseline = Some(BaselineReport {
            file: "b.yaml".into(),
            strict: false,
            entries: vec![BaselineEntryReport {
                declaration: Some("lifecycle.cancel".into()),
                scenario: None,
                reason: "known".into(),
                status: BaselineStatus::Stale,
                note: "lifecycle.cancel reads honoured".into(),
            }],
        });
        assert_eq!(exit_code(&report), exit::OK);
        report.baseline.as_mut().unwrap().strict = true;
        assert_eq!(exit_code(&report), exit::DIVERGED);
        assert!(failing_reasons(&report)[0].contains("stale"));
    }

    #[test]
    fn fail_on_unverified_fails_with_exit_4_naming_each_row() {
        let decl = vec![
            d("lifecycle.cancel", true),
            d("capabilities.streaming", true),
            d("capabilities.pushNotifications", false),
        ];
        let runs = vec![
            run("c", "lifecycle.cancel", ScenarioVerdict::Pass),
            run("s", "capabilities.streaming", ScenarioVerdict::Inconclusive),
        ];
        let mut report = one_peer(judge_declarations(&decl, &runs), runs);
        assert_eq!(exit_code(&report), exit::OK);
        assert!(exit_reasons(&report).is_empty());
        report.fail_on_unverified = true;
        assert_eq!(exit_code(&report), exit::NOTHING_VERIFIED);
        let reasons = exit_reasons(&report);
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(
            reasons[0].starts_with("capabilities.streaming unverified: s inconclusive"),
            "{reasons:?}"
        );
        assert_eq!(
            summarize(&report).headline(),
            "unverified — 1 honoured, 1 unverified"
        );
    }

    #[test]
    fn exit_4_always_says_why() {
        let decl = vec![d("lifecycle.cancel", true)];
        let runs = vec![run("c", "lifecycle.cancel", ScenarioVerdict::Skipped)];
        let report = one_peer(judge_declarations(&decl, &runs), runs);
        assert_eq!(exit_code(&report), exit::NOTHING_VERIFIED);
        let reasons = exit_reasons(&report);
        assert_eq!(
            reasons,
            vec!["nothing was verified: no declaration reads honoured (1 unverified; 1 scenario runs: 1 skipped)"]
        );
    }

    #[test]
    fn a_divergence_outranks_a_malfunction_and_both_are_named() {
        let decl = vec![
            d("lifecycle.cancel", true),
            d("capabilities.streaming", true),
        ];
        let runs = vec![
            run("c", "lifecycle.cancel", ScenarioVerdict::Fail),
            broken("stream", "capabilities.streaming"),
        ];
        let report = one_peer(judge_declarations(&decl, &runs), runs);
        assert_eq!(exit_code(&report), exit::DIVERGED);
        let classes = failing_classes(&report);
        let names: Vec<&str> = classes.iter().map(|c| c.name).collect();
        assert_eq!(names, vec!["diverged", "peer malfunction"]);
        assert_eq!(classes[0].mark(exit::DIVERGED), "");
        assert_eq!(classes[1].mark(exit::DIVERGED), " (exit 3)");
        assert!(classes[1].reasons[0].starts_with("stream: peer malfunction"));
        assert_eq!(
            precedence_note(&classes).as_deref(),
            Some("exit 1: diverged outranks peer malfunction (exit 3)")
        );
        // Alone, the malfunction decides exit 3 and no note is needed.
        let runs = vec![broken("stream", "capabilities.streaming")];
        let report = one_peer(judge_declarations(&decl[1..], &runs), runs);
        assert_eq!(exit_code(&report), exit::PEER_UNREACHABLE);
        let classes = failing_classes(&report);
        assert_eq!(classes[0].name, "peer malfunction");
        assert_eq!(classes[1].name, "nothing verified");
        assert_eq!(classes[0].mark(exit::PEER_UNREACHABLE), " (exit 3)");
    }

    #[test]
    fn credentials_refused_everywhere_fail_with_exit_4_and_partial_ones_do_not() {
        use crate::CredentialsReport;
        let decl = vec![
            d("security.enforced", true),
            d("lifecycle.completion", true),
        ];
        let runs = vec![
            run("probe", "security.enforced", ScenarioVerdict::Pass),
            run("c", "lifecycle.completion", ScenarioVerdict::Inconclusive),
        ];
        let mut report = one_peer(judge_declarations(&decl, &runs), runs);
        assert_eq!(exit_code(&report), exit::OK, "no record: as before");
        let record = |sent, refused| CredentialsReport {
            sources: vec!["--bearer-env PEER_TOKEN".into()],
            sent,
            refused,
        };
        report.peers[0].credentials = Some(record(3, 3));
        assert_eq!(exit_code(&report), exit::NOTHING_VERIFIED);
        let classes = failing_classes(&report);
        assert_eq!(classes[0].name, "credentials refused");
        assert_eq!(
            exit_reasons(&report),
            vec![
                "the credentials given were refused: HTTP 401/403 on all 3 request(s) that \
                 carried them (--bearer-env PEER_TOKEN); check or renew them"
            ]
        );
        // Some accepted (a scope refused on one skill): rows, not the gate.
        report.peers[0].credentials = Some(record(5, 3));
        assert_eq!(exit_code(&report), exit::OK);
        // Given and never carried (only probes without them ran): no refusal.
        report.peers[0].credentials = Some(record(0, 0));
        assert_eq!(exit_code(&report), exit::OK);
        // A divergence outranks it, and the note says so.
        report.peers[0].credentials = Some(record(3, 3));
        report.peers[0].declarations[0].verdict = DeclarationVerdict::Diverged;
        assert_eq!(exit_code(&report), exit::DIVERGED);
        let classes = failing_classes(&report);
        assert_eq!(
            precedence_note(&classes).as_deref(),
            Some("exit 1: diverged outranks credentials refused (exit 4)")
        );
    }
}
