//! Reading a fetched card body: JSON, layout detection, field validation and
//! lint warnings. Interfaces are read in `interfaces`, the endpoint chosen in `select`.

use super::duplicates;
use super::error::CardError;
use super::model::{
    BindingChoice, Capabilities, Card, CardLayout, Extension, ProtocolChoice, Skill, MAX_CARD_BYTES,
};
use super::select;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::time::Duration;
use url::Url;

/// v1.0 security scheme wrapper keys; v0.3 schemes carry `type` instead.
const SCHEME_WRAPPERS: [&str; 5] = [
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

/// Parses and validates a fetched card body. `fetched_from` resolves relative
/// interface URLs and names the card in every message.
///
/// # What is fatal
/// The tool is as lenient as the SDKs where it can be, and strict where guessing
/// would misjudge the peer. An error is returned only when:
/// - the body is over [`MAX_CARD_BYTES`] ([`CardError::TooLarge`]), not JSON
///   ([`CardError::NotJson`]) or not an object ([`CardError::NotAnObject`]);
/// - `name` is absent ([`CardError::MissingField`]): reports label the peer by it;
/// - there is no endpoint: neither `supportedInterfaces` (v1.0) nor `url` (v0.3),
///   or a v0.3 card with `protocolVersion` but no `url` ([`CardError::MissingField`]);
/// - no declared interface fits the requested version and binding and what the tool
///   speaks: 1.0 over JSONRPC or HTTP+JSON, 0.3 over JSONRPC, at an http(s) URL
///   ([`CardError::NoUsableInterface`]);
/// - a field that decides the endpoint or a declaration is present with the wrong
///   JSON type ([`CardError::WrongType`]): `name`; `supportedInterfaces` and its
///   entries' `url`, `protocolBinding`, `protocolVersion`, `tenant`; `url`,
///   `protocolVersion`, `preferredTransport`, `additionalInterfaces` and their
///   `url`/`transport`; `capabilities` and its flags;
///   `supportsAuthenticatedExtendedCard`; `defaultInputModes`, `defaultOutputModes`;
///   `skills`, each skill, its `id`, `inputModes`, `outputModes`; `securitySchemes`.
///   Guessing there would judge a declaration the card does not make.
///
/// JSON `null` reads as absent (ProtoJSON). Everything else the spec requires but
/// the card lacks or mistypes is a line in [`Card::warnings`]:
/// - a missing `description`, `version`, `capabilities` (every flag then reads as
///   false), `defaultInputModes`, `defaultOutputModes` or `skills`; one of these
///   lists empty (the spec's own example keeps `"skills": []`);
/// - an input or output mode (the card's or a skill's) that is no media type
///   (`"text"`), named with its value;
/// - `description`, `version` or a skill's `name` of the wrong type (ignored);
/// - an interface without `url` (skipped) or `protocolBinding` (kept, unusable); a
///   missing interface `protocolVersion` (assumed 1.0 in `supportedInterfaces`,
///   0.3 next to the legacy `url`); a v1.0 version with a patch number; a relative
///   interface URL (resolved against `fetched_from`); a binding name the spec does
///   not define or spells differently (`REST` is read as HTTP+JSON); an interface
///   with a supported binding but no http(s) URL (unusable);
/// - v0.3 fields on a card without a top-level `url`/`protocolVersion` (ignored);
///   a v0.3-layout card declaring 1.0;
/// - a skill without `id` (its modes are not checked), without `name`,
///   `description` or `tags`, or repeating an earlier id;
/// - a security scheme with neither `type` (v0.3) nor a v1.0 wrapper key;
///   `securitySchemes` without any requirement (`securityRequirements` in
///   v1.0, `security` in v0.3), so nothing says a request needs them; a
///   requirement naming a scheme the card does not declare; requirements that
///   are not an array of objects (ignored);
/// - an unreadable `defaultTimeout`; a UTF-8 byte order mark before the JSON;
///   a key an object of the JSON repeats (named by its path; the last value
///   is the one read).
pub fn parse_card(
    fetched_from: &Url,
    body: &[u8],
    protocol: ProtocolChoice,
    binding: BindingChoice,
) -> Result<Card, CardError> {
    let url = fetched_from.as_str();
    let mut r = Reader {
        url,
        base: fetched_from,
        warnings: Vec::new(),
    };
    let raw = r.json_object(body)?;
    let obj = raw.as_object().expect("json_object gives an object");

    let layout = layout(&r, obj)?;
    let interfaces = r.interfaces(obj, layout)?;
    let (name, version) = r.identity(obj)?;

    let caps = r.object(obj, "", "capabilities")?;
    if caps.is_none() {
        r.warn(
            "`capabilities` is missing (required by the spec); every capability reads as not declared"
                .to_string(),
        );
    }
    let capabilities = r.capabilities(obj, caps)?;
    let default_input_modes = r.required_modes(obj, "defaultInputModes")?;
    let default_output_modes = r.required_modes(obj, "defaultOutputModes")?;
    let skills = r.skills(obj)?;
    let security_schemes = r.security_schemes(obj)?;
    let security_required = r.security_required(obj, &security_schemes);
    let default_timeout = r.default_timeout(obj, caps);

    let endpoint = select::choose(&interfaces, protocol, binding).map_err(|reason| {
        CardError::NoUsableInterface {
            url: url.to_string(),
            reason: reason.to_string(),
        }
    })?;

    let digest = format!("sha256:{}", hex(&Sha256::digest(body)));
    let warnings = r.warnings;
    Ok(Card {
        fetched_from: url.to_string(),
        digest,
        name,
        version,
        layout,
        interfaces,
        endpoint,
        capabilities,
        default_input_modes,
        default_output_modes,
        skills,
        security_schemes,
        security_required,
        default_timeout,
        warnings,
        raw,
        draft_1_1: protocol == ProtocolChoice::Draft1_1,
    })
}

impl Reader<'_> {
    /// The body as a JSON object: within the size cap, a byte order mark
    /// tolerated with a warning.
    fn json_object(&mut self, body: &[u8]) -> Result<Value, CardError> {
        let url = self.url;
        if body.len() > MAX_CARD_BYTES {
            return Err(CardError::TooLarge {
                url: url.to_string(),
                size: body.len(),
                max: MAX_CARD_BYTES,
            });
        }
        let json = match body.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) => {
                self.warn("the card body starts with a UTF-8 byte order mark".to_string());
                rest
            }
            None => body,
        };
        let raw: Value = serde_json::from_slice(json).map_err(|e| CardError::NotJson {
            url: url.to_string(),
            detail: e.to_string(),
        })?;
        if !raw.is_object() {
            return Err(CardError::NotAnObject {
                url: url.to_string(),
                found: kind(&raw),
            });
        }
        // serde_json kept the last value of a repeated key: say so.
        if let Some(repeated) = duplicates::repeated_keys(json) {
            if let Some(warning) = duplicates::warning(&repeated) {
                self.warn(warning);
            }
        }
        Ok(raw)
    }

    /// The agent's `name` (required) and `version`; warnings for what the
    /// spec requires beside them.
    fn identity(
        &mut self,
        obj: &Map<String, Value>,
    ) -> Result<(String, Option<String>), CardError> {
        let name = self
            .string(obj, "", "name")?
            .ok_or_else(|| self.missing("name", ""))?;
        if name.trim().is_empty() {
            self.warn("`name` is empty".to_string());
        }
        for key in ["description", "version"] {
            if present(obj, key).is_none() {
                self.warn(required_missing(key));
            }
        }
        self.lenient_string(obj, "", "description");
        Ok((name, self.lenient_string(obj, "", "version")))
    }
}

