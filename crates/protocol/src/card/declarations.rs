//! What a card promises, as declaration ids: the rows a run judges, and the
//! answers to a scenario's `when:` gate.

use super::model::{Card, Declaration, Interface, InterfaceDeclaration, PairDeclaration, Skill};
use super::select;
use crate::declaration::{Capability, DeclarationId};
use crate::{Binding, ProtocolVersion};

impl Card {
    /// The endpoint's protocol version.
    ///
    /// # Panics
    /// If `endpoint` was replaced by one with no version; [`super::parse_card`] never
    /// chooses such an endpoint.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.endpoint
            .protocol_version
            .expect("the chosen endpoint has a protocol version the tool speaks")
    }

    /// The endpoint's binding.
    ///
    /// # Panics
    /// If `endpoint` was replaced by one with no binding; [`super::parse_card`] never
    /// chooses such an endpoint.
    pub fn binding(&self) -> Binding {
        self.endpoint
            .binding
            .expect("the chosen endpoint has a binding the tool speaks")
    }

    /// Every declaration the runner can judge, in a stable order, with whether the
    /// card claims it: `capabilities.streaming`, `capabilities.pushNotifications`,
    /// `lifecycle.cancel` and `lifecycle.completion` (always declared: every A2A
    /// peer promises them), `protocol.versionNegotiation` (declared when the
    /// chosen endpoint speaks 1.0), `security.enforced` (declared when the
    /// card requires credentials, see [`Card::security_required`]), the task
    /// basics every peer promises by speaking A2A (`protocol.unknownTask`,
    /// `protocol.historyLength`, `protocol.blocking`; on a 1.0 endpoint also `protocol.listTasks`,
    /// `protocol.contextMismatch`, and `protocol.terminalSubscribe` when it
    /// declares streaming), the interfaces of
    /// [`Card::interface_declarations`], then the input modes of
    /// [`Card::input_mode_declarations`]; under `--protocol 1.1-draft`
    /// ([`Card::draft_1_1`]) the draft's rows last.
    pub fn declarations(&self) -> Vec<Declaration> {
        // The fixed rows are `DeclarationId::FIXED`, in its order, less
        // `capabilities.stateTransitionHistory`: a v0.3 flag (removed in 1.0)
        // that no scenario of the default suite verifies, so its row would
        // only ever read unverified or not-declared, on every v0.3 card, in
        // every report.
        // It stays in FIXED so that a `when:` gate can still ask the card
        // about it and a suite of one's own can name it in `verifies:`.
        let mut out: Vec<Declaration> = DeclarationId::FIXED
            .into_iter()
            .filter(|id| *id != DeclarationId::Capability(Capability::StateTransitionHistory))
            .map(|id| Declaration {
                declared: self.is_declared(&id),
                id,
            })
            .collect();
        out.extend(
            self.interface_declarations()
                .into_iter()
                .map(|d| Declaration {
                    id: d.id,
                    declared: true,
                }),
        );
        out.extend(
            self.interface_pair_declarations()
                .into_iter()
                .map(|d| Declaration {
                    id: d.id,
                    declared: true,
                }),
        );
        out.extend(
            super::signature::signature_declarations(&self.raw)
                .into_iter()
                .map(|(id, _)| Declaration { id, declared: true }),
        );
        out.extend(
            self.input_mode_declarations()
                .into_iter()
                .map(|(id, _)| Declaration { id, declared: true }),
        );
        out.extend(
            self.output_mode_declarations()
                .into_iter()
                .map(|(id, _)| Declaration { id, declared: true }),
        );
        out.extend(self.capabilities.extensions.iter().map(|e| Declaration {
            id: DeclarationId::Extension(e.uri.clone()),
            declared: true,
        }));
        if self.draft_1_1 {
            out.extend(
                DeclarationId::DRAFT_1_1
                    .into_iter()
                    .map(|id| Declaration { id, declared: true }),
            );
        }
        out
    }

    /// Declared output modes to expand over, as (declaration id, media type):
    /// `defaultOutputModes[<type>]`, then each skill's own as
    /// `skills[<id>].outputModes[<type>]`; repeats listed once, as for
    /// [`Card::input_mode_declarations`].
    pub fn output_mode_declarations(&self) -> Vec<(DeclarationId, String)> {
        let mut out = Vec::new();
        for mode in unique(&self.default_output_modes) {
            out.push((DeclarationId::DefaultOutputMode(mode.clone()), mode.clone()));
        }
        let mut seen_skills = std::collections::HashSet::new();
        for skill in &self.skills {
            if !seen_skills.insert(skill.id.as_str()) {
                continue;
            }
            for mode in unique(skill.output_modes.as_deref().unwrap_or_default()) {
                let id = DeclarationId::SkillOutputMode {
                    skill: skill.id.clone(),
                    mode: mode.clone(),
                };
                out.push((id, mode.clone()));
            }
        }
        out
    }

    /// Every output media type the card declares anywhere (defaults and
    /// every skill's own), lowercased: a part of another type is one the card
    /// never promised.
    pub fn declared_output_types(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .default_output_modes
            .iter()
            .chain(
                self.skills
                    .iter()
                    .flat_map(|s| s.output_modes.iter().flatten()),
            )
            .map(|m| m.to_ascii_lowercase())
            .collect();
        all.sort();
        all.dedup();
        all
    }

    /// The URIs of the extensions the card marks `required: true`.
    pub fn required_extensions(&self) -> Vec<String> {
        self.capabilities
            .extensions
            .iter()
            .filter(|e| e.required)
            .map(|e| e.uri.clone())
            .collect()
    }

    /// Every declared interface as a declaration, in the card's preference
    /// order: `interfaces[<BINDING> <version>]`, e.g. `interfaces[JSONRPC 1.0]`;
    /// a repeat of the same binding and version gets ` #2`, ` #3`. Ids leave
    /// the URL out so they stay stable across hosts and ports (reports and
    /// baselines key on them). One the tool cannot speak is listed too, with
    /// the reason, so its row reads unverified instead of going missing.
    pub fn interface_declarations(&self) -> Vec<InterfaceDeclaration> {
        let mut out: Vec<InterfaceDeclaration> = Vec::new();
        for interface in &self.interfaces {
            let binding = match interface.binding {
                Some(b) => b.card_name().to_string(),
                None => id_word(&interface.binding_name),
            };
            let version = match interface.protocol_version {
                Some(v) => v.as_str().to_string(),
                None => id_word(&interface.declared_version),
            };
            let repeat = 1 + out
                .iter()
                .filter(|d| {
                    matches!(&d.id, DeclarationId::Interface { binding: b, version: v, .. }
                        if *b == binding && *v == version)
                })
                .count() as u32;
            out.push(InterfaceDeclaration {
                unsupported: unsupported_reason(interface),
                id: DeclarationId::Interface {
                    binding,
                    version,
                    repeat,
                },
                interface: interface.clone(),
            });
        }
        out
    }

    /// On a card declaring two interfaces or more, one pair per interface
    /// besides the reference one, in card order: `<other> ≡ <reference>`.
    /// The reference is the card's preferred interface the tool speaks (the
    /// first so, or the first at all when it speaks none): n−1 rows, not
    /// every pair, since equivalence is transitive and one reference names
    /// the binding a caller is most likely to use.
    pub fn interface_pair_declarations(&self) -> Vec<PairDeclaration> {
        let all = self.interface_declarations();
        if all.len() < 2 {
            return Vec::new();
        }
        let at = all
            .iter()
            .position(|d| d.unsupported.is_none())
            .unwrap_or(0);
        let reference = all[at].clone();
        all.into_iter()
            .enumerate()
            .filter(|(n, _)| *n != at)
            .map(|(_, other)| PairDeclaration {
                id: DeclarationId::Equivalence(
                    Box::new(other.id.clone()),
                    Box::new(reference.id.clone()),
                ),
                other,
                reference: reference.clone(),
            })
            .collect()
    }

    /// Declared input modes to expand over, as (declaration id, media type): the card
    /// defaults as `defaultInputModes[<type>]`, then each skill's own modes as
    /// `skills[<id>].inputModes[<type>]`. Repeats (same type, ignoring ASCII case,
    /// or a repeated skill id) are listed once.
    pub fn input_mode_declarations(&self) -> Vec<(DeclarationId, String)> {
        let mut out = Vec::new();
        for mode in unique(&self.default_input_modes) {
            out.push((DeclarationId::DefaultInputMode(mode.clone()), mode.clone()));
        }
        let mut seen_skills = std::collections::HashSet::new();
        for skill in &self.skills {
            if !seen_skills.insert(skill.id.as_str()) {
                continue;
            }
            for mode in unique(skill.input_modes.as_deref().unwrap_or_default()) {
                let id = DeclarationId::SkillInputMode {
                    skill: skill.id.clone(),
                    mode: mode.clone(),
                };
                out.push((id, mode.clone()));
            }
        }
        out
    }

    /// Whether the card makes this promise (what a scenario `when:` gate asks):
    /// - capability flags: the flag, absent reading as false (the ProtoJSON default);
    /// - `lifecycle.cancel`, `lifecycle.completion`: always true;
    /// - `defaultInputModes[<type>]`, `defaultOutputModes[<type>]`: whether listed
    ///   (media types compare ignoring ASCII case);
    /// - `skills[<id>]`: whether the skill exists;
    /// - `skills[<id>].inputModes[<type>]`, `skills[<id>].outputModes[<type>]`:
    ///   whether the skill accepts/produces it: its own modes, or the card defaults
    ///   when it has none; false for a skill the card does not declare;
    /// - `securitySchemes[<name>]`: whether the scheme is declared;
    /// - `interfaces[<BINDING> <version>]`: whether the card declares such an
    ///   interface (see [`Card::interface_declarations`]);
    /// - `protocol.versionNegotiation`: whether the chosen endpoint speaks 1.0;
    /// - `security.enforced`: whether the card requires credentials;
    /// - `protocol.unknownTask`, `protocol.historyLength`: always true
    ///   (speaking A2A promises them);
    /// - `protocol.blocking`: always true: v1.0's `returnImmediately`
    ///   defaults to false, and on 0.3 (whose `blocking` default is
    ///   unspecified) the tool's sends carry `blocking: true` explicitly, so
    ///   the promise judged is the one the request asked for;
    /// - `protocol.listTasks`, `protocol.contextMismatch`: whether the chosen
    ///   endpoint speaks 1.0 (0.3 has no ListTasks, and states no rule for a
    ///   contradicting `contextId`);
    /// - `signatures[<kid>]`: whether the card carries such a signature;
    /// - `protocol.terminalSubscribe`: whether the chosen endpoint speaks 1.0
    ///   and the card declares streaming (0.3 defines no error for it, and
    ///   without streaming every subscribe is refused anyway);
    /// - a suite's own `x-…` id: false (no card declares it);
    /// - `capabilities.extensions[<uri>]`: whether the extension is declared;
    /// - the 1.1 draft's `protocol.generation`, `protocol.generationLongPoll`,
    ///   `protocol.generationMatch`: whether the check speaks the draft
    ///   ([`Card::draft_1_1`]).
    pub fn is_declared(&self, id: &DeclarationId) -> bool {
        let caps = &self.capabilities;
        match id {
            DeclarationId::Capability(c) => match c {
                Capability::Streaming => caps.streaming,
                Capability::PushNotifications => caps.push_notifications,
                Capability::ExtendedAgentCard => caps.extended_agent_card,
                Capability::StateTransitionHistory => caps.state_transition_history,
            }
            .unwrap_or(false),
            DeclarationId::Cancel | DeclarationId::Completion => true,
            DeclarationId::VersionNegotiation => self.protocol_version() == ProtocolVersion::V1_0,
            DeclarationId::SecurityEnforced => self.security_required,
            DeclarationId::DefaultInputMode(mode) => has_mode(&self.default_input_modes, mode),
            DeclarationId::DefaultOutputMode(mode) => has_mode(&self.default_output_modes, mode),
            DeclarationId::Skill(skill) => self.skill(skill).is_some(),
            DeclarationId::SkillInputMode { skill, mode } => self
                .skill(skill)
                .map(|s| s.input_modes.as_ref().unwrap_or(&self.default_input_modes))
                .is_some_and(|m| has_mode(m, mode)),
            DeclarationId::SkillOutputMode { skill, mode } => self
                .skill(skill)
                .map(|s| {
                    s.output_modes
                        .as_ref()
                        .unwrap_or(&self.default_output_modes)
                })
                .is_some_and(|m| has_mode(m, mode)),
            DeclarationId::SecurityScheme(name) => self.security_schemes.iter().any(|s| s == name),
            DeclarationId::Interface { .. } => {
                self.interface_declarations().iter().any(|d| d.id == *id)
            }
            DeclarationId::Equivalence(..) => self
                .interface_pair_declarations()
                .iter()
                .any(|d| d.id == *id),
            DeclarationId::Custom(_) => false,
            DeclarationId::UnknownTask | DeclarationId::HistoryLength | DeclarationId::Blocking => {
                true
            }
            DeclarationId::ListTasks | DeclarationId::ContextMismatch => {
                self.protocol_version() == ProtocolVersion::V1_0
            }
            DeclarationId::Signature(_) => super::signature::signature_declarations(&self.raw)
                .iter()
                .any(|(d, _)| d == id),
            DeclarationId::TerminalSubscribe => {
                self.protocol_version() == ProtocolVersion::V1_0
                    && self.is_declared(&DeclarationId::Capability(Capability::Streaming))
            }
            DeclarationId::Extension(uri) => caps.extensions.iter().any(|e| e.uri == *uri),
            DeclarationId::Generation
            | DeclarationId::GenerationLongPoll
            | DeclarationId::GenerationMatch => self.draft_1_1,
            DeclarationId::UndeclaredInputRefused => self.refuses_undeclared_input(),
        }
    }

    /// Whether the card declares input modes at all, none of which covers
    /// [`UNDECLARED_MEDIA_TYPE`](crate::declaration::UNDECLARED_MEDIA_TYPE)
    /// (exactly, or as `*/*`, `application/*`): then a part of that type is
    /// one the card does not accept.
    fn refuses_undeclared_input(&self) -> bool {
        let probe = crate::declaration::UNDECLARED_MEDIA_TYPE;
        let skills = self.skills.iter().filter_map(|s| s.input_modes.as_ref());
        let mut modes = self.default_input_modes.iter().chain(skills.flatten());
        let mut any = false;
        let covered = modes.any(|m| {
            any = true;
            let m = m.split(';').next().unwrap_or("").trim();
            ["*/*", "*", "application/*", probe]
                .iter()
                .any(|c| m.eq_ignore_ascii_case(c))
        });
        any && !covered
    }

    fn skill(&self, id: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.id == id)
    }
}

