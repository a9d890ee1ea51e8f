//! The one versioned run report every output format is a pure function of,
//! and writing report files atomically.

pub mod builder;
pub mod evidence;
pub mod human;
pub mod junit;
pub mod markdown;
mod model;
pub mod precondition;
pub mod schema;
pub mod transcript;

pub use model::*;

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
