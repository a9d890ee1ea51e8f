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

use super::view::Event;
use crate::model::TaskState;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// The event a stream frame's data holds, when the frame has one of the
/// common shapes (see the module docs); `None` otherwise.
///
/// `expect_id` is the id of the JSON-RPC request that opened the stream,
/// `event_name` the SSE `event` field, as the lenient reading takes them.
pub fn stream_event(expect_id: Option<u64>, event_name: Option<&str>, data: &str) -> Option<Event> {
    let Object(frame): Object<Frame<'_>> = serde_json::from_str(data).ok()?;
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
    frame.bare.event()
}

/// A frame: a JSON-RPC envelope, or (REST) a bare StreamResponse, whose
/// fields then sit beside the envelope's. A field is `None` when its key
/// is absent (a `null` is declined).
#[derive(Default)]
struct Frame<'a> {
    jsonrpc: Option<Skip>,
    id: Option<Id<'a>>,
    result: Option<Response<'a>>,
    error: Option<Skip>,
    bare: Response<'a>,
}

/// A StreamResponse: v1.0's wrapper keys, or v0.3's `kind` with the
/// body's fields beside it.
#[derive(Default)]
struct Response<'a> {
    kind: Option<Cow<'a, str>>,
    task: Option<Skip>,
    message: Option<Body<'a>>,
    status_update: Option<Body<'a>>,
    artifact_update: Option<Body<'a>>,
    body: Body<'a>,
}

/// What the runner reads of an event: its task, state, final flag and
/// artifact id, and how an artifact update appends.
#[derive(Default)]
struct Body<'a> {
    task_id: Option<Cow<'a, str>>,
    /// `status.state`; `Some(None)` for a status without one.
    state: Option<Option<State<'a>>>,
    final_flag: Option<bool>,
    /// `artifact.artifactId`; `Some(None)` for an artifact without one.
    artifact_id: Option<Option<Cow<'a, str>>>,
    append: Option<bool>,
    last_chunk: Option<bool>,
}

impl Response<'_> {
    /// The event this StreamResponse holds, as [`Event::from_result`]
    /// reads it; `None` for a task (its artifacts are digested from a
    /// `Value`), an unknown kind, or more than one v1.0 wrapper key (the
    /// lenient reading takes the first in the text's order).
    fn event(&self) -> Option<Event> {
        let (kind, body): (&str, &Body<'_>) = if let Some(kind) = &self.kind {
            (kind, &self.body)
        } else {
            let wrappers = [
                ("message", &self.message),
                ("status-update", &self.status_update),
                ("artifact-update", &self.artifact_update),
            ];
            let mut present = wrappers
                .into_iter()
                .filter_map(|(kind, body)| Some((kind, body.as_ref()?)));
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
                generation: None,
            }),
            "artifact-update" => Some(Event::ArtifactUpdate {
                task_id,
                artifact_id: body.artifact_id.clone().flatten().map(Cow::into_owned),
                append: body.append.unwrap_or(false),
                last_chunk: body.last_chunk.unwrap_or(false),
                generation: None,
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

/// A level of a frame that reads some keys of an object and lets the
/// next level (or [`Skip`]) have the others.
trait Level<'de>: Default {
    /// Reads the value of `key` if it is one of this level's; whether it was.
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error>;
}

impl<'de> Level<'de> for Frame<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "jsonrpc" => once(&mut self.jsonrpc, map.next_value()?)?,
            "id" => once(&mut self.id, map.next_value()?)?,
            "result" => once(&mut self.result, map.next_value::<Object<Response>>()?.0)?,
            "error" => once(&mut self.error, map.next_value()?)?,
            _ => return self.bare.read(key, map),
        }
        Ok(true)
    }
}

impl<'de> Level<'de> for Response<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "kind" => once(&mut self.kind, map.next_value::<Text>()?.0)?,
            "task" => once(&mut self.task, map.next_value()?)?,
            "message" => once(&mut self.message, map.next_value::<Object<Body>>()?.0)?,
            "statusUpdate" => once(&mut self.status_update, map.next_value::<Object<Body>>()?.0)?,
            "artifactUpdate" => once(
                &mut self.artifact_update,
                map.next_value::<Object<Body>>()?.0,
            )?,
            _ => return self.body.read(key, map),
        }
        Ok(true)
    }
}

impl<'de> Level<'de> for Body<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "taskId" => once(&mut self.task_id, map.next_value::<Text>()?.0)?,
            "status" => once(&mut self.state, map.next_value::<Object<Status>>()?.0.state)?,
            "final" => once(&mut self.final_flag, map.next_value()?)?,
            "artifact" => once(
                &mut self.artifact_id,
                map.next_value::<Object<Artifact>>()?.0.artifact_id,
            )?,
            "append" => once(&mut self.append, map.next_value()?)?,
            "lastChunk" => once(&mut self.last_chunk, map.next_value()?)?,
            // The 1.1 draft's `generation` (a string or a number) is read
            // the lenient way, so both readings give the same event.
            "generation" => return Err(de::Error::custom("generation is read leniently")),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A task status: only its `state` is read.
#[derive(Default)]
struct Status<'a> {
    state: Option<State<'a>>,
}

impl<'de> Level<'de> for Status<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "state" => once(&mut self.state, map.next_value()?)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// An artifact: only its `artifactId` is read (its parts are checked as
/// JSON and dropped; no step reads a stream artifact's content).
#[derive(Default)]
struct Artifact<'a> {
    artifact_id: Option<Cow<'a, str>>,
}

impl<'de> Level<'de> for Artifact<'de> {
    fn read<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        match key {
            "artifactId" => once(&mut self.artifact_id, map.next_value::<Text>()?.0)?,
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// A JSON object read as the level `T`, its other keys' values checked
/// and dropped. Only an object: a derived struct would take an array too.
struct Object<T>(T);

impl<'de, T: Level<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);

        impl<'de, T: Level<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object<T>, A::Error> {
                let mut level = T::default();
                while let Some(key) = map.next_key::<Text<'de>>()? {
                    if !level.read(&key.0, &mut map)? {
                        map.next_value::<Skip>()?;
                    }
                }
                Ok(Object(level))
            }
        }

        deserializer.deserialize_map(ObjectVisitor(PhantomData))
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
