//! The scenario language: what a suite file may say. Scenarios are data,
//! composed from step primitives the runner implements; every struct rejects
//! unknown keys so a typo is an error with a position, not a silent no-op.

pub use crate::transport::client::Credentials;
use serde::Deserialize;
use serde_saphyr::Spanned;
use std::collections::BTreeMap;

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
}

impl std::fmt::Display for ForEach {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ForEach::InputModes => "for each declared input mode",
            ForEach::Interfaces => "for each declared interface",
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
    Sleep(String),
    /// Register the run's webhook receiver for a captured task's push notifications.
    SetPushConfig(SetPushConfigStep),
    /// Wait for a push notification on the run's webhook receiver, within a window.
    ExpectWebhook(ExpectWebhookStep),
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
    pub text: Option<String>,
    /// For `send`: wait for a terminal or interrupted state (default true).
    #[serde(default)]
    pub blocking: Option<bool>,
    /// Send this `A2A-Version` header instead of the interface's own (to
    /// probe version negotiation).
    #[serde(default)]
    pub a2a_version: Option<String>,
    /// Register the run's webhook receiver inline, in the send configuration.
    #[serde(default)]
    pub push: bool,
    /// Which credentials the request carries: `configured` (default),
    /// `none`, or `invalid` (a made-up bearer token), to probe enforcement.
    #[serde(default)]
    pub credentials: Credentials,
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
    pub mode: Option<String>,
    #[serde(default)]
    pub text: Option<String>,
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

/// Either one string or a list of strings.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    pub fn items(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectEventStep {
    pub stream: String,
    /// Event kinds that count: task, message, status-update, artifact-update.
    #[serde(default)]
    pub kind: Option<OneOrMany>,
    /// States that count (for task and status-update events).
    #[serde(default)]
    pub state: Option<OneOrMany>,
    /// How long to wait, from the step's start.
    pub within: String,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
    /// What a failure means, in the scenario's words.
    #[serde(default)]
    pub fail: Option<String>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// the event does not come (e.g. a precondition the peer never reached).
    #[serde(default)]
    pub otherwise_inconclusive: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectQuietStep {
    pub stream: String,
    /// Event kinds that must not arrive.
    pub kind: OneOrMany,
    /// Status updates in these states are allowed (e.g. the canceled status itself).
    #[serde(default)]
    pub except_state: Option<OneOrMany>,
    /// Count events arriving after this capture's answer (default: the step's start).
    #[serde(default)]
    pub after: Option<String>,
    /// How long to watch.
    #[serde(rename = "for")]
    pub duration: String,
    #[serde(default)]
    pub fail: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectClosedStep {
    pub stream: String,
    pub within: String,
    #[serde(default)]
    pub fail: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PollStep {
    pub task: String,
    /// States the stable reads must show.
    pub state: OneOrMany,
    /// How many consecutive reads must agree (default 2).
    #[serde(default)]
    pub reads: Option<String>,
    /// The pause between reads (default 500ms).
    #[serde(default)]
    pub interval: Option<String>,
    /// The bound on the whole poll (default 10s).
    #[serde(default)]
    pub within: Option<String>,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
}

/// Conditions on a captured answer; any one matching is a match.
#[derive(Debug, Default, Clone)]
pub struct Condition {
    /// The captured state is one of these.
    pub state: Vec<String>,
    /// The captured state is none of these (or there is no state).
    pub not_state: Vec<String>,
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
            pub state: Option<OneOrMany>,
            #[serde(default)]
            pub not_state: Option<OneOrMany>,
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
                    state: self.state.as_ref().map(OneOrMany::items).unwrap_or_default(),
                    not_state: self.not_state.as_ref().map(OneOrMany::items).unwrap_or_default(),
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
        pub fail: Option<String>,
    }
);

condition_step!(
    /// `inconclusive_if`: the capture matching makes the scenario inconclusive.
    InconclusiveStep {
        pub reason: String,
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
    pub token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectWebhookStep {
    /// How long to wait, from the step's start.
    pub within: String,
    /// States that count (the notification's task or status update state).
    #[serde(default)]
    pub state: Option<OneOrMany>,
    #[serde(rename = "as", default)]
    pub capture: Option<String>,
    /// What it means when no notification comes, in the scenario's words.
    #[serde(default)]
    pub fail: Option<String>,
    /// Instead of failing, the scenario is inconclusive with this reason when
    /// no notification comes.
    #[serde(default)]
    pub otherwise_inconclusive: Option<String>,
}
