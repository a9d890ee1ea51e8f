//! Agent card discovery and parsing: version detection, endpoint choice and the
//! declarations a run will judge. Pure logic: the caller fetches the bytes.
//!
//! - [`discovery_url`] turns a card URL or base URL into the URL to fetch.
//! - [`parse_card`] reads a fetched body into a [`Card`]: its layout (v1.0, v0.3 or
//!   hybrid), every declared [`Interface`], the one chosen as `endpoint`, and what
//!   the card declares ([`Card::declarations`], [`Card::is_declared`]).
//!
//! - [`hygiene`] warns about what the spec asks with SHOULD (caching headers).
//! - [`signature`] reads and verifies the card's `signatures` (v1 §8.4).
//!
//! What is fatal and what is a warning is documented on [`parse_card`].

mod declarations;
mod discovery;
mod duplicates;
mod error;
pub mod hygiene;
mod interfaces;
mod model;
mod parse;
mod select;
pub mod signature;

#[cfg(test)]
mod tests;

pub use discovery::{discovery_url, WELL_KNOWN_PATH};
pub use error::CardError;
pub use model::{
    BindingChoice, Capabilities, Card, CardLayout, Declaration, Extension, Interface,
    InterfaceDeclaration, PairDeclaration, ProtocolChoice, Skill, MAX_CARD_BYTES,
};
pub use parse::parse_card;
