//! What replay and its webhook deliveries both read off a recording: how
//! fast its offsets pass ([`Pace`]), the tool's webhook path, and how a
//! recorded body is clipped, shortened for a message, or given the fresh
//! values of this check.

use std::time::Duration;

/// The path part of the tool's webhook receiver URL: made afresh each run.
pub(crate) const WEBHOOK_PATH: &str = "/a2a-conform/webhook/";

/// How fast recorded offsets pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Pace {
    /// Each answer and event after its recorded offset divided by this
    /// factor (1.0: as recorded; 2.0: twice as fast).
    Speed(f64),
    /// Every answer and event at once.
    AsFastAsPossible,
}

/// The longest a recorded offset is waited for: a cassette's offsets are
/// untrusted, and a deadline past this would overflow a clock.
const MAX_DELAY: Duration = Duration::from_secs(24 * 3600);

impl Pace {
    pub(crate) fn delay(self, ms: u64) -> Duration {
        let delay = match self {
            Pace::AsFastAsPossible => Duration::ZERO,
            Pace::Speed(speed) if speed > 0.0 && speed.is_finite() => {
                Duration::try_from_secs_f64(ms as f64 / 1000.0 / speed).unwrap_or(MAX_DELAY)
            }
            Pace::Speed(_) => Duration::from_millis(ms),
        };
        delay.min(MAX_DELAY)
    }
}

/// `text` shortened to 80 characters for a message.
pub(crate) fn clip(text: &str) -> String {
    if text.chars().count() <= 80 {
        return text.to_string();
    }
    text.chars().take(80).collect::<String>() + "…"
}

/// A recorded body with the fresh values in place of the recorded ones
/// (only whole JSON strings: a short id cannot hit an unrelated text).
pub(crate) fn swapped(body: &str, swaps: &[(String, String)]) -> String {
    let mut body = body.to_string();
    for (old, new) in swaps {
        if old.len() >= 8 {
            body = body.replace(&format!("\"{old}\""), &format!("\"{new}\""));
        }
    }
    body
}

/// Whether a recorded body was clipped to the evidence cap.
pub(crate) fn clipped(body: &str) -> bool {
    body.ends_with(" more bytes]") && body.contains("… [")
}
