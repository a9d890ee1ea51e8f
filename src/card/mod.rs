//! Agent card discovery and parsing: version detection, endpoint choice and the
//! declarations a run will judge. Pure logic: the caller fetches the bytes.
//!
//! - [`discovery_url`] turns a card URL or base URL into the URL to fetch.
//! - [`parse_card`] reads a fetched body into a [`Card`]: its layout (v1.0, v0.3 or
//!   hybrid), every declared [`Interface`], the one chosen as `endpoint`, and what
//!   the card declares ([`Card::declarations`], [`Card::is_declared`]).
//!
//! What is fatal and what is a warning is documented on [`parse_card`].

mod discovery;
mod error;
mod interfaces;
mod parse;
mod select;

#[cfg(test)]
mod tests;

pub use discovery::{discovery_url, WELL_KNOWN_PATH};
pub use error::CardError;
pub use parse::parse_card;

use crate::declaration::{Capability, DeclarationId};
use crate::protocol::{Binding, ProtocolVersion};
use serde::Serialize;
use std::fmt;
use std::time::Duration;

/// The largest card body [`parse_card`] accepts (1 MiB). Fetchers should stop
/// reading past it.
pub const MAX_CARD_BYTES: usize = 1024 * 1024;

/// Which protocol version to speak: detected from the card, or forced (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolChoice {
    #[default]
    Auto,
    Force(ProtocolVersion),
}

/// Which binding to use: the card's preference, or forced (`--binding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindingChoice {
    #[default]
    Auto,
    Force(Binding),
}

/// Which shape the card has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CardLayout {
    /// `supportedInterfaces`, no legacy top-level endpoint fields.
    #[serde(rename = "1.0")]
    V1_0,
    /// Top-level `url` + `protocolVersion` (+ `preferredTransport`, `additionalInterfaces`).
    #[serde(rename = "0.3")]
    V0_3,
    /// `supportedInterfaces` plus a top-level `protocolVersion` and/or `url`, as the
    /// official SDKs serve when they speak both versions. `supportedInterfaces` wins.
    #[serde(rename = "hybrid")]
    Hybrid,
}

impl fmt::Display for CardLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CardLayout::V1_0 => "v1.0",
            CardLayout::V0_3 => "v0.3",
            CardLayout::Hybrid => "hybrid (v1.0 with v0.3 fields)",
        })
    }
}

/// A parsed, validated agent card.
#[derive(Debug, Clone, Serialize)]
pub struct Card {
    /// The URL the card was fetched from.
    pub fetched_from: String,
    /// The card exactly as received.
    pub raw: serde_json::Value,
    /// `sha256:<hex>` over the raw body bytes.
    pub digest: String,
    pub name: String,
    /// The agent's own version (`version`), not the protocol's.
    pub version: Option<String>,
    pub layout: CardLayout,
    /// Every declared interface, in preference order: v1.0 `supportedInterfaces`;
    /// v0.3 `url` + `preferredTransport`, then `additionalInterfaces`; hybrid both,
    /// `supportedInterfaces` first. Exact repeats are listed once.
    pub interfaces: Vec<Interface>,
    /// The interface the run talks to.
    pub endpoint: Interface,
    pub capabilities: Capabilities,
    pub default_input_modes: Vec<String>,
    pub default_output_modes: Vec<String>,
    pub skills: Vec<Skill>,
    /// Names of the declared security schemes, in card order.
    pub security_schemes: Vec<String>,
    /// Whether the card requires credentials on every request: a non-empty
    /// v1.0 `securityRequirements` or v0.3 `security` with no empty
    /// (anonymous) alternative. Declares `security.enforced`.
    pub security_required: bool,
    /// A default timeout the card declares (top-level or `capabilities.defaultTimeout`,
    /// seconds as a number or a string like `"30s"`, `"1500ms"`, `"2m"`). Serialized
    /// as seconds.
    #[serde(serialize_with = "serialize_secs")]
    pub default_timeout: Option<Duration>,
    /// Lint findings that are not fatal, one line each.
    pub warnings: Vec<String>,
}

