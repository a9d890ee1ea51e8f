//! The named behaviours of the mock peer: the honest lifecycle and each
//! divergence between what the card declares and what the runtime does.

use std::fmt;
use std::str::FromStr;

/// How the mock peer behaves. `Honest` keeps every promise of its card; every
/// other variant breaks exactly one, the same way in v1.0 and v0.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Behaviour {
    /// Keeps every declaration of its card.
    #[default]
    Honest,
    /// Acknowledges a cancel, then keeps streaming artifacts and ends `completed`.
    CancelLeak,
    /// Declares JSON input but refuses a data part on resume with -32602.
    InputOverdeclared,
    /// Declares JSON input but fails the task when a data part resumes it.
    InputOverdeclaredFails,
    /// Declares streaming, sends the first event, then only keep-alive comments.
    StreamSilent,
    /// Declares streaming, sends the first event, then nothing at all.
    StreamSilentNothing,
    /// Reports `completed`, then keeps changing the artifact set.
    UnstableCompletion,
    /// Completes every task the moment it is created.
    Instant,
    /// Declares `streaming: false` but serves streams anyway.
    UndeclaredStreaming,
    /// Declares `streaming: false` and refuses streams with -32004 (correct).
    UndeclaredStreamingRefused,
    /// Declares one more JSON-RPC interface than it serves.
    InterfaceUnserved,
    /// Serves a request whatever `A2A-Version` it claims (v1.0 only).
    VersionLenient,
    /// Declares push notifications and delivers them to the webhook.
    Push,
    /// Declares push notifications, accepts configs, never delivers.
    PushSilent,
    /// Declares push notifications but refuses loopback webhook URLs (SSRF protection).
    PushRefusesLoopback,
    /// Declares a required bearer scheme and refuses requests without the token with 401.
    Secured,
    /// Declares a required bearer scheme but serves requests without credentials.
    SecurityUnenforced,
}

