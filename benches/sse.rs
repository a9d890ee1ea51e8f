//! Micro-benchmarks (`cargo bench --bench sse`): the SSE parser over 1 KiB
//! JSON-RPC events fed in socket-sized chunks, the reading of one event's
//! JSON (the typed fast reading, and a `serde_json::Value` tree as the
//! lenient reading builds), and the content digest of an event's JSON.
//! Benchmarks are not tests: nothing here asserts a time.

use a2a_conform_client::sse::SseParser;
use a2a_conform_protocol::view::content_digest;
use a2a_conform_protocol::wire::stream_event;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::hint::black_box;

/// One JSON-RPC artifact-update frame of about `size` bytes.
fn frame(size: usize) -> Vec<u8> {
    let head = r#"data: {"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"t","contextId":"c","append":true,"artifact":{"artifactId":"a","parts":[{"text":""#;
    let tail = "\"}]}}}}\n\n";
    let pad = size.saturating_sub(head.len() + tail.len());
    format!("{head}{}{tail}", "x".repeat(pad)).into_bytes()
}

fn parser(c: &mut Criterion) {
    let one = frame(1024);
    let stream: Vec<u8> = one.iter().copied().cycle().take(one.len() * 1024).collect();
    let mut group = c.benchmark_group("sse-parser");
    group.throughput(Throughput::Bytes(stream.len() as u64));
    for chunk in [1024usize, 16 * 1024] {
        group.bench_function(format!("1KiB-events/{chunk}B-chunks"), |b| {
            b.iter_batched(
                || SseParser::new(1 << 20),
                |mut parser| {
                    let mut events = 0usize;
                    for piece in stream.chunks(chunk) {
                        events += parser.feed(black_box(piece)).expect("parses").len();
                    }
                    events
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn digest(c: &mut Criterion) {
    let text = String::from_utf8(frame(1024)).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(text.trim().trim_start_matches("data: ")).unwrap();
    let mut group = c.benchmark_group("digest");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("content-digest/1KiB-event", |b| {
        b.iter(|| content_digest(black_box(&json)))
    });
    group.finish();
}

fn decode(c: &mut Criterion) {
    let text = String::from_utf8(frame(1024)).unwrap();
    let data = text.trim().trim_start_matches("data: ").to_string();
    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("typed/1KiB-event", |b| {
        b.iter(|| stream_event(Some(1), None, black_box(&data)).expect("a common frame"))
    });
    group.bench_function("value-tree/1KiB-event", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&data)).expect("JSON"))
    });
    group.finish();
}

criterion_group!(benches, parser, decode, digest);
criterion_main!(benches);
