//! A run's evidence on a time axis, as inline SVG: requests, answers,
//! stream events and stream ends as marks at their offset from the run's
//! start, so a stream that stalled, burst or ended early shows at a glance.
//! Each mark's tooltip is its summary (escaped text in a `<title>`).

use crate::evidence::{Evidence, EvidenceKind};
use a2a_conform_protocol::text::one_line;
use maud::{html, Markup};

const WIDTH: u64 = 720;
const LEFT: u64 = 24;
const RIGHT: u64 = 24;
const HEIGHT: u64 = 58;
const AXIS_Y: u64 = 34;

/// The mark's colour and its height above the axis, by kind.
fn mark(kind: EvidenceKind) -> Option<(&'static str, u64)> {
    match kind {
        EvidenceKind::Request => Some(("#1f6feb", 22)),
        EvidenceKind::Response => Some(("#8250df", 18)),
        EvidenceKind::Event => Some(("#1a7f37", 14)),
        EvidenceKind::StreamEnd => Some(("#cf222e", 24)),
        EvidenceKind::Note => Some(("#9a6700", 8)),
        EvidenceKind::Comment | EvidenceKind::Elided => None,
    }
}

/// The axis of `evidence`, or nothing when the run saw no stream event
/// (a plain request and answer read better as the steps table alone).
pub(crate) fn time_axis(evidence: &[Evidence]) -> Option<Markup> {
    let streamed = evidence
        .iter()
        .any(|e| matches!(e.kind, EvidenceKind::Event | EvidenceKind::StreamEnd));
    if !streamed {
        return None;
    }
    let end = evidence.iter().map(|e| e.at_ms).max().unwrap_or(0).max(1);
    let span = WIDTH - LEFT - RIGHT;
    let x = |at: u64| LEFT + at.min(end) * span / end;
    let ticks: Vec<u64> = (0..=4).map(|n| end * n / 4).collect();
    let label = format!(
        "{} evidence entries over {:.2} s",
        evidence.len(),
        end as f64 / 1000.0
    );
    Some(html! {
        svg.axis xmlns="http://www.w3.org/2000/svg" width=(WIDTH) height=(HEIGHT)
            viewBox={ "0 0 " (WIDTH) " " (HEIGHT) } role="img" aria-label=(label) {
            title { (label) }
            line x1=(LEFT) y1=(AXIS_Y) x2=(WIDTH - RIGHT) y2=(AXIS_Y) stroke="#57606a" stroke-width="1" {}
            @for at in &ticks {
                line x1=(x(*at)) y1=(AXIS_Y) x2=(x(*at)) y2=(AXIS_Y + 4) stroke="#57606a" {}
                text x=(x(*at)) y=(AXIS_Y + 16) font-size="10" text-anchor="middle" fill="#57606a" {
                    (format!("{:.2}s", *at as f64 / 1000.0))
                }
            }
            @for entry in evidence {
                @if let Some((colour, height)) = mark(entry.kind) {
                    line.mark x1=(x(entry.at_ms)) y1=(AXIS_Y) x2=(x(entry.at_ms)) y2=(AXIS_Y - height)
                        stroke=(colour) stroke-width="2" {
                        title { (format!("+{:.3}s ", entry.at_ms as f64 / 1000.0)) (one_line(&entry.summary, 300)) }
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at_ms: u64, kind: EvidenceKind, summary: &str) -> Evidence {
        Evidence {
            at_ms,
            kind,
            summary: summary.into(),
            body: None,
            curl: None,
        }
    }

    #[test]
    fn a_stream_gets_a_mark_per_entry_and_a_plain_exchange_none() {
        let plain = [
            entry(0, EvidenceKind::Request, "POST"),
            entry(5, EvidenceKind::Response, "200"),
        ];
        assert!(time_axis(&plain).is_none());
        let stream = [
            entry(0, EvidenceKind::Request, "POST"),
            entry(100, EvidenceKind::Event, "<script>alert(1)</script>"),
            entry(400, EvidenceKind::StreamEnd, "closed"),
        ];
        let svg = time_axis(&stream).expect("an axis").into_string();
        assert_eq!(svg.matches("class=\"mark\"").count(), 3, "{svg}");
        assert!(svg.contains("&lt;script&gt;"), "{svg}");
        assert!(!svg.contains("<script"), "{svg}");
    }
}
