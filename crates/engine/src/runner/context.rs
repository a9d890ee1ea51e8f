//! The state of one scenario run and how a step ends it: [`RunContext`]
//! (captures, stream cursors, the webhook receiver), [`Stop`] and
//! [`StepResult`], and [`RunContext::answered`], the one mapping from a
//! reply to how a run stops. The step primitives (`crate::steps`) run on
//! it; the calls they share are in `calls` and `push`.

use super::capture::Capture;
use super::credentials::CredentialTally;
use super::run_vars::RunVars;
use super::webhook::WebhookReceiver;
use super::window::ProbeWindow;
use crate::scenario::template::{Element, Template};
use crate::scenario::values::Credentials as Choice;
use crate::scenario::vars::{self, Count, DurationValue, MAX_READS};
use a2a_conform_client::client::Credentials;
use a2a_conform_client::{PeerClient, Reply, Transcript};
use a2a_conform_protocol::declaration::{Capability, DeclarationId};
use a2a_conform_protocol::{Operation, ProtocolVersion, RpcError};
use a2a_conform_report::ErrorKind;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a run stopped before its last step passed. `Fail` is reserved for a
/// valid protocol answer that breaks the promise; an answer that is not a
/// valid A2A answer is an `Error(PeerMalfunction)`, and a cap of the tool's
/// own an `Error(ToolCap)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopKind {
    Fail,
    /// A fail of one kind: the peer refused with another error than the
    /// spec names (the report's `fail_kind: wrong-code`).
    WrongCode,
    Inconclusive,
    Error(ErrorKind),
}

#[derive(Debug, Clone)]
pub(crate) struct Stop {
    pub(crate) kind: StopKind,
    pub(crate) message: String,
}

impl Stop {
    pub(crate) fn fail(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::Fail,
            message: message.into(),
        }
    }
    /// A refusal with another error than the spec names for it.
    pub(crate) fn wrong_code(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::WrongCode,
            message: message.into(),
        }
    }
    pub(crate) fn inconclusive(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::Inconclusive,
            message: message.into(),
        }
    }
    /// Tool trouble: a suite or plan problem, never the peer's doing.
    pub(crate) fn error(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::Tool),
            message: message.into(),
        }
    }
    /// The peer answered `op`, but not with a valid A2A answer: the message
    /// reads `peer malfunction: HTTP 500 text/html on SendMessage: …`.
    pub(crate) fn malfunction(op: impl std::fmt::Debug, reason: &str) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::PeerMalfunction),
            message: malfunction_message(&format!("{op:?}"), reason),
        }
    }
    /// A malfunction not tied to one operation's answer (a stream's events).
    pub(crate) fn malfunction_in(message: impl std::fmt::Display) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::PeerMalfunction),
            message: format!("{MALFUNCTION}: {message}"),
        }
    }
    /// A stream's connection broke before the stream ended: a malfunction
    /// of kind `stream-reset`, whatever step was reading it.
    pub(crate) fn stream_reset(reason: &str) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::StreamReset),
            ..Stop::malfunction_in(format!("the stream did not end properly: {reason}"))
        }
    }
    /// One of the tool's caps was reached: `error`, never the peer's fault.
    pub(crate) fn cap(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::ToolCap),
            message: message.into(),
        }
    }
    pub(crate) fn unreachable(message: impl Into<String>) -> Stop {
        Stop {
            kind: StopKind::Error(ErrorKind::Unreachable),
            message: message.into(),
        }
    }
}

/// How every malfunction's message opens.
const MALFUNCTION: &str = "peer malfunction";

/// `peer malfunction: HTTP 500 text/html on SendMessage: the body is not
/// JSON …`: a reason that opens with the HTTP status line keeps it up front,
/// then the operation, then the detail.
fn malfunction_message(op: &str, reason: &str) -> String {
    match reason.split_once(": ") {
        Some((head, detail)) if head.starts_with("HTTP ") => {
            format!("{MALFUNCTION}: {head} on {op}: {detail}")
        }
        _ => format!("{MALFUNCTION} on {op}: {reason}"),
    }
}

