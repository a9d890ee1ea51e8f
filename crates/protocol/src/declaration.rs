//! Declaration ids: the one grammar for the promises a card makes, parsed once.
//!
//! A declaration id names one promise a run can judge
//! (`capabilities.streaming`, `skills[echo].inputModes[text/plain]`,
//! `interfaces[JSONRPC 1.0]`). Suites name them in `verifies:` and `when:`,
//! the card lists the ones it makes, the planner expands over them, and
//! reports, baselines and `diff` key on their spelling. Every one of those
//! reads the same [`DeclarationId`], so a spelling the card answers is a
//! spelling a suite may write, and a typo is caught at load time with the
//! closest known id. The text form (`Display`/`FromStr`) is the wire form:
//! it round-trips exactly.
//!
//! Ids of a suite's own, which no card declares, start with `x-`
//! (`x-acme.refunds`): the grammar stays closed, so `capabilities.streamng`
//! is an error, not a new row.

use std::fmt;
use std::str::FromStr;

/// A capability flag in the card's `capabilities`. Its name (derived, the
/// v1.0 card's camelCase spelling) is what follows `capabilities.` in an id.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[strum(serialize_all = "camelCase")]
pub enum Capability {
    /// `streaming`: the peer answers `SendStreamingMessage` and `SubscribeToTask`.
    Streaming,
    /// `pushNotifications`: the peer delivers task updates to a webhook.
    PushNotifications,
    /// v1.0 `extendedAgentCard`, v0.3 `supportsAuthenticatedExtendedCard`.
    ExtendedAgentCard,
    /// v0.3 only (removed in 1.0).
    StateTransitionHistory,
}

impl Capability {
    /// The name after `capabilities.`, as the v1.0 card spells the flag.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The binding part of an interface id, as cards spell it.
pub type BindingName = String;

/// One promise a card makes (or a suite's own, `x-…`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DeclarationId {
    /// `capabilities.<flag>`.
    Capability(Capability),
    /// `lifecycle.cancel`: every A2A peer promises cancel semantics.
    Cancel,
    /// `lifecycle.completion`: a completed task stays completed, artifacts unchanged.
    Completion,
    /// `protocol.versionNegotiation`: a v1.0 endpoint refuses an A2A-Version it
    /// does not speak (v1 §3.6.2).
    VersionNegotiation,
    /// `security.enforced`: every request needs the credentials the card
    /// requires; a missing or bad one is refused with HTTP 401/403 (v1 §7.4).
    SecurityEnforced,
    /// `defaultInputModes[<media type>]`.
    DefaultInputMode(String),
    /// `defaultOutputModes[<media type>]`.
    DefaultOutputMode(String),
    /// `skills[<id>]`: the skill exists.
    Skill(String),
    /// `skills[<id>].inputModes[<media type>]`.
    SkillInputMode {
        /// The skill's id.
        skill: String,
        /// The media type.
        mode: String,
    },
    /// `skills[<id>].outputModes[<media type>]`.
    SkillOutputMode {
        /// The skill's id.
        skill: String,
        /// The media type.
        mode: String,
    },
    /// `securitySchemes[<name>]`.
    SecurityScheme(String),
    /// `interfaces[<BINDING> <version>]`, or `… #<n>` for the n-th repeat of
    /// the same binding and version (n ≥ 2). The URL is left out so ids stay
    /// stable across hosts and ports.
    Interface {
        /// The binding as cards spell it (`JSONRPC`), or the card's own word.
        binding: BindingName,
        /// The protocol version (`1.0`), or the card's own word.
        version: String,
        /// 1 for the first interface of this binding and version, 2 for the next…
        repeat: u32,
    },
    /// A suite's own id, `x-…`: no card declares it; a scenario verifying it
    /// gets a row of its own.
    Custom(String),
    /// `protocol.unknownTask`: GetTask and CancelTask on an id the peer never
    /// issued answer TaskNotFound (-32001), both versions.
    UnknownTask,
    /// `protocol.terminalSubscribe`: SubscribeToTask on a terminal task is
    /// refused with UnsupportedOperation (-32004), v1 §3.1.6.
    TerminalSubscribe,
    /// `protocol.contextMismatch`: a message whose `contextId` contradicts its
    /// task's is rejected (v1 §3.4.3).
    ContextMismatch,
    /// `protocol.listTasks`: ListTasks (v1.0 only) lists a task just created
    /// and honours `pageSize` (v1 §3.1.4).
    ListTasks,
    /// `protocol.historyLength`: GetTask's `historyLength` bounds the history
    /// returned (v1 §3.2.4).
    HistoryLength,
    /// `signatures[<kid>]` (`signatures[#<n>]` for an entry with no kid or
    /// a repeated one): the card signature verifies against the card as
    /// served (v1 §8.4).
    Signature(String),
    /// `capabilities.extensions[<uri>]`: the card declares the extension (a
    /// `required` one must be asked for by every request, v1 §3.3.4).
    Extension(String),
    /// `protocol.blocking`: a blocking send (v1.0 `returnImmediately` false,
    /// v0.3 `blocking: true` sent explicitly) returns only once the task is
    /// terminal or interrupted (v1 §3.2.2).
    Blocking,
    /// `interfaces[<BINDING> <version>] ≡ interfaces[<BINDING> <version>]`:
    /// the first interface answers the same scenario as the second (the
    /// card's preferred one the tool speaks) in what matters: the task's
    /// state and artifact content, the A2A error codes. Both sides are
    /// [`DeclarationId::Interface`] ids.
    Equivalence(Box<DeclarationId>, Box<DeclarationId>),
    /// `protocol.generation` (A2A 1.1 draft, §3.2.7): a task's `generation`
    /// starts at 1 and each event carries it after its mutation, one more
    /// than the event before; never two events with one generation.
    Generation,
    /// `protocol.generationLongPoll` (1.1 draft, §3.2.7): GetTask with a
    /// `currentGeneration` the task has already passed answers at once.
    GenerationLongPoll,
    /// `protocol.generationMatch` (1.1 draft, §3.2.2): a send whose
    /// `ifGenerationMatch` is not the task's generation is refused with
    /// TaskGenerationMismatchError (-32010); a matching one is not.
    GenerationMatch,
    /// `inputModes.undeclaredRefused`: a part of a media type no input mode
    /// of the card declares ([`UNDECLARED_MEDIA_TYPE`]) is refused with
    /// ContentTypeNotSupportedError (-32005); agents SHOULD reject unexpected
    /// media types (v1 §13.4), and -32005 is the error the spec names for it.
    UndeclaredInputRefused,
}

