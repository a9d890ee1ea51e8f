//! Hostile token endpoints and OpenID Connect discovery documents: a card
//! whose `oauth2` client-credentials scheme (or `openIdConnect` document)
//! points at the peer's own hand-written endpoint, which then answers
//! slowly, hugely, with garbage, with a redirect to another origin, with a
//! token that would inject a header, or with the client secret echoed back.
//! Each case: no `fail` or `diverged` (the rows read `unverified` naming the
//! cause), the exit code, no client secret or obtained token in any output,
//! bounded time and memory.

use super::harness::*;
use serde_json::{json, Value};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const CLIENT_SECRET: &str = "Cs9hR4wN7kD2vQ5mX8tY";
const CLIENT_ID: &str = "hostile-client";
/// The token the honest branch of each peer issues and accepts.
const GOOD_TOKEN: &str = "Gt4nP8sL1fK6zJ3bV0cH";
const ENV: [(&str, &str); 2] = [
    ("HOSTILE_CLIENT_ID", CLIENT_ID),
    ("HOSTILE_CLIENT_SECRET", CLIENT_SECRET),
];
const FLAGS: [&str; 4] = [
    "--oauth-client-id-env",
    "HOSTILE_CLIENT_ID",
    "--oauth-client-secret-env",
    "HOSTILE_CLIENT_SECRET",
];
const SCENARIO: &str = "completion-stability";

/// A card whose every call needs a token from `token_url` (relative to the card).
fn oauth_card(token_url: &str) -> Value {
    json!({
        "securitySchemes": {"oauth": {"oauth2SecurityScheme": {"flows": {
            "clientCredentials": {"tokenUrl": token_url, "scopes": {"a2a:invoke": "call"}}
        }}}},
        "securityRequirements": [{"schemes": {"oauth": {"list": ["a2a:invoke"]}}}]
    })
}

/// A card whose every call needs a token found through `discovery_url`.
fn oidc_card(discovery_url: &str) -> Value {
    json!({
        "securitySchemes": {"oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": discovery_url}}},
        "securityRequirements": [{"schemes": {"oidc": {"list": ["a2a:invoke"]}}}]
    })
}

/// The A2A endpoint of every peer here: a completed task for a call carrying
/// [`GOOD_TOKEN`], a 401 for anything else.
fn a2a(call: &Call, stream: &mut TcpStream) {
    if call.head.contains(&format!("Bearer {GOOD_TOKEN}")) {
        let body = rpc_result(call, task("TASK_STATE_COMPLETED"));
        respond(stream, 200, "application/json", &body);
    } else {
        respond(
            stream,
            401,
            "application/json",
            br#"{"error":"invalid_token"}"#,
        );
    }
}

/// A peer whose `/token` (and `/oidc`, …) answers with `token`, every other
/// path with [`a2a`].
fn peer(card: Value, token: impl Fn(&Call, &mut TcpStream) + Send + Sync + 'static) -> HostilePeer {
    HostilePeer::start(card, move |call, stream| {
        if call.path.starts_with("/rpc") {
            a2a(call, stream)
        } else {
            token(call, stream)
        }
    })
}

fn run(peer: &HostilePeer, extra: &[&str]) -> Checked {
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--scenario", SCENARIO, "--timeout", "2s"]);
    args.extend(FLAGS);
    args.extend(extra);
    check_env(&[&peer.base], &args, &ENV)
}

/// The bounds and the truth rule every case holds to: no false verdict, the
/// run not `fail`, the completion row `unverified`, exit 4 (nothing
/// verified, nothing failed), no secret anywhere, bounded.
fn assert_unverified(out: &Checked, secrets: &[&str]) -> String {
    out.assert_no_false_verdict();
    let run = out.run(SCENARIO);
    assert_ne!(run["verdict"], "fail", "{}", out.explain());
    assert_ne!(run["verdict"], "pass", "{}", out.explain());
    assert_eq!(out.row("lifecycle.completion"), "unverified");
    assert_eq!(
        out.code,
        4,
        "nothing verified, nothing failed:\n{}",
        out.explain()
    );
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    out.assert_absent(&[&[CLIENT_SECRET, GOOD_TOKEN], secrets].concat());
    format!(
        "{}\n{}",
        out.card_warnings(0).join("\n"),
        run["message"].as_str().unwrap_or("")
    )
}

fn token_answer(stream: &mut TcpStream, body: Value) {
    respond(stream, 200, "application/json", body.to_string().as_bytes());
}

