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
    /// Declared, but no run could decide them (a malfunction, a cap, no
    /// scenario): a badge that left them out would say more than its counts.
    pub unverified: usize,
}

impl Counts {
    /// The badge's value: every count that is not zero, or "not checked"
    /// when the report judged no declaration.
    pub fn text(&self) -> String {
        let parts: Vec<String> = [
            (self.honoured, "honoured"),
            (self.diverged, "diverged"),
            (self.unverified, "unverified"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| format!("{n} {word}"))
        .collect();
        if parts.is_empty() {
            "not checked".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// The counts over every peer of a report.
    pub fn of(report: &RunReport) -> Counts {
        let mut counts = Counts::default();
        for row in report.peers.iter().flat_map(|p| &p.declarations) {
            match row.verdict {
                DeclarationVerdict::Honoured => counts.honoured += 1,
                DeclarationVerdict::Diverged => counts.diverged += 1,
                DeclarationVerdict::Unverified => counts.unverified += 1,
                DeclarationVerdict::NotDeclared | DeclarationVerdict::OverDelivers => {}
            }
        }
        counts
    }
}

/// The badge's SVG: a label and the counts. Red when anything diverged;
/// green only when something was honoured and nothing was left unverified;
/// grey otherwise (nothing judged, or some declarations left open), so a
/// peer that could not be checked never shows green.
/// Text widths are estimated (no font metrics: a fixed 7 px per char).
pub fn badge(label: &str, counts: Counts) -> String {
    let value = counts.text();
    let colour = if counts.diverged > 0 {
        "#c0392b"
    } else if counts.honoured > 0 && counts.unverified == 0 {
        "#2e8b57"
    } else {
        "#6c757d"
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
                unverified: 0,
            },
        );
        assert!(!svg.contains("<script>"));
        assert!(svg.contains("3 honoured, 1 diverged"));
        assert!(svg.contains("#c0392b"));
    }

    #[test]
    fn only_a_fully_judged_peer_is_green() {
        let open = Counts {
            honoured: 5,
            diverged: 0,
            unverified: 2,
        };
        assert_eq!(open.text(), "5 honoured, 2 unverified");
        assert!(badge("a", open).contains("#6c757d"));
        let nothing = Counts::default();
        assert_eq!(nothing.text(), "not checked");
        assert!(badge("a", nothing).contains("#6c757d"));
        let kept = Counts {
            honoured: 5,
            ..Counts::default()
        };
        assert!(badge("a", kept).contains("#2e8b57"));
    }
}