/// The media type `inputModes.undeclaredRefused` sends: one no card
/// declares on purpose (a card whose modes cover it, `*/*` or
/// `application/*`, does not make the promise).
pub const UNDECLARED_MEDIA_TYPE: &str = "application/x-a2a-conform-undeclared";

/// How an equivalence id joins its two interface ids.
pub const EQUIVALENCE_SIGN: &str = " ≡ ";

impl DeclarationId {
    /// The card-level ids with a fixed spelling, in report order: the one
    /// list of them. Parsing, did-you-mean suggestions and
    /// [`Card::declarations`](crate::card::Card::declarations) all read it.
    pub const FIXED: [DeclarationId; 15] = [
        DeclarationId::Capability(Capability::Streaming),
        DeclarationId::Capability(Capability::PushNotifications),
        DeclarationId::Capability(Capability::ExtendedAgentCard),
        DeclarationId::Capability(Capability::StateTransitionHistory),
        DeclarationId::Cancel,
        DeclarationId::Completion,
        DeclarationId::VersionNegotiation,
        DeclarationId::SecurityEnforced,
        DeclarationId::UnknownTask,
        DeclarationId::TerminalSubscribe,
        DeclarationId::ContextMismatch,
        DeclarationId::ListTasks,
        DeclarationId::HistoryLength,
        DeclarationId::Blocking,
        DeclarationId::UndeclaredInputRefused,
    ];

    /// The A2A 1.1 draft's ids, in report order: rows of a check under
    /// `--protocol 1.1-draft` only (see [`DeclarationId::is_draft_1_1`]).
    pub const DRAFT_1_1: [DeclarationId; 3] = [
        DeclarationId::Generation,
        DeclarationId::GenerationLongPoll,
        DeclarationId::GenerationMatch,
    ];

