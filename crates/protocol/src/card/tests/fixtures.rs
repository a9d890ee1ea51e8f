//! One test (or more) per fixture in `fixtures/cards/`.

use super::*;

#[test]
fn every_fixture_is_covered() {
    let dir = format!("{}/../../fixtures/cards", env!("CARGO_MANIFEST_DIR"));
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    found.sort();
    let mut known: Vec<String> = FIXTURES.iter().map(|s| s.to_string()).collect();
    known.sort();
    assert_eq!(
        found, known,
        "a fixture without tests, or a test without its fixture"
    );
}

#[test]
fn v1_0_card() {
    let body = fixture("v1_0.json");
    let card = load("v1_0.json");
    assert_eq!(card.layout, CardLayout::V1_0);
    assert_eq!(card.name, "Echo Agent");
    assert_eq!(card.version.as_deref(), Some("2.1.0"));
    assert_eq!(card.fetched_from, CARD_URL);
    assert_eq!(
        card.raw,
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()
    );
    assert_eq!(card.interfaces.len(), 2);
    assert_eq!(
        endpoint_of(&card),
        (
            "https://agent.example.com/a2a/jsonrpc",
            Binding::Jsonrpc,
            ProtocolVersion::V1_0
        )
    );
    assert_eq!(card.endpoint, card.interfaces[0]);
    assert_eq!(card.endpoint.binding_name, "JSONRPC");
    assert_eq!(card.endpoint.declared_version, "1.0");
    assert_eq!(card.endpoint.tenant, None);
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.capabilities.push_notifications, Some(false));
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    assert_eq!(card.capabilities.state_transition_history, None);
    assert_eq!(card.security_schemes, ["bearer"]);
    assert_eq!(card.default_input_modes, ["text/plain"]);
    assert_eq!(card.skills.len(), 1);
    assert_eq!(card.skills[0].id, "echo");
    assert_eq!(card.skills[0].input_modes, None);
    assert_eq!(card.default_timeout, None);
    assert!(card.warnings.is_empty(), "{:?}", card.warnings);
    assert_eq!(
        ids(&card),
        [
            decl("capabilities.streaming", true),
            decl("capabilities.pushNotifications", false),
            decl("capabilities.extendedAgentCard", true),
            decl("lifecycle.cancel", true),
            decl("lifecycle.completion", true),
            decl("protocol.versionNegotiation", true),
            decl("security.enforced", true),
            decl("protocol.unknownTask", true),
            decl("protocol.terminalSubscribe", true),
            decl("protocol.contextMismatch", true),
            decl("protocol.listTasks", true),
            decl("protocol.historyLength", true),
            decl("protocol.blocking", true),
            decl("inputModes.undeclaredRefused", true),
            decl("interfaces[JSONRPC 1.0]", true),
            decl("interfaces[HTTP+JSON 1.0]", true),
            decl("interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]", true),
            decl("defaultInputModes[text/plain]", true),
            decl("defaultOutputModes[text/plain]", true),
        ]
    );
    assert_eq!(declares(&card, "capabilities.streaming"), Some(true));
    assert_eq!(
        declares(&card, "capabilities.pushNotifications"),
        Some(false)
    );
    assert_eq!(
        declares(&card, "capabilities.extendedAgentCard"),
        Some(true)
    );
    assert_eq!(
        declares(&card, "capabilities.stateTransitionHistory"),
        Some(false)
    );
    assert_eq!(declares(&card, "defaultInputModes[text/plain]"), Some(true));
    assert_eq!(
        declares(&card, "defaultInputModes[application/json]"),
        Some(false)
    );
    assert_eq!(declares(&card, "securitySchemes[bearer]"), Some(true));
    assert_eq!(declares(&card, "skills[echo]"), Some(true));
    assert_eq!(
        declares(&card, "skills[echo].inputModes[text/plain]"),
        Some(true)
    );
}

#[test]
fn digest_is_sha256_of_the_raw_body() {
    use sha2::{Digest, Sha256};
    let body = fixture("v1_0.json");
    let card = load("v1_0.json");
    let want: String = Sha256::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(card.digest, format!("sha256:{want}"));
    assert_eq!(card.digest.len(), "sha256:".len() + 64);
    // Same JSON, different bytes: a different digest.
    let compact = serde_json::to_vec(&card.raw).unwrap();
    let other = parse_with(&compact, ProtocolChoice::Auto, BindingChoice::Auto).unwrap();
    assert_ne!(other.digest, card.digest);
}

