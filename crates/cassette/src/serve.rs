//! Serving a cassette as a peer on loopback (`a2a-conform replay`): the
//! recorded card, rewritten to the replay's own address, and every
//! recorded answer to the request it was recorded for.
//!
//! A request is matched to a recorded step by its run (the
//! `x-a2a-conform-run` header a2a-conform sends with every call), its
//! operation (the JSON-RPC method, or the HTTP method and path) and its
//! order among that run's requests of that operation; then its body must
//! be the recorded one, but for the values the tool makes afresh each
//! check (the JSON-RPC `id`, a `messageId`, the webhook URL) and values
//! the recording masked. Those fresh values are put back into the answer
//! in place of the recorded ones. A stream's events come at their
//! recorded offsets from the request, scaled by the pace.
//!
//! A request that registers the check's webhook receiver (a push config)
//! starts the recorded run's webhook deliveries to the URL it names
//! (module `deliver`: loopback only).
//!
//! gRPC calls come to the same port (HTTP/2 cleartext) and are matched
//! the same way, their messages read as ProtoJSON (module `grpc`).
//!
//! A request the cassette does not hold is answered with a miss (the
//! `x-a2a-conform-replay-miss` header, HTTP 501, a JSON-RPC error for a
//! JSON-RPC request, UNIMPLEMENTED for a gRPC call) whose message names
//! the run and the step: a check reads it as the recording's gap, never
//! as the peer's answer. A card request without a run header starts a new
//! check: the recording is served from its start again.

use crate::deliver;
use crate::grpc;
use crate::matching::{
    compare, is_read, operation_key, percent_decode, recorded_target, rewrite_card, with_id, Gap,
    GRPC,
};
use crate::model::{Cassette, Entry, RunLine};
pub use crate::recorded::Pace;
use crate::recorded::{clipped, swapped, WEBHOOK_PATH};
use crate::sse;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Request, StatusCode};
use axum::response::Response;
use axum::Router;
use serde_json::Value;
use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// The header a2a-conform names each call's run in (the client's `RUN_HEADER`).
pub const RUN_HEADER: &str = "x-a2a-conform-run";

/// The header a miss is marked with (the client's `REPLAY_MISS_HEADER`):
/// `error` or `unverified`, how the run should read.
pub const MISS_HEADER: &str = "x-a2a-conform-replay-miss";

/// The JSON-RPC error code of a miss: in the range JSON-RPC leaves to
/// servers, and no code A2A defines.
pub const MISS_CODE: i64 = -32099;

/// The most bytes of a request body the replay reads.
const MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// Fresh values to put in place of recorded ones (recorded, now).
type Swaps = Vec<(String, String)>;

/// How a check should read a request the cassette does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// The run is an error (`check` against `replay`).
    Error,
    /// The run is unverified, "not in the recording" (`rejudge`).
    Unverified,
}

/// How to serve a cassette.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions {
    /// The port on 127.0.0.1 (0: a free one).
    pub port: u16,
    /// Which recorded peer (its index) to serve.
    pub peer: usize,
    /// How fast recorded offsets pass.
    pub pace: Pace,
    /// How a check should read a miss.
    pub miss: Miss,
}

/// Why a cassette cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The process could not be confined to the replay's origin (`rejudge`
    /// is offline by construction, or does not run).
    #[error("cannot confine the check to the replay's own origin: it would not be offline")]
    Confine,
    /// The cassette records no such peer.
    #[error("the cassette records no peer {0}")]
    NoPeer(usize),
    /// The peer's card is not in the cassette (its card could not be read,
    /// or a build before replay recorded it).
    #[error("the cassette holds no card for peer {peer}: {why}")]
    NoCard {
        /// The peer's index.
        peer: usize,
        /// Why not.
        why: String,
    },
    /// The loopback port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Listen {
        /// The port asked for.
        port: u16,
        /// What failed.
        source: std::io::Error,
    },
}

/// A cassette served on loopback. Dropping it stops the server.
pub struct ReplayServer {
    addr: SocketAddr,
    card_path: String,
    state: Arc<State>,
    shutdown: watch::Sender<bool>,
    server: Option<tokio::task::JoinHandle<()>>,
}

/// One recorded step, ready to match.
struct Recorded {
    run: String,
    step: u32,
    key: String,
    request: Option<Value>,
    request_at: u64,
    response: Option<Entry>,
    events: Vec<Entry>,
    end: Option<Entry>,
    /// The run's webhook deliveries this request started (it registered
    /// the receiver they reached).
    deliveries: Vec<Entry>,
}