/// `supportedInterfaces` makes a v1.0 card (hybrid with a top-level `url` or
/// `protocolVersion`); otherwise `url`/`protocolVersion` make a v0.3 card.
fn layout(r: &Reader, obj: &Map<String, Value>) -> Result<CardLayout, CardError> {
    let has = |key| present(obj, key).is_some();
    let legacy = has("url") || has("protocolVersion");
    match (has("supportedInterfaces"), legacy) {
        (true, true) => Ok(CardLayout::Hybrid),
        (true, false) => Ok(CardLayout::V1_0),
        (false, true) => Ok(CardLayout::V0_3),
        (false, false) => Err(r.missing("supportedInterfaces", " (v1.0) or `url` (v0.3)")),
    }
}

/// A field's value, with JSON `null` read as absent.
pub(super) fn present<'v>(obj: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    obj.get(key).filter(|v| !v.is_null())
}

/// `prefix.key`, or `key` at the top level.
pub(super) fn path(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// A JSON value's type, as error messages name it.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn required_missing(field: &str) -> String {
    format!("`{field}` is missing (required by the spec)")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a duration: a number of seconds, or a string `"30"`, `"30s"`, `"1500ms"`,
/// `"2m"`. Must be positive.
fn duration(value: &Value) -> Option<Duration> {
    let secs = match value {
        Value::Number(n) => n.as_f64()?,
        Value::String(s) => {
            let s = s.trim();
            let (number, scale) = if let Some(n) = s.strip_suffix("ms") {
                (n, 0.001)
            } else if let Some(n) = s.strip_suffix('s') {
                (n, 1.0)
            } else if let Some(n) = s.strip_suffix('m') {
                (n, 60.0)
            } else {
                (s, 1.0)
            };
            number.trim().parse::<f64>().ok()? * scale
        }
        _ => return None,
    };
    if secs > 0.0 {
        Duration::try_from_secs_f64(secs).ok()
    } else {
        None
    }
}

/// Typed field access that turns a wrong type into [`CardError::WrongType`] and
/// collects warnings.
pub(super) struct Reader<'a> {
    pub(super) url: &'a str,
    pub(super) base: &'a Url,
    pub(super) warnings: Vec<String>,
}

