//! Lenient, version-neutral views of what a peer sent: tasks, artifacts, stream
//! events and errors. Parsing keeps the raw JSON; judging happens elsewhere.
