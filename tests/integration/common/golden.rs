//! Golden files: what the binary writes for the mock matrix, a diff and a
//! baselined run, captured once and compared byte for byte after the values
//! that legitimately vary between runs are normalized. They pin user-visible
//! output across refactors; `A2A_CONFORM_BLESS=1` rewrites them.

use regex::Regex;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Set to rewrite the golden files from this run instead of comparing.
pub const BLESS: &str = "A2A_CONFORM_BLESS";

/// The run-to-run variations, each replaced by a fixed token. Only the
/// varying value goes; the line, field or section around it stays.
fn rules() -> &'static [(Regex, &'static str)] {
    static RULES: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    RULES.get_or_init(|| {
        [
            // Ports of the mock peer and of the webhook receiver.
            (r"127\.0\.0\.1:\d+", "127.0.0.1:[PORT]"),
            // Task, context, message and push-config ids.
            (
                r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                "[UUID]",
            ),
            (r"sha256:[0-9a-f]{64}", "sha256:[DIGEST]"),
            // `context-lax` accepts the message while the task it names is
            // still submitted or already working, as the machine's load has it.
            (
                r"accepted \((?:submitted|working)\) instead of rejected",
                "accepted ([STATE]) instead of rejected",
            ),
            // The webhook receiver's secret path segment.
            (r"/webhook/[0-9a-f]{32}", "/webhook/[SECRET]"),
            (r"/webhook/[0-9a-f]{1,31}…", "/webhook/[SECRET]…"),
            // Short artifact digests: the mock's artifacts carry ids and times.
            (r"digest [0-9a-f]{16}", "digest [DIGEST]"),
            (
                r"(\+\[DURATION\]|at \+[^,)]*), [0-9a-f]{16} at",
                "$1, [DIGEST] at",
            ),
            // How many keep-alive comments fit in a window depends on the pace.
            (r"\d+ keep-alive comment", "[N] keep-alive comment"),
            (
                r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
                "[TIMESTAMP]",
            ),
            // The tool's version (report header, user agents, the mock's card).
            (
                concat!(
                    r#"(a2a-conform(?:-mock)?[/ ]|"version": ")"#,
                    env!("CARGO_PKG_VERSION"),
                    r#"\b"#
                ),
                "${1}[VERSION]",
            ),
            // A line cut short (…) after a timing: the cut point moves with
            // the timing's width, so everything from the first timing on goes.
            (r"\b\d+(?:\.\d+)? ?(?:ms|s)\b[^\n]*…", "[DURATION][cut]…"),
            // A uuid cut short by a one-line rendering.
            (r#"([="'])[0-9a-f][0-9a-f-]{0,34}…"#, "${1}[UUID]…"),
            // …and in a reason naming tasks ("task X instead of Y").
            (r"((?:task|of) )[0-9a-f][0-9a-f-]{0,34}…", "${1}[UUID]…"),
            (r"\+\s*\d+(?:\.\d+)?m?s", "+[T]s"),
            (r"\b\d+(?:\.\d+)? ?(?:ms|s)\b", "[DURATION]"),
            (r"\d+ bytes", "[N] bytes"),
            (r#"time="\d+(?:\.\d+)?""#, r#"time="[T]""#),
            (r#""(duration_ms|at_ms)": \d+"#, r#""$1": [N]"#),
            // JSON-RPC request ids: one counter per peer, shared by the
            // scenario runs in flight at once.
            (r#"((?:\\?"|&quot;)id(?:\\?"|&quot;):\s*)\d+"#, "${1}[N]"),
            // …and a line cut short (…) after such an id: the cut point
            // moves with the id's width, so the cut goes back to the last
            // JSON delimiter before it.
            (
                r#"((?:\\?"|&quot;)id(?:\\?"|&quot;):\s*\[N\][^\n]*["',:{])[^"',:{\n]*…"#,
                "${1}[cut]…",
            ),
        ]
        .into_iter()
        .map(|(pattern, replacement)| (Regex::new(pattern).expect("rule"), replacement))
        .collect()
    })
}

/// One JSON evidence entry of a scenario run, as the report indents it.
fn entry(kind: &str, summary: &str) -> String {
    format!(
        r#"\n {{12}}\{{\n {{14}}"at_ms": \[N\],\n {{14}}"kind": "{kind}",\n {{14}}"summary": "{summary}"(?:,\n {{14}}"body": "[^\n]*")?\n {{12}}\}},"#
    )
}

/// The evidence that depends on the pace of a stream, after [`rules`] ran:
/// how many keep-alives fit in a window, and whether an event the runner did
/// not wait for arrived before it stopped reading. Each is brought to one
/// form; everything else in the timeline stays.
fn pace_rules() -> &'static [(Regex, String)] {
    static RULES: OnceLock<Vec<(Regex, String)>> = OnceLock::new();
    RULES.get_or_init(|| {
        let keepalive = entry("comment", r"SSE comment `:keep-alive` \(not a protocol event\)");
        // A note entry's opening, kept by the rules that drop what precedes it.
        let note = |summary: &str| {
            format!(
                r#"(\n {{12}}\{{\n {{14}}"at_ms": \[N\],\n {{14}}"kind": "note",\n {{14}}"summary": "{summary})"#
            )
        };
        // `instant`: the closing status-update and the end of the stream may
        // arrive before the runner reads the first event as already
        // completed, and so before any `inconclusive_if` that stops the run
        // on it (streaming-probe, cancel-then-stream).
        let instant = r"step \d+ `inconclusive_if` \([^)\n]*\)";
        // `undeclared-streaming`: the working update may arrive before the
        // runner reads the stream it expected to be refused.
        let undeclared = r"step 2 `expect` \(scenarios/streaming.yaml:\d+\)";
        // `terminal-subscribe-lenient`: the peer serves the subscription to a
        // finished task with one event and closes; the close may be read
        // before or after the runner notes the divergence. Likewise a
        // stream that closes as its task stops for input, around the cancel
        // step's note that no cancel was sent (`instant-unless-input`).
        let subscribed = r"step \d+ (?:`expect` \(scenarios/protocol.yaml:\d+\)|`cancel` \(scenarios/cancel.yaml:\d+\))";
        // A whole note entry, up to its closing brace.
        let note_entry = |summary: &str| format!(r"{}[^\n]*\n {{12}}\}}", note(summary));
        // Events after the first, and the stream's end, as JSON entries and as lines.
        let later = format!(
            "(?:{}|{})+",
            entry("event", r"event #(?:[2-9]|\d\d+) [^\n]*"),
            entry("stream-end", "stream closed by the peer")
        );
        // The same entries after another one: each after a comma.
        let later_after = format!(
            "(?:,(?:{}|{}))+",
            entry("event", r"event #(?:[2-9]|\d\d+) [^\n]*").trim_end_matches(','),
            entry("stream-end", "stream closed by the peer").trim_end_matches(',')
        );
        let later_lines = r"(?:[ \t]*\+\[T\]s (?:event #(?:[2-9]|\d\d+) |stream closed by the peer)[^\n]*\n)+";
        [
            // Consecutive keep-alive comments: one stands for the run of them.
            (format!("({keepalive})(?:{keepalive})+"), "$1".to_string()),
            (format!("{later}{}", note(instant)), "$1".into()),
            (format!("{later}{}", note(undeclared)), "$1".into()),
            (format!("{later}{}", note(subscribed)), "$1".into()),
            // …and the events and close read after the note.
            (format!("({}){later_after}", note_entry(undeclared)), "$1".into()),
            (format!("({}){later_after}", note_entry(subscribed)), "$1".into()),
            (
                format!(r"(?m)^([ \t]*\+\[T\]s {undeclared}[^\n]*\n){later_lines}"),
                "$1".into(),
            ),
            (
                format!(r"(?m)^([ \t]*\+\[T\]s {subscribed}[^\n]*\n){later_lines}"),
                "$1".into(),
            ),
            (
                format!(r"(?m)^{later_lines}([ \t]*\+\[T\]s {subscribed})"),
                "$1".into(),
            ),
            (
                format!(r"(?m)^{later_lines}([ \t]*\+\[T\]s {instant})"),
                "$1".into(),
            ),
            (
                format!(r"(?m)^{later_lines}([ \t]*\+\[T\]s {undeclared})"),
                "$1".into(),
            ),
            // The counts those entries change.
            (
                r"Evidence \((last \d+ of )?\d+ entries\)".into(),
                "Evidence ([N] entries)".into(),
            ),
            (r"… \d+ earlier entries".into(), "… [N] earlier entries".into()),
            // The cancel's answer and the `canceled` event on the open stream
            // arrive within the same millisecond, in either order: show the
            // answer first. As lines (terminal, Markdown, JUnit)…
            (
                r"(?m)^(.*event #3 status-update state=canceled[^\n]*)\n(.*← HTTP 200 application/json .*)$"
                    .into(),
                "$2\n$1".into(),
            ),
            // …and as JSON evidence entries.
            (
                r#"(?s)( {12}\{\n {14}"at_ms": \[N\],\n {14}"kind": "event",\n {14}"summary": "event #3 status-update state=canceled[^"]*",.*?\n {12}\}),\n( {12}\{\n {14}"at_ms": \[N\],\n {14}"kind": "response",.*?\n {12}\})"#
                    .into(),
                "$2,\n$1".into(),
            ),
        ]
        .into_iter()
        .map(|(pattern, replacement)| (Regex::new(&pattern).expect("pace rule"), replacement))
        .collect()
    })
}

/// `text` with every varying value replaced, and each `(literal, token)`
/// (a temporary directory, say) replaced first.
pub fn normalize(text: &str, literals: &[(&str, &str)]) -> String {
    let mut text = text.to_string();
    for (literal, token) in literals {
        if !literal.is_empty() {
            text = text.replace(literal, token);
        }
    }
    for (rule, replacement) in rules() {
        text = rule.replace_all(&text, *replacement).into_owned();
    }
    for (rule, replacement) in pace_rules() {
        text = rule.replace_all(&text, replacement.as_str()).into_owned();
    }
    // Last, so the pace rules above still see which step spoke: a scenario
    // file's line numbers move whenever it is edited, and a golden file pins
    // what a user reads, not where in the suite a step sits.
    static LINES: OnceLock<Regex> = OnceLock::new();
    let lines = LINES.get_or_init(|| {
        Regex::new(r"(scenarios/[A-Za-z0-9_.-]+\.ya?ml):\d+(?::\d+)?").expect("line rule")
    });
    lines.replace_all(&text, "$1:[LINE]").into_owned()
}

/// Pretty-printed JSON (after [`normalize`], so not always valid JSON) laid
/// out with fewer lines: a block of scalars (an evidence entry), or an object
/// whose blocks are all of scalars (a declaration row with its scenario
/// list), goes on one line; any other block whose one-line form fits
/// [`FOLD_WIDTH`] does too. Every value stays, in order: a changed verdict is
/// one changed line, and the matrix's goldens stay small enough to review.
pub fn fold_json(pretty: &str) -> String {
    /// A block still open: where it starts in `out`, how deep its deepest
    /// child block is, and whether a child block stayed on several lines.
    struct Open {
        start: usize,
        child_depth: usize,
        multiline_child: bool,
    }
    let mut out: Vec<String> = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    for line in pretty.lines() {
        let trimmed = line.trim();
        let closes = trimmed.starts_with('}') || trimmed.starts_with(']');
        if let Some(block) = open.pop_if(|_| closes) {
            let depth = block.child_depth + 1;
            let inner: Vec<&str> = out[block.start + 1..].iter().map(|l| l.trim()).collect();
            let mut joined = out[block.start].clone();
            if !inner.is_empty() {
                joined.push(' ');
                joined.push_str(&inner.join(" "));
                joined.push(' ');
            }
            joined.push_str(trimmed);
            let object = out[block.start].ends_with('{');
            let folded = !block.multiline_child
                && (depth == 1 || (depth == 2 && object) || joined.chars().count() <= FOLD_WIDTH);
            if folded {
                out.truncate(block.start);
                out.push(joined);
            } else {
                out.push(line.to_string());
            }
            if let Some(parent) = open.last_mut() {
                parent.child_depth = parent.child_depth.max(depth);
                parent.multiline_child |= !folded;
            }
            continue;
        }
        out.push(line.to_string());
        if trimmed.ends_with('{') || trimmed.ends_with('[') {
            open.push(Open {
                start: out.len() - 1,
                child_depth: 0,
                multiline_child: false,
            });
        }
    }
    let mut folded = out.join("\n");
    if pretty.ends_with('\n') {
        folded.push('\n');
    }
    folded
}

/// The widest line [`fold_json`] makes of a block that holds other blocks.
const FOLD_WIDTH: usize = 160;

fn path(name: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden")).join(name)
}

/// Compares normalized `actual` with `tests/golden/NAME`, printing a unified
/// diff on mismatch; under `A2A_CONFORM_BLESS=1` writes it instead.
pub fn assert_golden(name: &str, actual: &str, literals: &[(&str, &str)]) {
    compare(name, normalize(actual, literals));
}

/// [`assert_golden`] for a JSON report, laid out by [`fold_json`].
pub fn assert_golden_json(name: &str, actual: &str, literals: &[(&str, &str)]) {
    compare(name, fold_json(&normalize(actual, literals)));
}

fn compare(name: &str, actual: String) {
    let file = path(name);
    if std::env::var_os(BLESS).is_some_and(|v| v != "0" && !v.is_empty()) {
        std::fs::create_dir_all(file.parent().expect("parent")).expect("golden dir");
        std::fs::write(&file, &actual).expect("write the golden file");
        return;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "golden file {} ({e}); run with {BLESS}=1 to create it",
            file.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual)
            .unified_diff()
            .context_radius(3)
            .header(&format!("tests/golden/{name}"), "this run")
            .to_string();
        panic!(
            "{name} differs from its golden file (rerun with {BLESS}=1 if the change is deliberate):\n{diff}"
        );
    }
}

#[test]
fn a_stream_close_read_before_or_after_the_divergence_note_normalizes_alike() {
    let note = "step 4 `expect` (scenarios/protocol.yaml:50): not refused";
    let event = r#"            {
              "at_ms": 1,
              "kind": "event",
              "summary": "event #1 task state=completed, 1 artifact"
            },"#;
    let close = r#"            {
              "at_ms": 2,
              "kind": "stream-end",
              "summary": "stream closed by the peer"
            }"#;
    let noted = format!(
        r#"            {{
              "at_ms": 3,
              "kind": "note",
              "summary": "{note}"
            }}"#
    );
    let json = |tail: &str| format!("          \"evidence\": [\n{event}\n{tail}\n          ]\n");
    let before = json(&format!("{close},\n{noted}"));
    let after = json(&format!("{noted},\n{close}"));
    assert_eq!(normalize(&before, &[]), normalize(&after, &[]));
    assert!(!normalize(&after, &[]).contains("stream-end"));

    let lines = |tail: [&str; 2]| {
        format!(
            "    +[T]s event #1 task state=completed\n    +[T]s {}\n    +[T]s {}\n    reproduce: curl\n",
            tail[0], tail[1]
        )
    };
    let before = lines(["stream closed by the peer", note]);
    let after = lines([note, "stream closed by the peer"]);
    assert_eq!(normalize(&before, &[]), normalize(&after, &[]));
    assert!(!normalize(&after, &[]).contains("stream closed"));
}

