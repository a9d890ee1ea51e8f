//! `/peer/{peer}`: one peer's timeline of verdict changes and card digests,
//! then its latest stored report (or, with `?record=N`, that record's),
//! rendered as `check --html` renders it.

use crate::view::PeerView;
use a2a_conform_report::format::html::page::{page, Shell};
use a2a_conform_report::format::html::report_body;
use maud::html;

/// The peer page.
pub(crate) fn peer_page(view: &PeerView) -> String {
    let body = html! {
        p { a href="/" { "← fleet" } }
        h1 { "Peer " code { (view.peer) } }
        h2 { "Timeline of changes" }
        table.timeline {
            thead { tr { th { "from" } th { "to" } th { "records" } th { "declaration" } th { "verdict" } } }
            tbody {
                @for c in &view.changes {
                    tr {
                        td { (c.span.first_seen) } td { (c.span.last_seen) }
                        td { (c.span.first_record) "–" (c.span.last_record) }
                        td { code { (c.declaration) } }
                        td { span class={ "verdict v-" (c.span.verdict.as_str()) } {
                            (c.span.verdict.as_str()) } }
                    }
                }
            }
        }
        h2 { "Card" }
        table.cards {
            thead { tr { th { "from" } th { "to" } th { "records" } th { "digest" } } }
            tbody {
                @for c in &view.cards {
                    tr {
                        td { (c.first_seen) } td { (c.last_seen) }
                        td { (c.first_record) "–" (c.last_record) }
                        td { code { (c.digest.as_deref().unwrap_or("unreadable")) } }
                    }
                }
            }
        }
        @match (&view.latest_report, view.latest_report_record, view.asked_record) {
            (Some(report), Some(record), Some(_)) => {
                h2 { "Report of record " (record) }
                p { a href="?" { "the latest report" } }
                (report_body(report))
            }
            (Some(report), Some(record), None) => {
                h2 { "Latest report (record " (record) ")" }
                (report_body(report))
            }
            (_, _, Some(asked)) => {
                p.muted { "No stored report of this peer at record " (asked)
                    " (pruned, or the record does not hold this peer)." }
            }
            _ => { p.muted { "No stored report of this peer (pruned)." } }
        }
    };
    page(Shell::Served, &format!("a2a-conform: {}", view.peer), body)
}
