//! The parsed card's types: what a card declares, as the rest of the tool
//! reads it. Parsing lives in `parse`/`interfaces`; what the card promises,
//! as declaration ids, in `declarations`.

use crate::declaration::DeclarationId;
use crate::{Binding, ProtocolVersion};
use serde::Serialize;
use std::time::Duration;

/// The largest card body [`super::parse_card`] accepts (1 MiB). Fetchers should stop
/// reading past it.
pub const MAX_CARD_BYTES: usize = 1024 * 1024;

/// Which protocol version to speak: detected from the card, or forced (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolChoice {
    /// 1.0 when the card offers a fitting 1.0 interface, else 0.3.
    #[default]
    Auto,
    /// Only this version.
    Force(ProtocolVersion),
    /// `--protocol 1.1-draft`: a 1.0 interface, spoken as 1.0 (the draft
    /// adds to 1.0 and its own examples send `A2A-Version: 1.0`), with the
    /// draft's rows judged besides ([`Card::draft_1_1`]).
    Draft1_1,
}

/// Which binding to use: the card's preference, or forced (`--binding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindingChoice {
    /// The first fitting interface in the card's preference order.
    #[default]
    Auto,
    /// Only this binding.
    Force(Binding),
}

/// Which shape the card has: serialized by its short name (`1.0`), shown
/// to people by its description (`v1.0`, `hybrid (v1.0 with v0.3 fields)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::Display)]
pub enum CardLayout {
    /// `supportedInterfaces`, no legacy top-level endpoint fields.
    #[serde(rename = "1.0")]
    #[strum(to_string = "v1.0")]
    V1_0,
    /// Top-level `url` + `protocolVersion` (+ `preferredTransport`, `additionalInterfaces`).
    #[serde(rename = "0.3")]
    #[strum(to_string = "v0.3")]
    V0_3,
    /// `supportedInterfaces` plus a top-level `protocolVersion` and/or `url`, as the
    /// official SDKs serve when they speak both versions. `supportedInterfaces` wins.
    #[serde(rename = "hybrid")]
    #[strum(to_string = "hybrid (v1.0 with v0.3 fields)")]
    Hybrid,
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
    /// The agent's `name`.
    pub name: String,
    /// The agent's own version (`version`), not the protocol's.
    pub version: Option<String>,
    /// Which shape the card has (v1.0, v0.3 or hybrid).
    pub layout: CardLayout,
    /// Every declared interface, in preference order: v1.0 `supportedInterfaces`;
    /// v0.3 `url` + `preferredTransport`, then `additionalInterfaces`; hybrid both,
    /// `supportedInterfaces` first. Exact repeats are listed once.
    pub interfaces: Vec<Interface>,
    /// The interface the run talks to.
    pub endpoint: Interface,
    /// The capability flags and extensions.
    pub capabilities: Capabilities,
    /// `defaultInputModes`: the media types every skill accepts unless it says otherwise.
    pub default_input_modes: Vec<String>,
    /// `defaultOutputModes`: the media types every skill produces unless it says otherwise.
    pub default_output_modes: Vec<String>,
    /// The declared skills, in card order.
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
    /// Whether the check judges the A2A 1.1 draft's additions (the
    /// `dev-1.1` branch: task generations, long-polling, `ifGenerationMatch`),
    /// chosen with [`ProtocolChoice::Draft1_1`]: a promise of the protocol
    /// the check speaks, not of the card.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub draft_1_1: bool,
}

/// One declared interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Interface {
    /// Absolute URL (relative ones are resolved against the card URL, with a
    /// warning; a gRPC `host:port` gets its scheme).
    pub url: String,
    /// The URL as the card spells it (a gRPC target is often `host:port`).
    pub declared_url: String,
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
    /// `streaming`: the peer answers streaming sends and subscriptions.
    pub streaming: Option<bool>,
    /// `pushNotifications`: the peer delivers task updates to webhooks.
    pub push_notifications: Option<bool>,
    /// v1.0 `capabilities.extendedAgentCard`, else v0.3 `supportsAuthenticatedExtendedCard`.
    pub extended_agent_card: Option<bool>,
    /// v0.3 only (removed in 1.0).
    pub state_transition_history: Option<bool>,
    /// `capabilities.extensions`, in card order; an entry without a `uri` is
    /// left out (with a warning).
    pub extensions: Vec<Extension>,
}

/// An extension the card declares (`capabilities.extensions[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extension {
    /// The extension's URI (how requests ask for it).
    pub uri: String,
    /// `required: true`: a client must ask for it on every request (v1 §3.3.4).
    pub required: bool,
}

/// A declared skill. Modes are `None` when the skill has none of its own (it then
/// takes the card defaults; an empty list counts as none, as in ProtoJSON).
#[derive(Debug, Clone, Serialize)]
pub struct Skill {
    /// The skill's `id` (declaration ids name it: `skills[<id>]`).
    pub id: String,
    /// Its human name.
    pub name: String,
    /// Its own `inputModes`, if any.
    pub input_modes: Option<Vec<String>>,
    /// Its own `outputModes`, if any.
    pub output_modes: Option<Vec<String>>,
    /// The skill's `examples` (prompts it handles), each with its index in
    /// the card's list; see the engine's precondition search.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<(usize, String)>,
}

/// A declared interface as a declaration (see [`Card::interface_declarations`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InterfaceDeclaration {
    /// `interfaces[<BINDING> <version>]`.
    pub id: DeclarationId,
    /// The interface it names.
    pub interface: Interface,
    /// Why the tool cannot check it (`None`: it can).
    pub unsupported: Option<String>,
}

/// Two declared interfaces whose answers must agree
/// (`interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]`): `other` is
/// compared against `reference`, the card's preferred interface the tool
/// speaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairDeclaration {
    /// `<other's id> ≡ <reference's id>`.
    pub id: DeclarationId,
    /// The interface compared.
    pub other: InterfaceDeclaration,
    /// The interface it is compared against.
    pub reference: InterfaceDeclaration,
}

impl PairDeclaration {
    /// Why the tool cannot compare the pair (`None`: it can).
    pub fn unsupported(&self) -> Option<String> {
        self.other
            .unsupported
            .clone()
            .or_else(|| self.reference.unsupported.clone())
    }
}

/// A promise the runner can judge, and whether the card makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Declaration {
    /// The promise.
    pub id: DeclarationId,
    /// Whether the card makes it (rows not declared may still be probed:
    /// an undeclared capability must be refused).
    pub declared: bool,
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