#[test]
fn an_update_read_after_the_undeclared_stream_note_normalizes_away() {
    let note = "step 2 `expect` (scenarios/streaming.yaml:45): served";
    let with = format!(
        "    +[T]s event #1 task\n    +[T]s {note}\n    +[T]s event #2 status-update state=working\n    reproduce: curl\n"
    );
    let without = format!("    +[T]s event #1 task\n    +[T]s {note}\n    reproduce: curl\n");
    assert_eq!(normalize(&with, &[]), normalize(&without, &[]));
    let entry = |n: u32, kind: &str, summary: &str| {
        format!(
            "            {{\n              \"at_ms\": {n},\n              \"kind\": \"{kind}\",\n              \"summary\": \"{summary}\"\n            }}"
        )
    };
    let json = |entries: Vec<String>| {
        format!(
            "          \"evidence\": [\n{}\n          ]\n",
            entries.join(",\n")
        )
    };
    let with = json(vec![
        entry(1, "event", "event #1 task"),
        entry(2, "note", note),
        entry(3, "event", "event #2 status-update state=working"),
    ]);
    let without = json(vec![
        entry(1, "event", "event #1 task"),
        entry(2, "note", note),
    ]);
    assert_eq!(normalize(&with, &[]), normalize(&without, &[]));
}

