//! The auth stage: the card's security schemes resolved once per peer (a
//! first token fetched before any run, so a broken token endpoint is a card
//! warning rather than runs read unverified because of it), the peer's
//! client, and what each run is given ([`RunSetup`]): the client whose
//! credentials meet the requirement that governs it (its skill's own, else
//! the card's), the redactor that knows the tokens obtained so far, and
//! how those credentials were obtained, for its evidence.

use super::context::ServedCard;
use super::credentials::CredentialTally;
use super::options::RunOptions;
use super::plan::Planned;
use a2a_conform_client::auth::PeerAuth;
use a2a_conform_client::client::{ClientConfig, ClientError};
use a2a_conform_client::{PeerClient, Redactor};
use a2a_conform_protocol::card::{Card, Interface};
use a2a_conform_protocol::declaration::DeclarationId;
use a2a_conform_report::CredentialsReport;
use std::sync::Arc;

/// A peer's credentials: its card's schemes resolved, and the card-level
/// client settings (the card's own requirement).
pub(crate) struct Auth {
    peer: PeerAuth,
    config: ClientConfig,
    /// What the peer made of the credentials given, over every run.
    tally: Arc<CredentialTally>,
    /// The extended card a run was served, whole.
    extended_card: ServedCard,
}

impl Auth {
    /// Resolves the card's schemes and obtains what the card-level
    /// requirement needs; gives the warnings the card earns by it.
    pub(crate) async fn resolve(card: &Card, options: &RunOptions) -> (Auth, Vec<String>) {
        let peer = PeerAuth::new(
            card,
            &options.client,
            options.auth.clone(),
            options.issued.clone(),
        );
        let card_auth = peer.before_runs().await;
        let mut warnings = peer.warnings();
        if let Some(trouble) = &card_auth.trouble {
            warnings.push(options.redactor_with_issued().redact(trouble));
        }
        warnings.extend(credentials_warning(card, &card_auth.config));
        let tally = Arc::new(CredentialTally::default());
        if card_auth.refused {
            tally.answered(true);
        }
        let auth = Auth {
            peer,
            config: card_auth.config,
            tally,
            extended_card: ServedCard::default(),
        };
        (auth, warnings)
    }

    /// What the peer made of the credentials given, once its runs ended.
    pub(crate) fn credentials_report(&self, options: &RunOptions) -> Option<CredentialsReport> {
        self.tally.report(options)
    }

    /// The extended card a run was served with the credentials given,
    /// whole (redacted), once the runs ended.
    pub(crate) fn served_extended_card(&self) -> Option<String> {
        self.extended_card.lock().ok().and_then(|c| c.clone())
    }

    /// The client the precondition search sends with: what the runs send,
    /// the credentials of the card's own requirement (a secured peer
    /// refuses a prompt without them). `None`: the peer client will do.
    pub(crate) fn search_client(&self, client: &PeerClient) -> Option<PeerClient> {
        if !self.peer.is_active() {
            return None;
        }
        PeerClient::new(
            client.endpoint.clone(),
            client.version,
            client.binding,
            self.config.clone(),
        )
        .ok()
    }

    /// What one planned run is given. A run that will not run gets the peer
    /// client as is; an interface run its interface's client; a run on a
    /// secured card its own credentials, tokens fresh, their requests in its
    /// evidence.
    pub(crate) async fn for_run<'c>(
        &self,
        planned: &Planned<'_>,
        client: &'c PeerClient,
        options: &RunOptions,
    ) -> Result<RunSetup<'c>, RunClientError> {
        let runs = planned.not_run.is_none();
        let run_auth = match runs && self.peer.is_active() {
            true => Some(self.peer.for_run(run_skill(planned)).await),
            false => None,
        };
        if run_auth.as_ref().is_some_and(|a| a.refused) {
            self.tally.answered(true);
        }
        let config = run_auth.as_ref().map_or(&options.client, |a| &a.config);
        let own = match (&planned.interface, &run_auth) {
            (Some(interface), _) if runs => Some(interface_client(interface, config)?),
            (None, Some(_)) => Some(PeerClient::new(
                client.endpoint.clone(),
                client.version,
                client.binding,
                config.clone(),
            )?),
            _ => None,
        };
        let reference = match &planned.reference {
            Some(interface) if runs => Some(interface_client(interface, config)?),
            _ => None,
        };
        Ok(RunSetup {
            peer: client,
            own,
            reference,
            redactor: match &run_auth {
                Some(_) => options.redactor_with_issued(),
                None => options.redactor.clone(),
            },
            auth_evidence: run_auth.map(|a| a.evidence).unwrap_or_default(),
            tally: self.tally.clone(),
            extended_card: self.extended_card.clone(),
        })
    }
}

