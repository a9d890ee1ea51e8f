//! Push notifications in the mock peer: the four config operations, and the
//! deliveries of the `push` behaviour. Peers that do not declare push answer
//! every config operation with -32003 (v1 §3.3.4).
//!
//! Deliveries follow each version's rules: v1.0 POSTs a StreamResponse as
//! `application/a2a+json` with `Authorization: <scheme> <credentials>` from the
//! config's `authentication` (or `Bearer <token>`), v1 §4.3.3; v0.3 POSTs the
//! Task as `application/json` with `X-A2A-Notification-Token`. One POST per
//! status change, 10 s timeout, no retries; the config ends with the task.
//!
//! The mock is a test tool: it only ever posts to loopback URLs and refuses
//! configs naming anything else.

use super::draft;
use super::error::A2aError;
use super::lifecycle;
use super::model::{self, Event, Status, Task, TaskView};
use super::push_configs::PushConfig;
use super::shared::Shared;
use super::store::Feed;
use a2a_conform_protocol::{codes, Operation, ProtocolVersion};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

/// Runs one of the four push config operations.
pub(crate) fn call(
    peer: &Arc<Shared>,
    op: Operation,
    params: &Map<String, Value>,
) -> Result<Value, A2aError> {
    if !peer.behaviour.declares_push() {
        return Err(A2aError::new(
            codes::PUSH_NOT_SUPPORTED,
            "push notifications are not supported (capabilities.pushNotifications is false)",
        ));
    }
    let version = peer.protocol;
    let task_id = task_id(version, params)?;
    let config_id = |params: &Map<String, Value>| {
        let key = match version {
            ProtocolVersion::V1_0 => "id",
            ProtocolVersion::V0_3 => "pushNotificationConfigId",
        };
        params
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    match op {
        Operation::CreatePushConfig => {
            // v1.0 is flat; v0.3 nests the config. Either is read.
            let body = params
                .get("pushNotificationConfig")
                .and_then(Value::as_object)
                .unwrap_or(params);
            let config = parse_config(peer, &task_id, body)?;
            register(peer, config.clone())?;
            Ok(config_json(&config, version))
        }
        Operation::GetPushConfig => {
            lifecycle::get(peer, &task_id)?;
            let configs = peer.push.list(&task_id);
            let found = match config_id(params) {
                Some(id) => configs.into_iter().find(|c| c.id == id),
                // 0.3: without an id, the task's (first) config.
                None if version == ProtocolVersion::V0_3 => configs.into_iter().next(),
                None => {
                    return Err(A2aError::invalid_params(
                        "`id` (the push notification config id) is required",
                    ))
                }
            };
            found.map(|c| config_json(&c, version)).ok_or_else(|| {
                A2aError::new(
                    codes::TASK_NOT_FOUND,
                    format!("no such push notification config for task `{task_id}`"),
                )
            })
        }
        Operation::ListPushConfigs => {
            lifecycle::get(peer, &task_id)?;
            let configs: Vec<Value> = peer
                .push
                .list(&task_id)
                .iter()
                .map(|c| config_json(c, version))
                .collect();
            Ok(match version {
                ProtocolVersion::V1_0 => json!({ "configs": configs, "nextPageToken": "" }),
                ProtocolVersion::V0_3 => Value::Array(configs),
            })
        }
        Operation::DeletePushConfig => {
            // Idempotent: deleting what is not there succeeds too.
            let id = config_id(params).ok_or_else(|| {
                A2aError::invalid_params("the push notification config id is required")
            })?;
            peer.push.remove(&task_id, &id);
            Ok(match version {
                ProtocolVersion::V1_0 => json!({}),
                ProtocolVersion::V0_3 => Value::Null,
            })
        }
        _ => Err(A2aError::new(
            codes::INTERNAL_ERROR,
            format!("{op:?} is not a push config operation"),
        )),
    }
}

/// The task a config operation names: `taskId` (v1.0; v0.3 set), or `id`
/// (v0.3 get, list, delete).
fn task_id(version: ProtocolVersion, params: &Map<String, Value>) -> Result<String, A2aError> {
    let text = |key: &str| {
        params
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let raw = match version {
        ProtocolVersion::V1_0 => text("taskId"),
        ProtocolVersion::V0_3 => text("taskId").or_else(|| text("id")),
    }
    .ok_or_else(|| A2aError::invalid_params("`taskId` (a task id string) is required"))?;
    Ok(raw.strip_prefix("tasks/").unwrap_or(raw).to_string())
}

/// Reads a config object (either version's fields) for a task, refusing
/// URLs the mock will not post to.
pub(crate) fn parse_config(
    peer: &Shared,
    task_id: &str,
    body: &Map<String, Value>,
) -> Result<PushConfig, A2aError> {
    let text = |o: &Map<String, Value>, key: &str| {
        o.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let url = text(body, "url").ok_or_else(|| A2aError::invalid_params("`url` is required"))?;
    let parsed = url::Url::parse(&url)
        .map_err(|e| A2aError::invalid_params(format!("`url` `{url}` is not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(A2aError::invalid_params(format!(
            "`url` `{url}` is not an http(s) URL"
        )));
    }
    let loopback = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    if peer.behaviour.refuses_loopback_webhooks() {
        return Err(A2aError::invalid_params(format!(
            "webhook URL `{url}` refused: loopback and private addresses are not allowed (SSRF protection)"
        )));
    }
    if !loopback {
        return Err(A2aError::invalid_params(format!(
            "webhook URL `{url}` refused: the mock peer only delivers to loopback addresses"
        )));
    }
    let auth = body
        .get("authentication")
        .and_then(Value::as_object)
        .and_then(|a| {
            let scheme = text(a, "scheme").or_else(|| {
                a.get("schemes")
                    .and_then(Value::as_array)
                    .and_then(|s| s.first())
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })?;
            Some((scheme, text(a, "credentials")))
        });
    Ok(PushConfig {
        id: text(body, "id").unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        task_id: task_id.to_string(),
        url,
        token: text(body, "token"),
        auth,
    })
}

/// Stores a config for an existing task and, for the `push` behaviour, starts
/// its deliveries: one per status change from now on, or at once the final
/// Task when the task has already ended.
pub(crate) fn register(peer: &Arc<Shared>, config: PushConfig) -> Result<(), A2aError> {
    let (task, feed) = peer
        .store
        .with(&config.task_id, |e| (e.task.clone(), e.feed()))
        .ok_or_else(|| A2aError::task_not_found(&config.task_id))?;
    peer.push.put(config.clone())?;
    if peer.behaviour.delivers_push() {
        tokio::spawn(deliver(peer.clone(), config, task, feed));
    }
    Ok(())
}

fn config_json(config: &PushConfig, version: ProtocolVersion) -> Value {
    let mut body = Map::new();
    body.insert("id".into(), json!(config.id));
    body.insert("url".into(), json!(config.url));
    if let Some(token) = &config.token {
        body.insert("token".into(), json!(token));
    }
    if let Some((scheme, credentials)) = &config.auth {
        let auth = match version {
            ProtocolVersion::V1_0 => json!({"scheme": scheme, "credentials": credentials}),
            ProtocolVersion::V0_3 => json!({"schemes": [scheme], "credentials": credentials}),
        };
        body.insert("authentication".into(), auth);
    }
    match version {
        ProtocolVersion::V1_0 => {
            body.insert("taskId".into(), json!(config.task_id));
            Value::Object(body)
        }
        ProtocolVersion::V0_3 => {
            json!({"taskId": config.task_id, "pushNotificationConfig": Value::Object(body)})
        }
    }
}

async fn deliver(peer: Arc<Shared>, config: PushConfig, task: Task, mut feed: Feed) {
    let version = peer.protocol;
    if task.status.state.is_terminal() {
        let body = match version {
            ProtocolVersion::V1_0 => {
                draft::task_event_json(&task, version, TaskView::default(), peer.draft)
            }
            ProtocolVersion::V0_3 => model::task_json(&task, version, TaskView::default()),
        };
        post(&peer, &config, body).await;
        return;
    }
    loop {
        let (status, generation) = tokio::select! {
            received = feed.recv() => match received {
                Ok(b) => match b.event {
                    Event::Status { status, .. } => (status, b.generation),
                    Event::Artifact { .. } => continue,
                },
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            },
            _ = peer.stopped() => return,
        };
        // A deleted config gets nothing more.
        if !peer.push.holds(&config) {
            return;
        }
        let terminal = status.state.is_terminal();
        let body = notification(&peer, &config.task_id, status, generation);
        post(&peer, &config, body).await;
        if terminal {
            return;
        }
    }
}

/// The body announcing a status: v1.0 a StreamResponse status update; v0.3
/// the Task as of that status. Under the 1.1 draft the update carries the
/// `generation` the status change brought the task to.
fn notification(peer: &Shared, task_id: &str, status: Status, generation: u64) -> Value {
    let version = peer.protocol;
    let task = peer.store.with(task_id, |e| e.task.clone());
    match (version, task) {
        (ProtocolVersion::V1_0, Some(task)) => draft::event_json(
            &Event::Status {
                task_id: task.id,
                context_id: task.context_id,
                status,
            },
            generation,
            version,
            peer.draft,
        ),
        (ProtocolVersion::V0_3, Some(mut task)) => {
            task.status = status;
            model::task_json(&task, version, TaskView::default())
        }
        // Evicted meanwhile: the status alone.
        (_, None) => {
            json!({"statusUpdate": {"taskId": task_id, "status": model::status_json(&status, version)}})
        }
    }
}

/// One POST, bounded, never retried; a failure is the webhook's problem.
async fn post(peer: &Shared, config: &PushConfig, body: Value) {
    let mut request = peer.push.client.post(&config.url).body(body.to_string());
    match peer.protocol {
        ProtocolVersion::V1_0 => {
            request = request.header("Content-Type", "application/a2a+json");
            let authorization = match (&config.auth, &config.token) {
                (Some((scheme, Some(credentials))), _) => Some(format!("{scheme} {credentials}")),
                (_, Some(token)) => Some(format!("Bearer {token}")),
                _ => None,
            };
            if let Some(value) = authorization {
                request = request.header("Authorization", value);
            }
        }
        ProtocolVersion::V0_3 => {
            request = request.header("Content-Type", "application/json");
            if let Some(token) = &config.token {
                request = request.header("X-A2A-Notification-Token", token);
            }
            if let Some((scheme, Some(credentials))) = &config.auth {
                request = request.header("Authorization", format!("{scheme} {credentials}"));
            }
        }
    }
    tokio::select! {
        _ = request.send() => {}
        _ = peer.stopped() => {}
    }
}
