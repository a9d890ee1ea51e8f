//! Hostile card hygiene headers: a `Cache-Control` that reflects the bearer
//! token the card GET carried, placed where the warning's clip would cut it,
//! or that is huge. The card warning quotes the header clipped; no piece of
//! the secret may survive in any output, and the warning stays a warning
//! (never a verdict).

use super::harness::*;
use serde_json::json;
use std::io::Write;

#[test]
fn a_cache_control_header_reflecting_the_token_is_clipped_without_leaking_it() {
    for padding in [0usize, 70, 75, 60_000] {
        let peer = HostilePeer::start(json!({}), move |call, stream| {
            if call.path == "/card.json" {
                let body = card(&format!("http://{}", host(&call.head)), json!({})).to_string();
                let value = format!("{}{SECRET}", "x".repeat(padding));
                let _ = stream.write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: {value}\r\nETag: \"{SECRET}\"\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                );
            } else {
                let body = rpc_result(call, task("TASK_STATE_COMPLETED"));
                respond(stream, 200, "application/json", &body);
            }
        });
        let mut args: Vec<&str> = FAST.to_vec();
        args.extend(["--scenario", "completion-stability"]);
        let card_url = format!("{}/card.json", peer.base);
        let out = check(&[&card_url], &args);
        let warnings = out.card_warnings(0).join("\n");
        assert!(
            warnings.contains("has no max-age"),
            "{padding}: {warnings}\n{}",
            out.explain()
        );
        out.assert_run("completion-stability", "pass", None);
        assert_eq!(out.code, 0, "{}", out.explain());
        out.assert_bounded(WITHIN, MAX_RSS_MIB);
    }
}

/// The `Host` of a request head.
fn host(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("host").then(|| v.trim().to_string())
        })
        .unwrap_or_default()
}
