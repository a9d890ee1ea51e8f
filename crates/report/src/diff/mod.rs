//! `a2a-conform diff OLD.json NEW.json`: what changed between two JSON
//! reports — card changes and verdict changes per declaration and per
//! scenario run, each labelled `regression`, `fix`, `drift` or `accepted` —
//! and whether `--fail-on` is triggered. `gate.rs` holds what makes it a
//! release gate (baselines, `--accept`), `render.rs` shows it to people (as
//! text, Markdown or JSON), `model.rs` holds the types `--json` prints.
//! Reports are read by the one report loader ([`ReportFile::load`]).

mod gate;
mod model;
mod render;

pub use gate::DiffOptions;
pub use model::*;

use crate::{
    DeclarationReport, DeclarationVerdict, PeerReport, RunReport, ScenarioReport, ScenarioVerdict,
    SCHEMA_VERSION,
};
use crate::{LoadError, Probed, ReportFile};
use std::path::Path;

/// Why `diff` could not compare (exit 2): a file that is not a report this
/// build reads (see [`LoadError`]), or two reports of different schema
/// versions.
#[derive(Debug, thiserror::Error)]
pub enum DiffInputError {
    /// One file is unreadable, too large, not JSON or not a report.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The two reports declare different schema versions.
    #[error(
        "{old} has schema_version {old_version} but {new} has schema_version {new_version}; \
         diff compares reports of the same schema version (this a2a-conform writes {SCHEMA_VERSION})"
    )]
    VersionsDiffer {
        /// The old report.
        old: String,
        /// Its version.
        old_version: u64,
        /// The new report.
        new: String,
        /// Its version.
        new_version: u64,
    },
    /// Both reports are of a version this build does not read.
    #[error(
        "{old} and {new} have schema_version {version}; \
         this a2a-conform reads schema_version {SCHEMA_VERSION}"
    )]
    UnsupportedVersion {
        /// The old report.
        old: String,
        /// The new report.
        new: String,
        /// The version both declare.
        version: u64,
    },
}

/// Where a parsed report came from, for the diff's header.
fn compared(loaded: &ReportFile) -> ComparedReport {
    ComparedReport {
        file: loaded.file.clone(),
        started_at: loaded.report.started_at.clone(),
        tool_version: loaded.report.tool.version.clone(),
    }
}

/// Loads both reports (the one loader: capped, versions compared before
/// either is parsed) and compares them.
pub fn diff_files(old: &Path, new: &Path, options: &DiffOptions) -> Result<Diff, DiffInputError> {
    let old = Probed::read(old)?;
    let new = Probed::read(new)?;
    if old.version != new.version {
        return Err(DiffInputError::VersionsDiffer {
            old: old.file,
            old_version: old.version,
            new: new.file,
            new_version: new.version,
        });
    }
    if old.version != u64::from(SCHEMA_VERSION) {
        return Err(DiffInputError::UnsupportedVersion {
            old: old.file,
            new: new.file,
            version: old.version,
        });
    }
    let (old, new) = (old.parse()?, new.parse()?);
    Ok(compare_with(
        compared(&old),
        &old.report,
        compared(&new),
        &new.report,
        options,
    ))
}

/// [`compare_with`] with no baseline and nothing accepted.
pub fn compare(
    old_source: ComparedReport,
    old: &RunReport,
    new_source: ComparedReport,
    new: &RunReport,
    fail_on: FailOn,
) -> Diff {
    compare_with(old_source, old, new_source, new, &DiffOptions::new(fail_on))
}

