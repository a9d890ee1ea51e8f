//! The one error of the command line: every way a command stops before it
//! has a result, each knowing its exit code (compare cargo-nextest's
//! `ExpectedError::process_exit_code`). Messages carry no `error: ` prefix;
//! [`crate::app::run`] prints each once as `error: {e}`. A failed check is
//! a result, never one of these.

use crate::profile::ProfileError;
use a2a_conform_engine::scenario::SuiteError;
use a2a_conform_report::baseline::BaselineError;
use a2a_conform_report::diff::DiffInputError;
use a2a_conform_report::exit;
use std::path::PathBuf;

/// Why a command could not produce its result.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// A suite file that does not load (its message shows the offending line).
    #[error("{}", without_prefix(&.0.to_string()))]
    Suite(#[from] SuiteError),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Baseline(#[from] BaselineError),
    /// The config file (`a2a-conform.yaml`, `--config`) does not load.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// A `diff` input that is unreadable or not a report this build reads.
    #[error(transparent)]
    Report(#[from] DiffInputError),
    /// A `check --peers` fleet file that cannot be used.
    #[error(transparent)]
    Fleet(#[from] crate::fleet::FleetError),
    /// `merge` inputs that are not shards of one check.
    #[error(transparent)]
    Merge(#[from] a2a_conform_report::merge::MergeError),
    /// A report format that could not be rendered.
    #[error("{0}")]
    RenderReport(String),
    /// The report with every secret masked no longer reads as a report (a
    /// secret equal to a word it is made of): nothing is written, never the
    /// unmasked report.
    #[error("cannot redact the report: with every configured secret masked it no longer reads as a report ({0}), so no report was written; a secret equals a word the report is made of (a header that is no secret can be named with --header-public NAME)")]
    Redaction(#[source] serde_json::Error),
    #[error("cannot write {}: {source}", path.display())]
    WriteReport {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The peer could not be reached or served no usable card.
    #[error("{0}")]
    Peer(String),
    /// The mock peer could not listen on loopback.
    #[error("cannot {action} on {address}: {source}")]
    MockPeer {
        action: &'static str,
        address: String,
        source: std::io::Error,
    },
    /// The history database (`watch --db`, `history`) failed; the message
    /// names no password.
    #[error("{0}")]
    History(String),
    /// A cassette (`replay`, `rejudge`) refused: truncated, tampered,
    /// another format version, too large, malformed or unreadable.
    #[error(transparent)]
    Cassette(#[from] a2a_conform_cassette::CassetteError),
    /// A cassette that cannot be served (no such peer, no card, no port).
    #[error("cannot replay {}: {source}", path.display())]
    Replay {
        path: PathBuf,
        source: a2a_conform_cassette::ReplayError,
    },
    /// `mock-peer --tls DIR`: the certificates could not be made or written.
    #[error("cannot set up the mock peer's TLS in {}: {source}", dir.display())]
    MockTls {
        dir: std::path::PathBuf,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// `dashboard`: the store, the address or the token.
    #[error("{0}")]
    Dashboard(String),
}

impl AppError {
    /// The process exit code this error calls for (README, "Exit codes").
    pub fn exit_code(&self) -> i32 {
        match self {
            AppError::Usage(_)
            | AppError::Suite(_)
            | AppError::Profile(_)
            | AppError::Baseline(_)
            | AppError::Config(_)
            | AppError::Report(_)
            | AppError::Fleet(_)
            | AppError::Merge(_)
            | AppError::RenderReport(_)
            | AppError::Redaction(_)
            | AppError::WriteReport { .. }
            | AppError::Runtime(_)
            | AppError::History(_) => exit::USAGE,
            AppError::Peer(_) | AppError::MockPeer { .. } => exit::PEER_UNREACHABLE,
            AppError::MockTls { .. } | AppError::Dashboard(_) => exit::USAGE,
            AppError::Cassette(_) | AppError::Replay { .. } => exit::USAGE,
        }
    }

    /// Prints the error the one way errors are shown, on stderr. A message
    /// may quote a peer (a card error) or a file: its controls are shown,
    /// not obeyed.
    pub fn print(&self) {
        eprintln!(
            "error: {}",
            a2a_conform_report::inert::terminal_block(&self.to_string())
        );
    }
}

/// A flag value or combination a command cannot use (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// One of two settings that only work together (`cert`/`key`, an
    /// OAuth client's id and secret), given by the flags, their env vars
    /// and the config file's top level without the other.
    #[error("--{given} needs --{missing} ({why}); the flags, their A2A_CONFORM_* variables and the config file's top level give only --{given}")]
    HalfPair {
        given: String,
        missing: String,
        why: &'static str,
    },
    #[error("--var `{0}` must be NAME=VALUE")]
    VarSyntax(String),
    #[error("--var `{0}` has an empty name")]
    VarEmptyName(String),
    #[error("--header `{0}` must be 'Name: value'")]
    HeaderSyntax(String),
    #[error("{flag} {var}: the environment variable `{var}` is not set")]
    EnvUnset { flag: &'static str, var: String },
    #[error("{flag} {var}: `{var}` is empty")]
    EnvEmpty { flag: &'static str, var: String },
    /// A header name that is not an HTTP token (the value is not shown: it may be a secret).
    #[error("header `{name}`: not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)")]
    HeaderName { name: String },
    /// A header value with CR, LF or another control character: it would
    /// split or corrupt the request (the value is not shown: it may be a secret).
    #[error("header `{name}`: the value contains a control character (CR, LF, tab, NUL…); a header value must be one line of text")]
    HeaderControl { name: String },
    #[error("{flag} {var}: `{var}` contains a control character (CR, LF, tab, NUL…), e.g. a trailing newline; a token must be one line of text")]
    EnvControl { flag: &'static str, var: String },
    /// A typed built-in variable set to a value its steps cannot use.
    #[error("{origin}: `{name}={value}` is out of range: {name} must be {expected}")]
    VarValue {
        /// Where it was set: `--var`, or `profile FILE`.
        origin: String,
        name: String,
        value: String,
        expected: &'static str,
    },
    /// A value that is not the name of a set variable and may be the secret
    /// itself: it is never echoed.
    #[error("{flag} takes the NAME of an environment variable, not a token (the value given names no set variable and is not shown)")]
    NotAnEnvName { flag: &'static str },
    /// A peer given without `http://` or `https://`, or otherwise not a URL.
    #[error(transparent)]
    PeerUrl(#[from] a2a_conform_protocol::card::CardError),
    /// A report path that cannot be written, found before the first request.
    #[error("{flag} {}: cannot write a report there: {source}", path.display())]
    ReportPath {
        flag: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// `profile init -o FILE` on a file that exists, without `--force`.
    #[error("--output {}: the file exists; pass --force to replace it", path.display())]
    OutputExists { path: PathBuf },
    /// `profile init -o LINK`: a symbolic link is never written through
    /// (its target may be any file) nor replaced.
    #[error("--output {}: a symbolic link; profile init writes no file through one (name the file itself)", path.display())]
    OutputSymlink { path: PathBuf },
    /// A `--cacert`, `--cert` or `--key` file that cannot be used.
    #[error("{flag} {}: {reason}", path.display())]
    TlsFile {
        flag: &'static str,
        path: PathBuf,
        reason: String,
    },
    /// A `--trusted-key` file that cannot be read or holds no usable key.
    #[error("--trusted-key {}: {reason}", path.display())]
    TrustedKey { path: PathBuf, reason: String },
    #[error("only one of --json, --junit, --markdown and --html can be `-` (stdout)")]
    StdoutTwice,
    /// Two report flags naming one file: only the last report would be left.
    #[error("{first} and {second} both name {}: give each report a file of its own", path.display())]
    SameReportFile {
        first: &'static str,
        second: &'static str,
        path: PathBuf,
    },
    #[error("--no-default-suite needs at least one --suite FILE")]
    NoSuiteFile,
    #[error("no scenario `{id}` in the suite{} (see `a2a-conform suite list`)", did_you_mean(.suggestion))]
    UnknownScenario {
        id: String,
        suggestion: Option<String>,
    },
    /// A variable no loaded scenario can read: most likely a typo, which
    /// would otherwise leave rows unverified under a green run.
    #[error("{origin}: unknown variable `{name}`{}: not built in and not in any loaded suite's `vars` (known: {})", did_you_mean(.suggestion), .known.join(", "))]
    UnknownVar {
        /// Where it was set: `--var`, or `profile FILE`.
        origin: String,
        name: String,
        suggestion: Option<String>,
        known: Vec<String>,
    },
    /// An `--alert-webhook` or `--evidence-base` that is not an http(s)
    /// URL with a host. The value is never shown: a webhook URL is a secret
    /// (Slack's carries its token), and the reason names no part of it.
    #[error("{flag}: not an http(s) URL ({reason}); the value is not shown")]
    NotHttpUrl { flag: &'static str, reason: String },
    /// `--basic-env` without the `:` between its two variable names.
    #[error("--basic-env takes two environment variable names, USER_VAR:PASS_VAR")]
    BasicEnvSyntax,
    /// `history export -o -`: export writes a file per record into a
    /// folder, so `-` would be a folder named `-`, not stdout.
    #[error("history export -o takes a folder (export writes one file per record into it), not `-`: give a folder, e.g. -o ./-")]
    ExportToStdout,
}

fn did_you_mean(suggestion: &Option<String>) -> String {
    suggestion
        .as_ref()
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default()
}

/// A message without the `error: ` its producer may already have put in
/// front, so that it is printed with exactly one.
fn without_prefix(message: &str) -> &str {
    message.strip_prefix("error: ").unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_knows_its_exit_code_and_says_error_once() {
        let usage = AppError::from(UsageError::UnknownScenario {
            id: "nope".into(),
            suggestion: None,
        });
        assert_eq!(usage.exit_code(), exit::USAGE);
        assert_eq!(
            usage.to_string(),
            "no scenario `nope` in the suite (see `a2a-conform suite list`)"
        );
        let peer = AppError::Peer("cannot fetch the card".into());
        assert_eq!(peer.exit_code(), exit::PEER_UNREACHABLE);
        let suite = a2a_conform_engine::scenario::Suite::default()
            .add_file(std::path::Path::new("/no/such/suite.yaml"))
            .unwrap_err();
        let suite = AppError::from(suite);
        assert_eq!(suite.exit_code(), exit::USAGE);
        assert!(!suite.to_string().starts_with("error: "), "{suite}");
        assert!(suite.to_string().contains("suite.yaml"), "{suite}");
    }
}
