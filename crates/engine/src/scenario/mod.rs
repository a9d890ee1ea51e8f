//! Scenario suites: the YAML language ([`ScenarioDef`], `model`), loading
//! with positioned errors (`load`, [`SuiteError`]), the checks a step states
//! at load time (`check`), the typed values steps hold (`values`), `${…}`
//! texts (`template`) and variables, durations and counts ([`vars`]). The
//! step primitives themselves live in `crate::steps`, one file each.
//!
//! This file only declares and re-exports; no module imports from it but
//! the runner and the steps, for the types above.

pub(crate) mod check;
mod error;
mod load;
mod model;
pub(crate) mod template;
pub(crate) mod values;
pub mod vars;

pub use error::SuiteError;
pub use load::{Scenario, Suite, Verifies};
pub use model::{ForEach, ScenarioDef};
