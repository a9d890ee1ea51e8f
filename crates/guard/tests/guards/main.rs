//! The guards crate's tests, one binary: the guards against the mock peer
//! (`divergences`), the shared cache file and its report seed (`cache`),
//! and what they share (`support`).

mod cache;
mod divergences;
mod support;
