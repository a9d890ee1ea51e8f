//! What is fatal, what is a warning, and the error messages.

use super::*;

#[test]
fn name_is_required() {
    let mut card = base_v1();
    card.as_object_mut().unwrap().remove("name");
    let err = inline(card).unwrap_err();
    assert_eq!(
        err,
        CardError::MissingField {
            url: CARD_URL.to_string(),
            field: "name".to_string(),
            note: ""
        }
    );
    assert_eq!(
        err.to_string(),
        format!("card at {CARD_URL} is missing required field `name`")
    );

    let mut card = base_v1();
    card["name"] = serde_json::Value::Null;
    assert!(matches!(inline(card), Err(CardError::MissingField { .. })));
}

#[test]
fn wrong_types_are_fatal_and_named() {
    let cases: [(&str, serde_json::Value, &str, &str, &str); 9] = [
        ("name", json!(42), "name", "a string", "a number"),
        (
            "capabilities",
            json!(["streaming"]),
            "capabilities",
            "an object",
            "an array",
        ),
        (
            "capabilities",
            json!({"streaming": "yes"}),
            "capabilities.streaming",
            "a boolean",
            "a string",
        ),
        (
            "supportedInterfaces",
            json!({"url": "x"}),
            "supportedInterfaces",
            "an array",
            "an object",
        ),
        (
            "supportedInterfaces",
            json!(["https://h"]),
            "supportedInterfaces[0]",
            "an object",
            "a string",
        ),
        (
            "defaultInputModes",
            json!(["text/plain", 3]),
            "defaultInputModes[1]",
            "a string",
            "a number",
        ),
        (
            "skills",
            json!([{"id": 7, "name": "n"}]),
            "skills[0].id",
            "a string",
            "a number",
        ),
        (
            "skills",
            json!([{"id": "s", "inputModes": "text/plain"}]),
            "skills[0].inputModes",
            "an array",
            "a string",
        ),
        (
            "securitySchemes",
            json!(["bearer"]),
            "securitySchemes",
            "an object",
            "an array",
        ),
    ];
    for (key, value, field, expected, found) in cases {
        let mut card = base_v1();
        card[key] = value;
        let err = inline(card).unwrap_err();
        assert_eq!(
            err,
            CardError::WrongType {
                url: CARD_URL.to_string(),
                field: field.to_string(),
                expected,
                found
            },
            "{key}"
        );
        assert_eq!(
            err.to_string(),
            format!("card at {CARD_URL} has `{field}` of the wrong type: expected {expected}, found {found}")
        );
    }
    let mut card = base_v1();
    card["supportedInterfaces"][0]["protocolVersion"] = json!(1.0);
    let err = inline(card).unwrap_err();
    assert!(
        err.to_string()
            .contains("`supportedInterfaces[0].protocolVersion` of the wrong type"),
        "{err}"
    );
}