/// A not-served malfunction's message as the failure of an interface that
/// does not speak A2A: `the interface does not speak A2A: HTTP 404 … on …`.
pub(crate) fn not_served_message(message: &str) -> String {
    match message.strip_prefix(MALFUNCTION) {
        Some(rest) => format!("the interface does not speak A2A{rest}"),
        None => message.to_string(),
    }
}

/// Why a run stopped at a variable nobody set.
pub(crate) fn not_set_message(name: &str) -> String {
    format!("variable `{name}` is not set: pass --var {name}=… or set it in a --profile")
}

/// A step passed, or stopped the run.
pub(crate) type StepResult = Result<(), Stop>;

/// A reply the step judges itself: a result, a protocol error, or a
/// refusal the step provoked by withholding or forging the credentials.
pub(crate) enum Answered {
    Result(Value),
    Error(RpcError),
    Refused { status: u16, detail: String },
}

/// The run's push state: its webhook receiver, once started, and the last
/// delivery an `expect_webhook` consumed.
#[derive(Default)]
pub(crate) struct PushState {
    pub(crate) receiver: Option<WebhookReceiver>,
    pub(crate) cursor: usize,
    /// Whether a token was set on a push config in this run.
    pub(crate) token_set: bool,
}

/// The state of one scenario run.
pub(crate) struct RunContext<'a> {
    pub(crate) client: &'a PeerClient,
    /// `for_each: interface_pairs`: the client of the interface `client`'s
    /// answers are compared with.
    pub(crate) reference: Option<&'a PeerClient>,
    pub(crate) transcript: Arc<Transcript>,
    /// Variables for this run: `None` is a variable that exists but is unset.
    pub(crate) vars: RunVars,
    pub(crate) captures: HashMap<String, Capture>,
    /// Per stream: the last event a step consumed.
    pub(crate) cursors: HashMap<String, usize>,
    /// The run's webhook receiver and what `expect_webhook` consumed.
    pub(crate) push: PushState,
    /// The card's probe window when `--max-probe-window` clamped it: a
    /// wait of that length that sees nothing is inconclusive, not a failure.
    pub(crate) clamped_window: Option<ProbeWindow>,
    /// `for_each: signatures`: the card as served, and the `--trusted-key` keys.
    pub(crate) signing: Option<Signing>,
    /// What steps compare the peer's answers with from its public card.
    pub(crate) card: Arc<CardFacts>,
    /// `--strict`: a broken SHOULD fails the run instead of leaving it inconclusive.
    pub(crate) strict: bool,
    /// The peer's count of answers to requests that carried the
    /// credentials given (`None` in runs of no peer's, e.g. tests).
    pub(crate) tally: Option<Arc<CredentialTally>>,
    /// Where the peer's extended card is kept whole when a run is served
    /// it with the credentials given (`None` in runs of no peer's).
    pub(crate) extended_card: Option<ServedCard>,
    /// What the run's message says besides its verdict when every step
    /// passes (a resume answered by a re-prompt), in the order noted.
    pub(crate) remarks: Vec<String>,
}

/// The peer's extended card as a run was served it (redacted by value),
/// shared by its runs: `check --record` records it whole.
pub(crate) type ServedCard = Arc<std::sync::Mutex<Option<String>>>;

/// What the public card says that steps compare answers with: its skill ids
/// (the extended card must list them all) and every output media type it
/// declares anywhere (lowercased).
#[derive(Debug, Clone, Default)]
pub(crate) struct CardFacts {
    pub(crate) skills: Vec<String>,
    pub(crate) output_types: Vec<String>,
    /// Whether the card declares streaming (the 1.1 draft's generation
    /// sequence is read off a stream when it does).
    pub(crate) streaming: bool,
    /// Whether the card declares push notifications (`compare_bindings`
    /// expects the push config operations refused when it does not).
    pub(crate) push_notifications: bool,
}

