//! `/metrics` over a real SQLite store: the current verdicts only, and a
//! hostile peer string escaped as a label value.

use a2a_conform_dashboard::{badge, metrics, Counts};
use a2a_conform_history::Store;
use a2a_conform_report::{DeclarationReport, DeclarationVerdict, PeerReport, RunReport};

fn check(peer: &str, verdict: DeclarationVerdict) -> RunReport {
    let row = DeclarationReport::builder("lifecycle.cancel", verdict).build();
    RunReport::new(vec![PeerReport::builder(peer)
        .declarations(vec![row])
        .build()])
}

#[test]
fn current_verdicts_as_gauges() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let mut store = Store::open(&format!("sqlite:{}", dir.path().join("w.db").display()))?;
    let peer = "http://127.0.0.1:1/\"<script>\"\n";
    store.record(&check(peer, DeclarationVerdict::Honoured))?;
    let latest = check(peer, DeclarationVerdict::Diverged);
    store.record(&latest)?;
    let text = metrics(&mut store)?;
    let escaped = "http://127.0.0.1:1/\\\"<script>\\\"\\n";
    assert!(text.contains(&format!(
        "a2a_conform_verdict{{peer=\"{escaped}\",declaration=\"lifecycle.cancel\",verdict=\"diverged\"}} 1"
    )));
    assert!(!text.contains("verdict=\"honoured\""), "{text}");
    assert!(text.contains(&format!("a2a_conform_diverged{{peer=\"{escaped}\"}} 1")));
    assert_eq!(
        Counts::of(&latest),
        Counts {
            honoured: 0,
            diverged: 1,
            unverified: 0,
        }
    );
    assert!(badge("a2a", Counts::of(&latest)).contains(">1 diverged<"));
    Ok(())
}
