//! The guards crate's tests, one binary: the guards against the mock peer
//! (`divergences`), the shared cache file and its report seed (`cache`),
//! the card's revalidation (`revalidation`), the example orchestrator
//! (`example`, which runs `examples/orchestrator.rs` itself), and what they
//! share (`support`).

mod cache;
mod divergences;
mod example;
mod revalidation;
mod support;

/// The example orchestrator's own source, so a test runs exactly it.
#[allow(dead_code)]
#[path = "../../examples/orchestrator.rs"]
mod orchestrator;
