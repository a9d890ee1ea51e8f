//! The plan stage: each scenario filtered (`--scenario`/`--skip`), gated
//! on the card, and expanded (`for_each`) into planned runs with their
//! variables and the declarations they verify. A run that cannot run says
//! why ([`NotRun`]); past `--max-runs-per-family` a family's runs are
//! skipped, naming the flag.

use super::context::CardFacts;
use super::options::RunOptions;
use super::precondition::INPUT_REQUIRED_VAR;
use super::run_vars::RunVars;
use super::window::ProbeWindow;
use crate::scenario::vars::{self, BUILTINS};
use crate::scenario::{ForEach, Scenario, Suite};
use a2a_conform_protocol::card::signature::{self, ServedCard};
use a2a_conform_protocol::card::{Card, Interface};
use a2a_conform_protocol::declaration::DeclarationId;
use std::collections::HashMap;
use std::sync::Arc;

/// One planned scenario run.
pub(crate) struct Planned<'a> {
    pub(crate) scenario: &'a Scenario,
    pub(crate) run_id: String,
    pub(crate) verifies: Vec<DeclarationId>,
    pub(crate) vars: RunVars,
    /// Why the run does not run: filtered, gated off, or (an error) a
    /// `verifies:` template that named no declaration.
    pub(crate) not_run: Option<NotRun>,
    /// `for_each: interfaces`: the interface this run talks to instead of the
    /// card's chosen endpoint.
    pub(crate) interface: Option<Interface>,
    /// `for_each: interface_pairs`: the interface `interface` is compared with.
    pub(crate) reference: Option<Interface>,
    /// The card's probe window, when `--max-probe-window` clamped it.
    pub(crate) clamped_window: Option<ProbeWindow>,
    /// `for_each: signatures`: the card as served, whose signature the run checks.
    pub(crate) signed_card: Option<Arc<ServedCard>>,
    /// What steps compare answers with from the public card.
    pub(crate) card: Arc<CardFacts>,
    /// The run sends `${prompt_input_required}`, which nobody set: it asks
    /// the peer's precondition search for a prompt (`runner::precondition`).
    pub(crate) search_input: bool,
    /// The variable (`prompt_long`, `prompt`) a run that ends because its
    /// task finished too early is retried with the card's examples in,
    /// when the user set neither.
    pub(crate) retry_work: Option<&'static str>,
}

/// Why a planned run does not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotRun {
    /// Filtered out or gated off by the card: `skipped`, with the reason.
    Skip(String),
    /// The plan itself could not be made: `error`, with the reason.
    Error(String),
}

/// The card's probe window, if it declares a `defaultTimeout`.
pub(crate) fn probe_window(card: &Card, options: &RunOptions) -> Option<ProbeWindow> {
    Some(ProbeWindow::of(
        card.default_timeout?,
        options.max_probe_window,
    ))
}

/// Base variables for a peer: built-in defaults, the suites' own, the card's
/// probe window, then `--var`/profile values.
pub(crate) fn base_vars(
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

/// Every run of the suite for this card, in plan order (scenarios as
/// loaded, each expansion in card order).
pub(crate) fn plan_runs<'a>(
    card: &Card,
    suite: &'a Suite,
    options: &RunOptions,
) -> Vec<Planned<'a>> {
    let base = Arc::new(base_vars(card, suite, options));
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
        // The 1.1 draft's scenarios belong to a check that speaks the draft
        // only: left out of any other plan, so that a 1.0 or 0.3 check is
        // the same with the draft's scenarios in the suite as without.
        if !card.draft_1_1
            && scenario
                .gate
                .as_ref()
                .is_some_and(|gate| gate.id.is_draft_1_1())
        {
            continue;
        }
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
                None => RunVars::new(base.clone(), expansion.vars),
                Some(_) => RunVars::default(),
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
                reference: expansion.reference,
                signed_card: expansion.signed_card,
                clamped_window: probe_window(card, options).filter(ProbeWindow::clamped),
                card: facts.clone(),
            });
        }
    }
    plan
}

