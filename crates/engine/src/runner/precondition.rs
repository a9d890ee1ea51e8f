//! Reaching a scenario's precondition from the card itself. When
//! `prompt_input_required` is not set (absent from `--var`, the profile and
//! the suites; an explicit `NAME=` opts out), the runs that need it share
//! one search per peer for a prompt that drives a task to `input-required`:
//! the skill examples of the card (the skill whose modes a run verifies
//! first, then the others in card order), then the quoted phrases and
//! example sentences of the skills' descriptions and of the card's (a
//! generated card often has no examples, and names its trigger phrase
//! there), then [`BUILT_IN_PROMPTS`]. Each
//! prompt is sent as the input-mode scenario sends it (a blocking
//! `SendMessage`), so what the search finds is what the run will see.
//!
//! Bounded: at most `--discover-budget` tasks per peer, each call within
//! the client's timeout, the whole search within [`MAX_RUN`]. Every task
//! the search leaves unfinished (the one that reached input-required
//! included) is canceled. A prompt is tried once per peer, whichever skill
//! asked; searches for different skills run one at a time and share what
//! was tried. An answer that is no valid A2A answer ends the search: the
//! runs that needed it read `error` (the truth rule), never `fail`.

use super::card::{fetch_card, CardUnavailable};
use super::context::{RunContext, Stop, StopKind};
use super::evidence;
use super::options::{RunOptions, MAX_RUN};
use super::run_vars::{RunVars, VarMap};
use crate::scenario::template::Element;
use crate::scenario::Scenario;
use crate::steps::{CancelStep, SendStep, Step, StreamStep};
use a2a_conform_client::{PeerClient, Redactor, Transcript};
use a2a_conform_protocol::card::Card;
use a2a_conform_protocol::TaskState;
use a2a_conform_report::evidence::Evidence;
use a2a_conform_report::{ErrorKind, PreconditionOutcome, PreconditionReport, TriedPrompt};
use std::fmt;
use std::sync::Arc;
use tokio::sync::Mutex;

/// The variable the search stands in for.
pub(crate) const INPUT_REQUIRED_VAR: &str = "prompt_input_required";
/// The variable bounding how long a tried prompt's task may take to settle.
const TASK_WINDOW_VAR: &str = "task_window";

/// Generic under-specified requests, tried after the card's examples: each
/// leaves out what an agent would have to ask for.
pub(crate) const BUILT_IN_PROMPTS: &[&str] = &[
    "I need your help with a request. Ask me for whatever details you need.",
    "Please book it for me.",
];

/// Where a prompt came from, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// `skills[<id>].examples[<index>]`, the index in the card's list.
    Example { skill: String, index: usize },
    /// `skills[<id>].description`: a phrase of the skill's description.
    SkillDescription { skill: String },
    /// `description`: a phrase of the card's own description.
    CardDescription,
    /// `built-in[<index>]` of [`BUILT_IN_PROMPTS`].
    BuiltIn(usize),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Example { skill, index } => write!(f, "skills[{skill}].examples[{index}]"),
            Source::SkillDescription { skill } => write!(f, "skills[{skill}].description"),
            Source::CardDescription => f.write_str("description"),
            Source::BuiltIn(index) => write!(f, "built-in[{index}]"),
        }
    }
}

/// The kinds of prompt a search goes through, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Example,
    Phrase,
    BuiltIn,
}

impl Source {
    fn kind(&self) -> Kind {
        match self {
            Source::Example { .. } => Kind::Example,
            Source::SkillDescription { .. } | Source::CardDescription => Kind::Phrase,
            Source::BuiltIn(_) => Kind::BuiltIn,
        }
    }
}

/// The most description phrases one search tries, whatever the card holds.
const MAX_PHRASES: usize = 8;

/// What the suggestion to set the input prompt says.
pub(crate) const SET_INPUT_PROMPT: &str =
    "set --var prompt_input_required=<a text that makes this peer ask for input>";

/// A prompt to try and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub(crate) source: Source,
    pub(crate) text: String,
}

