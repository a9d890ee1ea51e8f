//! Hostile card signatures and `jku` key sets: a key set that is huge, slow,
//! garbage, redirected or behind credentials; thousands of keys; signatures
//! with `alg: none` or HMAC; thousands of signatures on one card. The card
//! is signed for real (ES256 over JCS) on the peer's own origin, so the
//! honest case verifies and each hostile one is judged against it: a key set
//! that gives no key leaves the row `unverified` with its cause named (never
//! `diverged`), and no configured credential ever goes to a `jku`.

use super::harness::*;
use a2a_conform_protocol::card::signature::{generate_es256, sign_es256};
use base64::Engine;
use serde_json::{json, Value};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const SCENARIO: &str = "signature-verifies";
const ROW: &str = "signatures[k1]";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A peer serving a card signed (kid `k1`) with a fresh key whose `jku` is
/// `{base}/jwks` on the peer itself; `jwks` answers that path with the
/// public key as a JWK; every other call is answered with a 404.
fn signed_peer(
    jwks: impl Fn(&Value, &Call, &mut TcpStream) + Send + Sync + 'static,
) -> HostilePeer {
    let (pkcs8, jwk) = generate_es256("k1").expect("a key");
    HostilePeer::start_served(
        |base| {
            let mut signed = card(base, json!({}));
            sign_es256(&mut signed, &pkcs8, "k1", Some(&format!("{base}/jwks"))).expect("signed");
            signed
        },
        move |call, stream| match call.path.as_str() {
            "/jwks" => jwks(&jwk, call, stream),
            _ => respond(stream, 404, "text/plain", b"no"),
        },
    )
}

fn run(peer: &HostilePeer) -> Checked {
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--scenario", SCENARIO, "--timeout", "2s"]);
    check(&[&peer.base], &args)
}

/// No call the peer received carried a configured credential.
fn assert_no_credentials_sent(peer: &HostilePeer) {
    for call in peer.calls() {
        let head = call.head.to_ascii_lowercase();
        assert!(
            !head.contains("authorization")
                && !head.contains("x-api-key")
                && !call.head.contains(SECRET)
                && !call.head.contains(HEADER_SECRET),
            "credentials sent to {}:\n{}",
            call.path,
            call.head
        );
    }
}

