//! What the terminal and Markdown reports say of a peer's precondition
//! searches: one line per search (what was found, from where, at what
//! cost), and the line that pins a found prompt for next time. Plain text:
//! each sink makes it inert where it writes it.

use crate::{PeerReport, PreconditionOutcome, PreconditionReport};

/// One line per search: `prompt_input_required (skill echo): found
/// skills[echo].examples[1] "need-input" — 2 tried, 2 task(s) started, 1 canceled`.
pub(crate) fn lines(peer: &PeerReport) -> Vec<String> {
    peer.preconditions.iter().map(line).collect()
}

fn line(search: &PreconditionReport) -> String {
    let skill = search
        .skill
        .as_ref()
        .map(|s| format!(" (skill {s})"))
        .unwrap_or_default();
    let cost = format!(
        "{} tried, {} task(s) started, {} canceled; used by {} run(s)",
        search.tried.len(),
        search.tasks_started,
        search.tasks_canceled,
        search.runs.len()
    );
    let what = match (search.outcome, &search.source, &search.prompt) {
        (PreconditionOutcome::Found, Some(source), Some(prompt)) => {
            format!("found {source} \"{prompt}\"")
        }
        (outcome, _, _) => format!("{}: {}", outcome.as_str(), search.message),
    };
    format!("{}{skill}: {what} — {cost}", search.variable)
}

/// How to pin what was found, once per peer: the `--var` flags and the
/// profile line (`None` when nothing was found).
pub(crate) fn pin(peer: &PeerReport) -> Option<Pin> {
    let mut found: Vec<(&str, &str)> = Vec::new();
    for search in &peer.preconditions {
        if let (PreconditionOutcome::Found, Some(prompt)) = (search.outcome, &search.prompt) {
            if !found.iter().any(|(v, _)| *v == search.variable) {
                found.push((&search.variable, prompt));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    let flag = found
        .iter()
        .map(|(v, p)| format!("--var {}", shell_quote(&format!("{v}={p}"))))
        .collect::<Vec<_>>()
        .join(" ");
    let pairs = found
        .iter()
        .map(|(v, p)| format!("{v}: {}", serde_json::Value::String(p.to_string())))
        .collect::<Vec<_>>()
        .join(", ");
    Some(Pin {
        flag,
        profile: format!("vars: {{{pairs}}}"),
    })
}

/// The two ways to pin what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pin {
    /// `--var 'prompt_input_required=…'` (one per variable found)
    pub(crate) flag: String,
    /// `vars: {prompt_input_required: "…"}` for a profile.
    pub(crate) profile: String,
}

/// What follows the pin's two forms in every format.
pub(crate) const PIN_NOTE: &str =
    "`a2a-conform profile init URL` writes a profile with the input prompt";

/// `text` in single quotes for a POSIX shell.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_found_prompt_is_pinned_with_a_shell_safe_flag_and_a_profile_line() {
        let search = PreconditionReport {
            variable: "prompt_input_required".into(),
            skill: Some("book".into()),
            outcome: PreconditionOutcome::Found,
            prompt: Some("it's me".into()),
            source: Some("skills[book].examples[2]".into()),
            tried: vec![],
            tasks_started: 3,
            tasks_canceled: 1,
            message: String::new(),
            runs: vec!["r".into()],
            evidence: vec![],
        };
        let peer = PeerReport {
            preconditions: vec![search],
            ..PeerReport::new("http://p")
        };
        assert_eq!(
            lines(&peer),
            [
                "prompt_input_required (skill book): found skills[book].examples[2] \"it's me\" — \
              0 tried, 3 task(s) started, 1 canceled; used by 1 run(s)"
            ]
        );
        let pin = super::pin(&peer).unwrap();
        assert_eq!(pin.flag, r"--var 'prompt_input_required=it'\''s me'");
        assert_eq!(pin.profile, r#"vars: {prompt_input_required: "it's me"}"#);
        assert_eq!(super::pin(&PeerReport::new("http://p")), None);
    }
}
