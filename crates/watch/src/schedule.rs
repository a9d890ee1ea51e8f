//! When the next cycle is due, and each peer's offset inside a cycle. The
//! offset is a stable hash of the peer's URL (not a random draw), so a
//! restart keeps each peer at the same place in the period and a fleet is
//! spread over the jitter window instead of hit at one instant.

use std::time::Duration;

/// The delay before the next cycle, given the period and how long ago the
/// last stored cycle started (`None`: no cycle stored yet, run now). A
/// cycle overdue by more than a period runs now, once (no catch-up burst).
pub fn next_due(every: Duration, since_last: Option<Duration>) -> Duration {
    match since_last {
        None => Duration::ZERO,
        Some(elapsed) => every.saturating_sub(elapsed),
    }
}

/// A peer's offset from the cycle's start, in `[0, window)`: FNV-1a of
/// its URL, scaled to the window. The window is a fraction of the period
/// chosen by the caller (`watch` uses a tenth, capped at a minute).
pub fn jitter(peer: &str, window: Duration) -> Duration {
    let millis = window.as_millis() as u64;
    if millis == 0 {
        return Duration::ZERO;
    }
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in peer.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    Duration::from_millis(hash % millis)
}

/// The jitter window `watch` uses for a period: a tenth of it, at most a
/// minute.
pub fn window(every: Duration) -> Duration {
    (every / 10).min(Duration::from_secs(60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_cycle_is_due_from_the_last_stored_one() {
        let hour = Duration::from_secs(3600);
        assert_eq!(next_due(hour, None), Duration::ZERO);
        assert_eq!(
            next_due(hour, Some(Duration::from_secs(600))),
            Duration::from_secs(3000)
        );
        assert_eq!(next_due(hour, Some(hour * 3)), Duration::ZERO);
    }

    #[test]
    fn jitter_is_stable_bounded_and_spread() {
        let span = Duration::from_secs(60);
        let a = jitter("http://127.0.0.1:1/a", span);
        assert_eq!(a, jitter("http://127.0.0.1:1/a", span));
        assert!(a < span);
        let offsets: std::collections::BTreeSet<_> = (0..50)
            .map(|i| jitter(&format!("http://peer{i}.example/"), span))
            .collect();
        assert!(offsets.len() > 40, "{offsets:?}");
        assert_eq!(jitter("x", Duration::ZERO), Duration::ZERO);
        assert_eq!(window(Duration::from_secs(3600)), Duration::from_secs(60));
        assert_eq!(window(Duration::from_secs(100)), Duration::from_secs(10));
    }
}