/// Why `--scenario`/`--skip` leave a scenario out, if they do.
pub(crate) fn filter_reason(id: &str, options: &RunOptions) -> Option<String> {
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
pub(crate) struct Expansion {
    pub(crate) run_id: String,
    /// Why the tool cannot make this run (an interface it does not speak).
    pub(crate) unsupported: Option<String>,
    pub(crate) vars: HashMap<String, Option<String>>,
    pub(crate) interface: Option<Interface>,
    pub(crate) reference: Option<Interface>,
    pub(crate) signed_card: Option<Arc<ServedCard>>,
}

/// A scenario's runs: one, or one per declaration its `for_each` names.
pub(crate) fn expand(card: &Card, scenario: &Scenario) -> Vec<Expansion> {
    let id = scenario.id();
    match scenario.def.for_each {
        None => vec![Expansion::plain(id.to_string())],
        Some(ForEach::InputModes) => modes(id, card.input_mode_declarations()),
        Some(ForEach::OutputModes) => modes(id, card.output_mode_declarations()),
        Some(ForEach::Extensions) => extensions(id, card, false),
        Some(ForEach::RequiredExtensions) => extensions(id, card, true),
        Some(ForEach::Interfaces) => interfaces(id, card),
        Some(ForEach::InterfacePairs) => interface_pairs(id, card),
        Some(ForEach::Signatures) => signatures(id, card),
    }
}

impl Expansion {
    /// A run with no variables of its own, on the card's endpoint.
    fn plain(run_id: String) -> Expansion {
        Expansion {
            run_id,
            unsupported: None,
            vars: HashMap::new(),
            interface: None,
            reference: None,
            signed_card: None,
        }
    }
}

/// The variables an expansion sets.
fn set(pairs: Vec<(&str, Option<String>)>) -> HashMap<String, Option<String>> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// `input_modes`/`output_modes`: one run per declared mode, the card's
/// defaults (`id[mode]`) then each skill's (`id[skill:mode]`).
fn modes(id: &str, declared: Vec<(DeclarationId, String)>) -> Vec<Expansion> {
    declared
        .into_iter()
        .map(|(declaration, mode)| {
            let skill = declaration.skill().map(str::to_string);
            let run_id = match &skill {
                Some(s) => format!("{id}[{s}:{mode}]"),
                None => format!("{id}[{mode}]"),
            };
            Expansion {
                vars: set(vec![
                    ("mode", Some(mode)),
                    ("declaration", Some(declaration.to_string())),
                    ("skill", Some(skill.unwrap_or_default())),
                ]),
                ..Expansion::plain(run_id)
            }
        })
        .collect()
}

/// `extensions` (every declared one) or `required_extensions`.
fn extensions(id: &str, card: &Card, required_only: bool) -> Vec<Expansion> {
    card.capabilities
        .extensions
        .iter()
        .filter(|e| e.required || !required_only)
        .map(|e| Expansion {
            vars: set(vec![
                ("uri", Some(e.uri.clone())),
                (
                    "declaration",
                    Some(DeclarationId::Extension(e.uri.clone()).to_string()),
                ),
            ]),
            ..Expansion::plain(format!("{id}[{}]", e.uri))
        })
        .collect()
}

/// `interfaces`: one run per declared interface, talking to it; one the
/// tool cannot speak is planned and skipped, saying so.
fn interfaces(id: &str, card: &Card) -> Vec<Expansion> {
    card.interface_declarations()
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
            reference: None,
            signed_card: None,
        })
        .collect()
}

