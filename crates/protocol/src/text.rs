//! Small text helpers for evidence and messages: clipping long bodies,
//! flattening a message to one line and writing durations for people.

use std::time::Duration;

/// Cuts text to at most `max` characters, saying how much was left out.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… [{} more bytes]", text.len() - kept.len())
}

/// Flattens text to one line of at most `max` characters (an ellipsis marks a cut).
pub fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

/// Formats a duration for people: `120 ms`, `1.50 s`.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_marks_long_text() {
        assert_eq!(clip("abc", 5), "abc");
        assert!(clip(&"x".repeat(10), 4).starts_with("xxxx… [6 more bytes]"));
    }

    #[test]
    fn durations_read_in_ms_below_a_second() {
        assert_eq!(human_duration(Duration::from_millis(120)), "120 ms");
        assert_eq!(human_duration(Duration::from_millis(420)), "420 ms");
        assert_eq!(human_duration(Duration::from_millis(15_000)), "15.00 s");
    }
}
