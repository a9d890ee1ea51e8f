//! The published JSON Schema of the `check --json` report, derived from the
//! report types themselves (schemars), so it cannot drift from what the
//! tool writes. `docs/report.schema.json` is this output, committed.

use super::model::RunReport;
use crate::error::AppError;
use crate::exit;

/// The report's JSON Schema, pretty-printed with a trailing newline.
pub fn report_schema() -> String {
    let schema = schemars::schema_for!(RunReport);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// `a2a-conform schema report`: the schema on stdout.
pub fn print() -> Result<i32, AppError> {
    print!("{}", report_schema());
    Ok(exit::OK)
}
