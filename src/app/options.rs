//! Turning each peer's resolved settings ([`crate::settings`]) and the
//! check-wide flags into run options, checked before any request: variable
//! and scenario names, header and token values, TLS files (read within the
//! input cap, once per check), peer URLs.

use crate::cli::{
    BindingArg, MockProtocolArg, PeerConnectArgs, ProtocolArg, RunArgs, SchemeCredentialArgs,
    TlsArgs,
};
use crate::error::{AppError, UsageError};
use crate::settings::{Layer, PeerSettings, Resolved, Sourced, Sources, Top};
use a2a_conform_client::auth::{AuthSettings, EnvSecret, OAuthClient};
use a2a_conform_client::client::ClientConfig;
use a2a_conform_client::http::{GrpcIdentity, TlsOptions};
use a2a_conform_client::Limits;
use a2a_conform_client::Redactor;
use a2a_conform_engine::runner::RunOptions;
use a2a_conform_engine::scenario::Suite;
use a2a_conform_protocol::card::signature::{self, TrustedKey};
use a2a_conform_protocol::card::{BindingChoice, ProtocolChoice};
use a2a_conform_protocol::declaration::closest;
use a2a_conform_protocol::{Binding, ProtocolVersion};
use a2a_conform_report::input::{read_capped, ReadError};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A PEM file (a CA bundle, a client certificate, its key) is small text:
/// read within this cap, so `/dev/zero` or a huge file is refused at once.
const PEM_CAP: u64 = 4 * 1024 * 1024;

pub(super) fn protocol_choice(arg: ProtocolArg) -> ProtocolChoice {
    match arg {
        ProtocolArg::Auto => ProtocolChoice::Auto,
        ProtocolArg::V1_0 => ProtocolChoice::Force(ProtocolVersion::V1_0),
        ProtocolArg::V0_3 => ProtocolChoice::Force(ProtocolVersion::V0_3),
        ProtocolArg::V1_1Draft => ProtocolChoice::Draft1_1,
    }
}

pub(super) fn binding_choice(arg: BindingArg) -> BindingChoice {
    match arg {
        BindingArg::Auto => BindingChoice::Auto,
        BindingArg::Jsonrpc => BindingChoice::Force(Binding::Jsonrpc),
        BindingArg::Rest => BindingChoice::Force(Binding::Rest),
        BindingArg::Grpc => BindingChoice::Force(Binding::Grpc),
    }
}

/// The version the mock speaks: the 1.1 draft is served on top of 1.0.
pub(super) fn mock_protocol(arg: MockProtocolArg) -> ProtocolVersion {
    match arg {
        MockProtocolArg::V1_0 | MockProtocolArg::V1_1Draft => ProtocolVersion::V1_0,
        MockProtocolArg::V0_3 => ProtocolVersion::V0_3,
    }
}

/// Whether the mock serves the 1.1 draft's additions (`MockConfig::draft_1_1`).
pub(super) fn mock_draft(arg: MockProtocolArg) -> bool {
    arg == MockProtocolArg::V1_1Draft
}

/// Whether `text` is shaped like an environment variable's name
/// (`[A-Za-z_][A-Za-z0-9_]*`) and not like a token: long, without
/// underscores, and mixing letters with digits.
pub(super) fn name_shaped(text: &str) -> bool {
    let mut chars = text.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let token_like = text.len() >= 20
        && !text.contains('_')
        && text.chars().any(|c| c.is_ascii_digit())
        && text.chars().any(|c| c.is_ascii_alphabetic());
    first_ok && rest_ok && text.len() <= 128 && !token_like
}

/// Whether `text` is a conventional (upper case) variable name, safe to
/// echo in an error: anything else may be the secret itself.
pub(super) fn conventional_name(text: &str) -> bool {
    name_shaped(text) && !text.chars().any(|c| c.is_ascii_lowercase())
}

/// Reads a non-empty secret from the environment variable a flag names.
/// A value that may be the token itself is never echoed.
pub(super) fn env_secret(flag: &'static str, var: &str) -> Result<String, UsageError> {
    if !name_shaped(var) {
        return Err(UsageError::NotAnEnvName { flag });
    }
    let token = std::env::var(var).map_err(|_| {
        if conventional_name(var) {
            UsageError::EnvUnset {
                flag,
                var: var.to_string(),
            }
        } else {
            UsageError::NotAnEnvName { flag }
        }
    })?;
    if token.trim().is_empty() {
        return Err(UsageError::EnvEmpty {
            flag,
            var: var.to_string(),
        });
    }
    // It becomes a header value: CR/LF would split the request.
    if token.chars().any(char::is_control) {
        return Err(UsageError::EnvControl {
            flag,
            var: var.to_string(),
        });
    }
    Ok(token)
}

