//! The command line: clap definitions for every subcommand and its options.
//! What the commands do lives in [`crate::app`].

use a2a_conform_mock::Behaviour;
use a2a_conform_report::diff::FailOn;
use a2a_conform_report::shard::Shard;
use a2a_conform_report::Format;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, Parser)]
#[command(
    name = "a2a-conform",
    version,
    about = "Checks, declaration by declaration, whether an A2A peer's runtime keeps what its agent card promises.",
    after_help = "Exit codes: 0 something verified and nothing diverged (the summary line says what was verified) · 1 a declaration diverged \
(or a flaky run under --fail-on-flaky, a stale baseline entry under --strict-baseline; diff: --fail-on triggered) · \
2 usage error, invalid suite, profile, baseline or report · 3 peer unreachable, no valid card, or not speaking A2A \
(a run ended in a peer malfunction: HTTP 5xx, HTML, not JSON, a wrong id, no answer in time) · \
4 nothing was verified (or a declared row left unverified under --fail-on-unverified, or the credentials \
given were refused with HTTP 401/403 on every request that carried them) · \
130/143 interrupted by SIGINT/SIGTERM (every requested report written, marked interrupted).\n\
When several apply, every reason is printed and the first of these wins: an unreadable card (3), \
a divergence (1), a peer malfunction or unreachable peer (3), credentials refused (4), \
an unverified row under --fail-on-unverified (4), nothing verified (4).\n\
Try it with no peer of your own: `a2a-conform demo`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Read flag defaults from this file instead of the a2a-conform.yaml (or
    /// .config/a2a-conform.yaml) found walking up from the working directory.
    #[arg(long, global = true, value_name = "FILE", env = "A2A_CONFORM_CONFIG")]
    pub config: Option<PathBuf>,
    /// Read no config file.
    #[arg(long, global = true)]
    pub no_config: bool,
}

/// `check --help`'s exit codes, with which wins when several apply (README, "Exit codes").
const CHECK_EXIT_CODES: &str = "Exit codes: 0 something verified and nothing fails the run · \
1 a declaration diverged (or a flaky run under --fail-on-flaky, a stale baseline entry under --strict-baseline) · \
2 usage error · 3 a card could not be read, or a run ended in a peer malfunction (HTTP 5xx, HTML, not JSON, \
a wrong id, no answer in time), or the peer was unreachable on every run · \
4 nothing was verified, or a declared row was left unverified under --fail-on-unverified, or the credentials \
given were refused (HTTP 401/403 on every request that carried them; the line names their flag, variable, \
config key or profile, never their value; refused on some requests only, the rows concerned read unverified) · \
130/143 interrupted.\n\
When several apply, every reason is printed, one `fails the run: …` line each (`fails the run (exit N): …` \
for a reason that did not decide the code), and the first in this order wins: an unreadable card (3), \
a divergence or --fail-on-flaky / --strict-baseline rule (1), a peer malfunction or unreachable peer (3), \
credentials refused (4), a row unverified under --fail-on-unverified (4), nothing verified (4).";

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Discover each peer's card, run the suite against it, and report.
    #[command(after_help = CHECK_EXIT_CODES)]
    Check(CheckArgs),
    /// Start the built-in mock peer in-process and check it: a full report with no peer of your own.
    Demo(DemoArgs),
    /// Compare two JSON reports: card and verdict changes, each a regression, fix or drift.
    Diff(DiffArgs),
    /// Join the JSON reports of `check --shard K/N` into one report (every shard, one check).
    Merge(MergeArgs),
    /// Write an SVG badge of a JSON report's declaration counts, for a README.
    Badge(BadgeArgs),
    /// Serve a cassette (`check --record FILE`) as a peer on loopback, until interrupted.
    ///
    /// It prints its card URL: `check` against it reproduces the recorded verdicts without the peer.
    Replay(ReplayArgs),
    /// Re-judge a cassette with this build and suite, without the peer.
    ///
    /// A scenario whose requests are not in the recording reads unverified. Exit codes as `check`'s.
    #[command(after_help = CHECK_EXIT_CODES)]
    Rejudge(RejudgeArgs),
    /// Check a fleet every period, keep its verdicts over time, alert on regressions.
    ///
    /// Each cycle's report goes to a database (SQLite or PostgreSQL) as verdict intervals per
    /// declaration; one alert is POSTed per regression (docs/watch.md).
    #[command(after_help = WATCH_EXIT_CODES)]
    Watch(WatchArgs),
    /// Import `check --json` reports into the history database, export them, show its intervals.
    ///
    /// The database `watch` writes (docs/history.md).
    #[command(subcommand)]
    History(HistoryCommand),
    /// Serve a history store's dashboard: fleet grid, peer pages, JSON API, /metrics, badges.
    ///
    /// Loopback by default; another address needs A2A_CONFORM_DASHBOARD_TOKEN (docs/dashboard.md).
    Dashboard(DashboardArgs),
    /// Fetch, validate and print a card's declarations.
    Card(CardArgs),
    /// Delegate one task to a peer under the guards, printing its timeline and what it demoted.
    ///
    /// Every declaration the peer broke on the way is demoted in the capability cache
    /// (docs/guards.md).
    #[command(after_help = SEND_EXIT_CODES)]
    Send(SendArgs),
    /// Validate suite files, or list the scenarios a suite holds.
    #[command(subcommand)]
    Suite(SuiteCommand),
    /// Serve the mock A2A peer on loopback until interrupted.
    MockPeer(MockPeerArgs),
    /// Show the effective settings and where each came from (flag, env var, the peer's own settings,
    /// config file, default).
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print a JSON Schema of a tool output.
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Write a per-peer profile from what the card itself offers.
    #[command(subcommand)]
    Profile(ProfileCommand),
    /// Print a shell completion script to stdout, e.g. `a2a-conform completions bash`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout, or write one page per subcommand into a directory.
    Man {
        /// Write a2a-conform.1 and a page per subcommand into this directory instead.
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
    },
}

