//! Endpoint choice: version and binding preference, forcing, fallbacks.

use super::*;
use crate::declaration::DeclarationId;

#[test]
fn auto_takes_a_1_0_entry_over_an_earlier_0_3_entry() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "https://h/new", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
    ]);
    let card = inline(card).unwrap();
    assert_eq!(
        endpoint_of(&card),
        ("https://h/new", Binding::Rest, ProtocolVersion::V1_0)
    );
}

#[test]
fn auto_falls_back_to_0_3_when_no_1_0_entry_fits() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"url": "https://h/soap", "protocolBinding": "SOAP", "protocolVersion": "1.0"},
        {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    ]);
    let card = inline(card).unwrap();
    assert_eq!(
        endpoint_of(&card),
        ("https://h/old", Binding::Jsonrpc, ProtocolVersion::V0_3)
    );
}

#[test]
fn unknown_versions_are_unusable() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"url": "https://h/a", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"}
    ]);
    let err = inline(card).unwrap_err();
    let CardError::NoUsableInterface { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        reason,
        "the card declares no interface for a protocol version the tool speaks (1.0 or 0.3) \
         (declared: 2.0 JSONRPC at https://h/a)"
    );
}

#[test]
fn forced_binding_missing_is_named() {
    let err = inline_with(
        base_v1(),
        ProtocolChoice::Auto,
        BindingChoice::Force(Binding::Rest),
    )
    .unwrap_err();
    let CardError::NoUsableInterface { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        reason.starts_with("none of its 1.0 interfaces uses the requested binding HTTP+JSON"),
        "{reason}"
    );
}

#[test]
fn v0_3_preferred_transport_defaults_to_jsonrpc_and_grpc_is_taken_when_preferred() {
    let legacy = json!({
        "name": "L", "description": "d", "version": "1", "capabilities": {},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
        "protocolVersion": "0.3.0",
        "url": "https://h/rpc"
    });
    let card = inline(legacy.clone()).unwrap();
    assert_eq!(card.endpoint.binding_name, "JSONRPC");
    assert_eq!(
        endpoint_of(&card),
        ("https://h/rpc", Binding::Jsonrpc, ProtocolVersion::V0_3)
    );

    let mut grpc = legacy;
    grpc["url"] = json!("h:50051");
    grpc["preferredTransport"] = json!("GRPC");
    grpc["additionalInterfaces"] = json!([
        {"url": "h:50051", "transport": "GRPC"},
        {"url": "https://h/rpc2", "transport": "JSONRPC"}
    ]);
    let card = inline(grpc).unwrap();
    // 0.3 gRPC is spoken: the preferred transport is taken.
    assert_eq!(card.endpoint.binding, Some(Binding::Grpc));
    assert_eq!(card.endpoint.protocol_version, Some(ProtocolVersion::V0_3));
    assert_eq!(card.interfaces.len(), 2);
}

#[test]
fn relative_urls_are_resolved_with_a_warning() {
    let mut card = base_v1();
    card["supportedInterfaces"][0]["url"] = json!("/a2a/rpc");
    let card = inline(card).unwrap();
    assert_eq!(card.endpoint.url, "https://agent.example.com/a2a/rpc");
    assert!(
        has_warning(
            &card,
            "`supportedInterfaces[0].url` is relative (`/a2a/rpc`); resolved against the card URL"
        ),
        "{:?}",
        card.warnings
    );

    let legacy = json!({"name": "L", "protocolVersion": "0.3", "url": "rpc"});
    let card = inline(legacy).unwrap();
    assert_eq!(
        card.endpoint.url,
        "https://agent.example.com/.well-known/rpc"
    );
    assert!(
        has_warning(&card, "`url` is relative"),
        "{:?}",
        card.warnings
    );
}

/// `--protocol 1.1-draft` speaks a 1.0 interface and adds the draft's rows,
/// declared; any other choice has none of them.
#[test]
fn the_draft_speaks_1_0_and_adds_its_rows() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "https://h/new", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
    ]);
    let draft = inline_with(card.clone(), ProtocolChoice::Draft1_1, BindingChoice::Auto).unwrap();
    assert!(draft.draft_1_1);
    assert_eq!(
        endpoint_of(&draft),
        ("https://h/new", Binding::Rest, ProtocolVersion::V1_0)
    );
    let rows = draft.declarations();
    for id in DeclarationId::DRAFT_1_1 {
        assert!(draft.is_declared(&id));
        assert!(rows.iter().any(|d| d.id == id && d.declared), "{id}");
    }
    let plain = inline(card.clone()).unwrap();
    assert!(!plain.draft_1_1);
    assert!(!plain.declarations().iter().any(|d| d.id.is_draft_1_1()));
    assert!(!plain.is_declared(&DeclarationId::Generation));

    card["supportedInterfaces"] = json!([
        {"url": "https://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    ]);
    let err = inline_with(card, ProtocolChoice::Draft1_1, BindingChoice::Auto).unwrap_err();
    let CardError::NoUsableInterface { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        reason
            .starts_with("the card declares no 1.0 interface (the 1.1 draft is checked over 1.0)"),
        "{reason}"
    );
}
