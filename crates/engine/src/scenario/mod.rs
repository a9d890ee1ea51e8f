//! Scenario suites: the YAML language ([`model`]), loading with positioned
//! errors ([`load`]), `${…}` texts ([`template`]) and values ([`vars`]).

pub mod load;
pub mod model;
pub mod protocol_steps;
pub mod template;
pub mod vars;

pub use load::{Scenario, Suite, SuiteError, Verifies};