/// The truth rule for a key set that gives no key: the run inconclusive,
/// the row `unverified`, exit 4 (nothing verified), bounded; its message.
fn assert_unverified(out: &Checked, row: &str) -> String {
    out.assert_no_false_verdict();
    assert_eq!(out.row(row), "unverified", "{}", out.explain());
    assert_eq!(out.code, 4, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    out.report["peers"][0]["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["id"].as_str().is_some_and(|id| id.starts_with(SCENARIO)))
        .map(|r| {
            assert_ne!(r["verdict"], "fail", "{r}");
            r["message"].as_str().unwrap_or("").to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_honest_key_set_verifies_and_is_fetched_without_credentials() {
    let peer = signed_peer(|jwk, _, stream| {
        let body = json!({"keys": [jwk]}).to_string();
        respond(stream, 200, "application/json", body.as_bytes())
    });
    let out = run(&peer);
    assert_eq!(out.row(ROW), "honoured", "{}", out.explain());
    assert_eq!(out.code, 0, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    assert!(!peer.calls().is_empty(), "the jku was fetched");
    assert_no_credentials_sent(&peer);
}

#[test]
fn a_key_set_that_is_huge_slow_garbage_or_behind_credentials_leaves_the_row_unverified() {
    type Answer = fn(&Value, &Call, &mut TcpStream);
    let cases: [(&str, Answer, &str); 4] = [
        (
            "huge",
            |_, _, stream| {
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n{\"keys\":[",
                );
                let chunk = vec![b' '; 64 * 1024];
                for _ in 0..16 * 1024 {
                    if stream.write_all(&chunk).is_err() {
                        return;
                    }
                }
            },
            "over 1048576 bytes",
        ),
        (
            "slow",
            |_, _, stream| {
                std::thread::sleep(Duration::from_secs(90));
                hang_up(stream);
            },
            "timed out",
        ),
        (
            "garbage",
            |_, _, stream| respond(stream, 200, "application/json", b"\x00{keys: nope"),
            "its jku gave no key",
        ),
        (
            "credentials expected",
            |jwk, call, stream| {
                if call.head.to_ascii_lowercase().contains("authorization") {
                    let body = json!({"keys": [jwk]}).to_string();
                    respond(stream, 200, "application/json", body.as_bytes())
                } else {
                    respond(stream, 401, "application/json", br#"{"error":"login"}"#)
                }
            },
            "HTTP 401",
        ),
    ];
    for (name, answer, cause) in cases {
        let peer = signed_peer(answer);
        let out = run(&peer);
        let said = assert_unverified(&out, ROW);
        assert!(said.contains(cause), "{name}: {said}");
        assert_no_credentials_sent(&peer);
    }
}

#[test]
fn a_key_set_redirecting_elsewhere_is_not_followed() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let other = format!("http://{}", listener.local_addr().expect("addr"));
    let seen = Arc::new(Mutex::new(0usize));
    let count = seen.clone();
    std::thread::spawn(move || {
        for _ in listener.incoming().flatten() {
            *count.lock().unwrap() += 1;
        }
    });
    let location = format!("{other}/jwks");
    let peer = signed_peer(move |_, _, stream| {
        let _ = stream.write_all(
            format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes(),
        );
    });
    let out = run(&peer);
    let said = assert_unverified(&out, ROW);
    assert!(said.contains("HTTP 302"), "{said}");
    assert_eq!(*seen.lock().unwrap(), 0, "the redirect was followed");
}

#[test]
fn thousands_of_keys_in_a_key_set_are_bounded_and_the_right_one_still_verifies() {
    let (_, decoy) = generate_es256("k1").expect("a key");
    let peer = signed_peer(move |jwk, _, stream| {
        let mut keys = vec![decoy.clone(); 2000];
        keys.push(jwk.clone());
        let body = json!({"keys": keys}).to_string();
        respond(stream, 200, "application/json", body.as_bytes())
    });
    let out = run(&peer);
    assert_eq!(out.row(ROW), "honoured", "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
}

/// A signature entry with `header` as its protected header and `signature`.
fn entry(header: Value, signature: &[u8]) -> Value {
    json!({"protected": B64.encode(header.to_string()), "signature": B64.encode(signature)})
}

#[test]
fn alg_none_and_hmac_signatures_are_refused_not_verified() {
    // The HMAC entry is keyed with the `jku` set's `oct` key, as an attacker
    // who publishes a symmetric key would; the tool must not use it.
    let peer = HostilePeer::start_served(
        |base| {
            let mut unsigned = card(base, json!({}));
            unsigned["signatures"] = json!([
                entry(json!({"alg": "none", "kid": "n"}), b""),
                entry(
                    json!({"alg": "HS256", "kid": "h", "jku": format!("{base}/jwks")}),
                    b"\x01\x02\x03",
                ),
            ]);
            unsigned
        },
        |call, stream| match call.path.as_str() {
            "/jwks" => {
                let body = json!({"keys": [{"kty": "oct", "kid": "h", "k": B64.encode("shared")}]});
                respond(stream, 200, "application/json", body.to_string().as_bytes())
            }
            _ => respond(stream, 404, "text/plain", b"no"),
        },
    );
    let out = run(&peer);
    for (row, alg) in [("signatures[n]", "`none`"), ("signatures[h]", "`HS256`")] {
        let said = assert_unverified(&out, row);
        assert!(said.contains(alg), "{row}: {said}");
    }
}

#[test]
fn thousands_of_signatures_are_capped_per_family() {
    let fetched = Arc::new(Mutex::new(0usize));
    let count = fetched.clone();
    let peer = HostilePeer::start_served(
        |base| {
            let mut many = card(base, json!({}));
            let header = json!({"alg": "ES256", "kid": "k", "jku": format!("{base}/jwks")});
            many["signatures"] = Value::Array(vec![entry(header, b"x"); 3000]);
            many
        },
        move |call, stream| {
            if call.path == "/jwks" {
                *count.lock().unwrap() += 1;
            }
            respond(stream, 200, "application/json", b"not a key set")
        },
    );
    let out = run(&peer);
    assert_unverified(&out, "signatures[#1]");
    assert_eq!(out.row("signatures[#3000]"), "unverified");
    let fetches = *fetched.lock().unwrap();
    assert!(
        (1..=64).contains(&fetches),
        "{fetches} jku fetches for 3000 signatures"
    );
    assert!(
        out.stdout.contains("--max-runs-per-family")
            || out.json_text.contains("--max-runs-per-family")
    );
}

#[test]
fn a_trusted_key_file_that_is_huge_or_garbage_is_a_usage_error_before_any_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let huge = dir.path().join("huge.jwk");
    std::fs::write(&huge, vec![b' '; 8 * 1024 * 1024]).expect("write");
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(
        &garbage,
        b"-----BEGIN PUBLIC KEY-----\n\x00\xff\n-----END PUBLIC KEY-----\n",
    )
    .expect("write");
    for (file, cause) in [(&huge, "larger than 4 MiB"), (&garbage, "garbage.pem")] {
        let peer = signed_peer(|_, _, stream| respond(stream, 500, "text/plain", b"no"));
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-conform"));
        command
            .args(["check", &peer.base, "--trusted-key"])
            .arg(file)
            .env("NO_COLOR", "1");
        let done = run_bounded(command, Duration::from_secs(60));
        assert_eq!(done.code, 2, "{}: {}", file.display(), done.stderr);
        assert!(
            done.stderr.contains(cause),
            "{}: {}",
            file.display(),
            done.stderr
        );
        assert!(
            peer.calls().is_empty(),
            "a request was made: {:?}",
            peer.calls()
        );
        assert!(done.peak_rss_kib < MAX_RSS_MIB * 1024);
    }
}
