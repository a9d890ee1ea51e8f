//! The mock peer's agent card, in the v1.0 or v0.3 layout, served at the
//! well-known path with `Cache-Control: max-age` and an `ETag` (v1 §8.6.1).

use super::auth;
use super::behaviour::Behaviour;
use super::declared;
use super::published::{INPUT_MODES, JSONRPC_PATH, OUTPUT_MODES, REST_PATH};
use super::shared::Shared;
use a2a_conform_protocol::{Binding, ProtocolVersion};
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::sync::Arc;

use super::published::DESCRIBED_TRIGGER;
pub(crate) use super::published::EXAMPLES;

/// Where `interface-unserved` declares an interface that nothing serves.
const UNSERVED_PATH: &str = "/a2a/retired";

/// The card as JSON, declarations shaped by the behaviour.
pub(crate) fn card_json(peer: &Shared) -> Value {
    let behaviour = peer.behaviour;
    let mut skills = json!([{
        "id": "echo",
        "name": "Chunked echo",
        "description": "Answers every message with a `result` artifact streamed in chunks. \
                        A text containing `need-input` first asks for more input.",
        "tags": ["mock", "echo", "conformance"],
        "examples": EXAMPLES,
        "inputModes": INPUT_MODES,
        "outputModes": OUTPUT_MODES,
    }]);
    if !behaviour.lists_examples() {
        // As a framework generates it: no examples, the trigger phrase in prose.
        let skill = &mut skills[0];
        skill["description"] = json!(format!(
            "Answers every message with a result artifact streamed in chunks. \
             Try \"{DESCRIBED_TRIGGER}\": it first asks where to."
        ));
        if let Some(fields) = skill.as_object_mut() {
            fields.remove("examples");
        }
    }
    let mut description = format!(
        "A loopback A2A peer for a2a-conform. Behaviour `{}`: {}.",
        behaviour.name(),
        behaviour.describe()
    );
    if peer.draft {
        // Its interfaces still say 1.0: the draft is additive over 1.0.
        description = format!("{description} {}", super::draft::CARD_NOTE);
    }
    let mut card = json!({
        "name": format!("a2a-conform mock peer ({})", behaviour.name()),
        "description": description,
        "version": env!("CARGO_PKG_VERSION"),
    });
    // Keys keep the order the card has always been served in (the
    // golden reports hold its digest): v0.3's additional interfaces last.
    let base = &peer.base_url;
    match peer.protocol {
        ProtocolVersion::V1_0 => card["supportedInterfaces"] = json!(interfaces_v1_0(peer)),
        ProtocolVersion::V0_3 => {
            card["protocolVersion"] = json!("0.3.0");
            match (peer.grpc_addr, peer.behaviour) {
                (Some(addr), Behaviour::GrpcOnly) => {
                    card["url"] = json!(addr.to_string());
                    card["preferredTransport"] = json!(Binding::Grpc.card_name());
                }
                _ => {
                    card["url"] = json!(format!("{base}{JSONRPC_PATH}"));
                    card["preferredTransport"] = json!(Binding::Jsonrpc.card_name());
                }
            }
        }
    }
    card["capabilities"] = json!({
        "streaming": behaviour.declares_streaming(),
        "pushNotifications": behaviour.declares_push(),
    });
    card["defaultInputModes"] = json!(INPUT_MODES);
    card["defaultOutputModes"] = json!(OUTPUT_MODES);
    card["skills"] = skills;
    if peer.protocol == ProtocolVersion::V0_3 {
        card["additionalInterfaces"] = json!(additional_interfaces_v0_3(peer));
    }
    if behaviour.declares_security() && !auth::declare_schemes(&mut card, peer) {
        declare_security(&mut card, peer.protocol);
    }
    declared::shape_card(&mut card, peer);
    match &peer.signing {
        Some(key) => key.sign(card, behaviour),
        None => card,
    }
}

/// v1.0 `supportedInterfaces`: JSON-RPC, then HTTP+JSON (declared whether
/// or not it is served: `rest-unserved`), then what the behaviour adds.
fn interfaces_v1_0(peer: &Shared) -> Vec<Value> {
    let base = &peer.base_url;
    let interface = |url: String, binding: Binding| {
        json!({
            "url": url,
            "protocolBinding": binding.card_name(),
            "protocolVersion": ProtocolVersion::V1_0.as_str(),
        })
    };
    let mut interfaces = vec![
        interface(format!("{base}{JSONRPC_PATH}"), Binding::Jsonrpc),
        interface(format!("{base}{REST_PATH}"), Binding::Rest),
    ];
    if peer.behaviour == Behaviour::InterfaceUnserved {
        interfaces.push(interface(
            format!("{base}{UNSERVED_PATH}"),
            Binding::Jsonrpc,
        ));
    }
    if let Some(addr) = peer.grpc_addr {
        // `host:port`, no scheme, as gRPC targets are written.
        let grpc = interface(addr.to_string(), Binding::Grpc);
        match peer.behaviour {
            Behaviour::GrpcOnly => interfaces = vec![grpc],
            Behaviour::GrpcRefused => interfaces.insert(1, grpc),
            _ => interfaces.push(grpc),
        }
    }
    interfaces
}

