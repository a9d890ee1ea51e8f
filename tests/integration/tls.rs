//! Real peers' transport: a TLS front (rustls, certificates from a CA made
//! here with rcgen) before the mock peer. Without the CA the card is refused
//! (exit 3, naming --cacert); with --cacert, or SSL_CERT_FILE (the system
//! trust store, rustls-native-certs), it is trusted; --insecure is accepted
//! with a warning in every format and `tool.insecure: true`; mTLS required by
//! the front is satisfied by --cert/--key. A proxy never sees loopback.
//! `grpc` reuses the CA and the front for gRPC over TLS.

use crate::common;
use a2a_conform::mock::Behaviour;
use a2a_conform::protocol::ProtocolVersion;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

use std::process::{Command, Output};
use std::sync::Arc;
use tokio_rustls::rustls::{self, pki_types};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");

/// A CA, a server certificate for 127.0.0.1 and a client certificate, as PEM files.
pub(crate) struct Pki {
    dir: tempfile::TempDir,
    ca_der: pki_types::CertificateDer<'static>,
    server_der: pki_types::CertificateDer<'static>,
    server_key: Vec<u8>,
}

impl Pki {
    pub(crate) fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "a2a-conform test CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let server_key = KeyPair::generate().unwrap();
        let server = CertificateParams::new(vec!["127.0.0.1".to_string()])
            .unwrap()
            .signed_by(&server_key, &ca)
            .unwrap();
        let client_key = KeyPair::generate().unwrap();
        let mut client_params =
            CertificateParams::new(vec!["a2a-conform-client".to_string()]).unwrap();
        client_params
            .distinguished_name
            .push(DnType::CommonName, "a2a-conform client");
        let client = client_params.signed_by(&client_key, &ca).unwrap();
        std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
        std::fs::write(dir.path().join("client.pem"), client.pem()).unwrap();
        std::fs::write(dir.path().join("client.key"), client_key.serialize_pem()).unwrap();
        Pki {
            ca_der: ca.der().clone(),
            server_der: server.der().clone(),
            server_key: server_key.serialize_der(),
            dir,
        }
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    pub(crate) fn server_config(&self, require_client_cert: bool) -> Arc<rustls::ServerConfig> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = if require_client_cert {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(self.ca_der.clone()).unwrap();
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .unwrap();
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        let key = pki_types::PrivateKeyDer::Pkcs8(self.server_key.clone().into());
        let mut config = builder
            .with_single_cert(vec![self.server_der.clone()], key)
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }
}

/// A TLS front on 127.0.0.1 that forwards each connection to `backend`.
pub(crate) struct TlsFront {
    pub(crate) port: u16,
    _runtime: tokio::runtime::Runtime,
}

pub(crate) fn tls_front(backend: &str, config: Arc<rustls::ServerConfig>) -> TlsFront {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let backend = url::Url::parse(backend).unwrap();
    let backend = format!(
        "{}:{}",
        backend.host_str().unwrap(),
        backend.port().unwrap()
    );
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let port = listener.local_addr().unwrap().port();
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    runtime.spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            let backend = backend.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(socket).await else {
                    return;
                };
                let Ok(mut plain) = tokio::net::TcpStream::connect(&backend).await else {
                    return;
                };
                let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
            });
        }
    });
    TlsFront {
        port,
        _runtime: runtime,
    }
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(BIN);
    command.args(args).env("NO_COLOR", "1").arg("--no-config");
    for var in [
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTPS_PROXY",
        "HTTP_PROXY",
        "https_proxy",
        "http_proxy",
    ] {
        command.env_remove(var);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().unwrap()
}

fn explain(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_tls_peer_is_trusted_through_its_ca_and_refused_without_it() {
    let pki = Pki::new();
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let front = tls_front(&peer.base_url(), pki.server_config(false));
    let url = format!("https://127.0.0.1:{}/", front.port);

    let out = run(&["card", &url], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", explain(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not trusted") && stderr.contains("--cacert FILE"),
        "{stderr}"
    );

    let out = run(&["card", &url, "--cacert", &pki.path("ca.pem")], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("declarations:"));

    // The system trust store is read as OpenSSL tools read it.
    let out = run(&["card", &url], &[("SSL_CERT_FILE", &pki.path("ca.pem"))]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "SSL_CERT_FILE: {}",
        explain(&out)
    );

    // A file that is no certificate is a usage error, before any request.
    let out = run(&["card", &url, "--cacert", &pki.path("client.key")], &[]);
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
}

