//! Choosing the endpoint: the first declared interface, in preference order, that
//! matches the requested version and binding and that the tool can speak.

use super::model::{BindingChoice, Interface, ProtocolChoice};
use crate::{Binding, ProtocolVersion};
use url::Url;

/// Whether an interface URL is one the tool can send to.
pub(super) fn is_http_url(url: &str) -> bool {
    Url::parse(url).is_ok_and(|u| {
        matches!(u.scheme(), "http" | "https") && u.host_str().is_some_and(|h| !h.is_empty())
    })
}

/// The endpoint for a run, or why there is none (one line, listing what the card
/// declares).
///
/// Versions are tried in order (Auto: 1.0, then 0.3 only when no 1.0 interface
/// fits); within a version the first fitting interface in preference order wins.
pub(super) fn choose(
    interfaces: &[Interface],
    protocol: ProtocolChoice,
    binding: BindingChoice,
) -> Result<Interface, NoEndpoint> {
    let wanted: &[ProtocolVersion] = match &protocol {
        ProtocolChoice::Auto => &[ProtocolVersion::V1_0, ProtocolVersion::V0_3],
        ProtocolChoice::Force(v) => std::slice::from_ref(v),
        ProtocolChoice::Draft1_1 => &[ProtocolVersion::V1_0],
    };
    let fail = |reason: String| {
        Err(NoEndpoint::NoneFits {
            reason,
            declared: declared(interfaces),
        })
    };
    if interfaces.is_empty() {
        return Err(NoEndpoint::NoInterfaces);
    }

    let mut pool: Vec<&Interface> = interfaces
        .iter()
        .filter(|i| i.protocol_version.is_some_and(|v| wanted.contains(&v)))
        .collect();
    if pool.is_empty() {
        return fail(match protocol {
            ProtocolChoice::Force(v) => format!("the card declares no {v} interface"),
            ProtocolChoice::Draft1_1 => {
                "the card declares no 1.0 interface (the 1.1 draft is checked over 1.0)".to_string()
            }
            ProtocolChoice::Auto => {
                "the card declares no interface for a protocol version the tool speaks (1.0 or 0.3)"
                    .to_string()
            }
        });
    }
    let versions = versions_label(&pool);

    pool.retain(|i| i.binding.is_some());
    if pool.is_empty() {
        return fail(format!(
            "none of its {versions} interfaces uses a binding the tool speaks ({}, {} or {})",
            Binding::Jsonrpc.card_name(),
            Binding::Rest.card_name(),
            Binding::Grpc.card_name()
        ));
    }

    if let BindingChoice::Force(b) = binding {
        pool.retain(|i| i.binding == Some(b));
        if pool.is_empty() {
            return fail(format!(
                "none of its {versions} interfaces uses the requested binding {}",
                b.card_name()
            ));
        }
    }

    pool.retain(|i| is_http_url(&i.url));
    if pool.is_empty() {
        return fail(format!(
            "none of its fitting {versions} interfaces has an http(s) URL"
        ));
    }

    wanted
        .iter()
        .find_map(|v| pool.iter().find(|i| i.protocol_version == Some(*v)))
        .map(|i| (*i).clone())
        .ok_or(NoEndpoint::Unmatched)
}

/// Why a card offers no endpoint for the run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoEndpoint {
    #[error("the card declares no interfaces")]
    NoInterfaces,
    /// Interfaces are declared, none fits; `declared` lists them.
    #[error("{reason} (declared: {declared})")]
    NoneFits { reason: String, declared: String },
    /// Not reached: a non-empty pool always holds a wanted version.
    #[error("no interface fits")]
    Unmatched,
}

/// "1.0", "0.3" or "1.0 and 0.3", from the interfaces left in the pool.
fn versions_label(pool: &[&Interface]) -> &'static str {
    let has = |v| pool.iter().any(|i| i.protocol_version == Some(v));
    match (has(ProtocolVersion::V1_0), has(ProtocolVersion::V0_3)) {
        (true, true) => "1.0 and 0.3",
        (false, true) => "0.3",
        _ => "1.0",
    }
}

/// `1.0 JSONRPC at https://…, 0.3 GRPC at …`
fn declared(interfaces: &[Interface]) -> String {
    interfaces
        .iter()
        .map(|i| {
            let version = match (i.protocol_version, i.declared_version.as_str()) {
                (_, v) if !v.is_empty() => v,
                (Some(v), _) => v.as_str(),
                (None, _) => "?",
            };
            let binding = if i.binding_name.is_empty() {
                "?"
            } else {
                &i.binding_name
            };
            format!("{version} {binding} at {}", i.url)
        })
        .collect::<Vec<_>>()
        .join(", ")
}