/// `--header 'Name: value'` flags, split and checked before any request.
pub(super) fn header_flags(flags: &[String]) -> Result<Vec<(String, String)>, UsageError> {
    flags
        .iter()
        .map(|header| {
            // A malformed header is still someone's secret: the message
            // shows its first word only.
            let (name, value) = header.split_once(':').ok_or_else(|| {
                let first = header.split_whitespace().next().unwrap_or_default();
                UsageError::HeaderSyntax(format!("{first} {}", Redactor::MASK))
            })?;
            let (name, value) = (name.trim().to_string(), value.trim().to_string());
            check_header(&name, &value)?;
            Ok((name, value))
        })
        .collect()
}

/// A header the tool would send: checked before any request, so a value
/// with CR/LF never reaches a peer and never fails mid-run. Neither error
/// shows the value: it may be a credential.
pub(super) fn check_header(name: &str, value: &str) -> Result<(), UsageError> {
    if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(UsageError::HeaderName {
            name: name.to_string(),
        });
    }
    if value.chars().any(char::is_control) {
        return Err(UsageError::HeaderControl {
            name: name.to_string(),
        });
    }
    Ok(())
}

/// A typed built-in variable (`stable_reads`, the windows) must hold a value
/// its steps can use: found before any request, not by the first run that reads it.
pub(super) fn check_var(
    origin: &dyn Fn() -> String,
    name: &str,
    value: &str,
) -> Result<(), UsageError> {
    let Some(expected) =
        a2a_conform_engine::scenario::vars::builtin(name).and_then(|b| b.rejects(value))
    else {
        return Ok(());
    };
    Err(UsageError::VarValue {
        origin: origin(),
        name: name.to_string(),
        value: a2a_conform_protocol::text::clip(value, 40),
        expected,
    })
}

/// `--var NAME=VALUE` values as a map (a later one of a name wins).
fn var_flags(flags: &[String]) -> Result<BTreeMap<String, String>, UsageError> {
    let mut vars = BTreeMap::new();
    for var in flags {
        let (name, value) = var
            .split_once('=')
            .ok_or_else(|| UsageError::VarSyntax(var.clone()))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(UsageError::VarEmptyName(var.clone()));
        }
        vars.insert(name.to_string(), value.to_string());
    }
    Ok(vars)
}

/// The per-peer values of the card-scheme and TLS flags.
fn scheme_and_tls(schemes: &SchemeCredentialArgs, tls: &TlsArgs) -> PeerSettings {
    PeerSettings {
        api_key_env: schemes.api_key_env.clone(),
        basic_env: schemes.basic_env.clone(),
        oauth_client_id_env: schemes.oauth_client_id_env.clone(),
        oauth_client_secret_env: schemes.oauth_client_secret_env.clone(),
        ..tls_settings(tls)
    }
}

/// The per-peer values of the TLS flags.
pub(super) fn tls_settings(tls: &TlsArgs) -> PeerSettings {
    PeerSettings {
        cacert: tls.cacert.clone(),
        cert: tls.cert.clone(),
        key: tls.key.clone(),
        ..PeerSettings::default()
    }
}

/// The top of a subcommand's settings: `settings` and `--header` values
/// as clap gave them, with where each came from.
pub(super) fn top(
    settings: PeerSettings,
    headers: &[String],
    sources: &Sources,
) -> Result<Top, UsageError> {
    // A pair split across layers is whole here; one half alone would be
    // dropped by the resolver, so it is refused instead.
    if let Err(crate::profile::ProfileError::HalfPair {
        given,
        missing,
        why,
        ..
    }) = settings.check_pairs("")
    {
        let flag = |key: &str| key.replace('_', "-");
        return Err(UsageError::HalfPair {
            given: flag(given),
            missing: flag(missing),
            why,
        });
    }
    Ok(Top {
        settings,
        headers: header_flags(headers)?,
        sources: sources.clone(),
    })
}

/// The top of `check`'s and `demo`'s settings.
pub(super) fn run_top(args: &RunArgs, sources: &Sources) -> Result<Top, UsageError> {
    let settings = PeerSettings {
        vars: var_flags(&args.vars)?,
        timeout: args.timeout,
        bearer_env: args.bearer_env.clone(),
        ..scheme_and_tls(&args.schemes, &args.tls)
    };
    top(settings, &args.headers, sources)
}

