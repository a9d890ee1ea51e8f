//! The guard on one peer: its card, the client for the card's endpoint,
//! the shared capability cache, and the bounds every wait keeps. The
//! guarded operations live in their own files (`task`, `settle`, `cancel`,
//! `resume`); here are what they share: reading a task, judging an answer,
//! checking that an answer is about the task asked for, and turning an
//! observation into a demotion (each one also kept for
//! [`Guard::take_violations`]).

use crate::cache::{CacheError, CapabilityCache, PeerKey};
use crate::error::{ContractViolation, GuardError};
use a2a_conform_client::card_fetch::{fetch_card_validated, CardValidators};
use a2a_conform_client::{ClientConfig, PeerClient, Record, Redactor, Reply, Transcript};
use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
use a2a_conform_protocol::{Card, DeclarationId, Operation, TaskView};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most operations whose exchanges a guard keeps for
/// [`Guard::take_exchanges`]; older ones are dropped first.
pub const KEPT_OPERATIONS: usize = 256;

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
    /// The client settings, kept to rebuild the client for a changed card.
    pub(crate) config: ClientConfig,
    /// The card's caching headers and when it was read (revalidation).
    pub(crate) validators: CardValidators,
    pub(crate) fetched_at: Instant,
    /// Every operation's transcript, oldest first, for `take_exchanges`.
    log: Mutex<VecDeque<Arc<Transcript>>>,
    /// Every demotion made, for `take_violations`: a caller must see each
    /// one, whatever the operation that made it ended in.
    demoted: Mutex<Vec<ContractViolation>>,
    /// The context of each task, as first answered: a later answer naming
    /// another context is about another conversation.
    contexts: Mutex<HashMap<String, String>>,
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
        let client = PeerClient::new(url, card.protocol_version(), card.binding(), config.clone())?;
        Ok(Guard {
            client,
            peer: PeerKey::of(&card),
            card,
            cache,
            redactor,
            options,
            config,
            validators: CardValidators::default(),
            fetched_at: Instant::now(),
            log: Mutex::new(VecDeque::new()),
            demoted: Mutex::new(Vec::new()),
            contexts: Mutex::new(HashMap::new()),
        })
    }

    /// The guard with the caching headers its card was served with, so
    /// [`Guard::revalidate`] honours their `max-age` and `ETag`.
    pub fn with_validators(mut self, validators: CardValidators) -> Guard {
        self.validators = validators;
        self
    }

    /// Fetches the card at `input` (a card URL or a base URL) and guards its peer.
    pub async fn connect(
        input: &str,
        config: ClientConfig,
        cache: CapabilityCache,
        options: GuardOptions,
    ) -> Result<Guard, GuardError> {
        let redactor = Redactor::new(config.secrets());
        let (card, validators) = fetch_card_validated(
            input,
            &config,
            ProtocolChoice::Auto,
            BindingChoice::Auto,
            &redactor,
        )
        .await?;
        Ok(Guard::new(card, config, cache, options)?.with_validators(validators))
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
    ///
    /// ```
    /// use a2a_conform_client::ClientConfig;
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, Guard, GuardOptions, DEFAULT_PROBE_WINDOW};
    /// use a2a_conform_mock::{MockConfig, MockPeer};
    /// use std::time::Duration;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let peer = MockPeer::start(MockConfig::default()).await?;
    /// let cache = || CapabilityCache::in_memory(CacheOptions::default());
    /// let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache(), GuardOptions::default()).await?;
    /// // The mock's card declares no defaultTimeout.
    /// assert_eq!(guard.card().default_timeout, None);
    /// assert_eq!(guard.probe_window(), DEFAULT_PROBE_WINDOW);
    /// assert_eq!(guard.client().version, guard.card().protocol_version());
    /// assert!(guard.is_card_fresh());
    ///
    /// let options = GuardOptions { probe_window: Some(Duration::from_secs(2)), ..GuardOptions::default() };
    /// let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache(), options).await?;
    /// assert_eq!(guard.probe_window(), Duration::from_secs(2));
    /// peer.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    pub fn probe_window(&self) -> Duration {
        self.options.probe_window.unwrap_or_else(|| {
            self.card
                .default_timeout
                .map_or(DEFAULT_PROBE_WINDOW, |t| t.saturating_mul(2))
        })
    }

    /// Every exchange the guard's operations made since the last call,
    /// redacted, oldest operation first — whatever they ended in (an error
    /// too), so a caller can show what happened before the trouble. A guard
    /// keeps the last [`KEPT_OPERATIONS`] operations' exchanges.
    ///
    /// ```
    /// use a2a_conform_client::ClientConfig;
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, Guard, GuardError, GuardOptions};
    /// use a2a_conform_mock::{MockConfig, MockPeer};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let peer = MockPeer::start(MockConfig::default()).await?;
    /// let cache = CapabilityCache::in_memory(CacheOptions::default());
    /// let guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, GuardOptions::default()).await?;
    /// // A task the peer never issued: the read is refused, and still recorded.
    /// let error = guard.await_terminal("no-such-task").await.err().expect("unknown task");
    /// assert!(matches!(error, GuardError::Rejected { .. }));
    /// let exchanges = guard.take_exchanges();
    /// assert!(exchanges.iter().any(|r| r.summary.contains("GetTask")));
    /// assert!(guard.take_exchanges().is_empty(), "taken");
    /// peer.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    pub fn take_exchanges(&self) -> Vec<Record> {
        let taken = std::mem::take(&mut *self.lock_log());
        taken.iter().flat_map(|t| t.entries()).collect()
    }

    /// Every violation the guard's operations found (each demoted in the
    /// cache) since the last call, oldest first — also those found by an
    /// operation that then ended in an error, which its `Err` does not
    /// carry. A caller that reports an outcome lists these.
    pub fn take_violations(&self) -> Vec<ContractViolation> {
        std::mem::take(&mut *lock(&self.demoted))
    }

    /// A transcript for one guarded operation, masking the configured
    /// secrets, kept for [`Guard::take_exchanges`].
    pub(crate) fn transcript(&self) -> Arc<Transcript> {
        let transcript = Transcript::new(self.redactor.clone());
        let mut log = self.lock_log();
        if log.len() == KEPT_OPERATIONS {
            log.pop_front();
        }
        log.push_back(transcript.clone());
        transcript
    }

    fn lock_log(&self) -> std::sync::MutexGuard<'_, VecDeque<Arc<Transcript>>> {
        lock(&self.log)
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
        let view = TaskView::from_json(&raw);
        self.same_task(transcript, Operation::GetTask, task_id, &view)
            .await?;
        Ok((view, raw))
    }

    /// An answer about `asked` must name it, and the context it was first
    /// answered in: an answer about another task (or another context) is
    /// never this task's result. The first context seen is kept. A
    /// mismatch breaks `lifecycle.cancel` for a cancel's answer, else
    /// `lifecycle.completion` (what the guard certifies as the task's
    /// result).
    pub(crate) async fn same_task(
        &self,
        transcript: &Transcript,
        op: Operation,
        asked: &str,
        view: &TaskView,
    ) -> Result<(), GuardError> {
        let answered = view.id.as_deref().unwrap_or(asked);
        let reason = if answered != asked {
            Some(format!(
                "{} of task {asked} answered task {answered}",
                operation_name(op)
            ))
        } else {
            self.other_context(asked, view.context_id.as_deref())
                .map(|(first, now)| {
                    format!(
                        "{} of task {asked} answered context {now}, where the task was answered in context {first}",
                        operation_name(op)
                    )
                })
        };
        let Some(reason) = reason else {
            return Ok(());
        };
        let reason = format!("{reason}: an answer about another task is not this task's result");
        let declaration = match op {
            Operation::CancelTask => DeclarationId::Cancel,
            _ => DeclarationId::Completion,
        };
        let violation = self
            .violation(declaration, Some(asked), reason, transcript)
            .await?;
        Err(violation.into())
    }

    /// The first context `task` was answered in and `context`, when they
    /// differ; `context` becomes the task's when it had none.
    fn other_context(&self, task: &str, context: Option<&str>) -> Option<(String, String)> {
        let context = context?;
        let mut contexts = lock(&self.contexts);
        let first = contexts
            .entry(task.to_string())
            .or_insert_with(|| context.to_string());
        (first != context).then(|| (first.clone(), context.to_string()))
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
        lock(&self.demoted).push(violation.clone());
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

/// Locks `mutex`; each change under these locks is one push, pop or take,
/// so a poisoned one is still whole.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs a cache operation on the blocking pool.
pub(crate) async fn blocking<T: Default + Send + 'static>(
    work: impl FnOnce() -> Result<T, CacheError> + Send + 'static,
) -> Result<T, GuardError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => Ok(result?),
        Err(joined) if joined.is_panic() => std::panic::resume_unwind(joined.into_panic()),
        // Canceled only when the runtime shuts down: nothing left to record for.
        Err(_) => Ok(T::default()),
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