struct State {
    card_path: String,
    card: String,
    /// The extended card recorded whole, for its clipped answers.
    extended_card: Option<String>,
    runs: HashMap<String, Vec<Recorded>>,
    /// How many requests of each (run, operation) were answered.
    taken: Mutex<HashMap<(String, String), usize>>,
    /// Every miss answered, for the command's summary.
    misses: Mutex<Vec<String>>,
    /// Each run's fresh values so far (recorded, now): a delivery's body
    /// may carry any of them (a v0.3 Task's history holds the messages).
    fresh: Mutex<HashMap<String, Swaps>>,
    /// What webhook deliveries are POSTed with.
    webhook_client: Result<reqwest::Client, deliver::Undeliverable>,
    /// Turns true when the replay stops: deliveries under way end.
    stopped: watch::Receiver<bool>,
    pace: Pace,
    miss: Miss,
}

impl ReplayServer {
    /// Serves `cassette`'s peer `options.peer` on 127.0.0.1, on the
    /// current tokio runtime.
    pub async fn start(
        cassette: &Cassette,
        options: ReplayOptions,
    ) -> Result<ReplayServer, ReplayError> {
        let peer = cassette
            .peers
            .iter()
            .find(|p| p.peer == options.peer)
            .ok_or(ReplayError::NoPeer(options.peer))?;
        let Some(card) = peer.card.clone() else {
            let why = peer
                .card_error
                .clone()
                .unwrap_or_else(|| "the recording predates card recording; record it again".into());
            return Err(ReplayError::NoCard {
                peer: options.peer,
                why,
            });
        };
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, options.port))
            .await
            .map_err(|source| ReplayError::Listen {
                port: options.port,
                source,
            })?;
        let addr = listener
            .local_addr()
            .map_err(|source| ReplayError::Listen {
                port: options.port,
                source,
            })?;
        let card_path = url::Url::parse(&peer.card_url)
            .map(|u| u.path().to_string())
            .unwrap_or_else(|_| "/.well-known/agent-card.json".into());
        let card = rewrite_card(&card, &peer.card_url, peer.endpoint.as_deref(), addr);
        let runs = recorded_steps(cassette.runs.iter().filter(|r| r.peer == options.peer));
        let (shutdown, mut signal) = watch::channel(false);
        let state = Arc::new(State {
            card_path: card_path.clone(),
            card,
            extended_card: peer.extended_card.clone(),
            runs,
            taken: Mutex::new(HashMap::new()),
            misses: Mutex::new(Vec::new()),
            fresh: Mutex::new(HashMap::new()),
            webhook_client: deliver::client(),
            stopped: signal.clone(),
            pace: options.pace,
            miss: options.miss,
        });
        let app = Router::new().fallback(answer).with_state(state.clone());
        let server = tokio::spawn(async move {
            let graceful = async move {
                let _ = signal.wait_for(|down| *down).await;
            };
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(graceful)
                .await;
        });
        Ok(ReplayServer {
            addr,
            card_path,
            state,
            shutdown,
            server: Some(server),
        })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The card URL to check: the recorded card's path on the replay.
    pub fn card_url(&self) -> String {
        format!("{}{}", self.base_url(), self.card_path)
    }

    /// The misses answered so far, each naming its run and step.
    pub fn misses(&self) -> Vec<String> {
        self.state
            .misses
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }

    /// Stops serving: open streams end.
    pub async fn shutdown(mut self) {
        let _ = self.shutdown.send(true);
        if let Some(server) = self.server.take() {
            // Open streams may hold the graceful shutdown: bounded.
            let _ = tokio::time::timeout(Duration::from_secs(2), server).await;
        }
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}

fn recorded_steps<'a>(runs: impl Iterator<Item = &'a RunLine>) -> HashMap<String, Vec<Recorded>> {
    let mut out: HashMap<String, Vec<Recorded>> = HashMap::new();
    for run in runs {
        let mut steps: Vec<Recorded> = run
            .steps
            .iter()
            .map(|step| {
                let request: Option<Value> = step
                    .request
                    .body
                    .as_deref()
                    .and_then(|b| serde_json::from_str(b).ok());
                let (method, path) = recorded_target(&step.request.summary);
                Recorded {
                    run: run.run.clone(),
                    step: step.step,
                    key: operation_key(&method, &path, request.as_ref()),
                    request,
                    request_at: step.request.at_ms,
                    response: step.response.clone(),
                    events: step.events.clone(),
                    end: step.end.clone(),
                    deliveries: Vec::new(),
                }
            })
            .collect();
        file_deliveries(run, &mut steps);
        out.entry(run.run.clone()).or_default().extend(steps);
    }
    out
}