/// The prompts a search for `first_skill`'s runs tries, in order: that
/// skill's examples, every other skill's in card order, the phrases of the
/// skills' descriptions (same order) and of the card's description (at
/// most [`MAX_PHRASES`]), then the built-in requests. A text offered twice
/// is tried once, under its first source.
pub(crate) fn candidates(card: &Card, first_skill: Option<&str>) -> Vec<Candidate> {
    let first = card
        .skills
        .iter()
        .filter(|s| Some(s.id.as_str()) == first_skill);
    let rest = card
        .skills
        .iter()
        .filter(|s| Some(s.id.as_str()) != first_skill);
    let skills: Vec<_> = first.chain(rest).collect();
    let examples = skills.iter().flat_map(|skill| {
        skill.examples.iter().map(|(index, text)| Candidate {
            source: Source::Example {
                skill: skill.id.clone(),
                index: *index,
            },
            text: text.clone(),
        })
    });
    let examples: Vec<Candidate> = examples.chain(description_phrases(card, &skills)).collect();
    let built_in = BUILT_IN_PROMPTS
        .iter()
        .enumerate()
        .map(|(index, text)| Candidate {
            source: Source::BuiltIn(index),
            text: (*text).to_string(),
        });
    let mut out: Vec<Candidate> = Vec::new();
    for candidate in examples.into_iter().chain(built_in) {
        if !out.iter().any(|c| c.text == candidate.text) {
            out.push(candidate);
        }
    }
    out
}