#[test]
fn v1_0_card_with_forced_choices() {
    let body = fixture("v1_0.json");
    let rest = parse_with(
        &body,
        ProtocolChoice::Auto,
        BindingChoice::Force(Binding::Rest),
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&rest),
        (
            "https://agent.example.com/a2a/rest",
            Binding::Rest,
            ProtocolVersion::V1_0
        )
    );
    let forced = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V1_0),
        BindingChoice::Force(Binding::Jsonrpc),
    )
    .unwrap();
    assert_eq!(forced.binding(), Binding::Jsonrpc);

    let err = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
        BindingChoice::Auto,
    )
    .unwrap_err();
    let CardError::NoUsableInterface { url, reason } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(url, CARD_URL);
    assert!(
        reason.starts_with("the card declares no 0.3 interface"),
        "{reason}"
    );
    assert_eq!(
        err.to_string(),
        "card at https://agent.example.com/.well-known/agent-card.json has no interface the tool \
         can use: the card declares no 0.3 interface (declared: 1.0 JSONRPC at \
         https://agent.example.com/a2a/jsonrpc, 1.0 HTTP+JSON at https://agent.example.com/a2a/rest)"
    );
}

#[test]
fn v0_3_card() {
    let card = load("v0_3.json");
    assert_eq!(card.layout, CardLayout::V0_3);
    assert_eq!(
        endpoint_of(&card),
        (
            "https://agent.example.com/a2a",
            Binding::Jsonrpc,
            ProtocolVersion::V0_3
        )
    );
    assert_eq!(card.endpoint.declared_version, "0.3.0");
    // url + preferredTransport first; the repeat of it in additionalInterfaces is dropped.
    let listed: Vec<(&str, &str, Option<Binding>)> = card
        .interfaces
        .iter()
        .map(|i| (i.url.as_str(), i.binding_name.as_str(), i.binding))
        .collect();
    assert_eq!(
        listed,
        [
            (
                "https://agent.example.com/a2a",
                "JSONRPC",
                Some(Binding::Jsonrpc)
            ),
            (
                "https://agent.example.com/a2a/rest",
                "HTTP+JSON",
                Some(Binding::Rest)
            ),
            // 0.3 gRPC is read and spoken (`a2a.v1.A2AService`).
            (
                "http://agent.example.com:50051",
                "GRPC",
                Some(Binding::Grpc)
            ),
        ]
    );
    assert!(card
        .interfaces
        .iter()
        .all(|i| i.protocol_version == Some(ProtocolVersion::V0_3)));
    assert_eq!(card.capabilities.streaming, Some(true));
    assert_eq!(card.capabilities.push_notifications, Some(true));
    assert_eq!(card.capabilities.state_transition_history, Some(false));
    // v0.3 keeps the extended card flag at the top level.
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    assert_eq!(
        declares(&card, "capabilities.extendedAgentCard"),
        Some(true)
    );
    assert_eq!(card.security_schemes, ["apiKey"]);
    assert!(card.warnings.is_empty(), "{:?}", card.warnings);
    assert_eq!(
        ids(&card),
        [
            decl("capabilities.streaming", true),
            decl("capabilities.pushNotifications", true),
            decl("capabilities.extendedAgentCard", true),
            decl("lifecycle.cancel", true),
            decl("lifecycle.completion", true),
            decl("protocol.versionNegotiation", false),
            decl("security.enforced", true),
            decl("protocol.unknownTask", true),
            decl("protocol.terminalSubscribe", false),
            decl("protocol.contextMismatch", false),
            decl("protocol.listTasks", false),
            decl("protocol.historyLength", true),
            decl("protocol.blocking", true),
            decl("inputModes.undeclaredRefused", true),
            decl("interfaces[JSONRPC 0.3]", true),
            decl("interfaces[HTTP+JSON 0.3]", true),
            // Declared but not spoken by this version: listed, to read unverified.
            decl("interfaces[GRPC 0.3]", true),
            decl("interfaces[HTTP+JSON 0.3] ≡ interfaces[JSONRPC 0.3]", true),
            decl("interfaces[GRPC 0.3] ≡ interfaces[JSONRPC 0.3]", true),
            decl("defaultInputModes[text/plain]", true),
            decl("defaultInputModes[application/json]", true),
            decl("defaultOutputModes[text/plain]", true),
        ]
    );
}

