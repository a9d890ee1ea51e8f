//! What the extended-card, extension and output-mode behaviours declare and
//! do: the card fields they add ([`shape_card`]), the checks a request passes
//! before the operation runs ([`admit`]: the extended card's bearer token, a
//! required extension), the extended card itself ([`extended_card`]) and the
//! refusal of output modes the peer cannot produce ([`check_output_modes`]).

use super::auth;
use super::behaviour::Behaviour;
use super::error::A2aError;
use super::published::OUTPUT_MODES;
use super::shared::Shared;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{json, Map, Value};

/// The extension the extension behaviours mark `required: true`.
pub(crate) const REQUIRED_EXTENSION: &str = "https://a2a-conform.dev/ext/mock-required/v1";
/// The extension they declare as optional.
pub(crate) const OPTIONAL_EXTENSION: &str = "https://a2a-conform.dev/ext/mock-optional/v1";

/// Whether the card declares an extended agent card.
fn declares_extended_card(behaviour: Behaviour) -> bool {
    matches!(
        behaviour,
        Behaviour::ExtendedCard
            | Behaviour::ExtendedCardUnconfigured
            | Behaviour::ExtendedCardPartial
    )
}

/// Whether the extended card is served only to a request with the token.
pub(crate) fn guards_extended_card(behaviour: Behaviour) -> bool {
    matches!(
        behaviour,
        Behaviour::ExtendedCard | Behaviour::ExtendedCardPartial
    )
}

fn declares_extensions(behaviour: Behaviour) -> bool {
    matches!(
        behaviour,
        Behaviour::ExtensionRequired | Behaviour::ExtensionIgnored
    )
}

/// The output modes the card declares (card defaults and the one skill).
fn output_modes(behaviour: Behaviour) -> &'static [&'static str] {
    match behaviour {
        Behaviour::OutputModes | Behaviour::OutputModeFails => &["text/plain", "application/json"],
        Behaviour::OutputModeIgnored => &["application/json"],
        _ => OUTPUT_MODES,
    }
}

/// Adds what these behaviours declare to the card: the extended-card flag
/// (v1.0 `capabilities.extendedAgentCard`, v0.3
/// `supportsAuthenticatedExtendedCard`), `capabilities.extensions`, and
/// the output modes.
pub(crate) fn shape_card(card: &mut Value, peer: &Shared) {
    let behaviour = peer.behaviour;
    if declares_extended_card(behaviour) {
        match peer.protocol {
            ProtocolVersion::V1_0 => card["capabilities"]["extendedAgentCard"] = json!(true),
            ProtocolVersion::V0_3 => card["supportsAuthenticatedExtendedCard"] = json!(true),
        }
    }
    if declares_extensions(behaviour) {
        card["capabilities"]["extensions"] = json!([
            {
                "uri": REQUIRED_EXTENSION,
                "description": "Every request must ask for this extension",
                "required": true,
            },
            {
                "uri": OPTIONAL_EXTENSION,
                "description": "A request may ask for this extension",
                "required": false,
            },
        ]);
    }
    let modes = output_modes(behaviour);
    if modes != OUTPUT_MODES {
        card["defaultOutputModes"] = json!(modes);
        if let Some(skills) = card["skills"].as_array_mut() {
            for skill in skills {
                skill["outputModes"] = json!(modes);
            }
        }
    }
}

/// Why a request is not admitted: HTTP 401, or a protocol error.
pub(crate) enum Refusal {
    Unauthorized(Box<Response>),
    Error(A2aError),
}

/// The checks a request passes before its operation runs: a required
/// extension named in the version's extensions header (else -32008), and
/// the bearer token on a request for a guarded extended card (else 401).
pub(crate) fn admit(peer: &Shared, op: Operation, headers: &HeaderMap) -> Result<(), Refusal> {
    if peer.behaviour == Behaviour::ExtensionRequired {
        let name = match peer.protocol {
            ProtocolVersion::V1_0 => "A2A-Extensions",
            ProtocolVersion::V0_3 => "X-A2A-Extensions",
        };
        let asked = headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .any(|uri| uri.trim() == REQUIRED_EXTENSION);
        if !asked {
            return Err(Refusal::Error(A2aError::new(
                codes::EXTENSION_SUPPORT_REQUIRED,
                format!(
                    "the extension {REQUIRED_EXTENSION} is required: name it in the {name} header"
                ),
            )));
        }
    }
    if op == Operation::GetExtendedCard && guards_extended_card(peer.behaviour) {
        if let Some(token) = peer.auth_token.as_deref() {
            if let Some(refused) = auth::refusal(token, headers) {
                return Err(Refusal::Unauthorized(Box::new(refused)));
            }
        }
    }
    Ok(())
}