/// Files each delivery the run's receiver kept under the request that
/// registered the receiver before it came (the latest such; the first one
/// if it came before any: the recorded clocks are the run's).
fn file_deliveries(run: &RunLine, steps: &mut [Recorded]) {
    let registering: Vec<usize> = run
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.request
                .body
                .as_deref()
                .is_some_and(|b| b.contains(WEBHOOK_PATH))
        })
        .map(|(i, _)| i)
        .collect();
    for entry in run.deliveries.iter().filter(|e| deliver::is_delivery(e)) {
        let by = registering
            .iter()
            .rev()
            .find(|&&i| steps[i].request_at <= entry.at_ms)
            .or(registering.first());
        if let Some(&i) = by {
            steps[i].deliveries.push(entry.clone());
        }
    }
}

async fn answer(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    request: Request<Body>,
) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_string();
    let run = parts
        .headers
        .get(RUN_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(percent_decode);
    if parts.method == Method::GET
        && (path == state.card_path || path == "/.well-known/agent-card.json")
    {
        if run.is_none() {
            // A check reads the card once, before its first run: another
            // check starts, and its requests count from the first again.
            new_check(&state);
        }
        return json_response(StatusCode::OK, "application/json", state.card.clone());
    }
    if grpc::is_grpc(&parts.headers) {
        return answer_grpc(&state, &path, run.as_deref(), body).await;
    }
    let bytes = axum::body::to_bytes(body, MAX_REQUEST_BYTES)
        .await
        .unwrap_or_default();
    let incoming: Option<Value> = serde_json::from_slice(&bytes).ok();
    let key = operation_key(parts.method.as_str(), &path, incoming.as_ref());
    let found = find(&state, run.as_deref(), &key, incoming.as_ref()).and_then(|(step, swaps)| {
        start_deliveries(&state, step, incoming.as_ref(), &swaps)?;
        Ok((step, swaps))
    });
    match found {
        Ok((step, swaps)) => serve(&state, step, incoming.as_ref(), swaps).await,
        Err(Gap(reason)) => miss(&state, reason, incoming.as_ref()),
    }
}

/// Forgets the requests answered and the fresh values kept: the next
/// check against this replay is served the recording from its start.
fn new_check(state: &State) {
    state
        .taken
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    state
        .fresh
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
}

/// A gRPC call: its message read as ProtoJSON, matched as a JSON body
/// is, answered as recorded (module `grpc`).
async fn answer_grpc(state: &State, path: &str, run: Option<&str>, body: Body) -> Response {
    let key = operation_key(GRPC, path, None);
    let incoming = match grpc::read_request(path, body).await {
        Ok(incoming) => incoming,
        Err(e) => return grpc_miss(state, format!("{key}: {e}")),
    };
    let found = find(state, run, &key, Some(&incoming)).and_then(|(step, swaps)| {
        start_deliveries(state, step, Some(&incoming), &swaps)?;
        Ok((step, swaps))
    });
    let (step, swaps) = match found {
        Ok(found) => found,
        Err(Gap(reason)) => return grpc_miss(state, reason),
    };
    let gap = |why: String| format!("run `{}`, step {}: {why}", step.run, step.step);
    let Some(response) = &step.response else {
        return grpc_miss(state, gap("the recording holds no answer to it".into()));
    };
    let Some(kind) = grpc::answer_kind(response) else {
        // No answer, or a broken connection: as over HTTP.
        return serve(state, step, Some(&incoming), swaps).await;
    };
    let latency = response.at_ms.saturating_sub(step.request_at);
    tokio::time::sleep(state.pace.delay(latency)).await;
    let answered = match kind {
        grpc::Answer::Stream => grpc::stream(
            path,
            response.at_ms,
            &step.events,
            step.end.as_ref(),
            &swaps,
            state.pace,
        ),
        _ => grpc::unary(path, response, &swaps),
    };
    answered.unwrap_or_else(|why| grpc_miss(state, gap(why.to_string())))
}

/// A gRPC miss: kept for the summary, answered UNIMPLEMENTED with the mark.
fn grpc_miss(state: &State, reason: String) -> Response {
    let mark = note_miss(state, &reason);
    let message = format!("a2a-conform replay: not in the recording: {reason}");
    grpc::miss(MISS_HEADER, mark, &message)
}

