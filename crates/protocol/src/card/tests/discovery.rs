//! `discovery_url`: base URLs, card URLs and bad inputs.

use super::*;

#[test]
fn base_urls_get_the_well_known_path() {
    let cases = [
        ("http://h", "http://h/.well-known/agent-card.json"),
        ("http://h/", "http://h/.well-known/agent-card.json"),
        (
            "https://h:8443",
            "https://h:8443/.well-known/agent-card.json",
        ),
        (
            "http://h/agents/x",
            "http://h/agents/x/.well-known/agent-card.json",
        ),
        (
            "http://h/agents/x/",
            "http://h/agents/x/.well-known/agent-card.json",
        ),
        ("  http://h/a  ", "http://h/a/.well-known/agent-card.json"),
        (
            "http://h/a?k=v#frag",
            "http://h/a/.well-known/agent-card.json?k=v",
        ),
        (
            "http://127.0.0.1:9",
            "http://127.0.0.1:9/.well-known/agent-card.json",
        ),
    ];
    for (input, want) in cases {
        assert_eq!(discovery_url(input).unwrap().as_str(), want, "{input}");
    }
}

#[test]
fn card_urls_are_used_as_is() {
    let cases = [
        "https://h/.well-known/agent-card.json",
        "http://h/.well-known/agent.json",
        "http://h/cards/echo.JSON",
        "http://h/x/card.json?v=2",
    ];
    for input in cases {
        assert_eq!(discovery_url(input).unwrap().as_str(), input);
    }
}

#[test]
fn bad_discovery_inputs_are_named() {
    let cases = [
        (
            "peer.example.com",
            "has no http:// or https:// scheme (write it as https://peer.example.com)",
        ),
        (
            "localhost:8080",
            "has no http:// or https:// scheme (write it as https://localhost:8080)",
        ),
        ("ftp://h/card", "its scheme `ftp` is not http or https"),
        (
            "file:///tmp/card.json",
            "its scheme `file` is not http or https",
        ),
        ("http://", "it has no host"),
        ("", "it is empty"),
        ("http://[::1", "does not parse as a URL"),
    ];
    for (input, reason) in cases {
        let err = discovery_url(input).unwrap_err();
        let CardError::BadUrl { input: named, .. } = &err else {
            panic!("{input}: {err:?}");
        };
        assert_eq!(named, input.trim());
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("`{input}` is not a usable card URL: ")),
            "{msg}"
        );
        assert!(msg.contains(reason), "{input}: {msg}");
        assert_one_line(&err);
    }
}

#[test]
fn a_password_in_the_url_is_refused_without_being_shown() {
    let e = discovery_url("https://me:hunter22@h/agent")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("it holds a password") && e.contains("--basic-env"),
        "{e}"
    );
    assert!(e.contains("https://me:***@h/agent"), "{e}");
    assert!(!e.contains("hunter22"), "{e}");
    // A user name alone is no secret.
    assert!(discovery_url("https://me@h/agent").is_ok());
}
