//! `/metrics`: the store's current verdict of each (peer, declaration) as
//! Prometheus gauges (1 for the current verdict), and each peer's last
//! record time. Check durations and alert failures are not in the store
//! yet, so those gauges are left out (docs/dashboard.md).

use crate::escape::label;
use a2a_conform_history::{Error, Store};
use a2a_conform_report::DeclarationVerdict;
use std::collections::BTreeMap;
use std::fmt::Write;

/// The Prometheus text exposition of the store's current verdicts.
pub fn metrics(store: &mut Store) -> Result<String, Error> {
    let mut out = String::from(
        "# HELP a2a_conform_verdict 1 for each declaration's current verdict.\n\
         # TYPE a2a_conform_verdict gauge\n",
    );
    // Two queries whatever the fleet's size: every current verdict, then
    // every peer's latest record.
    let mut diverged: BTreeMap<String, usize> = BTreeMap::new();
    for interval in store.current_verdicts()? {
        // Writing into a String cannot fail.
        let _ = writeln!(
            out,
            "a2a_conform_verdict{{peer=\"{}\",declaration=\"{}\",verdict=\"{}\"}} 1",
            label(&interval.peer),
            label(&interval.declaration),
            interval.verdict.as_str()
        );
        let count = diverged.entry(interval.peer).or_default();
        if interval.verdict == DeclarationVerdict::Diverged {
            *count += 1;
        }
    }
    let total = store.peer_count()?;
    let last_seen: Vec<(String, i64, usize)> = store
        .latest_records(0, total)?
        .into_iter()
        .map(|p| {
            let count = diverged.get(&p.peer).copied().unwrap_or(0);
            (p.peer, p.record, count)
        })
        .collect();
    out.push_str(
        "# HELP a2a_conform_diverged Declarations of the peer diverged in its latest record.\n\
         # TYPE a2a_conform_diverged gauge\n",
    );
    for (peer, _, diverged) in &last_seen {
        let _ = writeln!(
            out,
            "a2a_conform_diverged{{peer=\"{}\"}} {diverged}",
            label(peer)
        );
    }
    out.push_str(
        "# HELP a2a_conform_last_record The id of the peer's latest record.\n\
         # TYPE a2a_conform_last_record gauge\n",
    );
    for (peer, record, _) in &last_seen {
        let _ = writeln!(
            out,
            "a2a_conform_last_record{{peer=\"{}\"}} {record}",
            label(peer)
        );
    }
    Ok(out)
}