/// The top of `profile init`'s and `send`'s settings: only their flags.
pub(super) fn init_top(flags: &PeerConnectArgs, sources: &Sources) -> Result<Top, UsageError> {
    let settings = PeerSettings {
        timeout: flags.timeout,
        bearer_env: flags.bearer_env.clone(),
        ..scheme_and_tls(&flags.schemes, &flags.tls)
    };
    top(settings, &flags.headers, sources)
}

/// A peer's variables, each typed built-in checked and named by where it was set.
fn peer_vars(settings: &Resolved) -> Result<BTreeMap<String, String>, UsageError> {
    let mut vars = BTreeMap::new();
    for (name, sourced) in &settings.vars {
        check_var(&|| sourced.layer.origin("var"), name, &sourced.value)?;
        vars.insert(name.clone(), sourced.value.clone());
    }
    Ok(vars)
}

/// Builds each peer's client from its resolved settings: secrets read from
/// the environment, headers checked, and each set of TLS files read once
/// per check (a fleet's peers often share one).
pub(super) struct PeerClients {
    insecure: bool,
    tls: HashMap<TlsFiles, TlsOptions>,
}

/// A peer's CA and client certificate (with its key).
type TlsFiles = (Option<PathBuf>, Option<(PathBuf, PathBuf)>);

impl PeerClients {
    /// Clients that skip certificate checks under `--insecure` (said once, here).
    pub(super) fn new(insecure: bool) -> PeerClients {
        if insecure {
            eprintln!("warning: {}", a2a_conform_report::INSECURE_NOTE);
        }
        PeerClients {
            insecure,
            tls: HashMap::new(),
        }
    }

    /// The client settings and card-scheme credentials of one peer.
    pub(super) fn client(
        &mut self,
        settings: &Resolved,
    ) -> Result<(ClientConfig, AuthSettings), UsageError> {
        let mut headers = Vec::new();
        for header in &settings.headers {
            let (name, value) = &header.value;
            check_header(name, value)?;
            headers.push(header.value.clone());
        }
        let bearer = match &settings.bearer_env {
            Some(var) => Some((var.value.clone(), env_secret("--bearer-env", &var.value)?)),
            None => None,
        };
        let auth = auth_settings(settings)?;
        let client = ClientConfig {
            timeout: settings.timeout.value,
            headers,
            bearer,
            tls: self.tls(settings)?,
            ..ClientConfig::default()
        };
        Ok((client, auth))
    }

    /// The peer's TLS options, its files read the first time they are named.
    pub(super) fn tls(&mut self, settings: &Resolved) -> Result<TlsOptions, UsageError> {
        let files: TlsFiles = (
            settings.cacert.as_ref().map(|c| c.value.clone()),
            settings.client_cert.as_ref().map(|c| c.value.clone()),
        );
        if let Some(tls) = self.tls.get(&files) {
            return Ok(tls.clone());
        }
        let tls = tls_options(self.insecure, &files)?;
        self.tls.insert(files, tls.clone());
        Ok(tls)
    }
}

/// The run options every peer shares: the check-wide flags, with no peer's
/// settings yet (see [`for_peer`]). The redactor is left to the caller,
/// which builds one from every peer's secrets.
pub(super) fn check_wide(args: &RunArgs) -> Result<RunOptions, AppError> {
    Ok(RunOptions {
        client: ClientConfig {
            public_headers: args.public_headers.clone(),
            same_origin_credentials: args.same_origin_credentials,
            limits: Limits {
                max_body_bytes: args.max_body_bytes,
                max_event_bytes: args.max_event_bytes,
                max_stream_bytes: args.max_stream_bytes,
                max_stream_events: args.max_stream_events,
            },
            ..ClientConfig::default()
        },
        max_probe_window: args.max_probe_window,
        strict: args.strict,
        only: args.scenarios.clone(),
        skip: args.skip.clone(),
        protocol: protocol_choice(args.protocol),
        binding: binding_choice(args.binding),
        retries: args.retries,
        jobs: args.jobs.map(usize::from),
        keep_passing_evidence: args.output.verbose,
        max_runs_per_family: args.max_runs_per_family as usize,
        trusted_keys: Arc::new(trusted_keys(&args.trusted_keys)?),
        discover_budget: if args.no_discover {
            0
        } else {
            args.discover_budget as usize
        },
        ..RunOptions::default()
    })
}

