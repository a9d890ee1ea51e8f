//! The diff's labels, peer matching and release-gate options, on reports
//! built in memory.

use super::*;
use clap::ValueEnum;

fn decl(id: &str, declared: bool, verdict: DeclarationVerdict) -> DeclarationReport {
    DeclarationReport::builder(id, verdict)
        .declared(declared)
        .reason("why")
        .build()
}

fn run(id: &str, verdict: ScenarioVerdict) -> ScenarioReport {
    ScenarioReport::builder(id, verdict)
        .message("said so")
        .build()
}

fn peer(url: &str, d: Vec<DeclarationReport>, s: Vec<ScenarioReport>) -> PeerReport {
    PeerReport::builder(url)
        .name("p")
        .card_digest("sha256:1")
        .spoken("1.0", "jsonrpc", &format!("{url}/a2a"))
        .declarations(d)
        .scenarios(s)
        .build()
}

fn report(peers: Vec<PeerReport>) -> RunReport {
    RunReport {
        started_at: "t".into(),
        ..RunReport::new(peers)
    }
}

fn src() -> ComparedReport {
    ComparedReport {
        file: "f".into(),
        started_at: "t".into(),
        tool_version: "v".into(),
    }
}

fn label(o: Option<DeclarationVerdict>, n: Option<DeclarationVerdict>) -> Option<Label> {
    let declared = |v| {
        !matches!(
            v,
            DeclarationVerdict::NotDeclared | DeclarationVerdict::OverDelivers
        )
    };
    let o = o.map(|v| decl("d", declared(v), v));
    let n = n.map(|v| decl("d", declared(v), v));
    declaration_change(o.as_ref(), n.as_ref()).map(|(l, _)| l)
}

#[test]
fn declaration_changes_are_labelled() {
    use DeclarationVerdict::*;
    assert_eq!(
        label(Some(Honoured), Some(Diverged)),
        Some(Label::Regression)
    );
    assert_eq!(
        label(Some(Unverified), Some(Diverged)),
        Some(Label::Regression)
    );
    assert_eq!(label(Some(Diverged), Some(Honoured)), Some(Label::Fix));
    assert_eq!(label(Some(Honoured), None), Some(Label::Regression));
    assert_eq!(
        label(Some(Honoured), Some(NotDeclared)),
        Some(Label::Regression)
    );
    assert_eq!(label(Some(NotDeclared), Some(Honoured)), Some(Label::Drift));
    assert_eq!(label(None, Some(Honoured)), Some(Label::Drift));
    assert_eq!(label(None, Some(Diverged)), Some(Label::Regression));
    assert_eq!(label(Some(Diverged), None), Some(Label::Drift));
    assert_eq!(label(Some(Diverged), Some(Unverified)), Some(Label::Drift));
    assert_eq!(label(Some(Honoured), Some(Honoured)), None);
}

#[test]
fn scenario_changes_are_labelled() {
    use ScenarioVerdict::*;
    let l = |o: Option<ScenarioVerdict>, n: Option<ScenarioVerdict>| {
        let o = o.map(|v| run("r", v));
        let n = n.map(|v| run("r", v));
        scenario_change(o.as_ref(), n.as_ref()).map(|(l, _)| l)
    };
    assert_eq!(l(Some(Pass), Some(Fail)), Some(Label::Regression));
    assert_eq!(l(Some(Inconclusive), Some(Fail)), Some(Label::Regression));
    assert_eq!(l(Some(Fail), Some(Pass)), Some(Label::Fix));
    assert_eq!(l(Some(Fail), Some(Flaky)), Some(Label::Fix));
    assert_eq!(l(Some(Pass), Some(Flaky)), Some(Label::Drift));
    assert_eq!(l(None, Some(Fail)), Some(Label::Regression));
    assert_eq!(l(Some(Pass), None), Some(Label::Drift));
    assert_eq!(l(Some(Pass), Some(Pass)), None);
}