#[test]
fn v0_3_card_cannot_be_forced_to_1_0_or_grpc() {
    let body = fixture("v0_3.json");
    let err = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V1_0),
        BindingChoice::Auto,
    )
    .unwrap_err();
    assert!(
        matches!(err, CardError::NoUsableInterface { .. }),
        "{err:?}"
    );
    let msg = err.to_string();
    assert!(
        msg.starts_with(&format!("card at {CARD_URL} has no interface")),
        "{msg}"
    );
    assert!(msg.contains("the card declares no 1.0 interface"), "{msg}");
    assert!(
        msg.contains("0.3.0 JSONRPC at https://agent.example.com/a2a"),
        "{msg}"
    );

    // 0.3 HTTP+JSON is spoken: forcing REST takes the declared REST interface.
    for protocol in [
        ProtocolChoice::Auto,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
    ] {
        let card = parse_with(&body, protocol, BindingChoice::Force(Binding::Rest)).unwrap();
        assert_eq!(
            endpoint_of(&card),
            (
                "https://agent.example.com/a2a/rest",
                Binding::Rest,
                ProtocolVersion::V0_3
            )
        );
    }
    // 0.3 gRPC too.
    let card = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
        BindingChoice::Force(Binding::Grpc),
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&card),
        (
            "http://agent.example.com:50051",
            Binding::Grpc,
            ProtocolVersion::V0_3
        )
    );
}

#[test]
fn hybrid_card_prefers_supported_interfaces() {
    let card = load("hybrid.json");
    assert_eq!(card.layout, CardLayout::Hybrid);
    assert_eq!(
        endpoint_of(&card),
        (
            "https://agent.example.com/a2a/jsonrpc",
            Binding::Jsonrpc,
            ProtocolVersion::V1_0
        )
    );
    // Two 1.0 entries, then the legacy url (0.3 JSONRPC) and the 0.3 REST entry;
    // the repeat of `url` in additionalInterfaces is dropped.
    let listed: Vec<(&str, Option<ProtocolVersion>)> = card
        .interfaces
        .iter()
        .map(|i| (i.binding_name.as_str(), i.protocol_version))
        .collect();
    assert_eq!(
        listed,
        [
            ("JSONRPC", Some(ProtocolVersion::V1_0)),
            ("HTTP+JSON", Some(ProtocolVersion::V1_0)),
            ("JSONRPC", Some(ProtocolVersion::V0_3)),
            ("HTTP+JSON", Some(ProtocolVersion::V0_3)),
        ]
    );
    // Schemes carrying both `type` and the wrapper key, as the python SDK writes them.
    assert_eq!(card.security_schemes, ["bearer", "apiKey"]);
    assert_eq!(card.capabilities.extended_agent_card, Some(false));
    assert!(card.warnings.is_empty(), "{:?}", card.warnings);
    assert_eq!(
        ids(&card),
        [
            decl("capabilities.streaming", true),
            decl("capabilities.pushNotifications", true),
            decl("capabilities.extendedAgentCard", false),
            decl("lifecycle.cancel", true),
            decl("lifecycle.completion", true),
            decl("protocol.versionNegotiation", true),
            decl("security.enforced", true),
            decl("protocol.unknownTask", true),
            decl("protocol.terminalSubscribe", true),
            decl("protocol.contextMismatch", true),
            decl("protocol.listTasks", true),
            decl("protocol.historyLength", true),
            decl("protocol.blocking", true),
            decl("inputModes.undeclaredRefused", true),
            decl("interfaces[JSONRPC 1.0]", true),
            decl("interfaces[HTTP+JSON 1.0]", true),
            decl("interfaces[JSONRPC 0.3]", true),
            decl("interfaces[HTTP+JSON 0.3]", true),
            decl("interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]", true),
            decl("interfaces[JSONRPC 0.3] ≡ interfaces[JSONRPC 1.0]", true),
            decl("interfaces[HTTP+JSON 0.3] ≡ interfaces[JSONRPC 1.0]", true),
            decl("defaultInputModes[text/plain]", true),
            decl("defaultOutputModes[text/plain]", true),
            decl("defaultOutputModes[application/json]", true),
        ]
    );
    assert_eq!(
        declares(&card, "defaultOutputModes[application/json]"),
        Some(true)
    );
}

