//! Live progress on stderr while a check runs: an indicatif bar for a person
//! at a terminal, with a spinner line under it naming the runs in flight
//! and how long each has taken (a run may last minutes with nothing else
//! moving); or one plain line per finished run for a CI log (like nextest or
//! pytest), so a log shows each result as it happens instead of everything
//! at the end — and, with `-v`, a line as each run starts. The report itself
//! is printed afterwards either way. Peers run concurrently: one overall
//! bar, and a line per peer as it finishes.

use a2a_conform_engine::runner::Progress;
use a2a_conform_report::inert::terminal;
use a2a_conform_report::{PeerReport, ScenarioReport, ScenarioVerdict};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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

/// A started run as a log line (`-v`): `START         cancel-then-stream`,
/// the peer named only when the check covers several.
pub fn start_line(run_id: &str, peer: Option<&str>) -> String {
    let mut text = format!("{:<VERDICT_WIDTH$}  {}", "START", terminal(run_id));
    if let Some(peer) = peer {
        text.push_str("  ");
        text.push_str(&terminal(peer));
    }
    text
}

/// How many runs in flight the spinner line names; the rest are counted.
const NAMED_RUNNING: usize = 3;

/// The runs in flight as the spinner line shows them, oldest first:
/// `running 5: streaming-probe 12s, cancel-then-stream 8s, push-delivers 1s, +2 more`.
pub fn running_line(running: &[(String, Duration)]) -> String {
    if running.is_empty() {
        return String::new();
    }
    let named: Vec<String> = running
        .iter()
        .take(NAMED_RUNNING)
        .map(|(id, elapsed)| format!("{} {}", terminal(id), seconds(*elapsed)))
        .collect();
    let more = running.len().saturating_sub(NAMED_RUNNING);
    let mut text = format!("running {}: {}", running.len(), named.join(", "));
    if more > 0 {
        text.push_str(&format!(", +{more} more"));
    }
    text
}

/// `12s`, or `2m05s` from a minute on.
fn seconds(elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    if secs < 60 {
        format!("{secs}s")
    } else {
        format!("{}m{:02}s", secs / 60, secs % 60)
    }
}

/// The runs in flight: peer (card URL), run id, and when each started.
#[derive(Default)]
struct Running(Vec<(String, String, Instant)>);

impl Running {
    /// The spinner line's runs, oldest first, with how long each has run.
    fn shown(&self, now: Instant) -> Vec<(String, Duration)> {
        self.0
            .iter()
            .map(|(_, id, at)| (id.clone(), now.saturating_duration_since(*at)))
            .collect()
    }
}

/// A finished peer as one line: `PEER  Echo agent  12 runs: 10 pass, 1 fail, 1 skipped`,
/// or its card error. Printed when a check covers several peers.
pub fn peer_line(peer: &PeerReport) -> String {
    let shown = peer.name.as_deref().unwrap_or(&peer.card_url);
    if let Some(error) = &peer.card_error {
        // Not reached before a signal is no error of the peer's.
        let word = if peer.interrupted {
            "INTERRUPTED"
        } else {
            "PEER-ERROR"
        };
        return format!("{word:<VERDICT_WIDTH$}  {shown}  {error}");
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
    /// `-v` in lines mode: a line as each run starts, too.
    starts: bool,
    bars: Mutex<Option<Bars>>,
    /// The runs in flight, for the spinner line.
    running: Arc<Mutex<Running>>,
    /// Card URL to the name shown on lines (the card's name once read).
    names: Mutex<HashMap<String, String>>,
    several_peers: AtomicBool,
}

/// The terminal's bars: the overall one and the spinner line under it.
struct Bars {
    multi: MultiProgress,
    overall: ProgressBar,
    spinner: ProgressBar,
}

impl TerminalProgress {
    pub fn new(mode: ProgressMode) -> TerminalProgress {
        TerminalProgress {
            mode,
            starts: false,
            bars: Mutex::new(None),
            running: Arc::default(),
            names: Mutex::new(HashMap::new()),
            several_peers: AtomicBool::new(false),
        }
    }

    /// With `verbose` (`-v`), lines mode also prints a line as each run
    /// starts; without, its lines stay one per finished run.
    pub fn with_run_starts(mut self, verbose: bool) -> TerminalProgress {
        self.starts = verbose;
        self
    }

    fn several(&self) -> bool {
        self.several_peers.load(Ordering::Relaxed)
    }

    /// The name a line gives the peer: only when the check covers several.
    fn peer_name(&self, card_url: &str) -> Option<String> {
        self.several()
            .then(|| {
                self.names
                    .lock()
                    .ok()
                    .and_then(|names| names.get(card_url).cloned())
            })
            .flatten()
    }

    /// One write per line, flushed, so a CI log shows it at once; above the bars if any.
    fn print_line(&self, text: &str) {
        if let Ok(slot) = self.bars.lock() {
            if let Some(bars) = slot.as_ref() {
                let _ = bars.multi.println(text);
                return;
            }
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{text}");
        let _ = stderr.flush();
    }

    /// The bars of bar mode: the overall bar, and a spinner line that names
    /// the runs in flight, redrawn on every tick so their times move.
    fn bars(&self, peers: usize) -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let overall = multi.add(ProgressBar::new(0));
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}")
        {
            overall.set_style(style.progress_chars("=> "));
        }
        if peers > 1 {
            overall.set_prefix(format!("{peers} peers"));
        }
        let spinner = multi.add(ProgressBar::new_spinner());
        let running = self.running.clone();
        let line = move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
            if let Ok(running) = running.lock() {
                let _ = out.write_str(&running_line(&running.shown(Instant::now())));
            }
        };
        if let Ok(style) = ProgressStyle::with_template("{running}") {
            spinner.set_style(style.with_key("running", line));
        }
        overall.enable_steady_tick(Duration::from_millis(120));
        spinner.enable_steady_tick(Duration::from_millis(500));
        Bars {
            multi,
            overall,
            spinner,
        }
    }
}

