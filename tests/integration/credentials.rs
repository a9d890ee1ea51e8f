//! Credentials that were given and refused fail the check closed: a wrong
//! token (or API key, or OAuth client secret) against the secured mock
//! behaviours exits 4 with a `fails the run` line naming where the
//! credentials came from, never their value, in any output; the right
//! ones check as before (exit 0); none at all is no refusal (exit 0, with
//! the card's warning, as before).

use crate::common::*;
use a2a_conform_mock::auth::CLIENT_ID;
use a2a_conform_mock::Behaviour;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::Value;

const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];
const RIGHT: &str = "r1ght-credential-for-refusal-tests-5d1e";
const WRONG: &str = "wr0ng-credential-for-refusal-tests-77ab";
const REFUSED: &str = "the credentials given were refused";

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

/// A check refused its credentials: exit 4, the line naming `source` on
/// stderr and in the Markdown summary, the JSON record, and `secret` nowhere.
fn assert_refused(cell: &str, out: &Outcome, source: &str, secret: &str) {
    assert_eq!(out.code, 4, "{cell}: {}", out.explain());
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains(REFUSED))
        .unwrap_or_else(|| panic!("{cell}: no refusal line: {}", out.stderr));
    assert!(line.starts_with("fails the run: "), "{cell}: {line}");
    assert!(line.contains(source), "{cell}: {line}");
    // Markdown escapes what it would read as emphasis (`PEER\_TOKEN`).
    let markdown = out.markdown.clone().unwrap_or_default();
    assert!(
        markdown.contains(REFUSED) && markdown.contains(&source.replace('_', "\\_")),
        "{cell}: {markdown}"
    );
    let record = &out.report()["peers"][0]["credentials"];
    let (sent, refused) = (record["sent"].as_u64(), record["refused"].as_u64());
    assert!(
        sent.is_some_and(|n| n > 0) && sent == refused,
        "{cell}: {record}"
    );
    assert!(
        record["sources"][0]
            .as_str()
            .is_some_and(|s| s.contains(source)),
        "{cell}: {record}"
    );
    assert_eq!(out.report()["summary"]["exit_code"], 4, "{cell}");
    for (format, text) in outputs(out) {
        assert!(
            !text.contains(secret),
            "{cell}: the secret is in the {format} output"
        );
    }
}

/// A check that is no refusal: no refusal line nor record.
fn assert_not_refused(cell: &str, out: &Outcome) {
    assert!(!out.stderr.contains(REFUSED), "{cell}: {}", out.stderr);
    assert_eq!(
        out.report()["peers"][0]["credentials"],
        Value::Null,
        "{cell}: {}",
        out.explain()
    );
}

#[test]
fn a_wrong_bearer_token_fails_the_check_naming_its_variable_never_its_value() {
    for version in VERSIONS {
        let peer = start_peer_with_token(version, Behaviour::Secured, Some(RIGHT));
        let cell = format!("secured × {version}");
        let out = check_every_format(
            &peer.card_url(),
            &["--bearer-env", "PEER_TOKEN"],
            &[("PEER_TOKEN", WRONG)],
        );
        assert_refused(&cell, &out, "--bearer-env PEER_TOKEN", WRONG);
        // The probe that needs no credentials still passed: not what decides.
        assert_eq!(out.declaration("security.enforced"), "honoured", "{cell}");
        // The right token: unchanged, every row honoured, exit 0.
        let out = check_every_format(
            &peer.card_url(),
            &["--bearer-env", "PEER_TOKEN"],
            &[("PEER_TOKEN", RIGHT)],
        );
        assert_eq!(out.code, 0, "{cell}: {}", out.explain());
        assert_eq!(
            out.declaration("lifecycle.completion"),
            "honoured",
            "{cell}"
        );
        assert_not_refused(&cell, &out);
    }
}

#[test]
fn no_credentials_at_all_are_no_refusal_and_keep_the_cards_warning() {
    let peer = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::Secured, Some(RIGHT));
    let out = check_every_format(&peer.card_url(), &[], &[]);
    assert_eq!(out.code, 0, "{}", out.explain());
    assert!(
        out.stdout
            .contains("card warning: the card requires credentials"),
        "{}",
        out.stdout
    );
    assert_not_refused("secured, no credentials", &out);
    // Under --fail-on-unverified the rows left unverified fail it, as any.
    let out = check_every_format(&peer.card_url(), &["--fail-on-unverified"], &[]);
    assert_eq!(out.code, 4, "{}", out.explain());
    assert_not_refused("secured, no credentials, --fail-on-unverified", &out);
}

#[test]
fn a_wrong_api_key_and_a_wrong_client_secret_are_refused_by_their_source() {
    let key = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredApiKey, Some(RIGHT));
    let out = check_every_format(
        &key.card_url(),
        &["--api-key-env", "PEER_KEY"],
        &[("PEER_KEY", WRONG)],
    );
    assert_refused("secured-api-key", &out, "--api-key-env PEER_KEY", WRONG);
    // Set by its environment variable instead of the flag: named so.
    let out = check_every_format(
        &key.card_url(),
        &[],
        &[("A2A_CONFORM_API_KEY_ENV", "PEER_KEY"), ("PEER_KEY", WRONG)],
    );
    assert_refused(
        "secured-api-key by env",
        &out,
        "--api-key-env PEER_KEY (env A2A_CONFORM_API_KEY_ENV)",
        WRONG,
    );
    // The token endpoint refuses a wrong client secret: refused too.
    let oauth = start_peer_with_token(ProtocolVersion::V1_0, Behaviour::SecuredOauth, Some(RIGHT));
    let out = check_every_format(
        &oauth.card_url(),
        &[
            "--oauth-client-id-env",
            "PEER_CLIENT_ID",
            "--oauth-client-secret-env",
            "PEER_CLIENT_SECRET",
        ],
        &[("PEER_CLIENT_ID", CLIENT_ID), ("PEER_CLIENT_SECRET", WRONG)],
    );
    assert_refused(
        "secured-oauth",
        &out,
        "--oauth-client-id-env PEER_CLIENT_ID with the secret of PEER_CLIENT_SECRET",
        WRONG,
    );
}