const WATCH_EXIT_CODES: &str = "Exit codes:
  0    --cycles ran, or SIGTERM stopped the watch (an unfinished cycle is not recorded)
  2    usage error, or the history database failed
  130  SIGINT (Ctrl-C) stopped the watch";

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The period between cycles' starts, e.g. 1h; each peer starts at a stable offset
    /// inside a tenth of it (at most a minute). Resumed from the database's last record.
    #[arg(long, value_name = "DURATION", value_parser = period)]
    pub every: Duration,
    /// The history database: sqlite:PATH (created on first run) or postgres://USER@HOST/DB.
    #[arg(long, value_name = "URL")]
    pub db: String,
    /// POST one alert per regression here (JSON body in docs/watch.md; the URL is never printed).
    #[arg(long, value_name = "URL")]
    pub alert_webhook: Option<String>,
    /// The alert body: the documented JSON, or Slack's `{"text": …}`.
    #[arg(long, value_enum, default_value = "json", requires = "alert_webhook")]
    pub alert_format: AlertFormatArg,
    /// A dashboard's URL: the evidence link in alerts is its page of the peer at the record (BASE/peer/{peer}?record=N); else record:N.
    #[arg(long, value_name = "URL")]
    pub evidence_base: Option<String>,
    /// Stop after N cycles (default: until SIGTERM or SIGINT).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub cycles: Option<u64>,
    /// Drop stored reports of checks older than this after each cycle (their intervals stay).
    #[arg(long, value_name = "DURATION", value_parser = period)]
    pub retention: Option<Duration>,
    #[command(flatten)]
    pub check: CheckArgs,
}

/// `--alert-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlertFormatArg {
    Json,
    Slack,
}

#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Record `check --json` reports (shards too) in the database, oldest first.
    Import {
        /// The history database: sqlite:PATH or postgres://USER@HOST/DB.
        #[arg(long, value_name = "URL")]
        db: String,
        /// The reports (each at most 64 MiB).
        #[arg(value_name = "REPORT.json", required = true)]
        reports: Vec<PathBuf>,
    },
    /// Write every stored report back as record-NNNNNNNN.json (the JSON `check --json` wrote).
    Export {
        /// The history database.
        #[arg(long, value_name = "URL")]
        db: String,
        /// Only this peer (its card URL): each report keeps only its entry; reports without it are left out.
        #[arg(long, value_name = "CARD-URL")]
        peer: Option<String>,
        /// The folder to write into (created if missing).
        #[arg(short, long, value_name = "DIR")]
        output: PathBuf,
    },
    /// Print each (peer, declaration)'s verdict intervals and each card digest's, oldest first.
    Show {
        /// The history database.
        #[arg(long, value_name = "URL")]
        db: String,
        /// Only this peer (its card URL).
        #[arg(long, value_name = "CARD-URL")]
        peer: Option<String>,
    },
}

/// `replay FILE`: how to serve the cassette.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The cassette (`check --record FILE`; `*.gz` gzip; at most 64 MiB).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Loopback port (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Which recorded peer to serve (its index in the cassette).
    #[arg(long, default_value_t = 0)]
    pub peer: usize,
    /// Answer and stream at once instead of at the recorded offsets.
    #[arg(long, conflicts_with = "speed")]
    pub as_fast_as_possible: bool,
    /// Pass recorded offsets this many times faster (2: twice as fast).
    #[arg(long, value_name = "N", default_value_t = 1.0, value_parser = positive_speed)]
    pub speed: f64,
    /// Serve only this scenario's runs (its id, as a report names it) and the precondition searches;
    /// other requests are misses. Prints the `check` line that replays it.
    #[arg(long, value_name = "ID")]
    pub scenario: Option<String>,
}

