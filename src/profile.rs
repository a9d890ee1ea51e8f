//! Per-peer profiles: a YAML file a team keeps beside its peer, holding the
//! variables, headers, timeout, credential variables and TLS files that
//! peer needs (the keys of [`crate::settings::PeerSettings`], which a
//! config section and a fleet entry share); [`render_init`] writes one from
//! what `profile init` found on the card.

pub use crate::settings::{PeerSettings as Profile, ProfileError};

/// What `profile init` found for one peer, to write as a profile.
pub struct Found<'a> {
    /// The card URL the profile is for.
    pub card_url: &'a str,
    pub name: &'a str,
    /// The card's security scheme names (for the auth hook).
    pub security_schemes: &'a [String],
    /// What the card's schemes need (`auth::profile_hints`).
    pub auth_hints: &'a [a2a_conform_client::auth::AuthHint],
    pub preconditions: &'a [a2a_conform_report::PreconditionReport],
}

/// The profile `profile init` writes: the variables the search found, each
/// with a comment saying where it came from, and a marked place for the
/// credentials (environment variable names, never values). It parses back
/// as a [`Profile`].
pub fn render_init(found: &Found<'_>) -> String {
    use a2a_conform_report::PreconditionOutcome;
    use std::fmt::Write;
    let quote = a2a_conform_report::inert::yaml_quoted;
    let comment = |text: &str| comment_text(text, 200);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# a2a-conform profile for {} ({}),",
        comment(found.name),
        comment(found.card_url)
    );
    let _ = writeln!(
        out,
        "# written by `a2a-conform profile init`. Pin it in CI:\n#   a2a-conform check {} --profile THIS-FILE",
        comment(found.card_url)
    );
    let mut vars = Vec::new();
    let _ = writeln!(out);
    for search in found.preconditions {
        match (search.outcome, &search.prompt, &search.source) {
            (PreconditionOutcome::Found, Some(prompt), Some(source)) => vars.push(format!(
                "  # {} reached input-required ({} prompt(s) tried, {} task(s) started, {} canceled)\n  {}: {}",
                // Where the prompt came from names the card's skill ids.
                comment(source),
                search.tried.len(),
                search.tasks_started,
                search.tasks_canceled,
                search.variable,
                quote(prompt)
            )),
            _ => {
                let _ = writeln!(
                    out,
                    "# {} not found: {}\n# set it by hand under vars: a text that makes this peer ask for input.",
                    search.variable,
                    comment(&search.message)
                );
            }
        }
    }
    if vars.is_empty() {
        let _ = writeln!(out, "vars: {{}}");
    } else {
        let _ = writeln!(out, "vars:\n{}", vars.join("\n"));
    }
    let _ = writeln!(out);
    out.push_str(&auth_hook(found.security_schemes, found.auth_hints));
    out
}

