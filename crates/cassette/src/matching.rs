//! How a replay tells which recorded step a request is (its run, its
//! operation, its body but for the values the tool makes afresh), and the
//! card it serves with every interface pointing at the replay.

use crate::recorded::{clip, WEBHOOK_PATH};
use serde_json::Value;
use std::net::SocketAddr;

/// What the masked values of a recording read as (the redactor's mask).
pub(crate) const MASK: &str = "«redacted»";

/// Why a request is not in the recording: the miss's words.
#[derive(Debug)]
pub(crate) struct Gap(pub(crate) String);

/// The card as the replay serves it: every interface pointing at the
/// replay's one address (HTTP and gRPC alike are served there).
pub(crate) fn rewrite_card(
    card: &str,
    card_url: &str,
    endpoint: Option<&str>,
    addr: SocketAddr,
) -> String {
    let base_url = format!("http://{addr}");
    let mut card = card.to_string();
    for origin in recorded_origins(card_url, endpoint, &card) {
        card = card.replace(&origin, &base_url);
    }
    // A gRPC interface named `host:port` (no scheme), as a whole JSON string.
    for target in grpc_targets(endpoint, &card) {
        card = card.replace(&format!("\"{target}\""), &format!("\"{addr}\""));
    }
    card
}

/// Every interface URL a card declares: v1.0's `supportedInterfaces`,
/// v0.3's `url` and `additionalInterfaces`.
pub(crate) fn interface_urls(card: &str) -> Vec<String> {
    let Ok(card) = serde_json::from_str::<Value>(card) else {
        return Vec::new();
    };
    let listed = ["supportedInterfaces", "additionalInterfaces"]
        .iter()
        .filter_map(|key| card.get(key).and_then(Value::as_array))
        .flatten()
        .filter_map(|i| i.get("url"));
    listed
        .chain(card.get("url"))
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// The origins the recorded card pointed at (the card's, the endpoint's,
/// every interface's), to be rewritten to the replay's.
pub(crate) fn recorded_origins(card_url: &str, endpoint: Option<&str>, card: &str) -> Vec<String> {
    let urls = interface_urls(card);
    let mut origins: Vec<String> = [Some(card_url), endpoint]
        .into_iter()
        .flatten()
        .chain(urls.iter().map(String::as_str))
        .filter_map(written_origin)
        .collect();
    // The longest first: `http://h:80` must not rewrite the start of
    // `http://h:8080`.
    origins.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
    origins.dedup();
    origins
}

/// The `scheme://authority` of an HTTP URL as written (a default port
/// spelled out stays in it, so it is rewritten with the rest).
fn written_origin(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    (!authority.is_empty()).then(|| format!("{scheme}://{authority}"))
}

/// The `host:port` gRPC targets the recorded card and endpoint named
/// without a scheme (`127.0.0.1:50051`).
pub(crate) fn grpc_targets(endpoint: Option<&str>, card: &str) -> Vec<String> {
    let mut targets: Vec<String> = interface_urls(card)
        .into_iter()
        .chain(endpoint.map(str::to_string))
        .filter(|u| {
            !u.contains("://")
                && u.rsplit_once(':')
                    .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        })
        .collect();
    targets.sort();
    targets.dedup();
    targets
}

/// The method and path of a recorded request (`→ POST http://… label`;
/// `→ gRPC service/Method at host:port …`: `gRPC` and `service/Method`).
pub(crate) fn recorded_target(summary: &str) -> (String, String) {
    let mut words = summary.trim_start_matches('→').split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    if method == GRPC {
        let path = words.next().unwrap_or_default();
        return (method, path.to_string());
    }
    let path = words
        .next()
        .and_then(|u| url::Url::parse(u).ok())
        .map(|u| u.path().to_string())
        .unwrap_or_default();
    (method, path)
}

/// The method of a recorded gRPC request's summary.
pub(crate) const GRPC: &str = "gRPC";

/// What a request is, for matching: the JSON-RPC method, the gRPC
/// `service/Method`, else the HTTP method and path.
pub(crate) fn operation_key(method: &str, path: &str, body: Option<&Value>) -> String {
    if method == GRPC {
        return path.trim_start_matches('/').to_string();
    }
    match body
        .filter(|b| b.get("jsonrpc").is_some())
        .and_then(|b| b.get("method"))
        .and_then(Value::as_str)
    {
        Some(rpc) => rpc.to_string(),
        None => format!("{method} {path}"),
    }
}

/// Whether an operation only reads (a poll may repeat it any number of times).
pub(crate) fn is_read(key: &str) -> bool {
    // A gRPC key is `service/Method`: its method decides.
    let method = key.rsplit_once("A2AService/").map_or(key, |(_, m)| m);
    matches!(method, "GetTask" | "tasks/get" | "ListTasks" | "tasks/list")
        || key.starts_with("GET ")
}

pub(crate) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether `now` is the recorded request but for the values the tool
/// makes afresh (collected in `swaps`, recorded → now) and masked ones.
pub(crate) fn compare(
    recorded: &Value,
    now: &Value,
    at: &str,
    swaps: &mut Vec<(String, String)>,
) -> Result<(), Gap> {
    match (recorded, now) {
        (Value::Object(a), Value::Object(b)) => {
            for (name, value) in a {
                let here = format!("{at}.{name}");
                let Some(other) = b.get(name) else {
                    return Err(Gap(format!("{here} is missing")));
                };
                // A JSON-RPC envelope's `id` is counted per run; a gRPC
                // request's top-level `id` is a task's, compared as it is.
                let fresh =
                    name == "messageId" || (at == "$" && name == "id" && a.contains_key("jsonrpc"));
                if fresh {
                    if value != other {
                        swaps.push((scalar(value), scalar(other)));
                    }
                    continue;
                }
                compare(value, other, &here, swaps)?;
            }
            match b.keys().find(|k| !a.contains_key(*k)) {
                Some(extra) => Err(Gap(format!("{at}.{extra} was not in the recorded request"))),
                None => Ok(()),
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                compare(x, y, &format!("{at}[{i}]"), swaps)?;
            }
            Ok(())
        }
        (Value::String(a), Value::String(b)) if a.contains(MASK) || a == b => Ok(()),
        (Value::String(a), Value::String(b)) if a.contains(WEBHOOK_PATH) => {
            swaps.push((a.clone(), b.clone()));
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) => Err(Gap(format!(
            "{at} was {} and is now {}",
            clip(&a.to_string()),
            clip(&b.to_string())
        ))),
    }
}

pub(crate) fn scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A recorded JSON-RPC answer with the incoming request's id.
pub(crate) fn with_id(body: String, incoming: Option<&Value>) -> String {
    let Some(id) = incoming
        .filter(|b| b.get("jsonrpc").is_some())
        .and_then(|b| b.get("id"))
    else {
        return body;
    };
    match serde_json::from_str::<Value>(&body) {
        Ok(Value::Object(mut map)) if map.get("id") != Some(id) && map.contains_key("id") => {
            map.insert("id".into(), id.clone());
            Value::Object(map).to_string()
        }
        _ => body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_values_are_swapped_and_other_changes_refused() {
        let recorded = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "SendMessage",
            "params": {"message": {"messageId": "a2a-conform-old-1", "parts": [{"text": "hi"}]}}});
        let mut now = recorded.clone();
        now["id"] = 4.into();
        now["params"]["message"]["messageId"] = "a2a-conform-new-2".into();
        let mut swaps = Vec::new();
        compare(&recorded, &now, "$", &mut swaps).unwrap();
        assert!(swaps.contains(&("a2a-conform-old-1".into(), "a2a-conform-new-2".into())));
        now["params"]["message"]["parts"][0]["text"] = "hello".into();
        let Gap(diff) = compare(&recorded, &now, "$", &mut Vec::new()).unwrap_err();
        assert!(diff.contains("$.params.message.parts[0].text"), "{diff}");
    }

    #[test]
    fn run_ids_decode_and_operations_key_by_method_or_path() {
        assert_eq!(percent_decode("cancel[skill=%C3%A9]"), "cancel[skill=é]");
        let rpc = serde_json::json!({"jsonrpc": "2.0", "method": "GetTask"});
        assert_eq!(operation_key("POST", "/", Some(&rpc)), "GetTask");
        assert_eq!(
            operation_key("GET", "/v1/tasks/t1", None),
            "GET /v1/tasks/t1"
        );
        assert_eq!(
            recorded_target("→ GET http://127.0.0.1:9/v1/tasks/t1 GetTask (REST)"),
            ("GET".to_string(), "/v1/tasks/t1".to_string())
        );
    }

    #[test]
    fn every_interface_of_the_card_points_at_the_replay() {
        let card = serde_json::json!({"supportedInterfaces": [
            {"url": "http://10.0.0.5:8080/a2a/jsonrpc", "protocolBinding": "JSONRPC"},
            {"url": "10.0.0.5:50051", "protocolBinding": "GRPC"},
            {"url": "http://10.0.0.5:80/a2a/rest", "protocolBinding": "HTTP+JSON"},
            {"url": "https://agent.example:443/v1", "protocolBinding": "HTTP+JSON"}],
            "url": "https://agent.example/a2a", "additionalInterfaces": [
            {"url": "grpc.example:443", "transport": "GRPC"}]})
        .to_string();
        let addr: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let served = rewrite_card(&card, "http://10.0.0.5:8080/card", None, addr);
        for expected in [
            "\"http://127.0.0.1:4000/a2a/jsonrpc\"",
            "\"127.0.0.1:4000\"",
            "\"http://127.0.0.1:4000/a2a\"",
            "\"http://127.0.0.1:4000/a2a/rest\"",
            "\"http://127.0.0.1:4000/v1\"",
        ] {
            assert!(served.contains(expected), "{expected}: {served}");
        }
        assert!(
            !served.contains("10.0.0.5") && !served.contains("example"),
            "{served}"
        );
    }

    #[test]
    fn grpc_requests_key_by_service_and_method_and_reads_repeat() {
        let summary =
            "→ gRPC lf.a2a.v1.A2AService/GetTask at 127.0.0.1:9 [metadata: a2a-version: 1.0]";
        let (method, path) = recorded_target(summary);
        let key = operation_key(&method, &path, None);
        assert_eq!(key, "lf.a2a.v1.A2AService/GetTask");
        assert_eq!(
            operation_key(GRPC, "/lf.a2a.v1.A2AService/GetTask", None),
            key
        );
        assert!(is_read(&key));
        assert!(!is_read("a2a.v1.A2AService/CancelTask"));
        // A gRPC request's top-level `id` is a task's: not a fresh value.
        let recorded = serde_json::json!({"id": "task-recorded-1"});
        let now = serde_json::json!({"id": "task-other-0002"});
        assert!(compare(&recorded, &now, "$", &mut Vec::new()).is_err());
    }
}