#[test]
fn insecure_is_accepted_and_every_format_says_so() {
    let pki = Pki::new();
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let front = tls_front(&peer.base_url(), pki.server_config(false));
    let url = format!("https://127.0.0.1:{}/", front.port);
    let out = common::check_every_format(
        &url,
        &[
            "--insecure",
            "--no-config",
            "--scenario",
            "interface-served",
        ],
        &[],
    );
    assert_ne!(out.code, 3, "{}", out.explain());
    assert_eq!(out.report()["tool"]["insecure"], true, "{}", out.explain());
    assert!(
        out.stderr.contains("warning: --insecure"),
        "{}",
        out.explain()
    );
    assert!(
        out.stdout
            .contains("--insecure: TLS certificates were not verified"),
        "{}",
        out.explain()
    );
    assert!(out
        .junit
        .as_deref()
        .unwrap_or_default()
        .contains("name=\"insecure\""));
    assert!(out
        .markdown
        .as_deref()
        .unwrap_or_default()
        .contains("Insecure"));
    // Without --insecure the report does not carry the field at all.
    let plain = common::check(&peer.card_url(), &["--scenario", "interface-served"]);
    assert!(plain.report()["tool"].get("insecure").is_none());
}

#[test]
fn mtls_required_by_the_peer_is_satisfied_by_cert_and_key() {
    let pki = Pki::new();
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let front = tls_front(&peer.base_url(), pki.server_config(true));
    let url = format!("https://127.0.0.1:{}/", front.port);
    let ca = pki.path("ca.pem");
    let out = run(&["card", &url, "--cacert", &ca], &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "no client certificate: {}",
        explain(&out)
    );
    let out = run(
        &[
            "card",
            &url,
            "--cacert",
            &ca,
            "--cert",
            &pki.path("client.pem"),
            "--key",
            &pki.path("client.key"),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let out = run(&["card", &url, "--cert", &pki.path("client.pem")], &[]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "--cert needs --key: {}",
        explain(&out)
    );
}

#[test]
fn loopback_is_never_proxied() {
    let peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let dead = format!("http://127.0.0.1:{}", common::closed_port());
    let out = run(
        &["card", &peer.card_url()],
        &[
            ("HTTP_PROXY", &dead),
            ("HTTPS_PROXY", &dead),
            ("NO_PROXY", "example.com"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
}

/// A peer that starts listening `delay` from now on `port`.
fn start_late(
    port: u16,
    delay: std::time::Duration,
) -> std::thread::JoinHandle<(a2a_conform::mock::MockPeer, tokio::runtime::Runtime)> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let peer = runtime
            .block_on(a2a_conform::mock::MockPeer::start(
                a2a_conform::mock::MockConfig {
                    protocol: ProtocolVersion::V1_0,
                    behaviour: Behaviour::Honest,
                    port,
                    timing: common::fast_timing(),
                    auth_token: None,
                },
            ))
            .unwrap();
        (peer, runtime)
    })
}

#[test]
fn wait_for_card_polls_a_peer_that_is_still_starting() {
    let port = common::closed_port();
    let url = format!("http://127.0.0.1:{port}/");
    // Without the wait, a peer not yet up is unreachable (exit 3).
    let early = common::check(&url, &["--scenario", "interface-served"]);
    assert_eq!(early.code, 3, "{}", early.explain());
    let late = start_late(port, std::time::Duration::from_millis(1500));
    let out = common::check(
        &url,
        &["--wait-for-card", "20s", "--scenario", "interface-served"],
    );
    let _peer = late.join().unwrap();
    assert_ne!(out.code, 3, "{}", out.explain());
    let warnings = out.report()["peers"][0]["card_warnings"].to_string();
    assert!(warnings.contains("--wait-for-card"), "{warnings}");
    assert!(
        warnings.contains("#1 ") && warnings.contains("answered"),
        "{warnings}"
    );
    assert!(
        warnings.contains("refused") || warnings.contains("HTTP "),
        "the failed attempts are shown: {warnings}"
    );
}
