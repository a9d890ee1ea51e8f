//! Live progress for a person at a terminal: an indicatif bar on stderr when
//! it is a TTY, nothing otherwise (CI logs get the report alone).

use crate::report::ScenarioReport;
use crate::runner::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Mutex;

pub struct TerminalProgress {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl TerminalProgress {
    /// Shows progress only when stderr is a terminal and the user did not ask for quiet.
    pub fn new(quiet: bool) -> TerminalProgress {
        TerminalProgress {
            bar: Mutex::new(None),
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }
}

impl Progress for TerminalProgress {
    fn peer_started(&self, card_url: &str, runs: usize) {
        if !self.enabled {
            return;
        }
        let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_prefix(card_url.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        if let Ok(mut slot) = self.bar.lock() {
            *slot = Some(bar);
        }
    }

    fn run_finished(&self, run: &ScenarioReport) {
        if let Ok(slot) = self.bar.lock() {
            if let Some(bar) = slot.as_ref() {
                bar.set_message(format!(
                    "{} {}",
                    crate::inert::terminal(&run.id),
                    run.verdict.as_str()
                ));
                bar.inc(1);
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
