//! The a2a-conform engine: YAML scenario suites ([`scenario`]: data composed
//! from step primitives, loaded with `file:line:col` errors) and the
//! [`runner`] that checks peers against their agent cards over the client
//! crate, producing the report crate's `RunReport`.

pub mod runner;
pub mod scenario;