/// `check_wide` options with one peer's own settings: its variables, its
/// client (headers, token, timeout, TLS files) and card-scheme credentials.
pub(super) fn for_peer(
    check_wide: &RunOptions,
    settings: &Resolved,
    clients: &mut PeerClients,
) -> Result<RunOptions, UsageError> {
    let (client, auth) = clients.client(settings)?;
    let wide = &check_wide.client;
    let client = ClientConfig {
        public_headers: wide.public_headers.clone(),
        same_origin_credentials: wide.same_origin_credentials,
        limits: wide.limits,
        ..client
    };
    Ok(RunOptions {
        vars: peer_vars(settings)?,
        credential_sources: credential_sources(settings, &client),
        client,
        auth: Arc::new(auth),
        ..check_wide.clone()
    })
}

/// Where each credential setting of a peer came from, as a refusal names
/// it: the flag and the variable it names (`--bearer-env PEER_TOKEN`, with
/// the env var that set the flag), or the config key and the layer that
/// set it (`bearer_env PEER_TOKEN (profile `prod`)`); a credential header
/// by its name and layer. Variable and header names only: never a value.
fn credential_sources(settings: &Resolved, client: &ClientConfig) -> Vec<String> {
    fn named<T>(long: &str, key: &str, sourced: &Sourced<T>, shown: &str) -> String {
        match &sourced.layer {
            Layer::Flag | Layer::Default => format!("--{long} {shown}"),
            Layer::Env(_) => format!("--{long} {shown} ({})", sourced.layer),
            other => format!("{key} {shown} ({other})"),
        }
    }
    let mut out = Vec::new();
    if let Some(var) = &settings.bearer_env {
        out.push(named("bearer-env", "bearer_env", var, &var.value));
    }
    for header in &settings.headers {
        let name = header.value.0.trim();
        if !client.is_public(name) {
            out.push(format!("header {name} ({})", header.layer.origin("header")));
        }
    }
    if let Some(var) = &settings.api_key_env {
        out.push(named("api-key-env", "api_key_env", var, &var.value));
    }
    if let Some(vars) = &settings.basic_env {
        out.push(named("basic-env", "basic_env", vars, &vars.value));
    }
    if let Some(pair) = &settings.oauth_client {
        let (id, secret) = &pair.value;
        out.push(named(
            "oauth-client-id-env",
            "oauth_client_id_env",
            pair,
            &format!("{id} with the secret of {secret}"),
        ));
    }
    out
}

/// Every value a peer's options must never show: each credential header's,
/// the token, the API key, basic password and OAuth client secret, and
/// each variable's whose name says it is one (`push_token`).
pub(super) fn secrets(options: &RunOptions) -> Vec<String> {
    let mut secrets = options.client.secrets();
    secrets.extend(options.auth.secrets());
    secrets.extend(
        options
            .vars
            .iter()
            .filter(|(name, _)| crate::settings::secret_var(name))
            .map(|(_, value)| value.clone()),
    );
    secrets
}

/// The one redactor of a check: every peer's secrets, masked in every peer's output.
pub(super) fn redactor(secrets: impl IntoIterator<Item = String>) -> Arc<Redactor> {
    Arc::new(Redactor::new(secrets))
}

/// The `--trusted-key` files, read once (each within the input cap).
fn trusted_keys(paths: &[PathBuf]) -> Result<Vec<TrustedKey>, UsageError> {
    let mut keys = Vec::new();
    for path in paths {
        let fail = |reason: String| UsageError::TrustedKey {
            path: path.clone(),
            reason,
        };
        let text =
            a2a_conform_report::input::read_capped(path, a2a_conform_report::input::YAML_CAP)
                .map_err(|e| fail(e.to_string()))?;
        let shown = path.display().to_string();
        keys.extend(signature::read_keys(&shown, &text).map_err(|e| fail(e.to_string()))?);
    }
    Ok(keys)
}

/// Reads one PEM file within [`PEM_CAP`].
fn read_pem(flag: &'static str, path: &Path) -> Result<Vec<u8>, UsageError> {
    read_capped(path, PEM_CAP)
        .map(String::into_bytes)
        .map_err(|e| UsageError::TlsFile {
            flag,
            path: path.to_path_buf(),
            reason: match e {
                ReadError::Io(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    "not a PEM file (not text)".to_string()
                }
                other => other.to_string(),
            },
        })
}

