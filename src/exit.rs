//! Process exit codes: the contract CI systems gate on (README, "Exit codes").

/// Every applicable declaration was honoured.
pub const OK: i32 = 0;
/// At least one declaration diverged (or `diff` found a regression under `--fail-on`).
pub const DIVERGED: i32 = 1;
/// Usage error, invalid suite or invalid profile.
pub const USAGE: i32 = 2;
/// The peer was unreachable or served no valid card.
pub const PEER_UNREACHABLE: i32 = 3;
/// Nothing was verified: every scenario was skipped, inconclusive or in error.
pub const NOTHING_VERIFIED: i32 = 4;