impl CardFacts {
    pub(crate) fn of(card: &a2a_conform_protocol::card::Card) -> CardFacts {
        CardFacts {
            skills: card.skills.iter().map(|s| s.id.clone()).collect(),
            output_types: card.declared_output_types(),
            streaming: card.is_declared(&DeclarationId::Capability(Capability::Streaming)),
            push_notifications: card
                .is_declared(&DeclarationId::Capability(Capability::PushNotifications)),
        }
    }
}

/// What `verify_signature` checks: the card as served and the keys given,
/// (a `jku` key set is fetched by the run's own client).
#[derive(Clone)]
pub(crate) struct Signing {
    pub(crate) card: Arc<a2a_conform_protocol::card::signature::ServedCard>,
    pub(crate) trusted: Arc<Vec<a2a_conform_protocol::card::signature::TrustedKey>>,
}

impl<'a> RunContext<'a> {
    pub(crate) fn new(client: &'a PeerClient, transcript: Arc<Transcript>, vars: RunVars) -> Self {
        RunContext {
            client,
            reference: None,
            transcript,
            vars,
            captures: HashMap::new(),
            cursors: HashMap::new(),
            push: PushState::default(),
            clamped_window: None,
            signing: None,
            card: Arc::default(),
            strict: false,
            tally: None,
            extended_card: None,
            remarks: Vec::new(),
        }
    }

    pub(crate) fn version(&self) -> ProtocolVersion {
        self.client.version
    }

    /// A template's text for this run; an unset variable makes the run
    /// inconclusive, naming it. A capture not (yet) made reads as empty.
    pub(crate) fn text(&self, template: &Template) -> Result<String, Stop> {
        let mut out = String::new();
        for element in template.elements() {
            match element {
                Element::Literal(text) => out.push_str(text),
                Element::Capture { name, field } => {
                    if let Some(capture) = self.captures.get(name) {
                        out.push_str(&capture.field(*field));
                    }
                }
                Element::Var(name) => match self.vars.get(name) {
                    Some(Some(value)) => out.push_str(value),
                    Some(None) => return Err(Stop::inconclusive(not_set_message(name))),
                    None => return Err(Stop::error(format!("variable `{name}` is unknown"))),
                },
            }
        }
        Ok(out)
    }

    /// A duration for this run: as loaded, or its template resolved and read.
    pub(crate) fn duration(&self, value: &DurationValue) -> Result<Duration, Stop> {
        match value {
            DurationValue::Literal(d) => Ok(*d),
            DurationValue::Template(t) => {
                vars::parse_duration(&self.text(t)?).map_err(|e| Stop::error(e.to_string()))
            }
        }
    }

    /// A count for this run: as loaded, or its template resolved and read.
    pub(crate) fn count(&self, value: &Count) -> Result<u32, Stop> {
        match value {
            Count::Literal(n) => Ok(*n),
            Count::Template(t) => Count::parse(&self.text(t)?).ok_or_else(|| {
                Stop::error(format!(
                    "`reads` must be a whole number from 1 to {MAX_READS}"
                ))
            }),
        }
    }

    pub(crate) fn capture(&self, name: &str) -> Result<&Capture, Stop> {
        self.captures
            .get(name)
            .ok_or_else(|| Stop::error(format!("no capture named `{name}`")))
    }

    /// An instant as an offset from the run's start, for messages.
    pub(crate) fn offset(&self, at: Instant) -> String {
        format!("+{:.2} s", self.transcript.offset(at).as_secs_f64())
    }

