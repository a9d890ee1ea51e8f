//! The peer client: one bounded, recording HTTP client per peer that speaks the
//! chosen version and binding. Every request and response lands in the
//! scenario's transcript; replies are read leniently and classified, never
//! trusted.

pub use super::credentials::{ClientConfig, Credentials, SENSITIVE_HEADERS};
use super::grpc::{self, GrpcCall};
pub use super::http::{
    describe_reqwest_error, http_client, read_bounded, stream_client, ClientBuildError,
};
use super::http::{fresh_client, timeout_reason};
use super::jsonrpc::classify_jsonrpc;
use super::redact::Redactor;
use super::reply::Reply;
use super::reply::REPLAY_MISS_HEADER;
use super::rest;
use super::stream::StreamHandle;
use super::transcript::{Transcript, RUN_HEADER};
use crate::transcript::RecordKind;
use a2a_conform_protocol::text::{clip, human_duration};
use a2a_conform_protocol::{Binding, Operation, ProtocolVersion};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, CONTENT_TYPE};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod plain_get;
mod send;

use send::Sent;

pub use plain_get::{FetchError, Fetched};

/// Per-call settings beyond the operation and its parameters.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Send this `A2A-Version` header instead of the interface's own (to
    /// probe version negotiation).
    pub a2a_version: Option<String>,
    /// Which credentials the call carries (the configured ones, none, or
    /// a made-up token), to probe `security.enforced`.
    pub credentials: Credentials,
    /// Which extensions the call asks for.
    pub extensions: Extensions,
}

/// Which extensions a call asks for, in the version's extensions header
/// (`A2A-Extensions`; v0.3 `X-A2A-Extensions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Extensions {
    /// The configured ones ([`ClientConfig::extensions`]: the card's required
    /// extensions); no header when there are none.
    #[default]
    Configured,
    /// No extensions header at all, to probe a required extension.
    Without,
    /// Exactly these URIs (with the configured ones).
    Also(Vec<String>),
}

/// What opening a stream gave.
pub enum StreamOpen {
    /// An SSE stream, read in the background.
    Stream(StreamHandle),
    /// A plain answer instead of a stream (SDKs answer early errors as JSON).
    Answer(Reply),
}

/// Why a client for a peer could not be set up: a credential that is no
/// valid HTTP header, or an HTTP client reqwest would not build.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// A configured header's name is no HTTP header name.
    #[error("invalid header name `{0}`")]
    HeaderName(String),
    /// A configured header's value is no HTTP header value (it names the header).
    #[error("invalid value for header `{0}`")]
    HeaderValue(String),
    /// The bearer token holds characters a header cannot carry.
    #[error("the bearer token is not a valid header value")]
    Bearer,
    /// The HTTP client could not be built (a proxy, TLS options).
    #[error(transparent)]
    Http(#[from] ClientBuildError),
}

/// A client for one peer endpoint.
pub struct PeerClient {
    http: reqwest::Client,
    /// Streams: the same trust, identity and proxies as `http`, without its
    /// whole-request timeout; built on the first stream (many runs open none).
    stream_http: std::sync::OnceLock<reqwest::Client>,
    /// The interface URL calls go to (a gRPC target as `http(s)://host:port`).
    pub endpoint: url::Url,
    /// The version spoken: its methods, shapes and headers.
    pub version: ProtocolVersion,
    /// The binding spoken.
    pub binding: Binding,
    config: ClientConfig,
    headers: HeaderMap,
    /// Under `--same-origin-credentials`, the card's origin when the
    /// endpoint is on another one (and so gets no credentials).
    withheld_for: Option<String>,
}

