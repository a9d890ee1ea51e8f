//! Scenario suites: the YAML language ([`model`]), loading with positioned
//! errors ([`load`]) and values ([`vars`]).

pub mod load;
pub mod model;
pub mod vars;

pub use load::{Scenario, Suite, SuiteError, Verifies};
