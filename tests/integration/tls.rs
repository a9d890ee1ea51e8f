//! Real peers' transport: the mock peer serving HTTPS (`MockConfig::tls`,
//! `mock-peer --tls`) with a throwaway CA. Without the CA the card is refused
//! (exit 3, naming --cacert); with --cacert, or SSL_CERT_FILE (the system
//! trust store, rustls-native-certs), it is trusted — card, calls and
//! streams; --insecure is accepted with a warning in every format and
//! `tool.insecure: true`; mTLS required by the peer is satisfied by
//! --cert/--key, a profile or a config section. A proxy never sees loopback.

use crate::common;
use a2a_conform_mock::{Behaviour, MockConfig, MockPki, MockTls};
use a2a_conform_protocol::ProtocolVersion;
use std::process::{Command, Output};
use std::sync::Arc;

const BIN: &str = env!("CARGO_BIN_EXE_a2a-conform");

/// The mock's throwaway CA with its PEM files (`ca.pem`, `client.pem`,
/// `client.key`) in a temporary directory.
struct Pki {
    dir: tempfile::TempDir,
    pki: Arc<MockPki>,
}

impl Pki {
    fn new() -> Pki {
        let dir = tempfile::tempdir().unwrap();
        let pki = MockPki::generate().unwrap();
        pki.write_to(dir.path()).unwrap();
        Pki {
            dir,
            pki: Arc::new(pki),
        }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// An honest v1.0 mock peer serving HTTPS with this CA's certificate
    /// (and demanding a client certificate it signed, for mTLS).
    fn peer(&self, require_client_cert: bool) -> common::Peer {
        common::start_peer_config(MockConfig {
            tls: Some(MockTls {
                pki: self.pki.clone(),
                require_client_cert,
            }),
            ..common::peer_config(ProtocolVersion::V1_0, Behaviour::Honest)
        })
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
    let peer = pki.peer(false);
    let url = format!("{}/", peer.base_url());
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");

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
    let peer = pki.peer(false);
    let url = format!("{}/", peer.base_url());
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
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
    let plain_peer = common::start_peer(ProtocolVersion::V1_0, Behaviour::Honest);
    let plain = common::check(&plain_peer.card_url(), &["--scenario", "interface-served"]);
    assert!(plain.report()["tool"].get("insecure").is_none());
}

#[test]
fn mtls_required_by_the_peer_is_satisfied_by_cert_and_key() {
    let pki = Pki::new();
    let peer = pki.peer(true);
    let url = format!("{}/", peer.base_url());
    let ca = pki.path("ca.pem");
    let out = run(&["card", &url, "--cacert", &ca], &[]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "no client certificate: {}",
        explain(&out)
    );
    // The refusal names the fix, not only rustls's alert. In TLS 1.3 the
    // server judges the client's certificate after the client has finished
    // its handshake, so under load the client may see the connection close
    // before it reads the alert; the hint goes with the alert.
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("CertificateRequired") {
        assert!(
            stderr.contains("the peer requires a client certificate (received fatal alert: CertificateRequired): pass one with --cert FILE --key FILE"),
            "{}",
            explain(&out)
        );
    }
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
) -> std::thread::JoinHandle<(a2a_conform_mock::MockPeer, tokio::runtime::Runtime)> {
    std::thread::spawn(move || {
        std::thread::sleep(delay);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let peer = runtime
            .block_on(a2a_conform_mock::MockPeer::start(
                a2a_conform_mock::MockConfig {
                    protocol: ProtocolVersion::V1_0,
                    behaviour: Behaviour::Honest,
                    port,
                    timing: common::fast_timing(),
                    auth_token: None,
                    ..a2a_conform_mock::MockConfig::default()
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
    let late = start_late(port, std::time::Duration::from_secs(3));
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

/// A `mock-peer` child process, killed when dropped.
struct MockPeerProcess {
    child: std::process::Child,
    card_url: String,
}

impl Drop for MockPeerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `a2a-conform mock-peer ARGS` and waits (bounded) for the card URL
/// it prints.
fn mock_peer_process(args: &[&str]) -> MockPeerProcess {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let mut child = Command::new(BIN)
        .arg("mock-peer")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mock-peer starts");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let mut process = MockPeerProcess {
        child,
        card_url: String::new(),
    };
    process.card_url = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("mock-peer prints its card URL within 30 s")
        .trim()
        .to_string();
    process
}

#[test]
fn mock_peer_tls_serves_https_trusted_through_the_ca_it_writes() {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem").display().to_string();
    let peer = mock_peer_process(&["--tls", &dir.path().display().to_string()]);
    assert!(
        peer.card_url.starts_with("https://127.0.0.1:"),
        "{}",
        peer.card_url
    );

    let out = run(&["card", &peer.card_url], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", explain(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--cacert FILE"),
        "{}",
        explain(&out)
    );

    // Every interface the card declares is on https too: the whole suite runs.
    let report = dir.path().join("report.json");
    let out = run(
        &[
            "check",
            &peer.card_url,
            "--cacert",
            &ca,
            "--json",
            &report.display().to_string(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["summary"]["runs"]["error"], 0, "{report:#}");
    assert_eq!(
        report["summary"]["declarations"]["diverged"], 0,
        "{report:#}"
    );
    assert!(
        report["peers"][0]["declarations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == "capabilities.streaming" && d["verdict"] == "honoured"),
        "{report:#}"
    );

    // `card` reads the env var of the flag it shares with `check`; its own
    // `--json` switch takes none (for `check` it is a report path).
    let out = run(
        &["card", &peer.card_url],
        &[
            ("A2A_CONFORM_CACERT", &ca),
            ("A2A_CONFORM_JSON", "somewhere.json"),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("declarations:"));
}

#[test]
fn mock_peer_mtls_is_satisfied_by_a_profile_or_a_config_section_beside_the_certificates() {
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem").display().to_string();
    let peer = mock_peer_process(&[
        "--tls",
        &dir.path().display().to_string(),
        "--require-client-cert",
    ]);

    // Trusting the server is not enough: it wants a client certificate.
    let out = run(&["card", &peer.card_url, "--cacert", &ca], &[]);
    assert_eq!(out.status.code(), Some(3), "{}", explain(&out));

    // A profile names the files relative to itself, so it works from any
    // working directory.
    let profile = dir.path().join("peer.yaml");
    std::fs::write(
        &profile,
        "cacert: ca.pem\ncert: client.pem\nkey: client.key\n",
    )
    .unwrap();
    let out = run(
        &[
            "check",
            &peer.card_url,
            "--profile",
            &profile.display().to_string(),
            "--scenario",
            "completion-stability",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));

    // A config file's per-peer section does the same for `check` and `card`,
    // the peer named by the section.
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("a2a-conform.yaml"),
        format!(
            "peers:\n  staging:\n    url: {}\n    cacert: {}\n    cert: {}\n    key: {}\n",
            peer.card_url,
            ca,
            dir.path().join("client.pem").display(),
            dir.path().join("client.key").display()
        ),
    )
    .unwrap();
    let in_work = |args: &[&str]| {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .current_dir(work.path())
            .env("NO_COLOR", "1")
            .env_remove("A2A_CONFORM_CONFIG");
        command.output().unwrap()
    };
    let out = in_work(&["config", "show", "staging"]);
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains(&format!("  cacert: {ca}")), "{shown}");
    let out = in_work(&["card", "staging"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));
    let out = in_work(&["check", "staging", "--scenario", "completion-stability"]);
    assert_eq!(out.status.code(), Some(0), "{}", explain(&out));

    // Half a client certificate is refused before any request, naming where.
    std::fs::write(&profile, "cert: client.pem\n").unwrap();
    let out = run(
        &[
            "check",
            &peer.card_url,
            "--profile",
            &profile.display().to_string(),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", explain(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`cert` needs `key`"),
        "{}",
        explain(&out)
    );
}