#[test]
fn single_peers_match_whatever_their_url_and_several_match_by_url() {
    let d = |v| vec![decl("lifecycle.cancel", true, v)];
    let old = report(vec![peer(
        "http://a:1",
        d(DeclarationVerdict::Honoured),
        vec![],
    )]);
    let new = report(vec![peer(
        "http://a:2",
        d(DeclarationVerdict::Diverged),
        vec![],
    )]);
    let diff = compare(src(), &old, src(), &new, FailOn::Regression);
    assert!(diff.failed);
    assert_eq!(diff.summary.regressions, 1);
    // Host and port alone are not drift: the same peer on another port.
    assert!(
        !diff.changes.iter().any(|c| c.id == "endpoint"),
        "{:?}",
        diff.changes
    );
    let old = report(vec![
        peer("http://a", d(DeclarationVerdict::Honoured), vec![]),
        peer("http://b", d(DeclarationVerdict::Honoured), vec![]),
    ]);
    let new = report(vec![
        peer("http://b", d(DeclarationVerdict::Honoured), vec![]),
        peer("http://c", d(DeclarationVerdict::Honoured), vec![]),
    ]);
    let diff = compare(src(), &old, src(), &new, FailOn::Regression);
    assert!(!diff.failed);
    let kinds: Vec<_> = diff
        .changes
        .iter()
        .map(|c| (c.kind, c.id.as_str()))
        .collect();
    assert_eq!(
        kinds,
        vec![(Kind::Peer, "http://a"), (Kind::Peer, "http://c")]
    );
    assert!(compare(src(), &old, src(), &new, FailOn::Any).failed);
    assert!(!compare(src(), &old, src(), &old, FailOn::Any).failed);
}

#[test]
fn fail_on_never_never_fails() {
    let old = report(vec![peer(
        "u",
        vec![],
        vec![run("r", ScenarioVerdict::Pass)],
    )]);
    let new = report(vec![peer(
        "u",
        vec![],
        vec![run("r", ScenarioVerdict::Fail)],
    )]);
    assert!(compare(src(), &old, src(), &new, FailOn::Regression).failed);
    let diff = compare(src(), &old, src(), &new, FailOn::Never);
    assert!(!diff.failed);
    assert!(diff
        .render()
        .contains("1 regression(s), 0 fix(es), 0 drift — passes"));
}

#[test]
fn labels_kinds_and_fail_on_read_the_same_in_text_and_json() {
    let old = report(vec![peer(
        "u",
        vec![],
        vec![run("r", ScenarioVerdict::Pass)],
    )]);
    let new = report(vec![peer(
        "u",
        vec![],
        vec![run("r", ScenarioVerdict::Fail)],
    )]);
    let diff = compare(src(), &old, src(), &new, FailOn::Any);
    let json: serde_json::Value = serde_json::from_str(&diff.to_json()).unwrap();
    assert_eq!(json["fail_on"], "any");
    assert_eq!(json["changes"][0]["label"], "regression");
    assert_eq!(json["changes"][0]["kind"], "scenario");
    let names = |v: &[String]| v.join(" ");
    let labels: Vec<String> = Label::value_variants()
        .iter()
        .map(|l| l.to_string())
        .collect();
    assert_eq!(names(&labels), "regression fix drift accepted");
    let kinds: Vec<String> = Kind::value_variants()
        .iter()
        .map(|k| k.to_string())
        .collect();
    assert_eq!(names(&kinds), "peer card declaration scenario");
    assert_eq!(format!("[{:<6}]", Label::Fix), "[fix   ]");
}

fn known(mut d: DeclarationReport) -> DeclarationReport {
    d.baselined = true;
    d.baseline_reason = Some("ACME-412".into());
    d
}

#[test]
fn a_divergence_the_baseline_knows_is_drift_not_a_regression() {
    let old = report(vec![peer(
        "u",
        vec![decl("lifecycle.cancel", true, DeclarationVerdict::Honoured)],
        vec![run("cancel-then-stream", ScenarioVerdict::Pass)],
    )]);
    let mut leak = run("cancel-then-stream", ScenarioVerdict::Fail);
    leak.verifies = vec!["lifecycle.cancel".into()];
    let new = report(vec![peer(
        "u",
        vec![decl("lifecycle.cancel", true, DeclarationVerdict::Diverged)],
        vec![leak],
    )]);
    assert!(compare(src(), &old, src(), &new, FailOn::Regression).failed);
    let options = DiffOptions {
        baseline: Some(
            crate::baseline::Baseline::parse(
                "b.yaml",
                "- declaration: lifecycle.cancel\n  reason: ACME-412\n",
            )
            .unwrap(),
        ),
        ..DiffOptions::new(FailOn::Regression)
    };
    let diff = compare_with(src(), &old, src(), &new, &options);
    assert!(!diff.failed, "{:?}", diff.changes);
    assert_eq!(diff.summary.regressions, 0);
    assert_eq!(diff.summary.drift, 2);
    assert!(diff.changes.iter().all(|c| c.message.contains("baselined")));
    // A report `check --baseline` wrote carries the marks itself.
    let mut marked = new.clone();
    marked.peers[0].declarations[0] = known(marked.peers[0].declarations[0].clone());
    marked.peers[0].scenarios[0].baselined = true;
    assert!(!compare(src(), &old, src(), &marked, FailOn::Regression).failed);
}

