//! What a peer made of the credentials given for it: every answer to a
//! request of a run that carried them (and every token request for them)
//! counted, accepted or refused (HTTP 401/403), for the peer's report
//! ([`CredentialsReport`]). Refused on every one, the check fails closed
//! (`a2a_conform_report::verdict::credentials_reasons`). Where they came
//! from is named by flag, variable, config key or profile, never by value.

use super::options::RunOptions;
use a2a_conform_report::CredentialsReport;
use std::sync::atomic::{AtomicU32, Ordering};

/// One peer's count of requests that carried the credentials given and
/// got an answer, and of those the peer refused. Shared by its runs.
#[derive(Debug, Default)]
pub(crate) struct CredentialTally {
    sent: AtomicU32,
    refused: AtomicU32,
}

impl CredentialTally {
    /// One answer to a request that carried the credentials.
    pub(crate) fn answered(&self, refused: bool) {
        self.sent.fetch_add(1, Ordering::Relaxed);
        if refused {
            self.refused.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The peer's record: `None` when no credentials were given or the peer
    /// accepted every request that carried them (at least one).
    pub(crate) fn report(&self, options: &RunOptions) -> Option<CredentialsReport> {
        let sources = sources(options);
        let sent = self.sent.load(Ordering::Relaxed);
        let refused = self.refused.load(Ordering::Relaxed);
        if sources.is_empty() || (sent > 0 && refused == 0) {
            return None;
        }
        Some(CredentialsReport {
            sources,
            sent,
            refused,
        })
    }
}

/// Where the credentials given come from: as the caller named them
/// ([`RunOptions::credential_sources`]), else by the flags that carry them
/// and the variables or header names they name.
fn sources(options: &RunOptions) -> Vec<String> {
    if !options.credential_sources.is_empty() {
        return options.credential_sources.clone();
    }
    let client = &options.client;
    let mut out = Vec::new();
    if let Some((var, _)) = &client.bearer {
        out.push(format!("--bearer-env {var}"));
    }
    for (name, _) in &client.headers {
        if !client.is_public(name) {
            out.push(format!("header {}", name.trim()));
        }
    }
    let auth = &options.auth;
    if let Some(key) = &auth.api_key {
        out.push(format!("--api-key-env {}", key.var));
    }
    if let Some((user, password)) = &auth.basic {
        out.push(format!("--basic-env {}:{}", user.var, password.var));
    }
    if let Some(oauth) = &auth.oauth_client {
        out.push(format!(
            "--oauth-client-id-env {} and --oauth-client-secret-env {}",
            oauth.id.var, oauth.secret.var
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_client::auth::{AuthSettings, EnvSecret};
    use std::sync::Arc;

    fn options() -> RunOptions {
        let mut options = RunOptions::default();
        options.client.bearer = Some(("PEER_TOKEN".into(), "s3cret-value-1".into()));
        options.auth = Arc::new(AuthSettings {
            api_key: Some(EnvSecret {
                var: "PEER_KEY".into(),
                value: "s3cret-value-2".into(),
            }),
            ..AuthSettings::default()
        });
        options
    }

    #[test]
    fn refused_everywhere_is_reported_by_source_never_by_value() {
        let tally = CredentialTally::default();
        tally.answered(true);
        tally.answered(true);
        let report = tally.report(&options()).expect("refused: reported");
        assert_eq!(
            report.sources,
            vec!["--bearer-env PEER_TOKEN", "--api-key-env PEER_KEY"]
        );
        assert_eq!((report.sent, report.refused), (2, 2));
        assert!(report.refused_everywhere());
        assert!(!format!("{report:?}").contains("s3cret"));
    }

    #[test]
    fn accepted_once_is_partial_and_accepted_always_is_not_reported() {
        let tally = CredentialTally::default();
        tally.answered(false);
        assert_eq!(tally.report(&options()), None);
        tally.answered(true);
        let partial = tally.report(&options()).expect("one refusal: reported");
        assert!(!partial.refused_everywhere());
        // None given: nothing to report, whatever the peer answered.
        assert_eq!(tally.report(&RunOptions::default()), None);
        // Given, never carried (only probes without them ran): reported,
        // so a merge of shards sees it, and no refusal.
        let unused = CredentialTally::default().report(&options()).unwrap();
        assert_eq!((unused.sent, unused.refused), (0, 0));
        assert!(!unused.refused_everywhere());
    }

    #[test]
    fn the_caller_names_the_sources_when_it_knows_them() {
        let options = RunOptions {
            credential_sources: vec!["bearer_env PEER_TOKEN (profile `prod`)".into()],
            ..options()
        };
        let tally = CredentialTally::default();
        tally.answered(true);
        assert_eq!(
            tally.report(&options).unwrap().named(),
            "bearer_env PEER_TOKEN (profile `prod`)"
        );
    }
}