/// The extended agent card, given the public one: the public card with one
/// more skill (`extended-card`), or with only that skill
/// (`extended-card-partial`). A card that declares none refuses with
/// -32004 (v1.0; v0.3, which has no such rule, -32007), and
/// `extended-card-unconfigured` with -32007.
pub(crate) fn extended_card(peer: &Shared, mut card: Value) -> Result<Value, A2aError> {
    let not_configured = || {
        A2aError::new(
            codes::EXTENDED_CARD_NOT_CONFIGURED,
            "no authenticated extended card is configured",
        )
    };
    match peer.behaviour {
        Behaviour::ExtendedCard | Behaviour::ExtendedCardPartial => {}
        Behaviour::ExtendedCardUnconfigured => return Err(not_configured()),
        // Not declared, and refused with -32007 on v1.0 too, where §3.3.4
        // requires -32004 ("extendedAgentCard false: -32004"; -32007 is for
        // a declared card with none configured): the reports' shape.
        Behaviour::ExtendedCardUndeclaredUnconfigured => return Err(not_configured()),
        _ => {
            return Err(match peer.protocol {
                ProtocolVersion::V1_0 => A2aError::unsupported(
                    "no extended agent card (capabilities.extendedAgentCard is not declared)",
                ),
                ProtocolVersion::V0_3 => not_configured(),
            })
        }
    }
    let private = json!({
        "id": "echo-private",
        "name": "Private echo",
        "description": "The chunked echo, listed for authenticated clients only.",
        "tags": ["mock", "echo", "extended"],
    });
    if let Some(skills) = card["skills"].as_array_mut() {
        if peer.behaviour == Behaviour::ExtendedCardPartial {
            skills.clear();
        }
        skills.push(private);
    }
    if let Some(name) = card["name"].as_str() {
        card["name"] = json!(format!("{name} (extended)"));
    }
    Ok(card)
}

/// `output-modes` refuses, with ContentTypeNotSupported (-32005), a send
/// whose `configuration.acceptedOutputModes` accepts no text: it answers
/// text only.
pub(crate) fn check_output_modes(
    peer: &Shared,
    params: &Map<String, Value>,
) -> Result<(), A2aError> {
    if peer.behaviour != Behaviour::OutputModes {
        return Ok(());
    }
    let Some(accepted) = accepts_no_text(params) else {
        return Ok(());
    };
    Err(A2aError::new(
        codes::CONTENT_TYPE_NOT_SUPPORTED,
        format!(
            "this peer answers text/plain only, and the send accepts {}",
            accepted.join(", ")
        ),
    ))
}

/// `output-mode-fails` fails the task of a send whose
/// `configuration.acceptedOutputModes` accepts no text, though its card
/// declares JSON output: the divergence a refusal with -32005 would not be.
pub(crate) fn fails_output_modes(peer: &Shared, params: &Map<String, Value>) -> bool {
    peer.behaviour == Behaviour::OutputModeFails && accepts_no_text(params).is_some()
}

/// The send's accepted output modes when they are given and accept no
/// text; `None` otherwise.
fn accepts_no_text(params: &Map<String, Value>) -> Option<Vec<&str>> {
    let accepted: Vec<&str> = params
        .get("configuration")
        .and_then(|c| c.get("acceptedOutputModes"))
        .and_then(Value::as_array)
        .map(|modes| modes.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let text = |m: &&str| {
        let m = m.trim().to_ascii_lowercase();
        m == "text/plain" || m == "text/*" || m == "*/*"
    };
    if accepted.is_empty() || accepted.iter().any(text) {
        None
    } else {
        Some(accepted)
    }
}
