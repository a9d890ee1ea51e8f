//! The A2A 1.1 draft (the spec's dev-1.1 branch), served on top of v1.0 by
//! JSON-RPC and HTTP+JSON when the config or a generation behaviour asks:
//! `generation` on tasks and on both update events (int64, so ProtoJSON
//! text), a `timeline` on every task served whole, the GetTask long-poll on
//! `currentGeneration`, and the reading of `ifGenerationMatch`. The store
//! counts generations whatever the mode; this module only decides what is
//! shown and how long GetTask waits. gRPC stays plain v1.0: its types come
//! from `a2a-pb`, whose messages have no such fields.

use super::error::A2aError;
use super::lifecycle;
use super::model::{self, Event, Task, TaskView};
use super::shared::Shared;
use a2a_conform_protocol::ProtocolVersion;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// How long a GetTask long-poll (`currentGeneration` not behind the task)
/// is held before the current task is answered anyway; `generation-held`
/// holds a stale one this long too.
pub const HOLD_CAP: Duration = Duration::from_secs(4);

/// What the card's description adds when the draft is served.
pub(crate) const CARD_NOTE: &str = "It also serves the A2A 1.1 draft additions \
    (dev-1.1) over JSON-RPC and HTTP+JSON: Task.generation, the GetTask \
    currentGeneration long-poll, SendMessage ifGenerationMatch and Task.timeline.";

/// The timeline entry kind no client knows: clients must skip unknown kinds,
/// and this one is there to see that they do.
pub(crate) const FUTURE_KIND: &str = "x-a2a-conform-future-kind";

/// An int64 as ProtoJSON writes it: decimal text.
fn int64_json(n: u64) -> Value {
    Value::String(n.to_string())
}

/// An optional int64 parameter, given as a JSON number or as decimal text
/// (query parameters, ProtoJSON); anything else is InvalidParams.
pub(crate) fn int64(params: &Map<String, Value>, name: &str) -> Result<Option<i64>, A2aError> {
    let bad = |got: &Value| {
        A2aError::invalid_params(format!(
            "`{name}` must be an int64 (a number or decimal text), got {got}"
        ))
    };
    match params.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v @ Value::Number(n)) => n.as_i64().map(Some).ok_or_else(|| bad(v)),
        Some(v @ Value::String(s)) => s.trim().parse::<i64>().map(Some).map_err(|_| bad(v)),
        Some(other) => Err(bad(other)),
    }
}

/// A Task as `model::task_json` renders it, plus `generation` and
/// `timeline` under the draft (v1.0 only).
pub(crate) fn task_json(
    task: &Task,
    version: ProtocolVersion,
    view: TaskView,
    draft: bool,
) -> Value {
    let mut body = model::task_json(task, version, view);
    if draft && version == ProtocolVersion::V1_0 {
        if let Some(fields) = body.as_object_mut() {
            fields.insert("generation".into(), int64_json(task.generation));
            fields.insert("timeline".into(), timeline(task, version));
        }
    }
    body
}

/// The first event of a stream, `{"task":{..}}` (v1.0), with the draft's
/// fields when it is served.
pub(crate) fn task_event_json(
    task: &Task,
    version: ProtocolVersion,
    view: TaskView,
    draft: bool,
) -> Value {
    let body = task_json(task, version, view, draft);
    match version {
        ProtocolVersion::V1_0 => json!({ "task": body }),
        ProtocolVersion::V0_3 => body,
    }
}

/// A stream event; under the draft its update carries `generation`, the
/// one the task reached with it.
pub(crate) fn event_json(
    event: &Event,
    generation: u64,
    version: ProtocolVersion,
    draft: bool,
) -> Value {
    let mut payload = model::event_json(event, version);
    if draft && version == ProtocolVersion::V1_0 {
        for member in ["statusUpdate", "artifactUpdate"] {
            if let Some(update) = payload.get_mut(member).and_then(Value::as_object_mut) {
                update.insert("generation".into(), int64_json(generation));
            }
        }
    }
    payload
}