/// v0.3 `additionalInterfaces` (the top-level `url` is JSON-RPC's, or
/// gRPC's for `grpc-only`), in the order v1.0 lists them.
fn additional_interfaces_v0_3(peer: &Shared) -> Vec<Value> {
    let base = &peer.base_url;
    let mut additional = vec![json!({
        "url": format!("{base}{REST_PATH}"),
        "transport": Binding::Rest.card_name(),
    })];
    if peer.behaviour == Behaviour::InterfaceUnserved {
        additional.push(json!({
            "url": format!("{base}{UNSERVED_PATH}"),
            "transport": Binding::Jsonrpc.card_name(),
        }));
    }
    if let Some(addr) = peer.grpc_addr {
        // `host:port`, no scheme, as gRPC targets are written.
        let grpc = json!({ "url": addr.to_string(), "transport": Binding::Grpc.card_name() });
        match peer.behaviour {
            // The top-level `url` is the one interface.
            Behaviour::GrpcOnly => additional.clear(),
            Behaviour::GrpcRefused => additional.insert(0, grpc),
            _ => additional.push(grpc),
        }
    }
    additional
}

/// A required bearer scheme, in the version's shapes (v1.0
/// `httpAuthSecurityScheme` + `securityRequirements`; v0.3 `type: http` +
/// `security`).
fn declare_security(card: &mut Value, protocol: ProtocolVersion) {
    let scheme = auth::SCHEME;
    match protocol {
        ProtocolVersion::V1_0 => {
            card["securitySchemes"] = json!({
                scheme: {"httpAuthSecurityScheme": {
                    "scheme": "Bearer",
                    "description": "A bearer token on every A2A request",
                }}
            });
            card["securityRequirements"] = json!([{"schemes": {scheme: {"list": []}}}]);
        }
        ProtocolVersion::V0_3 => {
            card["securitySchemes"] = json!({
                scheme: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A bearer token on every A2A request",
                }
            });
            card["security"] = json!([{scheme: []}]);
        }
    }
}

/// GET the card; honours `If-None-Match` with 304.
pub(crate) async fn serve(State(peer): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    let mut card = card_json(&peer);
    let revision = peer.card.revision();
    if revision > 0 {
        let description = card["description"].as_str().unwrap_or_default();
        card["description"] = json!(format!("{description} (revision {revision})"));
    }
    let body = card.to_string();
    let body = if peer.behaviour == Behaviour::CardDuplicateKeys {
        with_duplicate_keys(&body)
    } else {
        body
    };
    let response = respond_with(body, &headers, peer.card.max_age());
    peer.card
        .count(response.status() == StatusCode::NOT_MODIFIED);
    response
}

/// card-duplicate-keys: the card's text with an earlier, different value
/// for its top-level `name` and for `capabilities.streaming`. A parser that
/// keeps the last value reads the card as served without them.
fn with_duplicate_keys(body: &str) -> String {
    let body = body.replacen(
        "{",
        "{\"name\":\"a2a-conform mock peer (an earlier name)\",",
        1,
    );
    body.replacen(
        "\"capabilities\":{",
        "\"capabilities\":{\"streaming\":false,",
        1,
    )
}

/// A card body with its `ETag` and the default `max-age`, or 304 when
/// `If-None-Match` names it.
pub(crate) fn respond(body: String, headers: &HeaderMap) -> Response {
    respond_with(body, headers, super::shared::DEFAULT_CARD_MAX_AGE)
}

/// A card body with its `ETag` and `max-age`, or 304 when `If-None-Match`
/// names it.
fn respond_with(body: String, headers: &HeaderMap, max_age: u32) -> Response {
    let digest = Sha256::digest(body.as_bytes());
    let mut etag = String::from("\"");
    for byte in &digest[..12] {
        let _ = write!(etag, "{byte:02x}");
    }
    etag.push('"');
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let etag =
        HeaderValue::from_str(&etag).unwrap_or_else(|_| HeaderValue::from_static("\"card\""));
    let cache = HeaderValue::from_str(&format!("max-age={max_age}"))
        .unwrap_or_else(|_| HeaderValue::from_static("max-age=300"));
    if matches {
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache)],
        )
            .into_response();
    }
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            ),
            (header::CACHE_CONTROL, cache),
            (header::ETAG, etag),
        ],
        body,
    )
        .into_response()
}
