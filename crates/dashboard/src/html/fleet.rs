//! `/`: the fleet as a grid of peers × declarations, a page of peers at a
//! time (`?page=N`, linked from a pager), each cell its current
//! verdict over a strip of the runs of verdicts before it (oldest left,
//! widths by records spanned), each row linked to the peer's page.

use crate::view::{Cell, Fleet};
use a2a_conform_report::format::html::page::{page, Shell};
use maud::{html, Markup};

const STRIP_WIDTH: i64 = 64;

/// A verdict's colour on a history strip (the CSS classes' hues).
pub(crate) fn colour(verdict: &str) -> &'static str {
    match verdict {
        "honoured" => "#2e8b57",
        "diverged" => "#c0392b",
        "unverified" => "#d4a72c",
        "over-delivers" => "#1f6feb",
        _ => "#aab4bd",
    }
}

/// A peer's path segment: every byte but the unreserved ones
/// percent-encoded, so a card URL is one segment (and never a scheme: a
/// `javascript:` peer is a relative link to its own page).
pub(crate) fn segment(peer: &str) -> String {
    peer.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}

/// The strip of a cell's history: one rect per run of verdicts.
fn strip(cell: &Cell) -> Markup {
    let records: i64 = cell
        .history
        .iter()
        .map(|s| s.last_record - s.first_record + 1)
        .sum::<i64>()
        .max(1);
    let mut x = 0;
    let rects: Vec<(i64, i64, &str, String)> = cell
        .history
        .iter()
        .map(|s| {
            let w = ((s.last_record - s.first_record + 1) * STRIP_WIDTH / records).max(2);
            let at = x;
            x += w;
            let tip = format!(
                "{} from {} to {} (records {}–{})",
                s.verdict.as_str(),
                s.first_seen,
                s.last_seen,
                s.first_record,
                s.last_record
            );
            (at, w, colour(s.verdict.as_str()), tip)
        })
        .collect();
    html! {
        svg.strip xmlns="http://www.w3.org/2000/svg" width=(STRIP_WIDTH) height="8"
            viewBox={ "0 0 " (x.max(STRIP_WIDTH)) " 8" } preserveAspectRatio="none" {
            @for (at, w, fill, tip) in &rects {
                rect x=(at) width=(w) height="8" fill=(fill) { title { (tip) } }
            }
        }
    }
}

/// The fleet page.
pub(crate) fn fleet_page(fleet: &Fleet) -> String {
    let body = html! {
        h1 { "a2a-conform fleet" }
        p.muted {
            (fleet.total_peers) " peers · " (fleet.declarations.len()) " declarations on this page · "
            "JSON: " code { "/api/fleet" } " · metrics: " code { "/metrics" }
        }
        (pager(fleet))
        p.legend {
            @for v in ["honoured", "diverged", "unverified", "not-declared", "over-delivers"] {
                span class={ "verdict v-" (v) } { (v) } " "
            }
        }
        @if fleet.peers.is_empty() {
            p { "The store has no record yet." }
        } @else {
            div.scroll { table.grid {
                thead { tr {
                    th { "peer" }
                    @for d in &fleet.declarations { th { code { (d) } } }
                } }
                tbody {
                    @for p in &fleet.peers {
                        tr data-peer=(p.peer) {
                            th.peer {
                                a href={ "/peer/" (segment(&p.peer)) } { (p.peer) }
                                br; span.muted { "record " (p.latest_record) " · " (p.last_seen) }
                            }
                            @for d in &fleet.declarations { (cell(p.cells.get(d), d)) }
                        }
                    }
                }
            } }
        }
    };
    page(Shell::Served, "a2a-conform fleet", body)
}

/// `page N of M` with links to the pages beside it (none when one page
/// holds the fleet).
fn pager(fleet: &Fleet) -> Markup {
    if fleet.pages <= 1 {
        return html! {};
    }
    html! {
        nav.pager {
            @if fleet.page > 1 {
                a href={ "/?page=" (fleet.page - 1) } rel="prev" { "← previous" } " · "
            }
            "page " (fleet.page) " of " (fleet.pages)
            " (" (crate::view::PEERS_PER_PAGE) " peers a page, by card URL)"
            @if fleet.page < fleet.pages {
                " · " a href={ "/?page=" (fleet.page + 1) } rel="next" { "next →" }
            }
        }
    }
}

fn cell(cell: Option<&Cell>, declaration: &str) -> Markup {
    let Some(cell) = cell else {
        return html! { td.cell data-declaration=(declaration) { span.muted { "—" } } };
    };
    let verdict = cell.verdict.map(|v| v.as_str()).unwrap_or("absent");
    html! {
        td.cell data-declaration=(declaration) data-verdict=(verdict) {
            span class={ "verdict v-" (verdict) } { (verdict) }
            br;
            (strip(cell))
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_peer_is_one_segment_and_never_a_scheme() {
        assert_eq!(
            super::segment("javascript:alert(1)/x y"),
            "javascript%3Aalert%281%29%2Fx%20y"
        );
    }
}
