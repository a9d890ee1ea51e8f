//! Planning a peer's runs: each scenario filtered (`--scenario`/`--skip`),
//! gated on the card, and expanded (`for_each`) into runs with their
//! variables and the declarations they verify.

use super::context::CardFacts;
use super::options::RunOptions;
use super::precondition::INPUT_REQUIRED_VAR;
use super::window::ProbeWindow;
use crate::scenario::model::ForEach;
use crate::scenario::vars::{self, BUILTINS};
use crate::scenario::{Scenario, Suite};
use a2a_conform_protocol::card::Card;
use a2a_conform_protocol::declaration::DeclarationId;
use std::collections::HashMap;
use std::sync::Arc;

/// One planned scenario run.
pub(super) struct Planned<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) run_id: String,
    pub(super) verifies: Vec<DeclarationId>,
    pub(super) vars: HashMap<String, Option<String>>,
    /// Why the run does not run: filtered, gated off, or (an error) a
    /// `verifies:` template that named no declaration.
    pub(super) not_run: Option<NotRun>,
    /// `for_each: interfaces`: the interface this run talks to instead of the
    /// card's chosen endpoint.
    pub(super) interface: Option<a2a_conform_protocol::card::Interface>,
    /// The card's probe window, when `--max-probe-window` clamped it.
    pub(super) clamped_window: Option<ProbeWindow>,
    /// `for_each: signatures`: the card as served, whose signature the run checks.
    pub(super) signed_card: Option<Arc<a2a_conform_protocol::card::signature::ServedCard>>,
    /// What steps compare answers with from the public card.
    pub(super) card: Arc<CardFacts>,
    /// The run sends `${prompt_input_required}`, which nobody set: it asks
    /// the peer's precondition search for a prompt (`runner::precondition`).
    pub(super) search_input: bool,
    /// The variable (`prompt_long`, `prompt`) a run that ends because its
    /// task finished too early is retried with the card's examples in,
    /// when the user set neither.
    pub(super) retry_work: Option<&'static str>,
}

/// Why a planned run does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum NotRun {
    /// Filtered out or gated off by the card: `skipped`, with the reason.
    Skip(String),
    /// The plan itself could not be made: `error`, with the reason.
    Error(String),
}

/// The card's probe window, if it declares a `defaultTimeout`.
pub(super) fn probe_window(card: &Card, options: &RunOptions) -> Option<ProbeWindow> {
    Some(ProbeWindow::of(
        card.default_timeout?,
        options.max_probe_window,
    ))
}

/// Base variables for a peer: built-in defaults, the suites' own, the card's
/// probe window, then `--var`/profile values.
pub(super) fn base_vars(
    card: &Card,
    suite: &Suite,
    options: &RunOptions,
) -> HashMap<String, Option<String>> {
    let mut vars: HashMap<String, Option<String>> = BUILTINS
        .iter()
        .map(|b| (b.name.to_string(), b.default.map(str::to_string)))
        .collect();
    if let Some(window) = probe_window(card, options) {
        vars.insert(
            "probe_window".into(),
            Some(vars::format_duration(window.used)),
        );
    }
    for (k, v) in &suite.vars {
        vars.insert(k.clone(), v.clone());
    }
    for (k, v) in &options.vars {
        // `--var name=` (empty) unsets a variable.
        vars.insert(k.clone(), (!v.is_empty()).then(|| v.clone()));
    }
    if matches!(vars.get("prompt_long"), None | Some(None)) {
        let prompt = vars.get("prompt").cloned().flatten();
        vars.insert("prompt_long".into(), prompt);
    }
    vars
}

pub(super) fn plan_runs<'a>(
    card: &Card,
    suite: &'a Suite,
    options: &RunOptions,
) -> Vec<Planned<'a>> {
    let base = base_vars(card, suite, options);
    let facts = Arc::new(CardFacts::of(card));
    // Absent everywhere; `--var prompt_input_required=` (empty) opts out.
    let input_prompt_unset = options.discover_budget > 0
        && !options.vars.contains_key(INPUT_REQUIRED_VAR)
        && !suite.vars.contains_key(INPUT_REQUIRED_VAR);
    let work_prompt_unset = options.discover_budget > 0
        && ["prompt", "prompt_long"]
            .iter()
            .all(|v| !options.vars.contains_key(*v) && !suite.vars.contains_key(*v));
    let mut plan = Vec::new();
    for scenario in &suite.scenarios {
        let skip = filter_reason(scenario.id(), options).or_else(|| {
            let gate = scenario.gate.as_ref()?;
            (!gate.opens(card.is_declared(&gate.id))).then(|| gate.skip_reason())
        });
        let cap = options.max_runs_per_family;
        for (n, expansion) in expand(card, scenario).into_iter().enumerate() {
            let over_cap = (scenario.def.for_each.is_some() && n >= cap).then(|| {
                format!(
                    "over the cap of {cap} runs per declaration family for `{}`; raise it with --max-runs-per-family",
                    scenario.id()
                )
            });
            let lookup = |n: &str| {
                expansion
                    .vars
                    .get(n)
                    .or_else(|| base.get(n))
                    .cloned()
                    .flatten()
            };
            let verifies: Result<Vec<DeclarationId>, _> = scenario
                .verifies
                .iter()
                .map(|v| v.resolve(lookup))
                .collect();
            let (verifies, not_run) = match verifies {
                Ok(ids) => (
                    ids,
                    skip.clone()
                        .or(expansion.unsupported)
                        .or(over_cap)
                        .map(NotRun::Skip),
                ),
                Err(e) => (Vec::new(), Some(NotRun::Error(e.to_string()))),
            };
            // Only a run that runs needs its variables: thousands of
            // skipped expansions must not each copy them.
            let vars = match not_run {
                None => {
                    let mut vars = base.clone();
                    vars.extend(expansion.vars);
                    vars
                }
                Some(_) => HashMap::new(),
            };
            let search_input = input_prompt_unset
                && not_run.is_none()
                && super::precondition::needs_input_prompt(scenario);
            let retry_work = (work_prompt_unset && not_run.is_none())
                .then(|| super::precondition::work_prompt_var(scenario))
                .flatten();
            plan.push(Planned {
                search_input,
                retry_work,
                scenario,
                run_id: expansion.run_id,
                verifies,
                vars,
                not_run,
                interface: expansion.interface,
                signed_card: expansion.signed_card,
                clamped_window: probe_window(card, options).filter(ProbeWindow::clamped),
                card: facts.clone(),
            });
        }
    }
    plan
}