    /// Whether the id is one of the 1.1 draft's: a scenario gated on one
    /// runs only under `--protocol 1.1-draft`, and is left out of the plan
    /// otherwise, so a 1.0 or 0.3 check is the same with or without them.
    pub fn is_draft_1_1(&self) -> bool {
        Self::DRAFT_1_1.contains(self)
    }

    /// Whether a `when:` gate can ask the card about this id (a suite's own
    /// `x-…` ids are unknown to every card).
    pub fn card_can_answer(&self) -> bool {
        !matches!(self, DeclarationId::Custom(_))
    }

    /// The skill this id is about, if any.
    pub fn skill(&self) -> Option<&str> {
        match self {
            DeclarationId::Skill(skill)
            | DeclarationId::SkillInputMode { skill, .. }
            | DeclarationId::SkillOutputMode { skill, .. } => Some(skill),
            _ => None,
        }
    }

    /// The bracketed part of an `interfaces[…]` id (`JSONRPC 1.0`, `GRPC 1.0 #2`).
    pub fn interface_label(&self) -> Option<String> {
        match self {
            DeclarationId::Interface {
                binding,
                version,
                repeat,
            } => Some(if *repeat > 1 {
                format!("{binding} {version} #{repeat}")
            } else {
                format!("{binding} {version}")
            }),
            _ => None,
        }
    }
}

impl fmt::Display for DeclarationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclarationId::Capability(c) => write!(f, "capabilities.{}", c.as_str()),
            DeclarationId::Cancel => f.write_str("lifecycle.cancel"),
            DeclarationId::Completion => f.write_str("lifecycle.completion"),
            DeclarationId::VersionNegotiation => f.write_str("protocol.versionNegotiation"),
            DeclarationId::SecurityEnforced => f.write_str("security.enforced"),
            DeclarationId::DefaultInputMode(m) => write!(f, "defaultInputModes[{m}]"),
            DeclarationId::DefaultOutputMode(m) => write!(f, "defaultOutputModes[{m}]"),
            DeclarationId::Skill(s) => write!(f, "skills[{s}]"),
            DeclarationId::SkillInputMode { skill, mode } => {
                write!(f, "skills[{skill}].inputModes[{mode}]")
            }
            DeclarationId::SkillOutputMode { skill, mode } => {
                write!(f, "skills[{skill}].outputModes[{mode}]")
            }
            DeclarationId::SecurityScheme(s) => write!(f, "securitySchemes[{s}]"),
            DeclarationId::Interface { .. } => {
                write!(
                    f,
                    "interfaces[{}]",
                    self.interface_label().unwrap_or_default()
                )
            }
            DeclarationId::Custom(s) => f.write_str(s),
            DeclarationId::UnknownTask => f.write_str("protocol.unknownTask"),
            DeclarationId::TerminalSubscribe => f.write_str("protocol.terminalSubscribe"),
            DeclarationId::ContextMismatch => f.write_str("protocol.contextMismatch"),
            DeclarationId::ListTasks => f.write_str("protocol.listTasks"),
            DeclarationId::HistoryLength => f.write_str("protocol.historyLength"),
            DeclarationId::Signature(label) => write!(f, "signatures[{label}]"),
            DeclarationId::Extension(uri) => write!(f, "capabilities.extensions[{uri}]"),
            DeclarationId::Blocking => f.write_str("protocol.blocking"),
            DeclarationId::Equivalence(a, b) => write!(f, "{a}{EQUIVALENCE_SIGN}{b}"),
            DeclarationId::Generation => f.write_str("protocol.generation"),
            DeclarationId::GenerationLongPoll => f.write_str("protocol.generationLongPoll"),
            DeclarationId::GenerationMatch => f.write_str("protocol.generationMatch"),
            DeclarationId::UndeclaredInputRefused => f.write_str("inputModes.undeclaredRefused"),
        }
    }
}

/// Why a text is not a declaration id, with the closest known spelling.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a declaration id{}", hint(.suggestion))]
pub struct DeclarationIdError {
    /// The text as written.
    pub text: String,
    /// The known id (or pattern) closest to the text, when one is close.
    pub suggestion: Option<String>,
}