/// The quoted phrases and example sentences of the skills' descriptions
/// (in `skills`' order), then of the card's, as the card was received.
fn description_phrases(
    card: &Card,
    skills: &[&a2a_conform_protocol::card::Skill],
) -> Vec<Candidate> {
    let described = |skill: &str| {
        card.raw
            .get("skills")
            .and_then(|s| s.as_array())
            .and_then(|list| {
                list.iter()
                    .find(|s| s.get("id").and_then(|id| id.as_str()) == Some(skill))
            })
            .and_then(|s| s.get("description"))
            .and_then(|d| d.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let of_skills = skills.iter().map(|skill| {
        (
            Source::SkillDescription {
                skill: skill.id.clone(),
            },
            described(&skill.id),
        )
    });
    let of_card = card
        .raw
        .get("description")
        .and_then(|d| d.as_str())
        .map(|d| (Source::CardDescription, d.to_string()));
    of_skills
        .chain(of_card)
        .flat_map(|(source, description)| {
            super::phrases::phrases(&description)
                .into_iter()
                .map(move |text| Candidate {
                    source: source.clone(),
                    text,
                })
        })
        .take(MAX_PHRASES)
        .collect()
}

/// `2 skill examples, 1 description phrase and 2 built-in prompts`: what
/// `tried` held, by kind, in the search's order (`None` when empty).
fn kinds_tried(tried: &[Tried]) -> Option<String> {
    let count = |kind: Kind| {
        tried
            .iter()
            .filter(|t| t.candidate.source.kind() == kind)
            .count()
    };
    let named = |n: usize, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let parts: Vec<String> = [
        named(count(Kind::Example), "skill example", "skill examples"),
        named(
            count(Kind::Phrase),
            "description phrase",
            "description phrases",
        ),
        named(count(Kind::BuiltIn), "built-in prompt", "built-in prompts"),
    ]
    .into_iter()
    .flatten()
    .collect();
    match parts.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        [head @ .., last] => Some(format!("{} and {last}", head.join(", "))),
    }
}

/// Why a search for `prompt_input_required` found nothing, in one
/// sentence: what it tried (by kind), whether the card offered anything to
/// try, whether the budget (`spent`: its size) ran out, and what to do.
fn input_not_found(tried: &[Tried], spent: Option<usize>) -> String {
    let card_offered = tried
        .iter()
        .any(|t| t.candidate.source.kind() != Kind::BuiltIn);
    match (spent, kinds_tried(tried)) {
        (Some(budget), None) => format!(
            "the --discover-budget of {budget} task(s) was spent before this search could try a prompt; raise it, or {SET_INPUT_PROMPT}"
        ),
        (Some(budget), Some(kinds)) => format!(
            "the --discover-budget of {budget} task(s) was spent before a prompt reached input-required ({kinds} tried); raise it, or {SET_INPUT_PROMPT}"
        ),
        (None, Some(kinds)) if card_offered => format!(
            "none of the {kinds} tried reached input-required; {SET_INPUT_PROMPT}"
        ),
        (None, Some(kinds)) => format!(
            "the card offers no prompt to try (no skill examples, no quoted or example phrases in its descriptions), and none of the {kinds} reached input-required; {SET_INPUT_PROMPT}"
        ),
        (None, None) => format!("no prompt was tried; {SET_INPUT_PROMPT}"),
    }
}

/// Why the retries of a run whose task finished too early found no prompt
/// for `variable`: what they tried (by kind), whether the budget (`spent`:
/// its size) ran out, and what to do.
pub(crate) fn work_not_found(variable: &str, tried: &[Tried], spent: Option<usize>) -> String {
    let set = format!("set --var {variable}=<a request this peer works on for a few seconds>");
    match (spent, kinds_tried(tried)) {
        (Some(budget), None) => format!(
            "the --discover-budget of {budget} task(s) was spent before another prompt could be tried; raise it, or {set}"
        ),
        (Some(budget), Some(kinds)) => format!(
            "the --discover-budget of {budget} task(s) was spent before a prompt kept a task working ({kinds} tried); raise it, or {set}"
        ),
        (None, Some(kinds)) => {
            format!("none of the {kinds} tried kept a task working long enough; {set}")
        }
        (None, None) => format!("no other prompt was tried; {set}"),
    }
}

/// Whether a scenario sends `${prompt_input_required}` (so its runs need
/// the search when the variable is not set).
pub(crate) fn needs_input_prompt(scenario: &Scenario) -> bool {
    scenario.def.steps.iter().any(|step| match &step.value {
        Step::Send(s) | Step::Stream(StreamStep(s)) => s.text.as_ref().is_some_and(|t| {
            t.elements()
                .iter()
                .any(|e| matches!(e, Element::Var(name) if name == INPUT_REQUIRED_VAR))
        }),
        _ => false,
    })
}

/// The variable a scenario's first message is sent with, when a run that
/// ended because the task finished too early may be retried with another
/// prompt: `prompt_long` or `prompt`, written alone (`text: "${prompt_long}"`,
/// or no text), in a scenario with an `inconclusive_if` that
/// [`finished_early`] recognises.
pub(crate) fn work_prompt_var(scenario: &Scenario) -> Option<&'static str> {
    let steps = &scenario.def.steps;
    if !steps.iter().any(|s| finished_early(&s.value)) {
        return None;
    }
    let first = steps.iter().find_map(|step| match &step.value {
        Step::Send(s) | Step::Stream(StreamStep(s)) => Some(s),
        _ => None,
    })?;
    let name = match &first.text {
        None => "prompt",
        Some(t) => match t.elements() {
            [Element::Var(name)] => name.as_str(),
            _ => return None,
        },
    };
    ["prompt_long", "prompt"].into_iter().find(|v| *v == name)
}

/// Whether a step stops a run because the task had already finished: an
/// `inconclusive_if` on a completed state or on TaskNotCancelable.
pub(crate) fn finished_early(step: &Step) -> bool {
    match step {
        Step::InconclusiveIf(s) => {
            let condition = s.condition();
            condition.state.contains(&TaskState::Completed)
                || condition
                    .code
                    .contains(&a2a_conform_protocol::codes::TASK_NOT_CANCELABLE)
        }
        _ => false,
    }
}

/// Whether a step stops a run because the task never asked for input: an
/// `inconclusive_if` on a state other than input-required.
pub(crate) fn missed_input(step: &Step) -> bool {
    match step {
        Step::InconclusiveIf(s) => s.condition().not_state.contains(&TaskState::InputRequired),
        _ => false,
    }
}