/// Compares two reports. Peers are matched by card URL (then by name at a
/// URL differing only in host and port); when each report has exactly one
/// peer they are matched whatever their URLs. The baseline's known
/// divergences are applied to the new report first, so they read as drift,
/// not regressions; accepted ids relabel their changes.
pub fn compare_with(
    old_source: ComparedReport,
    old: &RunReport,
    new_source: ComparedReport,
    new: &RunReport,
    options: &DiffOptions,
) -> Diff {
    let mut judged;
    let new = match &options.baseline {
        Some(baseline) => {
            judged = new.clone();
            baseline.apply(&mut judged, false);
            &judged
        }
        None => new,
    };
    let mut changes = Vec::new();
    let peers = compare_peers(old, new, &mut changes);
    let unmatched_accepts = gate::accept_changes(&mut changes, &options.accepts(), old, new);
    changes.sort_by_key(|c| gate::rank(c.label));
    let count = |l: Label| changes.iter().filter(|c| c.label == l).count();
    let summary = ChangeCounts {
        regressions: count(Label::Regression),
        fixes: count(Label::Fix),
        drift: count(Label::Drift),
        accepted: count(Label::Accepted),
    };
    let fail_on = options.fail_on;
    let failed = match fail_on {
        FailOn::Regression => summary.regressions > 0,
        FailOn::Any => changes.iter().any(|c| c.label != Label::Accepted),
        FailOn::Never => false,
    };
    Diff {
        schema_version: DIFF_SCHEMA_VERSION,
        old: old_source,
        new: new_source,
        peers,
        fail_on,
        failed,
        summary,
        changes,
        unmatched_accepts,
    }
}

/// Compares every peer of the reports, pushing the changes; returns which
/// peer was compared with which.
fn compare_peers(old: &RunReport, new: &RunReport, changes: &mut Vec<Change>) -> Vec<PeerPair> {
    let pair = |o: Option<&PeerReport>, n: Option<&PeerReport>| PeerPair {
        old: o.map(|p| p.card_url.clone()),
        new: n.map(|p| p.card_url.clone()),
    };
    if let ([o], [n]) = (old.peers.as_slice(), new.peers.as_slice()) {
        compare_peer(o, n, changes);
        return vec![pair(Some(o), Some(n))];
    }
    let mut peers = Vec::new();
    let matched: Vec<Option<&PeerReport>> =
        old.peers.iter().map(|o| counterpart(o, old, new)).collect();
    for (o, n) in old.peers.iter().zip(matched.iter().copied()) {
        peers.push(pair(Some(o), n));
        match n {
            Some(n) => compare_peer(o, n, changes),
            None => changes.push(lone_peer(o, "old")),
        }
    }
    for n in &new.peers {
        if !matched.iter().flatten().any(|m| m.card_url == n.card_url) {
            peers.push(pair(None, Some(n)));
            changes.push(lone_peer(n, "new"));
        }
    }
    peers
}

/// The new report's peer an old one is compared with: the one at its card
/// URL, or a moved one (same name, a URL differing in host and port alone)
/// when its name is unique and just one new peer fits.
fn counterpart<'a>(o: &PeerReport, old: &RunReport, new: &'a RunReport) -> Option<&'a PeerReport> {
    if let Some(n) = new.peers.iter().find(|n| n.card_url == o.card_url) {
        return Some(n);
    }
    // A moved peer is recognised by a name no other peer has.
    let unique = o.name.is_some() && old.peers.iter().filter(|x| x.name == o.name).count() == 1;
    let moved: Vec<&PeerReport> = new
        .peers
        .iter()
        .filter(|n| {
            n.name == o.name
                && gate::same_place(&n.card_url, &o.card_url)
                && !old.peers.iter().any(|x| x.card_url == n.card_url)
        })
        .collect();
    match moved.as_slice() {
        [only] if unique => Some(only),
        _ => None,
    }
}

/// A peer only one report (`side`: `old` or `new`) checked: drift.
fn lone_peer(peer: &PeerReport, side: &str) -> Change {
    let url = Some(peer.card_url.clone());
    let (old, new) = if side == "old" {
        (url, None)
    } else {
        (None, url)
    };
    Change {
        label: Label::Drift,
        peer: peer.card_url.clone(),
        kind: Kind::Peer,
        id: peer.card_url.clone(),
        old,
        new,
        message: format!("peer checked only in the {side} report"),
    }
}

