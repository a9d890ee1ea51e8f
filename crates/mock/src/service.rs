//! The binding-neutral operation layer: reads an operation's parameters (a
//! JSON object, whichever binding it came from), runs it against the
//! lifecycle, and renders the result in the peer's version. JSON-RPC and REST
//! only frame what this returns. `draft` says whether the caller's binding
//! serves the 1.1 draft additions (JSON-RPC and HTTP+JSON under the draft;
//! never gRPC, whose messages have no such fields).

use super::behaviour::Behaviour;
use super::card;
use super::declared;
use super::draft;
use super::error::A2aError;
use super::lifecycle::{self, Opened};
use super::model::{self, TaskView};
use super::push;
use super::push_configs::PushConfig;
use super::shared::Shared;
use super::task_basics;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion, TaskState};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What an operation answers.
pub(crate) enum Reply {
    /// A result value (a JSON-RPC `result`, a REST body).
    Json(Value),
    /// An SSE stream: the snapshot first, then the feed.
    Stream { opened: Opened, view: TaskView },
}

/// Runs one operation.
pub(crate) async fn call(
    peer: &Arc<Shared>,
    op: Operation,
    params: &Map<String, Value>,
    draft: bool,
) -> Result<Reply, A2aError> {
    let version = peer.protocol;
    match op {
        Operation::SendMessage => {
            declared::check_output_modes(peer, params)?;
            let fails = declared::fails_output_modes(peer, params);
            let (blocking, view, opened) = open_task(peer, params, draft)?;
            let task = if fails {
                lifecycle::fail(
                    peer,
                    &opened.task.id,
                    "cannot produce the accepted output modes",
                )?
            } else if blocking && peer.behaviour.blocks_sends() {
                lifecycle::wait_settled(peer, opened).await?
            } else {
                opened.task
            };
            if blocking && peer.behaviour == Behaviour::SlowSend {
                // slow-send: the right answer, late.
                tokio::select! {
                    _ = tokio::time::sleep(peer.timing.silence) => {}
                    _ = peer.stopped() => {}
                }
            }
            let body = draft::task_json(&task, version, view, draft);
            Ok(Reply::Json(match version {
                ProtocolVersion::V1_0 => json!({ "task": body }),
                ProtocolVersion::V0_3 => body,
            }))
        }
        Operation::SendStreamingMessage => {
            refuse_unless_streaming(peer)?;
            declared::check_output_modes(peer, params)?;
            if peer.behaviour == Behaviour::SilentBeforeStatus {
                // silent-before-status: not even the status line for a while;
                // the task starts once the silence is over.
                tokio::select! {
                    _ = tokio::time::sleep(peer.timing.silence) => {}
                    _ = peer.stopped() => {}
                }
            }
            // `blocking` has no effect on streams (v1 §3.2.2).
            let (_blocking, view, opened) = open_task(peer, params, draft)?;
            Ok(Reply::Stream { opened, view })
        }
        Operation::GetTask => get_task(peer, params, draft).await.map(Reply::Json),
        Operation::ListTasks => list_tasks(peer, params, draft).map(Reply::Json),
        Operation::CancelTask => {
            let id = task_id(params)?;
            let task = task_basics::or_made_up(peer, &id, lifecycle::cancel(peer, &id))?;
            Ok(Reply::Json(draft::task_json(
                &task,
                version,
                TaskView::default(),
                draft,
            )))
        }
        Operation::SubscribeToTask => {
            refuse_unless_streaming(peer)?;
            let id = task_id(params)?;
            let opened = lifecycle::subscribe(peer, &id)?;
            Ok(Reply::Stream {
                opened,
                view: TaskView::default(),
            })
        }
        Operation::CreatePushConfig
        | Operation::GetPushConfig
        | Operation::ListPushConfigs
        | Operation::DeletePushConfig => push::call(peer, op, params).map(Reply::Json),
        Operation::GetExtendedCard => {
            declared::extended_card(peer, card::card_json(peer)).map(Reply::Json)
        }
    }
}