#[test]
fn spec_required_fields_missing_are_warnings() {
    let card = inline(json!({
        "name": "Bare",
        "supportedInterfaces": [
            {"url": "https://h/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ]
    }))
    .unwrap();
    for needle in [
        "`description` is missing",
        "`version` is missing",
        "`capabilities` is missing",
        "`defaultInputModes` is missing",
        "`defaultOutputModes` is missing",
        "`skills` is missing",
    ] {
        assert!(has_warning(&card, needle), "{needle}: {:?}", card.warnings);
    }
    assert_eq!(card.warnings.len(), 6, "{:?}", card.warnings);
    assert_eq!(card.version, None);
    assert_eq!(
        ids(&card),
        [
            decl("capabilities.streaming", false),
            decl("capabilities.pushNotifications", false),
            decl("capabilities.extendedAgentCard", false),
            decl("lifecycle.cancel", true),
            decl("lifecycle.completion", true),
            decl("protocol.versionNegotiation", true),
            decl("security.enforced", false),
            decl("protocol.unknownTask", true),
            decl("protocol.terminalSubscribe", false),
            decl("protocol.contextMismatch", true),
            decl("protocol.listTasks", true),
            decl("protocol.historyLength", true),
            decl("protocol.blocking", true),
            decl("inputModes.undeclaredRefused", false),
            decl("interfaces[JSONRPC 1.0]", true),
        ]
    );
}

#[test]
fn empty_skills_and_modes_are_warnings() {
    let mut card = base_v1();
    card["skills"] = json!([]);
    card["defaultInputModes"] = json!([]);
    let card = inline(card).unwrap();
    assert!(
        has_warning(&card, "`skills` is empty"),
        "{:?}",
        card.warnings
    );
    assert!(
        has_warning(&card, "`defaultInputModes` is empty"),
        "{:?}",
        card.warnings
    );
    assert_eq!(card.warnings.len(), 2, "{:?}", card.warnings);
}

#[test]
fn interface_lint() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://h/nobinding", "protocolVersion": "1.0"},
        {"url": "https://h/custom", "protocolBinding": "https://example.com/bindings/mqtt", "protocolVersion": "1.0"},
        {"url": "ftp://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://h/rest", "protocolBinding": "REST", "protocolVersion": "1.0.0"},
        {"url": "https://h/rpc", "protocolBinding": "JSONRPC"}
    ]);
    let card = inline(card).unwrap();
    for needle in [
        "`supportedInterfaces[0].url` is missing (required by the spec); the interface is skipped",
        "`supportedInterfaces[1].protocolBinding` is missing (required by the spec); the interface is unusable",
        "`supportedInterfaces[2].protocolBinding` is `https://example.com/bindings/mqtt`, not a binding the spec defines",
        "`supportedInterfaces[3].url` (`ftp://h/rpc`) is not an http(s) URL; the interface is unusable",
        "`supportedInterfaces[4].protocolBinding` is `REST`, not the spec's spelling; read as HTTP+JSON",
        "`supportedInterfaces[4].protocolVersion` is `1.0.0`; v1.0 versions are Major.Minor",
        "`supportedInterfaces[5].protocolVersion` is missing (required by the spec); assuming 1.0",
    ] {
        assert!(has_warning(&card, needle), "{needle}: {:#?}", card.warnings);
    }
    assert_eq!(card.warnings.len(), 7, "{:#?}", card.warnings);
    // The skipped entry is not listed; the first usable one is the REST entry.
    assert_eq!(card.interfaces.len(), 5);
    assert_eq!(
        endpoint_of(&card),
        ("https://h/rest", Binding::Rest, ProtocolVersion::V1_0)
    );
    assert_eq!(card.interfaces[4].declared_version, "");
    assert_eq!(
        card.interfaces[4].protocol_version,
        Some(ProtocolVersion::V1_0)
    );
}

#[test]
fn only_non_http_urls_is_named() {
    let mut card = base_v1();
    card["supportedInterfaces"][0]["url"] = json!("ws://h/rpc");
    let err = inline(card).unwrap_err();
    let CardError::NoUsableInterface { reason, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(
        reason.starts_with("none of its fitting 1.0 interfaces has an http(s) URL"),
        "{reason}"
    );
}

#[test]
fn empty_supported_interfaces_is_no_usable_interface() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([]);
    let err = inline(card.clone()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "card at {CARD_URL} has no interface the tool can use: the card declares no interfaces"
        )
    );
    // A hybrid card still has its legacy endpoint.
    card["protocolVersion"] = json!("0.3");
    card["url"] = json!("https://h/legacy");
    let card = inline(card).unwrap();
    assert_eq!(
        endpoint_of(&card),
        ("https://h/legacy", Binding::Jsonrpc, ProtocolVersion::V0_3)
    );
    assert!(
        has_warning(&card, "`supportedInterfaces` is empty"),
        "{:?}",
        card.warnings
    );
}

#[test]
fn v0_3_layout_edge_cases() {
    // `url` alone: a v0.3 card, version assumed.
    let card = inline(json!({"name": "L", "url": "https://h/rpc"})).unwrap();
    assert_eq!(card.layout, CardLayout::V0_3);
    assert_eq!(card.protocol_version(), ProtocolVersion::V0_3);
    assert_eq!(card.endpoint.declared_version, "");
    assert!(
        has_warning(&card, "`protocolVersion` is missing next to `url`"),
        "{:?}",
        card.warnings
    );

    // Legacy layout declaring 1.0: read as 1.0, with a warning.
    let card =
        inline(json!({"name": "L", "url": "https://h/rpc", "protocolVersion": "1.0"})).unwrap();
    assert_eq!(card.layout, CardLayout::V0_3);
    assert_eq!(card.protocol_version(), ProtocolVersion::V1_0);
    assert!(has_warning(
        &card,
        "uses the v0.3 layout (`url`) but declares `protocolVersion` 1.0"
    ));

    // Unsupported legacy version.
    let err = inline(json!({"name": "L", "url": "https://h/rpc", "protocolVersion": "0.2.5"}))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("(declared: 0.2.5 JSONRPC at https://h/rpc)"),
        "{err}"
    );
}