/// [`finished_early`], an `expect_event` with `otherwise_inconclusive`
/// that missed because the peer closed the stream (the task ended before
/// showing the work waited for), or a cancel withheld from a task that
/// stopped to ask for input (no running work to cancel): judged on the
/// run's state where it stopped.
pub(crate) fn stopped_early(ctx: &RunContext<'_>, step: &Step) -> bool {
    match step {
        Step::ExpectEvent(s) if s.otherwise_inconclusive.is_some() => ctx
            .captures
            .get(&s.stream)
            .and_then(|c| c.stream())
            .is_some_and(|h| {
                matches!(
                    h.snapshot().1,
                    Some(a2a_conform_client::StreamEnd::Closed { .. })
                )
            }),
        // A cancel withheld from a task that stopped for input: it was not
        // working long enough (its only inconclusive stop).
        Step::Cancel(_) => true,
        other => finished_early(other),
    }
}

/// What a run gets from the search.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// Send this prompt: it reached input-required.
    Found(Candidate),
    /// Nothing did; the run stays as it would without the search, and its
    /// message says what was tried.
    NotFound(String),
    /// The peer's answer to the search was no valid A2A answer (or none):
    /// the run is an `error` of this kind, with this message.
    Error(ErrorKind, String),
}

/// One prompt tried, and what the peer answered.
#[derive(Debug, Clone)]
pub(crate) struct Tried {
    pub(crate) candidate: Candidate,
    /// What the peer answered, in words.
    pub(crate) answer: String,
    /// Whether it got past the precondition.
    pub(crate) reached: bool,
}

/// One search (per first skill, or per run for work that lasts) and the
/// runs that used it.
struct Searched {
    variable: &'static str,
    skill: Option<String>,
    outcome: Outcome,
    /// The prompts in the order this search went through them.
    tried: Vec<Tried>,
    started: u32,
    canceled: u32,
    runs: Vec<String>,
    evidence: Vec<Evidence>,
}

#[derive(Default)]
struct State {
    /// Tasks started by every search of this peer.
    started: usize,
    tried: Vec<Tried>,
    searches: Vec<Searched>,
}

/// A peer's precondition searches: shared by its runs, one at a time.
pub(crate) struct Search<'a> {
    client: &'a PeerClient,
    card: &'a Card,
    budget: usize,
    redactor: Arc<Redactor>,
    /// Keep the search's exchanges in its report even when it stopped
    /// cleanly (`check --record`: a replay serves them).
    keep_evidence: bool,
    /// The variables a tried prompt's run sees: the peer's `task_window`,
    /// which bounds the poll of an answer that is not settled yet.
    vars: RunVars,
    state: Mutex<State>,
}