/// GetTask: the task now, or under the 1.1 draft once its generation passes
/// `currentGeneration` (the draft's long-poll, bounded by its hold cap).
async fn get_task(
    peer: &Arc<Shared>,
    params: &Map<String, Value>,
    draft: bool,
) -> Result<Value, A2aError> {
    let id = task_id(params)?;
    let view = TaskView {
        history_length: count(params, "historyLength")?.filter(|_| peer.behaviour.bounds_history()),
        include_artifacts: true,
    };
    let found = if draft {
        let current = draft::int64(params, "currentGeneration")?;
        draft::get_task(peer, &id, current).await
    } else {
        lifecycle::get(peer, &id)
    };
    let task = task_basics::or_made_up(peer, &id, found)?;
    Ok(draft::task_json(&task, peer.protocol, view, draft))
}

/// Starts the task a send or stream asks for, registering an inline push
/// config once the task id exists; returns `blocking`, the task view asked
/// for, and the opened task.
fn open_task(
    peer: &Arc<Shared>,
    params: &Map<String, Value>,
    draft: bool,
) -> Result<(bool, TaskView, lifecycle::Opened), A2aError> {
    let SendRequest {
        message,
        blocking,
        view,
        push,
        if_generation_match,
    } = SendRequest::parse(peer, params, draft)?;
    // generation-match-ignored reads the value (a bad one is still -32602)
    // and then takes the message whatever it says.
    let if_generation_match =
        if_generation_match.filter(|_| !peer.behaviour.ignores_generation_match());
    let opened = lifecycle::send_message(peer, message, if_generation_match)?;
    if let Some(config) = push {
        push::register(
            peer,
            PushConfig {
                task_id: opened.task.id.clone(),
                ..config
            },
        )?;
    }
    Ok((blocking, view, opened))
}

fn refuse_unless_streaming(peer: &Shared) -> Result<(), A2aError> {
    if peer.behaviour.serves_streaming() {
        Ok(())
    } else if peer.behaviour == Behaviour::UndeclaredStreamingInvalidRequest {
        // a2a-java #1041: the refusal's code is InvalidRequest, not the
        // UnsupportedOperation v1 §3.3.4 requires.
        Err(A2aError::new(
            codes::INVALID_REQUEST,
            "Streaming is not supported by the agent",
        ))
    } else {
        Err(A2aError::unsupported(
            "streaming is not supported (capabilities.streaming is false)",
        ))
    }
}

/// The parameters of SendMessage / SendStreamingMessage.
struct SendRequest {
    message: model::Message,
    blocking: bool,
    view: TaskView,
    /// A push config given inline (its task id is filled in once the task exists).
    push: Option<PushConfig>,
    /// The 1.1 draft's `configuration.ifGenerationMatch` (read only under the draft).
    if_generation_match: Option<i64>,
}

impl SendRequest {
    fn parse(
        peer: &Shared,
        params: &Map<String, Value>,
        draft: bool,
    ) -> Result<SendRequest, A2aError> {
        let version = peer.protocol;
        let message = params
            .get("message")
            .ok_or_else(|| A2aError::invalid_params("`message` is required"))?;
        let message = model::parse_message(message).map_err(|e| A2aError::invalid_params(e.0))?;
        let empty = Map::new();
        let config = match params.get("configuration") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(c)) => c,
            Some(_) => {
                return Err(A2aError::invalid_params(
                    "`configuration` must be an object",
                ))
            }
        };
        // v1.0 `returnImmediately` defaults to false; v0.3 `blocking` defaults to true.
        let blocking = match version {
            ProtocolVersion::V1_0 => !flag(config, "returnImmediately")?.unwrap_or(false),
            ProtocolVersion::V0_3 => flag(config, "blocking")?.unwrap_or(true),
        };
        let view = TaskView {
            history_length: count(config, "historyLength")?,
            include_artifacts: true,
        };
        // v1.0 `taskPushNotificationConfig`, v0.3 `pushNotificationConfig`.
        let inline = ["taskPushNotificationConfig", "pushNotificationConfig"]
            .iter()
            .find_map(|key| config.get(*key))
            .filter(|v| !v.is_null());
        let push = match inline {
            None => None,
            Some(Value::Object(body)) => {
                if !peer.behaviour.declares_push() {
                    return Err(A2aError::new(
                        codes::PUSH_NOT_SUPPORTED,
                        "push notifications are not supported (capabilities.pushNotifications is false)",
                    ));
                }
                Some(push::parse_config(peer, "", body)?)
            }
            Some(_) => {
                return Err(A2aError::invalid_params(
                    "the inline push notification config must be an object",
                ))
            }
        };
        let if_generation_match = if draft {
            draft::int64(config, "ifGenerationMatch")?
        } else {
            None
        };
        Ok(SendRequest {
            message,
            blocking,
            view,
            push,
            if_generation_match,
        })
    }
}