impl PeerClient {
    /// A client for `endpoint`, speaking `version` over `binding` with
    /// `config`. Under `--same-origin-credentials` an endpoint off the
    /// card's origin gets no credentials at all. Fails only on settings
    /// that cannot go on the wire (a header that is no valid HTTP header)
    /// or an HTTP client that cannot be built.
    pub fn new(
        endpoint: url::Url,
        version: ProtocolVersion,
        binding: Binding,
        config: ClientConfig,
    ) -> Result<PeerClient, ClientError> {
        let withheld_for = config.withholds_from(&endpoint);
        let config = match withheld_for {
            Some(_) => config.without_credentials(),
            None => config,
        };
        let mut headers = HeaderMap::new();
        for (name, value) in &config.headers {
            let name = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| ClientError::HeaderName(name.clone()))?;
            let value = HeaderValue::from_str(value.trim())
                .map_err(|_| ClientError::HeaderValue(name.to_string()))?;
            headers.append(name, value);
        }
        if let Some((_, token)) = &config.bearer {
            let value = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| ClientError::Bearer)?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        if version == ProtocolVersion::V1_0 {
            headers.insert("A2A-Version", HeaderValue::from_static("1.0"));
        }
        let http = http_client(config.timeout, &config.tls)?;
        Ok(PeerClient {
            http,
            stream_http: std::sync::OnceLock::new(),
            endpoint,
            version,
            binding,
            config,
            headers,
            withheld_for,
        })
    }

    /// Whether this client sends credentials: a bearer token (`--bearer-env`)
    /// or a header not named public, and not withheld from the endpoint's origin.
    pub fn has_credentials(&self) -> bool {
        self.config.has_credentials()
    }

    /// Under `--same-origin-credentials`, the card's origin when this
    /// client's endpoint is on another one and so got no credentials.
    pub fn withheld_for(&self) -> Option<&str> {
        self.withheld_for.as_deref()
    }

    /// What a refusal of this client's credentials means, from the card's
    /// security schemes ([`ClientConfig::auth_hint`]).
    pub fn auth_hint(&self) -> Option<&str> {
        self.config.auth_hint.as_deref()
    }

    /// The bound on each request's wait for an answer (`--timeout`).
    pub fn timeout(&self) -> Duration {
        self.config.timeout
    }

    /// Calls an operation and waits (bounded) for its answer.
    pub async fn call(&self, transcript: &Transcript, op: Operation, params: Value) -> Reply {
        self.call_with(transcript, op, params, &CallOptions::default())
            .await
    }

    /// [`PeerClient::call`] with per-call [`CallOptions`]: another
    /// `A2A-Version`, other credentials.
    pub async fn call_with(
        &self,
        transcript: &Transcript,
        op: Operation,
        params: Value,
        options: &CallOptions,
    ) -> Reply {
        if self.binding == Binding::Grpc {
            return match self.grpc_call(transcript, options) {
                Ok(call) => grpc::unary(&call, transcript, op, params).await,
                Err(reply) => reply,
            };
        }
        let request = match self.prepare(transcript, op, params, false, options) {
            Ok(r) => r,
            Err(reply) => return reply,
        };
        let sent_at = self.record_request(transcript, &request);
        let response = match self.dispatch(transcript, op, request.builder, false).await {
            Sent::TimedOut => return self.no_answer(transcript, sent_at),
            // The client's own bound can fire first: a peer that accepted the
            // connection and never answered is no unreachable peer.
            Sent::Failed(e) if e.is_timeout() && !e.is_connect() => {
                return self.no_answer(transcript, sent_at)
            }
            Sent::Failed(e) => return unreachable_reply(transcript, &request.url, &e),
            Sent::Answer(r) => r,
        };
        if let Some(reply) = self.redirected(
            transcript,
            sent_at,
            (&request.method, &request.label),
            &response,
        ) {
            return reply;
        }
        if let Some(miss) = replay_miss(&response) {
            return not_recorded(transcript, miss, response, self.config.timeout).await;
        }
        let status = response.status();
        let content_type = content_type(response.headers());
        let challenge = challenge(response.headers());
        let body = match read_bounded(
            response,
            self.config.timeout,
            self.config.limits.max_body_bytes,
        )
        .await
        {
            Ok(b) => b,
            Err(error) => {
                transcript.record(
                    RecordKind::Response,
                    Instant::now(),
                    error.to_string(),
                    None,
                    None,
                );
                return error.into();
            }
        };
        self.record_response(transcript, sent_at, status.as_u16(), &content_type, &body);
        self.judge(
            transcript,
            request.rpc_id,
            status.as_u16(),
            &content_type,
            &body,
            challenge,
        )
    }

    /// Opens a streaming operation; the stream is read in the background.
    pub async fn open_stream(
        &self,
        transcript: &Arc<Transcript>,
        op: Operation,
        params: Value,
        options: &CallOptions,
    ) -> StreamOpen {
        if self.binding == Binding::Grpc {
            let opened = match self.grpc_call(transcript, options) {
                Ok(call) => grpc::open_stream(&call, transcript, self.version, op, params).await,
                Err(reply) => Err(reply),
            };
            return match opened {
                Ok(handle) => StreamOpen::Stream(handle),
                Err(reply) => StreamOpen::Answer(reply),
            };
        }
        let request = match self.prepare(transcript, op, params, true, options) {
            Ok(r) => r,
            Err(reply) => return StreamOpen::Answer(reply),
        };
        let sent_at = self.record_request(transcript, &request);
        // The client has a whole-request timeout; streams need none beyond
        // their own cut, so they go through a client without one.
        let response = match self.dispatch(transcript, op, request.builder, true).await {
            Sent::TimedOut => return StreamOpen::Answer(self.no_answer(transcript, sent_at)),
            Sent::Failed(e) => {
                return StreamOpen::Answer(unreachable_reply(transcript, &request.url, &e))
            }
            Sent::Answer(r) => r,
        };
        if let Some(reply) = self.redirected(
            transcript,
            sent_at,
            (&request.method, &request.label),
            &response,
        ) {
            return StreamOpen::Answer(reply);
        }
        if let Some(miss) = replay_miss(&response) {
            let reply = not_recorded(transcript, miss, response, self.config.timeout).await;
            return StreamOpen::Answer(reply);
        }
        let status = response.status();
        let content_type = content_type(response.headers());
        if status.is_success() && content_type.starts_with("text/event-stream") {
            transcript.record(
                RecordKind::Response,
                Instant::now(),
                format!(
                    "← HTTP {} {content_type} (stream opened after {})",
                    status.as_u16(),
                    human_duration(sent_at.elapsed())
                ),
                None,
                None,
            );
            let expect_id = request.rpc_id;
            let mut handle = StreamHandle::spawn(
                response,
                transcript.clone(),
                self.version,
                expect_id,
                self.config.max_stream,
                self.config.limits,
            );
            handle.sent_at = sent_at;
            return StreamOpen::Stream(handle);
        }
        let challenge = challenge(response.headers());
        let body = match read_bounded(
            response,
            self.config.timeout,
            self.config.limits.max_body_bytes,
        )
        .await
        {
            Ok(b) => b,
            Err(error) => return StreamOpen::Answer(error.into()),
        };
        self.record_response(transcript, sent_at, status.as_u16(), &content_type, &body);
        StreamOpen::Answer(self.judge(
            transcript,
            request.rpc_id,
            status.as_u16(),
            &content_type,
            &body,
            challenge,
        ))
    }

    /// Sends a prepared request within `--timeout`, once more on a fresh
    /// connection if the first try broke before any byte of the answer
    /// ([`send`]).
    async fn dispatch(
        &self,
        transcript: &Transcript,
        op: Operation,
        builder: reqwest::RequestBuilder,
        streaming: bool,
    ) -> Sent {
        let request = match builder.build() {
            Ok(request) => request,
            Err(error) => return Sent::Failed(error),
        };
        let client = if streaming {
            self.stream_client()
        } else {
            &self.http
        };
        let deadline = tokio::time::Instant::now() + self.config.timeout;
        let fresh = || fresh_client(self.config.timeout, &self.config.tls, streaming).ok();
        let resent = match op {
            Operation::SendMessage | Operation::SendStreamingMessage => {
                "; the message went again unchanged, with the same messageId, so a peer that \
                 did receive the first can tell the two apart"
            }
            _ => "",
        };
        send::send(client, fresh, request, deadline, (transcript, resent)).await
    }

    /// The peer's headers as the call's options shape them: credentials
    /// withheld or replaced, and an `A2A-Version` override. Also names the
    /// headers withheld, for the evidence.
    fn call_headers(&self, options: &CallOptions) -> Result<(HeaderMap, Vec<String>), Reply> {
        let mut headers = self.headers.clone();
        let mut withheld: Vec<String> = Vec::new();
        if options.credentials != Credentials::Configured {
            for name in self.config.credential_header_names() {
                if headers.remove(name.as_str()).is_some() {
                    withheld.push(name);
                }
            }
        }
        if options.credentials == Credentials::Invalid {
            let token = format!("Bearer a2a-conform-invalid-{}", uuid::Uuid::new_v4());
            let value = HeaderValue::from_str(&token)
                .map_err(|_| Reply::Broken("cannot build the made-up bearer token".into()))?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        let mut asked: Vec<&str> = match &options.extensions {
            Extensions::Without => Vec::new(),
            Extensions::Configured => self.config.extensions.iter().map(String::as_str).collect(),
            Extensions::Also(uris) => self
                .config
                .extensions
                .iter()
                .chain(uris)
                .map(String::as_str)
                .collect(),
        };
        let mut seen = std::collections::HashSet::new();
        asked.retain(|uri| seen.insert(*uri));
        if !asked.is_empty() {
            let list = asked.join(", ");
            let value = HeaderValue::from_str(&list).map_err(|_| {
                Reply::Broken(format!("`{list}` is not a valid extensions header value"))
            })?;
            headers.insert(extensions_header(self.version), value);
        }
        if let Some(version) = &options.a2a_version {
            let value = HeaderValue::from_str(version).map_err(|_| {
                Reply::Broken(format!(
                    "`{version}` is not a valid A2A-Version header value"
                ))
            })?;
            headers.insert("A2A-Version", value);
        }
        Ok((headers, withheld))
    }

    /// A gRPC call's setup: the same headers as metadata, shown in evidence
    /// as the curl line shows them.
    fn grpc_call(&self, transcript: &Transcript, options: &CallOptions) -> Result<GrpcCall, Reply> {
        let (mut metadata, withheld) = self.call_headers(options)?;
        let shown = metadata
            .iter()
            .map(|(name, value)| {
                let shown = self.shown_header(name, value, options.credentials);
                (name.as_str().to_string(), shown)
            })
            .collect();
        if let Some(run) = transcript.run() {
            // Sent, but not shown: the summary and the grpcurl line
            // reproduce the call, the run's name is only for a replay.
            metadata.insert(RUN_HEADER, run_header_value(run));
        }
        Ok(GrpcCall {
            endpoint: self.endpoint.clone(),
            metadata,
            shown,
            timeout: self.config.timeout,
            max_stream: self.config.max_stream,
            limits: self.config.limits,
            note: credentials_note(options.credentials, &withheld) + &self.origin_note(),
            tls: self.config.tls.clone(),
            version: self.version,
            loopback: from_loopback(&self.endpoint),
        })
    }

    /// Builds one call's request: its headers, and the binding's method, URL
    /// and body for the operation.
    fn prepare(
        &self,
        transcript: &Transcript,
        op: Operation,
        params: Value,
        streaming: bool,
        options: &CallOptions,
    ) -> Result<Prepared, Reply> {
        let (headers, withheld) = self.call_headers(options)?;
        let rpc_id = transcript.next_rpc_id();
        let (method, url, body, label) = match self.binding {
            Binding::Jsonrpc => {
                let Some(method) = self.version.method(op) else {
                    return Err(Reply::Broken(format!(
                        "{op:?} does not exist in A2A {}",
                        self.version
                    )));
                };
                let body =
                    json!({"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params});
                (
                    reqwest::Method::POST,
                    self.endpoint.clone(),
                    Some(body),
                    format!("{method} (JSON-RPC)"),
                )
            }
            Binding::Rest => {
                let route = rest::route(&self.endpoint, self.version, op, &params)
                    .map_err(|e| Reply::Broken(e.to_string()))?;
                (route.method, route.url, route.body, route.label)
            }
            Binding::Grpc => {
                return Err(Reply::Broken(
                    "gRPC calls do not go through HTTP requests".into(),
                ))
            }
        };
        let mut url = url;
        if options.credentials == Credentials::Configured && !self.config.query.is_empty() {
            // An API key the card puts in the query (redacted by value).
            let mut pairs = url.query_pairs_mut();
            for (name, value) in &self.config.query {
                pairs.append_pair(name, value);
            }
        }
        let mut builder = if streaming {
            self.stream_client().request(method.clone(), url.clone())
        } else {
            self.http.request(method.clone(), url.clone())
        };
        builder = builder.headers(headers.clone());
        if let Some(run) = transcript.run() {
            // Not in the curl line: it reproduces the request, the run's
            // name is only for a replay to find it by.
            builder = builder.header(RUN_HEADER, run_header_value(run));
        }
        builder = builder.header(
            reqwest::header::ACCEPT,
            if streaming {
                "text/event-stream"
            } else {
                "application/json"
            },
        );
        let body_text = body.as_ref().map(|b| b.to_string());
        if let Some(text) = &body_text {
            builder = builder
                .header(CONTENT_TYPE, self.body_content_type())
                .body(text.clone());
        }
        Ok(Prepared {
            builder,
            headers,
            method,
            url,
            body: body_text,
            label,
            rpc_id: (self.binding == Binding::Jsonrpc).then_some(rpc_id),
            streaming,
            credentials: options.credentials,
            withheld,
        })
    }

    /// The media type of request bodies: JSON-RPC and the v0.3 REST binding
    /// are `application/json`; the v1.0 REST binding uses
    /// `application/a2a+json` (v1 §11).
    fn body_content_type(&self) -> &'static str {
        match self.binding {
            Binding::Jsonrpc => "application/json",
            Binding::Rest if self.version == ProtocolVersion::V0_3 => "application/json",
            Binding::Rest => "application/a2a+json",
            Binding::Grpc => "application/grpc",
        }
    }

    fn stream_client(&self) -> &reqwest::Client {
        self.stream_http.get_or_init(|| {
            // The same options already built `http`, so this cannot fail in
            // practice; if it did, `http` still carries the trust settings.
            stream_client(self.config.timeout, &self.config.tls)
                .unwrap_or_else(|_| self.http.clone())
        })
    }

    /// What the evidence says when `--same-origin-credentials` withheld the
    /// credentials from this endpoint.
    fn origin_note(&self) -> String {
        match &self.withheld_for {
            Some(card_origin) => format!(
                " [credentials withheld: {} is not the card's origin {card_origin} (--same-origin-credentials)]",
                self.endpoint.origin().ascii_serialization()
            ),
            None => String::new(),
        }
    }

    fn record_request(&self, transcript: &Transcript, request: &Prepared) -> Instant {
        let at = Instant::now();
        transcript.record(
            RecordKind::Request,
            at,
            format!(
                "→ {} {} {}{}{}",
                request.method,
                request.url,
                request.label,
                request.credentials_note(),
                self.origin_note()
            ),
            request.body.clone(),
            Some(self.curl_line(request)),
        );
        at
    }

    fn record_response(
        &self,
        transcript: &Transcript,
        sent_at: Instant,
        status: u16,
        content_type: &str,
        body: &[u8],
    ) {
        transcript.record(
            RecordKind::Response,
            Instant::now(),
            format!(
                "← HTTP {status} {content_type} ({} bytes in {})",
                body.len(),
                human_duration(sent_at.elapsed())
            ),
            Some(String::from_utf8_lossy(body).into_owned()),
            None,
        );
    }

    /// A redirect answering a call is never followed — the body would be
    /// resent, credentials with it, wherever the peer points — it is what
    /// the peer answered: a broken answer, its `Location` in the evidence.
    fn redirected(
        &self,
        transcript: &Transcript,
        sent_at: Instant,
        (method, label): (&reqwest::Method, &str),
        response: &reqwest::Response,
    ) -> Option<Reply> {
        let status = response.status();
        if !status.is_redirection() {
            return None;
        }
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let target = match &location {
            Some(l) => format!("to {}", clip(l, 300)),
            None => "with no Location header".to_string(),
        };
        transcript.record(
            RecordKind::Response,
            Instant::now(),
            format!(
                "← HTTP {} {target} (after {}; not followed)",
                status.as_u16(),
                human_duration(sent_at.elapsed())
            ),
            location.map(|l| format!("Location: {l}")),
            None,
        );
        Some(Reply::Broken(format!(
            "the peer answered the {} {} with a redirect (HTTP {}) {target}: a2a-conform never follows a redirect of a call, so the request and its credentials stay where they were sent",
            method,
            label,
            status.as_u16()
        )))
    }

    /// `--timeout` ran out before an answer: the tool's own cap (a correct
    /// peer's blocking send may work longer), never a malfunction.
    fn no_answer(&self, transcript: &Transcript, sent_at: Instant) -> Reply {
        let reason = timeout_reason(self.config.timeout);
        transcript.record(
            RecordKind::Response,
            sent_at + self.config.timeout,
            reason.clone(),
            None,
            None,
        );
        Reply::Capped(reason)
    }

    /// [`Self::classify`], with the secrets the body or challenge reflects
    /// masked in the reason of a broken or refused answer: reasons quote the
    /// body clipped, and a clip must never cut a secret in half (the
    /// redactor could not find the half).
    fn judge(
        &self,
        transcript: &Transcript,
        rpc_id: Option<u64>,
        status: u16,
        content_type: &str,
        body: &[u8],
        challenge: Option<String>,
    ) -> Reply {
        match self.classify(rpc_id, status, content_type, body, challenge.clone()) {
            reply @ (Reply::Ok(_) | Reply::Err(_)) => reply,
            _ => {
                let shown = transcript.redact(&String::from_utf8_lossy(body));
                let challenge = challenge.map(|c| transcript.redact(&c));
                self.classify(rpc_id, status, content_type, shown.as_bytes(), challenge)
            }
        }
    }

    /// Judges an answer's shape: HTTP 401/403 is a refusal whatever the body;
    /// otherwise the JSON-RPC envelope and id, or the REST status and body.
    fn classify(
        &self,
        rpc_id: Option<u64>,
        status: u16,
        content_type: &str,
        body: &[u8],
        challenge: Option<String>,
    ) -> Reply {
        if status == 401 || status == 403 {
            let text = String::from_utf8_lossy(body);
            let mut detail = match challenge {
                Some(c) => format!("WWW-Authenticate: {c}"),
                None => "no WWW-Authenticate header".to_string(),
            };
            if !text.trim().is_empty() {
                detail.push_str(&format!("; body: {}", clip(text.trim(), 120)));
            }
            return Reply::Refused { status, detail };
        }
        let reply = match self.binding {
            Binding::Jsonrpc => classify_jsonrpc(rpc_id, body),
            Binding::Rest | Binding::Grpc => rest::classify(status, body),
        };
        // A broken answer opens with what it was on the wire: the runner
        // reports `peer malfunction: HTTP 500 text/html on SendMessage: …`.
        match reply {
            Reply::Broken(reason) if matches!(status, 404 | 405 | 501) => {
                Reply::NotServed(format!("HTTP {status} {content_type}: {reason}"))
            }
            Reply::Broken(reason) => {
                Reply::Broken(format!("HTTP {status} {content_type}: {reason}"))
            }
            other => other,
        }
    }

    /// A curl command reproducing the request; secrets stay in the environment.
    fn curl_line(&self, request: &Prepared) -> String {
        let mut line = format!("curl -sS -X {} '{}'", request.method, request.url);
        if request.streaming {
            line.push_str(" -N -H 'Accept: text/event-stream'");
        }
        for (name, value) in &request.headers {
            let shown = self.shown_header(name, value, request.credentials);
            let header = format!("{}: {shown}", name.as_str());
            if shown.contains('$') {
                line.push_str(&format!(" -H \"{header}\""));
            } else {
                line.push_str(&format!(" -H '{header}'"));
            }
        }
        if let Some(body) = &request.body {
            line.push_str(&format!(" -H 'Content-Type: {}'", self.body_content_type()));
            line.push_str(&format!(" -d '{}'", body.replace('\'', "'\\''")));
        }
        line
    }
}

impl PeerClient {
    /// A header's value as reproductions show it: secrets as their
    /// environment variable or masked.
    fn shown_header(
        &self,
        name: &HeaderName,
        value: &HeaderValue,
        credentials: Credentials,
    ) -> String {
        let authorization = name == reqwest::header::AUTHORIZATION;
        if authorization && credentials == Credentials::Invalid {
            // The made-up token is no secret: show it, so the line reproduces.
            value.to_str().unwrap_or("?").to_string()
        } else if self.config.is_credential_header(name.as_str()) {
            match (&self.config.bearer, authorization) {
                (Some((var, _)), true) => format!("Bearer ${var}"),
                _ => self
                    .config
                    .shown_as(name.as_str())
                    .unwrap_or(Redactor::MASK)
                    .to_string(),
            }
        } else {
            value.to_str().unwrap_or("?").to_string()
        }
    }
}

struct Prepared {
    builder: reqwest::RequestBuilder,
    /// The headers sent (the client's, with any per-call override).
    headers: HeaderMap,
    method: reqwest::Method,
    url: url::Url,
    body: Option<String>,
    label: String,
    rpc_id: Option<u64>,
    streaming: bool,
    credentials: Credentials,
    /// Names of the configured credential headers left out of this request.
    withheld: Vec<String>,
}

impl Prepared {
    /// What the evidence says about the credentials sent: names, never values.
    fn credentials_note(&self) -> String {
        credentials_note(self.credentials, &self.withheld)
    }
}

/// What the evidence says about the credentials sent: names, never values.
fn credentials_note(credentials: Credentials, withheld: &[String]) -> String {
    let withheld = if withheld.is_empty() {
        "none were configured".to_string()
    } else {
        format!("withheld: {}", withheld.join(", "))
    };
    match credentials {
        Credentials::Configured => String::new(),
        Credentials::None => format!(" [credentials: none; {withheld}]"),
        Credentials::Invalid => {
            format!(" [credentials: invalid, a made-up bearer token; {withheld}]")
        }
    }
}

/// The version's extensions header (v1 §3.6: renamed in 1.0).
pub(crate) fn extensions_header(version: ProtocolVersion) -> &'static str {
    match version {
        ProtocolVersion::V1_0 => "A2A-Extensions",
        ProtocolVersion::V0_3 => "X-A2A-Extensions",
    }
}

