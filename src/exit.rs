//! Process exit codes: the contract CI systems gate on (README, "Exit codes").
//! Errors pick theirs through [`crate::error::AppError::exit_code`].

/// Something was verified and nothing fails the run.
pub const OK: i32 = 0;
/// At least one declaration diverged (or `diff` found a regression under `--fail-on`).
pub const DIVERGED: i32 = 1;
/// Usage error; invalid suite, profile, baseline or `diff` input; a report
/// that could not be written.
pub const USAGE: i32 = 2;
/// The peer was unreachable or served no valid card (or the mock peer
/// could not listen).
pub const PEER_UNREACHABLE: i32 = 3;
/// Nothing was verified: every scenario was skipped, inconclusive or in error
/// (or, under `--fail-on-unverified`, a declared row was left unverified).
pub const NOTHING_VERIFIED: i32 = 4;
