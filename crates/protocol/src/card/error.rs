//! Why a card cannot be used: one variant per failure, each message a single line
//! naming what is wrong and where (the card URL, the field path).

use thiserror::Error;

/// A card the tool cannot work with. Everything else a card gets wrong is a
/// warning on [`Card::warnings`](super::Card::warnings), not an error.
///
/// `url` is always the URL the card was fetched from; `field` is a path into the
/// card such as `capabilities.streaming` or `supportedInterfaces[0].url`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardError {
    /// The input to [`discovery_url`](super::discovery_url) is not an http(s) URL with a host.
    #[error("`{input}` is not a usable card URL: {reason}")]
    BadUrl {
        /// What the user gave, trimmed.
        input: String,
        /// Why it is unusable, as a clause ("it has no host").
        reason: String,
    },

    /// The body is over [`MAX_CARD_BYTES`](super::MAX_CARD_BYTES).
    #[error("card at {url} is {size} bytes, over the {max}-byte limit")]
    TooLarge {
        /// The card URL.
        url: String,
        /// The body's size in bytes.
        size: usize,
        /// The cap it passed.
        max: usize,
    },

    /// The body does not parse as JSON.
    #[error("card at {url} is not valid JSON: {detail}")]
    NotJson {
        /// The card URL.
        url: String,
        /// The JSON parser's message (line and column).
        detail: String,
    },

    /// The body is JSON but not an object (`found` is e.g. "an array").
    #[error("card at {url} is not a JSON object (found {found})")]
    NotAnObject {
        /// The card URL.
        url: String,
        /// What it is instead ("an array").
        found: &'static str,
    },

    /// A field the tool cannot work without is absent. `note` completes the
    /// sentence, e.g. " (v1.0) or `url` (v0.3)"; it is empty or starts with a space.
    #[error("card at {url} is missing required field `{field}`{note}")]
    MissingField {
        /// The card URL.
        url: String,
        /// The field's path.
        field: String,
        /// The rest of the sentence (see the variant).
        note: &'static str,
    },

    /// A field the tool reads is present with the wrong JSON type.
    #[error("card at {url} has `{field}` of the wrong type: expected {expected}, found {found}")]
    WrongType {
        /// The card URL.
        url: String,
        /// The field's path.
        field: String,
        /// The JSON type the spec gives it ("a string").
        expected: &'static str,
        /// The JSON type it has ("a number").
        found: &'static str,
    },

    /// No declared interface matches what was asked for and what the tool speaks.
    #[error("card at {url} has no interface the tool can use: {reason}")]
    NoUsableInterface {
        /// The card URL.
        url: String,
        /// Why none fits, listing what the card declares.
        reason: String,
    },
}
