//! An incremental Server-Sent Events parser (WHATWG event-stream rules).