/// A run id as a header value: visible ASCII as is, the rest
/// percent-encoded (a skill id may hold any character).
fn run_header_value(run: &str) -> HeaderValue {
    let mut text = String::with_capacity(run.len());
    for byte in run.bytes() {
        if (0x21..0x7f).contains(&byte) && byte != b'%' {
            text.push(byte as char);
        } else {
            text.push_str(&format!("%{byte:02X}"));
        }
    }
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("?"))
}

/// Whether a replay marked this answer as a request it does not hold
/// (`Some(true)`: the run reads unverified). Only a loopback answer can be
/// a replay's (`a2a-conform replay` binds 127.0.0.1): a remote peer sending
/// the header would otherwise turn its own divergences into misses.
fn replay_miss(response: &reqwest::Response) -> Option<bool> {
    if !from_loopback(response.url()) {
        return None;
    }
    let value = response.headers().get(REPLAY_MISS_HEADER)?;
    Some(value.as_bytes() == b"unverified")
}

/// Whether `url` names this machine's loopback interface.
fn from_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// A replay's miss: its reason (the body, bounded) recorded and returned.
async fn not_recorded(
    transcript: &Transcript,
    unverified: bool,
    response: reqwest::Response,
    timeout: Duration,
) -> Reply {
    let body = read_bounded(response, timeout, 64 * 1024)
        .await
        .unwrap_or_default();
    // A JSON-RPC miss is an error answer; its message is the reason.
    let text = String::from_utf8_lossy(&body);
    let reason = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| text.trim().to_string());
    transcript.replay_miss(&reason);
    Reply::NotRecorded { reason, unverified }
}

/// The `WWW-Authenticate` challenge of a refusal, if any.
fn challenge(headers: &HeaderMap) -> Option<String> {
    let values: Vec<&str> = headers
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("(no content-type)")
        .to_string()
}

fn unreachable_reply(transcript: &Transcript, url: &url::Url, error: &reqwest::Error) -> Reply {
    // The peer accepted the connection, then dropped or reset it before
    // answering: it is there, but gave no A2A answer (a malfunction).
    if !error.is_connect() && !error.is_redirect() && !error.is_builder() {
        let reason = format!(
            "the connection broke before an answer: {}",
            describe_reqwest_error(error)
        );
        transcript.record(
            RecordKind::Response,
            Instant::now(),
            reason.clone(),
            None,
            None,
        );
        return Reply::Broken(reason);
    }
    let reason = format!("could not reach {url}: {}", describe_reqwest_error(error));
    transcript.record(RecordKind::Note, Instant::now(), reason.clone(), None, None);
    Reply::Unreachable(reason)
}

#[cfg(test)]
mod tests;
