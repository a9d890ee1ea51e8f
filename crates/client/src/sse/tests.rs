//! Tests of the SSE parser against recorded streams, every split, and random input.
use super::*;
use serde_json::Value;

const FIXTURES: [&str; 6] = [
    "v1_jsonrpc_lf.sse",
    "v03_jsonrpc_crlf.sse",
    "keepalive_comments.sse",
    "multiline_data.sse",
    "truncated.sse",
    "mixed_endings.sse",
];
const CAP: usize = 64 * 1024;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/../../fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Everything a parse produced: items, the `finish` report, `bytes_seen`.
#[derive(Debug, PartialEq)]
struct Run {
    items: Vec<SseItem>,
    rest: Option<String>,
    bytes: u64,
}

fn run<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Run {
    let mut p = SseParser::new(CAP);
    let mut items = Vec::new();
    for chunk in chunks {
        items.extend(p.feed(chunk).expect("under the cap"));
    }
    let bytes = p.bytes_seen();
    Run {
        items,
        rest: p.finish(),
        bytes,
    }
}

fn whole(bytes: &[u8]) -> Run {
    run([bytes])
}

fn frames(items: &[SseItem]) -> Vec<&SseFrame> {
    items
        .iter()
        .filter_map(|i| match i {
            SseItem::Frame(f) => Some(f),
            SseItem::Comment(_) => None,
        })
        .collect()
}

fn json(frame: &SseFrame) -> Value {
    serde_json::from_str(&frame.data).unwrap_or_else(|e| panic!("{e}: {:?}", frame.data))
}

fn text(v: &Value, pointer: &str) -> String {
    let found = v.pointer(pointer).and_then(Value::as_str);
    found
        .unwrap_or_else(|| panic!("no string at {pointer} in {v}"))
        .to_owned()
}

/// "task:STATE" / "status:STATE" / "artifact:TEXT" for a v1.0 stream result.
fn v1_summary(frame: &SseFrame) -> String {
    let v = json(frame);
    assert_eq!(
        (&v["jsonrpc"], &v["id"]),
        (&Value::from("2.0"), &Value::from(1))
    );
    let r = &v["result"];
    if r.get("task").is_some() {
        format!("task:{}", text(r, "/task/status/state"))
    } else if r.get("statusUpdate").is_some() {
        format!("status:{}", text(r, "/statusUpdate/status/state"))
    } else {
        format!(
            "artifact:{}",
            text(r, "/artifactUpdate/artifact/parts/0/text")
        )
    }
}

fn frame(event: Option<&str>, data: &str, id: Option<&str>) -> SseItem {
    SseItem::Frame(SseFrame {
        event: event.map(str::to_owned),
        data: data.to_owned(),
        id: id.map(str::to_owned),
        retry: None,
    })
}

fn data(data: &str) -> SseItem {
    frame(None, data, None)
}

fn comment(text: &str) -> SseItem {
    SseItem::Comment(text.to_owned())
}

fn items(bytes: &[u8]) -> Vec<SseItem> {
    whole(bytes).items
}

#[test]
fn v1_jsonrpc_lf() {
    let bytes = fixture("v1_jsonrpc_lf.sse");
    let run = whole(&bytes);
    assert_eq!(run.items.len(), 5);
    let frames = frames(&run.items);
    let summary: Vec<_> = frames.iter().map(|f| v1_summary(f)).collect();
    let expected = [
        "task:TASK_STATE_SUBMITTED",
        "status:TASK_STATE_WORKING",
        "artifact:chunk",
        "artifact: → café",
        "status:TASK_STATE_COMPLETED",
    ];
    assert_eq!(summary, expected);
    assert!(frames
        .iter()
        .all(|f| f.event.is_none() && f.id.is_none() && f.retry.is_none()));
    let first = json(frames[0]);
    assert_eq!(
        text(&first, "/result/task/history/0/parts/0/text"),
        "résumé → please"
    );
    let chunk = json(frames[2]);
    assert_eq!(chunk["result"]["artifactUpdate"]["append"], false);
    assert_eq!(chunk["result"]["artifactUpdate"]["lastChunk"], false);
    assert_eq!(
        json(frames[3])["result"]["artifactUpdate"]["lastChunk"],
        true
    );
    assert_eq!((run.rest, run.bytes), (None, bytes.len() as u64));
}