impl Reader<'_> {
    pub(super) fn warn(&mut self, warning: String) {
        if !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    pub(super) fn missing(&self, field: &str, note: &'static str) -> CardError {
        CardError::MissingField {
            url: self.url.to_string(),
            field: field.to_string(),
            note,
        }
    }

    pub(super) fn wrong(&self, field: String, expected: &'static str, found: &Value) -> CardError {
        CardError::WrongType {
            url: self.url.to_string(),
            field,
            expected,
            found: kind(found),
        }
    }

    pub(super) fn string(
        &self,
        obj: &Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<String>, CardError> {
        match present(obj, key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(path(prefix, key), "a string", other)),
        }
    }

    /// A string the tool only reports: a wrong type is a warning and reads as absent.
    pub(super) fn lenient_string(
        &mut self,
        obj: &Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Option<String> {
        match present(obj, key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.warn(format!(
                    "`{}` is {}, not a string; ignored",
                    path(prefix, key),
                    kind(other)
                ));
                None
            }
        }
    }

    pub(super) fn boolean(
        &self,
        obj: &Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<bool>, CardError> {
        match present(obj, key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(path(prefix, key), "a boolean", other)),
        }
    }

    pub(super) fn object<'v>(
        &self,
        obj: &'v Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<&'v Map<String, Value>>, CardError> {
        match present(obj, key) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(other) => Err(self.wrong(path(prefix, key), "an object", other)),
        }
    }

    pub(super) fn array<'v>(
        &self,
        obj: &'v Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<&'v Vec<Value>>, CardError> {
        match present(obj, key) {
            None => Ok(None),
            Some(Value::Array(a)) => Ok(Some(a)),
            Some(other) => Err(self.wrong(path(prefix, key), "an array", other)),
        }
    }

    /// An array of strings; each element is checked.
    pub(super) fn strings(
        &self,
        obj: &Map<String, Value>,
        prefix: &str,
        key: &str,
    ) -> Result<Option<Vec<String>>, CardError> {
        let Some(items) = self.array(obj, prefix, key)? else {
            return Ok(None);
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(self.wrong(format!("{}[{i}]", path(prefix, key)), "a string", other)),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// A top-level mode list the spec requires non-empty: absent or empty is a warning.
    fn required_modes(
        &mut self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Result<Vec<String>, CardError> {
        let modes = self.strings(obj, "", key)?;
        match &modes {
            None => self.warn(required_missing(key)),
            Some(m) if m.is_empty() => {
                self.warn(format!("`{key}` is empty (the spec requires at least one)"))
            }
            Some(m) => self.media_types(key, m),
        }
        Ok(modes.unwrap_or_default())
    }

    /// A card warning for each mode of `at` that is no media type
    /// (`["text"]`, seen on VoltAgent cards and in Microsoft Agent
    /// Framework's docstring card): the spec's modes are media types
    /// (`type/subtype`, RFC 6838), and a caller cannot match a bare word.
    fn media_types(&mut self, at: &str, modes: &[String]) {
        for mode in modes.iter().filter(|m| !is_media_type(m)) {
            self.warn(format!(
                "`{at}` lists `{}`, which is not a media type (type/subtype, e.g. text/plain): a caller cannot tell what it means",
                crate::text::clip(mode, 60)
            ));
        }
    }

    fn capabilities(
        &mut self,
        obj: &Map<String, Value>,
        caps: Option<&Map<String, Value>>,
    ) -> Result<Capabilities, CardError> {
        let empty = Map::new();
        let caps = caps.unwrap_or(&empty);
        let at = "capabilities";
        let extended = self.boolean(caps, at, "extendedAgentCard")?;
        let legacy_extended = self.boolean(obj, "", "supportsAuthenticatedExtendedCard")?;
        Ok(Capabilities {
            streaming: self.boolean(caps, at, "streaming")?,
            push_notifications: self.boolean(caps, at, "pushNotifications")?,
            extended_agent_card: extended.or(legacy_extended),
            state_transition_history: self.boolean(caps, at, "stateTransitionHistory")?,
            extensions: self.extensions(caps)?,
        })
    }

    /// `capabilities.extensions`: each entry's `uri` and `required`; an entry
    /// with no `uri` is skipped with a warning (it names nothing to check).
    fn extensions(&mut self, caps: &Map<String, Value>) -> Result<Vec<Extension>, CardError> {
        let Some(entries) = self.array(caps, "capabilities", "extensions")? else {
            return Ok(Vec::new());
        };
        let mut out: Vec<Extension> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("capabilities.extensions[{i}]");
            let Value::Object(e) = entry else {
                return Err(self.wrong(at, "an object", entry));
            };
            let Some(uri) = self.string(e, &at, "uri")?.filter(|u| !u.trim().is_empty()) else {
                self.warn(format!("`{at}` has no `uri`; it is not checked"));
                continue;
            };
            let required = self.boolean(e, &at, "required")?.unwrap_or(false);
            if !out.iter().any(|x| x.uri == uri) {
                out.push(Extension { uri, required });
            }
        }
        Ok(out)
    }

    fn skills(&mut self, obj: &Map<String, Value>) -> Result<Vec<Skill>, CardError> {
        let Some(entries) = self.array(obj, "", "skills")? else {
            self.warn(required_missing("skills"));
            return Ok(Vec::new());
        };
        if entries.is_empty() {
            self.warn(
                "`skills` is empty (the spec requires at least one; its own example keeps [])"
                    .to_string(),
            );
        }
        let mut out: Vec<Skill> = Vec::new();
        for (i, entry) in entries.iter().enumerate() {
            let at = format!("skills[{i}]");
            let Value::Object(s) = entry else {
                return Err(self.wrong(at, "an object", entry));
            };
            let id = self.string(s, &at, "id")?.filter(|id| !id.is_empty());
            let name = self.lenient_string(s, &at, "name");
            let input_modes = self
                .strings(s, &at, "inputModes")?
                .filter(|m| !m.is_empty());
            let output_modes = self
                .strings(s, &at, "outputModes")?
                .filter(|m| !m.is_empty());
            let Some(id) = id else {
                self.warn(format!(
                    "`{at}.id` is missing (required by the spec); the skill's modes are not checked"
                ));
                continue;
            };
            for (key, modes) in [("inputModes", &input_modes), ("outputModes", &output_modes)] {
                if let Some(modes) = modes {
                    self.media_types(&format!("{at}.{key}"), modes);
                }
            }
            for key in ["name", "description", "tags"] {
                if present(s, key).is_none() {
                    self.warn(required_missing(&format!("{at}.{key}")));
                }
            }
            let name = name.unwrap_or_else(|| id.clone());
            if out.iter().any(|skill| skill.id == id) {
                self.warn(format!(
                    "`{at}.id` repeats the skill id `{id}`; only the first is checked"
                ));
            }
            out.push(Skill {
                id,
                name,
                input_modes,
                output_modes,
                examples: examples(s),
            });
        }
        Ok(out)
    }

    fn security_schemes(&mut self, obj: &Map<String, Value>) -> Result<Vec<String>, CardError> {
        let Some(schemes) = self.object(obj, "", "securitySchemes")? else {
            return Ok(Vec::new());
        };
        for (name, scheme) in schemes {
            let recognised = scheme.as_object().is_some_and(|s| {
                s.contains_key("type") || SCHEME_WRAPPERS.iter().any(|k| s.contains_key(*k))
            });
            if !recognised {
                self.warn(format!(
                    "`securitySchemes.{name}` has neither `type` (v0.3) nor a scheme key such as `httpAuthSecurityScheme` (v1.0)"
                ));
            }
        }
        Ok(schemes.keys().cloned().collect())
    }

    /// Whether the card requires credentials on every request: v1.0
    /// `securityRequirements` or v0.3 `security` (either, on a hybrid card) is
    /// a non-empty array and none of its alternatives is empty (an empty
    /// requirement, `{}`, lets anonymous callers in, as in OpenAPI).
    fn security_required(&mut self, obj: &Map<String, Value>, schemes: &[String]) -> bool {
        let mut alternatives: Vec<Vec<String>> = Vec::new();
        for key in ["securityRequirements", "security"] {
            let Some(value) = present(obj, key) else {
                continue;
            };
            let Some(items) = value.as_array() else {
                self.warn(format!(
                    "`{key}` is {}, not an array of requirements; ignored",
                    kind(value)
                ));
                continue;
            };
            for (i, item) in items.iter().enumerate() {
                let Some(requirement) = item.as_object() else {
                    self.warn(format!(
                        "`{key}[{i}]` is {}, not a requirement object; ignored",
                        kind(item)
                    ));
                    continue;
                };
                // v1.0 wraps the scheme names in `schemes`; v0.3 lists them directly.
                // Some v1.0 texts still call the field `security` (§3.1.11), so
                // the wrapped shape is read under either key.
                let names: Vec<String> = match requirement.get("schemes") {
                    Some(Value::Object(inner)) if !schemes.iter().any(|s| s == "schemes") => {
                        inner.keys().cloned().collect()
                    }
                    _ => requirement.keys().cloned().collect(),
                };
                for name in &names {
                    if !schemes.contains(name) {
                        self.warn(format!(
                            "`{key}[{i}]` requires the scheme `{name}`, which `securitySchemes` does not declare"
                        ));
                    }
                }
                alternatives.push(names);
            }
        }
        if alternatives.is_empty() && !schemes.is_empty() {
            self.warn(
                "`securitySchemes` is declared but no requirement (`securityRequirements` in v1.0, `security` in v0.3) says a request needs one; security.enforced reads as not declared"
                    .to_string(),
            );
        }
        !alternatives.is_empty() && alternatives.iter().all(|names| !names.is_empty())
    }

    fn default_timeout(
        &mut self,
        obj: &Map<String, Value>,
        caps: Option<&Map<String, Value>>,
    ) -> Option<Duration> {
        let places = [
            ("defaultTimeout", Some(obj)),
            ("capabilities.defaultTimeout", caps),
        ];
        for (at, container) in places {
            let Some(value) = container.and_then(|c| present(c, "defaultTimeout")) else {
                continue;
            };
            match duration(value) {
                Some(d) => return Some(d),
                None => self.warn(format!(
                    "`{at}` is `{value}`, not a positive duration (seconds, or a string like \"30s\"); ignored"
                )),
            }
        }
        None
    }
}

/// The most examples read from one skill, and the longest one kept: they
/// are prompts the tool may send, so a card cannot make it send a lot.
const MAX_EXAMPLES: usize = 16;
const MAX_EXAMPLE_CHARS: usize = 2000;

/// A skill's `examples`, read leniently (they are hints, not promises): the
/// non-empty strings, in card order, each with its index in the card's list.
/// Anything else is left out without a warning.
fn examples(skill: &Map<String, Value>) -> Vec<(usize, String)> {
    let Some(Value::Array(items)) = skill.get("examples") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, v)| Some((i, v.as_str()?.trim().to_string())))
        .filter(|(_, text)| !text.is_empty() && text.chars().count() <= MAX_EXAMPLE_CHARS)
        .take(MAX_EXAMPLES)
        .collect()
}

/// Whether `mode` reads as a media type: `type/subtype` (either may be `*`),
/// each a token of RFC 6838 characters, parameters after `;` allowed.
pub(super) fn is_media_type(mode: &str) -> bool {
    let essence = mode.split(';').next().unwrap_or("").trim();
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+*".contains(&b))
    };
    matches!(essence.split_once('/'), Some((kind, sub)) if token(kind) && token(sub))
}
