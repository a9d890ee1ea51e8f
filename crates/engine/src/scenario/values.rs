//! The typed values step fields hold, shared by several primitives: one
//! value or a list ([`OneOrMany`]) of words from a fixed set ([`Named`]:
//! task states, [`EventKind`]s), the `credentials` choice, and the
//! [`Condition`] `expect` and `inconclusive_if` test. A word outside its set
//! is a load error listing the set (with a did-you-mean).

use a2a_conform_protocol::{Event, TaskState};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// Either one value or a list of values (`state: completed`,
/// `state: [completed, failed]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OneOrMany<T>(pub(crate) Vec<T>);

impl<T: Clone> OneOrMany<T> {
    pub(crate) fn items(&self) -> &[T] {
        &self.0
    }

    /// The values of an optional key (none when absent).
    pub(crate) fn all(value: &Option<OneOrMany<T>>) -> Vec<T> {
        value.as_ref().map(|v| v.0.clone()).unwrap_or_default()
    }
}

/// A value scenarios name by one of a fixed set of words (a state, an
/// event kind); a word outside the set is an error listing the set.
pub(crate) trait Named: Sized + Copy + 'static {
    /// What the value is, for messages ("task state").
    const WHAT: &'static str;
    fn all() -> &'static [Self];
    fn name(self) -> &'static str;
}

impl Named for TaskState {
    const WHAT: &'static str = "task state";
    fn all() -> &'static [Self] {
        TaskState::ALL
    }
    fn name(self) -> &'static str {
        self.as_str()
    }
}

fn named<T: Named, E: de::Error>(text: &str) -> Result<T, E> {
    T::all()
        .iter()
        .copied()
        .find(|v| v.name() == text)
        .ok_or_else(|| {
            let names: Vec<&str> = T::all().iter().map(|v| v.name()).collect();
            match a2a_conform_protocol::declaration::closest(text, names.iter().copied()) {
                Some(near) => E::custom(format!(
                    "unknown {} `{text}` (did you mean `{near}`? one of {})",
                    T::WHAT,
                    names.join(", ")
                )),
                None => E::custom(format!(
                    "unknown {} `{text}` (one of {})",
                    T::WHAT,
                    names.join(", ")
                )),
            }
        })
}

/// One item of a list, read by its name.
struct Item<T>(T);

impl<'de, T: Named> Deserialize<'de> for Item<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        named(&text).map(Item)
    }
}

// Not `#[serde(untagged)]`: that buffers the value and loses both the
// position and the reason of a bad item.
impl<'de, T: Named> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Items<T>(PhantomData<T>);
        impl<'de, T: Named> Visitor<'de> for Items<T> {
            type Value = OneOrMany<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a {} or a list of them", T::WHAT)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(OneOrMany(vec![named(v)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(Item(item)) = seq.next_element()? {
                    items.push(item);
                }
                Ok(OneOrMany(items))
            }
        }
        deserializer.deserialize_any(Items(PhantomData))
    }
}

/// The kind of a stream event, as scenarios name it (`status-update`): the
/// spellings and their order come from the derive, once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::VariantArray)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum EventKind {
    Task,
    Message,
    StatusUpdate,
    ArtifactUpdate,
    Error,
}

impl Named for EventKind {
    const WHAT: &'static str = "event kind";
    fn all() -> &'static [Self] {
        <EventKind as strum::VariantArray>::VARIANTS
    }
    fn name(self) -> &'static str {
        self.into()
    }
}

impl EventKind {
    /// The kind of an event; an unrecognized one has none.
    pub(crate) fn of(event: &Event) -> Option<EventKind> {
        match event {
            Event::Task(_) => Some(EventKind::Task),
            Event::Message { .. } => Some(EventKind::Message),
            Event::StatusUpdate { .. } => Some(EventKind::StatusUpdate),
            Event::ArtifactUpdate { .. } => Some(EventKind::ArtifactUpdate),
            Event::Error(_) => Some(EventKind::Error),
            Event::Unrecognized { .. } => None,
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which credentials a request carries (the `credentials` key of
/// `send`/`stream`/`get_extended_card`); the runner maps it to the HTTP
/// client's own choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Credentials {
    /// The bearer token of `--bearer-env` and every `--header`/profile header.
    #[default]
    Configured,
    /// No credentials: neither the bearer token nor any sensitive header.
    None,
    /// As `none`, plus a made-up bearer token no peer can have issued.
    Invalid,
}

/// Conditions on a captured answer; any one matching is a match.
#[derive(Debug, Default, Clone)]
pub(crate) struct Condition {
    /// The captured state is one of these.
    pub(crate) state: Vec<TaskState>,
    /// The captured state is none of these (or there is no state).
    pub(crate) not_state: Vec<TaskState>,
    /// The answer was an error with one of these codes.
    pub(crate) code: Vec<i64>,
    /// The answer was no error, or an error with none of these codes.
    pub(crate) not_code: Vec<i64>,
    /// The answer was any protocol error.
    pub(crate) error: bool,
    /// The answer was a task or a message (no error).
    pub(crate) ok: bool,
    /// The peer refused the request with one of these HTTP statuses (401,
    /// 403: the refusals the runner captures, whatever their body).
    pub(crate) http_status: Vec<u16>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_kinds_are_spelled_as_scenarios_write_them() {
        let names: Vec<&str> = EventKind::all().iter().map(|k| k.name()).collect();
        assert_eq!(
            names,
            [
                "task",
                "message",
                "status-update",
                "artifact-update",
                "error"
            ]
        );
    }
}