fn hint(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => format!(
            " (one of {}, defaultInputModes[<type>], skills[<id>].inputModes[<type>], \
             interfaces[<BINDING> <version>], …; a suite's own ids start with `x-`)",
            DeclarationId::FIXED
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The bracketed families, as the suggestion lists them.
const PATTERNS: [&str; 9] = [
    "defaultInputModes[<type>]",
    "defaultOutputModes[<type>]",
    "skills[<id>]",
    "skills[<id>].inputModes[<type>]",
    "skills[<id>].outputModes[<type>]",
    "securitySchemes[<name>]",
    "interfaces[<BINDING> <version>]",
    "signatures[<kid>]",
    "capabilities.extensions[<uri>]",
];

impl FromStr for DeclarationId {
    type Err = DeclarationIdError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse(text).ok_or_else(|| DeclarationIdError {
            text: text.to_string(),
            suggestion: suggest(text),
        })
    }
}

fn parse(text: &str) -> Option<DeclarationId> {
    if let Some(fixed) = DeclarationId::FIXED
        .iter()
        .chain(&DeclarationId::DRAFT_1_1)
        .find(|d| d.to_string() == text)
    {
        return Some(fixed.clone());
    }
    if text.starts_with("x-") && text.len() > 2 && !text.chars().any(char::is_whitespace) {
        return Some(DeclarationId::Custom(text.to_string()));
    }
    if let Some(mode) = bracketed(text, "defaultInputModes") {
        return Some(DeclarationId::DefaultInputMode(mode.to_string()));
    }
    if let Some(mode) = bracketed(text, "defaultOutputModes") {
        return Some(DeclarationId::DefaultOutputMode(mode.to_string()));
    }
    if let Some(name) = bracketed(text, "securitySchemes") {
        return Some(DeclarationId::SecurityScheme(name.to_string()));
    }
    if let Some((a, b)) = text.split_once(EQUIVALENCE_SIGN) {
        let side = |t: &str| bracketed(t, "interfaces").and_then(parse_interface);
        return Some(DeclarationId::Equivalence(
            Box::new(side(a)?),
            Box::new(side(b)?),
        ));
    }
    if let Some(inner) = bracketed(text, "interfaces") {
        return parse_interface(inner);
    }
    if let Some(label) = bracketed(text, "signatures") {
        return Some(DeclarationId::Signature(label.to_string()));
    }
    // An extension URI holds `:`, `/`, `.` and may hold `[`/`]`: all of the
    // bracketed part is the URI.
    if let Some(uri) = bracketed(text, "capabilities.extensions") {
        return Some(DeclarationId::Extension(uri.to_string()));
    }
    let rest = text.strip_prefix("skills[")?;
    // A skill id may itself hold `]`: the mode suffix is found from the right.
    for (suffix, input) in [("].inputModes[", true), ("].outputModes[", false)] {
        if let Some(at) = rest.rfind(suffix) {
            let skill = &rest[..at];
            let mode = rest[at + suffix.len()..].strip_suffix(']')?;
            if skill.is_empty() || mode.is_empty() {
                return None;
            }
            let (skill, mode) = (skill.to_string(), mode.to_string());
            return Some(if input {
                DeclarationId::SkillInputMode { skill, mode }
            } else {
                DeclarationId::SkillOutputMode { skill, mode }
            });
        }
    }
    // `skills[echo].inputMode[…]` is a typo, not a skill named `echo].inputMode[…`.
    let skill = rest
        .strip_suffix(']')
        .filter(|s| !s.is_empty() && !s.contains("]."))?;
    Some(DeclarationId::Skill(skill.to_string()))
}

/// `BINDING VERSION` or `BINDING VERSION #N` (N ≥ 2).
fn parse_interface(inner: &str) -> Option<DeclarationId> {
    let mut words = inner.split(' ');
    let binding = words.next().filter(|w| !w.is_empty())?;
    let version = words.next().filter(|w| !w.is_empty())?;
    let repeat = match words.next() {
        None => 1,
        Some(n) => n
            .strip_prefix('#')?
            .parse::<u32>()
            .ok()
            .filter(|n| *n >= 2)?,
    };
    if words.next().is_some() {
        return None;
    }
    Some(DeclarationId::Interface {
        binding: binding.to_string(),
        version: version.to_string(),
        repeat,
    })
}

/// `key[inner]` → `inner` (non-empty).
fn bracketed<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.strip_prefix(key)?
        .strip_prefix('[')?
        .strip_suffix(']')
        .filter(|inner| !inner.is_empty())
}

