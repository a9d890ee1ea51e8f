//! `/metrics`: the store's current verdict of each (peer, declaration) as
//! Prometheus gauges (1 for the current verdict), and each peer's last
//! record time. Check durations and alert failures are not in the store
//! yet, so those gauges are left out (docs/dashboard.md).

use crate::escape::label;
use a2a_conform_history::{Error, Store};
use a2a_conform_report::DeclarationVerdict;
use std::fmt::Write;

/// The Prometheus text exposition of the store's current verdicts.
pub fn metrics(store: &mut Store) -> Result<String, Error> {
    let mut out = String::from(
        "# HELP a2a_conform_verdict 1 for each declaration's current verdict.\n\
         # TYPE a2a_conform_verdict gauge\n",
    );
    let mut last_seen = Vec::new();
    for peer in store.peers()? {
        let changes = store.changes(&peer)?;
        let Some(latest) = changes.iter().map(|i| i.last_record).max() else {
            continue;
        };
        for interval in changes.iter().filter(|i| i.last_record == latest) {
            // Writing into a String cannot fail.
            let _ = writeln!(
                out,
                "a2a_conform_verdict{{peer=\"{}\",declaration=\"{}\",verdict=\"{}\"}} 1",
                label(&peer),
                label(&interval.declaration),
                interval.verdict.as_str()
            );
        }
        let diverged = changes
            .iter()
            .filter(|i| i.last_record == latest && i.verdict == DeclarationVerdict::Diverged)
            .count();
        last_seen.push((peer, latest, diverged));
    }
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