/// The ADR-002 timeline, kept small: the message that created the task at
/// generation 1, the current status, and one entry of a kind no client
/// knows, both at the current generation. Never the whole history.
fn timeline(task: &Task, version: ProtocolVersion) -> Value {
    let now = int64_json(task.generation);
    let mut entries = Vec::with_capacity(3);
    if let Some(first) = task.history.first() {
        entries.push(
            json!({"generation": int64_json(1), "message": model::message_json(first, version)}),
        );
    }
    entries.push(json!({"generation": now, "status": model::status_json(&task.status, version)}));
    entries.push(json!({
        "generation": now,
        FUTURE_KIND: {"note": "clients skip unknown entry kinds"},
    }));
    Value::Array(entries)
}

/// GetTask under the draft. Without `current`, or with one the task's
/// generation already passed, the task at once (`generation-held` holds the
/// latter for the cap first); otherwise held until the generation passes
/// `current`, at most [`HOLD_CAP`], then the task as it is.
pub(crate) async fn get_task(
    peer: &Shared,
    id: &str,
    current: Option<i64>,
) -> Result<Task, A2aError> {
    let Some(current) = current else {
        return lifecycle::get(peer, id);
    };
    let passed = |generation: u64| i128::from(generation) > i128::from(current);
    let (generation, mut generations) = peer
        .store
        .with(id, |e| (e.task.generation, e.generations()))
        .ok_or_else(|| A2aError::task_not_found(id))?;
    let stale = passed(generation);
    if stale && !peer.behaviour.holds_stale_polls() {
        return lifecycle::get(peer, id);
    }
    let advanced = async {
        if stale {
            // generation-held: the answer is due now; wait the cap anyway.
            std::future::pending::<()>().await;
        }
        // An error means the task was evicted: the read below says so.
        let _ = generations.wait_for(|g| passed(*g)).await;
    };
    tokio::select! {
        _ = advanced => {}
        _ = tokio::time::sleep(HOLD_CAP) => {}
        _ = peer.stopped() => {}
    }
    lifecycle::get(peer, id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Status};
    use a2a_conform_protocol::TaskState;

    fn task(generation: u64) -> Task {
        let mut task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: Status::now(TaskState::Working, None),
            history: Vec::new(),
            artifacts: Vec::new(),
            generation,
        };
        let first = Message::agent(&task, "hello");
        let second = Message::agent(&task, "more");
        task.history = vec![first, second];
        task
    }

    #[test]
    fn the_draft_fields_appear_only_under_the_draft_and_only_in_v1_0() {
        let t = task(7);
        let view = TaskView::default();
        let plain = task_json(&t, ProtocolVersion::V1_0, view, false);
        assert!(plain.get("generation").is_none() && plain.get("timeline").is_none());
        let v03 = task_json(&t, ProtocolVersion::V0_3, view, true);
        assert!(v03.get("generation").is_none());
        let drafted = task_json(&t, ProtocolVersion::V1_0, view, true);
        assert_eq!(drafted["generation"], "7");
        let timeline = drafted["timeline"].as_array().expect("a timeline");
        assert_eq!(
            timeline.len(),
            3,
            "bounded, whatever the history: {timeline:?}"
        );
        assert_eq!(timeline[0]["generation"], "1");
        assert_eq!(timeline[0]["message"]["parts"][0]["text"], "hello");
        assert_eq!(timeline[1]["status"]["state"], "TASK_STATE_WORKING");
        assert!(timeline[2].get(FUTURE_KIND).is_some());
        assert!(timeline.iter().skip(1).all(|e| e["generation"] == "7"));
    }

    #[test]
    fn int64_parameters_take_numbers_and_text_and_refuse_the_rest() {
        let params: Map<String, Value> = serde_json::from_value(json!({
            "n": 5, "s": " 12 ", "neg": "-3", "bad": "five", "frac": 1.5, "obj": {}
        }))
        .expect("an object");
        assert_eq!(int64(&params, "n"), Ok(Some(5)));
        assert_eq!(int64(&params, "s"), Ok(Some(12)));
        assert_eq!(int64(&params, "neg"), Ok(Some(-3)));
        assert_eq!(int64(&params, "absent"), Ok(None));
        for name in ["bad", "frac", "obj"] {
            let e = int64(&params, name).expect_err(name);
            assert_eq!(e.code, a2a_conform_protocol::codes::INVALID_PARAMS);
            assert!(e.message.contains(name), "{}", e.message);
        }
    }
}
