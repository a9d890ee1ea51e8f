//! The run stage: one planned run from its precondition (a prompt the
//! peer's search found) through its attempts (a failure is retried up to
//! `--retries` times; a pass after a failure is `flaky`) to its report. An
//! attempt runs the scenario's steps in a [`RunContext`] within
//! [`MAX_RUN`] and ends as a [`RunOutcome`]; one whose task finished too
//! early is retried with the card's examples for longer work.

use super::auth::RunSetup;
use super::context::{not_set_message, RunContext, Signing, Stop, StopKind};
use super::evidence;
use super::judge;
use super::options::{RunOptions, MAX_RUN};
use super::plan::{NotRun, Planned};
use super::precondition::{self, Outcome, Search, Tried, INPUT_REQUIRED_VAR};
use a2a_conform_client::Transcript;
use a2a_conform_protocol::text::human_duration;
use a2a_conform_report::evidence::Evidence;
use a2a_conform_report::{ErrorKind, FailKind, ScenarioReport, ScenarioVerdict};
use std::time::Instant;

/// The message of a run that `options.cancel` stopped before it finished.
pub const INTERRUPTED: &str = "interrupted before the run finished";

/// How one attempt of a run ended.
pub(crate) struct RunOutcome {
    pub(crate) verdict: ScenarioVerdict,
    /// Why an `error` is one (tool trouble, a malfunction, a cap, …).
    pub(crate) error_kind: Option<ErrorKind>,
    /// What kind of broken promise a `fail` is, when it matters.
    pub(crate) fail_kind: Option<FailKind>,
    /// What happened, in a line: the stop's reason, or that all steps passed.
    pub(crate) message: String,
    /// The attempt's transcript, as the report keeps it.
    pub(crate) evidence: Vec<Evidence>,
    /// It stopped because the task had already finished
    /// ([`precondition::stopped_early`]): a longer task may get further.
    pub(crate) finished_early: bool,
    /// It stopped because the task never asked for input
    /// ([`precondition::missed_input`]).
    pub(crate) missed_input: bool,
}

/// How a run's last attempt ended, for what follows it.
#[derive(Debug, Clone, Copy, Default)]
struct Ended {
    finished_early: bool,
    missed_input: bool,
}

impl RunOutcome {
    /// The outcome as the run's verdict; its evidence is kept unless the
    /// run passed and `keep_passing_evidence` is off.
    fn apply(self, report: &mut ScenarioReport, keep_passing_evidence: bool) {
        report.verdict = self.verdict;
        report.error_kind = self.error_kind;
        report.fail_kind = self.fail_kind;
        report.message = self.message;
        report.evidence = if self.verdict != ScenarioVerdict::Pass || keep_passing_evidence {
            self.evidence
        } else {
            Vec::new()
        };
    }
}