fn compare_peer(old: &PeerReport, new: &PeerReport, out: &mut Vec<Change>) {
    let peer = new.card_url.clone();
    let change =
        |label, kind, id: &str, o: Option<&str>, n: Option<&str>, message: String| Change {
            label,
            peer: peer.clone(),
            kind,
            id: id.to_string(),
            old: o.map(str::to_string),
            new: n.map(str::to_string),
            message,
        };
    match (&old.card_error, &new.card_error) {
        (None, Some(e)) => out.push(change(
            Label::Regression,
            Kind::Card,
            "card_error",
            None,
            Some(e),
            format!("the card can no longer be used: {e}"),
        )),
        (Some(e), None) => out.push(change(
            Label::Fix,
            Kind::Card,
            "card_error",
            Some(e),
            None,
            "the card can be used again".into(),
        )),
        (Some(a), Some(b)) if a != b => out.push(change(
            Label::Drift,
            Kind::Card,
            "card_error",
            Some(a),
            Some(b),
            "the card is still unusable, for another reason".into(),
        )),
        _ => {}
    }
    let fields = [
        ("name", &old.name, &new.name, "the card's name changed"),
        (
            "protocol_version",
            &old.protocol_version,
            &new.protocol_version,
            "the protocol version spoken changed",
        ),
        (
            "binding",
            &old.binding,
            &new.binding,
            "the binding used changed",
        ),
        (
            "endpoint",
            &old.endpoint,
            &new.endpoint,
            "the endpoint changed",
        ),
    ];
    for (field, o, n, message) in fields {
        let moved_only =
            field == "endpoint" && matches!((o, n), (Some(o), Some(n)) if gate::same_place(o, n));
        if o != n && o.is_some() && n.is_some() && !moved_only {
            out.push(change(
                Label::Drift,
                Kind::Card,
                field,
                o.as_deref(),
                n.as_deref(),
                message.to_string(),
            ));
        }
    }
    if let (Some(o), Some(n)) = (&old.card_digest, &new.card_digest) {
        if o != n {
            if let Some(message) = digest_change(old, new) {
                out.push(change(
                    Label::Drift,
                    Kind::Card,
                    "card_digest",
                    Some(o),
                    Some(n),
                    message,
                ));
            }
        }
    }
    // A card that could not be read this time checked no row: its rows are
    // not dropped from the card, only unread, which `card_error` says once.
    if new.card_error.is_some() {
        return;
    }
    compare_rows(&peer, &old.declarations, &new.declarations, out);
    compare_rows(&peer, &old.scenarios, &new.scenarios, out);
}

/// What a changed card digest means, naming the declarations that changed;
/// `None` when nothing declared changed and the peer only moved (its URLs,
/// in the card too, differ in host or port alone).
fn digest_change(old: &PeerReport, new: &PeerReport) -> Option<String> {
    let declared = |p: &PeerReport| -> Vec<String> {
        p.declarations
            .iter()
            .filter(|d| d.declared)
            .map(|d| d.id.clone())
            .collect()
    };
    let (before, after) = (declared(old), declared(new));
    let added: Vec<&str> = after
        .iter()
        .filter(|d| !before.contains(d))
        .map(String::as_str)
        .collect();
    let removed: Vec<&str> = before
        .iter()
        .filter(|d| !after.contains(d))
        .map(String::as_str)
        .collect();
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("now declares {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("no longer declares {}", removed.join(", ")));
    }
    if !parts.is_empty() {
        return Some(format!(
            "the card's content changed: it {}",
            parts.join("; ")
        ));
    }
    let moved = old.card_url != new.card_url || old.endpoint != new.endpoint;
    (!moved).then(|| {
        "the card's content changed, but no declaration did (descriptions, names or URLs)"
            .to_string()
    })
}

/// A row both reports key by id: a declaration or a scenario run.
trait Row {
    const KIND: Kind;
    fn id(&self) -> &str;
    fn verdict(&self) -> &'static str;
    /// The row's change between the reports; `None` when nothing changed.
    fn change(old: Option<&Self>, new: Option<&Self>) -> Option<(Label, String)>;
}

impl Row for DeclarationReport {
    const KIND: Kind = Kind::Declaration;
    fn id(&self) -> &str {
        &self.id
    }
    fn verdict(&self) -> &'static str {
        self.verdict.as_str()
    }
    fn change(old: Option<&Self>, new: Option<&Self>) -> Option<(Label, String)> {
        declaration_change(old, new)
    }
}

impl Row for ScenarioReport {
    const KIND: Kind = Kind::Scenario;
    fn id(&self) -> &str {
        &self.id
    }
    fn verdict(&self) -> &'static str {
        self.verdict.as_str()
    }
    fn change(old: Option<&Self>, new: Option<&Self>) -> Option<(Label, String)> {
        scenario_change(old, new)
    }
}