#[test]
fn accepted_changes_are_listed_not_failed_and_regressions_come_first() {
    let mut served = run("interface-served[JSONRPC 0.3]", ScenarioVerdict::Pass);
    served.verifies = vec!["interfaces[JSONRPC 0.3]".into()];
    let old = report(vec![peer(
        "u",
        vec![
            decl(
                "interfaces[JSONRPC 0.3]",
                true,
                DeclarationVerdict::Honoured,
            ),
            decl("lifecycle.cancel", true, DeclarationVerdict::Diverged),
            decl("capabilities.streaming", true, DeclarationVerdict::Honoured),
        ],
        vec![served],
    )]);
    let mut new = report(vec![peer(
        "u",
        vec![
            decl("lifecycle.cancel", true, DeclarationVerdict::Honoured),
            decl("capabilities.streaming", true, DeclarationVerdict::Diverged),
        ],
        vec![],
    )]);
    new.peers[0].card_digest = Some("sha256:2".into());
    let plain = compare(src(), &old, src(), &new, FailOn::Regression);
    let labels: Vec<Label> = plain.changes.iter().map(|c| c.label).collect();
    let mut sorted = labels.clone();
    sorted.sort_by_key(|l| gate::rank(*l));
    assert_eq!(labels, sorted, "regressions first: {:?}", plain.changes);
    assert_eq!(labels[0], Label::Regression);
    let digest = plain
        .changes
        .iter()
        .find(|c| c.id == "card_digest")
        .expect("digest change");
    assert!(
        digest
            .message
            .contains("no longer declares interfaces[JSONRPC 0.3]"),
        "{}",
        digest.message
    );

    let options = DiffOptions {
        accept: vec![
            "interfaces[JSONRPC 0.3]".into(),
            "capabilities.streaming".into(),
            "no-such-id".into(),
        ],
        ..DiffOptions::new(FailOn::Any)
    };
    let diff = compare_with(src(), &old, src(), &new, &options);
    let accepted: Vec<&str> = diff
        .changes
        .iter()
        .filter(|c| c.label == Label::Accepted)
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(
        accepted,
        vec![
            "capabilities.streaming",
            "interfaces[JSONRPC 0.3]",
            "interface-served[JSONRPC 0.3]"
        ]
    );
    assert_eq!(diff.summary.regressions, 0);
    assert_eq!(diff.summary.accepted, 3);
    assert_eq!(diff.unmatched_accepts, vec!["no-such-id".to_string()]);
    // --fail-on any still fails on the fix and the digest drift, not on the accepted.
    assert!(diff.failed);
    let regression_only = DiffOptions {
        fail_on: FailOn::Regression,
        ..options
    };
    assert!(!compare_with(src(), &old, src(), &new, &regression_only).failed);
    let text = diff.render();
    assert!(
        text.contains("1 accepted") || text.contains("3 accepted"),
        "{text}"
    );
    let markdown = diff.render_markdown();
    assert!(
        markdown.contains("| accepted | u | declaration | interfaces\\[JSONRPC 0.3\\] |"),
        "{markdown}"
    );
}

#[test]
fn a_moved_peer_with_an_unchanged_card_has_no_card_changes() {
    let d = vec![decl("lifecycle.cancel", true, DeclarationVerdict::Honoured)];
    let old = report(vec![peer("http://127.0.0.1:4001", d.clone(), vec![])]);
    let mut new = report(vec![peer("http://127.0.0.1:5002", d, vec![])]);
    new.peers[0].card_digest = Some("sha256:2".into());
    let diff = compare(src(), &old, src(), &new, FailOn::Any);
    assert!(diff.changes.is_empty(), "{:?}", diff.changes);
    assert!(!diff.failed);
}

#[test]
fn a_card_unread_this_time_is_one_regression_not_every_row_dropped() {
    use DeclarationVerdict::Honoured;
    let rows = vec![
        decl("lifecycle.cancel", true, Honoured),
        decl("capabilities.streaming", true, Honoured),
    ];
    let runs = vec![run("cancel-then-stream", ScenarioVerdict::Pass)];
    let old = report(vec![peer("http://a", rows.clone(), runs.clone())]);
    let down = PeerReport::builder("http://a")
        .card_error("cannot fetch the card: connection refused")
        .build();
    let new = report(vec![down]);
    let diff = compare(src(), &old, src(), &new, FailOn::Regression);
    assert!(diff.failed);
    let ids: Vec<_> = diff
        .changes
        .iter()
        .map(|c| (c.label, c.id.as_str()))
        .collect();
    assert_eq!(ids, [(Label::Regression, "card_error")]);
    // Read again: the rows compare as before (the fix, and nothing new).
    let back = report(vec![peer("http://a", rows, runs)]);
    let diff = compare(src(), &new, src(), &back, FailOn::Regression);
    assert!(!diff.failed);
    assert_eq!(diff.changes[0].id, "card_error");
    assert_eq!(diff.changes[0].label, Label::Fix);
}
