//! The fast reading of a stream event: the frame's JSON is read straight
//! into the few fields the runner uses, every other value checked and
//! dropped without being built, strings borrowed from the frame where
//! they hold no escape. On a fast stream a `serde_json::Value` tree per
//! event cost more than everything else the tool does with the event.
//!
//! It reads only the common shapes, exactly: a JSON-RPC envelope (or, for
//! REST, a bare StreamResponse) holding a message, a status update or an
//! artifact update in either version's shape, every field it reads of the
//! JSON type it expects. Anything else — a task, an error, an id that does
//! not match, a repeated key, a field of another type, text that is not
//! JSON — is declined (`None`), and the caller reads the frame the lenient
//! way ([`Event::from_result`] over a `Value`), which decides what it
//! means. So an event is the same whichever way it was read.

use super::Event;
use crate::protocol::TaskState;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// The event a stream frame's data holds, when the frame has one of the
/// common shapes (see the module docs); `None` otherwise.
///
/// `expect_id` is the id of the JSON-RPC request that opened the stream,
/// `event_name` the SSE `event` field, as the lenient reading takes them.
pub fn stream_event(expect_id: Option<u64>, event_name: Option<&str>, data: &str) -> Option<Event> {
    let frame: Wire<'_> = serde_json::from_str(data).ok()?;
    let is_envelope = frame.jsonrpc.is_some()
        || (expect_id.is_some() && (frame.result.is_some() || frame.error.is_some()));
    if is_envelope {
        if frame.error.is_some() {
            return None;
        }
        if let Some(expected) = expect_id {
            let matches = match frame.id? {
                Id::Number(n) => n == expected,
                Id::Text(text) => *text == *expected.to_string(),
            };
            if !matches {
                return None;
            }
        }
        return frame.result?.event();
    }
    if event_name == Some("error") || frame.error.is_some() {
        return None;
    }
    frame.event()
}

/// Every field the runner reads from a stream frame, at any of its levels:
/// the JSON-RPC envelope, the StreamResponse (v1.0's wrapper keys, or
/// v0.3's `kind`), and the event body. One type for the three, since REST
/// sends the StreamResponse bare and v0.3 puts the body's fields beside
/// `kind`. A field is `None` when its key is absent (a `null` is declined).
#[derive(Default)]
struct Wire<'a> {
    // The envelope.
    jsonrpc: Option<Skip>,
    id: Option<Id<'a>>,
    result: Option<Box<Wire<'a>>>,
    error: Option<Skip>,
    // The StreamResponse.
    kind: Option<Cow<'a, str>>,
    task: Option<Skip>,
    message: Option<Box<Wire<'a>>>,
    status_update: Option<Box<Wire<'a>>>,
    artifact_update: Option<Box<Wire<'a>>>,
    // The event body.
    task_id: Option<Cow<'a, str>>,
    /// `status.state`; `Some(None)` for a status without one.
    state: Option<Option<State<'a>>>,
    final_flag: Option<bool>,
    /// `artifact.artifactId`; `Some(None)` for an artifact without one.
    artifact_id: Option<Option<Cow<'a, str>>>,
    append: Option<bool>,
    last_chunk: Option<bool>,
}

impl Wire<'_> {
    /// The event this StreamResponse holds, as [`Event::from_result`]
    /// reads it; `None` for a task (its artifacts are digested from a
    /// `Value`), an unknown kind, or more than one v1.0 wrapper key (the
    /// lenient reading takes the first in the text's order).
    fn event(&self) -> Option<Event> {
        let (kind, body): (&str, &Wire<'_>) = if let Some(kind) = &self.kind {
            (kind, self)
        } else {
            let wrappers = [
                ("message", &self.message),
                ("status-update", &self.status_update),
                ("artifact-update", &self.artifact_update),
            ];
            let mut present = wrappers
                .into_iter()
                .filter_map(|(kind, body)| Some((kind, body.as_deref()?)));
            let (kind, body) = present.next()?;
            if present.next().is_some() || self.task.is_some() {
                return None;
            }
            (kind, body)
        };
        let task_id = body.task_id.as_deref().map(str::to_string);
        match kind {
            "message" => Some(Event::Message { task_id }),
            "status-update" => Some(Event::StatusUpdate {
                task_id,
                state: body.state.as_ref().and_then(|s| s.as_ref()?.task_state()),
                final_flag: body.final_flag,
            }),
            "artifact-update" => Some(Event::ArtifactUpdate {
                task_id,
                artifact_id: body.artifact_id.clone().flatten().map(Cow::into_owned),
                append: body.append.unwrap_or(false),
                last_chunk: body.last_chunk.unwrap_or(false),
            }),
            _ => None,
        }
    }
}