/// What one run is given: the client it talks through, the redactor of its
/// transcript, and how its credentials were obtained (token requests),
/// noted at the start of its evidence.
pub(crate) struct RunSetup<'c> {
    /// The peer's client, used unless the run has its own.
    peer: &'c PeerClient,
    own: Option<PeerClient>,
    /// `for_each: interface_pairs`: the reference interface's client.
    reference: Option<PeerClient>,
    pub(crate) redactor: Arc<Redactor>,
    pub(crate) auth_evidence: Vec<String>,
    /// Where the run counts the answers to requests that carried the
    /// credentials given (the peer's tally).
    pub(crate) tally: Arc<CredentialTally>,
    /// Where the peer's extended card is kept whole (the peer's).
    pub(crate) extended_card: ServedCard,
}

impl RunSetup<'_> {
    /// The client the run talks through.
    pub(crate) fn client(&self) -> &PeerClient {
        self.own.as_ref().unwrap_or(self.peer)
    }

    /// The client of the interface the run's answers are compared with.
    pub(crate) fn reference(&self) -> Option<&PeerClient> {
        self.reference.as_ref()
    }
}

/// The peer's client: the card's chosen endpoint, version and binding.
pub(crate) fn peer_client(card: &Card, options: &RunOptions) -> Result<PeerClient, RunClientError> {
    let endpoint = &card.endpoint.url;
    let url = url::Url::parse(endpoint).map_err(|source| RunClientError::Endpoint {
        url: endpoint.clone(),
        source,
    })?;
    Ok(PeerClient::new(
        url,
        card.protocol_version(),
        card.binding(),
        options.client.clone(),
    )?)
}

/// The skill a run verifies something of, whose security requirement (if
/// it has its own) governs the run's credentials.
fn run_skill<'p>(planned: &'p Planned<'_>) -> Option<&'p str> {
    planned.verifies.iter().find_map(DeclarationId::skill)
}

/// A client for one declared interface (`for_each: interfaces`).
fn interface_client(
    interface: &Interface,
    config: &ClientConfig,
) -> Result<PeerClient, RunClientError> {
    let (Some(version), Some(binding)) = (interface.protocol_version, interface.binding) else {
        return Err(RunClientError::NoBinding(interface.url.clone()));
    };
    let url = url::Url::parse(&interface.url).map_err(|source| RunClientError::NotAUrl {
        url: interface.url.clone(),
        source,
    })?;
    Ok(PeerClient::new(url, version, binding, config.clone())?)
}

/// Why no client could be made for a peer or a run: the peer's is a card
/// error, a run's makes the run an `error` (tool trouble, not the peer's).
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunClientError {
    #[error("the card's endpoint `{url}` is not a URL: {source}")]
    Endpoint {
        url: String,
        source: url::ParseError,
    },
    #[error("the interface at {0} has no usable binding")]
    NoBinding(String),
    #[error("the interface URL `{url}` is not a URL: {source}")]
    NotAUrl {
        url: String,
        source: url::ParseError,
    },
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// The warning for a card that requires credentials when none were given
/// (nor obtained from its schemes): every request but the security probes
/// will likely be refused. `client` is the card-level one
/// [`a2a_conform_client::auth`] resolved; its hint names the scheme and the
/// flag.
fn credentials_warning(card: &Card, client: &ClientConfig) -> Option<String> {
    (card.security_required && !client.has_credentials()).then(|| {
        let how = client.auth_hint.clone().unwrap_or_else(|| {
            "pass a token with --bearer-env VAR (or a header with --header)".to_string()
        });
        format!(
            "the card requires credentials (security requirements) but none were given: \
             the peer will likely refuse every request with HTTP 401/403 and the scenarios \
             read inconclusive; {how}"
        )
    })
}
