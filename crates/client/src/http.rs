//! The bounded HTTP plumbing under every call: the reqwest client, reading a
//! body within a size and time cap, naming the real cause of an error, and
//! telling a kept-alive connection that broke before any byte of the answer
//! (sent once more on a fresh one, [`fresh_client`]) from a peer's answer.

use super::reply::Reply;
use a2a_conform_protocol::text::human_duration;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How the client trusts peers and proves itself: the system trust store
/// (rustls-native-certs, which honours `SSL_CERT_FILE`/`SSL_CERT_DIR`) plus
/// `--cacert`, an mTLS identity (`--cert`/`--key`), or no verification at
/// all (`--insecure`). Files are read once, at the edge, into these types.
#[derive(Debug, Clone, Default)]
pub struct TlsOptions {
    /// CAs added to the trust store (`--cacert`).
    pub extra_roots: Vec<reqwest::Certificate>,
    /// The client certificate and key (`--cert`, `--key`).
    pub identity: Option<reqwest::Identity>,
    /// `--insecure`: certificates are not verified (every report says so).
    pub insecure: bool,
    /// The same `--cacert` CAs as DER, for gRPC channels (rustls, not reqwest).
    pub extra_roots_der: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// The same `--cert`/`--key` identity as DER, for gRPC channels.
    pub identity_der: Option<std::sync::Arc<GrpcIdentity>>,
}

/// An mTLS client certificate chain and its key, as rustls takes them.
#[derive(Debug)]
pub struct GrpcIdentity {
    /// The certificate chain, leaf first.
    pub chain: Vec<rustls::pki_types::CertificateDer<'static>>,
    /// The leaf certificate's private key.
    pub key: rustls::pki_types::PrivateKeyDer<'static>,
}

/// The HTTP client used for cards and calls: bounded, and it follows no
/// redirect by itself — a call's redirect is what the peer answered, and the
/// card's are followed by hand ([`super::redirect`]) so that credentials never
/// cross to another origin.
///
/// Building a client reads and parses the whole system trust store
/// (milliseconds of CPU), and a fleet check needs several per peer: with
/// the usual trust (no `--cacert`, no client certificate) one client per
/// timeout and `--insecure` is built and shared, with its connection pool.
pub fn http_client(
    timeout: Duration,
    tls: &TlsOptions,
) -> Result<reqwest::Client, ClientBuildError> {
    shared(Purpose::Calls, timeout, tls, || {
        builder(timeout, tls)?
            .timeout(timeout)
            .build()
            .map_err(ClientBuildError::Build)
    })
}

/// The client streams are read with: the same trust, identity, proxies and
/// redirect policy as [`http_client`], but no whole-request timeout (a
/// stream lives as long as its scenario's own bounds allow); connecting is
/// still bounded.
pub fn stream_client(
    connect_timeout: Duration,
    tls: &TlsOptions,
) -> Result<reqwest::Client, ClientBuildError> {
    shared(Purpose::Streams, connect_timeout, tls, || {
        builder(connect_timeout, tls)?
            .build()
            .map_err(ClientBuildError::Build)
    })
}

/// A client that keeps no idle connection: every request it sends opens a
/// connection of its own. A request whose kept-alive connection broke before
/// any byte of the answer is sent once more through it ([`broke_before_answer`]),
/// so the second try cannot land on another stale connection of the pool.
/// `streaming` leaves out the whole-request timeout, as [`stream_client`] does.
pub fn fresh_client(
    timeout: Duration,
    tls: &TlsOptions,
    streaming: bool,
) -> Result<reqwest::Client, ClientBuildError> {
    let purpose = if streaming {
        Purpose::FreshStreams
    } else {
        Purpose::FreshCalls
    };
    shared(purpose, timeout, tls, || {
        let builder = builder(timeout, tls)?.pool_max_idle_per_host(0);
        let builder = if streaming {
            builder
        } else {
            builder.timeout(timeout)
        };
        builder.build().map_err(ClientBuildError::Build)
    })
}

/// Which client: with a whole-request timeout, or without; pooling its
/// connections, or opening a fresh one per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Purpose {
    Calls,
    Streams,
    FreshCalls,
    FreshStreams,
}