/// Sets a field once; a key given twice is declined (the lenient reading
/// keeps the last).
fn once<T, E: de::Error>(field: &mut Option<T>, value: T) -> Result<(), E> {
    match field {
        Some(_) => Err(E::custom("a repeated key")),
        None => {
            *field = Some(value);
            Ok(())
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Wire<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WireVisitor;

        impl<'de> Visitor<'de> for WireVisitor {
            type Value = Wire<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Wire<'de>, A::Error> {
                let mut wire = Wire::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        "jsonrpc" => once(&mut wire.jsonrpc, map.next_value()?)?,
                        "id" => once(&mut wire.id, map.next_value()?)?,
                        "result" => once(&mut wire.result, map.next_value()?)?,
                        "error" => once(&mut wire.error, map.next_value()?)?,
                        "kind" => once(&mut wire.kind, map.next_value::<Text>()?.0)?,
                        "task" => once(&mut wire.task, map.next_value()?)?,
                        "message" => once(&mut wire.message, map.next_value()?)?,
                        "statusUpdate" => once(&mut wire.status_update, map.next_value()?)?,
                        "artifactUpdate" => once(&mut wire.artifact_update, map.next_value()?)?,
                        "taskId" => once(&mut wire.task_id, map.next_value::<Text>()?.0)?,
                        "status" => once(&mut wire.state, map.next_value::<Status>()?.state)?,
                        "final" => once(&mut wire.final_flag, map.next_value()?)?,
                        "artifact" => {
                            let artifact = map.next_value::<Artifact>()?;
                            once(&mut wire.artifact_id, artifact.artifact_id)?
                        }
                        "append" => once(&mut wire.append, map.next_value()?)?,
                        "lastChunk" => once(&mut wire.last_chunk, map.next_value()?)?,
                        _ => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(wire)
            }
        }

        deserializer.deserialize_map(WireVisitor)
    }
}

/// A task status: only its `state` is read.
struct Status<'a> {
    state: Option<State<'a>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Status<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StatusVisitor;

        impl<'de> Visitor<'de> for StatusVisitor {
            type Value = Status<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a task status object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Status<'de>, A::Error> {
                let mut state = None;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        "state" => once(&mut state, map.next_value()?)?,
                        _ => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(Status { state })
            }
        }

        deserializer.deserialize_map(StatusVisitor)
    }
}

/// An artifact: only its `artifactId` is read (its parts are checked as
/// JSON and dropped; no step reads a stream artifact's content).
struct Artifact<'a> {
    artifact_id: Option<Cow<'a, str>>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Artifact<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ArtifactVisitor;

        impl<'de> Visitor<'de> for ArtifactVisitor {
            type Value = Artifact<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an artifact object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Artifact<'de>, A::Error> {
                let mut artifact_id = None;
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    match &*key.0 {
                        "artifactId" => once(&mut artifact_id, map.next_value::<Text>()?.0)?,
                        _ => {
                            map.next_value::<Skip>()?;
                        }
                    }
                }
                Ok(Artifact { artifact_id })
            }
        }

        deserializer.deserialize_map(ArtifactVisitor)
    }
}

/// A value checked and dropped. Read as any value is (not skipped with
/// serde's `IgnoredAny`, which serde_json checks less: no nesting limit,
/// no number range), so text the lenient reading refuses is refused here.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SkipVisitor;

        impl<'de> Visitor<'de> for SkipVisitor {
            type Value = Skip;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
                Ok(Skip)
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(Skip)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Skip)
            }
        }

        deserializer.deserialize_any(SkipVisitor)
    }
}

/// A JSON string, borrowed from the frame unless it held escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Text<'de>, E> {
        Ok(Text(Cow::Owned(text.to_owned())))
    }
}

/// A JSON-RPC id as the envelope check compares it: a non-negative integer
/// or a string. Any other id is declined.
enum Id<'a> {
    Number(u64),
    Text(Cow<'a, str>),
}

impl<'de: 'a, 'a> Deserialize<'de> for Id<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct IdVisitor;

        impl<'de> Visitor<'de> for IdVisitor {
            type Value = Id<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-negative integer or a string")
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Id<'de>, E> {
                Ok(Id::Number(n))
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Id<'de>, E> {
                Ok(Id::Text(Cow::Borrowed(text)))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Id<'de>, E> {
                Ok(Id::Text(Cow::Owned(text.to_owned())))
            }
        }

        deserializer.deserialize_any(IdVisitor)
    }
}

/// A task state as sent: the proto integer or a name in either version's
/// spelling ([`TaskState::from_wire`]). Any other value is declined.
enum State<'a> {
    Number(i64),
    Text(Cow<'a, str>),
}

impl State<'_> {
    fn task_state(&self) -> Option<TaskState> {
        match self {
            State::Number(n) => TaskState::from_wire_number(*n),
            State::Text(text) => TaskState::from_wire_text(text),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for State<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StateVisitor;

        impl<'de> Visitor<'de> for StateVisitor {
            type Value = State<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a string")
            }

            fn visit_i64<E: de::Error>(self, n: i64) -> Result<State<'de>, E> {
                Ok(State::Number(n))
            }

            fn visit_u64<E: de::Error>(self, n: u64) -> Result<State<'de>, E> {
                // Past i64 the lenient reading finds no state; declined.
                i64::try_from(n)
                    .map(State::Number)
                    .map_err(|_| E::custom("a state number past i64"))
            }

            fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<State<'de>, E> {
                Ok(State::Text(Cow::Borrowed(text)))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<State<'de>, E> {
                Ok(State::Text(Cow::Owned(text.to_owned())))
            }
        }

        deserializer.deserialize_any(StateVisitor)
    }
}