/// Every row of the new report (against its old self, if any), then every
/// row only the old report has.
fn compare_rows<R: Row>(peer: &str, old: &[R], new: &[R], out: &mut Vec<Change>) {
    let pairs = new
        .iter()
        .map(|n| (old.iter().find(|o| o.id() == n.id()), Some(n)))
        .chain(
            old.iter()
                .filter(|o| !new.iter().any(|n| n.id() == o.id()))
                .map(|o| (Some(o), None)),
        );
    for (o, n) in pairs {
        if let Some((label, message)) = R::change(o, n) {
            let Some(id) = n.or(o).map(Row::id) else {
                continue;
            };
            out.push(Change {
                label,
                peer: peer.to_string(),
                kind: R::KIND,
                id: id.to_string(),
                old: o.map(|r| r.verdict().to_string()),
                new: n.map(|r| r.verdict().to_string()),
                message,
            });
        }
    }
}

/// Labels a declaration row's change; `None` when nothing changed.
///
/// regression: anything → diverged, or an honoured declaration dropped from
/// the card (removed, or no longer declared); fix: diverged → honoured;
/// drift: every other change.
pub(crate) fn declaration_change(
    old: Option<&DeclarationReport>,
    new: Option<&DeclarationReport>,
) -> Option<(Label, String)> {
    use DeclarationVerdict::{Diverged, Honoured};
    let known = |d: &DeclarationReport| {
        if d.baselined {
            " (baselined)"
        } else {
            ""
        }
    };
    match (old, new) {
        (None, None) => None,
        (None, Some(n)) => Some(if n.verdict == Diverged && !n.baselined {
            (
                Label::Regression,
                format!("new in the card, and diverged{}: {}", known(n), n.reason),
            )
        } else if n.declared {
            (
                Label::Drift,
                format!("new in the card ({}): {}", n.verdict.as_str(), n.reason),
            )
        } else {
            (
                Label::Drift,
                format!("new in the report, not declared: {}", n.reason),
            )
        }),
        (Some(o), None) => Some(if o.verdict == Honoured {
            (
                Label::Regression,
                "dropped from the card; it was honoured".to_string(),
            )
        } else {
            (
                Label::Drift,
                format!("no longer in the report (was {})", o.verdict.as_str()),
            )
        }),
        (Some(o), Some(n)) => {
            if o.verdict == n.verdict && o.declared == n.declared {
                return None;
            }
            let dropped = o.verdict == Honoured && o.declared && !n.declared;
            // A divergence the baseline knows is drift, as `check` reads it.
            let label = if (n.verdict == Diverged && !n.baselined) || dropped {
                Label::Regression
            } else if o.verdict == Diverged && n.verdict == Honoured {
                Label::Fix
            } else {
                Label::Drift
            };
            let declared = match (o.declared, n.declared) {
                (true, false) => "no longer declared by the card; ",
                (false, true) => "now declared by the card; ",
                _ => "",
            };
            Some((
                label,
                format!(
                    "{declared}{} → {}{}: {}",
                    o.verdict.as_str(),
                    n.verdict.as_str(),
                    known(n),
                    n.reason
                ),
            ))
        }
    }
}

/// Labels a scenario run's change; `None` when its verdict is the same.
///
/// regression: anything → fail; fix: fail → pass or flaky; drift: every
/// other change.
pub(crate) fn scenario_change(
    old: Option<&ScenarioReport>,
    new: Option<&ScenarioReport>,
) -> Option<(Label, String)> {
    use ScenarioVerdict::{Fail, Flaky, Pass};
    match (old, new) {
        (None, None) => None,
        (None, Some(n)) => Some((
            if n.verdict == Fail && !n.baselined {
                Label::Regression
            } else {
                Label::Drift
            },
            format!("new run ({}): {}", n.verdict.as_str(), n.message),
        )),
        (Some(o), None) => Some((
            Label::Drift,
            format!("no longer run (was {})", o.verdict.as_str()),
        )),
        (Some(o), Some(n)) if o.verdict == n.verdict => None,
        (Some(o), Some(n)) => {
            let label = match (o.verdict, n.verdict) {
                (_, Fail) if n.baselined => Label::Drift,
                (_, Fail) => Label::Regression,
                (Fail, Pass | Flaky) => Label::Fix,
                _ => Label::Drift,
            };
            Some((
                label,
                format!(
                    "{} → {}{}: {}",
                    o.verdict.as_str(),
                    n.verdict.as_str(),
                    if n.baselined { " (baselined)" } else { "" },
                    n.message
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests;
