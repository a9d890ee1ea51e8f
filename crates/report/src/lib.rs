//! What users and CI consume from a2a-conform: the one versioned
//! [`RunReport`] (its JSON Schema generated from these types), the formats
//! that are pure functions of it ([`human`], [`junit`], [`markdown`]), how
//! runs become declaration verdicts and exit codes ([`verdict`], [`exit`]),
//! known divergences ([`baseline`]), comparing two reports ([`diff`]) and
//! joining shards ([`merge`]). Peer text is made [`inert`] for each sink;
//! user files are read through [`input`] within a cap.

pub mod baseline;
pub mod builder;
pub mod diff;
pub mod evidence;
pub mod exit;
pub mod human;
pub mod inert;
pub mod input;
pub mod junit;
pub mod markdown;
pub mod merge;
mod model;
pub mod precondition;
pub mod shard;
pub mod timeline;
pub mod verdict;
pub mod yaml;

pub use model::*;

/// The report's JSON Schema (schemars, from the report types themselves),
/// pretty-printed with a trailing newline: what `a2a-conform schema report`
/// prints and `docs/report.schema.json` holds.
pub fn report_schema() -> String {
    let schema = schemars::schema_for!(RunReport);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use strum::VariantArray;

    /// The human and Markdown reports print `as_str`; the JSON report the serde
    /// spelling. They must be the same word.
    fn same_names<T: Serialize + Copy + Into<&'static str>>(all: &[T]) {
        for v in all {
            let name: &'static str = (*v).into();
            assert_eq!(serde_json::to_value(v).unwrap(), serde_json::json!(name));
        }
    }

    #[test]
    fn verdict_names_are_the_json_spellings() {
        same_names(ScenarioVerdict::VARIANTS);
        same_names(DeclarationVerdict::VARIANTS);
        same_names(BaselineStatus::VARIANTS);
        assert_eq!(DeclarationVerdict::OverDelivers.as_str(), "over-delivers");
        assert_eq!(ScenarioVerdict::Inconclusive.as_str(), "inconclusive");
    }

    #[test]
    fn timestamps_look_like_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.starts_with("20") && t.ends_with('Z'), "{t}");
    }

    #[test]
    fn atomic_write_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        write_atomically(&path, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }
}
