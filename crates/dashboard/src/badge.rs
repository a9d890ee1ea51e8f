//! A report's badge: an SVG with its honoured and diverged declaration
//! counts, for a README (`a2a-conform badge`, `/badge/PEER.svg`).

use crate::escape;
use a2a_conform_report::{DeclarationVerdict, RunReport};

/// Declaration counts a badge shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Declarations judged honoured.
    pub honoured: usize,
    /// Declarations judged diverged.
    pub diverged: usize,
}

impl Counts {
    /// The counts over every peer of a report.
    pub fn of(report: &RunReport) -> Counts {
        let mut counts = Counts::default();
        for row in report.peers.iter().flat_map(|p| &p.declarations) {
            match row.verdict {
                DeclarationVerdict::Honoured => counts.honoured += 1,
                DeclarationVerdict::Diverged => counts.diverged += 1,
                _ => {}
            }
        }
        counts
    }
}

/// The badge's SVG: a label and the counts, red when anything diverged.
/// Text widths are estimated (no font metrics: a fixed 7 px per char).
pub fn badge(label: &str, counts: Counts) -> String {
    let value = format!("{} honoured, {} diverged", counts.honoured, counts.diverged);
    let colour = if counts.diverged > 0 {
        "#c0392b"
    } else {
        "#2e8b57"
    };
    let left = 10 + 7 * label.chars().count();
    let right = 10 + 7 * value.chars().count();
    let total = left + right;
    let (label, value) = (escape::xml(label), escape::xml(&value));
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{total}\" height=\"20\" role=\"img\" \
         aria-label=\"{label}: {value}\"><title>{label}: {value}</title>\
         <rect width=\"{left}\" height=\"20\" fill=\"#555\"/>\
         <rect x=\"{left}\" width=\"{right}\" height=\"20\" fill=\"{colour}\"/>\
         <g fill=\"#fff\" font-family=\"Verdana,DejaVu Sans,sans-serif\" font-size=\"11\">\
         <text x=\"5\" y=\"14\">{label}</text><text x=\"{vx}\" y=\"14\">{value}</text></g></svg>\n",
        vx = left + 5,
    )
}

#[cfg(test)]
mod tests {
    use super::{badge, Counts};

    #[test]
    fn a_hostile_label_is_text() {
        let svg = badge(
            "<script>x</script>",
            Counts {
                honoured: 3,
                diverged: 1,
            },
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("3 honoured, 1 diverged"));
        assert!(svg.contains("#c0392b"));
    }
}
