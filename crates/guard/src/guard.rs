//! The guard on one peer: its card, the client for the card's endpoint,
//! the shared capability cache, and the bounds every wait keeps. The
//! guarded operations live in their own files (`task`, `settle`, `cancel`,
//! `resume`); here are what they share: reading a task, judging an answer,
//! and turning an observation into a demotion.

use crate::cache::{CacheError, CapabilityCache, PeerKey};
use crate::error::{ContractViolation, GuardError};
use a2a_conform_client::card_fetch::fetch_card;
use a2a_conform_client::{ClientConfig, PeerClient, Redactor, Reply, Transcript};
use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
use a2a_conform_protocol::{Card, DeclarationId, Operation, TaskView};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// The probe window when the card declares no `defaultTimeout`.
pub const DEFAULT_PROBE_WINDOW: Duration = Duration::from_secs(15);

/// The bounds of a guard's waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardOptions {
    /// The pause between two `GetTask` reads (default 500 ms).
    pub poll_interval: Duration,
    /// The longest any one guarded wait lasts (default 5 min).
    pub max_wait: Duration,
    /// The streaming probe's window; `None` (the default) is twice the
    /// card's `defaultTimeout`, else 15 s.
    pub probe_window: Option<Duration>,
    /// After a cancel, how long a stream the guard holds must stay free of
    /// artifact frames when the peer does not close it (default 2 s).
    pub quiet_window: Duration,
    /// Whether `open_task` may open a (probed) stream at all (default
    /// true); false sends a plain message and follows the task by reads.
    pub streaming: bool,
}

impl Default for GuardOptions {
    fn default() -> Self {
        GuardOptions {
            poll_interval: Duration::from_millis(500),
            max_wait: Duration::from_secs(300),
            probe_window: None,
            quiet_window: Duration::from_secs(2),
            streaming: true,
        }
    }
}

/// Guards delegations to one peer.
///
/// ```
/// use a2a_conform_client::ClientConfig;
/// use a2a_conform_guard::{CapabilityCache, CacheOptions, Guard, GuardOptions};
/// use a2a_conform_mock::{MockConfig, MockPeer};
/// use a2a_conform_protocol::{MessagePart, TaskState};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let peer = MockPeer::start(MockConfig::default()).await?;
/// let cache = CapabilityCache::in_memory(CacheOptions::default());
/// let options = GuardOptions { poll_interval: std::time::Duration::from_millis(50), ..GuardOptions::default() };
/// let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, options).await?;
///
/// let task = guard.open_task(&[MessagePart::Text("hello".into())]).await?;
/// let settled = task.await_terminal().await?;
/// assert_eq!(settled.state, TaskState::Completed);
/// assert!(guard.cache().demotions(guard.peer()).is_empty());
/// peer.shutdown().await;
/// # Ok(())
/// # }
/// ```
pub struct Guard {
    pub(crate) client: PeerClient,
    pub(crate) card: Card,
    pub(crate) peer: PeerKey,
    pub(crate) cache: CapabilityCache,
    pub(crate) redactor: Arc<Redactor>,
    pub(crate) options: GuardOptions,
}

impl Guard {
    /// A guard on the peer of `card`, talking to the card's chosen
    /// endpoint with `config` (its credentials, TLS, caps).
    pub fn new(
        card: Card,
        config: ClientConfig,
        cache: CapabilityCache,
        options: GuardOptions,
    ) -> Result<Guard, GuardError> {
        let endpoint = &card.endpoint.url;
        let url = url::Url::parse(endpoint).map_err(|source| GuardError::Endpoint {
            url: endpoint.clone(),
            source,
        })?;
        let redactor = Arc::new(Redactor::new(config.secrets()));
        let client = PeerClient::new(url, card.protocol_version(), card.binding(), config)?;
        Ok(Guard {
            client,
            peer: PeerKey::of(&card),
            card,
            cache,
            redactor,
            options,
        })
    }

    /// Fetches the card at `input` (a card URL or a base URL) and guards its peer.
    pub async fn connect(
        input: &str,
        config: ClientConfig,
        cache: CapabilityCache,
        options: GuardOptions,
    ) -> Result<Guard, GuardError> {
        let redactor = Redactor::new(config.secrets());
        let card = fetch_card(
            input,
            &config,
            ProtocolChoice::Auto,
            BindingChoice::Auto,
            &redactor,
        )
        .await?;
        Guard::new(card, config, cache, options)
    }

    /// The peer as the cache keys it.
    pub fn peer(&self) -> &PeerKey {
        &self.peer
    }

    /// The card the guard read.
    pub fn card(&self) -> &Card {
        &self.card
    }