impl Behaviour {
    /// Every behaviour, in the order `mock-peer --help` lists them.
    pub const ALL: &'static [Behaviour] = &[
        Behaviour::Honest,
        Behaviour::CancelLeak,
        Behaviour::InputOverdeclared,
        Behaviour::InputOverdeclaredFails,
        Behaviour::StreamSilent,
        Behaviour::StreamSilentNothing,
        Behaviour::UnstableCompletion,
        Behaviour::Instant,
        Behaviour::UndeclaredStreaming,
        Behaviour::UndeclaredStreamingRefused,
        Behaviour::InterfaceUnserved,
        Behaviour::VersionLenient,
        Behaviour::Push,
        Behaviour::PushSilent,
        Behaviour::PushRefusesLoopback,
        Behaviour::Secured,
        Behaviour::SecurityUnenforced,
    ];

    /// The kebab-case name used on the command line (`cancel-leak`).
    pub fn name(self) -> &'static str {
        match self {
            Behaviour::Honest => "honest",
            Behaviour::CancelLeak => "cancel-leak",
            Behaviour::InputOverdeclared => "input-overdeclared",
            Behaviour::InputOverdeclaredFails => "input-overdeclared-fails",
            Behaviour::StreamSilent => "stream-silent",
            Behaviour::StreamSilentNothing => "stream-silent-nothing",
            Behaviour::UnstableCompletion => "unstable-completion",
            Behaviour::Instant => "instant",
            Behaviour::UndeclaredStreaming => "undeclared-streaming",
            Behaviour::UndeclaredStreamingRefused => "undeclared-streaming-refused",
            Behaviour::InterfaceUnserved => "interface-unserved",
            Behaviour::VersionLenient => "version-lenient",
            Behaviour::Push => "push",
            Behaviour::PushSilent => "push-silent",
            Behaviour::PushRefusesLoopback => "push-refuses-loopback",
            Behaviour::Secured => "secured",
            Behaviour::SecurityUnenforced => "security-unenforced",
        }
    }

    /// One sentence saying what the behaviour does, for help texts and cards.
    pub fn describe(self) -> &'static str {
        match self {
            Behaviour::Honest => "keeps every declaration of its card",
            Behaviour::CancelLeak => {
                "acknowledges a cancel, keeps streaming artifacts afterwards, \
                 and the task later reads completed with a partial artifact"
            }
            Behaviour::InputOverdeclared => {
                "declares application/json input but refuses a data part on \
                 the input-required resume with -32602"
            }
            Behaviour::InputOverdeclaredFails => {
                "declares application/json input but a data part on the \
                 input-required resume fails the task"
            }
            Behaviour::StreamSilent => {
                "declares streaming, sends the first event of a stream, then \
                 only keep-alive comments until it closes"
            }
            Behaviour::StreamSilentNothing => {
                "declares streaming, sends the first event of a stream, then \
                 nothing until it closes"
            }
            Behaviour::UnstableCompletion => {
                "reports completed, then adds and rewrites artifacts afterwards"
            }
            Behaviour::Instant => "completes every task the moment it is created",
            Behaviour::UndeclaredStreaming => "declares streaming: false but serves streams anyway",
            Behaviour::UndeclaredStreamingRefused => {
                "declares streaming: false and refuses streams with -32004 (correct)"
            }
            Behaviour::InterfaceUnserved => {
                "declares a second JSON-RPC interface at /a2a/retired that it does not serve"
            }
            Behaviour::VersionLenient => {
                "serves a request whatever A2A-Version it claims instead of refusing \
                 unsupported ones with -32009"
            }
            Behaviour::Push => {
                "declares push notifications and POSTs every status change of a \
                 task to its configured (loopback) webhooks"
            }
            Behaviour::PushSilent => {
                "declares push notifications and accepts webhook configs, but \
                 never delivers a notification"
            }
            Behaviour::PushRefusesLoopback => {
                "declares push notifications but refuses loopback webhook URLs \
                 with -32602, as SSRF protection (v1 §13.2) recommends"
            }
            Behaviour::Secured => {
                "declares a required bearer scheme and answers every A2A request \
                 without the token (mock-peer --token-env, else a2a-conform-mock-token) \
                 with HTTP 401 and WWW-Authenticate: Bearer; the card stays public"
            }
            Behaviour::SecurityUnenforced => {
                "declares a required bearer scheme but serves requests without \
                 credentials or with any token"
            }
        }
    }

    /// What the card says under `capabilities.streaming`.
    pub(crate) fn declares_streaming(self) -> bool {
        !matches!(
            self,
            Behaviour::UndeclaredStreaming | Behaviour::UndeclaredStreamingRefused
        )
    }

    /// Whether the runtime answers stream and subscribe requests.
    pub(crate) fn serves_streaming(self) -> bool {
        self != Behaviour::UndeclaredStreamingRefused
    }

    /// Whether an unsupported `A2A-Version` is refused (v1.0 peers).
    pub(crate) fn negotiates_version(self) -> bool {
        self != Behaviour::VersionLenient
    }

    /// What the card says under `capabilities.pushNotifications`.
    pub(crate) fn declares_push(self) -> bool {
        matches!(
            self,
            Behaviour::Push | Behaviour::PushSilent | Behaviour::PushRefusesLoopback
        )
    }

    /// Whether push notifications are actually delivered.
    pub(crate) fn delivers_push(self) -> bool {
        self == Behaviour::Push
    }

    /// Whether every webhook URL is refused as a loopback/private address.
    pub(crate) fn refuses_loopback_webhooks(self) -> bool {
        self == Behaviour::PushRefusesLoopback
    }

    /// Whether the card declares a bearer scheme and requires it.
    pub(crate) fn declares_security(self) -> bool {
        matches!(self, Behaviour::Secured | Behaviour::SecurityUnenforced)
    }

    /// Whether requests without the token are refused with 401.
    pub(crate) fn enforces_security(self) -> bool {
        self == Behaviour::Secured
    }

    /// Whether streams go quiet after their first event.
    pub(crate) fn silences_streams(self) -> bool {
        matches!(
            self,
            Behaviour::StreamSilent | Behaviour::StreamSilentNothing
        )
    }
}

impl fmt::Display for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a behaviour name; its message lists the valid names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBehaviour(pub String);

impl fmt::Display for UnknownBehaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Behaviour::ALL.iter().map(|b| b.name()).collect();
        write!(
            f,
            "unknown behaviour `{}`; valid behaviours: {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownBehaviour {}

impl FromStr for Behaviour {
    type Err = UnknownBehaviour;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let wanted = text.trim().to_ascii_lowercase().replace('_', "-");
        Behaviour::ALL
            .iter()
            .copied()
            .find(|b| b.name() == wanted)
            .ok_or_else(|| UnknownBehaviour(text.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for b in Behaviour::ALL {
            assert!(seen.insert(b.name()), "duplicate name {}", b.name());
            assert_eq!(b.name().parse::<Behaviour>(), Ok(*b));
            assert!(!b.describe().is_empty());
        }
        assert_eq!(seen.len(), Behaviour::ALL.len());
        assert_eq!(seen.len(), 17);
        assert_eq!("Cancel_Leak".parse(), Ok(Behaviour::CancelLeak));
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let err = "leaky".parse::<Behaviour>().unwrap_err().to_string();
        assert!(err.contains("leaky"), "{err}");
        assert!(err.contains("cancel-leak"), "{err}");
        assert!(err.contains("undeclared-streaming-refused"), "{err}");
    }
}