/// A run's report: `skipped` with its reason, `error` when it cannot
/// start, else its attempts' verdict.
pub(crate) async fn execute(
    setup: &RunSetup<'_>,
    mut planned: Planned<'_>,
    options: &RunOptions,
    search: &Search<'_>,
) -> ScenarioReport {
    let mut report = blank_report(&planned);
    match planned.not_run.clone() {
        Some(NotRun::Skip(reason)) => {
            report.message = reason;
            return report;
        }
        Some(NotRun::Error(message)) => return errored(&planned, message),
        None => {}
    }
    let started = Instant::now();
    // Given by the user (not searched for), for the run's message.
    let given = !planned.search_input
        && planned
            .vars
            .get(INPUT_REQUIRED_VAR)
            .is_some_and(Option::is_some);
    let mut found = None;
    // Why the input prompt stayed unset, for the run's message.
    let not_found = match input_prompt(&mut planned, search).await {
        Some(Outcome::NotFound(why)) => Some(why),
        Some(Outcome::Found(candidate)) => {
            found = Some(candidate);
            None
        }
        Some(Outcome::Error(kind, message)) => {
            return ScenarioReport {
                verdict: ScenarioVerdict::Error,
                error_kind: Some(kind),
                message,
                duration_ms: started.elapsed().as_millis() as u64,
                ..report
            };
        }
        None => None,
    };
    let ended = attempts(setup, &planned, options, &mut report).await;
    if let (true, Some(variable)) = (ended.finished_early, planned.retry_work) {
        retry_with_examples(setup, &mut planned, options, search, variable, &mut report).await;
    }
    if report.verdict == ScenarioVerdict::Inconclusive {
        if let Some(why) = not_found {
            // The search's reason says what to set: it replaces the
            // variable's "is not set", never repeats it.
            report.message = if report.message == not_set_message(INPUT_REQUIRED_VAR) {
                why
            } else {
                format!("{why}; {}", report.message)
            };
        } else if ended.missed_input && precondition::needs_input_prompt(planned.scenario) {
            let hint = match (&found, given) {
                (Some(c), _) => format!(
                    "the prompt the search found ({} `{}`) reached input-required then, not in this run",
                    c.source,
                    a2a_conform_protocol::text::clip(&c.text, 60)
                ),
                (None, true) => format!(
                    "the prompt given as {INPUT_REQUIRED_VAR} does not make this peer ask for input; give one that does"
                ),
                (None, false) => precondition::SET_INPUT_PROMPT.to_string(),
            };
            report.message = format!("{}; {hint}", report.message);
        }
    }
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

/// A run that sends `${prompt_input_required}`, which nobody set, asks the
/// peer's search for a prompt (`None`: it needs none, or searching is
/// off). A prompt found is set in the run's variables.
async fn input_prompt(planned: &mut Planned<'_>, search: &Search<'_>) -> Option<Outcome> {
    if !planned.search_input || !search.enabled() {
        return None;
    }
    let skill = planned
        .vars
        .get("skill")
        .cloned()
        .flatten()
        .filter(|s| !s.is_empty());
    let outcome = search.prompt_for(skill.as_deref(), &planned.run_id).await;
    if let Outcome::Found(candidate) = &outcome {
        planned
            .vars
            .insert(INPUT_REQUIRED_VAR.into(), Some(candidate.text.clone()));
    }
    Some(outcome)
}

/// Attempts until one does not fail or the retries are spent: every failed
/// attempt's message is kept, and a pass after failures is `flaky` with the
/// first failure's evidence. Gives how the last attempt ended.
async fn attempts(
    setup: &RunSetup<'_>,
    planned: &Planned<'_>,
    options: &RunOptions,
    report: &mut ScenarioReport,
) -> Ended {
    let mut failures: Vec<String> = Vec::new();
    let mut first_evidence: Vec<Evidence> = Vec::new();
    loop {
        report.attempts += 1;
        let outcome = run_once(setup, planned, options).await;
        if outcome.verdict == ScenarioVerdict::Fail && report.attempts <= options.retries {
            if failures.is_empty() {
                first_evidence = outcome.evidence;
            }
            failures.push(outcome.message);
            continue;
        }
        let ended = Ended {
            finished_early: outcome.finished_early,
            missed_input: outcome.missed_input,
        };
        if outcome.verdict == ScenarioVerdict::Pass && !failures.is_empty() {
            report.verdict = ScenarioVerdict::Flaky;
            report.message = format!(
                "passed on attempt {} after failing: {}",
                report.attempts, failures[0]
            );
            report.evidence = first_evidence;
        } else {
            outcome.apply(report, options.keep_passing_evidence);
        }
        report.failed_attempts = failures;
        return ended;
    }
}

/// A run that stopped because its task finished before the check could act
/// (the cancel came too late, the stream's first event was already final):
/// the card's prompts (examples, then description phrases) are tried,
/// within the peer's discovery budget, for one that keeps a task working (a
/// task that stops to ask for input does not); the first that gets past the
/// precondition decides the run, else it stays inconclusive with the last
/// one's stop, saying what was tried.
async fn retry_with_examples(
    setup: &RunSetup<'_>,
    planned: &mut Planned<'_>,
    options: &RunOptions,
    search: &Search<'_>,
    variable: &'static str,
    report: &mut ScenarioReport,
) {
    if !search.enabled() {
        return;
    }
    let used = planned.vars.get(variable).cloned().flatten();
    let mut tried = Vec::new();
    let mut out_of_budget = false;
    for candidate in search.work_candidates(used.as_deref()) {
        if !search.take_task().await {
            out_of_budget = true;
            break;
        }
        planned
            .vars
            .insert(variable.to_string(), Some(candidate.text.clone()));
        if variable == "prompt" {
            // `prompt_long` defaults to `prompt`: keep them together.
            planned
                .vars
                .insert("prompt_long".into(), Some(candidate.text.clone()));
        }
        let outcome = run_once(setup, planned, options).await;
        let got_past = !outcome.finished_early;
        tried.push(Tried {
            candidate,
            answer: outcome.message.clone(),
            reached: got_past,
        });
        // The last prompt tried decides the run: its stop (a task that
        // stopped for input, say) is what the run reports.
        outcome.apply(report, options.keep_passing_evidence);
        if got_past {
            break;
        }
    }
    if tried.is_empty() && !out_of_budget {
        return;
    }
    if !tried.iter().any(|t| t.reached) {
        let why = precondition::work_not_found(
            variable,
            &tried,
            out_of_budget.then_some(search.budget()),
        );
        report.message = format!("{}; {why}", report.message);
    }
    search
        .record_work(variable, &planned.run_id, tried, out_of_budget)
        .await;
}

/// One attempt: the steps in order within [`MAX_RUN`], judged.
async fn run_once(setup: &RunSetup<'_>, planned: &Planned<'_>, options: &RunOptions) -> RunOutcome {
    let transcript = Transcript::for_run(setup.redactor.clone(), planned.run_id.clone());
    if options.record_exchanges {
        transcript.keep_every_exchange();
    }
    for line in &setup.auth_evidence {
        transcript.note(line.clone());
    }
    let mut ctx = RunContext::new(setup.client(), transcript.clone(), planned.vars.clone());
    ctx.reference = setup.reference();
    ctx.clamped_window = planned.clamped_window;
    ctx.signing = planned.signed_card.clone().map(|card| Signing {
        card,
        trusted: options.trusted_keys.clone(),
    });
    ctx.card = planned.card.clone();
    ctx.strict = options.strict;
    ctx.tally = Some(setup.tally.clone());
    ctx.extended_card = Some(setup.extended_card.clone());
    let steps = &planned.scenario.def.steps;
    let ended = tokio::time::timeout(MAX_RUN, async {
        for (index, step) in steps.iter().enumerate() {
            step.value
                .run(&mut ctx)
                .await
                .map_err(|stop| (index, stop))?;
        }
        Ok::<(), (usize, Stop)>(())
    })
    .await;
    let finished_early = matches!(
        &ended,
        Ok(Err((index, stop))) if stop.kind == StopKind::Inconclusive
            && precondition::stopped_early(&ctx, &steps[*index].value)
    );
    let missed_input = matches!(
        &ended,
        Ok(Err((index, stop))) if stop.kind == StopKind::Inconclusive
            && precondition::missed_input(&steps[*index].value)
    );
    let (verdict, error_kind, fail_kind, message) = match ended {
        Err(_) => (
            ScenarioVerdict::Error,
            Some(ErrorKind::Tool),
            None,
            format!(
                "the run took longer than {} and was stopped",
                human_duration(MAX_RUN)
            ),
        ),
        Ok(Ok(())) => (
            ScenarioVerdict::Pass,
            None,
            None,
            std::iter::once(format!("all {} steps passed", steps.len()))
                .chain(ctx.remarks.iter().cloned())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Ok(Err((index, mut stop))) => {
            let judged = judge::stop(&mut stop, planned);
            let step = &steps[index];
            transcript.note(format!(
                "step {} `{}` ({}:{}): {}",
                index + 1,
                step.value.name(),
                planned.scenario.file,
                step.referenced.line(),
                stop.message
            ));
            // The run's own secrets (a push token) too, not only the peer's.
            (
                judged.verdict,
                judged.error_kind,
                judged.fail_kind,
                transcript.redact(&stop.message),
            )
        }
    };
    drop(ctx);
    RunOutcome {
        verdict,
        error_kind,
        fail_kind,
        message,
        evidence: evidence::from_records(transcript.take_entries()),
        finished_early,
        missed_input,
    }
}

/// A run's report before it ran: `skipped`, no attempts.
pub(crate) fn blank_report(planned: &Planned<'_>) -> ScenarioReport {
    ScenarioReport {
        id: planned.run_id.clone(),
        scenario: planned.scenario.id().to_string(),
        title: planned.scenario.def.title.clone(),
        verdict: ScenarioVerdict::Skipped,
        verifies: planned.verifies.iter().map(ToString::to_string).collect(),
        duration_ms: 0,
        message: String::new(),
        error_kind: None,
        fail_kind: None,
        attempts: 0,
        failed_attempts: vec![],
        baselined: false,
        baseline_reason: None,
        evidence: vec![],
    }
}

/// A run that could not start: tool trouble, reported as `error`.
pub(crate) fn errored(planned: &Planned<'_>, message: String) -> ScenarioReport {
    ScenarioReport {
        verdict: ScenarioVerdict::Error,
        error_kind: Some(ErrorKind::Tool),
        message,
        ..blank_report(planned)
    }
}

/// A run the interruption stopped: `error`, [`INTERRUPTED`].
pub(crate) fn interrupted(planned: &Planned<'_>) -> ScenarioReport {
    errored(planned, INTERRUPTED.into())
}
