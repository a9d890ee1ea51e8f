//! Card tests: every fixture in `fixtures/cards/`, every choice rule, every error.
//! Shared helpers live here; the tests are split by topic.

mod choice;
mod discovery;
mod fixtures;
mod validation;

use super::*;
use crate::{Binding, ProtocolVersion};
use serde_json::json;
use url::Url;

const CARD_URL: &str = "https://agent.example.com/.well-known/agent-card.json";

const FIXTURES: [&str; 10] = [
    "v1_0.json",
    "v0_3.json",
    "hybrid.json",
    "v1_0_rest_first.json",
    "grpc_only.json",
    "missing_interfaces.json",
    "missing_url_v03.json",
    "not_json.txt",
    "array.json",
    "with_skills_modes.json",
];

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/cards/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

fn card_url() -> Url {
    Url::parse(CARD_URL).unwrap()
}

fn parse_with(
    body: &[u8],
    protocol: ProtocolChoice,
    binding: BindingChoice,
) -> Result<Card, CardError> {
    parse_card(&card_url(), body, protocol, binding)
}

fn load(name: &str) -> Card {
    parse_with(&fixture(name), ProtocolChoice::Auto, BindingChoice::Auto)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn load_err(name: &str) -> CardError {
    match parse_with(&fixture(name), ProtocolChoice::Auto, BindingChoice::Auto) {
        Ok(card) => panic!("{name} parsed: {card:?}"),
        Err(e) => e,
    }
}

fn inline(card: serde_json::Value) -> Result<Card, CardError> {
    parse_with(
        card.to_string().as_bytes(),
        ProtocolChoice::Auto,
        BindingChoice::Auto,
    )
}

fn inline_with(
    card: serde_json::Value,
    protocol: ProtocolChoice,
    binding: BindingChoice,
) -> Result<Card, CardError> {
    parse_with(card.to_string().as_bytes(), protocol, binding)
}

/// A complete v1.0 card to start edge cases from.
fn base_v1() -> serde_json::Value {
    json!({
        "name": "Base",
        "description": "d",
        "supportedInterfaces": [
            {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "version": "1",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "d", "tags": []}]
    })
}

fn ids(card: &Card) -> Vec<(String, bool)> {
    card.declarations()
        .into_iter()
        .map(|d| (d.id.to_string(), d.declared))
        .collect()
}

/// Whether the card declares a spelled-out id; `None` when the text is not
/// a declaration id at all.
fn declares(card: &Card, text: &str) -> Option<bool> {
    text.parse::<crate::declaration::DeclarationId>()
        .ok()
        .map(|id| card.is_declared(&id))
}

fn decl(id: &str, declared: bool) -> (String, bool) {
    (id.to_string(), declared)
}

fn endpoint_of(card: &Card) -> (&str, Binding, ProtocolVersion) {
    (
        card.endpoint.url.as_str(),
        card.binding(),
        card.protocol_version(),
    )
}

fn assert_one_line(err: &CardError) {
    let msg = err.to_string();
    assert!(!msg.contains('\n'), "multi-line message: {msg}");
}

fn has_warning(card: &Card, needle: &str) -> bool {
    card.warnings.iter().any(|w| w.contains(needle))
}
