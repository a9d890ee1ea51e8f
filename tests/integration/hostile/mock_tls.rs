//! The other way round: `mock-peer --tls` against hostile clients. Hundreds
//! of connections that never finish a handshake, and connections that send
//! bytes that are no TLS, must not starve the honest client that follows:
//! each handshake runs on its own, bounded by the mock's handshake timeout.

use super::harness::*;
use crate::common;
use a2a_conform_mock::{Behaviour, MockConfig, MockPki, MockTls};
use a2a_conform_protocol::ProtocolVersion;
use std::io::Write;
use std::net::TcpStream;
use std::sync::Arc;

#[test]
fn stalled_and_garbage_handshakes_do_not_starve_an_honest_client() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pki = MockPki::generate().expect("pki");
    let files = pki.write_to(dir.path()).expect("pki files");
    let peer = common::start_peer_config(MockConfig {
        tls: Some(MockTls {
            pki: Arc::new(pki),
            require_client_cert: false,
        }),
        ..common::peer_config(ProtocolVersion::V1_0, Behaviour::Honest)
    });
    let card_url = peer.card_url();
    let addr = url::Url::parse(&card_url)
        .expect("card URL")
        .socket_addrs(|| None)
        .expect("address")[0];
    // Held open for the whole check: 200 silent, 50 that send no TLS.
    let mut hostile: Vec<TcpStream> = Vec::new();
    for n in 0..250 {
        let Ok(mut stream) = TcpStream::connect(addr) else {
            continue;
        };
        if n % 5 == 0 {
            let _ = stream.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff\x16\x03");
        }
        hostile.push(stream);
    }
    assert!(hostile.len() > 200, "{} connections opened", hostile.len());
    let cacert = files.ca.display().to_string();
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--scenario", "completion-stability", "--cacert", &cacert]);
    let out = check(&[&card_url], &args);
    out.assert_run("completion-stability", "pass", None);
    assert_eq!(out.code, 0, "{}", out.explain());
    out.assert_bounded(WITHIN, MAX_RSS_MIB);
    drop(hostile);
}