    /// The one mapping from a reply to what the step judges, or to how the
    /// run stops: a broken reply is a peer malfunction (an `error`, never a
    /// `fail`: it keeps no promise and breaks none), a reply cut at one of
    /// the tool's caps is a tool-cap error, an unreachable peer is an error,
    /// and a refusal of the configured credentials makes it inconclusive
    /// ([`Self::refused`]); a refusal of credentials the step chose
    /// (`credentials: none|invalid`) is the step's answer.
    pub(crate) fn answered(
        &self,
        op: Operation,
        reply: Reply,
        credentials: Credentials,
    ) -> Result<Answered, Stop> {
        self.count_credentials(&reply, credentials);
        match reply {
            Reply::Ok(result) => Ok(Answered::Result(result)),
            Reply::Err(error) => Ok(Answered::Error(error)),
            Reply::Refused { status, detail } if credentials != Credentials::Configured => {
                Ok(Answered::Refused { status, detail })
            }
            Reply::Refused { status, detail } => Err(self.refused(op, status, &detail)),
            Reply::Capped(reason) => Err(Stop::cap(format!("{op:?}: {reason}"))),
            Reply::Broken(reason) => Err(Stop::malfunction(op, &reason)),
            Reply::NotServed(reason) => Err(Stop {
                kind: StopKind::Error(ErrorKind::NotServed),
                ..Stop::malfunction(op, &reason)
            }),
            Reply::Unreachable(reason) => Err(Stop::unreachable(reason)),
            // A replay's gap is the recording's, never the peer's doing.
            Reply::NotRecorded {
                reason,
                unverified: true,
            } => Err(Stop::inconclusive(format!(
                "not in the recording: {reason}"
            ))),
            Reply::NotRecorded { reason, .. } => {
                Err(Stop::error(format!("replay miss on {op:?}: {reason}")))
            }
        }
    }

    /// Counts an answer to a request that carried the credentials given
    /// (not one the step sent without them or with forged ones, nor one
    /// on an endpoint they were withheld from): a 401/403 is a refusal; a
    /// result or a protocol error, an acceptance. Other replies (no answer,
    /// a broken one) say nothing of the credentials.
    fn count_credentials(&self, reply: &Reply, credentials: Credentials) {
        let carried = credentials == Credentials::Configured
            && self.client.has_credentials()
            && self.client.withheld_for().is_none();
        let Some(tally) = self.tally.as_ref().filter(|_| carried) else {
            return;
        };
        match reply {
            Reply::Ok(_) | Reply::Err(_) => tally.answered(false),
            Reply::Refused { .. } => tally.answered(true),
            _ => {}
        }
    }

    /// [`Self::answered`] for a call with the configured credentials, whose
    /// refusal always stops the run: the result, or the protocol error.
    pub(crate) fn answered_configured(
        &self,
        op: Operation,
        reply: Reply,
    ) -> Result<Result<Value, RpcError>, Stop> {
        match self.answered(op, reply, Credentials::Configured)? {
            Answered::Result(result) => Ok(Ok(result)),
            Answered::Error(error) => Ok(Err(error)),
            Answered::Refused { status, detail } => Err(self.refused(op, status, &detail)),
        }
    }

    /// A refusal (HTTP 401/403) of a request carrying the configured
    /// credentials: the run cannot reach what it checks, so it is
    /// inconclusive, saying which credentials to give.
    fn refused(&self, op: Operation, status: u16, detail: &str) -> Stop {
        let withheld;
        let hint = if let Some(origin) = self.client.withheld_for() {
            withheld = format!(
                "--same-origin-credentials kept the credentials to the card's origin {origin}, and this endpoint is on another"
            );
            withheld.as_str()
        } else if let (true, Some(hint)) = (self.client.has_credentials(), self.client.auth_hint())
        {
            hint
        } else if let Some(hint) = self.client.auth_hint() {
            withheld = format!("no credentials were given: {hint}");
            withheld.as_str()
        } else if self.client.has_credentials() {
            "the configured credentials were not accepted: check the token of --bearer-env and the --header values"
        } else {
            "no credentials were given: pass a token with --bearer-env VAR (or a header with --header)"
        };
        Stop::inconclusive(format!(
            "the peer refused {op:?} with HTTP {status} ({detail}); {hint}"
        ))
    }
}

/// `a or b or c`.
pub(crate) fn or_list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join(" or ")
}

/// The scenario's `credentials` choice, as the HTTP client takes it.
pub(crate) fn client_credentials(choice: Choice) -> Credentials {
    match choice {
        Choice::Configured => Credentials::Configured,
        Choice::None => Credentials::None,
        Choice::Invalid => Credentials::Invalid,
    }
}