#[test]
fn hybrid_card_forced_choices() {
    let body = fixture("hybrid.json");
    let legacy = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
        BindingChoice::Auto,
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&legacy),
        (
            "https://agent.example.com/a2a/jsonrpc",
            Binding::Jsonrpc,
            ProtocolVersion::V0_3
        )
    );
    assert_eq!(legacy.endpoint.declared_version, "0.3");
    assert_eq!(legacy.layout, CardLayout::Hybrid);

    let rest = parse_with(
        &body,
        ProtocolChoice::Auto,
        BindingChoice::Force(Binding::Rest),
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&rest),
        (
            "https://agent.example.com/a2a/rest",
            Binding::Rest,
            ProtocolVersion::V1_0
        )
    );

    let rest_0_3 = parse_with(
        &body,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
        BindingChoice::Force(Binding::Rest),
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&rest_0_3),
        (
            "https://agent.example.com/a2a/rest",
            Binding::Rest,
            ProtocolVersion::V0_3
        )
    );
}

#[test]
fn hybrid_forced_to_0_3_takes_a_0_3_supported_interface_first() {
    let mut card = base_v1();
    card["supportedInterfaces"] = json!([
        {"url": "https://h/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        {"url": "https://h/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
    ]);
    card["protocolVersion"] = json!("0.3");
    card["url"] = json!("https://h/legacy");
    let card = inline_with(
        card,
        ProtocolChoice::Force(ProtocolVersion::V0_3),
        BindingChoice::Auto,
    )
    .unwrap();
    assert_eq!(card.layout, CardLayout::Hybrid);
    assert_eq!(
        endpoint_of(&card),
        ("https://h/v03", Binding::Jsonrpc, ProtocolVersion::V0_3)
    );
}

#[test]
fn hybrid_with_only_protocol_version_is_hybrid() {
    let mut card = base_v1();
    card["protocolVersion"] = json!("0.3.0");
    let card = inline(card).unwrap();
    assert_eq!(card.layout, CardLayout::Hybrid);
    assert_eq!(card.protocol_version(), ProtocolVersion::V1_0);
    assert_eq!(card.interfaces.len(), 1);
}

#[test]
fn rest_first_card_keeps_preference_order_and_tenant() {
    let body = fixture("v1_0_rest_first.json");
    let card = load("v1_0_rest_first.json");
    assert_eq!(card.layout, CardLayout::V1_0);
    assert_eq!(
        endpoint_of(&card),
        (
            "https://agent.example.com/api",
            Binding::Rest,
            ProtocolVersion::V1_0
        )
    );
    assert_eq!(card.endpoint.tenant.as_deref(), Some("acme"));
    let rpc = parse_with(
        &body,
        ProtocolChoice::Auto,
        BindingChoice::Force(Binding::Jsonrpc),
    )
    .unwrap();
    assert_eq!(
        endpoint_of(&rpc),
        (
            "https://agent.example.com/rpc",
            Binding::Jsonrpc,
            ProtocolVersion::V1_0
        )
    );
    assert_eq!(declares(&card, "capabilities.streaming"), Some(false));
    assert_eq!(
        declares(&card, "capabilities.pushNotifications"),
        Some(false)
    );
    assert_eq!(card.capabilities.push_notifications, None);
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
            decl("inputModes.undeclaredRefused", true),
            decl("interfaces[HTTP+JSON 1.0]", true),
            decl("interfaces[JSONRPC 1.0]", true),
            decl("interfaces[JSONRPC 1.0] ≡ interfaces[HTTP+JSON 1.0]", true),
            decl("defaultInputModes[text/plain]", true),
            decl("defaultOutputModes[text/plain]", true),
        ]
    );
}