/// Keeps a miss for the command's summary; how the check should read it.
fn note_miss(state: &State, reason: &str) -> &'static str {
    if let Ok(mut misses) = state.misses.lock() {
        misses.push(reason.to_string());
    }
    match state.miss {
        Miss::Error => "error",
        Miss::Unverified => "unverified",
    }
}

/// Keeps the request's fresh values with its run's, and starts the
/// webhook deliveries the request registered the receiver for; a
/// delivery that cannot be made (clipped, or to a URL off loopback) makes
/// the request a miss.
fn start_deliveries(
    state: &State,
    step: &Recorded,
    incoming: Option<&Value>,
    swaps: &Swaps,
) -> Result<(), Gap> {
    let fresh = {
        let mut fresh = state.fresh.lock().unwrap_or_else(|p| p.into_inner());
        let known = fresh.entry(step.run.clone()).or_default();
        for swap in swaps {
            if !known.contains(swap) {
                known.push(swap.clone());
            }
        }
        known.clone()
    };
    let gap = |why: String| Gap(format!("run `{}`, step {}: {why}", step.run, step.step));
    let Some(deliveries) = deliver::plan(&step.deliveries, step.request_at, incoming, &fresh)
        .map_err(|e| gap(e.to_string()))?
    else {
        return Ok(());
    };
    let client = state
        .webhook_client
        .clone()
        .map_err(|e| gap(e.to_string()))?;
    deliver::start(deliveries, client, state.pace, state.stopped.clone());
    Ok(())
}

/// The recorded step this request replays, with the fresh values to put
/// in place of the recorded ones; else the miss's reason.
fn find<'a>(
    state: &'a State,
    run: Option<&str>,
    key: &str,
    incoming: Option<&Value>,
) -> Result<(&'a Recorded, Swaps), Gap> {
    let Some(run) = run else {
        return Err(Gap(format!(
            "{key}: the request names no run (no {RUN_HEADER} header); a replay answers \
             a2a-conform's own requests"
        )));
    };
    let Some(steps) = state.runs.get(run) else {
        return Err(Gap(format!("run `{run}` is not in the recording ({key})")));
    };
    let nth = {
        let mut taken = state.taken.lock().unwrap_or_else(|p| p.into_inner());
        let count = taken.entry((run.to_string(), key.to_string())).or_insert(0);
        *count += 1;
        *count
    };
    let same = steps.iter().filter(|s| s.key == key);
    // A poll reads as often as timing lets it: a read past the recorded
    // ones gets the last recorded answer again (the state it settled in).
    let step = same.clone().nth(nth - 1).or_else(|| match is_read(key) {
        true => same.clone().next_back(),
        false => None,
    });
    let Some(step) = step else {
        return Err(Gap(format!(
            "run `{run}`: {key} request {nth} is not in the recording (it holds {} such)",
            same.count()
        )));
    };
    let mut swaps = Vec::new();
    if let (Some(recorded), Some(now)) = (&step.request, incoming) {
        compare(recorded, now, "$", &mut swaps).map_err(|Gap(diff)| {
            Gap(format!(
                "run `{run}`, step {}: the {key} request differs from the recorded one: {diff}",
                step.step
            ))
        })?;
    }
    Ok((step, swaps))
}

fn json_response(status: StatusCode, content_type: &str, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    if let Ok(value) = HeaderValue::from_str(content_type) {
        response
            .headers_mut()
            .insert(axum::http::header::CONTENT_TYPE, value);
    }
    response
}

fn miss(state: &State, reason: String, incoming: Option<&Value>) -> Response {
    let mark = note_miss(state, &reason);
    let message = format!("a2a-conform replay: not in the recording: {reason}");
    let rpc_id = incoming
        .filter(|b| b.get("jsonrpc").is_some())
        .map(|b| b.get("id").cloned().unwrap_or(Value::Null));
    let mut response = match rpc_id {
        Some(id) => json_response(
            StatusCode::OK,
            "application/json",
            serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": MISS_CODE, "message": message},
            })
            .to_string(),
        ),
        None => json_response(StatusCode::NOT_IMPLEMENTED, "text/plain", message),
    };
    response
        .headers_mut()
        .insert(MISS_HEADER, HeaderValue::from_static(mark));
    response
}

/// What the recorded answer was on the wire.
enum Wire {
    /// `HTTP status content-type`, a body.
    Answer(u16, String),
    /// An event stream was opened.
    Stream,
    /// A redirect, not followed; its `Location`.
    Redirect(u16, Option<String>),
    /// No answer within the tool's timeout.
    Silent,
    /// The connection broke.
    Broke,
}