impl<'a> Search<'a> {
    /// The search of the peer at `client`, within `options`' budget, with
    /// its redactor and its `task_window`.
    pub(crate) fn new(client: &'a PeerClient, card: &'a Card, options: &RunOptions) -> Search<'a> {
        let vars = options
            .vars
            .get(TASK_WINDOW_VAR)
            .map(|window| (TASK_WINDOW_VAR.to_string(), Some(window.clone())))
            .into_iter()
            .collect::<VarMap>()
            .into();
        Search {
            client,
            card,
            budget: options.discover_budget,
            redactor: options.redactor.clone(),
            keep_evidence: options.record_exchanges,
            vars,
            state: Mutex::new(State::default()),
        }
    }

    /// Whether searching is on at all (`--no-discover` turns it off).
    pub(crate) fn enabled(&self) -> bool {
        self.budget > 0
    }

    /// The outcome for a run verifying `skill`'s modes (`None`: the card's
    /// default modes), searching first if no search for that skill has.
    pub(crate) async fn prompt_for(&self, skill: Option<&str>, run_id: &str) -> Outcome {
        let mut state = self.state.lock().await;
        let key = skill.map(str::to_string);
        if let Some(done) = state
            .searches
            .iter_mut()
            .find(|s| s.variable == INPUT_REQUIRED_VAR && s.skill == key)
        {
            done.runs.push(run_id.to_string());
            return done.outcome.clone();
        }
        let mut searched = match tokio::time::timeout(MAX_RUN, self.search(&mut state, skill)).await
        {
            Ok(searched) => searched,
            Err(_) => Searched {
                variable: INPUT_REQUIRED_VAR,
                skill: key.clone(),
                outcome: Outcome::Error(
                    ErrorKind::Tool,
                    format!(
                        "the search for a prompt that reaches input-required took longer than {} and was stopped",
                        a2a_conform_protocol::text::human_duration(MAX_RUN)
                    ),
                ),
                tried: Vec::new(),
                started: 0,
                canceled: 0,
                runs: Vec::new(),
                evidence: Vec::new(),
            },
        };
        searched.runs.push(run_id.to_string());
        let outcome = searched.outcome.clone();
        state.searches.push(searched);
        outcome
    }

    async fn search(&self, state: &mut State, skill: Option<&str>) -> Searched {
        let run_id = a2a_conform_report::search_run_id(INPUT_REQUIRED_VAR, skill);
        let transcript = Transcript::for_run(self.redactor.clone(), run_id);
        if self.keep_evidence {
            transcript.keep_every_exchange();
        }
        let mut searched = self.search_with(state, skill, &transcript).await;
        if self.keep_evidence && searched.evidence.is_empty() {
            searched.evidence = evidence::from_records(transcript.entries());
        }
        searched
    }

    async fn search_with(
        &self,
        state: &mut State,
        skill: Option<&str>,
        transcript: &Arc<Transcript>,
    ) -> Searched {
        let mut searched = Searched {
            variable: INPUT_REQUIRED_VAR,
            skill: skill.map(str::to_string),
            outcome: Outcome::NotFound(String::new()),
            tried: Vec::new(),
            started: 0,
            canceled: 0,
            runs: Vec::new(),
            evidence: Vec::new(),
        };
        let mut out_of_budget = false;
        for candidate in candidates(self.card, skill) {
            // Tried already (by another skill's search): its answer stands.
            if let Some(i) = state
                .tried
                .iter()
                .position(|t| t.candidate.text == candidate.text)
            {
                searched.tried.push(state.tried[i].clone());
                if state.tried[i].reached {
                    searched.outcome = Outcome::Found(state.tried[i].candidate.clone());
                    return searched;
                }
                continue;
            }
            if state.started >= self.budget {
                out_of_budget = true;
                break;
            }
            state.started += 1;
            searched.started += 1;
            match self.try_prompt(&candidate, transcript.clone()).await {
                Ok(attempt) => {
                    searched.canceled += u32::from(attempt.canceled);
                    let tried = Tried {
                        candidate: candidate.clone(),
                        answer: attempt.answer,
                        reached: attempt.reached,
                    };
                    state.tried.push(tried.clone());
                    searched.tried.push(tried);
                    if attempt.reached {
                        searched.outcome = Outcome::Found(candidate);
                        return searched;
                    }
                }
                Err(TryError::Stopped { kind, message }) => {
                    let tried = Tried {
                        candidate: candidate.clone(),
                        answer: message.clone(),
                        reached: false,
                    };
                    state.tried.push(tried.clone());
                    searched.tried.push(tried);
                    searched.evidence = evidence::from_records(transcript.entries());
                    searched.outcome = match kind {
                        Some(kind) => Outcome::Error(
                            kind,
                            format!(
                                "while searching for a prompt that reaches input-required ({} `{}`): {message}",
                                candidate.source,
                                a2a_conform_protocol::text::clip(&candidate.text, 60)
                            ),
                        ),
                        None => Outcome::NotFound(format!(
                            "the search for a prompt that reaches input-required stopped: {message}"
                        )),
                    };
                    return searched;
                }
            }
        }
        searched.outcome = Outcome::NotFound(input_not_found(
            &searched.tried,
            out_of_budget.then_some(self.budget),
        ));
        searched
    }

    /// Sends one prompt as the input-mode scenario does, and cancels the
    /// task it started unless it finished on its own.
    async fn try_prompt(
        &self,
        candidate: &Candidate,
        transcript: Arc<Transcript>,
    ) -> Result<Attempt, TryError> {
        transcript.note(format!(
            "precondition search: trying {} `{}`",
            candidate.source, candidate.text
        ));
        let mut ctx = RunContext::new(self.client, transcript.clone(), self.vars.clone());
        // A blocking send, so a peer that answers it with the task still
        // submitted or working has the task polled (GetTask) to the state it
        // settles in before it is judged: canceling it then would cut off
        // the input-required it was on its way to.
        let send = Step::Send(SendStep::of_text("t", &candidate.text));
        send.run(&mut ctx).await.map_err(TryError::from)?;
        let capture = ctx.capture("t").map_err(TryError::from)?;
        let state = capture.state();
        let answer = capture.summary.clone();
        let reached = state == Some(TaskState::InputRequired);
        let open_task = capture.task_ref().0.is_some() && state.is_some_and(|s| !s.is_terminal());
        let mut canceled = false;
        if open_task {
            let cancel = Step::Cancel(CancelStep {
                task: "t".into(),
                capture: Some("c".into()),
            });
            cancel.run(&mut ctx).await.map_err(TryError::from)?;
            canceled = true;
        }
        Ok(Attempt {
            answer,
            reached,
            canceled,
        })
    }

    /// The peer's `--discover-budget`, in tasks.
    pub(crate) fn budget(&self) -> usize {
        self.budget
    }

    /// Takes one task from the peer's budget; `false` when it is spent.
    pub(crate) async fn take_task(&self) -> bool {
        let mut state = self.state.lock().await;
        if state.started >= self.budget {
            return false;
        }
        state.started += 1;
        true
    }

    /// The card's prompts to try for work that lasts longer than `used`
    /// (the prompt the run already sent): every skill's examples in card
    /// order, then the descriptions' phrases; never the built-in ones.
    pub(crate) fn work_candidates(&self, used: Option<&str>) -> Vec<Candidate> {
        candidates(self.card, None)
            .into_iter()
            .filter(|c| c.source.kind() != Kind::BuiltIn)
            .filter(|c| Some(c.text.as_str()) != used)
            .collect()
    }

    /// Records one run's retries with other prompts for `variable`.
    pub(crate) async fn record_work(
        &self,
        variable: &'static str,
        run_id: &str,
        tried: Vec<Tried>,
        out_of_budget: bool,
    ) {
        let found = tried
            .iter()
            .find(|t| t.reached)
            .map(|t| t.candidate.clone());
        let outcome = match found {
            Some(c) => Outcome::Found(c),
            None => Outcome::NotFound(work_not_found(
                variable,
                &tried,
                out_of_budget.then_some(self.budget),
            )),
        };
        let started = tried.len() as u32;
        let searched = Searched {
            variable,
            skill: None,
            outcome,
            tried,
            started,
            canceled: 0,
            runs: vec![run_id.to_string()],
            evidence: Vec::new(),
        };
        self.state.lock().await.searches.push(searched);
    }

    /// The report's entries: one per search, in the order they ran.
    pub(crate) async fn report(&self) -> Vec<PreconditionReport> {
        let state = self.state.lock().await;
        // Runs finish in any order: the report lists searches in one.
        let mut searches: Vec<&Searched> = state.searches.iter().collect();
        searches.sort_by(|a, b| {
            (
                a.variable != INPUT_REQUIRED_VAR,
                a.variable,
                &a.skill,
                &a.runs,
            )
                .cmp(&(
                    b.variable != INPUT_REQUIRED_VAR,
                    b.variable,
                    &b.skill,
                    &b.runs,
                ))
        });
        searches
            .into_iter()
            .map(|s| {
                let (outcome, prompt, source, message) = match &s.outcome {
                    Outcome::Found(c) => (
                        PreconditionOutcome::Found,
                        Some(c.text.clone()),
                        Some(c.source.to_string()),
                        format!(
                            "{} `{}` {}; pin it with --var '{}={}'",
                            c.source,
                            c.text,
                            if s.variable == INPUT_REQUIRED_VAR {
                                "reached input-required"
                            } else {
                                "kept a task working long enough"
                            },
                            s.variable,
                            c.text
                        ),
                    ),
                    Outcome::NotFound(why) => {
                        (PreconditionOutcome::NotFound, None, None, why.clone())
                    }
                    Outcome::Error(_, why) => (PreconditionOutcome::Error, None, None, why.clone()),
                };
                PreconditionReport {
                    variable: s.variable.into(),
                    skill: s.skill.clone(),
                    outcome,
                    prompt,
                    source,
                    tried: s
                        .tried
                        .iter()
                        .map(|t| TriedPrompt {
                            source: t.candidate.source.to_string(),
                            prompt: t.candidate.text.clone(),
                            answer: t.answer.clone(),
                            reached: t.reached,
                        })
                        .collect(),
                    tasks_started: s.started,
                    tasks_canceled: s.canceled,
                    message,
                    runs: s.runs.clone(),
                    evidence: s.evidence.clone(),
                }
            })
            .collect()
    }
}

