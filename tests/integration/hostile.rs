//! Hostile peers: a raw TCP server on loopback that serves a valid card and
//! then answers every call badly — garbage SSE, endless lines, huge bodies,
//! wrong JSON-RPC ids, dropped connections, silence. The tool must report
//! each as a finding with a clear message, within its bounds, never panic.

use crate::common::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

#[derive(Clone, Copy)]
enum Mode {
    GarbageSse,
    EndlessSseLine,
    HugeBody,
    WrongId,
    DropConnection,
    Hang,
    HtmlError,
}

/// Serves the card at the well-known path and `mode` everywhere else.
fn hostile_peer(mode: Mode) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card_base = base.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let base = card_base.clone();
            std::thread::spawn(move || serve(stream, &base, mode));
        }
    });
    base
}

fn read_request(stream: &mut TcpStream) -> Option<(String, String)> {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let length = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body).ok()?;
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    Some((path, String::from_utf8_lossy(&body).into_owned()))
}

fn respond(stream: &mut TcpStream, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

fn serve(mut stream: TcpStream, base: &str, mode: Mode) {
    let Some((path, body)) = read_request(&mut stream) else {
        return;
    };
    if path.ends_with("/.well-known/agent-card.json") {
        let card = serde_json::json!({
            "name": "hostile", "description": "answers badly", "version": "1",
            "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "s", "description": "d", "tags": ["t"]}]
        });
        respond(&mut stream, "application/json", card.to_string().as_bytes());
        return;
    }
    let id = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| v.get("id").cloned())
        .unwrap_or(serde_json::Value::Null);
    match mode {
        Mode::GarbageSse => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n",
            );
            let _ = stream.write_all(b"data: {not json at all\n\ndata: <html>\n\n");
        }
        Mode::EndlessSseLine => {
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\ndata: ",
            );
            let chunk = vec![b'x'; 64 * 1024];
            // Bounded here too: 4 MiB is far past the tool's 1 MiB event cap.
            for _ in 0..64 {
                if stream.write_all(&chunk).is_err() {
                    break;
                }
            }
        }
        Mode::HugeBody => {
            let filler = "x".repeat(5 * 1024 * 1024);
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"task":{{"id":"t","status":{{"state":"TASK_STATE_COMPLETED"}},"pad":"{filler}"}}}}}}"#
            );
            respond(&mut stream, "application/json", body.as_bytes());
        }
        Mode::WrongId => {
            let body = r#"{"jsonrpc":"2.0","id":"someone-else","result":{"task":{"id":"t","status":{"state":"TASK_STATE_COMPLETED"}}}}"#;
            respond(&mut stream, "application/json", body.as_bytes());
        }
        Mode::DropConnection => {
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"jsonrpc\":");
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
        Mode::Hang => std::thread::sleep(Duration::from_secs(30)),
        Mode::HtmlError => {
            let head = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 22\r\nConnection: close\r\n\r\n<h1>bad gateway</h1>\r\n";
            let _ = stream.write_all(head.as_bytes());
        }
    }
}

/// Checks the hostile peer and returns the failing runs' messages.
fn messages(mode: Mode, scenario: &str) -> (Outcome, String) {
    let base = hostile_peer(mode);
    let out = check(&base, &["--scenario", scenario, "--timeout", "2s"]);
    let text = out.report()["peers"][0]["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}: {}", r["id"], r["verdict"], r["message"]))
        .collect::<Vec<_>>()
        .join("\n");
    eprintln!("{text}");
    (out, text)
}

#[test]
fn garbage_sse_is_a_streaming_divergence() {
    let (out, text) = messages(Mode::GarbageSse, "streaming-probe");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    assert_eq!(out.declaration("capabilities.streaming"), "diverged");
    assert!(text.contains("streaming-probe\" \"fail\""), "{text}");
    assert!(text.contains("event data is not JSON"), "{text}");
}

#[test]
fn an_endless_sse_line_is_cut_at_the_cap() {
    let (out, text) = messages(Mode::EndlessSseLine, "streaming-probe");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    assert!(text.contains("cap"), "{text}");
}

#[test]
fn a_huge_body_is_refused_at_the_cap() {
    let (out, text) = messages(Mode::HugeBody, "completion-stability");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    assert!(text.contains("4 MiB cap"), "{text}");
}

#[test]
fn a_wrong_jsonrpc_id_is_reported() {
    let (out, text) = messages(Mode::WrongId, "completion-stability");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    assert!(text.contains("does not match request id"), "{text}");
}

#[test]
fn a_dropped_connection_is_reported() {
    let (out, text) = messages(Mode::DropConnection, "completion-stability");
    assert_ne!(out.code, 0, "{}\n{text}", out.explain());
    assert!(
        text.contains("connection") || text.contains("could not reach"),
        "{text}"
    );
}

#[test]
fn a_peer_that_never_answers_is_bounded_by_the_timeout() {
    let (out, text) = messages(Mode::Hang, "completion-stability");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    // The run ended on the tool's bound, not on the peer's 30 s sleep.
    assert!(text.contains("no answer within 2.00 s"), "{text}");
}

#[test]
fn an_html_error_page_is_reported_with_its_status() {
    let (out, text) = messages(Mode::HtmlError, "completion-stability");
    assert_eq!(out.code, 1, "{}\n{text}", out.explain());
    assert!(text.contains("HTTP 502"), "{text}");
}
