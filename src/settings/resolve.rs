//! The resolver: each per-peer value from the most specific layer that
//! sets it. A flag or its env var wins; then the peer's own layers, most
//! specific first (fleet entry, its profile or `--profile`, config
//! section); then the config file's top level; then the default. Maps
//! (`vars`, `headers`) resolve key by key; a client certificate and an
//! OAuth client come whole from one layer. `check`, `card`, `profile init`
//! and `config show` all read this one answer.

use super::layer::{Layer, Sources};
use super::peer::{PeerLayer, PeerSettings};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// A request's wait for an answer when no layer sets `timeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A value, the layer it came from, and the values of the lower layers it
/// won over (most specific first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    pub value: T,
    pub layer: Layer,
    pub overridden: Vec<(Layer, T)>,
}

/// The per-peer values clap gave the subcommand (each from a flag, its env
/// var, the config file's top level or a default: `sources` says which).
#[derive(Debug, Clone, Default)]
pub struct Top {
    /// `--var` parsed into `vars`, and every other per-peer flag; `headers`
    /// stays empty (see `headers`).
    pub settings: PeerSettings,
    /// `--header` in the order given: a map would lose it.
    pub headers: Vec<(String, String)>,
    pub sources: Sources,
}

/// One peer's settings, each with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub vars: BTreeMap<String, Sourced<String>>,
    pub headers: Vec<Sourced<(String, String)>>,
    pub timeout: Sourced<Duration>,
    pub bearer_env: Option<Sourced<String>>,
    pub api_key_env: Option<Sourced<String>>,
    pub basic_env: Option<Sourced<String>>,
    /// The OAuth client's id and secret variables.
    pub oauth_client: Option<Sourced<(String, String)>>,
    pub cacert: Option<Sourced<PathBuf>>,
    /// The client certificate and its key.
    pub client_cert: Option<Sourced<(PathBuf, PathBuf)>>,
}

/// One layer's entries of a map setting.
type Entries = Vec<(String, String)>;

impl Top {
    /// The settings of a peer whose own layers are `peer` (most specific
    /// first). `tool_vars` are variables the tool sets itself (the demo's
    /// windows), below every layer.
    pub fn resolve(&self, peer: &[PeerLayer], tool_vars: &[(String, String)]) -> Resolved {
        let pair = |a: &Option<String>, b: &Option<String>| a.clone().zip(b.clone());
        Resolved {
            vars: self.vars(peer, tool_vars),
            headers: self.headers(peer),
            timeout: self
                .pick("timeout", peer, |s| s.timeout)
                .unwrap_or(Sourced {
                    value: DEFAULT_TIMEOUT,
                    layer: Layer::Default,
                    overridden: Vec::new(),
                }),
            bearer_env: self.pick("bearer-env", peer, |s| s.bearer_env.clone()),
            api_key_env: self.pick("api-key-env", peer, |s| s.api_key_env.clone()),
            basic_env: self.pick("basic-env", peer, |s| s.basic_env.clone()),
            oauth_client: self.pick("oauth-client-id-env", peer, |s| {
                pair(&s.oauth_client_id_env, &s.oauth_client_secret_env)
            }),
            cacert: self.pick("cacert", peer, |s| s.cacert.clone()),
            client_cert: self.pick("cert", peer, |s| s.cert.clone().zip(s.key.clone())),
        }
    }

    /// Every layer's value of one setting, most specific first: the first wins.
    fn pick<T>(
        &self,
        long: &str,
        peer: &[PeerLayer],
        get: impl Fn(&PeerSettings) -> Option<T>,
    ) -> Option<Sourced<T>> {
        let top = self.sources.layer(long);
        let from_top = get(&self.settings).map(|v| (top.clone(), v));
        let (above, below) = if top.explicit() {
            (from_top, None)
        } else {
            (None, from_top)
        };
        let peers = peer
            .iter()
            .filter_map(|l| get(&l.settings).map(|v| (Layer::Peer(l.origin.clone()), v)));
        let mut found = above.into_iter().chain(peers).chain(below);
        let (layer, value) = found.next()?;
        Some(Sourced {
            value,
            layer,
            overridden: found.collect(),
        })
    }

    /// A map setting's layers, least specific first.
    fn stack(
        &self,
        long: &str,
        top: Entries,
        peer: &[PeerLayer],
        get: impl Fn(&PeerSettings) -> Entries,
    ) -> Vec<(Layer, Entries)> {
        let layer = self.sources.layer(long);
        let (below, above) = if layer.explicit() {
            (None, Some((layer, top)))
        } else {
            (Some((layer, top)), None)
        };
        let peers = peer
            .iter()
            .rev()
            .map(|l| (Layer::Peer(l.origin.clone()), get(&l.settings)));
        below.into_iter().chain(peers).chain(above).collect()
    }

