//! Credentials from the card's security schemes, end to end against the
//! secured mock behaviours: an API key in a header, OAuth 2.0 client
//! credentials from the mock's own token endpoint, a skill whose own
//! requirement needs another scope, and schemes the tool cannot satisfy
//! (unverified, naming the flag). No secret — API key, client secret,
//! access token — may reach any output.

use crate::common::*;
use a2a_conform_mock::auth::CLIENT_ID;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
const SECRET: &str = "k3y-and-s3cret-for-auth-schemes-91c2";
/// Every token the mock issues starts with this.
const TOKEN_PREFIX: &str = "mock-at-";

const OAUTH_FLAGS: [&str; 4] = [
    "--oauth-client-id-env",
    "PEER_CLIENT_ID",
    "--oauth-client-secret-env",
    "PEER_CLIENT_SECRET",
];

/// Every output of a check: stdout, stderr, JSON, JUnit, Markdown.
fn outputs(out: &Outcome) -> Vec<(&'static str, String)> {
    vec![
        ("stdout", out.stdout.clone()),
        ("stderr", out.stderr.clone()),
        ("json", out.json_text.clone().expect("JSON written")),
        ("junit", out.junit.clone().expect("JUnit written")),
        ("markdown", out.markdown.clone().expect("Markdown written")),
    ]
}

fn assert_no_secret(cell: &str, out: &Outcome, secrets: &[&str]) {
    for (format, text) in outputs(out) {
        for secret in secrets {
            assert!(
                !text.contains(secret),
                "{cell}: `{secret}` is in the {format} output"
            );
        }
    }
}

