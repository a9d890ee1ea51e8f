//! Process exit codes: the contract CI systems gate on (README, "Exit codes").
//! The CLI's one error type picks its code from these.

/// Something was verified and nothing fails the run.
pub const OK: i32 = 0;
/// At least one declaration diverged (or `diff` found a regression under `--fail-on`).
pub const DIVERGED: i32 = 1;
/// Usage error; invalid suite, profile, baseline or `diff` input; a report
/// that could not be written.
pub const USAGE: i32 = 2;
/// The peer was unreachable, served no valid card, or did not speak A2A (a
/// run ended in a peer malfunction: HTTP 5xx, HTML, not JSON, a wrong id, a
/// reset), or the mock peer could not listen. No answer within `--timeout`
/// is the tool's own bound running out, not a malfunction.
pub const PEER_UNREACHABLE: i32 = 3;
/// Nothing was verified: every scenario was skipped, inconclusive or in error
/// (or, under `--fail-on-unverified`, a declared row was left unverified; or
/// the credentials given were refused on every request that carried them:
/// what the check was asked to verify with them could not be, and the
/// peer that refused them answered as A2A requires, so not
/// [`PEER_UNREACHABLE`]).
pub const NOTHING_VERIFIED: i32 = 4;
/// SIGINT stopped the check (128 + 2); every requested report was written,
/// marked interrupted.
pub const INTERRUPTED: i32 = 130;
/// SIGTERM stopped the check (128 + 15), e.g. a CI job's timeout.
pub const TERMINATED: i32 = 143;
/// Stdout was closed before the output ended (`… | head`): 128 + SIGPIPE,
/// as a shell reports a tool SIGPIPE ended.
pub const BROKEN_PIPE: i32 = 141;
