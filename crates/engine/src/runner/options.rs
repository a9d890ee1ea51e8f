//! Everything a check needs besides the suite: variables, filters, the
//! client's settings and caps, scheduling bounds, and the cancellation a
//! signal triggers.

use a2a_conform_client::client::ClientConfig;
use a2a_conform_client::Redactor;
use a2a_conform_protocol::card::signature::TrustedKey;
use a2a_conform_protocol::card::{BindingChoice, Card, ProtocolChoice};
use a2a_conform_report::shard::Shard;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Peers checked at once unless `--peers-in-flight` says otherwise.
pub const DEFAULT_PEERS_IN_FLIGHT: usize = 8;

/// The fewest runs in flight against one peer when `--jobs` is not given
/// (the default is sized from the plan, [`RunOptions::jobs`]).
pub const MIN_DEFAULT_JOBS: usize = 8;

/// The most runs in flight against one peer when `--jobs` is not given:
/// a plan of many long runs must not load one peer without bound.
pub const MAX_DEFAULT_JOBS: usize = 16;

/// The longest one scenario run may take, whatever its steps say.
pub const MAX_RUN: Duration = Duration::from_secs(600);

/// The most runs one `for_each` scenario expands to by default
/// (`--max-runs-per-family`): a card listing 100 skills × 1,000 input modes
/// must not mean 100,000 runs.
pub const DEFAULT_MAX_RUNS_PER_FAMILY: usize = 64;

/// The most tasks one peer's precondition search may start unless
/// `--discover-budget` says otherwise.
pub const DEFAULT_BUDGET: usize = 6;

/// Everything a check needs besides the suite.
#[derive(Clone)]
pub struct RunOptions {
    /// `--var` and profile variables (later entries win).
    pub vars: BTreeMap<String, String>,
    /// `--scenario`: run only these ids (empty: all).
    pub only: Vec<String>,
    /// `--skip`: never run these ids.
    pub skip: Vec<String>,
    /// How the peers are talked to: timeout, headers, credentials, TLS, caps.
    pub client: ClientConfig,
    /// The configured secrets, masked by value in every output.
    pub redactor: Arc<Redactor>,
    /// `--protocol`: the version to speak, or `auto` (from the card).
    pub protocol: ProtocolChoice,
    /// `--binding`: the binding to use, or `auto` (from the card).
    pub binding: BindingChoice,
    /// Re-runs of a failing scenario; pass-after-fail is `flaky`.
    pub retries: u32,
    /// `--jobs`: scenario runs in flight at once against one peer. `None`:
    /// sized from the peer's plan: the fewest slots on which no queued run
    /// ends with the longest (half a nominal task of margin), within
    /// [`MIN_DEFAULT_JOBS`]..=[`MAX_DEFAULT_JOBS`].
    pub jobs: Option<usize>,
    /// Peers checked at once (`--peers-in-flight`): at most
    /// `jobs × peers_in_flight` runs are in flight in all.
    pub peers_in_flight: usize,
    /// `--shard K/N`: run only this slice of the plan.
    pub shard: Option<Shard>,
    /// Keep the evidence of passing runs too (`-v`); by default only runs
    /// that did not pass keep theirs.
    pub keep_passing_evidence: bool,
    /// `check --record`: keep every request and answer of a run in its
    /// evidence however long the run (only events and notes are elided),
    /// and every read of a poll, for a replay to answer each.
    pub record_exchanges: bool,
    /// `--max-probe-window`: the longest probe window a card's
    /// `defaultTimeout` may ask for.
    pub max_probe_window: Duration,
    /// The most runs one `for_each` scenario expands to; the rest are
    /// skipped, and the declarations they verify read unverified.
    pub max_runs_per_family: usize,
    /// Cancelled on SIGINT/SIGTERM: runs still in flight stop at once and
    /// read `error` ("interrupted"); finished runs are kept.
    pub cancel: CancellationToken,
    /// What satisfies the card's security schemes (`--api-key-env`,
    /// `--basic-env`, `--oauth-client-*-env`).
    pub auth: Arc<a2a_conform_client::auth::AuthSettings>,
    /// Access tokens obtained during the check, redacted from every output.
    pub issued: a2a_conform_client::auth::IssuedSecrets,
    /// `--trusted-key`: the keys card signatures may verify against.
    pub trusted_keys: Arc<Vec<TrustedKey>>,
    /// `--strict`: a broken SHOULD (output modes) is a divergence, not an
    /// inconclusive run.
    pub strict: bool,
    /// `--discover-budget`: the most tasks one peer's precondition search
    /// may start (`--no-discover`: 0, no search).
    pub discover_budget: usize,
    /// Where the credentials given come from, as reports name them
    /// (`--bearer-env PEER_TOKEN`, `bearer_env PEER_TOKEN (profile prod)`),
    /// never their values. Empty: named by the flags that carry them.
    pub credential_sources: Vec<String>,
}

/// The default of `--max-probe-window`.
pub const MAX_PROBE_WINDOW: Duration = Duration::from_secs(120);

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            vars: BTreeMap::new(),
            only: Vec::new(),
            skip: Vec::new(),
            client: ClientConfig::default(),
            redactor: Arc::new(Redactor::default()),
            protocol: ProtocolChoice::Auto,
            binding: BindingChoice::Auto,
            retries: 0,
            jobs: None,
            peers_in_flight: DEFAULT_PEERS_IN_FLIGHT,
            shard: None,
            keep_passing_evidence: false,
            record_exchanges: false,
            max_probe_window: MAX_PROBE_WINDOW,
            max_runs_per_family: DEFAULT_MAX_RUNS_PER_FAMILY,
            cancel: CancellationToken::new(),
            auth: Arc::new(a2a_conform_client::auth::AuthSettings::default()),
            issued: a2a_conform_client::auth::IssuedSecrets::default(),
            trusted_keys: Arc::default(),
            strict: false,
            discover_budget: DEFAULT_BUDGET,
            credential_sources: Vec::new(),
        }
    }
}

impl RunOptions {
    /// These options for one peer: its credentials belong to its card's origin.
    pub(crate) fn for_card(&self, card: &Card) -> RunOptions {
        let mut options = self.clone();
        if let Ok(url) = url::Url::parse(&card.fetched_from) {
            options.client = self.client.for_card(&url);
        }
        // A peer refuses every request that does not ask for its required
        // extensions (v1 §3.3.4): ask for them, so the other promises can
        // be checked at all.
        options.client.extensions = card.required_extensions();
        options
    }

    /// The redactor plus every access token obtained so far.
    pub fn redactor_with_issued(&self) -> Arc<Redactor> {
        let issued = self.issued.all();
        if issued.is_empty() {
            return self.redactor.clone();
        }
        let mut secrets = self.redactor.secrets().to_vec();
        secrets.extend(issued);
        Arc::new(Redactor::new(secrets))
    }
}