#[test]
fn a_scenario_line_number_normalizes_away_and_the_file_stays() {
    let said = |line: &str| format!("step 2 `expect` (scenarios/cancel.yaml:{line}): refused");
    assert_eq!(normalize(&said("15"), &[]), normalize(&said("152"), &[]));
    assert_eq!(
        normalize(&said("15"), &[]),
        "step 2 `expect` (scenarios/cancel.yaml:[LINE]): refused"
    );
    assert_ne!(
        normalize(&said("15"), &[]),
        normalize(&said("15").replace("cancel", "push"), &[])
    );
}

#[test]
fn folded_json_keeps_every_value_in_order_and_unfolds_what_nests() {
    let pretty = r#"{
  "declarations": [
    {
      "id": "lifecycle.cancel",
      "scenarios": [
        "cancel-then-stream"
      ],
      "verdict": "diverged"
    }
  ],
  "scenarios": [
    {
      "id": "cancel-then-stream",
      "evidence": [
        {
          "at_ms": [N],
          "kind": "note"
        },
        {
          "at_ms": [N],
          "kind": "request"
        }
      ]
    }
  ]
}
"#;
    let folded = fold_json(pretty);
    assert_eq!(
        folded,
        r#"{
  "declarations": [ { "id": "lifecycle.cancel", "scenarios": [ "cancel-then-stream" ], "verdict": "diverged" } ],
  "scenarios": [ { "id": "cancel-then-stream", "evidence": [ { "at_ms": [N], "kind": "note" }, { "at_ms": [N], "kind": "request" } ] } ]
}
"#
    );
    // Every token of the pretty text is still there, in the same order.
    let tokens = |text: &str| {
        text.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(tokens(&folded), tokens(pretty));
    // A block too wide for one line keeps its entries one a line.
    let wide = pretty.replace("\"note\"", &format!("\"{}\"", "n".repeat(200)));
    let folded = fold_json(&wide);
    assert!(
        folded.contains("\n      \"evidence\": [\n        { \"at_ms\""),
        "{folded}"
    );
    assert_eq!(tokens(&folded), tokens(&wide));
}

#[test]
fn a_message_accepted_while_submitted_or_working_normalizes_alike() {
    let said = |state: &str| format!("was accepted ({state}) instead of rejected");
    assert_eq!(
        normalize(&said("submitted"), &[]),
        normalize(&said("working"), &[])
    );
    assert_ne!(
        normalize(&said("completed"), &[]),
        normalize(&said("working"), &[])
    );
}
