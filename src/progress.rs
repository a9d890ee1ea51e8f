//! Live progress on stderr while a check runs: an indicatif bar for a person
//! at a terminal, or one plain line per finished run for a CI log (like
//! nextest or pytest), so a log shows each result as it happens instead of
//! everything at the end. The report itself is printed afterwards either way.
//! Peers run concurrently: one overall bar, and a line per peer as it finishes.

use a2a_conform_engine::runner::Progress;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::{PeerReport, ScenarioReport, ScenarioVerdict};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// How progress is shown (`--progress`, resolved from `auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgressMode {
    Bar,
    Lines,
    None,
}

/// The width of the verdict column: the longest verdict word, INCONCLUSIVE.
const VERDICT_WIDTH: usize = 12;

/// One finished run as a log line: `PASS          cancel-then-stream  1.02s  peer`.
/// The verdict is upper case in a fixed-width column so lines align; the
/// peer is named only when the check covers several.
pub fn line(run: &ScenarioReport, peer: Option<&str>) -> String {
    let verdict = match run.verdict {
        ScenarioVerdict::Pass => "PASS",
        ScenarioVerdict::Fail if run.baselined => "FAIL-KNOWN",
        ScenarioVerdict::Fail => "FAIL",
        ScenarioVerdict::Flaky => "FLAKY",
        ScenarioVerdict::Inconclusive => "INCONCLUSIVE",
        ScenarioVerdict::Skipped => "SKIPPED",
        ScenarioVerdict::Error => "ERROR",
    };
    let seconds = run.duration_ms as f64 / 1000.0;
    // The run id and the card's name are the peer's text.
    let mut text = format!(
        "{verdict:<VERDICT_WIDTH$}  {}  {seconds:.2}s",
        terminal(&run.id)
    );
    if let Some(peer) = peer {
        text.push_str("  ");
        text.push_str(&terminal(peer));
    }
    text
}

/// A finished peer as one line: `PEER  Echo agent  12 runs: 10 pass, 1 fail, 1 skipped`,
/// or its card error. Printed when a check covers several peers.
pub fn peer_line(peer: &PeerReport) -> String {
    let shown = peer.name.as_deref().unwrap_or(&peer.card_url);
    if let Some(error) = &peer.card_error {
        return format!("{:<VERDICT_WIDTH$}  {shown}  {error}", "PEER-ERROR");
    }
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for run in &peer.scenarios {
        let word = run.verdict.as_str();
        match counts.iter_mut().find(|(w, _)| *w == word) {
            Some((_, n)) => *n += 1,
            None => counts.push((word, 1)),
        }
    }
    let tally: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    format!(
        "{:<VERDICT_WIDTH$}  {shown}  {} runs: {}",
        "PEER",
        peer.scenarios.len(),
        tally.join(", ")
    )
}

/// Progress on stderr. With several peers checked at once there is one
/// overall bar (its length grows as each peer's plan is known) and a line
/// per peer as it finishes; in lines mode each run's line names its peer.
pub struct TerminalProgress {
    mode: ProgressMode,
    bar: Mutex<Option<ProgressBar>>,
    /// Card URL to the name shown on lines (the card's name once read).
    names: Mutex<HashMap<String, String>>,
    several_peers: AtomicBool,
}

impl TerminalProgress {
    pub fn new(mode: ProgressMode) -> TerminalProgress {
        TerminalProgress {
            mode,
            bar: Mutex::new(None),
            names: Mutex::new(HashMap::new()),
            several_peers: AtomicBool::new(false),
        }
    }

    fn several(&self) -> bool {
        self.several_peers.load(Ordering::Relaxed)
    }

    /// One write per line, flushed, so a CI log shows it at once; above the bar if any.
    fn print_line(&self, text: &str) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.println(text);
                return;
            }
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{text}");
        let _ = stderr.flush();
    }
}

impl Progress for TerminalProgress {
    fn check_started(&self, peers: usize) {
        self.several_peers.store(peers > 1, Ordering::Relaxed);
        if self.mode != ProgressMode::Bar {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        if peers > 1 {
            bar.set_prefix(format!("{peers} peers"));
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn peer_started(&self, card_url: &str, name: Option<&str>, runs: usize) {
        if let Ok(mut names) = self.names.lock() {
            names.insert(card_url.to_string(), name.unwrap_or(card_url).to_string());
        }
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                if !self.several() {
                    bar.set_prefix(card_url.to_string());
                }
                bar.inc_length(runs as u64);
            }
        }
    }

    fn run_finished(&self, card_url: &str, run: &ScenarioReport) {
        match self.mode {
            ProgressMode::None => {}
            ProgressMode::Lines => {
                let peer = self
                    .several()
                    .then(|| {
                        self.names
                            .lock()
                            .ok()
                            .and_then(|names| names.get(card_url).cloned())
                    })
                    .flatten();
                self.print_line(&line(run, peer.as_deref()));
            }
            ProgressMode::Bar => {
                if let Ok(slot) = self.bar.lock() {
                    if let Some(bar) = slot.as_ref() {
                        bar.set_message(format!("{} {}", terminal(&run.id), run.verdict.as_str()));
                        bar.inc(1);
                    }
                }
            }
        }
    }

    fn peer_finished(&self, peer: &PeerReport) {
        if self.mode != ProgressMode::None && self.several() {
            self.print_line(&peer_line(peer));
        }
    }

    fn check_finished(&self) {
        if let Ok(mut slot) = self.bar.lock() {
            if let Some(bar) = slot.take() {
                bar.finish_and_clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: &str, verdict: ScenarioVerdict, ms: u64) -> ScenarioReport {
        ScenarioReport {
            id: id.into(),
            scenario: id.into(),
            title: String::new(),
            verdict,
            verifies: vec![],
            duration_ms: ms,
            message: String::new(),
            error_kind: None,
            attempts: 1,
            failed_attempts: vec![],
            baselined: false,
            baseline_reason: None,
            evidence: vec![],
        }
    }

    #[test]
    fn lines_align_the_upper_case_verdict_and_name_the_peer_only_when_asked() {
        assert_eq!(
            line(
                &run("cancel-then-stream", ScenarioVerdict::Pass, 1020),
                None
            ),
            "PASS          cancel-then-stream  1.02s"
        );
        assert_eq!(
            line(
                &run("streaming-probe", ScenarioVerdict::Inconclusive, 5),
                Some("Echo agent")
            ),
            "INCONCLUSIVE  streaming-probe  0.01s  Echo agent"
        );
        let fail = line(&run("x", ScenarioVerdict::Fail, 0), None);
        assert!(fail.starts_with("FAIL          x"), "{fail}");
    }

    #[test]
    fn a_finished_peer_reads_as_one_tally_line_or_its_card_error() {
        let mut peer = PeerReport::new("http://p/.well-known/agent-card.json");
        peer.name = Some("Echo".into());
        peer.scenarios = vec![
            run("a", ScenarioVerdict::Pass, 1),
            run("b", ScenarioVerdict::Fail, 1),
            run("c", ScenarioVerdict::Pass, 1),
        ];
        assert_eq!(
            peer_line(&peer),
            "PEER          Echo  3 runs: 2 pass, 1 fail"
        );
        let mut gone = PeerReport::new("http://gone/.well-known/agent-card.json");
        gone.card_error = Some("connection refused".into());
        assert_eq!(
            peer_line(&gone),
            "PEER-ERROR    http://gone/.well-known/agent-card.json  connection refused"
        );
    }
}
