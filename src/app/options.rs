//! Turning flags, the profile and the config file into run options, checked
//! before any request: variable and scenario names, header and token
//! values, TLS files, peer URLs.

use crate::cli::{
    BindingArg, MockProtocolArg, ProtocolArg, RunArgs, SchemeCredentialArgs, TlsArgs,
};
use crate::config::ConfigFile;
use crate::error::{AppError, UsageError};
use crate::fleet::FleetPeer;
use crate::profile::Profile;
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
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A request's wait for an answer when neither `--timeout` nor the profile sets one.
pub(super) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) fn protocol_choice(arg: ProtocolArg) -> ProtocolChoice {
    match arg {
        ProtocolArg::Auto => ProtocolChoice::Auto,
        ProtocolArg::V1_0 => ProtocolChoice::Force(ProtocolVersion::V1_0),
        ProtocolArg::V0_3 => ProtocolChoice::Force(ProtocolVersion::V0_3),
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

pub(super) fn mock_protocol(arg: MockProtocolArg) -> ProtocolVersion {
    match arg {
        MockProtocolArg::V1_0 => ProtocolVersion::V1_0,
        MockProtocolArg::V0_3 => ProtocolVersion::V0_3,
    }
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

/// The profile a check uses and where it came from: `--profile FILE`, else
/// the config file's section for the peer (flag > config file).
pub(super) struct ChosenProfile {
    pub(super) profile: Profile,
    /// How errors name it: `profile FILE` or `config FILE, peer NAME`.
    pub(super) origin: Option<String>,
}

pub(super) fn choose_profile(
    args: &RunArgs,
    section: Option<(String, crate::config::PeerSection)>,
    config: Option<&ConfigFile>,
) -> Result<ChosenProfile, AppError> {
    Ok(match (&args.profile, section) {
        (Some(path), _) => ChosenProfile {
            profile: Profile::load(path)?,
            origin: Some(format!("profile {}", path.display())),
        },
        (None, Some((name, section))) => ChosenProfile {
            profile: section.profile(),
            origin: Some(format!(
                "config {}, peer {name}",
                config
                    .map(|c| c.path.display().to_string())
                    .unwrap_or_default()
            )),
        },
        (None, None) => ChosenProfile {
            profile: Profile::default(),
            origin: None,
        },
    })
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

/// Builds run options from flags and the chosen profile (flags win).
pub(super) fn run_options(
    args: &RunArgs,
    extra_vars: &[(String, String)],
    chosen: &ChosenProfile,
) -> Result<RunOptions, AppError> {
    let profile = &chosen.profile;
    let mut options = RunOptions::default();
    for (k, v) in extra_vars {
        options.vars.insert(k.clone(), v.clone());
    }
    let from_profile = || chosen.origin.clone().unwrap_or_else(|| "profile".into());
    for (name, value) in &profile.vars {
        check_var(&from_profile, name, value)?;
    }
    options.vars.extend(profile.vars.clone());
    for var in &args.vars {
        let (name, value) = var
            .split_once('=')
            .ok_or_else(|| UsageError::VarSyntax(var.clone()))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(UsageError::VarEmptyName(var.clone()).into());
        }
        check_var(&|| "--var".to_string(), name, value)?;
        options.vars.insert(name.to_string(), value.to_string());
    }
    let mut headers: Vec<(String, String)> = profile.headers.clone().into_iter().collect();
    for (name, value) in &headers {
        check_header(name, value)?;
    }
    headers.extend(header_flags(&args.headers)?);
    let bearer_var = args.bearer_env.clone().or(profile.bearer_env.clone());
    let bearer = match bearer_var {
        Some(var) => Some((var.clone(), env_secret("--bearer-env", &var)?)),
        None => None,
    };
    let auth = auth_settings(&args.schemes, profile)?;
    let timeout = args.timeout.or(profile.timeout).unwrap_or(DEFAULT_TIMEOUT);
    options.client = ClientConfig {
        timeout,
        headers,
        bearer,
        tls: tls_options(&with_profile_tls(&args.tls, profile))?,
        public_headers: args.public_headers.clone(),
        same_origin_credentials: args.same_origin_credentials,
        limits: Limits {
            max_body_bytes: args.max_body_bytes,
            max_event_bytes: args.max_event_bytes,
            max_stream_bytes: args.max_stream_bytes,
            max_stream_events: args.max_stream_events,
        },
        ..ClientConfig::default()
    };
    options.max_probe_window = args.max_probe_window;
    options.strict = args.strict;
    // Redaction is by value: every credential header's value, the token,
    // the API key, basic password and OAuth client secret.
    options.redactor = Arc::new(Redactor::new(
        options.client.secrets().into_iter().chain(auth.secrets()),
    ));
    options.auth = Arc::new(auth);
    options.only = args.scenarios.clone();
    options.skip = args.skip.clone();
    options.protocol = protocol_choice(args.protocol);
    options.binding = binding_choice(args.binding);
    options.retries = args.retries;
    options.jobs = usize::from(args.jobs);
    options.keep_passing_evidence = args.output.verbose;
    options.max_runs_per_family = args.max_runs_per_family as usize;
    options.trusted_keys = Arc::new(trusted_keys(&args.trusted_keys)?);
    options.discover_budget = if args.no_discover {
        0
    } else {
        args.discover_budget as usize
    };
    Ok(options)
}

/// The TLS flags, with the profile's files where no flag gives one (the
/// flag wins; a client certificate comes whole from one or the other).
pub(super) fn with_profile_tls(args: &TlsArgs, profile: &Profile) -> TlsArgs {
    let mut tls = args.clone();
    if tls.cacert.is_none() {
        tls.cacert = profile.cacert.clone();
    }
    if tls.cert.is_none() {
        (tls.cert, tls.key) = (profile.cert.clone(), profile.key.clone());
    }
    tls
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

/// The TLS flags read into client options: files are read here, once.
pub(super) fn tls_options(args: &TlsArgs) -> Result<TlsOptions, UsageError> {
    let read = |flag: &'static str, path: &Path| {
        std::fs::read(path).map_err(|e| UsageError::TlsFile {
            flag,
            path: path.to_path_buf(),
            reason: e.to_string(),
        })
    };
    let mut tls = TlsOptions {
        insecure: args.insecure,
        ..TlsOptions::default()
    };
    if let Some(path) = &args.cacert {
        let pem = read("--cacert", path)?;
        tls.extra_roots =
            reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| UsageError::TlsFile {
                flag: "--cacert",
                path: path.clone(),
                reason: format!("not a PEM certificate: {e}"),
            })?;
        tls.extra_roots_der = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| UsageError::TlsFile {
                flag: "--cacert",
                path: path.clone(),
                reason: format!("not a PEM certificate: {e}"),
            })?;
        if tls.extra_roots.is_empty() {
            return Err(UsageError::TlsFile {
                flag: "--cacert",
                path: path.clone(),
                reason: "holds no PEM certificate".into(),
            });
        }
    }
    if let (Some(cert), Some(key)) = (&args.cert, &args.key) {
        let mut pem = read("--cert", cert)?;
        pem.push(b'\n');
        pem.extend(read("--key", key)?);
        tls.identity =
            Some(
                reqwest::Identity::from_pem(&pem).map_err(|e| UsageError::TlsFile {
                    flag: "--cert",
                    path: cert.clone(),
                    reason: format!("not a PEM certificate and key: {e}"),
                })?,
            );
        // The same identity for gRPC channels (rustls): the chain and the key.
        let bad = |e: rustls::pki_types::pem::Error| UsageError::TlsFile {
            flag: "--cert",
            path: cert.clone(),
            reason: format!("not a PEM certificate and key: {e}"),
        };
        let chain = CertificateDer::pem_slice_iter(&pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(bad)?;
        let key = PrivateKeyDer::from_pem_slice(&pem).map_err(bad)?;
        tls.identity_der = Some(Arc::new(GrpcIdentity { chain, key }));
    }
    if args.insecure {
        eprintln!("warning: {}", a2a_conform_report::INSECURE_NOTE);
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

/// Scenario ids (`--scenario`, `--skip`) and variable names (`--var`, the
/// profile's `vars`) must name something in the loaded suite: a typo would
/// otherwise leave rows unverified under a green run.
pub(super) fn check_names(
    suite: &Suite,
    args: &RunArgs,
    options: &RunOptions,
    profile: &ChosenProfile,
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
    unknown_var(&known, profile)?;
    for var in &args.vars {
        if let Some((name, _)) = var.split_once('=') {
            unknown_var_named(&known, name.trim(), || "--var".to_string())?;
        }
    }
    Ok(())
}

/// A profile's variable names must be the suite's (`check` refuses a typo
/// before any request, with the closest known name).
pub(super) fn unknown_var(known: &[String], profile: &ChosenProfile) -> Result<(), UsageError> {
    for name in profile.profile.vars.keys() {
        unknown_var_named(known, name, || {
            profile.origin.clone().unwrap_or_else(|| "profile".into())
        })?;
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

/// A fleet file's own profile, read once: its options and its variable
/// check both use it.
pub(super) fn fleet_profile(peer: &FleetPeer) -> Result<Option<ChosenProfile>, AppError> {
    peer.profile
        .as_ref()
        .map(|path| {
            Ok(ChosenProfile {
                profile: Profile::load(path)?,
                origin: Some(format!("profile {}", path.display())),
            })
        })
        .transpose()
}

/// Run options for a fleet file's peer: its own profile replaces the
/// check's (flags still win over it), its headers are added, and its
/// credential variable replaces `--bearer-env`.
pub(super) fn fleet_peer_options(
    args: &RunArgs,
    peer: &FleetPeer,
    own: Option<&ChosenProfile>,
    chosen: &ChosenProfile,
) -> Result<RunOptions, AppError> {
    let chosen = own.unwrap_or(chosen);
    let mut options = run_options(args, &[], chosen)?;
    for (name, value) in &peer.headers {
        check_header(name, value)?;
        options.client.headers.push((name.clone(), value.clone()));
    }
    if let Some(var) = &peer.bearer_env {
        options.client.bearer = Some((var.clone(), env_secret("--bearer-env", var)?));
    }
    options.redactor = Arc::new(Redactor::new(
        options
            .client
            .secrets()
            .into_iter()
            .chain(options.auth.secrets()),
    ));
    Ok(options)
}

/// The card-scheme credentials of `--api-key-env`, `--basic-env` and
/// `--oauth-client-*-env`, read from the environment once.
/// A flag wins over the profile's key of the same name.
pub(super) fn auth_settings(
    args: &SchemeCredentialArgs,
    profile: &Profile,
) -> Result<AuthSettings, UsageError> {
    let read = |flag: &'static str, var: &str| -> Result<EnvSecret, UsageError> {
        Ok(EnvSecret {
            var: var.to_string(),
            value: env_secret(flag, var)?,
        })
    };
    let api_key = args
        .api_key_env
        .as_deref()
        .or(profile.api_key_env.as_deref())
        .map(|var| read("--api-key-env", var))
        .transpose()?;
    let basic = match args.basic_env.as_deref().or(profile.basic_env.as_deref()) {
        Some(pair) => {
            let (user, password) = pair.split_once(':').ok_or(UsageError::BasicEnvSyntax)?;
            Some((
                read("--basic-env", user.trim())?,
                read("--basic-env", password.trim())?,
            ))
        }
        None => None,
    };
    let from_flags = (&args.oauth_client_id_env, &args.oauth_client_secret_env);
    let oauth_pair = match from_flags {
        (Some(_), Some(_)) => from_flags,
        _ => (
            &profile.oauth_client_id_env,
            &profile.oauth_client_secret_env,
        ),
    };
    let oauth_client = match oauth_pair {
        (Some(id), Some(secret)) => Some(OAuthClient {
            id: read("--oauth-client-id-env", id)?,
            secret: read("--oauth-client-secret-env", secret)?,
        }),
        _ => None,
    };
    Ok(AuthSettings {
        api_key,
        basic,
        oauth_client,
    })
}