#[test]
fn v03_jsonrpc_crlf() {
    let run = whole(&fixture("v03_jsonrpc_crlf.sse"));
    let frames = frames(&run.items);
    assert_eq!((run.items.len(), frames.len()), (4, 4));
    let results: Vec<Value> = frames.iter().map(|f| json(f)["result"].clone()).collect();
    let kinds: Vec<_> = results.iter().map(|r| text(r, "/kind")).collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "status-update"]
    );
    assert_eq!(text(&results[1], "/status/state"), "working");
    assert_eq!(results[1]["final"], false);
    assert_eq!(text(&results[2], "/artifact/parts/0/text"), "naïve → chunk");
    assert_eq!(text(&results[3], "/status/state"), "completed");
    assert_eq!(results[3]["final"], true);
    assert!(frames.iter().all(|f| !f.data.contains(['\r', '\n'])));
    assert_eq!(text(&json(frames[0]), "/id"), "req-7");
    assert_eq!(run.rest, None);
}

#[test]
fn keepalive_comments() {
    let run = whole(&fixture("keepalive_comments.sse"));
    let seen: Vec<String> = run
        .items
        .iter()
        .map(|i| match i {
            SseItem::Comment(c) => format!("#{c}"),
            SseItem::Frame(f) => v1_summary(f),
        })
        .collect();
    let expected = [
        "#keep-alive",
        "status:TASK_STATE_WORKING",
        "#ping",
        "#keep-alive",
        "#keep-alive",
        "artifact:chunk",
        "#",
        "# two spaces",
        "status:TASK_STATE_COMPLETED",
        "#keep-alive",
    ];
    assert_eq!(seen, expected);
    assert_eq!(run.rest, None);
}

#[test]
fn multiline_data_and_error_event() {
    let run = whole(&fixture("multiline_data.sse"));
    let frames = frames(&run.items);
    assert_eq!((run.items.len(), frames.len()), (2, 2));
    let f = frames[0];
    assert_eq!(
        (f.event.as_deref(), f.id.as_deref(), f.retry),
        (Some("message"), Some("41"), Some(3000))
    );
    assert_eq!(f.data.lines().count(), 4);
    assert!(
        f.data
            .starts_with("{\"jsonrpc\":\"2.0\",\n\"id\":1,\n \"result\":{"),
        "{:?}",
        f.data
    );
    let v = json(f);
    assert_eq!(
        text(&v, "/result/statusUpdate/status/state"),
        "TASK_STATE_WORKING"
    );
    assert_eq!(
        text(&v, "/result/statusUpdate/status/message/parts/0/text"),
        "étape → 2"
    );
    let e = frames[1];
    assert_eq!(
        (e.event.as_deref(), e.id.as_deref(), e.retry),
        (Some("error"), Some("42"), None)
    );
    let v = json(e);
    assert_eq!(v["error"]["code"], -32001);
    assert_eq!(text(&v, "/error/message"), "Task not found: tâche");
    assert_eq!(run.rest, None);
}

#[test]
fn truncated_reports_the_remainder() {
    let run = whole(&fixture("truncated.sse"));
    let summary: Vec<_> = frames(&run.items).iter().map(|f| v1_summary(f)).collect();
    assert_eq!(
        (run.items.len(), summary),
        (1, vec!["status:TASK_STATE_WORKING".to_owned()])
    );
    let rest = run.rest.expect("an undispatched remainder");
    for needle in [
        "not dispatched",
        "2 field line(s)",
        "\"message\"",
        "artifactUpdate",
        "partial line",
        "statusUp",
    ] {
        assert!(rest.contains(needle), "{needle:?} missing from {rest}");
    }
}

#[test]
fn mixed_endings() {
    let run = whole(&fixture("mixed_endings.sse"));
    let expected = vec![
        comment("mixed endings"),
        data("one"),
        data("two"),
        data("three"),
        data("four-a\nfour-b → é"),
        frame(Some("five"), "", Some("5")),
        data("six"),
    ];
    assert_eq!(run.items, expected);
    assert_eq!(run.rest, None);
}

#[test]
fn every_split_point_and_byte_by_byte_match_whole() {
    for name in FIXTURES {
        let bytes = fixture(name);
        let expected = whole(&bytes);
        for k in 0..=bytes.len() {
            assert_eq!(
                run([&bytes[..k], &bytes[k..]]),
                expected,
                "{name} split at {k}"
            );
        }
        assert_eq!(run(bytes.chunks(1)), expected, "{name} byte by byte");
    }
    let bytes = fixture("mixed_endings.sse");
    let expected = whole(&bytes);
    for i in 0..=bytes.len() {
        for j in i..=bytes.len() {
            assert_eq!(
                run([&bytes[..i], &bytes[i..j], &bytes[j..]]),
                expected,
                "split at {i}, {j}"
            );
        }
    }
}

/// Deterministic LCG (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }

    /// Random chunks of 0..=max bytes each, `max` itself random per call.
    fn chunks<'a>(&mut self, mut bytes: &'a [u8]) -> Vec<&'a [u8]> {
        let max = 1 + self.below(40);
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let (head, tail) = bytes.split_at(self.below(max + 1).min(bytes.len()));
            out.push(head);
            bytes = tail;
        }
        out
    }
}