/// Why this version of the tool cannot talk to an interface, if it cannot.
fn unsupported_reason(interface: &Interface) -> Option<String> {
    let shown = format!(
        "{} {}",
        id_word(&interface.binding_name),
        id_word(&interface.declared_version)
    );
    match (interface.binding, interface.protocol_version) {
        (None, _) => Some(format!(
            "binding not supported by this version of a2a-conform ({shown})"
        )),
        (_, None) => Some(format!(
            "protocol version not supported by this version of a2a-conform ({shown})"
        )),
        _ if !select::is_http_url(&interface.url) => Some(format!(
            "the interface URL `{}` is not an http(s) URL",
            interface.url
        )),
        _ => None,
    }
}

/// A card's spelling as one word of an `interfaces[…]` id (`unknown` when
/// empty; spaces and brackets would make the id unreadable).
fn id_word(text: &str) -> String {
    let word: String = text
        .trim()
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '[' | ']' | '#'))
        .collect();
    if word.is_empty() {
        "unknown".to_string()
    } else {
        word
    }
}

fn has_mode(modes: &[String], mode: &str) -> bool {
    modes.iter().any(|m| m.eq_ignore_ascii_case(mode))
}

fn unique(modes: &[String]) -> Vec<&String> {
    // A set, not a scan of `out`: a skill may list thousands of modes.
    let mut seen = std::collections::HashSet::new();
    modes
        .iter()
        .filter(|mode| seen.insert(mode.to_ascii_lowercase()))
        .collect()
}