/// The client `build` makes, built once per purpose, timeout and
/// `--insecure` when the trust is the usual one (no `--cacert`, no
/// `--cert`), and shared: 1,000 peers built 4,000 clients, 18 s of CPU
/// parsing the trust store. A shared client shares its connection pool,
/// whose connections are kept per origin. Proxies come from the
/// environment, the same for the whole process.
fn shared(
    purpose: Purpose,
    timeout: Duration,
    tls: &TlsOptions,
    build: impl FnOnce() -> Result<reqwest::Client, ClientBuildError>,
) -> Result<reqwest::Client, ClientBuildError> {
    type Clients = Mutex<HashMap<(Purpose, Duration, bool), reqwest::Client>>;
    static CLIENTS: OnceLock<Clients> = OnceLock::new();
    let usual = tls.extra_roots.is_empty()
        && tls.identity.is_none()
        && tls.extra_roots_der.is_empty()
        && tls.identity_der.is_none();
    if !usual {
        return build();
    }
    let key = (purpose, timeout, tls.insecure);
    let clients = CLIENTS.get_or_init(Clients::default);
    if let Some(client) = clients.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(client.clone());
    }
    let client = build()?;
    clients
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, client.clone());
    Ok(client)
}

/// The one origin this process may connect to, once [`confine_to`] set it.
static CONFINED: OnceLock<url::Origin> = OnceLock::new();

/// Where a request to another origin is sent while confined: port 0, which
/// no connection can reach, so the refusal is immediate and nothing leaves
/// the machine.
const NOWHERE: &str = "http://127.0.0.1:0";

/// Confines every HTTP (and gRPC) connection this process makes from now
/// on to `origin` (`rejudge`: the replay server on loopback). A request for
/// any other origin — a token URL, a `jku` key set, an interface a
/// cassette names — fails to connect, unsent. Call it before the first
/// client is built: clients already built (and shared) are not confined.
/// Answers false when the process was already confined elsewhere.
pub fn confine_to(origin: url::Origin) -> bool {
    CONFINED.set(origin.clone()).is_ok() || CONFINED.get() == Some(&origin)
}

/// Whether `url` may be connected to: always, unless the process is
/// confined ([`confine_to`]) to another origin.
pub fn may_connect(url: &url::Url) -> bool {
    CONFINED.get().is_none_or(|origin| url.origin() == *origin)
}

fn builder(
    connect_timeout: Duration,
    tls: &TlsOptions,
) -> Result<reqwest::ClientBuilder, ClientBuildError> {
    let mut builder = reqwest::Client::builder();
    if CONFINED.get().is_some() {
        // First of the proxies: reqwest asks them in order.
        builder = builder.proxy(reqwest::Proxy::custom(|url| {
            (!may_connect(url)).then_some(NOWHERE)
        }));
    }
    for root in &tls.extra_roots {
        builder = builder.add_root_certificate(root.clone());
    }
    if let Some(identity) = &tls.identity {
        builder = builder.identity(identity.clone());
    }
    builder = with_env_proxies(builder)?;
    Ok(builder
        .danger_accept_invalid_certs(tls.insecure)
        .connect_timeout(connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("a2a-conform/", env!("CARGO_PKG_VERSION"))))
}

/// Why the HTTP client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientBuildError {
    /// A proxy from `HTTPS_PROXY`/`HTTP_PROXY` that reqwest refuses.
    #[error("the proxy {url} cannot be used: {source}")]
    Proxy {
        /// The proxy URL as the environment gives it.
        url: String,
        /// reqwest's reason.
        source: reqwest::Error,
    },
    /// reqwest refused the options (TLS roots, identity).
    #[error("cannot build the HTTP client: {0}")]
    Build(#[source] reqwest::Error),
}

/// Loopback is never proxied, whatever `NO_PROXY` says.
const LOOPBACK: &str = "localhost,127.0.0.0/8,::1";

/// `HTTPS_PROXY`/`HTTP_PROXY` (either case) as reqwest reads them, with
/// loopback and `NO_PROXY` left direct: the mock peer and local agents must
/// not go through a CI runner's proxy.
fn with_env_proxies(
    mut builder: reqwest::ClientBuilder,
) -> Result<reqwest::ClientBuilder, ClientBuildError> {
    let env = |names: [&str; 2]| {
        names
            .iter()
            .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
    };
    let no_proxy = match env(["NO_PROXY", "no_proxy"]) {
        Some(list) => format!("{LOOPBACK},{list}"),
        None => LOOPBACK.to_string(),
    };
    let proxies = [
        (env(["HTTPS_PROXY", "https_proxy"]), true),
        (env(["HTTP_PROXY", "http_proxy"]), false),
    ];
    for (url, https) in proxies {
        let Some(url) = url else { continue };
        let proxy = if https {
            reqwest::Proxy::https(&url)
        } else {
            reqwest::Proxy::http(&url)
        }
        .map_err(|source| ClientBuildError::Proxy {
            url: url.clone(),
            source,
        })?;
        builder = builder.proxy(proxy.no_proxy(reqwest::NoProxy::from_string(&no_proxy)));
    }
    Ok(builder)
}

