//! Hostile gRPC peers behind TLS: a certificate the `--cacert` CA signed, a
//! handshake that completes, and then silence, HTTP/1.1 garbage, or no `h2`
//! in ALPN; and a port that answers the ClientHello with bytes that are no
//! TLS at all. Each is an `error` (a malfunction, or the peer unreachable when
//! the handshake fails; exit 3) naming what happened, within `--timeout`, never a `fail`.

use super::harness::*;
use a2a_conform_mock::MockPki;
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use tokio_rustls::rustls;

const RUN: &str = "interface-served[GRPC 1.0]";

#[derive(Clone, Copy, Debug)]
enum After {
    /// Completes the handshake and says nothing.
    Silent,
    /// Completes the handshake and answers HTTP/1.1 to the HTTP/2 preface.
    Http1,
    /// No TLS at all: bytes that are no ServerHello.
    NotTls,
}

/// A TLS port on loopback (ALPN `alpn`) that behaves as `after` says.
fn tls_port(pki: &MockPki, alpn: &[u8], after: After) -> u16 {
    let mut config = (*pki.server_config(false).expect("server config")).clone();
    config.alpn_protocols = vec![alpn.to_vec()];
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for tcp in listener.incoming().flatten() {
            let config = config.clone();
            std::thread::spawn(move || {
                let _ = tcp.set_read_timeout(Some(std::time::Duration::from_secs(30)));
                let mut buf = [0u8; 4096];
                if let After::NotTls = after {
                    let mut tcp = tcp;
                    let _ = tcp.read(&mut buf);
                    let _ = tcp.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\nnot tls");
                    while matches!(tcp.read(&mut buf), Ok(n) if n > 0) {}
                    return;
                }
                let Ok(connection) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = rustls::StreamOwned::new(connection, tcp);
                // The first read drives the handshake and reads the preface.
                if !matches!(tls.read(&mut buf), Ok(n) if n > 0) {
                    return;
                }
                if let After::Http1 = after {
                    let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
                    let _ = tls.flush();
                }
                while matches!(tls.read(&mut buf), Ok(n) if n > 0) {}
            });
        }
    });
    port
}

#[test]
fn a_grpc_peer_behind_tls_that_is_silent_garbled_or_no_tls_is_a_malfunction() {
    let pki = MockPki::generate().expect("pki");
    let dir = tempfile::tempdir().expect("tempdir");
    let files = pki.write_to(dir.path()).expect("pki files");
    let cacert = files.ca.display().to_string();
    // A handshake that fails is the peer unreachable; one that completes
    // and then breaks, a malfunction; one that completes and then says
    // nothing within --timeout, the tool's own bound running out. All are
    // `error`, never `fail`.
    let cases: [(After, &[u8], &str, &str); 4] = [
        (After::Silent, b"h2", "tool-cap", "no answer within 1.00 s"),
        (
            After::Http1,
            b"h2",
            "peer-malfunction",
            "the gRPC exchange broke",
        ),
        (
            After::Silent,
            b"http/1.1",
            "unreachable",
            "NoApplicationProtocol",
        ),
        (After::NotTls, b"h2", "unreachable", "could not reach"),
    ];
    for (after, alpn, kind, cause) in cases {
        let port = tls_port(&pki, alpn, after);
        let target = format!("https://127.0.0.1:{port}");
        let peer = HostilePeer::start_served(
            |base| {
                card(
                    base,
                    json!({"supportedInterfaces": [
                        {"url": target, "protocolBinding": "GRPC", "protocolVersion": "1.0"}
                    ]}),
                )
            },
            |_, stream| respond(stream, 404, "text/plain", b"no"),
        );
        let mut args: Vec<&str> = FAST.to_vec();
        args.extend(["--scenario", "interface-served", "--timeout", "1s"]);
        args.extend(["--cacert", &cacert]);
        let out = check(&[&peer.base], &args);
        let case = format!("{after:?} {}", String::from_utf8_lossy(alpn));
        let message = out.assert_run(RUN, "error", Some(kind));
        assert!(message.contains(cause), "{case}: {message}");
        assert_eq!(out.row("interfaces[GRPC 1.0]"), "unverified", "{case}");
        out.assert_no_false_verdict();
        // Nothing was verified when the tool's bound ran out; the peer's
        // fault (exit 3) otherwise.
        let code = if kind == "tool-cap" { 4 } else { 3 };
        assert_eq!(out.code, code, "{case}: {}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
}
