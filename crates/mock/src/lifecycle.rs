//! Task lifecycles: creating, resuming and canceling tasks, and the worker that
//! walks a task through submitted → working → artifact chunks → completed (or
//! input-required), with each behaviour's divergence applied here.

use super::behaviour::Behaviour;
use super::error::A2aError;
use super::model::{Artifact, Event, Message, Part, Status, Task};
use super::published::INPUT_MODES;
use super::shared::Shared;
use super::store::{Entry, Feed};
use a2a_conform_protocol::{codes, TaskState};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;

pub(crate) use super::published::NEED_INPUT;
/// The name of the artifact the worker streams.
pub(crate) const RESULT_ARTIFACT: &str = "result";

/// A task snapshot together with a feed of every event after it.
pub(crate) struct Opened {
    pub task: Task,
    pub feed: Feed,
}

/// What a worker run does after announcing `working`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Stop at input-required.
    AskInput,
    /// Stream the result artifact, then complete.
    Produce,
}

/// Handles an incoming message: a new task, a resume of an input-required
/// task, or a note to a task still working. `expected` is the 1.1 draft's
/// `ifGenerationMatch`: a message naming a task whose generation differs is
/// refused (a message creating a task ignores it).
pub(crate) fn send_message(
    peer: &Arc<Shared>,
    message: Message,
    expected: Option<i64>,
) -> Result<Opened, A2aError> {
    check_media_types(&message)?;
    match message.task_id.clone() {
        Some(task_id) if peer.behaviour.resumes_as_new_task() => {
            fork_task(peer, &task_id, message, expected)
        }
        Some(task_id) => continue_task(peer, &task_id, message, expected),
        None => Ok(create_task(peer, message)),
    }
}

/// The draft's optimistic-concurrency check, under the store's lock so the
/// generation compared is the one the message would change.
fn check_generation(entry: &Entry, expected: Option<i64>) -> Result<(), A2aError> {
    match expected {
        Some(expected) if i128::from(expected) != i128::from(entry.task.generation) => Err(
            A2aError::generation_mismatch(&entry.task.id, expected, entry.task.generation),
        ),
        _ => Ok(()),
    }
}