#[test]
fn an_honest_token_endpoint_is_used_so_the_hostile_cases_below_can_fail() {
    let peer = peer(oauth_card("/token"), |_, stream| {
        token_answer(
            stream,
            json!({"access_token": GOOD_TOKEN, "token_type": "Bearer", "expires_in": 60}),
        )
    });
    let out = run(&peer, &[]);
    assert_eq!(out.run(SCENARIO)["verdict"], "pass", "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    out.assert_absent(&[CLIENT_SECRET, GOOD_TOKEN]);
}

#[test]
fn a_token_endpoint_that_never_answers_is_bounded_by_the_timeout() {
    let peer = peer(oauth_card("/token"), |_, stream| {
        // Holds the connection open with no answer, far past --timeout.
        std::thread::sleep(Duration::from_secs(90));
        hang_up(stream);
    });
    let out = run(&peer, &[]);
    let said = assert_unverified(&out, &[]);
    assert!(said.contains("could not be reached"), "{said}");
}

#[test]
fn a_gigabyte_token_answer_is_capped() {
    let peer = peer(oauth_card("/token"), |_, stream| {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{\"access_token\":\"",
        );
        let chunk = vec![b'a'; 64 * 1024];
        for _ in 0..16 * 1024 {
            if stream.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let out = run(&peer, &[]);
    let said = assert_unverified(&out, &[]);
    assert!(said.contains("is over 65536 bytes"), "{said}");
}

#[test]
fn token_answers_that_carry_no_usable_token_are_named() {
    let cases: [(&str, &str, &[u8], &str); 4] = [
        (
            "html",
            "text/html",
            b"<html><body>login</body></html>",
            "not a JSON token answer",
        ),
        (
            "not json",
            "application/json",
            b"{\"access_token\": ",
            "not a JSON token answer",
        ),
        (
            "no access_token",
            "application/json",
            br#"{"token_type":"Bearer","expires_in":60}"#,
            "no access_token",
        ),
        (
            "not bearer",
            "application/json",
            br#"{"access_token":"Mt5aQ2wE9rT1yU7iO3pZ","token_type":"mac","expires_in":60}"#,
            "token_type `mac`",
        ),
    ];
    for (name, content_type, body, cause) in cases {
        let body = body.to_vec();
        let peer = peer(oauth_card("/token"), move |_, stream| {
            respond(stream, 200, content_type, &body)
        });
        let out = run(&peer, &[]);
        let said = assert_unverified(&out, &["Mt5aQ2wE9rT1yU7iO3pZ"]);
        assert!(said.contains(cause), "{name}: {said}");
    }
}

#[test]
fn absurd_lifetimes_neither_panic_nor_keep_a_token_from_being_used() {
    for expires_in in [
        json!(0),
        json!(-5),
        json!(1e308),
        json!("soon"),
        json!(u64::MAX),
    ] {
        let lifetime = expires_in.clone();
        let peer = peer(oauth_card("/token"), move |_, stream| {
            token_answer(
                stream,
                json!({"access_token": GOOD_TOKEN, "token_type": "bearer", "expires_in": lifetime}),
            )
        });
        let out = run(&peer, &[]);
        assert_eq!(
            out.run(SCENARIO)["verdict"],
            "pass",
            "expires_in {expires_in}: {}",
            out.explain()
        );
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
        out.assert_absent(&[CLIENT_SECRET, GOOD_TOKEN]);
    }
}

/// A listener on loopback that records every request it gets and answers
/// each with a token, as an identity provider the card never named would.
fn elsewhere() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            if let Some((head, body)) = read_http(&mut stream) {
                log.lock().unwrap().push(format!("{head}{body}"));
                token_answer(
                    &mut stream,
                    json!({"access_token": GOOD_TOKEN, "token_type": "Bearer"}),
                );
            }
        }
    });
    (base, seen)
}