/// The known spelling closest to a text that did not parse: a fixed id, or a
/// bracketed family compared on its key (`skill[echo]` → `skills[<id>]`).
fn suggest(text: &str) -> Option<String> {
    let fixed = DeclarationId::FIXED
        .iter()
        .chain(&DeclarationId::DRAFT_1_1)
        .map(|d| d.to_string());
    // `streaming` for `capabilities.streaming`: the last word alone.
    if let Some(full) = fixed.clone().find(|f| f.rsplit('.').next() == Some(text)) {
        return Some(full);
    }
    let key = shape(text);
    let mut best: Option<(f64, String)> = None;
    for candidate in fixed {
        let score = strsim::jaro_winkler(text, &candidate);
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, candidate));
        }
    }
    if text.contains('[') {
        for pattern in PATTERNS {
            let score = strsim::jaro_winkler(&key, &shape(pattern));
            if best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, pattern.to_string()));
            }
        }
    }
    best.filter(|(score, _)| *score >= 0.8).map(|(_, s)| s)
}

/// A text with every bracketed part emptied (`skills[echo].inputModes[a/b]`
/// → `skills[].inputModes[]`), to compare spellings by their structure.
fn shape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '[' => {
                if depth == 0 {
                    out.push('[');
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(']');
                }
            }
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// A name from a fixed list closest to a mistyped one (did-you-mean), if any
/// is close enough to be a likely typo.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(name, k), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

impl serde::Serialize for DeclarationId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for DeclarationId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A scenario's `when:` gate, parsed once: run only if the card declares the
/// id (`capabilities.streaming`), or only if it does not (`!capabilities.streaming`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gate {
    /// `!id`: the gate opens when the card does *not* declare the id.
    pub negate: bool,
    /// The declaration the gate asks the card about.
    pub id: DeclarationId,
}

impl Gate {
    /// Whether a card that does (or does not) declare the id opens the gate.
    pub fn opens(&self, declared: bool) -> bool {
        declared != self.negate
    }

    /// Why a closed gate skips the run.
    pub fn skip_reason(&self) -> String {
        if self.negate {
            format!("the card declares {}", self.id)
        } else {
            format!("the card does not declare {}", self.id)
        }
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negate {
            f.write_str("!")?;
        }
        self.id.fmt(f)
    }
}

/// Why a `when:` text is not a gate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateError {
    /// The text is no declaration id.
    #[error(transparent)]
    Id(#[from] DeclarationIdError),
    /// A suite's own `x-…` id, which no card can answer.
    #[error(
        "`{0}` is a suite's own id: no card declares it, so a `when:` gate on it would never open"
    )]
    Custom(String),
}

impl FromStr for Gate {
    type Err = GateError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (negate, rest) = match text.strip_prefix('!') {
            Some(rest) => (true, rest.trim_start()),
            None => (false, text),
        };
        let id: DeclarationId = rest.parse()?;
        if !id.card_can_answer() {
            return Err(GateError::Custom(id.to_string()));
        }
        Ok(Gate { negate, id })
    }
}

impl<'de> serde::Deserialize<'de> for Gate {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_round_trips() {
        for text in [
            "capabilities.streaming",
            "capabilities.pushNotifications",
            "capabilities.extendedAgentCard",
            "capabilities.stateTransitionHistory",
            "lifecycle.cancel",
            "lifecycle.completion",
            "protocol.versionNegotiation",
            "security.enforced",
            "defaultInputModes[text/plain]",
            "defaultOutputModes[application/json]",
            "skills[echo]",
            "skills[echo].inputModes[image/png]",
            "skills[a]b].outputModes[text/plain]",
            "securitySchemes[bearer]",
            "interfaces[JSONRPC 1.0]",
            "interfaces[HTTP+JSON 0.3 #2]",
            "interfaces[HTTP+JSON 1.0] ≡ interfaces[JSONRPC 1.0]",
            "interfaces[GRPC 1.0 #2] ≡ interfaces[JSONRPC 0.3]",
            "x-acme.refunds",
            "protocol.unknownTask",
            "protocol.terminalSubscribe",
            "protocol.contextMismatch",
            "protocol.listTasks",
            "protocol.historyLength",
            "protocol.blocking",
            "inputModes.undeclaredRefused",
            "signatures[key-1]",
            "signatures[#2]",
            "capabilities.extensions[https://example.com/ext/v1]",
            "capabilities.extensions[urn:a2a:ext:x[1]]",
            "protocol.generation",
            "protocol.generationLongPoll",
            "protocol.generationMatch",
        ] {
            let id: DeclarationId = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(id.to_string(), text);
        }
    }

