//! `a2a-conform schema report`: the published JSON Schema of the `check
//! --json` report on stdout. The schema is derived from the report types
//! themselves (the report crate), so it cannot drift from what the tool
//! writes; `docs/report.schema.json` is this output, committed.

use crate::error::AppError;
use a2a_conform_report::exit;

/// Prints the schema; exits 0.
pub(super) fn print() -> Result<i32, AppError> {
    print!("{}", a2a_conform_report::report_schema());
    Ok(exit::OK)
}