#[test]
fn a_token_endpoint_redirecting_elsewhere_sends_the_client_secret_nowhere() {
    let (other, seen) = elsewhere();
    for status in ["302 Found", "307 Temporary Redirect"] {
        let target = format!("{other}/token");
        let peer = peer(oauth_card("/token"), move |_, stream| {
            let _ = stream.write_all(
                format!("HTTP/1.1 {status}\r\nLocation: {target}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .as_bytes(),
            );
        });
        let out = run(&peer, &[]);
        let said = assert_unverified(&out, &[]);
        assert!(said.contains("HTTP 30"), "{status}: {said}");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "the other origin was reached: {:?}",
        seen.lock().unwrap()
    );
}

#[test]
fn a_token_with_line_breaks_or_controls_injects_no_header_and_never_shows() {
    let tokens = [
        "Ij7tokenA\r\nX-Injected: Ij7tokenB",
        "Ij7tokenC\nX-Injected: Ij7tokenD",
        "Ij7tokenE\u{7}\u{1b}[31mIj7tokenF",
    ];
    for token in tokens {
        let issued = token.to_string();
        let injected = Arc::new(Mutex::new(false));
        let saw = injected.clone();
        let peer = HostilePeer::start(oauth_card("/token"), move |call, stream| {
            if call.path.starts_with("/rpc") {
                if call.head.to_ascii_lowercase().contains("x-injected") {
                    *saw.lock().unwrap() = true;
                }
                a2a(call, stream)
            } else {
                token_answer(
                    stream,
                    json!({"access_token": issued, "token_type": "Bearer"}),
                )
            }
        });
        let out = run(&peer, &[]);
        let said = assert_unverified(
            &out,
            &[
                "Ij7tokenA",
                "Ij7tokenB",
                "Ij7tokenC",
                "Ij7tokenD",
                "Ij7tokenE",
                "Ij7tokenF",
            ],
        );
        assert!(said.contains("a header cannot carry"), "{token:?}: {said}");
        assert!(!*injected.lock().unwrap(), "{token:?} injected a header");
    }
}

#[test]
fn a_token_endpoint_echoing_the_client_secret_never_gets_it_shown() {
    // The secret placed where a clip of the description would cut it in
    // half; the bearer token and the header the card's origin also received
    // echoed the same way.
    for (padding, echoed) in [
        (0usize, CLIENT_SECRET),
        (130, CLIENT_SECRET),
        (138, CLIENT_SECRET),
        (5000, CLIENT_SECRET),
        (135, SECRET),
        (135, HEADER_SECRET),
    ] {
        let description = format!("{}bad client secret {echoed}", "x".repeat(padding));
        let code = format!("{}invalid_client {echoed}", "y".repeat(padding.min(50)));
        let peer = peer(oauth_card("/token"), move |_, stream| {
            let body = json!({"error": code, "error_description": description});
            respond(stream, 401, "application/json", body.to_string().as_bytes())
        });
        let out = run(&peer, &[]);
        let said = assert_unverified(&out, &[]);
        assert!(
            said.contains("refused the client credentials: HTTP 401"),
            "{said}"
        );
    }
}

#[test]
fn discovery_documents_huge_garbage_or_naming_unsafe_endpoints_are_refused_and_named() {
    let (other, seen) = elsewhere();
    let cases: Vec<(&str, Vec<u8>, String)> = vec![
        (
            "huge",
            vec![b' '; 2 * 1024 * 1024],
            "is over 65536 bytes".into(),
        ),
        (
            "garbage",
            b"\x00\xffnot json".to_vec(),
            "the body is not JSON".into(),
        ),
        (
            "no endpoint",
            br#"{"issuer":"x"}"#.to_vec(),
            "no token_endpoint".into(),
        ),
        (
            "file",
            br#"{"token_endpoint":"file:///etc/passwd"}"#.to_vec(),
            "file:///etc/passwd is not https".into(),
        ),
        (
            "ftp",
            br#"{"token_endpoint":"ftp://127.0.0.1/token"}"#.to_vec(),
            "ftp://127.0.0.1/token is not https".into(),
        ),
        (
            "clear",
            br#"{"token_endpoint":"http://idp.example/token"}"#.to_vec(),
            "http://idp.example/token is not https".into(),
        ),
        (
            "other origin",
            json!({"token_endpoint": format!("{other}/token")})
                .to_string()
                .into_bytes(),
            "--same-origin-credentials".into(),
        ),
    ];
    for (name, document, cause) in cases {
        let peer = peer(oidc_card("/oidc"), move |call, stream| {
            if call.path.starts_with("/oidc") {
                respond(stream, 200, "application/json", &document)
            } else {
                token_answer(
                    stream,
                    json!({"access_token": GOOD_TOKEN, "token_type": "Bearer"}),
                )
            }
        });
        let out = run(&peer, &["--same-origin-credentials"]);
        let said = assert_unverified(&out, &[]);
        assert!(said.contains("discovery document"), "{name}: {said}");
        assert!(said.contains(&cause), "{name}: {said}");
    }
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );
}