#[test]
fn legacy_fields_on_a_pure_v1_card_are_ignored_with_a_warning() {
    let mut card = base_v1();
    card["additionalInterfaces"] = json!([{"url": "https://h/x", "transport": "JSONRPC"}]);
    let card = inline(card).unwrap();
    assert_eq!(card.layout, CardLayout::V1_0);
    assert_eq!(card.interfaces.len(), 1);
    assert!(
        has_warning(&card, "`additionalInterfaces` (a v0.3 field) is ignored"),
        "{:?}",
        card.warnings
    );
}

#[test]
fn skill_lint() {
    let mut card = base_v1();
    card["skills"] = json!([
        {"name": "No id", "description": "d", "tags": [], "inputModes": ["image/png"]},
        {"id": "a", "inputModes": []},
        {"id": "a", "name": "Again", "description": "d", "tags": [], "inputModes": ["audio/wav"]}
    ]);
    let card = inline(card).unwrap();
    for needle in [
        "`skills[0].id` is missing (required by the spec); the skill's modes are not checked",
        "`skills[1].description` is missing",
        "`skills[1].tags` is missing",
        "`skills[1].name` is missing",
        "`skills[2].id` repeats the skill id `a`; only the first is checked",
    ] {
        assert!(has_warning(&card, needle), "{needle}: {:#?}", card.warnings);
    }
    assert_eq!(card.skills.len(), 2);
    assert_eq!(card.skills[0].name, "a");
    // An empty mode list counts as none: the skill takes the defaults.
    assert_eq!(card.skills[0].input_modes, None);
    assert_eq!(
        declares(&card, "skills[a].inputModes[text/plain]"),
        Some(true)
    );
    // Only the first skill with a repeated id counts.
    assert_eq!(
        declares(&card, "skills[a].inputModes[audio/wav]"),
        Some(false)
    );
    assert!(
        !ids(&card).iter().any(|(id, _)| id.contains("audio/wav")),
        "{:?}",
        ids(&card)
    );
}

#[test]
fn repeated_default_modes_are_declared_once() {
    let mut card = base_v1();
    card["defaultInputModes"] = json!(["text/plain", "Text/Plain", "application/json"]);
    let card = inline(card).unwrap();
    let modes: Vec<String> = card
        .input_mode_declarations()
        .into_iter()
        .map(|(_, m)| m)
        .collect();
    assert_eq!(modes, ["text/plain", "application/json"]);
}

#[test]
fn security_scheme_lint() {
    let mut card = base_v1();
    card["securitySchemes"] = json!({"odd": {"scheme": "bearer"}, "ok": {"type": "http"}});
    let card = inline(card).unwrap();
    assert_eq!(card.security_schemes, ["odd", "ok"]);
    assert_eq!(
        card.warnings,
        [
            "`securitySchemes.odd` has neither `type` (v0.3) nor a scheme key such as `httpAuthSecurityScheme` (v1.0)",
            "`securitySchemes` is declared but no requirement (`securityRequirements` in v1.0, `security` in v0.3) says a request needs one; security.enforced reads as not declared",
        ]
    );
    assert!(!card.security_required);
    assert_eq!(declares(&card, "security.enforced"), Some(false));
}