/// The innermost cause of a reqwest error, which names the real trouble
/// ("Connection refused") where the outer message does not.
pub fn describe_reqwest_error(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text = cause.to_string();
        source = cause.source();
    }
    if error.is_timeout() {
        format!("timed out ({text})")
    } else if text.contains("UnknownIssuer") || text.contains("invalid peer certificate") {
        format!(
            "the peer's TLS certificate is not trusted ({text}): pass the CA that issued it \
             with --cacert FILE (PEM), or skip verification with --insecure"
        )
    } else if text.contains("CertificateRequired") {
        format!(
            "the peer requires a client certificate ({text}): pass one with \
             --cert FILE --key FILE (PEM)"
        )
    } else if text.contains("InvalidContentType") {
        // rustls read a plain HTTP answer where a TLS record belonged.
        let plain = error
            .url()
            .map(|u| u.as_str().replacen("https://", "http://", 1))
            .unwrap_or_else(|| "http://…".into());
        format!("the server answered plain HTTP on a TLS connection; did you mean {plain}?")
    } else {
        text
    }
}

/// Whether a request failed on its connection before any byte of the answer
/// arrived: reset, aborted, a broken pipe, or closed before the response's
/// head — what a kept-alive connection the peer closed without saying so
/// (no `Connection: close`) gives the next request sent on it. reqwest does
/// not tell whether the connection was a reused one, so this is the honest
/// approximation: no timeout, no connect error (nothing was sent), and no
/// response head (a body that breaks is the peer's answer breaking, never
/// retried).
pub fn broke_before_answer(error: &reqwest::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    if error.is_timeout()
        || error.is_connect()
        || error.is_builder()
        || error.is_redirect()
        || error.is_status()
        || error.is_body()
        || error.is_decode()
    {
        return false;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof
            ) {
                return true;
            }
        }
        if cause
            .downcast_ref::<hyper::Error>()
            .is_some_and(|h| h.is_incomplete_message() || h.is_canceled())
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// Why a call ended at `--timeout`: the tool's own bound ran out, not a
/// finding about the peer (a correct peer's blocking send works until its
/// task settles, however long that takes). It names the flag and its value.
pub fn timeout_reason(timeout: Duration) -> String {
    format!(
        "no answer within {} (--timeout): the tool's own bound ran out, which says nothing \
         against the peer; raise --timeout if the peer needs longer",
        human_duration(timeout)
    )
}

/// Why a body could not be read whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    /// The body passed the tool's cap (`--max-body-bytes`).
    #[error(
        "the body is larger than the tool's cap of {limit} bytes; raise it with --max-body-bytes"
    )]
    Capped {
        /// The cap, in bytes.
        limit: usize,
    },
    /// The peer stopped sending in time, or the connection broke.
    #[error("{0}")]
    Broken(String),
}

impl From<BodyError> for Reply {
    fn from(error: BodyError) -> Reply {
        match error {
            BodyError::Capped { .. } => Reply::Capped(error.to_string()),
            BodyError::Broken(reason) => Reply::Broken(reason),
        }
    }
}

/// Reads a body up to `max_bytes` (`--max-body-bytes`), within `timeout`.
pub async fn read_bounded(
    mut response: reqwest::Response,
    timeout: Duration,
    max_bytes: usize,
) -> Result<Vec<u8>, BodyError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut body = Vec::new();
    loop {
        let chunk = match tokio::time::timeout_at(deadline, response.chunk()).await {
            Err(_) => {
                return Err(BodyError::Broken(format!(
                    "the body did not finish within {} ({} bytes read)",
                    human_duration(timeout),
                    body.len()
                )))
            }
            Ok(Err(e)) => {
                return Err(BodyError::Broken(format!(
                    "the connection broke while reading the body after {} bytes: {}",
                    body.len(),
                    describe_reqwest_error(&e)
                )))
            }
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(chunk))) => chunk,
        };
        if body.len() + chunk.len() > max_bytes {
            return Err(BodyError::Capped { limit: max_bytes });
        }
        body.extend_from_slice(&chunk);
    }
}