#[test]
fn a_discovery_document_naming_another_origin_is_said_in_every_run_that_used_it() {
    let (other, seen) = elsewhere();
    let document = json!({"token_endpoint": format!("{other}/token")}).to_string();
    let peer = peer(oidc_card("/oidc"), move |_, stream| {
        respond(stream, 200, "application/json", document.as_bytes())
    });
    // -v: a passing run's evidence is in the report.
    let out = run(&peer, &["-v"]);
    assert_eq!(out.run(SCENARIO)["verdict"], "pass", "{}", out.explain());
    let evidence = &out.json_text;
    assert!(
        evidence.contains("another origin than the card's")
            && evidence.contains(&other)
            && evidence.contains("--same-origin-credentials"),
        "{evidence}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "one token request there");
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    out.assert_absent(&[CLIENT_SECRET, GOOD_TOKEN]);
}

#[test]
fn a_peer_echoing_the_api_key_and_basic_credentials_gets_neither_shown() {
    const API_KEY: &str = "Ak5fW2qZ8xN3cV6bM1lJ";
    const PASSWORD: &str = "Pw7gH3jK9dS2aL5qE0rT";
    let card = json!({
        "securitySchemes": {
            "key": {"apiKeySecurityScheme": {"location": "query", "name": "api_key"}},
            "basic": {"httpAuthSecurityScheme": {"scheme": "Basic"}}
        },
        "securityRequirements": [{"schemes": {"key": {"list": []}, "basic": {"list": []}}}]
    });
    // Every answer echoes the whole request: the query carrying the key and
    // the Basic header carrying `user:password` in base64, raw and escaped.
    let peer = HostilePeer::start(card, |call, stream| {
        let echoed = format!("{}{}", call.head, call.body);
        match call.rpc.as_str() {
            "SendMessage" => {
                let body = json!({"jsonrpc": "2.0", "id": call.id,
                    "error": {"code": -32603, "message": echoed, "data": {"echo": echoed}}});
                respond(stream, 200, "application/json", body.to_string().as_bytes())
            }
            _ => respond(stream, 500, "text/html", echoed.as_bytes()),
        }
    });
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--scenario", SCENARIO, "--timeout", "2s", "-v"]);
    args.extend([
        "--api-key-env",
        "HOSTILE_API_KEY",
        "--basic-env",
        "HOSTILE_USER:HOSTILE_PASSWORD",
    ]);
    let out = check_env(
        &[&peer.base],
        &args,
        &[
            ("HOSTILE_API_KEY", API_KEY),
            ("HOSTILE_USER", "alice"),
            ("HOSTILE_PASSWORD", PASSWORD),
        ],
    );
    let sent = peer.calls();
    assert!(
        sent.iter().any(|c| c.head.contains(API_KEY)),
        "the key was sent where the card says: {sent:?}"
    );
    out.assert_no_false_verdict();
    assert_ne!(out.run(SCENARIO)["verdict"], "fail", "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    out.assert_absent(&[API_KEY, PASSWORD]);
}

#[test]
fn an_a2a_endpoint_echoing_the_obtained_token_where_a_clip_cuts_it_never_shows_it() {
    // The A2A endpoint echoes the `Authorization: Bearer` line carrying the
    // token in an HTML 500, padded so the reason's clip cuts it.
    for padding in [0usize, 90, 95, 4000] {
        let echo = HostilePeer::start(oauth_card("/token"), move |call, stream| {
            if call.path.starts_with("/rpc") {
                let authorization = call
                    .head
                    .lines()
                    .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
                    .unwrap_or("")
                    .to_string();
                let body = format!("{}{authorization}", "x".repeat(padding));
                respond(stream, 500, "text/html", body.as_bytes())
            } else {
                token_answer(
                    stream,
                    json!({"access_token": GOOD_TOKEN, "token_type": "Bearer"}),
                )
            }
        });
        let out = run(&echo, &["-v"]);
        let said = out.assert_run(SCENARIO, "error", Some("peer-malfunction"));
        assert!(said.contains("text/html on SendMessage"), "{said}");
        out.assert_no_false_verdict();
        assert_eq!(out.code, 3, "{}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
        out.assert_absent(&[CLIENT_SECRET, GOOD_TOKEN]);
    }
}