/// The task id of GetTask / CancelTask / SubscribeToTask (`id`, or a
/// resource name `tasks/{id}`).
fn task_id(params: &Map<String, Value>) -> Result<String, A2aError> {
    let raw = params
        .get("id")
        .or_else(|| params.get("name"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| A2aError::invalid_params("`id` (a task id string) is required"))?;
    Ok(raw.strip_prefix("tasks/").unwrap_or(raw).to_string())
}

/// A boolean, given as JSON or as `true`/`false` text (query parameters).
fn flag(params: &Map<String, Value>, name: &str) -> Result<Option<bool>, A2aError> {
    match params.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::String(s)) if s == "true" => Ok(Some(true)),
        Some(Value::String(s)) if s == "false" => Ok(Some(false)),
        Some(other) => Err(A2aError::invalid_params(format!(
            "`{name}` must be a boolean, got {other}"
        ))),
    }
}

/// A non-negative count, given as JSON or as text (query parameters).
fn count(params: &Map<String, Value>, name: &str) -> Result<Option<usize>, A2aError> {
    let bad = || A2aError::invalid_params(format!("`{name}` must be a non-negative integer"));
    match params.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(|n| Some(n as usize)).ok_or_else(bad),
        Some(Value::String(s)) => s.trim().parse::<usize>().map(Some).map_err(|_| bad()),
        Some(_) => Err(bad()),
    }
}

/// ListTasks (v1.0 §3.1.4): newest status first, `nextPageToken` always
/// present (`""` on the last page), artifacts only with `includeArtifacts`.
fn list_tasks(peer: &Shared, params: &Map<String, Value>, draft: bool) -> Result<Value, A2aError> {
    let version = peer.protocol;
    let context = params.get("contextId").and_then(Value::as_str);
    let status = match params.get("status") {
        None | Some(Value::Null) => None,
        Some(v) => match TaskState::from_wire(v) {
            Some(TaskState::Unknown) => None,
            Some(state) => Some(state),
            None => return Err(A2aError::invalid_params(format!("unknown `status` {v}"))),
        },
    };
    let page_size = count(params, "pageSize")?.unwrap_or(50);
    if !(1..=100).contains(&page_size) {
        return Err(A2aError::invalid_params(
            "`pageSize` must be between 1 and 100",
        ));
    }
    // list-tasks-unpaged: every task on one page, whatever was asked.
    let page_size = if peer.behaviour.pages_task_lists() {
        page_size
    } else {
        usize::MAX / 2
    };
    let offset = match params.get("pageToken").and_then(Value::as_str) {
        None | Some("") => 0,
        Some(token) => token
            .parse::<usize>()
            .map_err(|_| A2aError::invalid_params(format!("invalid `pageToken` `{token}`")))?,
    };
    let after = match params.get("statusTimestampAfter").and_then(Value::as_str) {
        None => None,
        Some(text) => Some(model::parse_iso_timestamp(text).ok_or_else(|| {
            A2aError::invalid_params(format!(
                "`statusTimestampAfter` `{text}` is not an ISO 8601 UTC time"
            ))
        })?),
    };
    let view = TaskView {
        history_length: count(params, "historyLength")?,
        include_artifacts: flag(params, "includeArtifacts")?.unwrap_or(false),
    };
    let mut tasks = peer.store.snapshot_matching(context, |t| {
        status.is_none_or(|s| t.status.state == s)
            && after.is_none_or(|a| t.status.timestamp_ms > a)
    });
    // Newest status first; the store's order (oldest first) breaks ties.
    tasks.reverse();
    tasks.sort_by_key(|t| std::cmp::Reverse(t.status.timestamp_ms));
    let total = tasks.len();
    let page: Vec<Value> = tasks
        .iter()
        .skip(offset)
        .take(page_size)
        .map(|t| draft::task_json(t, version, view, draft))
        .collect();
    let next = if offset + page_size < total {
        (offset + page_size).to_string()
    } else {
        String::new()
    };
    Ok(json!({
        "tasks": page,
        "nextPageToken": next,
        "pageSize": page_size,
        "totalSize": total,
    }))
}
