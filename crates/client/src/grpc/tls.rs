//! TLS for gRPC channels, with the HTTP client's trust and identity: the
//! system roots (rustls-native-certs, which honours `SSL_CERT_FILE` and
//! `SSL_CERT_DIR`) and the webpki roots, `--cacert`, the `--cert`/`--key`
//! identity, or no verification at all under `--insecure`. tonic's own TLS
//! settings cannot skip verification, so the rustls config reaches tonic
//! through a hyper-rustls connector; tonic is handed the `http` form of the
//! URL (it refuses an `https` one without its own TLS) and the connector
//! speaks TLS whatever the scheme says.

use crate::http::TlsOptions;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};
use tonic::codegen::http::uri::{Scheme, Uri};
use tonic::codegen::Service;
use tonic::transport::{Channel, Endpoint};

/// Why a TLS channel could not be opened.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsConnectError {
    #[error("cannot set up TLS: {0}")]
    Rustls(#[from] rustls::Error),
    #[error("a --cacert certificate cannot be used: {0}")]
    Root(String),
    #[error(transparent)]
    Connect(#[from] tonic::transport::Error),
}

/// Opens a channel to the endpoint (given in its `http` form) over TLS,
/// HTTP/2 by ALPN.
pub(crate) async fn connect(
    endpoint: Endpoint,
    tls: &TlsOptions,
) -> Result<Channel, TlsConnectError> {
    let https = HttpsConnectorBuilder::new()
        .with_tls_config(client_config(tls)?)
        .https_only()
        .enable_http2()
        .build();
    Ok(endpoint.connect_with_connector(AlwaysTls(https)).await?)
}

/// The rustls config of a gRPC channel.
fn client_config(tls: &TlsOptions) -> Result<ClientConfig, TlsConnectError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()?;
    let builder = if tls.insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
    } else {
        let mut roots = RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        // The system store cannot change during a run: read it once.
        for cert in system_roots() {
            // A system certificate rustls cannot parse is skipped, as reqwest does.
            let _ = roots.add(cert.clone());
        }
        for cert in &tls.extra_roots_der {
            roots
                .add(cert.clone())
                .map_err(|e| TlsConnectError::Root(e.to_string()))?;
        }
        builder.with_root_certificates(roots)
    };
    Ok(match &tls.identity_der {
        Some(identity) => {
            builder.with_client_auth_cert(identity.chain.clone(), identity.key.clone_key())?
        }
        None => builder.with_no_client_auth(),
    })
}

fn system_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: OnceLock<Vec<CertificateDer<'static>>> = OnceLock::new();
    ROOTS.get_or_init(|| rustls_native_certs::load_native_certs().certs)
}

/// Wraps the HTTPS connector: every URI is connected to as `https`.
#[derive(Clone)]
struct AlwaysTls<C>(HttpsConnector<C>);

impl<C> Service<Uri> for AlwaysTls<C>
where
    HttpsConnector<C>: Service<Uri>,
    <HttpsConnector<C> as Service<Uri>>::Future: Send + 'static,
{
    type Response = <HttpsConnector<C> as Service<Uri>>::Response;
    type Error = <HttpsConnector<C> as Service<Uri>>::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let mut parts = uri.into_parts();
        parts.scheme = Some(Scheme::HTTPS);
        let uri = Uri::from_parts(parts).unwrap_or_default();
        Box::pin(self.0.call(uri))
    }
}

/// `--insecure`: any certificate is accepted; signatures are still checked
/// to be well-formed for the handshake to complete.
#[derive(Debug)]
struct NoVerification(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