/// Peer text in a YAML comment: one line, with every control character
/// and bidi override shown as the terminal report shows it (a newline
/// would end the comment and start a key the peer chose; an escape would
/// act on the terminal the profile is printed to), at most `max`
/// characters.
fn comment_text(text: &str, max: usize) -> String {
    let flat: String = a2a_conform_report::inert::terminal(text)
        .chars()
        .map(|c| match c {
            '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    a2a_conform_protocol::text::one_line(&flat, max)
}

/// The credentials part of an initialised profile: environment variable
/// names only, never a secret, each commented out for a person to confirm
/// (a profile naming an unset variable is refused).
pub fn auth_hook(schemes: &[String], hints: &[a2a_conform_client::auth::AuthHint]) -> String {
    let mut out = String::from("# --- auth (environment variable names only, never values) ---\n");
    if schemes.is_empty() {
        out.push_str("# The card declares no security scheme.\n");
        return out;
    }
    let names: Vec<String> = schemes.iter().map(|s| comment_text(s, 80)).collect();
    out.push_str(&format!(
        "# The card declares the security scheme(s): {}.\n",
        names.join(", ")
    ));
    for hint in hints {
        out.push_str(&format!(
            "# scheme {}: {}\n",
            comment_text(&hint.scheme, 80),
            comment_text(&hint.description, 160)
        ));
        for setting in &hint.settings {
            // Every credential flag is also a profile key of the same name.
            let key = setting.flag.trim_start_matches("--").replace('-', "_");
            out.push_str(&format!(
                "# {key}: {}\n",
                comment_text(&setting.suggested, 120)
            ));
        }
        if let Some(note) = &hint.note {
            out.push_str(&format!("#   note: {}\n", comment_text(note, 200)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    #[test]
    fn profiles_parse_and_reject_unknown_keys_with_a_position() {
        let p = Profile::parse("p.yaml", "vars:\n  prompt: hi\ntimeout: 5s\n").unwrap();
        assert_eq!(p.vars["prompt"], "hi");
        assert_eq!(p.timeout, Some(Duration::from_secs(5)));
        let e = Profile::parse("p.yaml", "vars: {}\ntimout: 5s\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("p.yaml:2:1: unknown field `timout`"), "{e}");
    }

    #[test]
    fn an_initialised_profile_parses_back_with_what_was_found() {
        use a2a_conform_report::{PreconditionOutcome, PreconditionReport};
        let search = |outcome, prompt: Option<&str>| PreconditionReport {
            variable: "prompt_input_required".into(),
            skill: None,
            outcome,
            prompt: prompt.map(str::to_string),
            source: prompt.map(|_| "skills[a].examples[0]".to_string()),
            tried: vec![],
            tasks_started: 1,
            tasks_canceled: 1,
            message: "no prompt the card offers reached input-required\nat all".into(),
            runs: vec![],
            evidence: vec![],
        };
        let found = [search(
            PreconditionOutcome::Found,
            Some("say \"when\"?\n# x: 1"),
        )];
        let schemes = ["bearer".to_string()];
        let text = render_init(&Found {
            card_url: "http://p/.well-known/agent-card.json",
            name: "peer\nvars: {evil: 1}",
            security_schemes: &schemes,
            auth_hints: &[],
            preconditions: &found,
        });
        let profile = Profile::parse("init.yaml", &text).expect(&text);
        assert_eq!(
            profile.vars.into_iter().collect::<Vec<_>>(),
            [(
                "prompt_input_required".to_string(),
                "say \"when\"?\n# x: 1".to_string()
            )]
        );
        assert_eq!(profile.bearer_env, None);
        assert!(
            text.contains("bearer") && text.contains("never values"),
            "{text}"
        );
        let missing = [search(PreconditionOutcome::NotFound, None)];
        let text = render_init(&Found {
            card_url: "http://p",
            name: "p",
            security_schemes: &[],
            auth_hints: &[],
            preconditions: &missing,
        });
        let profile = Profile::parse("init.yaml", &text).expect(&text);
        assert!(profile.vars.is_empty());
        assert!(text.contains("# prompt_input_required not found"), "{text}");
    }

    #[test]
    fn tls_files_are_read_beside_the_profile_and_come_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("peer.yaml");
        std::fs::write(
            &path,
            "cacert: ca.pem\ncert: /abs/client.pem\nkey: client.key\n",
        )
        .unwrap();
        let p = Profile::load(&path).unwrap();
        assert_eq!(p.cacert, Some(dir.path().join("ca.pem")));
        assert_eq!(p.cert, Some(PathBuf::from("/abs/client.pem")));
        assert_eq!(p.key, Some(dir.path().join("client.key")));
        let e = Profile::parse("p.yaml", "cert: c.pem\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "p.yaml: `cert` needs `key` (a client certificate is a certificate and its key)"
        );
    }

    #[test]
    fn a_bad_timeout_is_refused_where_it_is_written() {
        for (text, says) in [
            ("timeout: soon\n", "`soon` is not a duration"),
            ("timeout: 0s\n", "more than zero"),
        ] {
            let e = Profile::parse("p.yaml", text).unwrap_err().to_string();
            assert!(e.starts_with("p.yaml:1:"), "{text:?} → {e}");
            assert!(e.contains(says), "{text:?} → {e}");
        }
    }
}
