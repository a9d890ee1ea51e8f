//! The scenario language: what a suite file may say. Scenarios are data,
//! composed from step primitives the runner implements; every struct rejects
//! unknown keys so a typo is an error with a position, not a silent no-op.

//!
//! The leaves are typed as they load: states are [`TaskState`]s, event kinds
//! [`EventKind`]s, texts [`Template`]s, durations and counts checked values
//! or templates the run resolves.

pub use super::protocol_steps::{
    CallTaskStep, Counted, ExpectCountStep, ExpectListedStep, ListTasksStep, SendInTaskStep,
    TaskOp, VerifySignatureStep,
};
use super::template::Template;
use super::vars::{Count, DurationValue};
use a2a_conform_protocol::Event;
use a2a_conform_protocol::TaskState;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

/// One suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// Variables the suite introduces, with their defaults (`null`: unset).
    #[serde(default)]
    pub vars: BTreeMap<String, Option<String>>,
    pub scenarios: Vec<Spanned<ScenarioDef>>,
}

/// One scenario as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDef {
    /// Stable id; baselines, JUnit and `--scenario` key on it.
    pub id: Spanned<String>,
    pub title: String,
    #[serde(default)]
    pub description: Option<String>,
    /// Declaration ids the scenario verifies (may use `${declaration}` under `for_each`).
    pub verifies: Vec<Spanned<String>>,
    /// Run only if the card declares this (`capabilities.streaming`), or only if
    /// it does not (`!capabilities.streaming`).
    #[serde(default)]
    pub when: Option<Spanned<String>>,
    /// Expand into one run per item.
    #[serde(default)]
    pub for_each: Option<ForEach>,
    pub steps: Vec<Spanned<Step>>,
}

/// What a scenario can be expanded over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForEach {
    /// Every declared input mode: card defaults, then each skill's own modes.
    /// Sets `${mode}`, `${declaration}` and `${skill}` (empty for defaults).
    InputModes,
    /// Every declared interface the tool can speak; the run's calls go to that
    /// interface's URL, binding and version. Sets `${declaration}`
    /// (`interfaces[JSONRPC 1.0]`), `${binding}`, `${interface_version}`, `${url}`.
    Interfaces,
    /// Every entry of the card's `signatures`. Sets `${declaration}`
    /// (`signatures[<kid>]`), `${signature}` (its 1-based position) and `${kid}`.
    Signatures,
    /// Every declared output mode: card defaults, then each skill's own modes.
    /// Sets `${mode}`, `${declaration}` and `${skill}` (empty for defaults).
    OutputModes,
    /// Every declared extension. Sets `${uri}` and `${declaration}`
    /// (`capabilities.extensions[<uri>]`).
    Extensions,
    /// Every extension the card marks `required: true`; sets the same.
    RequiredExtensions,
}

impl std::fmt::Display for ForEach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForEach::InputModes => "for each declared input mode",
            ForEach::Interfaces => "for each declared interface",
            ForEach::Signatures => "for each card signature",
            ForEach::OutputModes => "for each declared output mode",
            ForEach::Extensions => "for each declared extension",
            ForEach::RequiredExtensions => "for each required extension",
        })
    }
}

/// A step primitive.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// Send a message and wait for the answer (blocking unless told otherwise).
    Send(SendStep),
    /// Send a message on a stream; the stream is read in the background.
    Stream(SendStep),
    /// A follow-up message on a captured task, with a part of a media type.
    Resume(ResumeStep),
    /// Cancel a captured task.
    Cancel(TaskStep),
    /// Read a captured task once.
    Get(TaskStep),
    /// Subscribe to a captured task's events.
    Subscribe(TaskStep),
    /// Wait for an event of a kind/state on a stream, within a window.
    ExpectEvent(ExpectEventStep),
    /// No event of the kinds may arrive on a stream for a duration.
    ExpectQuiet(ExpectQuietStep),
    /// The stream must end properly within a window.
    ExpectClosed(ExpectClosedStep),
    /// Read a task until N consecutive reads agree on state and artifacts.
    PollUntilStable(PollStep),
    /// A captured answer must match; otherwise the scenario fails.
    Expect(ExpectStep),
    /// A captured answer matching makes the scenario inconclusive (precondition not met).
    InconclusiveIf(InconclusiveStep),
    /// Wait a duration.
    Sleep(DurationValue),
    /// Register the run's webhook receiver for a captured task's push notifications.
    SetPushConfig(SetPushConfigStep),
    /// Wait for a push notification on the run's webhook receiver, within a window.
    ExpectWebhook(ExpectWebhookStep),
    /// GetTask or CancelTask on a captured task or on an id of the scenario's.
    CallTask(CallTaskStep),
    /// One ListTasks call (v1.0).
    ListTasks(ListTasksStep),
    /// A message to a captured task with another `contextId`.
    SendInTask(SendInTaskStep),
    /// A count in a capture (history messages, listed tasks) within bounds.
    ExpectCount(ExpectCountStep),
    /// A ListTasks capture lists a captured task.
    ExpectListed(ExpectListedStep),
    /// The card signature at a position verifies against the card as served.
    VerifySignature(VerifySignatureStep),
    /// Ask for the extended agent card (GetExtendedAgentCard).
    GetExtendedCard(GetExtendedCardStep),
    /// A captured extended card must be a valid card listing every skill of
    /// the public one.
    ExpectExtendedCard(ExpectExtendedCardStep),
    /// A captured send answer's artifacts must be of the accepted output
    /// mode (or the send refused with -32005), and of types the card declares.
    ExpectOutputModes(ExpectOutputModesStep),
}