/// Why `--scenario`/`--skip` leave a scenario out, if they do.
pub(super) fn filter_reason(id: &str, options: &RunOptions) -> Option<String> {
    if options.skip.iter().any(|s| s == id) {
        Some("skipped with --skip".to_string())
    } else if !options.only.is_empty() && !options.only.iter().any(|s| s == id) {
        Some("not selected by --scenario".to_string())
    } else {
        None
    }
}

/// One run of a scenario: its id, the variables `for_each` sets, and the
/// interface it talks to (`for_each: interfaces`).
pub(super) struct Expansion {
    pub(super) run_id: String,
    /// Why the tool cannot make this run (an interface it does not speak).
    pub(super) unsupported: Option<String>,
    pub(super) vars: HashMap<String, Option<String>>,
    pub(super) interface: Option<a2a_conform_protocol::card::Interface>,
    pub(super) signed_card: Option<Arc<a2a_conform_protocol::card::signature::ServedCard>>,
}

/// A scenario's runs: one, or one per declaration its `for_each` names.
pub(super) fn expand(card: &Card, scenario: &Scenario) -> Vec<Expansion> {
    let id = scenario.id();
    let set = |pairs: Vec<(&str, Option<String>)>| -> HashMap<String, Option<String>> {
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    };
    match scenario.def.for_each {
        None => vec![Expansion {
            run_id: id.to_string(),
            unsupported: None,
            vars: HashMap::new(),
            interface: None,
            signed_card: None,
        }],
        Some(each @ (ForEach::InputModes | ForEach::OutputModes)) => match each {
            ForEach::OutputModes => card.output_mode_declarations(),
            _ => card.input_mode_declarations(),
        }
        .into_iter()
        .map(|(declaration, mode)| {
            let skill = declaration.skill().map(str::to_string);
            let run_id = match &skill {
                Some(s) => format!("{id}[{s}:{mode}]"),
                None => format!("{id}[{mode}]"),
            };
            Expansion {
                run_id,
                unsupported: None,
                vars: set(vec![
                    ("mode", Some(mode)),
                    ("declaration", Some(declaration.to_string())),
                    ("skill", Some(skill.unwrap_or_default())),
                ]),
                interface: None,
                signed_card: None,
            }
        })
        .collect(),
        Some(each @ (ForEach::Extensions | ForEach::RequiredExtensions)) => card
            .capabilities
            .extensions
            .iter()
            .filter(|e| e.required || each == ForEach::Extensions)
            .map(|e| Expansion {
                run_id: format!("{id}[{}]", e.uri),
                unsupported: None,
                vars: set(vec![
                    ("uri", Some(e.uri.clone())),
                    (
                        "declaration",
                        Some(DeclarationId::Extension(e.uri.clone()).to_string()),
                    ),
                ]),
                interface: None,
                signed_card: None,
            })
            .collect(),
        Some(ForEach::Interfaces) => card
            .interface_declarations()
            .into_iter()
            .map(|d| Expansion {
                run_id: format!("{id}[{}]", d.id.interface_label().unwrap_or_default()),
                vars: set(vec![
                    ("declaration", Some(d.id.to_string())),
                    ("binding", Some(d.interface.binding_name.clone())),
                    (
                        "interface_version",
                        d.interface.protocol_version.map(|v| v.as_str().to_string()),
                    ),
                    ("url", Some(d.interface.url.clone())),
                ]),
                unsupported: d.unsupported,
                interface: Some(d.interface),
                signed_card: None,
            })
            .collect(),
        Some(ForEach::Signatures) => {
            let card_value = Arc::new(a2a_conform_protocol::card::signature::ServedCard {
                url: card.fetched_from.clone(),
                card: card.raw.clone(),
            });
            let signatures = a2a_conform_protocol::card::signature::card_signatures(&card.raw);
            a2a_conform_protocol::card::signature::signature_declarations(&card.raw)
                .into_iter()
                .map(|(declaration, index)| {
                    let kid = signatures
                        .iter()
                        .find(|s| s.index == index)
                        .and_then(|s| s.kid.clone());
                    Expansion {
                        run_id: format!(
                            "{id}[{}]",
                            declaration
                                .to_string()
                                .trim_start_matches("signatures[")
                                .trim_end_matches(']')
                        ),
                        unsupported: None,
                        vars: set(vec![
                            ("declaration", Some(declaration.to_string())),
                            ("signature", Some(index.to_string())),
                            ("kid", Some(kid.unwrap_or_default())),
                        ]),
                        interface: None,
                        signed_card: Some(card_value.clone()),
                    }
                })
                .collect()
        }
    }
}