    /// Variables, name by name: the tool's own, then each layer up.
    fn vars(
        &self,
        peer: &[PeerLayer],
        tool_vars: &[(String, String)],
    ) -> BTreeMap<String, Sourced<String>> {
        let entries = |s: &PeerSettings| -> Entries {
            s.vars.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        let stack = self.stack("var", entries(&self.settings), peer, entries);
        let mut out: BTreeMap<String, Sourced<String>> = BTreeMap::new();
        for (layer, entries) in std::iter::once((Layer::Default, tool_vars.to_vec())).chain(stack) {
            for (name, value) in entries {
                let mut overridden = Vec::new();
                if let Some(old) = out.remove(&name) {
                    overridden.push((old.layer, old.value));
                    overridden.extend(old.overridden);
                }
                out.insert(
                    name,
                    Sourced {
                        value,
                        layer: layer.clone(),
                        overridden,
                    },
                );
            }
        }
        out
    }

    /// Headers, name by name (in any case): a layer's header replaces every
    /// lower layer's of that name; the order is the lowest layer's first.
    fn headers(&self, peer: &[PeerLayer]) -> Vec<Sourced<(String, String)>> {
        let entries = |s: &PeerSettings| -> Entries {
            s.headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        let stack = self.stack("header", self.headers.clone(), peer, entries);
        let mut out: Vec<Sourced<(String, String)>> = Vec::new();
        for (layer, entries) in stack {
            let (mut gone, kept): (Vec<_>, Vec<_>) = out.into_iter().partition(|old| {
                entries
                    .iter()
                    .any(|(name, _)| name.eq_ignore_ascii_case(&old.value.0))
            });
            out = kept;
            for (name, value) in entries {
                let mut overridden = Vec::new();
                for old in gone.extract_if(.., |old| old.value.0.eq_ignore_ascii_case(&name)) {
                    overridden.push((old.layer, old.value));
                    overridden.extend(old.overridden);
                }
                out.push(Sourced {
                    value: (name, value),
                    layer: layer.clone(),
                    overridden,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::layer::FlagSource;

    fn sources(set: &[(&str, Layer)]) -> Sources {
        let mut sources = Sources::default();
        for (long, layer) in set {
            sources.insert(
                long,
                FlagSource {
                    layer: layer.clone(),
                    under: Vec::new(),
                },
            );
        }
        sources
    }

    fn section(settings: PeerSettings) -> PeerLayer {
        PeerLayer {
            origin: "config c.yaml, peer staging".into(),
            settings,
        }
    }

    const SECTION: fn() -> Layer = || Layer::Peer("config c.yaml, peer staging".into());

    #[test]
    fn the_peers_own_setting_beats_the_config_top_level_and_loses_to_a_flag() {
        let six = section(PeerSettings {
            timeout: Some(Duration::from_secs(6)),
            ..PeerSettings::default()
        });
        let top = |layer: Layer| Top {
            settings: PeerSettings {
                timeout: Some(Duration::from_secs(1)),
                ..PeerSettings::default()
            },
            sources: sources(&[("timeout", layer)]),
            ..Top::default()
        };
        let config = Layer::Config("c.yaml:1:1".into());
        let resolved = top(config.clone()).resolve(std::slice::from_ref(&six), &[]);
        assert_eq!(
            resolved.timeout,
            Sourced {
                value: Duration::from_secs(6),
                layer: SECTION(),
                overridden: vec![(config, Duration::from_secs(1))],
            }
        );
        for explicit in [Layer::Flag, Layer::Env("A2A_CONFORM_TIMEOUT".into())] {
            let resolved = top(explicit.clone()).resolve(std::slice::from_ref(&six), &[]);
            assert_eq!(resolved.timeout.value, Duration::from_secs(1));
            assert_eq!(resolved.timeout.layer, explicit);
            assert_eq!(
                resolved.timeout.overridden,
                [(SECTION(), Duration::from_secs(6))]
            );
        }
        let nothing = Top::default().resolve(&[], &[]);
        assert_eq!(nothing.timeout.value, DEFAULT_TIMEOUT);
        assert_eq!(nothing.timeout.layer, Layer::Default);
    }

    #[test]
    fn maps_resolve_key_by_key_and_pairs_come_whole() {
        let peer = [
            PeerLayer {
                origin: "profile p.yaml".into(),
                settings: PeerSettings {
                    vars: [("a".into(), "profile".into())].into(),
                    headers: [("x-tenant".into(), "profile".into())].into(),
                    cert: Some("p.pem".into()),
                    key: Some("p.key".into()),
                    ..PeerSettings::default()
                },
            },
            section(PeerSettings {
                vars: [
                    ("a".into(), "section".into()),
                    ("b".into(), "section".into()),
                ]
                .into(),
                cert: Some("s.pem".into()),
                key: Some("s.key".into()),
                ..PeerSettings::default()
            }),
        ];
        let top = Top {
            settings: PeerSettings {
                vars: [("b".into(), "flag".into())].into(),
                ..PeerSettings::default()
            },
            headers: vec![
                ("X-Tenant".into(), "flag".into()),
                ("X-Other".into(), "flag".into()),
            ],
            sources: sources(&[
                ("var", Layer::Flag),
                ("header", Layer::Config("c:1:1".into())),
            ]),
        };
        let resolved = top.resolve(
            &peer,
            &[("a".into(), "tool".into()), ("c".into(), "tool".into())],
        );
        let vars: Vec<(&str, &str, String)> = resolved
            .vars
            .iter()
            .map(|(k, v)| (k.as_str(), v.value.as_str(), v.layer.to_string()))
            .collect();
        assert_eq!(
            vars,
            [
                ("a", "profile", "profile p.yaml".into()),
                ("b", "flag", "flag".into()),
                ("c", "tool", "default".into())
            ]
        );
        assert_eq!(
            resolved.vars["a"].overridden,
            [
                (SECTION(), "section".into()),
                (Layer::Default, "tool".into())
            ]
        );
        // The config's X-Tenant gives way to the profile's; X-Other stays.
        let headers: Vec<(&str, &str)> = resolved
            .headers
            .iter()
            .map(|h| (h.value.0.as_str(), h.value.1.as_str()))
            .collect();
        assert_eq!(headers, [("X-Other", "flag"), ("x-tenant", "profile")]);
        let cert = resolved.client_cert.unwrap();
        assert_eq!(cert.value, ("p.pem".into(), "p.key".into()));
        assert_eq!(cert.overridden.len(), 1);
    }
}