impl Step {
    /// The step's name as written in YAML.
    pub fn name(&self) -> &'static str {
        match self {
            Step::Send(_) => "send",
            Step::Stream(_) => "stream",
            Step::Resume(_) => "resume",
            Step::Cancel(_) => "cancel",
            Step::Get(_) => "get",
            Step::Subscribe(_) => "subscribe",
            Step::ExpectEvent(_) => "expect_event",
            Step::ExpectQuiet(_) => "expect_quiet",
            Step::ExpectClosed(_) => "expect_closed",
            Step::PollUntilStable(_) => "poll_until_stable",
            Step::Expect(_) => "expect",
            Step::InconclusiveIf(_) => "inconclusive_if",
            Step::Sleep(_) => "sleep",
            Step::SetPushConfig(_) => "set_push_config",
            Step::ExpectWebhook(_) => "expect_webhook",
            Step::CallTask(_) => "call_task",
            Step::ListTasks(_) => "list_tasks",
            Step::SendInTask(_) => "send_in_task",
            Step::ExpectCount(_) => "expect_count",
            Step::ExpectListed(_) => "expect_listed",
            Step::VerifySignature(_) => "verify_signature",
            Step::GetExtendedCard(_) => "get_extended_card",
            Step::ExpectExtendedCard(_) => "expect_extended_card",
            Step::ExpectOutputModes(_) => "expect_output_modes",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SendStep {
    /// Capture name for the answer (task, error, or stream).
    #[serde(rename = "as")]
    pub capture: String,
    /// Message text (default `${prompt}`).
    #[serde(default)]
    pub text: Option<Template>,
    /// For `send`: wait for a terminal or interrupted state (default true).
    #[serde(default)]
    pub blocking: Option<bool>,
    /// Send this `A2A-Version` header instead of the interface's own (to
    /// probe version negotiation).
    #[serde(default)]
    pub a2a_version: Option<Template>,
    /// Register the run's webhook receiver inline, in the send configuration.
    #[serde(default)]
    pub push: bool,
    /// Which credentials the request carries: `configured` (default),
    /// `none`, or `invalid` (a made-up bearer token), to probe enforcement.
    #[serde(default)]
    pub credentials: Credentials,
    /// Start the new task in the context of this captured task (its `contextId`).
    #[serde(default)]
    pub context_of: Option<String>,
    /// Also ask for these extensions (comma-separated URIs) in the version's
    /// extensions header, besides the card's required ones.
    #[serde(default)]
    pub extensions: Option<Template>,
    /// Send no extensions header at all (not even the card's required ones).
    #[serde(default)]
    pub without_extensions: bool,
    /// `configuration.acceptedOutputModes` (comma-separated media types).
    #[serde(default)]
    pub accepted_output_modes: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResumeStep {
    /// The captured task to continue.
    pub task: String,
    #[serde(rename = "as")]
    pub capture: String,
    /// The media type of the part to send (default `text/plain`).
    #[serde(default)]
    pub mode: Option<Template>,
    #[serde(default)]
    pub text: Option<Template>,
    /// Send the follow-up on a stream instead of a blocking send.
    #[serde(default)]
    pub stream: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskStep {
    pub task: String,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
}

/// Either one value or a list of values (`state: completed`,
/// `state: [completed, failed]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<T: Clone> OneOrMany<T> {
    pub fn items(&self) -> &[T] {
        &self.0
    }

    /// The values of an optional key (none when absent).
    pub fn all(value: &Option<OneOrMany<T>>) -> Vec<T> {
        value.as_ref().map(|v| v.0.clone()).unwrap_or_default()
    }
}

/// A value scenarios name by one of a fixed set of words (a state, an
/// event kind); a word outside the set is an error listing the set.
pub trait Named: Sized + Copy + 'static {
    /// What the value is, for messages ("task state").
    const WHAT: &'static str;
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
}

impl Named for TaskState {
    const WHAT: &'static str = "task state";
    fn all() -> &'static [Self] {
        TaskState::ALL
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

fn named<T: Named, E: de::Error>(text: &str) -> Result<T, E> {
    T::all()
        .iter()
        .copied()
        .find(|v| v.name() == text)
        .ok_or_else(|| {
            let names: Vec<&str> = T::all().iter().map(|v| v.name()).collect();
            match a2a_conform_protocol::declaration::closest(text, names.iter().copied()) {
                Some(near) => E::custom(format!(
                    "unknown {} `{text}` (did you mean `{near}`? one of {})",
                    T::WHAT,
                    names.join(", ")
                )),
                None => E::custom(format!(
                    "unknown {} `{text}` (one of {})",
                    T::WHAT,
                    names.join(", ")
                )),
            }
        })
}

/// One item of a list, read by its name.
struct Item<T>(T);

impl<'de, T: Named> Deserialize<'de> for Item<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        named(&text).map(Item)
    }
}

// Not `#[serde(untagged)]`: that buffers the value and loses both the
// position and the reason of a bad item.
impl<'de, T: Named> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items<T>(PhantomData<T>);
        impl<'de, T: Named> Visitor<'de> for Items<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a {} or a list of them", T::WHAT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(OneOrMany(vec![named(v)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(Item(item)) = seq.next_element()? {
                    items.push(item);
                }
                Ok(OneOrMany(items))
            }
        }
        deserializer.deserialize_any(Items(PhantomData))
    }
}

