//! Re-reading a guarded peer's card once it may have changed. The card is
//! fresh for its `Cache-Control: max-age` (`no-cache` and `no-store`: not
//! at all; no lifetime given: the cache's trust TTL); after it the guard
//! GETs the card again with `If-None-Match` and the `ETag` it was served
//! with. A `304 Not Modified`, or the same body again, keeps every cache
//! entry; a changed card (a new digest) is a new peer to the cache, and
//! what the cache held for the card's earlier versions is reset, so a
//! redeployed peer starts from its card's word again.

use crate::cache::PeerKey;
use crate::error::GuardError;
use crate::guard::{blocking, Guard};
use a2a_conform_client::card_fetch::{refetch_card, CardRefetch};
use a2a_conform_client::{PeerClient, Redactor};
use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
use std::time::{Duration, Instant};

/// What a revalidation of the card found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revalidation {
    /// The card is still within its lifetime: no request was made.
    Fresh,
    /// The peer answered `304 Not Modified`: every cache entry stands.
    NotModified,
    /// The card was served whole, with the same digest: every entry stands.
    Unchanged,
    /// The card changed. The guard now holds the new card (and a client
    /// for its endpoint); the cache's entries for the earlier card were
    /// reset.
    Changed {
        /// The peer as it was keyed.
        from: PeerKey,
        /// The peer as it is keyed now.
        to: PeerKey,
        /// How many cache entries of earlier versions of the card were dropped.
        reset: usize,
    },
}

impl Guard {
    /// How long the card read stays fresh: its `max-age`, else the
    /// cache's trust TTL.
    pub fn card_lifetime(&self) -> Duration {
        self.validators
            .max_age()
            .unwrap_or_else(|| self.cache.options().trust_ttl)
    }

    /// Whether the card read is still within its lifetime.
    pub fn is_card_fresh(&self) -> bool {
        self.fetched_at.elapsed() < self.card_lifetime()
    }

    /// Re-reads the card if its lifetime has passed ([`Guard::refetch`]);
    /// within it, answers [`Revalidation::Fresh`] without a request. An
    /// orchestrator calls it between tasks.
    ///
    /// ```
    /// use a2a_conform_client::ClientConfig;
    /// use a2a_conform_guard::{CapabilityCache, CacheOptions, Guard, GuardOptions, Revalidation};
    /// use a2a_conform_mock::{MockConfig, MockPeer};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let peer = MockPeer::start(MockConfig::default()).await?; // max-age=300
    /// let cache = CapabilityCache::in_memory(CacheOptions::default());
    /// let mut guard = Guard::connect(&peer.card_url(), ClientConfig::default(), cache, GuardOptions::default()).await?;
    /// assert_eq!(guard.revalidate().await?, Revalidation::Fresh);
    /// assert_eq!(guard.refetch().await?, Revalidation::NotModified); // If-None-Match: 304
    /// assert_eq!(peer.card_requests(), (1, 1));
    /// peer.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn revalidate(&mut self) -> Result<Revalidation, GuardError> {
        if self.is_card_fresh() {
            return Ok(Revalidation::Fresh);
        }
        self.refetch().await
    }

    /// GETs the card again now, with `If-None-Match` when it came with an
    /// `ETag`. A 304 or the same digest keeps the card and every entry
    /// (the lifetime starts again); a new digest replaces the card and
    /// resets the cache's entries for its earlier versions.
    pub async fn refetch(&mut self) -> Result<Revalidation, GuardError> {
        let redactor = Redactor::new(self.config.secrets());
        let asked = Instant::now();
        let answer = refetch_card(
            &self.card.fetched_from,
            self.validators.etag.as_deref(),
            &self.config,
            ProtocolChoice::Auto,
            BindingChoice::Auto,
            &redactor,
        )
        .await?;
        let (card, validators) = match answer {
            CardRefetch::NotModified(validators) => {
                // A 304 may update the lifetime; it keeps the ETag it matched.
                self.validators.cache_control = validators.cache_control;
                self.fetched_at = asked;
                return Ok(Revalidation::NotModified);
            }
            CardRefetch::Served(card, validators) => (*card, validators),
        };
        let to = PeerKey::of(&card);
        if to == self.peer {
            self.validators = validators;
            self.fetched_at = asked;
            return Ok(Revalidation::Unchanged);
        }
        let endpoint = &card.endpoint.url;
        let url = url::Url::parse(endpoint).map_err(|source| GuardError::Endpoint {
            url: endpoint.clone(),
            source,
        })?;
        let client = PeerClient::new(
            url,
            card.protocol_version(),
            card.binding(),
            self.config.clone(),
        )?;
        let (cache, keep) = (self.cache.clone(), to.clone());
        let reset = blocking(move || cache.reset_card(&keep)).await?;
        let from = std::mem::replace(&mut self.peer, to.clone());
        self.card = card;
        self.client = client;
        self.validators = validators;
        self.fetched_at = asked;
        Ok(Revalidation::Changed { from, to, reset })
    }
}