/// `rejudge FILE`: the cassette and check's run options.
#[derive(Debug, Args)]
pub struct RejudgeArgs {
    /// The cassette (`check --record FILE`; `*.gz` gzip; at most 64 MiB).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Which recorded peer to re-judge (its index in the cassette).
    #[arg(long, default_value_t = 0)]
    pub peer: usize,
    /// Replay the recorded answers and events at once instead of at their recorded offsets (quicker;
    /// a verdict that depends on timing may then differ).
    #[arg(long, conflicts_with = "speed")]
    pub as_fast_as_possible: bool,
    /// Pass recorded offsets this many times faster.
    #[arg(long, value_name = "N", default_value_t = 1.0, value_parser = positive_speed)]
    pub speed: f64,
    #[command(flatten)]
    pub run: RunArgs,
}

/// A `--speed` that is no positive number.
#[derive(Debug, thiserror::Error)]
#[error("`{0}` is no positive number")]
pub struct SpeedError(String);

fn positive_speed(text: &str) -> Result<f64, SpeedError> {
    match text.parse::<f64>() {
        Ok(speed) if speed > 0.0 && speed.is_finite() => Ok(speed),
        _ => Err(SpeedError(text.to_string())),
    }
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print each `check` setting's effective value, the layer it came from and the lower layers it
    /// won over (secrets redacted), and the per-peer sections. With PEER: the values a check of PEER
    /// uses, its config section between the env vars and the file's top level.
    Show {
        #[arg(value_name = "PEER")]
        peer: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProfileCommand {
    /// Search the peer's card for the prompts a check needs (as `check` does when
    /// `prompt_input_required` is unset) and write a profile with what it found, for a CI job to
    /// pin with --profile. Credentials are named by environment variable, never written.
    /// Exit 0 when every precondition was found, 4 when one was not, 3 when the peer malfunctioned.
    Init(ProfileInitArgs),
}

/// How `profile init` and `send` reach one peer: credentials, headers,
/// timeout, version, binding and TLS, read by `options::init_top`.
#[derive(Debug, Args)]
pub struct PeerConnectArgs {
    /// Read a bearer token from this environment variable (never pass secrets in argv).
    #[arg(long, value_name = "VAR")]
    pub bearer_env: Option<String>,
    /// An extra request header, 'Name: value' (repeatable; redacted as a credential).
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Bound on each request's wait for an answer, e.g. 45s [default: 30s].
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub timeout: Option<Duration>,
    #[arg(long, value_enum, default_value = "auto")]
    pub protocol: ProtocolArg,
    #[arg(long, value_enum, default_value = "auto")]
    pub binding: BindingArg,
    #[command(flatten)]
    pub schemes: SchemeCredentialArgs,
    #[command(flatten)]
    pub tls: TlsArgs,
}

#[derive(Debug, Args)]
pub struct ProfileInitArgs {
    /// Card URL, or base URL of a peer.
    #[arg(value_name = "CARD-URL")]
    pub peer: String,
    /// Write the profile here (atomically) instead of stdout; an existing
    /// file is refused unless --force, and a symbolic link always.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace an existing --output file (never through a symbolic link).
    #[arg(long, requires = "output")]
    pub force: bool,
    /// The most tasks the search may start (each one it leaves unfinished is canceled).
    #[arg(long, value_name = "N", default_value_t = a2a_conform_engine::runner::DEFAULT_DISCOVER_BUDGET as u32,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub discover_budget: u32,
    #[command(flatten)]
    pub connect: PeerConnectArgs,
}

/// Credentials for the card's own security schemes, each read from the
/// environment variable a flag names (docs/security.md, "Credentials from the card").
#[derive(Debug, Clone, Default, Args)]
pub struct SchemeCredentialArgs {
    /// Read an API key from this environment variable, for a card scheme of type apiKey: sent in the
    /// header, query parameter or cookie the card names.
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Read HTTP basic credentials from two environment variables (user, password), for a card scheme
    /// `http` basic.
    #[arg(long, value_name = "USER_VAR:PASS_VAR")]
    pub basic_env: Option<String>,
    /// Read an OAuth 2.0 client id from this environment variable: with --oauth-client-secret-env, tokens
    /// come from the card's oauth2 clientCredentials tokenUrl (or openIdConnect discovery), with the
    /// scopes each requirement names, cached and refreshed for the check.
    #[arg(long, value_name = "VAR")]
    pub oauth_client_id_env: Option<String>,
    /// Read the OAuth 2.0 client secret from this environment variable; it goes only to the token URL the
    /// card names (https, or http to loopback; the card's origin only under --same-origin-credentials).
    #[arg(long, value_name = "VAR")]
    pub oauth_client_secret_env: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// The JSON Schema of the `check --json` report (docs/report.schema.json).
    Report,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProtocolArg {
    Auto,
    #[value(name = "1.0")]
    V1_0,
    #[value(name = "0.3")]
    V0_3,
    /// 1.0 plus the A2A 1.1 draft (dev-1.1): task generations, long-polling, ifGenerationMatch.
    #[value(name = "1.1-draft")]
    V1_1Draft,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MockProtocolArg {
    #[value(name = "1.0")]
    V1_0,
    #[value(name = "0.3")]
    V0_3,
    // v1.0 plus the A2A 1.1 draft's additions (mock-peer only). A plain
    // comment: a doc comment would make clap list the values one per line,
    // which `mock-peer --help` keeps for the behaviours.
    #[value(name = "1.1-draft")]
    V1_1Draft,
}

/// `demo --peer-protocol`: the mock's versions but the 1.1 draft, which only
/// `mock-peer` serves (clap's error lists what is accepted).
fn demo_protocol() -> impl clap::builder::TypedValueParser<Value = MockProtocolArg> {
    let versions = clap::builder::PossibleValuesParser::new(["1.0", "0.3"]);
    clap::builder::TypedValueParser::map(versions, |text| match text.as_str() {
        "0.3" => MockProtocolArg::V0_3,
        _ => MockProtocolArg::V1_0,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BindingArg {
    Auto,
    Jsonrpc,
    Rest,
    Grpc,
}

/// How a check shows runs as they finish, on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressArg {
    /// A bar when stderr is a terminal, one line per finished run otherwise (none under -q).
    Auto,
    /// An indicatif bar (drawn only on a terminal).
    Bar,
    /// One plain line per finished run: `PASS  cancel-then-stream  1.02s`.
    Lines,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Which scenarios, with which values, how to reach the peer, and where reports go.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A suite file (at most 4 MiB) to run in addition to the embedded default suite (repeatable).
    #[arg(long = "suite", value_name = "FILE")]
    pub suites: Vec<PathBuf>,
    /// Run only the --suite files: the embedded default suite is left out.
    #[arg(long)]
    pub no_default_suite: bool,
    /// Run only this scenario id (repeatable).
    #[arg(long = "scenario", value_name = "ID")]
    pub scenarios: Vec<String>,
    /// Never run this scenario id (repeatable).
    #[arg(long = "skip", value_name = "ID")]
    pub skip: Vec<String>,
    /// Set a scenario variable, e.g. prompt_input_required='I need a date' (repeatable; `NAME=` unsets).
    #[arg(long = "var", value_name = "NAME=VALUE")]
    pub vars: Vec<String>,
    /// A YAML profile for this peer (at most 4 MiB): vars, headers, timeout, bearer_env, api_key_env,
    /// basic_env, oauth_client_id_env, oauth_client_secret_env, cacert, cert, key. A flag or its env var
    /// wins over it; it wins over the peer's config section and the config file's top level.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Protocol version to speak: from the card, or forced; 1.1-draft speaks 1.0 and judges the
    /// draft's additions too (JSON-RPC and HTTP+JSON).
    #[arg(long, value_enum, default_value = "auto")]
    pub protocol: ProtocolArg,
    /// Binding to use: the card's first usable one, or forced.
    #[arg(long, value_enum, default_value = "auto")]
    pub binding: BindingArg,
    /// An extra request header, 'Name: value' (repeatable). Every value is a credential: sent to the
    /// card's origin and its endpoint, never across a redirect, and redacted everywhere unless named with
    /// --header-public.
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,
    /// Keep this --header/profile header readable: not redacted, not withheld as a credential (repeatable).
    #[arg(long = "header-public", value_name = "NAME")]
    pub public_headers: Vec<String>,
    /// Send no credentials to an endpoint on another origin than the card's (what needs them reads unverified).
    #[arg(long)]
    pub same_origin_credentials: bool,
    /// Read a bearer token from this environment variable (never pass secrets in argv).
    #[arg(long, value_name = "VAR")]
    pub bearer_env: Option<String>,
    #[command(flatten)]
    pub schemes: SchemeCredentialArgs,
    /// Bound on each request's wait for an answer, e.g. 45s [default: 30s, or the peer's own settings'].
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub timeout: Option<Duration>,
    /// Poll each card URL until it answers 2xx, up to this long, before checking
    /// (a peer still starting after a deploy); the attempts are noted on the peer.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub wait_for_card: Option<Duration>,
    /// The longest probe window a card's `defaultTimeout` may ask for (twice it); a longer one is
    /// clamped to this, with a card warning, and a stream still silent then reads inconclusive.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration, default_value = "120s")]
    pub max_probe_window: Duration,
    /// The tool's cap on events read from one stream; reaching it ends the run in error, never fail.
    #[arg(long, value_name = "N", default_value_t = a2a_conform_client::MAX_STREAM_EVENTS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_stream_events: usize,
    /// The tool's cap on bytes read from one stream; reaching it ends the run in error, never fail.
    #[arg(long, value_name = "BYTES", default_value_t = a2a_conform_client::MAX_STREAM_BYTES, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_stream_bytes: u64,
    /// The tool's cap on the size of one SSE event; reaching it ends the run in error, never fail.
    #[arg(long, value_name = "BYTES", default_value_t = a2a_conform_client::MAX_SSE_EVENT_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_event_bytes: usize,
    /// The tool's cap on a (non-streaming) response body; reaching it ends the run in error, never fail.
    #[arg(long, value_name = "BYTES", default_value_t = a2a_conform_client::MAX_BODY_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_body_bytes: usize,
    /// Scenario runs in flight at once against one peer (in all: jobs × --peers-in-flight).
    /// Default: sized from the peer's plan, the fewest in 8..=16 with which every run that
    /// waits for a slot still ends before the longest run (by its expected length).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: Option<u16>,
    /// The most runs one `for_each` scenario expands to (one per input mode or interface);
    /// the rest are skipped and the declarations they verify read unverified.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_runs_per_family: u32,
    /// A public key (PEM, JWK or JWK set) card signatures may verify against (repeatable);
    /// keys of a signature's `jku` are fetched too, without credentials.
    #[arg(long = "trusted-key", value_name = "FILE")]
    pub trusted_keys: Vec<PathBuf>,
    /// Re-run a failing scenario up to N times; pass-after-fail reads `flaky`.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10))]
    pub retries: u32,
    /// A flaky run (failed, then passed on a retry) fails the run; by default it does not.
    #[arg(long)]
    pub fail_on_flaky: bool,
    /// A declared row left unverified fails the run (exit 4), each named on stderr;
    /// by default the run passes if anything was verified and nothing diverged.
    #[arg(long)]
    pub fail_on_unverified: bool,
    /// Known divergences, YAML or JSON (at most 4 MiB): `- declaration: ID` or `- scenario: RUN-ID`, each with a `reason`.
    /// They still read diverged, marked baselined, but do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// A stale baseline entry (its target now honours or passes) fails the run.
    #[arg(long, requires = "baseline")]
    pub strict_baseline: bool,
    /// A broken SHOULD is a divergence: an artifact part of a type the send did not
    /// accept (acceptedOutputModes) or the card declares nowhere fails the run;
    /// by default it leaves the output-mode row unverified with a warning.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub reports: ReportFiles,
    /// Write a cassette of the check here (`*.gz`: gzip): every run's exchanges, stream
    /// events with their offsets and webhook deliveries, redacted. See docs/cassette.md.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// When `prompt_input_required` is not set, the most tasks one peer's search for a prompt
    /// that reaches input-required may start (the card's skill examples, then a few built-in
    /// requests; every task it starts is canceled). See docs/zero-config.md.
    #[arg(long, value_name = "N", default_value_t = a2a_conform_engine::runner::DEFAULT_DISCOVER_BUDGET as u32,
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub discover_budget: u32,
    /// Search for no precondition: with `prompt_input_required` unset, input-mode rows read
    /// unverified (for peers whose tasks cost money).
    #[arg(long)]
    pub no_discover: bool,
    #[command(flatten)]
    pub tls: TlsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The report files of `check` and `merge`: one flag per [`Format`], `-`
/// for stdout (the terminal report then goes to stderr). A new format is a
/// field here and its arm in [`ReportFiles::path`].
#[derive(Debug, Default, Args)]
pub struct ReportFiles {
    /// Write the JSON report here (the API; `diff` reads it); `-` is stdout
    /// (the terminal report then goes to stderr).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here: a testsuite per peer, a testcase per scenario run; `-` is stdout.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary here (fits a CI step summary such as $GITHUB_STEP_SUMMARY); `-` is stdout.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML report here (declarations, each run's steps, stream events on a
    /// time axis, the curl lines; no script, no external asset), e.g. a CI artifact; `-` is stdout.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

impl ReportFiles {
    /// The file asked for `format`, if any.
    pub fn path(&self, format: Format) -> Option<&Path> {
        match format {
            Format::Json => self.json.as_deref(),
            Format::Junit => self.junit.as_deref(),
            Format::Markdown => self.markdown.as_deref(),
            Format::Html => self.html.as_deref(),
        }
    }

    /// Every requested report, in the order of [`Format::all`].
    pub fn requested(&self) -> impl Iterator<Item = (Format, &Path)> {
        Format::all().filter_map(|format| Some((format, self.path(format)?)))
    }
}

/// How TLS peers are trusted and how the tool proves itself to them. The
/// system trust store (with SSL_CERT_FILE / SSL_CERT_DIR) is always used.
#[derive(Debug, Clone, Args)]
pub struct TlsArgs {
    /// Also trust this CA (PEM) for the peer's certificate.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Do not verify the peer's TLS certificate (every report says so).
    #[arg(long)]
    pub insecure: bool,
    /// A client certificate (PEM) for peers that require mTLS; needs --key.
    #[arg(long, value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// The client certificate's private key (PEM); needs --cert. Either
    /// half may come from another layer (flag, env var, config top level).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Colour in terminal output (NO_COLOR is respected under auto).
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
    /// Only the rows that fail the run (and any card error), then the headline.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Every scenario run and all evidence; in CI logs, a START line per run too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Live progress on stderr: a bar and the runs in flight on a terminal, a
    /// line per finished run in CI logs.
    #[arg(long, value_enum, default_value = "auto")]
    pub progress: ProgressArg,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Card URL(s), or base URL(s) of peers (then /.well-known/agent-card.json).
    #[arg(value_name = "CARD-URL", required_unless_present = "peers_file")]
    pub peers: Vec<String>,
    /// A fleet file (at most 4 MiB): one URL a line, or YAML `peers:` entries,
    /// each a URL or `url:` with any profile key (docs/fleets.md). Adds to CARD-URL.
    #[arg(long = "peers", value_name = "FILE")]
    pub peers_file: Option<PathBuf>,
    /// Peers checked at once; each has up to --jobs runs in flight.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub peers_in_flight: u16,
    /// Run only the K-th of N deterministic slices: of the peers, or of the
    /// scenario runs when there is one peer. Join the reports with `merge`.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The mock peer's behaviour: honest, or a named divergence (docs/mock-peer.md).
    #[arg(long, value_enum, default_value_t)]
    pub behaviour: Behaviour,
    /// The protocol version the mock peer speaks.
    #[arg(long = "peer-protocol", default_value = "1.0", value_parser = demo_protocol())]
    pub peer_protocol: MockProtocolArg,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier report (`check --json`; at most 64 MiB, as is the later).
    #[arg(value_name = "OLD.json")]
    pub old: PathBuf,
    /// The later report.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
    /// Print the comparison as JSON (schema in docs/reports.md).
    #[arg(long)]
    pub json: bool,
    /// Which changes make diff exit 1 (accepted changes never do).
    #[arg(long, value_enum, default_value_t = FailOn::Regression)]
    pub fail_on: FailOn,
    /// Known divergences (the file `check --baseline` reads): a divergence it
    /// knows is drift, not a regression. Its `accept:` list acts as --accept.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Acknowledge a deliberate change by its id (a declaration such as
    /// 'interfaces[JSONRPC 0.3]', a scenario run, or a card field such as
    /// card_digest): it is listed as accepted, not failed (repeatable).
    #[arg(long = "accept", value_name = "ID")]
    pub accept: Vec<String>,
    /// Write the comparison as Markdown here (fits a CI step summary); `-` is stdout.
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Colour in terminal output (NO_COLOR is respected under auto).
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shard reports (`check --shard K/N --json FILE`), every shard once.
    #[arg(value_name = "REPORT.json", required = true)]
    pub reports: Vec<PathBuf>,
    #[command(flatten)]
    pub files: ReportFiles,
    /// Colour in terminal output (NO_COLOR is respected under auto).
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
    /// Only the rows that fail the run (and any card error), then the headline.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Every scenario run and all evidence.
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct CardArgs {
    /// Card URL, or base URL of a peer.
    #[arg(value_name = "CARD-URL")]
    pub peer: String,
    #[arg(long, value_enum, default_value = "auto")]
    pub protocol: ProtocolArg,
    #[arg(long, value_enum, default_value = "auto")]
    pub binding: BindingArg,
    /// Print the parsed card as JSON.
    #[arg(long)]
    pub json: bool,
    /// Colour in terminal output (NO_COLOR is respected under auto), as `check` takes it.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorArg,
    /// Bound on the fetch, e.g. 10s [default: 30s].
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub timeout: Option<Duration>,
    #[command(flatten)]
    pub tls: TlsArgs,
}

#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// Validate suite files: unknown keys, bad references, duplicate ids (with file:line:col).
    /// The files are checked together with the embedded default suite, as `check --suite` runs them.
    Lint {
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// Check the files on their own, as `check --no-default-suite` runs them.
        #[arg(long)]
        no_default_suite: bool,
    },
    /// List scenarios: id, what each verifies, and its title.
    List {
        /// Add this suite file to the listing (repeatable).
        #[arg(long = "suite", value_name = "FILE")]
        suites: Vec<PathBuf>,
        /// List only the --suite files.
        #[arg(long)]
        no_default_suite: bool,
        /// Print the listing as a JSON array, for scripts.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct MockPeerArgs {
    /// The behaviour: honest, or a named divergence (docs/mock-peer.md).
    #[arg(long, value_enum, default_value_t)]
    pub behaviour: Behaviour,
    /// The protocol version the peer speaks and its card declares;
    /// `1.1-draft` is 1.0 plus the A2A 1.1 draft's additions over JSON-RPC
    /// and HTTP+JSON (docs/mock-peer.md).
    #[arg(long, value_enum, default_value = "1.0")]
    pub protocol: MockProtocolArg,
    /// Loopback port (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// How many chunks a task's artifact is streamed in.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub chunks: u32,
    /// The pause before each chunk, e.g. 200ms (chunks x interval = a task's work).
    #[arg(long, default_value = "200ms", value_name = "DURATION", value_parser = duration)]
    pub chunk_interval: Duration,
    /// How long `stream-silent` behaviours keep a stream open without events.
    #[arg(long, default_value = "60s", value_name = "DURATION", value_parser = duration)]
    pub silence: Duration,
    /// The bearer token `secured` requires (also the API key of
    /// `secured-api-key` and the OAuth client secret of `secured-oauth`),
    /// read from this environment variable (default: a2a-conform-mock-token).
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// Serve HTTPS with a fresh CA, writing ca.pem (for --cacert),
    /// client.pem and client.key (for --cert/--key) into DIR.
    #[arg(long, value_name = "DIR")]
    pub tls: Option<PathBuf>,
    /// With --tls: refuse clients without a certificate the CA signed (mTLS).
    #[arg(long, requires = "tls")]
    pub require_client_cert: bool,
    /// Write the public key the card is signed with (a JWK) to this file, for
    /// `check --trusted-key` (signed-card, signed-card-tampered).
    #[arg(long, value_name = "FILE")]
    pub public_key_out: Option<std::path::PathBuf>,
    /// Also serve gRPC (v1.0's or v0.3's service) on a second loopback port
    /// and declare it, whatever the behaviour (the grpc behaviours always do).
    #[arg(long)]
    pub grpc: bool,
}

/// A duration flag or profile value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not the scenario duration syntax (15s, 500ms, 2m, bare seconds).
    #[error(transparent)]
    Syntax(#[from] a2a_conform_engine::scenario::vars::DurationSyntaxError),
    #[error("must be more than zero")]
    Zero,
    /// Not a period (`watch --every`, `--retention`).
    #[error("`{text}`: {reason} (e.g. 30s, 15m, 1h, 7d)")]
    Period { text: String, reason: String },
}

/// A duration written as scenarios write them: 15s, 500ms, 2m, or bare seconds.
pub fn duration(text: &str) -> Result<Duration, DurationError> {
    a2a_conform_engine::scenario::vars::parse_duration(text).map_err(DurationError::Syntax)
}

/// A [`duration`] that bounds a wait, so zero is refused.
pub fn positive_duration(text: &str) -> Result<Duration, DurationError> {
    match duration(text)? {
        d if d.is_zero() => Err(DurationError::Zero),
        d => Ok(d),
    }
}

/// `watch --every` and `--retention`: a positive period in whole units of
/// ms, s, m, h or d, combinable (`1h30m`, `7d`).
pub fn period(text: &str) -> Result<Duration, DurationError> {
    match humantime::parse_duration(text.trim()) {
        Ok(d) if d.is_zero() => Err(DurationError::Zero),
        Ok(d) => Ok(d),
        Err(e) => Err(DurationError::Period {
            text: text.to_string(),
            reason: e.to_string(),
        }),
    }
}

const SEND_EXIT_CODES: &str = "Exit codes: 0 the task reached its outcome and every declaration relied on was kept · \
1 the peer broke a declaration (routed around or not; each one is printed and demoted), a refusal \
(-32005) of a media type the card declares among them · 2 usage error (a bad flag, an unreadable file, \
JSON that does not parse, or a part of a media type the card never declares, which the peer refused: \
its valid answer, nothing demoted) · 3 the peer malfunctioned, was unreachable, refused the message \
otherwise or did not settle in time. Once the card is asked for, --json is written whatever the run ends in, with every exchange made.";

/// `send`: one task, guarded.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("message").required(true).args(["text", "data", "file"])))]
#[command(group(clap::ArgGroup::new("resume").args(["resume_text", "resume_data"])))]
pub struct SendArgs {
    /// Card URL, or base URL of a peer.
    #[arg(value_name = "CARD-URL")]
    pub peer: String,
    /// Send this text part.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    /// Send this JSON value as a data part (application/json).
    #[arg(long, value_name = "JSON")]
    pub data: Option<String>,
    /// Send this file's bytes as a file part (its media type guessed from its name).
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Open the task on a stream, probed: a stream that stays silent is demoted and the task polled.
    #[arg(long)]
    pub stream: bool,
    /// Cancel the task after this long and confirm the cancel, e.g. 2s.
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub cancel_after: Option<Duration>,
    /// When the task stops for input, answer with this text.
    #[arg(long, value_name = "TEXT")]
    pub resume_text: Option<String>,
    /// When the task stops for input, answer with this JSON data part (its text the fallback).
    #[arg(long, value_name = "JSON")]
    pub resume_data: Option<String>,
    /// The capability cache file, shared with other processes [default: in memory].
    #[arg(long, value_name = "FILE")]
    pub cache: Option<PathBuf>,
    /// Seed the cache from a `check --json` report: its diverged declarations are demoted.
    #[arg(long, value_name = "REPORT.json")]
    pub from_report: Option<PathBuf>,
    /// Write {outcome, violations, exchanges} (redacted) as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// The streaming probe's window [default: twice the card's defaultTimeout, else 15s].
    #[arg(long, value_name = "DURATION", value_parser = positive_duration)]
    pub probe_window: Option<Duration>,
    #[command(flatten)]
    pub connect: PeerConnectArgs,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_caps_have_documented_defaults_and_refuse_zero() {
        let cli = Cli::try_parse_from(["a2a-conform", "check", "http://p"]).unwrap();
        let Command::Check(check) = cli.command else {
            panic!("not check")
        };
        assert_eq!(check.run.max_probe_window, Duration::from_secs(120));
        assert_eq!(
            check.run.max_stream_events,
            a2a_conform_client::MAX_STREAM_EVENTS
        );
        assert_eq!(
            check.run.max_stream_bytes,
            a2a_conform_client::MAX_STREAM_BYTES
        );
        assert_eq!(
            check.run.max_event_bytes,
            a2a_conform_client::MAX_SSE_EVENT_BYTES
        );
        assert_eq!(check.run.max_body_bytes, a2a_conform_client::MAX_BODY_BYTES);
        for flag in [
            "--max-stream-events",
            "--max-stream-bytes",
            "--max-event-bytes",
            "--max-body-bytes",
            "--max-probe-window",
        ] {
            let e =
                Cli::try_parse_from(["a2a-conform", "check", "http://p", flag, "0"]).unwrap_err();
            assert_eq!(e.exit_code(), a2a_conform_report::exit::USAGE, "{flag}");
        }
    }

    #[test]
    fn durations_are_parsed_by_clap_and_zero_timeouts_refused() {
        let cli =
            Cli::try_parse_from(["a2a-conform", "card", "http://p", "--timeout", "500ms"]).unwrap();
        let Command::Card(card) = cli.command else {
            panic!("not card");
        };
        assert_eq!(card.timeout, Some(Duration::from_millis(500)));
        for bad in ["soon", "0", "0s", "5h"] {
            let e = Cli::try_parse_from(["a2a-conform", "card", "http://p", "--timeout", bad])
                .unwrap_err();
            assert_eq!(e.exit_code(), a2a_conform_report::exit::USAGE, "{bad}");
            assert!(e.to_string().contains(bad), "{bad}: {e}");
        }
        let e = Cli::try_parse_from(["a2a-conform", "card", "p", "--timeout", "0"]).unwrap_err();
        assert!(e.to_string().contains("must be more than zero"), "{e}");
    }

    #[test]
    fn behaviours_are_parsed_by_clap_and_a_typo_lists_the_names() {
        let cli = Cli::try_parse_from(["a2a-conform", "mock-peer", "--behaviour", "cancel-leak"])
            .unwrap();
        let Command::MockPeer(args) = cli.command else {
            panic!("not mock-peer");
        };
        assert_eq!(args.behaviour, Behaviour::CancelLeak);
        assert_eq!(args.silence, Duration::from_secs(60));
        let e = Cli::try_parse_from(["a2a-conform", "demo", "--behaviour", "leaky"]).unwrap_err();
        assert_eq!(e.exit_code(), a2a_conform_report::exit::USAGE);
        let help = Cli::command()
            .find_subcommand_mut("mock-peer")
            .unwrap()
            .render_help()
            .to_string();
        for b in Behaviour::all() {
            assert!(help.contains(&b.name()), "{} missing from {help}", b.name());
        }
    }

    #[test]
    fn the_1_1_draft_is_a_mock_peer_protocol_that_demo_refuses() {
        let cli =
            Cli::try_parse_from(["a2a-conform", "mock-peer", "--protocol", "1.1-draft"]).unwrap();
        let Command::MockPeer(args) = cli.command else {
            panic!("not mock-peer");
        };
        assert_eq!(args.protocol, MockProtocolArg::V1_1Draft);
        for (text, want) in [
            ("1.0", MockProtocolArg::V1_0),
            ("0.3", MockProtocolArg::V0_3),
        ] {
            let cli =
                Cli::try_parse_from(["a2a-conform", "demo", "--peer-protocol", text]).unwrap();
            let Command::Demo(args) = cli.command else {
                panic!("not demo");
            };
            assert_eq!(args.peer_protocol, want);
        }
        let e = Cli::try_parse_from(["a2a-conform", "demo", "--peer-protocol", "1.1-draft"])
            .unwrap_err();
        assert_eq!(e.exit_code(), a2a_conform_report::exit::USAGE);
        assert!(e.to_string().contains("1.1-draft"), "{e}");
    }
}

#[derive(Debug, Args)]
pub struct BadgeArgs {
    /// The JSON report (`check --json FILE`) whose declarations the badge counts.
    #[arg(value_name = "REPORT.json")]
    pub report: PathBuf,
    /// Write the SVG here instead of stdout (`-` is stdout).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The badge's left-hand text.
    #[arg(long, default_value = "a2a-conform")]
    pub label: String,
}

#[derive(Debug, Args)]
pub struct DashboardArgs {
    /// The history store: `sqlite:PATH` or `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
    #[arg(long, value_name = "URL")]
    pub db: String,
    /// The address to serve on (port 0: any free port; the address taken is printed on stderr).
    /// Any address but loopback requires a token in A2A_CONFORM_DASHBOARD_TOKEN, which every
    /// request must then carry as `Authorization: Bearer TOKEN` (so does loopback when it is set).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8023")]
    pub listen: std::net::SocketAddr,
}
