//! Live progress on stderr while a check runs: an indicatif bar for a person
//! at a terminal, or one plain line per finished run for a CI log (like
//! nextest or pytest), so a log shows each result as it happens instead of
//! everything at the end. The report itself is printed afterwards either way.

use crate::inert::terminal;
use crate::report::{ScenarioReport, ScenarioVerdict};
use crate::runner::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
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

pub struct TerminalProgress {
    mode: ProgressMode,
    bar: Mutex<Option<ProgressBar>>,
    /// The current peer's name, shown on lines when there are several peers.
    peer: Mutex<Option<String>>,
    several_peers: AtomicBool,
}

impl TerminalProgress {
    pub fn new(mode: ProgressMode) -> TerminalProgress {
        TerminalProgress {
            mode,
            bar: Mutex::new(None),
            peer: Mutex::new(None),
            several_peers: AtomicBool::new(false),
        }
    }
}

impl Progress for TerminalProgress {
    fn check_started(&self, peers: usize) {
        self.several_peers.store(peers > 1, Ordering::Relaxed);
    }

    fn peer_started(&self, card_url: &str, name: Option<&str>, runs: usize) {
        if let Ok(mut slot) = self.peer.lock() {
            *slot = Some(name.unwrap_or(card_url).to_string());
        }
        if self.mode != ProgressMode::Bar {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(terminal(card_url).into_owned());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn run_finished(&self, run: &ScenarioReport) {
        match self.mode {
            ProgressMode::None => {}
            ProgressMode::Lines => {
                let peer = self
                    .several_peers
                    .load(Ordering::Relaxed)
                    .then(|| self.peer.lock().ok().and_then(|p| p.clone()))
                    .flatten();
                // One write per line, flushed, so a CI log shows it at once.
                let mut stderr = std::io::stderr().lock();
                let _ = writeln!(stderr, "{}", line(run, peer.as_deref()));
                let _ = stderr.flush();
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

    fn peer_finished(&self) {
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
}