/// One declared interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interface {
    /// Absolute URL (relative ones are resolved against the card URL, with a warning).
    pub url: String,
    /// `None`: a binding the tool does not speak (e.g. `GRPC`) or does not know.
    pub binding: Option<Binding>,
    /// The binding as the card spells it (`JSONRPC` when a v0.3 card omits `preferredTransport`).
    pub binding_name: String,
    /// `None`: a version the tool does not speak. Set to the assumed version (with a
    /// warning) when the card leaves it out.
    pub protocol_version: Option<ProtocolVersion>,
    /// The version as the card spells it; empty when the card leaves it out.
    pub declared_version: String,
    /// v1.0 `tenant`, to be sent with every request.
    pub tenant: Option<String>,
}

/// The card's capability flags; `None` when the card leaves one out (reads as false).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Capabilities {
    pub streaming: Option<bool>,
    pub push_notifications: Option<bool>,
    /// v1.0 `capabilities.extendedAgentCard`, else v0.3 `supportsAuthenticatedExtendedCard`.
    pub extended_agent_card: Option<bool>,
    /// v0.3 only (removed in 1.0).
    pub state_transition_history: Option<bool>,
}

/// A declared skill. Modes are `None` when the skill has none of its own (it then
/// takes the card defaults; an empty list counts as none, as in ProtoJSON).
#[derive(Debug, Clone, Serialize)]
pub struct Skill {
    pub id: String,
    pub name: String,
    pub input_modes: Option<Vec<String>>,
    pub output_modes: Option<Vec<String>>,
}

/// A declared interface as a declaration (see [`Card::interface_declarations`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceDeclaration {
    pub id: DeclarationId,
    pub interface: Interface,
    /// Why the tool cannot check it (`None`: it can).
    pub unsupported: Option<String>,
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
        (Some(b), Some(v)) if !select::speaks(v, b) => Some(format!(
            "binding not supported by this version of a2a-conform ({} {})",
            select::card_name(b),
            v.as_str()
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

/// A promise the runner can judge, and whether the card makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declaration {
    pub id: DeclarationId,
    pub declared: bool,
}

impl Card {
    /// The endpoint's protocol version.
    ///
    /// # Panics
    /// If `endpoint` was replaced by one with no version; [`parse_card`] never
    /// chooses such an endpoint.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.endpoint
            .protocol_version
            .expect("the chosen endpoint has a protocol version the tool speaks")
    }

    /// The endpoint's binding.
    ///
    /// # Panics
    /// If `endpoint` was replaced by one with no binding; [`parse_card`] never
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
    /// card requires credentials, see [`Card::security_required`]), the interfaces of
    /// [`Card::interface_declarations`], then the input modes of
    /// [`Card::input_mode_declarations`].
    pub fn declarations(&self) -> Vec<Declaration> {
        let mut out: Vec<Declaration> = [
            DeclarationId::Capability(Capability::Streaming),
            DeclarationId::Capability(Capability::PushNotifications),
            DeclarationId::Cancel,
            DeclarationId::Completion,
            DeclarationId::VersionNegotiation,
            DeclarationId::SecurityEnforced,
        ]
        .into_iter()
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
            self.input_mode_declarations()
                .into_iter()
                .map(|(id, _)| Declaration { id, declared: true }),
        );
        out
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
                Some(b) => select::card_name(b).to_string(),
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
    /// - a suite's own `x-…` id: false (no card declares it).
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
            DeclarationId::Custom(_) => false,
        }
    }

    fn skill(&self, id: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.id == id)
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

fn serialize_secs<S: serde::Serializer>(
    value: &Option<Duration>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(d) => serializer.serialize_some(&d.as_secs_f64()),
        None => serializer.serialize_none(),
    }
}