    /// The 1.1 draft's ids parse and are the draft's only: no fixed row
    /// of every report is one of them.
    #[test]
    fn the_draft_ids_stand_apart_from_the_fixed_rows() {
        for id in DeclarationId::DRAFT_1_1 {
            assert!(id.is_draft_1_1());
            assert!(!DeclarationId::FIXED.contains(&id), "{id}");
        }
        assert!(!DeclarationId::Cancel.is_draft_1_1());
        let err = "protocol.generaton".parse::<DeclarationId>().unwrap_err();
        assert_eq!(err.suggestion.as_deref(), Some("protocol.generation"));
    }

    #[test]
    fn typed_parts_come_out() {
        let id: DeclarationId = "skills[book].inputModes[audio/wav]".parse().unwrap();
        assert_eq!(
            id,
            DeclarationId::SkillInputMode {
                skill: "book".into(),
                mode: "audio/wav".into()
            }
        );
        assert_eq!(id.skill(), Some("book"));
        let id: DeclarationId = "interfaces[GRPC 1.0 #3]".parse().unwrap();
        assert_eq!(id.interface_label().as_deref(), Some("GRPC 1.0 #3"));
    }

    #[test]
    fn typos_are_errors_with_the_closest_id() {
        for (text, want) in [
            ("capabilities.streamng", Some("capabilities.streaming")),
            (
                "capabilities.pushNotification",
                Some("capabilities.pushNotifications"),
            ),
            ("lifecycle.cancle", Some("lifecycle.cancel")),
            (
                "defaultInputMode[text/plain]",
                Some("defaultInputModes[<type>]"),
            ),
            (
                "skill[echo].inputModes[text/plain]",
                Some("skills[<id>].inputModes[<type>]"),
            ),
            ("streaming", Some("capabilities.streaming")),
            ("enforced", Some("security.enforced")),
            ("teleport", None),
            ("", None),
        ] {
            let err = text.parse::<DeclarationId>().unwrap_err();
            assert_eq!(err.suggestion.as_deref(), want, "{text}");
            assert!(err.to_string().contains(&format!("`{text}`")), "{err}");
        }
        for bad in [
            "skills[].inputModes[text/plain]",
            "skills[echo].inputModes[]",
            "skills[]",
            "defaultInputModes[]",
            "defaultInputModes",
            "interfaces[JSONRPC]",
            "interfaces[JSONRPC 1.0 #1]",
            "interfaces[JSONRPC 1.0 2]",
            "interfaces[JSONRPC 1.0] ≡ lifecycle.cancel",
            "interfaces[JSONRPC 1.0] ≡ ",
            "x-",
            "x-has space",
        ] {
            assert!(bad.parse::<DeclarationId>().is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn gates_parse_once_and_refuse_custom_ids() {
        let gate: Gate = "!capabilities.streaming".parse().unwrap();
        assert!(gate.negate);
        assert!(gate.opens(false));
        assert!(!gate.opens(true));
        assert_eq!(gate.to_string(), "!capabilities.streaming");
        assert_eq!(
            gate.skip_reason(),
            "the card declares capabilities.streaming"
        );
        assert!(matches!(
            "x-mine".parse::<Gate>(),
            Err(GateError::Custom(_))
        ));
        assert!(matches!("streaming".parse::<Gate>(), Err(GateError::Id(_))));
    }

    #[test]
    fn closest_names_a_likely_typo_only() {
        let known = ["prompt_input_required", "prompt", "probe_window"];
        assert_eq!(
            closest("prompt_input_requred", known),
            Some("prompt_input_required")
        );
        assert_eq!(closest("zzz", known), None);
    }
}