#[test]
fn security_requirements_declare_security_enforced_in_both_versions() {
    let bearer_v1 = json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}});
    let bearer_v03 = json!({"bearer": {"type": "http", "scheme": "bearer"}});
    let v1_requirement = json!([{"schemes": {"bearer": {"list": []}}}]);
    let v03_requirement = json!([{"bearer": []}]);
    let required = |schemes: &serde_json::Value, key: &str, requirement: &serde_json::Value| {
        let mut card = base_v1();
        card["securitySchemes"] = schemes.clone();
        card[key] = requirement.clone();
        let card = inline(card).unwrap();
        (card.security_required, card.warnings)
    };
    // v1.0 shape under the v1.0 key, and under the name some v1.0 texts still use.
    assert_eq!(
        required(&bearer_v1, "securityRequirements", &v1_requirement),
        (true, vec![])
    );
    assert_eq!(
        required(&bearer_v1, "security", &v1_requirement),
        (true, vec![])
    );
    // v0.3 shape.
    assert_eq!(
        required(&bearer_v03, "security", &v03_requirement),
        (true, vec![])
    );
    // An empty alternative lets anonymous callers in: not required.
    let optional = json!([{"bearer": []}, {}]);
    assert_eq!(
        required(&bearer_v03, "security", &optional),
        (false, vec![])
    );
    let optional_v1 = json!([{"schemes": {"bearer": {"list": []}}}, {"schemes": {}}]);
    assert_eq!(
        required(&bearer_v1, "securityRequirements", &optional_v1),
        (false, vec![])
    );
    // An empty list requires nothing, and then the schemes are a lint finding.
    let (declared, warnings) = required(&bearer_v1, "securityRequirements", &json!([]));
    assert!(!declared);
    assert!(warnings[0].contains("no requirement"), "{warnings:?}");
    // A requirement naming an undeclared scheme still requires credentials.
    let (declared, warnings) = required(&bearer_v03, "security", &json!([{"oauth": ["read"]}]));
    assert!(declared);
    assert_eq!(
        warnings,
        ["`security[0]` requires the scheme `oauth`, which `securitySchemes` does not declare"]
    );
    // A wrong type is a warning, never fatal.
    let (declared, warnings) = required(&bearer_v03, "security", &json!("bearer"));
    assert!(!declared);
    assert!(
        warnings[0].starts_with("`security` is a string, not an array"),
        "{warnings:?}"
    );
    // No schemes, no requirements: nothing declared, nothing to say.
    let card = inline(base_v1()).unwrap();
    assert!(!card.security_required && card.warnings.is_empty());
    assert_eq!(declares(&card, "security.enforced"), Some(false));
}

#[test]
fn default_timeouts() {
    use std::time::Duration;
    let cases = [
        (json!(30), Some(Duration::from_secs(30))),
        (json!(2.5), Some(Duration::from_millis(2500))),
        (json!("30"), Some(Duration::from_secs(30))),
        (json!("30s"), Some(Duration::from_secs(30))),
        (json!(" 1500ms "), Some(Duration::from_millis(1500))),
        (json!("2m"), Some(Duration::from_secs(120))),
        (json!("soon"), None),
        (json!(0), None),
        (json!(-5), None),
        (json!(true), None),
    ];
    for (value, want) in cases {
        let mut card = base_v1();
        card["defaultTimeout"] = value.clone();
        let card = inline(card).unwrap();
        assert_eq!(card.default_timeout, want, "{value}");
        assert_eq!(
            card.warnings
                .iter()
                .any(|w| w.starts_with("`defaultTimeout` is")),
            want.is_none(),
            "{value}: {:?}",
            card.warnings
        );
    }
    // Top level wins over capabilities; an unreadable top level falls through.
    let mut card = base_v1();
    card["defaultTimeout"] = json!("bogus");
    card["capabilities"] = json!({"defaultTimeout": 12});
    let card = inline(card).unwrap();
    assert_eq!(card.default_timeout, Some(Duration::from_secs(12)));
}

#[test]
fn nulls_read_as_absent() {
    let mut card = base_v1();
    card["capabilities"] = json!({"streaming": null, "pushNotifications": true});
    card["version"] = serde_json::Value::Null;
    card["securitySchemes"] = serde_json::Value::Null;
    let card = inline(card).unwrap();
    assert_eq!(card.capabilities.streaming, None);
    assert_eq!(declares(&card, "capabilities.streaming"), Some(false));
    assert_eq!(
        declares(&card, "capabilities.pushNotifications"),
        Some(true)
    );
    assert!(has_warning(&card, "`version` is missing"));
}

#[test]
fn too_large_bodies_are_refused_before_parsing() {
    let body = vec![b' '; MAX_CARD_BYTES + 1];
    let err = parse_with(&body, ProtocolChoice::Auto, BindingChoice::Auto).unwrap_err();
    assert_eq!(
        err,
        CardError::TooLarge {
            url: CARD_URL.to_string(),
            size: MAX_CARD_BYTES + 1,
            max: MAX_CARD_BYTES
        }
    );
    assert_eq!(
        err.to_string(),
        format!("card at {CARD_URL} is 1048577 bytes, over the 1048576-byte limit")
    );
    // Exactly at the limit is parsed (and fails as JSON, not as size).
    let body = vec![b' '; MAX_CARD_BYTES];
    assert!(matches!(
        parse_with(&body, ProtocolChoice::Auto, BindingChoice::Auto),
        Err(CardError::NotJson { .. })
    ));
}