#[test]
fn random_chunking_matches_whole() {
    let mut rng = Lcg(0x5eed);
    for name in FIXTURES {
        let bytes = fixture(name);
        let expected = whole(&bytes);
        for round in 0..200 {
            let chunks = rng.chunks(&bytes);
            assert_eq!(
                run(chunks.iter().copied()),
                expected,
                "{name} round {round}: {chunks:?}"
            );
        }
    }
}

/// Feeds every chunk; returns the items delivered and the first error.
fn run_capped<'a>(
    cap: usize,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<SseItem>, Option<SseError>) {
    let mut p = SseParser::new(cap);
    let mut items = Vec::new();
    for chunk in chunks {
        match p.feed(chunk) {
            Ok(got) => items.extend(got),
            Err(e) => return (items, Some(e)),
        }
    }
    p.finish();
    (items, None)
}

#[test]
fn random_garbage_never_panics_and_chunking_never_matters() {
    // Tokens separated by '|'; BOM, split "→" and invalid UTF-8 included.
    const TOKENS: &[u8] =
        b"data|data:|data: x|data:  y|event: e|id: 1|id: a\0b|retry: 12|retry: x|\
        :c|: c|\r|\n|\r\n|\n\n|\xEF\xBB\xBF|\xC3\xA9\xE2\x86\x92|\xE2\x86|\x92|\xFF| |:";
    let tokens: Vec<&[u8]> = TOKENS.split(|&b| b == b'|').collect();
    let mut rng = Lcg(42);
    for round in 0..300 {
        let mut bytes = Vec::new();
        for _ in 0..rng.below(60) {
            bytes.extend_from_slice(tokens[rng.below(tokens.len())]);
        }
        let expected = whole(&bytes);
        let chunks = rng.chunks(&bytes);
        assert_eq!(
            run(chunks.iter().copied()),
            expected,
            "round {round}: {chunks:?}"
        );
        // Under a small cap: the same error whatever the chunking, and the
        // items delivered are a prefix of the byte-by-byte ones.
        let cap = rng.below(24);
        let (by_byte, err) = run_capped(cap, bytes.chunks(1));
        let (got, got_err) = run_capped(cap, chunks.iter().copied());
        assert_eq!(got_err, err, "round {round} cap {cap}: {bytes:?}");
        assert!(
            by_byte.starts_with(&got),
            "round {round} cap {cap}: {bytes:?}"
        );
        if err.is_none() {
            assert_eq!((&by_byte, &got), (&expected.items, &expected.items));
        }
    }
}

#[test]
fn endless_line_errs_instead_of_growing() {
    let mut p = SseParser::new(1024);
    assert_eq!(p.feed(b"data: "), Ok(vec![]));
    let mut failed_at = None;
    for i in 0..1000 {
        match p.feed(&[b'x'; 100]) {
            Ok(items) => assert!(items.is_empty() && p.line.len() <= 1024),
            Err(e) => {
                failed_at = Some((i, e));
                break;
            }
        }
    }
    let (i, e) = failed_at.expect("the cap must trip");
    assert_eq!((i, e.clone()), (10, SseError::LineTooLong { limit: 1024 }));
    assert!(e.to_string().contains("1024"), "{e}");
    assert_eq!(p.line.capacity(), 0, "buffers freed");
    assert_eq!(p.feed(b"\n\ndata: ok\n\n"), Err(e.clone()), "stays failed");
    assert!(p.finish().is_some_and(|r| r.contains("1024")));
}

#[test]
fn data_lines_without_blank_line_hit_the_event_cap() {
    let mut p = SseParser::new(1000);
    let mut fed = 0;
    let err = loop {
        match p.feed(b"data: 0123456789\n") {
            Ok(items) => assert!(items.is_empty()),
            Err(e) => break e,
        }
        fed += 1;
        assert!(p.pending_event_bytes() <= 1000);
    };
    // After 90 lines 989 bytes are pending; the 91st line's 16 bytes pass the cap.
    assert_eq!((fed, err), (90, SseError::FrameTooLarge { limit: 1000 }));
}

