//! HTTPS for the mock peer (`mock-peer --tls DIR`): a throwaway CA made with
//! rcgen, a server certificate for 127.0.0.1 and localhost, and a client
//! certificate for mTLS, written as the PEM files the tool's `--cacert`,
//! `--cert` and `--key` read; and an axum listener that completes TLS
//! handshakes off the accept loop, so one slow client never stalls the rest.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose,
};
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::rustls::{self, pki_types};
use tokio_rustls::server::TlsStream;

/// A handshake that takes longer than this is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshakes completed but not yet taken by the server.
const ACCEPT_QUEUE: usize = 64;

/// A CA and the certificates it signed, kept in memory.
pub struct MockPki {
    ca_pem: String,
    ca_der: pki_types::CertificateDer<'static>,
    server_der: pki_types::CertificateDer<'static>,
    server_key_der: Vec<u8>,
    client_pem: String,
    client_key_pem: String,
}

/// Where [`MockPki::write_to`] put the PEM files.
#[derive(Debug, Clone)]
pub struct PkiFiles {
    /// The CA to trust (`--cacert`).
    pub ca: PathBuf,
    /// The client certificate (`--cert`).
    pub client_cert: PathBuf,
    /// The client certificate's key (`--key`).
    pub client_key: PathBuf,
}

impl fmt::Debug for MockPki {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keys are never printed, not even a test CA's.
        f.debug_struct("MockPki").finish_non_exhaustive()
    }
}

impl MockPki {
    /// A fresh CA, a server certificate for `127.0.0.1`/`localhost` and a
    /// client certificate, all signed by the CA.
    pub fn generate() -> Result<MockPki, rcgen::Error> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "a2a-conform mock peer CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;
        let server_key = KeyPair::generate()?;
        let server = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])?
            .signed_by(&server_key, &ca)?;
        let client_key = KeyPair::generate()?;
        let mut client_params = CertificateParams::new(vec!["a2a-conform-client".into()])?;
        client_params
            .distinguished_name
            .push(DnType::CommonName, "a2a-conform client");
        let client = client_params.signed_by(&client_key, &ca)?;
        Ok(MockPki {
            ca_pem: ca.pem(),
            ca_der: ca.der().clone(),
            server_der: server.der().clone(),
            server_key_der: server_key.serialize_der(),
            client_pem: client.pem(),
            client_key_pem: client_key.serialize_pem(),
        })
    }

    /// Writes `ca.pem`, `client.pem` and `client.key` into `dir` (created if
    /// missing). The server's key stays in memory.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<PkiFiles> {
        std::fs::create_dir_all(dir)?;
        let files = PkiFiles {
            ca: dir.join("ca.pem"),
            client_cert: dir.join("client.pem"),
            client_key: dir.join("client.key"),
        };
        std::fs::write(&files.ca, &self.ca_pem)?;
        std::fs::write(&files.client_cert, &self.client_pem)?;
        write_private(&files.client_key, &self.client_key_pem)?;
        Ok(files)
    }

    /// The CA certificate, PEM.
    pub fn ca_pem(&self) -> &str {
        &self.ca_pem
    }

    /// The server side: this CA's server certificate, and with
    /// `require_client_cert` only clients holding a certificate this CA signed.
    pub fn server_config(
        &self,
        require_client_cert: bool,
    ) -> Result<Arc<rustls::ServerConfig>, rustls::Error> {
        // ring, explicitly: the process may link more than one provider.
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?;
        let builder = if require_client_cert {
            let mut roots = rustls::RootCertStore::empty();
            roots.add(self.ca_der.clone())?;
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .map_err(|e| rustls::Error::General(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        } else {
            builder.with_no_client_auth()
        };
        let key = pki_types::PrivateKeyDer::Pkcs8(self.server_key_der.clone().into());
        let mut config = builder.with_single_cert(vec![self.server_der.clone()], key)?;
        // The mock's axum server speaks HTTP/1.1 only.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

/// How the mock serves HTTPS.
#[derive(Clone)]
pub struct MockTls {
    /// The CA whose server certificate the peer presents (and whose client
    /// certificates it accepts).
    pub pki: Arc<MockPki>,
    /// Refuse clients without a certificate the CA signed (mTLS).
    pub require_client_cert: bool,
}

impl MockTls {
    /// A listener that serves HTTPS on `tcp` with these settings: what the
    /// mock peer itself serves with, and what a test hosting handlers of
    /// its own (a key set, a token endpoint) hands `axum::serve` to put
    /// them behind the same CA.
    pub fn listener(&self, tcp: TcpListener) -> std::io::Result<TlsListener> {
        let config = self
            .pki
            .server_config(self.require_client_cert)
            .map_err(std::io::Error::other)?;
        TlsListener::new(tcp, config)
    }
}

impl fmt::Debug for MockTls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MockTls")
            .field("require_client_cert", &self.require_client_cert)
            .finish_non_exhaustive()
    }
}

impl PartialEq for MockTls {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.pki, &other.pki) && self.require_client_cert == other.require_client_cert
    }
}

impl Eq for MockTls {}

/// An axum listener of TLS connections ([`MockTls::listener`]): a task
/// accepts TCP and runs each handshake in its own task (bounded by ten
/// seconds); finished handshakes queue here. A failed handshake is the
/// client's problem and is dropped.
pub struct TlsListener {
    ready: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
    addr: SocketAddr,
    /// Aborted with the listener, so the port is released with the server.
    acceptor: tokio::task::JoinHandle<()>,
}

impl Drop for TlsListener {
    fn drop(&mut self) {
        self.acceptor.abort();
    }
}

impl TlsListener {
    fn new(tcp: TcpListener, config: Arc<rustls::ServerConfig>) -> std::io::Result<Self> {
        let addr = tcp.local_addr()?;
        let (sender, ready) = mpsc::channel(ACCEPT_QUEUE);
        let tls = tokio_rustls::TlsAcceptor::from(config);
        let acceptor = tokio::spawn(async move {
            loop {
                let Ok((socket, peer)) = tcp.accept().await else {
                    // Out of descriptors or similar: back off rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let tls = tls.clone();
                let queue = sender.clone();
                tokio::spawn(async move {
                    if let Ok(Ok(tls)) =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.accept(socket)).await
                    {
                        let _ = queue.send((tls, peer)).await;
                    }
                });
                if sender.is_closed() {
                    return;
                }
            }
        });
        Ok(TlsListener {
            ready,
            addr,
            acceptor,
        })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(connection) => connection,
            // The accepting task is gone: accept nothing more; the server
            // ends through its graceful shutdown.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_hold_what_the_client_flags_read() {
        let pki = MockPki::generate().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = pki.write_to(dir.path()).unwrap();
        let ca = std::fs::read(&files.ca).unwrap();
        assert_eq!(reqwest::Certificate::from_pem_bundle(&ca).unwrap().len(), 1);
        let mut identity = std::fs::read(&files.client_cert).unwrap();
        identity.extend(std::fs::read(&files.client_key).unwrap());
        assert!(reqwest::Identity::from_pem(&identity).is_ok());
        assert!(pki.server_config(true).is_ok());
        assert!(format!("{pki:?}").starts_with("MockPki"));
    }
}