#[test]
fn byte_order_mark_is_tolerated() {
    let mut body = b"\xEF\xBB\xBF".to_vec();
    body.extend(base_v1().to_string().as_bytes());
    let card = parse_with(&body, ProtocolChoice::Auto, BindingChoice::Auto).unwrap();
    assert_eq!(card.name, "Base");
    assert!(has_warning(&card, "byte order mark"));
}

#[test]
fn error_messages_are_one_line_and_name_the_card() {
    let bodies: Vec<Vec<u8>> = vec![
        fixture("not_json.txt"),
        fixture("array.json"),
        fixture("missing_interfaces.json"),
        fixture("missing_url_v03.json"),
        b"{\"name\": \"x\",\n \"url\": 5}".to_vec(),
        b"{\n\n  \"name\": ".to_vec(),
    ];
    for body in bodies {
        let err = parse_with(&body, ProtocolChoice::Auto, BindingChoice::Auto).unwrap_err();
        assert_one_line(&err);
        assert!(
            err.to_string().starts_with(&format!("card at {CARD_URL} ")),
            "{err}"
        );
    }
}

#[test]
fn reported_only_strings_of_the_wrong_type_are_warnings() {
    let mut card = base_v1();
    card["version"] = json!(2);
    card["description"] = json!(["d"]);
    card["skills"][0]["name"] = json!(false);
    let card = inline(card).unwrap();
    assert_eq!(card.version, None);
    assert_eq!(card.skills[0].name, "s");
    for needle in [
        "`version` is a number, not a string; ignored",
        "`description` is an array, not a string; ignored",
        "`skills[0].name` is a boolean, not a string; ignored",
    ] {
        assert!(has_warning(&card, needle), "{needle}: {:#?}", card.warnings);
    }
    assert_eq!(card.warnings.len(), 3, "{:#?}", card.warnings);
}

#[test]
fn extensions_are_declarations_and_a_uri_less_one_is_a_warning() {
    let mut card = base_v1();
    card["capabilities"]["extensions"] = serde_json::json!([
        {"uri": "https://example.com/ext/a/v1", "required": true},
        {"uri": "urn:example:b"},
        {"description": "no uri"},
    ]);
    let card = inline(card).unwrap();
    assert_eq!(card.required_extensions(), ["https://example.com/ext/a/v1"]);
    assert_eq!(
        declares(&card, "capabilities.extensions[urn:example:b]"),
        Some(true)
    );
    assert_eq!(
        declares(&card, "capabilities.extensions[urn:example:c]"),
        Some(false)
    );
    assert!(
        card.warnings.iter().any(|w| w.contains("has no `uri`")),
        "{:?}",
        card.warnings
    );
    let ids = ids(&card);
    assert!(ids.contains(&("capabilities.extensions[urn:example:b]".into(), true)));
    assert!(ids.contains(&("capabilities.extendedAgentCard".into(), false)));

    let mut bad = base_v1();
    bad["capabilities"]["extensions"] = serde_json::json!("nope");
    assert!(inline(bad).is_err());
}

#[test]
fn modes_that_are_no_media_types_are_card_warnings_naming_the_value() {
    let mut card = base_v1();
    card["defaultInputModes"] = json!(["text", "application/json"]);
    card["defaultOutputModes"] = json!(["text/plain; charset=utf-8", "*/*"]);
    card["skills"] = json!([{"id": "s", "name": "s", "description": "d", "tags": [],
        "inputModes": ["image/png"], "outputModes": ["json"]}]);
    let card = inline(card).unwrap();
    let modes: Vec<&String> = card
        .warnings
        .iter()
        .filter(|w| w.contains("not a media type"))
        .collect();
    assert_eq!(
        modes,
        [
            "`defaultInputModes` lists `text`, which is not a media type (type/subtype, e.g. text/plain): a caller cannot tell what it means",
            "`skills[0].outputModes` lists `json`, which is not a media type (type/subtype, e.g. text/plain): a caller cannot tell what it means",
        ],
        "{:?}",
        card.warnings
    );
    for bad in ["text", "", "/plain", "text/", "a/b/c", "te xt/plain"] {
        assert!(!super::super::parse::is_media_type(bad), "{bad}");
    }
}