#[test]
fn grpc_only_card_is_spoken_over_grpc_and_its_scheme_less_url_accepted() {
    for binding in [BindingChoice::Auto, BindingChoice::Force(Binding::Grpc)] {
        let card = parse_with(&fixture("grpc_only.json"), ProtocolChoice::Auto, binding).unwrap();
        assert_eq!(
            endpoint_of(&card),
            (
                "https://grpc.agent.example.com:443",
                Binding::Grpc,
                ProtocolVersion::V1_0
            )
        );
        assert!(card.warnings.is_empty(), "{:?}", card.warnings);
        // Reports show the target as the card spells it.
        assert_eq!(card.endpoint.declared_url, "grpc.agent.example.com:443");
        assert_eq!(card.endpoint.shown_target(), "grpc.agent.example.com:443");
    }
    let err = parse_with(
        &fixture("grpc_only.json"),
        ProtocolChoice::Auto,
        BindingChoice::Force(Binding::Jsonrpc),
    )
    .unwrap_err();
    let CardError::NoUsableInterface { url, reason } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(url, CARD_URL);
    assert_eq!(
        reason,
        "none of its 1.0 interfaces uses the requested binding JSONRPC \
         (declared: 1.0 GRPC at https://grpc.agent.example.com:443)"
    );
    assert_one_line(&err);
}