/// `interface_pairs`: one run per declared interface besides the
/// reference, talking to it and to the reference; a pair with an interface
/// the tool cannot speak is planned and skipped, saying so.
fn interface_pairs(id: &str, card: &Card) -> Vec<Expansion> {
    card.interface_pair_declarations()
        .into_iter()
        .map(|pair| {
            let unsupported = pair.unsupported();
            let other = pair.other.interface;
            let label = pair.other.id.interface_label().unwrap_or_default();
            let reference = pair.reference.id.interface_label().unwrap_or_default();
            Expansion {
                run_id: format!("{id}[{label} ≡ {reference}]"),
                vars: set(vec![
                    ("declaration", Some(pair.id.to_string())),
                    ("binding", Some(other.binding_name.clone())),
                    (
                        "interface_version",
                        other.protocol_version.map(|v| v.as_str().to_string()),
                    ),
                    ("url", Some(other.url.clone())),
                    ("interface", Some(label)),
                    ("reference", Some(reference)),
                ]),
                unsupported,
                interface: Some(other),
                reference: Some(pair.reference.interface),
                signed_card: None,
            }
        })
        .collect()
}

/// `signatures`: one run per entry of the card's `signatures`, each
/// judging the card as served.
fn signatures(id: &str, card: &Card) -> Vec<Expansion> {
    let served = Arc::new(ServedCard {
        url: card.fetched_from.clone(),
        card: card.raw.clone(),
    });
    let listed = signature::card_signatures(&card.raw);
    signature::signature_declarations(&card.raw)
        .into_iter()
        .map(|(declaration, index)| {
            let kid = listed
                .iter()
                .find(|s| s.index == index)
                .and_then(|s| s.kid.clone());
            let label = declaration.to_string();
            let label = label
                .trim_start_matches("signatures[")
                .trim_end_matches(']');
            Expansion {
                vars: set(vec![
                    ("declaration", Some(declaration.to_string())),
                    ("signature", Some(index.to_string())),
                    ("kid", Some(kid.unwrap_or_default())),
                ]),
                signed_card: Some(served.clone()),
                ..Expansion::plain(format!("{id}[{label}]"))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::card::{self, BindingChoice, ProtocolChoice};

    fn card(extra: &str) -> Card {
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",{extra}
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{"streaming":true}},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":[{{"id":"s","name":"s","description":"d","tags":["t"],"inputModes":["image/png"]}}]}}"#
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
    fn probe_window_is_twice_a_declared_default_timeout_else_15s() {
        let suite = Suite::default();
        let options = RunOptions::default();
        let vars = base_vars(&card(r#""defaultTimeout": 10,"#), &suite, &options);
        assert_eq!(vars["probe_window"].as_deref(), Some("20s"));
        let vars = base_vars(&card(""), &suite, &options);
        assert_eq!(vars["probe_window"].as_deref(), Some("15s"));
    }

    #[test]
    fn flags_override_defaults_and_an_empty_value_unsets() {
        let mut options = RunOptions::default();
        options.vars.insert("probe_window".into(), "3s".into());
        options.vars.insert("prompt".into(), "hi there".into());
        options.vars.insert("task_window".into(), String::new());
        let vars = base_vars(
            &card(r#""defaultTimeout": 10,"#),
            &Suite::default(),
            &options,
        );
        assert_eq!(vars["probe_window"].as_deref(), Some("3s"));
        assert_eq!(vars["task_window"], None);
        assert_eq!(vars["prompt_long"].as_deref(), Some("hi there"));
        assert_eq!(vars["prompt_input_required"], None);
    }

    #[test]
    fn input_modes_expand_per_declaration_with_skill_labels() {
        let suite = Suite::embedded().unwrap();
        let plan = plan_runs(&card(""), &suite, &RunOptions::default());
        let ids: Vec<&str> = plan.iter().map(|p| p.run_id.as_str()).collect();
        assert!(ids.contains(&"input-mode-resume[text/plain]"), "{ids:?}");
        assert!(ids.contains(&"input-mode-resume[s:image/png]"), "{ids:?}");
        let run = plan
            .iter()
            .find(|p| p.run_id == "input-mode-resume[s:image/png]")
            .unwrap();
        assert_eq!(
            run.verifies,
            vec!["skills[s].inputModes[image/png]"
                .parse::<DeclarationId>()
                .unwrap()]
        );
        let refused = plan
            .iter()
            .find(|p| p.run_id == "streaming-refused-when-undeclared")
            .unwrap();
        assert_eq!(
            refused.not_run,
            Some(NotRun::Skip(
                "the card declares capabilities.streaming".into()
            ))
        );
    }

    #[test]
    fn for_each_runs_past_the_family_cap_are_skipped_with_the_flag_named() {
        let modes: Vec<String> = (0..10).map(|n| format!("\"a/{n}\"")).collect();
        let body = format!(
            r#"{{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}}],
            "capabilities":{{}},"defaultInputModes":["text/plain"],"defaultOutputModes":["text/plain"],
            "skills":[{{"id":"s","name":"s","description":"d","tags":["t"],"inputModes":[{}]}}]}}"#,
            modes.join(",")
        );
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let suite = Suite::embedded().unwrap();
        let options = RunOptions {
            max_runs_per_family: 4,
            ..RunOptions::default()
        };
        let plan = plan_runs(&card, &suite, &options);
        let family: Vec<&Planned> = plan
            .iter()
            .filter(|p| p.run_id.starts_with("input-mode-resume["))
            .collect();
        assert_eq!(family.len(), 11, "text/plain and ten skill modes");
        let over: Vec<&&Planned> = family.iter().filter(|p| p.not_run.is_some()).collect();
        assert_eq!(over.len(), 7);
        match &over[0].not_run {
            Some(NotRun::Skip(reason)) => assert_eq!(
                reason,
                "over the cap of 4 runs per declaration family for `input-mode-resume`; \
                 raise it with --max-runs-per-family"
            ),
            other => panic!("{other:?}"),
        }
        assert!(over
            .iter()
            .all(|p| p.vars.is_empty() && p.verifies.len() == 1));
        let unfamilied = plan.iter().filter(|p| p.scenario.def.for_each.is_none());
        assert!(unfamilied
            .filter_map(|p| p.not_run.as_ref())
            .all(|n| !format!("{n:?}").contains("over the cap")));
    }

    #[test]
    fn every_declared_interface_gets_a_row_and_a_run_grpc_0_3_included() {
        let body = r#"{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[
              {"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
              {"url":"127.0.0.1:50051","protocolBinding":"GRPC","protocolVersion":"1.0"},
              {"url":"127.0.0.1:50052","protocolBinding":"GRPC","protocolVersion":"0.3"},
              {"url":"http://127.0.0.1:9/v03","protocolBinding":"HTTP+JSON","protocolVersion":"0.3"}],
            "capabilities":{},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":[]}"#;
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let rows: Vec<String> = card
            .declarations()
            .into_iter()
            .filter(|d| d.declared)
            .map(|d| d.id.to_string())
            .collect();
        for id in [
            "interfaces[JSONRPC 1.0]",
            "interfaces[GRPC 1.0]",
            "interfaces[GRPC 0.3]",
            "interfaces[HTTP+JSON 0.3]",
        ] {
            assert!(rows.iter().any(|r| r == id), "{id} missing from {rows:?}");
        }
        let suite = Suite::embedded().unwrap();
        let plan = plan_runs(&card, &suite, &RunOptions::default());
        let not_run = |run_id: &str| {
            plan.iter()
                .find(|p| p.run_id == run_id)
                .unwrap_or_else(|| panic!("{run_id} not planned"))
                .not_run
                .clone()
        };
        assert_eq!(not_run("interface-served[JSONRPC 1.0]"), None);
        assert_eq!(not_run("interface-served[GRPC 1.0]"), None);
        assert_eq!(not_run("interface-served[HTTP+JSON 0.3]"), None);
        // 0.3 gRPC (`a2a.v1.A2AService`) is spoken too: no skip.
        assert_eq!(not_run("interface-served[GRPC 0.3]"), None);
    }
}
