//! Reading the declared interfaces: v1.0 `supportedInterfaces`, the v0.3 `url` +
//! `preferredTransport` + `additionalInterfaces`, or both on a hybrid card, with
//! URL resolution and binding lint.

use super::error::CardError;
use super::model::{CardLayout, Interface};
use super::parse::{present, Reader};
use super::select::is_http_url;
use crate::{Binding, ProtocolVersion};
use serde_json::{Map, Value};
use url::Url;

impl Reader<'_> {
    /// Every declared interface in preference order, exact repeats dropped.
    pub(super) fn interfaces(
        &mut self,
        obj: &Map<String, Value>,
        layout: CardLayout,
    ) -> Result<Vec<Interface>, CardError> {
        let mut out = Vec::new();
        if layout != CardLayout::V0_3 {
            out.extend(self.supported_interfaces(obj)?);
        }
        if layout == CardLayout::V1_0 {
            for key in ["preferredTransport", "additionalInterfaces"] {
                if present(obj, key).is_some() {
                    self.warn(format!(
                        "`{key}` (a v0.3 field) is ignored: the card has no top-level `url` or `protocolVersion`"
                    ));
                }
            }
        } else {
            out.extend(self.legacy_interfaces(obj, layout)?);
        }
        let mut unique: Vec<Interface> = Vec::with_capacity(out.len());
        for interface in out {
            if !unique.contains(&interface) {
                unique.push(interface);
            }
        }
        Ok(unique)
    }

    /// v1.0 `supportedInterfaces`.
    fn supported_interfaces(
        &mut self,
        obj: &Map<String, Value>,
    ) -> Result<Vec<Interface>, CardError> {
        let entries = self
            .array(obj, "", "supportedInterfaces")?
            .map(Vec::as_slice)
            .unwrap_or_default();
        if entries.is_empty() {
            self.warn(
                "`supportedInterfaces` is empty (the spec requires at least one)".to_string(),
            );
        }
        let mut out = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("supportedInterfaces[{i}]");
            let Value::Object(e) = entry else {
                return Err(self.wrong(at, "an object", entry));
            };
            let url = self.string(e, &at, "url")?;
            let binding = self.string(e, &at, "protocolBinding")?;
            let declared = self.string(e, &at, "protocolVersion")?;
            let tenant = self.string(e, &at, "tenant")?.filter(|t| !t.is_empty());
            let version = match &declared {
                Some(v) => {
                    if v.split('.').count() > 2 {
                        self.warn(format!(
                            "`{at}.protocolVersion` is `{v}`; v1.0 versions are Major.Minor, without a patch number"
                        ));
                    }
                    ProtocolVersion::from_declared(v)
                }
                None => {
                    self.warn(format!(
                        "`{at}.protocolVersion` is missing (required by the spec); assuming 1.0"
                    ));
                    Some(ProtocolVersion::V1_0)
                }
            };
            let binding_at = format!("{at}.protocolBinding");
            let entry = RawInterface {
                url,
                url_at: format!("{at}.url"),
                binding,
                binding_at,
                version,
                declared_version: declared.unwrap_or_default(),
                tenant,
            };
            out.extend(self.interface(entry));
        }
        Ok(out)
    }

    /// v0.3 `url` + `preferredTransport`, then `additionalInterfaces`, all with the
    /// card-level `protocolVersion`.
    fn legacy_interfaces(
        &mut self,
        obj: &Map<String, Value>,
        layout: CardLayout,
    ) -> Result<Vec<Interface>, CardError> {
        let declared = self.string(obj, "", "protocolVersion")?;
        let version = match &declared {
            Some(v) => ProtocolVersion::from_declared(v),
            None => {
                self.warn(
                    "`protocolVersion` is missing next to `url` (required by the spec); assuming 0.3"
                        .to_string(),
                );
                Some(ProtocolVersion::V0_3)
            }
        };
        if layout == CardLayout::V0_3 && version == Some(ProtocolVersion::V1_0) {
            self.warn(
                "the card uses the v0.3 layout (`url`) but declares `protocolVersion` 1.0; v1.0 cards declare `supportedInterfaces`"
                    .to_string(),
            );
        }
        let declared_version = declared.unwrap_or_default();
        let mut out = Vec::new();

        let url = self.string(obj, "", "url")?;
        let preferred = self.string(obj, "", "preferredTransport")?;
        if url.is_none() && layout == CardLayout::V0_3 {
            return Err(self.missing("url", " (v0.3)"));
        }
        if url.is_some() {
            let entry = RawInterface {
                url,
                url_at: "url".to_string(),
                binding: Some(
                    preferred.unwrap_or_else(|| Binding::Jsonrpc.card_name().to_string()),
                ),
                binding_at: "preferredTransport".to_string(),
                version,
                declared_version: declared_version.clone(),
                tenant: None,
            };
            out.extend(self.interface(entry));
        }

        let entries = self
            .array(obj, "", "additionalInterfaces")?
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("additionalInterfaces[{i}]");
            let Value::Object(e) = entry else {
                return Err(self.wrong(at, "an object", entry));
            };
            let url = self.string(e, &at, "url")?;
            let (binding, binding_key) = match self.string(e, &at, "transport")? {
                Some(t) => (Some(t), "transport"),
                None => match self.string(e, &at, "protocolBinding")? {
                    Some(b) => (Some(b), "protocolBinding"),
                    None => (None, "transport"),
                },
            };
            let entry = RawInterface {
                url,
                url_at: format!("{at}.url"),
                binding,
                binding_at: format!("{at}.{binding_key}"),
                version,
                declared_version: declared_version.clone(),
                tenant: None,
            };
            out.extend(self.interface(entry));
        }
        Ok(out)
    }

    /// Resolves and lints one interface; `None` (with a warning) when it has no URL.
    fn interface(&mut self, raw: RawInterface) -> Option<Interface> {
        let Some(declared_url) = raw.url.filter(|u| !u.trim().is_empty()) else {
            self.warn(format!(
                "`{}` is missing (required by the spec); the interface is skipped",
                raw.url_at
            ));
            return None;
        };
        let declared_url = declared_url.trim().to_string();
        let spelled = declared_url.clone();
        let binding_name = raw.binding.unwrap_or_default();
        let binding = Binding::from_card(&binding_name);
        let url = match Url::parse(&declared_url) {
            // gRPC targets are often written `host:port`, without a scheme
            // (the spec's own examples do): TLS on port 443, plaintext
            // HTTP/2 elsewhere, as grpcurl users write `-plaintext`.
            _ if binding == Some(Binding::Grpc) && !declared_url.contains("://") => {
                let scheme = if declared_url.ends_with(":443") {
                    "https"
                } else {
                    "http"
                };
                format!("{scheme}://{declared_url}")
            }
            Err(url::ParseError::RelativeUrlWithoutBase) => match self.base.join(&declared_url) {
                Ok(resolved) => {
                    self.warn(format!(
                        "`{}` is relative (`{declared_url}`); resolved against the card URL to {resolved}",
                        raw.url_at
                    ));
                    resolved.to_string()
                }
                Err(_) => declared_url,
            },
            _ => declared_url,
        };

        if binding_name.is_empty() {
            self.warn(format!(
                "`{}` is missing (required by the spec); the interface is unusable",
                raw.binding_at
            ));
        } else if !Binding::is_card_spelling(&binding_name) {
            match binding {
                Some(b) => self.warn(format!(
                    "`{}` is `{binding_name}`, not the spec's spelling; read as {}",
                    raw.binding_at,
                    b.card_name()
                )),
                None => self.warn(format!(
                    "`{}` is `{binding_name}`, not a binding the spec defines ({}); the interface is unusable",
                    raw.binding_at,
                    spec_bindings()
                )),
            }
        }
        if binding.is_some() && !is_http_url(&url) {
            self.warn(format!(
                "`{}` (`{url}`) is not an http(s) URL; the interface is unusable",
                raw.url_at
            ));
        }
        Some(Interface {
            url,
            declared_url: spelled,
            binding,
            binding_name,
            protocol_version: raw.version,
            declared_version: raw.declared_version,
            tenant: raw.tenant,
        })
    }
}

impl Interface {
    /// Where the interface is, as reports show it: a gRPC target as the card
    /// spells it (`host:port`, the form grpcurl and gRPC clients take), any
    /// other interface by its resolved URL.
    pub fn shown_target(&self) -> &str {
        if self.binding == Some(Binding::Grpc) && !self.declared_url.is_empty() {
            &self.declared_url
        } else {
            &self.url
        }
    }
}

/// Every binding the spec defines, as cards spell them: `JSONRPC, HTTP+JSON, GRPC`.
fn spec_bindings() -> String {
    <Binding as strum::VariantArray>::VARIANTS
        .iter()
        .map(|b| b.card_name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One interface as declared, before resolution and lint.
struct RawInterface {
    url: Option<String>,
    url_at: String,
    binding: Option<String>,
    binding_at: String,
    version: Option<ProtocolVersion>,
    declared_version: String,
    tenant: Option<String>,
}