/// A peer's TLS files read into client options.
fn tls_options(insecure: bool, (cacert, cert): &TlsFiles) -> Result<TlsOptions, UsageError> {
    let mut tls = TlsOptions {
        insecure,
        ..TlsOptions::default()
    };
    if let Some(path) = cacert {
        let pem = read_pem("--cacert", path)?;
        let bad = |reason: String| UsageError::TlsFile {
            flag: "--cacert",
            path: path.clone(),
            reason,
        };
        tls.extra_roots = reqwest::Certificate::from_pem_bundle(&pem)
            .map_err(|e| bad(format!("not a PEM certificate: {e}")))?;
        tls.extra_roots_der = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("not a PEM certificate: {e}")))?;
        if tls.extra_roots.is_empty() {
            return Err(bad("holds no PEM certificate".into()));
        }
    }
    if let Some((cert, key)) = cert {
        let mut pem = read_pem("--cert", cert)?;
        pem.push(b'\n');
        pem.extend(read_pem("--key", key)?);
        let bad = |e: &dyn std::fmt::Display| UsageError::TlsFile {
            flag: "--cert",
            path: cert.clone(),
            reason: format!("not a PEM certificate and key: {e}"),
        };
        tls.identity = Some(reqwest::Identity::from_pem(&pem).map_err(|e| bad(&e))?);
        // The same identity for gRPC channels (rustls): the chain and the key.
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(&e))?;
        let key = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| bad(&e))?;
        tls.identity_der = Some(Arc::new(GrpcIdentity { chain, key }));
    }
    Ok(tls)
}

/// Every peer must be an http(s) URL before anything is fetched: a missing
/// scheme is a usage error, not an unreachable peer.
pub(super) fn check_peer_urls(peers: &[String]) -> Result<(), UsageError> {
    for peer in peers {
        a2a_conform_protocol::card::discovery_url(peer)?;
    }
    Ok(())
}

pub(super) fn load_suite(files: &[PathBuf], no_default: bool) -> Result<Suite, AppError> {
    if no_default && files.is_empty() {
        return Err(UsageError::NoSuiteFile.into());
    }
    let mut suite = if no_default {
        Suite::default()
    } else {
        Suite::embedded()?
    };
    for file in files {
        suite.add_file(file)?;
    }
    Ok(suite)
}

/// Scenario ids (`--scenario`, `--skip`) and variable names (each peer's,
/// wherever set) must name something in the loaded suite: a typo would
/// otherwise leave rows unverified under a green run.
pub(super) fn check_names<'a>(
    suite: &Suite,
    options: &RunOptions,
    peers: impl IntoIterator<Item = &'a Resolved>,
) -> Result<(), UsageError> {
    let ids: Vec<&str> = suite.scenarios.iter().map(|s| s.id()).collect();
    for id in options.only.iter().chain(options.skip.iter()) {
        if !ids.contains(&id.as_str()) {
            return Err(UsageError::UnknownScenario {
                id: id.clone(),
                suggestion: closest(id, ids.iter().copied()).map(str::to_string),
            });
        }
    }
    let known = suite.variable_names();
    for settings in peers {
        for (name, sourced) in &settings.vars {
            unknown_var_named(&known, name, || sourced.layer.origin("var"))?;
        }
    }
    Ok(())
}

fn unknown_var_named(
    known: &[String],
    name: &str,
    origin: impl FnOnce() -> String,
) -> Result<(), UsageError> {
    if known.iter().any(|k| k == name) {
        return Ok(());
    }
    Err(UsageError::UnknownVar {
        suggestion: closest(name, known.iter().map(String::as_str)).map(str::to_string),
        origin: origin(),
        name: name.to_string(),
        known: known.to_vec(),
    })
}

/// The card-scheme credentials a peer's settings name (`api_key_env`,
/// `basic_env`, the OAuth client's variables), read from the environment once.
pub(super) fn auth_settings(settings: &Resolved) -> Result<AuthSettings, UsageError> {
    let read = |flag: &'static str, var: &str| -> Result<EnvSecret, UsageError> {
        Ok(EnvSecret {
            var: var.to_string(),
            value: env_secret(flag, var)?,
        })
    };
    let api_key = settings
        .api_key_env
        .as_ref()
        .map(|var| read("--api-key-env", &var.value))
        .transpose()?;
    let basic = match &settings.basic_env {
        Some(pair) => {
            let (user, password) = pair
                .value
                .split_once(':')
                .ok_or(UsageError::BasicEnvSyntax)?;
            Some((
                read("--basic-env", user.trim())?,
                read("--basic-env", password.trim())?,
            ))
        }
        None => None,
    };
    let oauth_client = match &settings.oauth_client {
        Some(client) => Some(OAuthClient {
            id: read("--oauth-client-id-env", &client.value.0)?,
            secret: read("--oauth-client-secret-env", &client.value.1)?,
        }),
        None => None,
    };
    Ok(AuthSettings {
        api_key,
        basic,
        oauth_client,
    })
}