fn wire(entry: &Entry) -> Wire {
    let Some(rest) = entry.summary.strip_prefix("← HTTP ") else {
        return if entry.summary.contains("connection broke") {
            Wire::Broke
        } else {
            Wire::Silent
        };
    };
    let mut words = rest.split_whitespace();
    let status: u16 = words.next().and_then(|s| s.parse().ok()).unwrap_or(500);
    let content_type = words.next().unwrap_or_default().to_string();
    if (300..400).contains(&status) {
        let location = entry
            .body
            .as_deref()
            .and_then(|b| b.strip_prefix("Location: "))
            .map(str::to_string);
        return Wire::Redirect(status, location);
    }
    if content_type.starts_with("text/event-stream") && rest.contains("stream opened") {
        return Wire::Stream;
    }
    Wire::Answer(status, content_type)
}

async fn serve(
    state: &State,
    step: &Recorded,
    incoming: Option<&Value>,
    swaps: Vec<(String, String)>,
) -> Response {
    let Some(response) = &step.response else {
        return miss(
            state,
            format!(
                "run `{}`, step {}: the recording holds no answer to it",
                step.run, step.step
            ),
            incoming,
        );
    };
    let latency = response.at_ms.saturating_sub(step.request_at);
    tokio::time::sleep(state.pace.delay(latency)).await;
    match wire(response) {
        Wire::Silent => {
            // The recorded peer never answered: neither does the replay
            // (the client's own timeout ends the wait).
            tokio::time::sleep(Duration::from_secs(3600)).await;
            json_response(StatusCode::GATEWAY_TIMEOUT, "text/plain", String::new())
        }
        Wire::Broke => {
            let failed = futures_util::stream::once(async {
                Err::<bytes::Bytes, _>(std::io::Error::other("the recorded connection broke"))
            });
            Response::new(Body::from_stream(failed))
        }
        Wire::Redirect(status, location) => {
            let mut answer = json_response(
                StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND),
                "text/plain",
                String::new(),
            );
            if let Some(value) = location.and_then(|l| HeaderValue::from_str(&l).ok()) {
                answer
                    .headers_mut()
                    .insert(axum::http::header::LOCATION, value);
            }
            answer
        }
        Wire::Answer(status, content_type) => {
            let body = response.body.clone().unwrap_or_default();
            if clipped(&body) {
                if let Some(whole) = whole_extended_card(state, step, status, &body, incoming) {
                    return json_response(StatusCode::OK, "application/json", whole);
                }
                return miss(
                    state,
                    format!(
                        "run `{}`, step {}: the recording clipped this answer (a report's \
                         evidence cap), so it cannot be served whole",
                        step.run, step.step
                    ),
                    incoming,
                );
            }
            let body = with_id(swapped(&body, &swaps), incoming);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let content_type = if content_type.starts_with('(') {
                String::new()
            } else {
                content_type
            };
            json_response(status, &content_type, body)
        }
        Wire::Stream => {
            let opened = step.response.as_ref().map_or(step.request_at, |r| r.at_ms);
            let recorded = (step.events.as_slice(), step.end.as_ref());
            sse::stream(opened, recorded, incoming, &swaps, state.pace)
        }
    }
}

/// The whole extended card for a successful extended card answer the
/// recording clipped, from the peer line (the card a run was served with
/// the credentials given); `None` for any other answer.
fn whole_extended_card(
    state: &State,
    step: &Recorded,
    status: u16,
    clipped_body: &str,
    incoming: Option<&Value>,
) -> Option<String> {
    let card = state.extended_card.as_deref().filter(|_| status == 200)?;
    let key = step.key.as_str();
    let rest = key.starts_with("GET ")
        && (key.ends_with("/extendedAgentCard") || key.ends_with("/v1/card"));
    if rest {
        return Some(card.to_string());
    }
    let rpc = matches!(
        key,
        "GetExtendedAgentCard" | "agent/getAuthenticatedExtendedCard"
    );
    if !rpc || !clipped_body.contains("\"result\"") {
        return None;
    }
    let card: Value = serde_json::from_str(card).ok()?;
    let id = incoming
        .and_then(|b| b.get("id"))
        .cloned()
        .unwrap_or(Value::Null);
    Some(serde_json::json!({"jsonrpc": "2.0", "id": id, "result": card}).to_string())
}