/// Every evidence note of every run of the first peer.
fn notes(out: &Outcome) -> Vec<String> {
    out.report()["peers"][0]["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|run| run["evidence"].as_array().cloned().unwrap_or_default())
        .filter(|e| e["kind"] == "note")
        .filter_map(|e| e["summary"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn an_api_key_in_a_header_is_sent_where_the_card_says_and_never_shown() {
    for version in VERSIONS {
        let peer = start_peer_with_token(version, Behaviour::SecuredApiKey, Some(SECRET));
        let out = check_every_format(
            &peer.card_url(),
            &["--api-key-env", "PEER_KEY", "-v"],
            &[("PEER_KEY", SECRET)],
        );
        let cell = format!("secured-api-key × {version}");
        assert_eq!(out.code, 0, "{cell}: {}", out.explain());
        for id in [
            "security.enforced",
            "lifecycle.completion",
            "capabilities.streaming",
            "skills[echo].inputModes[application/json]",
        ] {
            assert_eq!(
                out.declaration(id),
                "honoured",
                "{cell} {id}: {}",
                out.explain()
            );
        }
        assert_no_secret(&cell, &out, &[SECRET]);
        // The reproduction lines name the key's variable, as for --bearer-env.
        let json = out.json_text.as_deref().unwrap();
        assert!(json.contains("-H \\\"x-api-key: $PEER_KEY\\\""), "{cell}");
    }
}

#[test]
fn the_api_key_flag_also_reads_from_its_environment_variable() {
    let peer = start_peer_with_token(
        ProtocolVersion::V1_0,
        Behaviour::SecuredApiKey,
        Some(SECRET),
    );
    let out = check_env(
        &peer.card_url(),
        &["--scenario", "completion-stability"],
        &[
            ("A2A_CONFORM_API_KEY_ENV", "PEER_KEY"),
            ("PEER_KEY", SECRET),
        ],
    );
    assert_eq!(
        out.scenario("completion-stability"),
        "pass",
        "{}",
        out.explain()
    );
}

#[test]
fn oauth_client_credentials_get_a_token_from_the_cards_token_url_and_no_secret_shows() {
    for version in VERSIONS {
        let peer = start_peer_with_token(version, Behaviour::SecuredOauth, Some(SECRET));
        let out = check_every_format(
            &peer.card_url(),
            &[OAUTH_FLAGS.as_slice(), &["-v"]].concat(),
            &[
                ("PEER_CLIENT_ID", CLIENT_ID),
                ("PEER_CLIENT_SECRET", SECRET),
            ],
        );
        let cell = format!("secured-oauth × {version}");
        assert_eq!(out.code, 0, "{cell}: {}", out.explain());
        for id in [
            "security.enforced",
            "lifecycle.cancel",
            "defaultInputModes[application/json]",
        ] {
            assert_eq!(
                out.declaration(id),
                "honoured",
                "{cell} {id}: {}",
                out.explain()
            );
        }
        assert_no_secret(&cell, &out, &[SECRET, TOKEN_PREFIX]);
        // The token request is in the evidence, redacted: one POST, then
        // the cached token reused by the other runs.
        let notes = notes(&out);
        let token_url = format!("POST {}/oauth/token", peer.base_url());
        let posts: Vec<&String> = notes.iter().filter(|n| n.starts_with(&token_url)).collect();
        assert!(!posts.is_empty(), "{cell}: {notes:#?}");
        assert!(
            posts[0].contains("grant_type=client_credentials")
                && posts[0].contains("scope=\"a2a:invoke\"")
                && posts[0].contains("HTTP 200")
                && posts[0].contains("access_token «redacted»")
                && posts[0].contains("$PEER_CLIENT_SECRET"),
            "{cell}: {}",
            posts[0]
        );
        assert!(
            notes.iter().any(|n| n.contains("reused from")),
            "{cell}: the cached token is reused: {notes:#?}"
        );
    }
}

#[test]
fn a_skill_that_needs_another_scope_gets_a_token_with_it() {
    for version in VERSIONS {
        let peer = start_peer_with_token(version, Behaviour::SecuredSkillScopes, Some(SECRET));
        let out = check_every_format(
            &peer.card_url(),
            &[OAUTH_FLAGS.as_slice(), &["-v"]].concat(),
            &[
                ("PEER_CLIENT_ID", CLIENT_ID),
                ("PEER_CLIENT_SECRET", SECRET),
            ],
        );
        let cell = format!("secured-skill-scopes × {version}");
        // JSON input is the skill's alone, and needs the skill's scope.
        assert_eq!(
            out.declaration("skills[echo].inputModes[application/json]"),
            "honoured",
            "{cell}: {}",
            out.explain()
        );
        assert_eq!(out.declaration("defaultInputModes[text/plain]"), "honoured");
        let run = out.run("input-mode-resume[echo:application/json]");
        let evidence = serde_json::to_string(&run["evidence"]).unwrap();
        assert!(
            evidence.contains("scope \\\"a2a:invoke echo:data\\\"")
                || evidence.contains("scope=\\\"a2a:invoke echo:data\\\""),
            "{cell}: {evidence}"
        );
        let card_level = out.run("completion-stability");
        let evidence = serde_json::to_string(&card_level["evidence"]).unwrap();
        assert!(
            !evidence.contains("echo:data"),
            "{cell}: a card-level run asks only the card's scopes: {evidence}"
        );
        assert_no_secret(&cell, &out, &[SECRET, TOKEN_PREFIX]);
        assert_eq!(out.code, 0, "{cell}: {}", out.explain());
    }
}

#[test]
fn the_skill_scope_is_really_needed_a_card_level_token_is_refused_on_json_input() {
    // Without per-skill tokens the skill's JSON row could not be verified:
    // `--bearer-env` with a token of the card's scope only (fetched here as a
    // user would) leaves it unverified, while the card-level rows pass.
    let peer = start_peer_with_token(
        ProtocolVersion::V1_0,
        Behaviour::SecuredSkillScopes,
        Some(SECRET),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let token: Value = runtime.block_on(async {
        reqwest::Client::new()
            .post(format!("{}/oauth/token", peer.base_url()))
            .basic_auth(CLIENT_ID, Some(SECRET))
            .form(&[
                ("grant_type", "client_credentials"),
                ("scope", "a2a:invoke"),
            ])
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let token = token["access_token"].as_str().unwrap().to_string();
    let out = check_env(
        &peer.card_url(),
        &["--bearer-env", "PEER_TOKEN"],
        &[("PEER_TOKEN", &token)],
    );
    assert_eq!(
        out.declaration("defaultInputModes[text/plain]"),
        "honoured",
        "{}",
        out.explain()
    );
    assert_eq!(
        out.declaration("skills[echo].inputModes[application/json]"),
        "unverified",
        "{}",
        out.explain()
    );
    let message = out.run("input-mode-resume[echo:application/json]")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("HTTP 403"), "{message}");
}

#[test]
fn a_scheme_the_tool_cannot_satisfy_reads_unverified_naming_the_scheme_and_the_flag() {
    for (behaviour, flag) in [
        (Behaviour::SecuredOauth, "--oauth-client-id-env"),
        (Behaviour::SecuredApiKey, "--api-key-env"),
    ] {
        let peer = start_peer_with_token(ProtocolVersion::V1_0, behaviour, Some(SECRET));
        let out = check(&peer.card_url(), &[]);
        let cell = behaviour.name();
        assert_eq!(
            out.declaration("lifecycle.completion"),
            "unverified",
            "{cell}: {}",
            out.explain()
        );
        assert_eq!(out.declaration("security.enforced"), "honoured", "{cell}");
        let message = out.run("completion-stability")["message"]
            .as_str()
            .unwrap()
            .to_string();
        let scheme = if behaviour == Behaviour::SecuredOauth {
            "`oauth`"
        } else {
            "`apikey`"
        };
        assert!(
            message.contains("no credentials were given")
                && message.contains(&format!("the card's scheme {scheme}"))
                && message.contains(flag),
            "{cell}: {message}"
        );
        let warnings = out.report()["peers"][0]["card_warnings"].to_string();
        assert!(warnings.contains(flag), "{cell}: {warnings}");
        assert_eq!(
            out.code,
            0,
            "{cell}: security.enforced was verified: {}",
            out.explain()
        );
    }
}

#[test]
fn a_refused_client_secret_is_a_card_warning_and_the_rows_read_unverified() {
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredOauth, Some(SECRET));
    let wrong = "not-the-client-secret-5e1d";
    let out = check_every_format(
        &peer.card_url(),
        &OAUTH_FLAGS,
        &[("PEER_CLIENT_ID", CLIENT_ID), ("PEER_CLIENT_SECRET", wrong)],
    );
    let warnings = out.report()["peers"][0]["card_warnings"].to_string();
    assert!(
        warnings.contains("refused the client credentials: HTTP 401 (invalid_client"),
        "{warnings}"
    );
    assert_eq!(
        out.declaration("lifecycle.completion"),
        "unverified",
        "{}",
        out.explain()
    );
    let message = out.run("completion-stability")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("no token was obtained for the card's scheme `oauth`"),
        "{message}"
    );
    assert_no_secret("wrong secret", &out, &[wrong, SECRET]);
}

#[test]
fn the_demo_checks_its_own_api_key_and_oauth_mocks_with_their_credentials() {
    for behaviour in ["secured-api-key", "secured-skill-scopes"] {
        let out = run(&["demo", "--behaviour", behaviour]);
        assert_eq!(out.code, 0, "{behaviour}: {}", out.explain());
        assert_eq!(out.declaration("security.enforced"), "honoured");
        assert_eq!(
            out.declaration("skills[echo].inputModes[application/json]"),
            "honoured",
            "{behaviour}: {}",
            out.explain()
        );
        assert!(!out.stdout.contains(TOKEN_PREFIX) && !out.stderr.contains(TOKEN_PREFIX));
    }
}

#[test]
fn open_id_connect_discovery_leads_to_the_token_endpoint_and_its_token_is_accepted() {
    // The mock's own token endpoint stands for the identity provider; a card
    // server of the test's declares `openIdConnect` with a discovery document
    // that names it, and the mock's A2A endpoint as its interface.
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredOauth, Some(SECRET));
    let mock_base = peer.base_url();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mock_card: Value = runtime.block_on(async {
        reqwest::get(peer.card_url())
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    let served = serve_at(|base| {
        let mut card = mock_card.clone();
        card["securitySchemes"] = serde_json::json!({
            "oidc": {"openIdConnectSecurityScheme": {
                "openIdConnectUrl": format!("{base}/.well-known/openid-configuration")
            }}
        });
        card["securityRequirements"] =
            serde_json::json!([{"schemes": {"oidc": {"list": ["a2a:invoke"]}}}]);
        let discovery = serde_json::json!({
            "issuer": base,
            "token_endpoint": format!("{mock_base}/oauth/token"),
            "grant_types_supported": ["client_credentials"],
        });
        axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(move || {
                    let card = card.clone();
                    async move { axum::Json(card) }
                }),
            )
            .route(
                "/.well-known/openid-configuration",
                axum::routing::get(move || {
                    let discovery = discovery.clone();
                    async move { axum::Json(discovery) }
                }),
            )
    });
    let out = check_every_format(
        &format!("{}/.well-known/agent-card.json", served.base_url),
        &[
            OAUTH_FLAGS.as_slice(),
            &["--scenario", "completion-stability", "-v"],
        ]
        .concat(),
        &[
            ("PEER_CLIENT_ID", CLIENT_ID),
            ("PEER_CLIENT_SECRET", SECRET),
        ],
    );
    assert_eq!(
        out.scenario("completion-stability"),
        "pass",
        "{}",
        out.explain()
    );
    let notes = notes(&out);
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with(&format!("POST {mock_base}/oauth/token"))),
        "{notes:#?}"
    );
    assert_no_secret("oidc", &out, &[SECRET, TOKEN_PREFIX]);
    // Under --same-origin-credentials the other origin gets no secret.
    let strict = check_env(
        &format!("{}/.well-known/agent-card.json", served.base_url),
        &[
            OAUTH_FLAGS.as_slice(),
            &[
                "--scenario",
                "completion-stability",
                "--same-origin-credentials",
            ],
        ]
        .concat(),
        &[
            ("PEER_CLIENT_ID", CLIENT_ID),
            ("PEER_CLIENT_SECRET", SECRET),
        ],
    );
    let warnings = strict.report()["peers"][0]["card_warnings"].to_string();
    assert!(
        warnings.contains("no token was obtained for the card's scheme `oidc`")
            && warnings.contains("--same-origin-credentials"),
        "{warnings}"
    );
    assert_eq!(strict.scenario("completion-stability"), "inconclusive");
}

#[test]
fn a_profile_carries_the_cards_credential_settings_as_the_flags_do() {
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("peer.yaml");
    let profile_arg = profile.to_str().unwrap();

    // `profile init` suggests the profile key for the card's scheme.
    let peer = start_peer_with_token(
        ProtocolVersion::V1_0,
        Behaviour::SecuredApiKey,
        Some(SECRET),
    );
    let init = run(&[
        "profile",
        "init",
        &peer.card_url(),
        "--discover-budget",
        "1",
    ]);
    assert!(
        init.stdout.contains("\n# api_key_env: "),
        "{}",
        init.explain()
    );
    std::fs::write(&profile, "api_key_env: PEER_KEY\n").unwrap();
    let out = run_env(
        &[
            "check",
            &peer.card_url(),
            "--profile",
            profile_arg,
            "--scenario",
            "completion-stability",
        ],
        &[("PEER_KEY", SECRET)],
    );
    assert_eq!(
        out.scenario("completion-stability"),
        "pass",
        "{}",
        out.explain()
    );
    assert!(
        !(out.explain() + &out.report().to_string()).contains(SECRET),
        "the API key shows"
    );

    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredOauth, Some(SECRET));
    std::fs::write(
        &profile,
        "oauth_client_id_env: PEER_CLIENT_ID\noauth_client_secret_env: PEER_CLIENT_SECRET\n",
    )
    .unwrap();
    let out = run_env(
        &[
            "check",
            &peer.card_url(),
            "--profile",
            profile_arg,
            "--scenario",
            "completion-stability",
        ],
        &[
            ("PEER_CLIENT_ID", CLIENT_ID),
            ("PEER_CLIENT_SECRET", SECRET),
        ],
    );
    assert_eq!(
        out.scenario("completion-stability"),
        "pass",
        "{}",
        out.explain()
    );
    assert!(
        !(out.explain() + &out.report().to_string()).contains(SECRET),
        "the client secret shows"
    );

    // Half an OAuth client is refused before any request, naming the file.
    std::fs::write(&profile, "oauth_client_id_env: PEER_CLIENT_ID\n").unwrap();
    let out = run(&["check", &peer.card_url(), "--profile", profile_arg]);
    assert_eq!(out.code, 2, "{}", out.explain());
    assert!(
        out.stderr
            .contains("`oauth_client_id_env` needs `oauth_client_secret_env`"),
        "{}",
        out.explain()
    );
}

#[test]
fn the_prompt_search_and_profile_init_send_the_cards_credentials() {
    let peer = start_peer_with_token(
        ProtocolVersion::V1_0,
        Behaviour::SecuredApiKey,
        Some(SECRET),
    );
    // No prompt_input_required anywhere: the search must reach the peer
    // with the API key, as every run does.
    let out = run_env(
        &[
            "check",
            &peer.card_url(),
            "--api-key-env",
            "PEER_KEY",
            "--scenario",
            "input-mode-resume",
        ],
        &[("PEER_KEY", SECRET)],
    );
    assert_eq!(out.code, 0, "{}", out.explain());
    assert_eq!(
        out.declaration("defaultInputModes[text/plain]"),
        "honoured",
        "{}",
        out.explain()
    );
    let init = run_env(
        &[
            "profile",
            "init",
            &peer.card_url(),
            "--api-key-env",
            "PEER_KEY",
        ],
        &[("PEER_KEY", SECRET)],
    );
    assert_eq!(init.code, 0, "{}", init.explain());
    assert!(
        init.stdout.contains("prompt_input_required:"),
        "{}",
        init.explain()
    );
    assert!(!init.explain().contains(SECRET));
}