/// The kind of a stream event, as scenarios name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Task,
    Message,
    StatusUpdate,
    ArtifactUpdate,
    Error,
}

impl Named for EventKind {
    const WHAT: &'static str = "event kind";
    fn all() -> &'static [Self] {
        &[
            EventKind::Task,
            EventKind::Message,
            EventKind::StatusUpdate,
            EventKind::ArtifactUpdate,
            EventKind::Error,
        ]
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl EventKind {
    /// The kind of an event; an unrecognized one has none.
    pub fn of(event: &Event) -> Option<EventKind> {
        match event {
            Event::Task(_) => Some(EventKind::Task),
            Event::Message { .. } => Some(EventKind::Message),
            Event::StatusUpdate { .. } => Some(EventKind::StatusUpdate),
            Event::ArtifactUpdate { .. } => Some(EventKind::ArtifactUpdate),
            Event::Error(_) => Some(EventKind::Error),
            Event::Unrecognized { .. } => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Task => "task",
            EventKind::Message => "message",
            EventKind::StatusUpdate => "status-update",
            EventKind::ArtifactUpdate => "artifact-update",
            EventKind::Error => "error",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which credentials a request carries (the `credentials` key of
/// `send`/`stream`); the runner maps it to the HTTP client's own choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Credentials {
    /// The bearer token of `--bearer-env` and every `--header`/profile header.
    #[default]
    Configured,
    /// No credentials: neither the bearer token nor any sensitive header.
    None,
    /// As `none`, plus a made-up bearer token no peer can have issued.
    Invalid,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectEventStep {
    pub stream: String,
    /// Event kinds that count: task, message, status-update, artifact-update.
    #[serde(default)]
    pub kind: Option<OneOrMany<EventKind>>,
    /// States that count (for task and status-update events).
    #[serde(default)]
    pub state: Option<OneOrMany<TaskState>>,
    /// How long to wait, from the step's start.
    pub within: DurationValue,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
    /// What a failure means, in the scenario's words.
    #[serde(default)]
    pub fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// the event does not come (e.g. a precondition the peer never reached).
    #[serde(default)]
    pub otherwise_inconclusive: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectQuietStep {
    pub stream: String,
    /// Event kinds that must not arrive.
    pub kind: OneOrMany<EventKind>,
    /// Status updates in these states are allowed (e.g. the canceled status itself).
    #[serde(default)]
    pub except_state: Option<OneOrMany<TaskState>>,
    /// Count events arriving after this capture's answer (default: the step's start).
    #[serde(default)]
    pub after: Option<String>,
    /// How long to watch.
    #[serde(rename = "for")]
    pub duration: DurationValue,
    #[serde(default)]
    pub fail: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectClosedStep {
    pub stream: String,
    pub within: DurationValue,
    #[serde(default)]
    pub fail: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollStep {
    pub task: String,
    /// States the stable reads must show.
    pub state: OneOrMany<TaskState>,
    /// How many consecutive reads must agree (default 2).
    #[serde(default)]
    pub reads: Option<Count>,
    /// The pause between reads (default 500ms).
    #[serde(default)]
    pub interval: Option<DurationValue>,
    /// The bound on the whole poll (default 10s).
    #[serde(default)]
    pub within: Option<DurationValue>,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
}

/// Conditions on a captured answer; any one matching is a match.
#[derive(Debug, Default, Clone)]
pub struct Condition {
    /// The captured state is one of these.
    pub state: Vec<TaskState>,
    /// The captured state is none of these (or there is no state).
    pub not_state: Vec<TaskState>,
    /// The answer was an error with one of these codes.
    pub code: Vec<i64>,
    /// The answer was no error, or an error with none of these codes.
    pub not_code: Vec<i64>,
    /// The answer was any protocol error.
    pub error: bool,
    /// The answer was a task or a message (no error).
    pub ok: bool,
    /// The peer refused the request with one of these HTTP statuses (401,
    /// 403: the refusals the runner captures, whatever their body).
    pub http_status: Vec<u16>,
}

// serde's `flatten` does not mix with `deny_unknown_fields`, so the condition
// keys are spelled out in both steps that take one.
macro_rules! condition_step {
    ($(#[$doc:meta])* $name:ident { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The capture to judge.
            pub of: String,
            #[serde(default)]
            pub state: Option<OneOrMany<TaskState>>,
            #[serde(default)]
            pub not_state: Option<OneOrMany<TaskState>>,
            #[serde(default)]
            pub code: Option<Vec<i64>>,
            #[serde(default)]
            pub not_code: Option<Vec<i64>>,
            #[serde(default)]
            pub error: Option<bool>,
            #[serde(default)]
            pub ok: Option<bool>,
            #[serde(default)]
            pub http_status: Option<Vec<u16>>,
            $($extra)*
        }

        impl $name {
            pub fn condition(&self) -> Condition {
                Condition {
                    state: OneOrMany::all(&self.state),
                    not_state: OneOrMany::all(&self.not_state),
                    code: self.code.clone().unwrap_or_default(),
                    not_code: self.not_code.clone().unwrap_or_default(),
                    error: self.error.unwrap_or(false),
                    ok: self.ok.unwrap_or(false),
                    http_status: self.http_status.clone().unwrap_or_default(),
                }
            }
        }
    };
}

condition_step!(
    /// `expect`: the capture must match, else the scenario fails.
    ExpectStep {
        #[serde(default)]
        pub fail: Option<Template>,
    }
);

condition_step!(
    /// `inconclusive_if`: the capture matching makes the scenario inconclusive.
    InconclusiveStep {
        pub reason: Template,
    }
);

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetPushConfigStep {
    /// The captured task to be notified about.
    pub task: String,
    /// Capture name for the answer (the config, or the error).
    #[serde(rename = "as")]
    pub capture: String,
    /// A token the peer should send back with every notification (a secret:
    /// redacted from the evidence).
    #[serde(default)]
    pub token: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectWebhookStep {
    /// How long to wait, from the step's start.
    pub within: DurationValue,
    /// States that count (the notification's task or status update state).
    #[serde(default)]
    pub state: Option<OneOrMany<TaskState>>,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
    /// What it means when no notification comes, in the scenario's words.
    #[serde(default)]
    pub fail: Option<Template>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// no notification comes.
    #[serde(default)]
    pub otherwise_inconclusive: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetExtendedCardStep {
    /// Capture name for the answer (the card, an error, or a refusal).
    #[serde(rename = "as")]
    pub capture: String,
    /// Which credentials the request carries (default `configured`).
    #[serde(default)]
    pub credentials: Credentials,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectExtendedCardStep {
    /// The `get_extended_card` capture to judge.
    pub of: String,
    #[serde(default)]
    pub fail: Option<Template>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectOutputModesStep {
    /// The send answer to judge.
    pub of: String,
    /// The media type the send accepted.
    pub mode: Template,
}