#[test]
fn missing_interfaces_is_fatal() {
    let err = load_err("missing_interfaces.json");
    let CardError::MissingField { url, field, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(url, CARD_URL);
    assert_eq!(field, "supportedInterfaces");
    assert_eq!(
        err.to_string(),
        "card at https://agent.example.com/.well-known/agent-card.json is missing required \
         field `supportedInterfaces` (v1.0) or `url` (v0.3)"
    );
}

#[test]
fn missing_url_on_a_0_3_card_is_fatal() {
    let err = load_err("missing_url_v03.json");
    let CardError::MissingField { field, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(field, "url");
    assert_eq!(
        err.to_string(),
        format!("card at {CARD_URL} is missing required field `url` (v0.3)")
    );
}

#[test]
fn not_json_is_fatal() {
    let err = load_err("not_json.txt");
    assert!(matches!(err, CardError::NotJson { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("card at {CARD_URL} is not valid JSON: expected value at line 1 column 1")
    );
    let empty = parse_with(b"", ProtocolChoice::Auto, BindingChoice::Auto).unwrap_err();
    assert!(matches!(empty, CardError::NotJson { .. }), "{empty:?}");
}

#[test]
fn array_is_fatal() {
    let err = load_err("array.json");
    assert_eq!(
        err,
        CardError::NotAnObject {
            url: CARD_URL.to_string(),
            found: "an array"
        }
    );
    assert_eq!(
        err.to_string(),
        format!("card at {CARD_URL} is not a JSON object (found an array)")
    );
    let string = parse_with(b"\"card\"", ProtocolChoice::Auto, BindingChoice::Auto).unwrap_err();
    assert!(string.to_string().ends_with("(found a string)"), "{string}");
}

#[test]
fn skills_modes_and_timeout() {
    let card = load("with_skills_modes.json");
    assert!(card.warnings.is_empty(), "{:?}", card.warnings);
    assert_eq!(
        card.default_timeout,
        Some(std::time::Duration::from_secs(45))
    );
    assert_eq!(
        card.input_mode_declarations()
            .into_iter()
            .map(|(id, mode)| (id.to_string(), mode))
            .collect::<Vec<_>>(),
        [
            ("defaultInputModes[text/plain]", "text/plain"),
            ("defaultInputModes[application/json]", "application/json"),
            ("skills[echo].inputModes[text/plain]", "text/plain"),
            ("skills[echo].inputModes[image/png]", "image/png"),
            ("skills[transcribe].inputModes[audio/wav]", "audio/wav"),
            ("skills[transcribe].inputModes[audio/mpeg]", "audio/mpeg"),
        ]
        .map(|(id, mode)| (id.to_string(), mode.to_string()))
    );
    let echo = &card.skills[0];
    assert_eq!(echo.name, "Echo");
    assert_eq!(
        echo.output_modes.as_deref(),
        Some(&["text/plain".to_string()][..])
    );
    assert_eq!(card.skills[1].input_modes, None);
}

#[test]
fn skills_and_modes_are_declarations_in_report_order() {
    let card = load("with_skills_modes.json");
    assert_eq!(
        ids(&card),
        [
            decl("capabilities.streaming", true),
            decl("capabilities.pushNotifications", true),
            decl("capabilities.extendedAgentCard", false),
            decl("lifecycle.cancel", true),
            decl("lifecycle.completion", true),
            decl("protocol.versionNegotiation", true),
            decl("security.enforced", false),
            decl("protocol.unknownTask", true),
            decl("protocol.terminalSubscribe", true),
            decl("protocol.contextMismatch", true),
            decl("protocol.listTasks", true),
            decl("protocol.historyLength", true),
            decl("protocol.blocking", true),
            decl("inputModes.undeclaredRefused", true),
            decl("interfaces[JSONRPC 1.0]", true),
            decl("defaultInputModes[text/plain]", true),
            decl("defaultInputModes[application/json]", true),
            decl("skills[echo].inputModes[text/plain]", true),
            decl("skills[echo].inputModes[image/png]", true),
            decl("skills[transcribe].inputModes[audio/wav]", true),
            decl("skills[transcribe].inputModes[audio/mpeg]", true),
            decl("defaultOutputModes[text/plain]", true),
            decl("defaultOutputModes[application/json]", true),
            decl("skills[echo].outputModes[text/plain]", true),
            decl("skills[transcribe].outputModes[text/plain]", true),
        ]
    );
}

#[test]
fn skill_modes_answer_gates_with_the_defaults_as_fallback() {
    let card = load("with_skills_modes.json");
    let answers = [
        ("defaultInputModes[text/plain]", Some(true)),
        ("defaultInputModes[TEXT/PLAIN]", Some(true)),
        ("defaultInputModes[image/png]", Some(false)),
        ("skills[echo].inputModes[image/png]", Some(true)),
        // A skill's own modes replace the defaults.
        ("skills[echo].inputModes[application/json]", Some(false)),
        // A skill without its own modes takes the defaults.
        ("skills[summarize].inputModes[application/json]", Some(true)),
        ("skills[summarize].inputModes[audio/wav]", Some(false)),
        ("skills[transcribe].outputModes[text/plain]", Some(true)),
        (
            "skills[transcribe].outputModes[application/json]",
            Some(false),
        ),
        (
            "skills[summarize].outputModes[application/json]",
            Some(true),
        ),
        ("skills[summarize]", Some(true)),
        // An undeclared skill declares nothing.
        ("skills[translate]", Some(false)),
        ("skills[translate].inputModes[text/plain]", Some(false)),
        ("lifecycle.cancel", Some(true)),
        ("lifecycle.completion", Some(true)),
        ("capabilities.extendedAgentCard", Some(false)),
        // Unknown paths.
        ("capabilities.teleport", None),
        ("skills[echo].inputMode[text/plain]", None),
        ("skills[echo].inputModes[]", None),
        ("skills[].inputModes[text/plain]", None),
        ("skills[]", None),
        ("defaultInputModes", None),
        ("defaultInputModes[]", None),
        ("", None),
    ];
    for (path, want) in answers {
        assert_eq!(declares(&card, path), want, "{path}");
    }
}

#[test]
fn layouts_read_as_people_and_reports_name_them() {
    assert_eq!(CardLayout::V1_0.to_string(), "v1.0");
    assert_eq!(CardLayout::V0_3.to_string(), "v0.3");
    assert_eq!(
        CardLayout::Hybrid.to_string(),
        "hybrid (v1.0 with v0.3 fields)"
    );
}

#[test]
fn card_serializes_for_reports() {
    let card = load("with_skills_modes.json");
    let value = serde_json::to_value(&card).unwrap();
    assert_eq!(value["layout"], json!("1.0"));
    assert_eq!(value["default_timeout"], json!(45.0));
    assert_eq!(value["endpoint"]["binding"], json!("jsonrpc"));
    assert_eq!(value["endpoint"]["protocol_version"], json!("1.0"));
    assert_eq!(
        serde_json::to_value(load("hybrid.json").layout).unwrap(),
        json!("hybrid")
    );
}