/// Every part must be of a media type the card declares (-32005 otherwise).
fn check_media_types(message: &Message) -> Result<(), A2aError> {
    for part in &message.parts {
        let media_type = part.effective_media_type();
        if !INPUT_MODES.contains(&media_type.as_str()) {
            return Err(A2aError::new(
                codes::CONTENT_TYPE_NOT_SUPPORTED,
                format!(
                    "media type `{media_type}` is not accepted; declared input modes: {}",
                    INPUT_MODES.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn create_task(peer: &Arc<Shared>, mut message: Message) -> Opened {
    let id = uuid::Uuid::new_v4().to_string();
    let context_id = message
        .context_id
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    message.task_id = Some(id.clone());
    message.context_id = Some(context_id.clone());
    let described = peer.behaviour == Behaviour::DescriptionTrigger
        && message.text_contains(super::published::DESCRIBED_TRIGGER);
    let ask_input =
        (message.text_contains(NEED_INPUT) || described) && peer.behaviour.asks_for_input();
    let instant = match peer.behaviour {
        Behaviour::Instant => true,
        Behaviour::InstantUnlessExample => !super::published::EXAMPLES
            .iter()
            .any(|example| message.text_contains(example)),
        Behaviour::InstantUnlessInput => !ask_input,
        _ => false,
    };
    // `instant-unless-input` parks the task at once: no `working` first.
    let at_once = peer.behaviour == Behaviour::InstantUnlessInput;
    let mut task = Task {
        id,
        context_id,
        status: Status::now(TaskState::Submitted, None),
        history: vec![message],
        artifacts: Vec::new(),
        generation: 1,
    };
    if instant {
        // The very first snapshot is already completed, with the whole artifact.
        let chunks = peer.timing.chunks;
        task.artifacts.push(Artifact {
            artifact_id: uuid::Uuid::new_v4().to_string(),
            name: RESULT_ARTIFACT.into(),
            parts: (1..=chunks).map(|i| chunk_part(i, chunks)).collect(),
        });
        task.status = Status::now(TaskState::Completed, None);
        return peer.store.insert(task, |entry| Opened {
            task: entry.task.clone(),
            feed: entry.feed(),
        });
    }
    let plan = if ask_input {
        Plan::AskInput
    } else {
        Plan::Produce
    };
    let run = peer.store.next_run();
    peer.store.insert(task, |entry| {
        let opened = Opened {
            task: entry.task.clone(),
            feed: entry.feed(),
        };
        start_worker(peer, entry, run, plan, !at_once);
        opened
    })
}

fn continue_task(
    peer: &Arc<Shared>,
    task_id: &str,
    mut message: Message,
    expected: Option<i64>,
) -> Result<Opened, A2aError> {
    let run = peer.store.next_run();
    peer.store
        .with(task_id, |entry| {
            check_generation(entry, expected)?;
            if let Some(context_id) = &message.context_id {
                if *context_id != entry.task.context_id && peer.behaviour.checks_context() {
                    return Err(A2aError::invalid_params(format!(
                        "contextId `{context_id}` does not match task `{task_id}` (context `{}`)",
                        entry.task.context_id
                    )));
                }
            }
            let state = entry.task.status.state;
            if state.is_terminal() {
                return Err(A2aError::unsupported(format!(
                    "task `{task_id}` is {state}, a terminal state; it takes no more messages"
                )));
            }
            message.context_id = Some(entry.task.context_id.clone());
            if state != TaskState::InputRequired {
                // Still working: note the message, change nothing else.
                entry.task.history.push(message);
                return Ok(Opened {
                    task: entry.task.clone(),
                    feed: entry.feed(),
                });
            }
            resume(peer, entry, run, message)
        })
        .unwrap_or_else(|| Err(A2aError::task_not_found(task_id)))
}

/// `resume-new-task(-settled)`: a follow-up to an input-required task
/// starts a new task (another id) in the same context, as some real peers
/// do; under `resume-new-task-settled` the original is also completed, else
/// it stays input-required forever. Other follow-ups continue as usual.
fn fork_task(
    peer: &Arc<Shared>,
    task_id: &str,
    mut message: Message,
    expected: Option<i64>,
) -> Result<Opened, A2aError> {
    let settle = peer.behaviour == Behaviour::ResumeNewTaskSettled;
    let context = peer.store.with(task_id, |entry| {
        if entry.task.status.state != TaskState::InputRequired {
            return Ok(None);
        }
        check_generation(entry, expected)?;
        if settle {
            entry.set_status(Status::now(TaskState::Completed, None), true);
        }
        Ok(Some(entry.task.context_id.clone()))
    });
    match context {
        Some(Err(error)) => Err(error),
        Some(Ok(Some(context_id))) => {
            // The store's lock is released: the new task is a plain new one.
            message.task_id = None;
            message.context_id = Some(context_id);
            Ok(create_task(peer, message))
        }
        _ => continue_task(peer, task_id, message, expected),
    }
}

/// A follow-up message on an input-required task.
fn resume(
    peer: &Arc<Shared>,
    entry: &mut Entry,
    run: u64,
    message: Message,
) -> Result<Opened, A2aError> {
    let refused = message
        .parts
        .iter()
        .map(Part::effective_media_type)
        .find(|m| m != "text/plain");
    match (peer.behaviour, &refused) {
        (b, Some(media_type)) if b.refuses_json_resume() => {
            // The divergence: a declared mode refused as invalid params.
            return Err(A2aError::invalid_params(format!(
                "unsupported part: `{media_type}` input is not accepted here, send text"
            )));
        }
        (Behaviour::InputOverdeclaredFails, Some(media_type)) => {
            let why = format!("unsupported input: `{media_type}` parts cannot be processed");
            return Ok(fail_resumed(entry, message, &why));
        }
        (Behaviour::ResumeFails, _) => {
            return Ok(fail_resumed(
                entry,
                message,
                "the follow-up could not be processed",
            ));
        }
        _ => {}
    }
    entry.task.history.push(message);
    // Streams already open on the task see `working`; the caller's snapshot shows it.
    entry.set_status(Status::now(TaskState::Working, None), false);
    let opened = Opened {
        task: entry.task.clone(),
        feed: entry.feed(),
    };
    start_worker(peer, entry, run, Plan::Produce, false);
    Ok(opened)
}

/// Takes a follow-up into the history, then fails the task with `why`.
fn fail_resumed(entry: &mut Entry, message: Message, why: &str) -> Opened {
    entry.task.history.push(message);
    entry.set_status(Status::now(TaskState::Working, None), false);
    let note = Message::agent(&entry.task, why);
    entry.set_status(Status::now(TaskState::Failed, Some(note)), true);
    Opened {
        task: entry.task.clone(),
        feed: entry.feed(),
    }
}

/// Spawns a worker run while the entry is locked, so it cannot act before
/// its handle is recorded.
fn start_worker(peer: &Arc<Shared>, entry: &mut Entry, run: u64, plan: Plan, announce: bool) {
    entry.stop_worker();
    entry.run = run;
    entry.leaking = false;
    let handle = tokio::spawn(work(
        peer.clone(),
        entry.task.id.clone(),
        run,
        plan,
        announce,
    ));
    entry.worker = Some(handle.abort_handle());
}

/// Whether a worker may go on, and how.
enum Gate {
    /// Change the task and announce it.
    Go,
    /// cancel-leak after the cancel: announce on the streams, keep the stored
    /// task frozen.
    Leak,
    Stop,
}

fn gate(entry: &Entry, run: u64) -> Gate {
    if entry.run != run {
        Gate::Stop
    } else if entry.leaking {
        Gate::Leak
    } else if entry.task.status.state.is_terminal() {
        Gate::Stop
    } else {
        Gate::Go
    }
}

fn chunk_part(i: u32, of: u32) -> Part {
    Part::text(format!("chunk {i} of {of}"))
}

async fn work(peer: Arc<Shared>, id: String, run: u64, plan: Plan, announce: bool) {
    let store = &peer.store;
    if announce {
        let go = store.with(&id, |e| match gate(e, run) {
            Gate::Go => {
                e.set_status(Status::now(TaskState::Working, None), false);
                true
            }
            _ => false,
        });
        if go != Some(true) {
            return;
        }
    }
    if plan == Plan::AskInput {
        ask_for_input(&peer, &id, run).await;
        return;
    }
    let chunks = peer.timing.chunks;
    let artifact_id = uuid::Uuid::new_v4().to_string();
    for i in 1..=chunks {
        if !peer.sleep(peer.timing.chunk_interval).await {
            return;
        }
        let chunk = Artifact {
            artifact_id: artifact_id.clone(),
            name: RESULT_ARTIFACT.into(),
            parts: vec![chunk_part(i, chunks)],
        };
        let go = store.with(&id, |e| add_chunk(e, run, chunk, i, chunks));
        if go != Some(true) {
            return;
        }
    }
    let completed = store.with(&id, |e| match gate(e, run) {
        Gate::Stop => false,
        // cancel-leak ends here too: the canceled task now reads completed,
        // its stored artifact frozen at the cancel.
        Gate::Go | Gate::Leak => {
            e.leaking = false;
            e.set_status(Status::now(TaskState::Completed, None), true);
            true
        }
    });
    if completed == Some(true) && peer.behaviour == Behaviour::UnstableCompletion {
        rewrite_after_completion(&peer, &id, run, &artifact_id).await;
    }
}

/// After one pause (none under `instant-unless-input`), asks for input
/// and ends this run of the worker.
async fn ask_for_input(peer: &Shared, id: &str, run: u64) {
    let pause = peer.behaviour != Behaviour::InstantUnlessInput;
    if pause && !peer.sleep(peer.timing.chunk_interval).await {
        return;
    }
    peer.store.with(id, |e| {
        if let Gate::Go = gate(e, run) {
            let ask = Message::agent(
                &e.task,
                "Need more input: send a follow-up message on this task \
                 with a text or JSON data part.",
            );
            e.set_status(Status::now(TaskState::InputRequired, Some(ask)), true);
            e.worker = None;
        }
    });
}

/// Stores chunk `i` of `chunks` of the result artifact (unless the task was
/// canceled) and emits it (also after a cancel, under `cancel-leak`); false
/// once the worker must stop.
fn add_chunk(e: &mut Entry, run: u64, chunk: Artifact, i: u32, chunks: u32) -> bool {
    let mode = gate(e, run);
    if let Gate::Go = mode {
        match e
            .task
            .artifacts
            .iter_mut()
            .find(|a| a.artifact_id == chunk.artifact_id)
        {
            Some(stored) => stored.parts.extend(chunk.parts.iter().cloned()),
            None => e.task.artifacts.push(chunk.clone()),
        }
    }
    match mode {
        Gate::Stop => false,
        Gate::Go | Gate::Leak => {
            e.emit(
                Event::Artifact {
                    task_id: e.task.id.clone(),
                    context_id: e.task.context_id.clone(),
                    artifact: chunk,
                    append: i > 1,
                    last_chunk: i == chunks,
                },
                false,
            );
            true
        }
    }
}

/// unstable-completion: three silent changes after `completed`: a new
/// artifact, then two rewrites of the result artifact's content.
async fn rewrite_after_completion(peer: &Shared, id: &str, run: u64, result_id: &str) {
    for change in 1..=3u32 {
        if !peer.sleep(peer.timing.chunk_interval).await {
            return;
        }
        let alive = peer.store.with(id, |e| {
            if e.run != run {
                return false;
            }
            if change == 1 {
                e.task.artifacts.push(Artifact {
                    artifact_id: uuid::Uuid::new_v4().to_string(),
                    name: "addendum".into(),
                    parts: vec![Part::text("added after completion")],
                });
            } else {
                let target = e
                    .task
                    .artifacts
                    .iter_mut()
                    .find(|a| a.artifact_id == result_id);
                if let Some(artifact) = target {
                    artifact.parts = vec![Part::text(format!(
                        "rewritten after completion ({})",
                        change - 1
                    ))];
                }
            }
            e.changed_silently();
            true
        });
        if alive != Some(true) {
            return;
        }
    }
}

/// Cancels a task: honest peers stop the worker and close every stream at
/// `canceled`; cancel-leak only relabels the task and lets the worker go on.
pub(crate) fn cancel(peer: &Shared, task_id: &str) -> Result<Task, A2aError> {
    peer.store
        .with(task_id, |entry| {
            let state = entry.task.status.state;
            if state.is_terminal() {
                return Err(A2aError::new(
                    codes::TASK_NOT_CANCELABLE,
                    format!("task `{task_id}` is {state}, a terminal state; it cannot be canceled"),
                ));
            }
            let canceled = Status::now(TaskState::Canceled, None);
            if peer.behaviour == Behaviour::CancelLeak && entry.worker_alive() {
                entry.leaking = true;
                entry.set_status(canceled, false);
            } else {
                entry.stop_worker();
                entry.set_status(canceled, true);
            }
            Ok(entry.task.clone())
        })
        .unwrap_or_else(|| Err(A2aError::task_not_found(task_id)))
}

/// Fails a task at once, with `why` as its status message, its worker
/// stopped and its streams closed (`output-mode-fails`).
pub(crate) fn fail(peer: &Shared, task_id: &str, why: &str) -> Result<Task, A2aError> {
    peer.store
        .with(task_id, |entry| {
            entry.stop_worker();
            let note = Message::agent(&entry.task, why);
            entry.set_status(Status::now(TaskState::Failed, Some(note)), true);
            entry.task.clone()
        })
        .ok_or_else(|| A2aError::task_not_found(task_id))
}

pub(crate) fn get(peer: &Shared, task_id: &str) -> Result<Task, A2aError> {
    peer.store
        .with(task_id, |entry| entry.task.clone())
        .ok_or_else(|| A2aError::task_not_found(task_id))
}

/// Opens a feed on a live task; a terminal task gets -32004 (v1 §3.1.6).
pub(crate) fn subscribe(peer: &Shared, task_id: &str) -> Result<Opened, A2aError> {
    peer.store
        .with(task_id, |entry| {
            let state = entry.task.status.state;
            if state.is_terminal() && peer.behaviour.refuses_terminal_subscribe() {
                return Err(A2aError::unsupported(format!(
                    "task `{task_id}` is {state}, a terminal state; there is nothing to subscribe to"
                )));
            }
            Ok(Opened {
                task: entry.task.clone(),
                feed: entry.feed(),
            })
        })
        .unwrap_or_else(|| Err(A2aError::task_not_found(task_id)))
}

/// A blocking send: waits until the task is terminal or interrupted, then
/// returns its current state with all its artifacts.
pub(crate) async fn wait_settled(peer: &Shared, opened: Opened) -> Result<Task, A2aError> {
    let Opened { task, mut feed } = opened;
    if task.status.settles() {
        return Ok(task);
    }
    loop {
        tokio::select! {
            received = feed.recv() => match received {
                Ok(b) => {
                    if let Event::Status { status, .. } = &b.event {
                        if status.settles() {
                            break;
                        }
                    }
                }
                Err(RecvError::Lagged(_)) => {
                    if get(peer, &task.id)?.status.settles() {
                        break;
                    }
                }
                Err(RecvError::Closed) => break,
            },
            _ = peer.stopped() => break,
        }
    }
    get(peer, &task.id)
}
