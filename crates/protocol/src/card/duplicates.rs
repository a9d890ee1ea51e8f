//! Repeated keys in a card's JSON. serde_json keeps the last value of a
//! repeated key without a word, so a card that says `"streaming": false`
//! and then `"streaming": true` reads as the second; a reader built on
//! another parser may take the first. This pass reads the same bytes once
//! more with a visitor that sees every key, and names the path of each key
//! an object repeats (`capabilities.streaming`, `skills[0].id`), for a card
//! warning. It runs on a body already within the card's size cap, and keeps
//! only the keys of the objects it is inside.

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// How many repeated keys a card's warnings name; the rest are counted.
pub(super) const NAMED: usize = 10;

/// The paths of the keys some object of `json` repeats, in the order the
/// repeats appear, at most one per path; `None` when the bytes are no JSON
/// (the card's own parse reports that).
pub(super) fn repeated_keys(json: &[u8]) -> Option<Vec<String>> {
    let mut found = Found::default();
    let mut de = serde_json::Deserializer::from_slice(json);
    Walk {
        path: String::new(),
        found: &mut found,
    }
    .deserialize(&mut de)
    .ok()?;
    Some(found.paths)
}

/// The repeated keys' paths, in order, and as a set (a hostile card may
/// repeat a key many thousand times).
#[derive(Default)]
struct Found {
    paths: Vec<String>,
    known: HashSet<String>,
}

/// One value of the document, at `path`, adding every repeat it holds to `found`.
struct Walk<'a> {
    path: String,
    found: &'a mut Found,
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = if self.path.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.path)
            };
            if !seen.insert(key) && self.found.known.insert(path.clone()) {
                self.found.paths.push(path.clone());
            }
            map.next_value_seed(Walk {
                path,
                found: &mut *self.found,
            })?;
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0usize;
        while seq
            .next_element_seed(Walk {
                path: format!("{}[{index}]", self.path),
                found: &mut *self.found,
            })?
            .is_some()
        {
            index += 1;
        }
        Ok(())
    }

    // Scalars hold no keys.
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The card warning for repeated keys, if any.
pub(super) fn warning(paths: &[String]) -> Option<String> {
    let (first, rest) = paths.split_at(paths.len().min(NAMED));
    if first.is_empty() {
        return None;
    }
    let named: Vec<String> = first.iter().map(|p| format!("`{p}`")).collect();
    let more = if rest.is_empty() {
        String::new()
    } else {
        format!(" and {} more", rest.len())
    };
    Some(format!(
        "the card's JSON repeats key(s) {}{more}: the last value of each is the one read, \
         and a reader that keeps the first sees another card (RFC 8259 §4: names SHOULD be unique)",
        named.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_named_by_path_once_each() {
        let json = br#"{"name":"a","capabilities":{"streaming":false,"streaming":true},
            "skills":[{"id":"x"},{"id":"y","id":"z","id":"w"}],"name":"b"}"#;
        assert_eq!(
            repeated_keys(json).unwrap(),
            ["capabilities.streaming", "skills[1].id", "name"]
        );
        let w = warning(&repeated_keys(json).unwrap()).unwrap();
        assert!(
            w.contains("`capabilities.streaming`, `skills[1].id`, `name`"),
            "{w}"
        );
    }

    #[test]
    fn distinct_keys_and_the_same_key_in_sibling_objects_are_no_repeat() {
        let json = br#"{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}],"d":[1,"x",null,true]}"#;
        assert_eq!(repeated_keys(json).unwrap(), Vec::<String>::new());
        assert_eq!(warning(&[]), None);
        assert_eq!(repeated_keys(b"{not json"), None);
    }

    #[test]
    fn many_repeats_are_counted_past_the_named_ones() {
        let body: Vec<String> = (0..15).map(|i| format!(r#""k{i}":1,"k{i}":2"#)).collect();
        let json = format!("{{{}}}", body.join(","));
        let paths = repeated_keys(json.as_bytes()).unwrap();
        assert_eq!(paths.len(), 15);
        let w = warning(&paths).unwrap();
        assert!(w.contains("`k9` and 5 more"), "{w}");
        assert!(!w.contains("`k10`"), "{w}");
    }
}
