//! The mock peer: a real A2A server on loopback with an honest lifecycle and
//! named divergences, for trying the tool and for the tests.
