//! a2a-conform: tells, declaration by declaration, whether an A2A peer's runtime
//! keeps what its agent card promises.

pub mod card;
pub mod mock;
pub mod protocol;
pub mod scenario;
pub mod transport;