/// Searches one peer's card for the preconditions a check would search for
/// (today `prompt_input_required`, for the card's default modes), as
/// `profile init` does before writing a profile: the card, and the search's
/// report entry. `Err` when the card cannot be read or its endpoint used.
pub async fn search_peer(
    input: &str,
    options: &RunOptions,
) -> Result<(Card, Vec<PreconditionReport>), CardUnavailable> {
    let card = fetch_card(input, options).await?;
    let options = options.for_card(&card);
    let unusable = |reason: String| CardUnavailable {
        card_url: card.fetched_from.clone(),
        reason,
    };
    let url = url::Url::parse(&card.endpoint.url).map_err(|e| {
        unusable(format!(
            "the card's endpoint `{}` is not a URL: {e}",
            card.endpoint.url
        ))
    })?;
    // The card's security schemes, resolved as `check` resolves them, so a
    // secured peer gets the credentials the flags (or the profile) name.
    let auth = a2a_conform_client::auth::PeerAuth::new(
        &card,
        &options.client,
        options.auth.clone(),
        options.issued.clone(),
    );
    let config = if auth.is_active() {
        auth.before_runs().await.config
    } else {
        options.client.clone()
    };
    let client = PeerClient::new(url, card.protocol_version(), card.binding(), config)
        .map_err(|e| unusable(e.to_string()))?;
    let search = Search::new(&client, &card, &options);
    if search.enabled() {
        tokio::select! {
            _ = search.prompt_for(None, "profile init") => {}
            () = options.cancel.cancelled() => {}
        }
    }
    let report = search.report().await;
    Ok((card, report))
}

