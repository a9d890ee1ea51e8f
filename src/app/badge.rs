//! `badge`: a JSON report's declaration counts as an SVG badge, for a
//! README or a CI artifact. The report is read by the one report loader
//! (capped, version-checked); the SVG is written atomically.

use super::output::is_stdout;
use crate::cli::BadgeArgs;
use crate::error::AppError;
use a2a_conform_dashboard::{badge as svg, Counts};
use a2a_conform_report::diff::DiffInputError;
use a2a_conform_report::{exit, RunReport};

/// Writes the badge of `args.report` to `--output` (or stdout); exit 0, or
/// 2 when the report cannot be read or the badge written.
pub(super) fn badge(args: BadgeArgs) -> Result<i32, AppError> {
    let report = RunReport::load(&args.report).map_err(DiffInputError::from)?;
    let text = svg(&args.label, Counts::of(&report));
    match args.output.as_deref().filter(|path| !is_stdout(path)) {
        Some(path) => a2a_conform_report::write_atomically(path, &text).map_err(|source| {
            AppError::WriteReport {
                path: path.to_path_buf(),
                source,
            }
        })?,
        None => print!("{text}"),
    }
    Ok(exit::OK)
}