#[test]
fn cap_is_exact() {
    let line = format!("data: {}", "x".repeat(100));
    let stream = format!("{line}\n\n");
    let (items, err) = run_capped(line.len(), [stream.as_bytes()]);
    assert_eq!((items, err), (vec![data(&"x".repeat(100))], None));
    let (_, err) = run_capped(line.len() - 1, [stream.as_bytes()]);
    assert_eq!(err, Some(SseError::LineTooLong { limit: 105 }));
    // Lossy decoding triples invalid bytes: the stored event is what counts.
    let mut stream = b"data:".to_vec();
    stream.extend([0xFF; 60].iter().chain(b"\n"));
    let (_, err) = run_capped(100, [&stream[..]]);
    assert_eq!(err, Some(SseError::FrameTooLarge { limit: 100 }));
    stream.push(b'\n');
    assert_eq!(
        run_capped(180, [&stream[..]]),
        (vec![data(&"\u{FFFD}".repeat(60))], None)
    );
    // Real fixtures fit a cap of their longest line.
    let bytes = fixture("v1_jsonrpc_lf.sse");
    let longest = bytes.split(|&b| b == b'\n').map(<[u8]>::len).max().unwrap();
    let (items, err) = run_capped(longest, [&bytes[..]]);
    assert_eq!((items, err), (whole(&bytes).items, None));
    assert!(run_capped(longest - 1, [&bytes[..]]).1.is_some());
}

#[test]
fn finish_reports_leftovers_only() {
    assert_eq!(whole(b"data: a\n\n: bye\n").rest, None);
    assert_eq!(whole(b"").rest, None);
    assert_eq!(
        whole(b"data: a\r")
            .rest
            .map(|r| r.contains("not dispatched")),
        Some(true)
    );
    let rest = whole(b"data: a\n\ndata: {\"x").rest.unwrap();
    assert!(
        rest.contains("partial line")
            && rest.contains("{\\\"x")
            && !rest.contains("not dispatched"),
        "{rest}"
    );
    let rest = whole(b"\xEF\xBB").rest.unwrap();
    assert!(
        rest.contains("partial line without a line ending (2 bytes)"),
        "{rest}"
    );
    let long = format!("data: {}", "y".repeat(2000));
    let rest = whole(long.as_bytes()).rest.unwrap();
    assert!(rest.len() < 700 && rest.contains("(+1494 bytes)"), "{rest}");
    let mut p = SseParser::new(CAP);
    p.feed(b"data: half").unwrap();
    assert!(p.finish().is_some());
    assert_eq!(p.finish(), None, "finish resets");
    assert_eq!(p.bytes_seen(), 10);
}

#[test]
fn bom_is_skipped_at_the_start_only() {
    let stream = b"\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n";
    for k in 0..=stream.len() {
        let run = run([&stream[..k], &stream[k..]]);
        assert_eq!(
            (run.items, run.bytes),
            (vec![data("a")], stream.len() as u64),
            "split at {k}"
        );
    }
    // A BOM prefix that turns out to be something else is kept as line bytes.
    let run = whole(b"\xEF\xBBdata: a\n\n");
    assert_eq!(
        run.items,
        vec![],
        "the field name is \"\\u{{fffd}}data\", not data"
    );
    assert_eq!(items(b"\xEF\xBB\xBF:hi\n"), vec![comment("hi")]);
}

#[test]
fn field_rules() {
    let got = items(b"id: a\0b\ndata: x\n\nid: 7\ndata: y\n\n");
    assert_eq!(got, vec![data("x"), frame(None, "y", Some("7"))]);
    for (line, retry) in [
        ("retry: abc", None),
        ("retry: 12a", None),
        ("retry:", None),
        ("retry: 1500", Some(1500)),
        ("retry: 99999999999999999999999", None),
        ("retry:0", Some(0)),
    ] {
        let got = items(format!("{line}\ndata: z\n\n").as_bytes());
        let expected = SseItem::Frame(SseFrame {
            data: "z".into(),
            retry,
            ..SseFrame::default()
        });
        assert_eq!(got, vec![expected], "{line}");
    }
    // No data line: nothing dispatched, and nothing leaks into the next event.
    assert_eq!(items(b"event: x\nid: 9\n\ndata: y\n\n"), vec![data("y")]);
    assert_eq!(items(b"data\n\n"), vec![data("")]);
    assert_eq!(items(b"data:\ndata:\n\n"), vec![data("\n")]);
    assert_eq!(
        items(b"data:x\ndata:  y\nfoo: bar\nevent\n\n"),
        vec![frame(Some(""), "x\n y", None)]
    );
    assert_eq!(items(b"data: a:b: c\n\n"), vec![data("a:b: c")]);
}

#[test]
fn utf8_is_decoded_per_line() {
    assert_eq!(items(b"data: a\xFFb\n\n"), vec![data("a\u{FFFD}b")]);
    let mut p = SseParser::new(CAP);
    assert_eq!(p.feed(b"data: \xE2\x86"), Ok(vec![]));
    assert_eq!(p.feed(b"\x92\r"), Ok(vec![]));
    assert_eq!(p.feed(b"\n\r\n"), Ok(vec![data("→")]));
    assert_eq!(p.finish(), None);
}