/// What one prompt did.
struct Attempt {
    answer: String,
    reached: bool,
    canceled: bool,
}

/// Why a prompt's try ended the search: `kind` is the error kind (a
/// malfunction, an unreachable peer, a cap), `None` a refusal of the
/// configured credentials (the runs will meet it themselves).
enum TryError {
    Stopped {
        kind: Option<ErrorKind>,
        message: String,
    },
}

impl From<Stop> for TryError {
    fn from(stop: Stop) -> TryError {
        let kind = match stop.kind {
            StopKind::Error(kind) => Some(kind),
            // A valid answer that is no task to act on, or a refusal.
            StopKind::Fail | StopKind::WrongCode | StopKind::Inconclusive => None,
        };
        TryError::Stopped {
            kind,
            message: stop.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::card::{self, BindingChoice, ProtocolChoice};

    fn card(skills: &str) -> Card {
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{}},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":{skills}}}"#
        );
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses")
    }

    #[test]
    fn candidates_take_the_runs_skill_first_then_card_order_then_built_ins() {
        let card = card(
            r#"[{"id":"a","name":"a","description":"d","tags":[],"examples":["hi", 7, "", "book"]},
                {"id":"b","name":"b","description":"d","tags":[],"examples":["date?", "hi"]}]"#,
        );
        let sources = |skill| {
            candidates(&card, skill)
                .into_iter()
                .map(|c| format!("{}={}", c.source, c.text))
                .collect::<Vec<_>>()
        };
        let built_in = |i: usize| format!("built-in[{i}]={}", BUILT_IN_PROMPTS[i]);
        assert_eq!(
            sources(None),
            [
                "skills[a].examples[0]=hi".to_string(),
                "skills[a].examples[3]=book".into(),
                "skills[b].examples[0]=date?".into(),
                built_in(0),
                built_in(1),
            ]
        );
        assert_eq!(
            sources(Some("b"))[..3],
            [
                "skills[b].examples[0]=date?".to_string(),
                "skills[b].examples[1]=hi".into(),
                "skills[a].examples[3]=book".into(),
            ]
        );
        let bare = self::card("[]");
        assert_eq!(candidates(&bare, None).len(), BUILT_IN_PROMPTS.len());
    }

    #[test]
    fn description_phrases_follow_the_examples_skills_first_then_the_cards() {
        let body = r#"{"name":"n","description":"Plans things, e.g. book a table.","version":"1",
            "supportedInterfaces":[{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "capabilities":{},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "skills":[{"id":"a","name":"a","description":"Try \"plan a trip\".","tags":[]},
                      {"id":"b","name":"b","description":"Say 'hi'.","tags":[],"examples":["hi", "go"]}]}"#;
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let got: Vec<String> = candidates(&card, Some("b"))
            .into_iter()
            .map(|c| format!("{}={}", c.source, c.text))
            .collect();
        assert_eq!(
            got[..4],
            [
                "skills[b].examples[0]=hi".to_string(),
                "skills[b].examples[1]=go".into(),
                "skills[a].description=plan a trip".into(),
                "description=book a table".into(),
            ]
        );
        assert_eq!(got.len(), 4 + BUILT_IN_PROMPTS.len(), "{got:?}");
    }

    fn tried(sources: &[Source]) -> Vec<Tried> {
        sources
            .iter()
            .map(|source| Tried {
                candidate: Candidate {
                    source: source.clone(),
                    text: "t".into(),
                },
                answer: "completed".into(),
                reached: false,
            })
            .collect()
    }

    #[test]
    fn a_search_that_found_nothing_says_what_it_tried_once() {
        let example = |index| Source::Example {
            skill: "echo".into(),
            index,
        };
        let set = "set --var prompt_input_required=<a text that makes this peer ask for input>";
        assert_eq!(
            input_not_found(
                &tried(&[example(0), example(1), Source::BuiltIn(0), Source::BuiltIn(1)]),
                None
            ),
            format!(
                "none of the 2 skill examples and 2 built-in prompts tried reached input-required; {set}"
            )
        );
        assert_eq!(
            input_not_found(&tried(&[Source::BuiltIn(0), Source::BuiltIn(1)]), None),
            format!(
                "the card offers no prompt to try (no skill examples, no quoted or example phrases in its descriptions), and none of the 2 built-in prompts reached input-required; {set}"
            )
        );
        let phrase = Source::SkillDescription {
            skill: "echo".into(),
        };
        assert_eq!(
            input_not_found(&tried(&[example(0), phrase, Source::BuiltIn(0)]), Some(3)),
            format!(
                "the --discover-budget of 3 task(s) was spent before a prompt reached input-required (1 skill example, 1 description phrase and 1 built-in prompt tried); raise it, or {set}"
            )
        );
        assert_eq!(
            work_not_found("prompt_long", &tried(&[example(0), example(1)]), None),
            "none of the 2 skill examples tried kept a task working long enough; set --var prompt_long=<a request this peer works on for a few seconds>"
        );
    }

    #[test]
    fn only_scenarios_that_send_the_input_prompt_need_the_search() {
        let suite = crate::scenario::Suite::embedded().unwrap();
        let needing: Vec<&str> = suite
            .scenarios
            .iter()
            .filter(|s| needs_input_prompt(s))
            .map(|s| s.id())
            .collect();
        assert_eq!(
            needing,
            [
                "input-mode-resume",
                "history-length-bounds-get",
                "generation-match-guards-send"
            ]
        );
        let retried: Vec<(&str, &str)> = suite
            .scenarios
            .iter()
            .filter_map(|s| Some((s.id(), work_prompt_var(s)?)))
            .collect();
        assert_eq!(
            retried,
            [
                ("streaming-probe", "prompt"),
                ("cancel-then-stream", "prompt_long"),
                ("push-delivers", "prompt_long")
            ]
        );
    }
}