    /// The cache the guard reads and demotes in.
    pub fn cache(&self) -> &CapabilityCache {
        &self.cache
    }

    /// The client the guard talks through.
    pub fn client(&self) -> &PeerClient {
        &self.client
    }

    /// The streaming probe's window: the option, else twice the card's
    /// `defaultTimeout`, else 15 s.
    pub fn probe_window(&self) -> Duration {
        self.options.probe_window.unwrap_or_else(|| {
            self.card
                .default_timeout
                .map_or(DEFAULT_PROBE_WINDOW, |t| t.saturating_mul(2))
        })
    }

    /// A transcript for one guarded operation, masking the configured secrets.
    pub(crate) fn transcript(&self) -> Arc<Transcript> {
        Transcript::new(self.redactor.clone())
    }

    /// Calls `op` and answers its result, or why there is none.
    pub(crate) async fn call(
        &self,
        transcript: &Transcript,
        op: Operation,
        params: Value,
    ) -> Result<Value, GuardError> {
        let reply = self.client.call(transcript, op, params).await;
        judge(op, reply)
    }

    /// One `GetTask` read: the task's view and its JSON.
    pub(crate) async fn read_task(
        &self,
        transcript: &Transcript,
        task_id: &str,
    ) -> Result<(TaskView, Value), GuardError> {
        let params = self.client.version.task_params(task_id);
        let raw = self.call(transcript, Operation::GetTask, params).await?;
        Ok((TaskView::from_json(&raw), raw))
    }

    /// Demotes `declaration` for what `transcript` shows, and answers the
    /// violation. The cache write (a short file lock) runs off the runtime.
    pub(crate) async fn violation(
        &self,
        declaration: DeclarationId,
        task: Option<&str>,
        reason: String,
        transcript: &Transcript,
    ) -> Result<ContractViolation, GuardError> {
        transcript.note(format!("guard: `{declaration}` demoted: {reason}"));
        let violation = ContractViolation {
            declaration,
            peer: self.peer.clone(),
            task: task.map(str::to_string),
            reason,
            evidence: transcript.entries(),
        };
        let (cache, peer, id) = (
            self.cache.clone(),
            self.peer.clone(),
            violation.declaration.clone(),
        );
        let (reason, evidence) = (violation.reason.clone(), violation.evidence.clone());
        blocking(move || cache.demote(&peer, &id, reason, evidence)).await?;
        Ok(violation)
    }

    /// Records that `declarations` were seen kept (off the runtime).
    pub(crate) async fn trusted(&self, declarations: Vec<DeclarationId>) -> Result<(), GuardError> {
        let (cache, peer) = (self.cache.clone(), self.peer.clone());
        blocking(move || {
            declarations
                .iter()
                .try_for_each(|id| cache.trust_now(&peer, id))
        })
        .await
    }

    /// Merges what other processes wrote into the cache (off the runtime).
    pub(crate) async fn refresh_cache(&self) -> Result<(), GuardError> {
        let cache = self.cache.clone();
        blocking(move || cache.refresh()).await
    }
}

/// Runs a cache operation on the blocking pool.
async fn blocking(
    work: impl FnOnce() -> Result<(), CacheError> + Send + 'static,
) -> Result<(), GuardError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => Ok(result?),
        Err(joined) if joined.is_panic() => std::panic::resume_unwind(joined.into_panic()),
        // Canceled only when the runtime shuts down: nothing left to record for.
        Err(_) => Ok(()),
    }
}

/// An operation's name, as errors print it.
pub(crate) fn operation_name(op: Operation) -> &'static str {
    match op {
        Operation::SendMessage => "SendMessage",
        Operation::SendStreamingMessage => "SendStreamingMessage",
        Operation::GetTask => "GetTask",
        Operation::CancelTask => "CancelTask",
        Operation::SubscribeToTask => "SubscribeToTask",
        _ => "an A2A call",
    }
}

/// A call's answer as the guards need it: the result, or why there is none.
pub(crate) fn judge(op: Operation, reply: Reply) -> Result<Value, GuardError> {
    let operation = operation_name(op);
    match reply {
        Reply::Ok(value) => Ok(value),
        Reply::Err(error) => Err(GuardError::Rejected { operation, error }),
        Reply::Broken(reason)
        | Reply::NotServed(reason)
        | Reply::Capped(reason)
        | Reply::Unreachable(reason)
        | Reply::NotRecorded { reason, .. } => Err(GuardError::Malfunction { operation, reason }),
        Reply::Refused { status, detail } => Err(GuardError::Malfunction {
            operation,
            reason: format!("credentials refused (HTTP {status}): {detail}"),
        }),
    }
}
