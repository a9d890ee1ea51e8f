//! A run's variables: its peer's base variables (built-ins, the suite's,
//! the card's probe window, `--var`), shared by every run of the peer
//! behind one `Arc`, under the few that the run's expansion or the run
//! itself sets. A fleet holds every peer's plan at once, and a copy of the
//! base per run was 21 MB at 1,000 peers (docs/performance.md, round 6).

use std::collections::HashMap;
use std::sync::Arc;

/// Variables by name; `None` is a variable that exists but is unset.
pub(crate) type VarMap = HashMap<String, Option<String>>;

/// A run's variables: its own over its peer's shared base.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunVars {
    base: Arc<VarMap>,
    own: VarMap,
}

impl RunVars {
    /// `own` over `base`: a name in both reads `own`'s value.
    pub(crate) fn new(base: Arc<VarMap>, own: VarMap) -> RunVars {
        RunVars { base, own }
    }

    /// A variable's value (`Some(None)`: it exists, unset), the run's own first.
    pub(crate) fn get(&self, name: &str) -> Option<&Option<String>> {
        self.own.get(name).or_else(|| self.base.get(name))
    }

    /// Sets a variable for this run alone.
    pub(crate) fn insert(&mut self, name: String, value: Option<String>) {
        self.own.insert(name, value);
    }

    /// No variable at all, shared or own.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.own.is_empty() && self.base.is_empty()
    }
}

impl From<VarMap> for RunVars {
    fn from(own: VarMap) -> RunVars {
        RunVars::new(Arc::default(), own)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, Option<&str>)]) -> VarMap {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
            .collect()
    }

    #[test]
    fn a_run_reads_its_own_value_over_the_shared_one_and_sets_only_its_own() {
        let base = Arc::new(map(&[("prompt", Some("hi")), ("skill", None)]));
        let mut one = RunVars::new(base.clone(), map(&[("skill", Some("echo"))]));
        let other = RunVars::new(base.clone(), VarMap::new());
        assert_eq!(one.get("prompt"), Some(&Some("hi".to_string())));
        assert_eq!(one.get("skill"), Some(&Some("echo".to_string())));
        assert_eq!(other.get("skill"), Some(&None));
        assert_eq!(other.get("absent"), None);
        one.insert("prompt".into(), Some("found".into()));
        assert_eq!(one.get("prompt"), Some(&Some("found".to_string())));
        assert_eq!(other.get("prompt"), Some(&Some("hi".to_string())));
        assert_eq!(base.get("prompt"), Some(&Some("hi".to_string())));
        assert!(!other.is_empty());
        assert!(RunVars::default().is_empty());
    }
}