impl Progress for TerminalProgress {
    fn check_started(&self, peers: usize) {
        self.several_peers.store(peers > 1, Ordering::Relaxed);
        if self.mode != ProgressMode::Bar {
            return;
        }
        let bars = self.bars(peers);
        if let Ok(mut slot) = self.bars.lock() {
            *slot = Some(bars);
        }
    }

    fn peer_started(&self, card_url: &str, name: Option<&str>, runs: usize) {
        if let Ok(mut names) = self.names.lock() {
            names.insert(card_url.to_string(), name.unwrap_or(card_url).to_string());
        }
        if let Ok(slot) = self.bars.lock() {
            if let Some(bars) = slot.as_ref() {
                if !self.several() {
                    bars.overall.set_prefix(card_url.to_string());
                }
                bars.overall.inc_length(runs as u64);
            }
        }
    }

    fn run_started(&self, card_url: &str, run_id: &str) {
        match self.mode {
            ProgressMode::None => {}
            ProgressMode::Lines => {
                if self.starts {
                    self.print_line(&start_line(run_id, self.peer_name(card_url).as_deref()));
                }
            }
            ProgressMode::Bar => {
                if let Ok(mut running) = self.running.lock() {
                    running
                        .0
                        .push((card_url.to_string(), run_id.to_string(), Instant::now()));
                }
            }
        }
    }

    fn run_finished(&self, card_url: &str, run: &ScenarioReport) {
        match self.mode {
            ProgressMode::None => {}
            ProgressMode::Lines => {
                self.print_line(&line(run, self.peer_name(card_url).as_deref()));
            }
            ProgressMode::Bar => {
                if let Ok(mut running) = self.running.lock() {
                    running
                        .0
                        .retain(|(url, id, _)| !(url == card_url && *id == run.id));
                }
                if let Ok(slot) = self.bars.lock() {
                    if let Some(bars) = slot.as_ref() {
                        bars.overall.set_message(format!(
                            "{} {}",
                            terminal(&run.id),
                            run.verdict.as_str()
                        ));
                        bars.overall.inc(1);
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
        if let Ok(mut slot) = self.bars.lock() {
            if let Some(bars) = slot.take() {
                bars.spinner.finish_and_clear();
                bars.overall.finish_and_clear();
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
            fail_kind: None,
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
    fn a_start_line_aligns_with_the_verdict_column() {
        assert_eq!(
            start_line("cancel-then-stream", None),
            "START         cancel-then-stream"
        );
        assert_eq!(
            start_line("streaming-probe", Some("Echo agent")),
            "START         streaming-probe  Echo agent"
        );
        // The start and the end of a run line up.
        let end = line(&run("x", ScenarioVerdict::Pass, 0), None);
        assert_eq!(start_line("x", None)[14..], end[14..15]);
    }

    #[test]
    fn the_spinner_line_names_the_oldest_runs_and_counts_the_rest() {
        assert_eq!(running_line(&[]), "");
        let running: Vec<(String, Duration)> = [
            ("streaming-probe", 12),
            ("cancel-then-stream", 125),
            ("push-delivers", 1),
            ("a", 0),
            ("b", 0),
        ]
        .iter()
        .map(|(id, s)| (id.to_string(), Duration::from_secs(*s)))
        .collect();
        assert_eq!(
            running_line(&running[..1]),
            "running 1: streaming-probe 12s"
        );
        assert_eq!(
            running_line(&running),
            "running 5: streaming-probe 12s, cancel-then-stream 2m05s, push-delivers 1s, +2 more"
        );
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
        let later = PeerReport::interrupted(
            "http://later/.well-known/agent-card.json",
            "before this peer was checked",
        );
        assert_eq!(
            peer_line(&later),
            "INTERRUPTED   http://later/.well-known/agent-card.json  \
             interrupted before this peer was checked"
        );
    }
}
