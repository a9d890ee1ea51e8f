//! The probe window a card's `defaultTimeout` asks for, clamped to a bound
//! the user controls (`--max-probe-window`): a card must not make a run wait
//! for hours, and no arithmetic on the peer's number may panic.

use std::time::Duration;

/// The probe window a card's `defaultTimeout` asks for (twice it), and the
/// one used: clamped to `--max-probe-window`, so a card cannot make a run
/// wait for hours, nor overflow the arithmetic (`defaultTimeout: 1e19`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ProbeWindow {
    /// Twice the declared `defaultTimeout` (saturating).
    pub(crate) declared: Duration,
    /// `declared`, or `--max-probe-window` when that is shorter.
    pub(crate) used: Duration,
}

impl ProbeWindow {
    /// The window for a declared `defaultTimeout`, clamped to `max`.
    pub(crate) fn of(default_timeout: Duration, max: Duration) -> ProbeWindow {
        let declared = default_timeout.saturating_mul(2);
        ProbeWindow {
            declared,
            used: declared.min(max),
        }
    }

    pub(crate) fn clamped(&self) -> bool {
        self.used < self.declared
    }

    /// The card warning of a clamped window.
    pub(crate) fn warning(&self) -> Option<String> {
        self.clamped().then(|| {
            format!(
                "`defaultTimeout` asks for a probe window of {} s; waiting {} s instead (--max-probe-window)",
                thousands(self.declared.as_secs()),
                thousands(self.used.as_secs())
            )
        })
    }

    /// Why a stream still silent at the clamped window is inconclusive.
    pub(crate) fn waited(&self) -> String {
        format!(
            "waited {} s of the declared {} s (the card's defaultTimeout, clamped by --max-probe-window)",
            thousands(self.used.as_secs()),
            thousands(self.declared.as_secs())
        )
    }
}

/// `80000` → `80,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_windows_are_clamped_without_overflow() {
        let max = Duration::from_secs(120);
        let w = ProbeWindow::of(Duration::from_secs(40_000), max);
        assert!(w.clamped());
        assert_eq!(w.used, max);
        assert!(
            w.waited()
                .starts_with("waited 120 s of the declared 80,000 s"),
            "{}",
            w.waited()
        );
        assert!(w.warning().unwrap().contains("80,000 s"));
        // 1e19 s: twice it overflows a Duration; it saturates instead.
        let w = ProbeWindow::of(Duration::from_secs(10_000_000_000_000_000_000), max);
        assert_eq!(w.used, max);
        assert_eq!(w.declared, Duration::MAX);
        let w = ProbeWindow::of(Duration::from_secs(10), max);
        assert!(!w.clamped() && w.warning().is_none());
        assert_eq!(w.used, Duration::from_secs(20));
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(
            thousands(18_446_744_073_709_551_615),
            "18,446,744,073,709,551,615"
        );
    }
}
