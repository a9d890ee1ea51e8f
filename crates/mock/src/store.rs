//! The in-memory task store: one entry per task holding its current snapshot,
//! the broadcast channel every open stream on it listens to, and its worker.
//! Every change to a task and the event announcing it happen under one lock,
//! so a subscriber that takes a snapshot and a receiver together misses nothing
//! and sees nothing twice.

use super::model::{Event, Status, Task};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::broadcast;
use tokio::task::AbortHandle;

/// How many tasks the store keeps before evicting the oldest.
pub(crate) const MAX_TASKS: usize = 10_000;

/// An event as sent to the streams, with whether they end after it.
#[derive(Debug, Clone)]
pub(crate) struct Broadcast {
    pub event: Event,
    /// Streams close after this event (honest: terminal or interrupted state).
    pub close: bool,
}

/// What a stream or a blocking send listens to.
pub(crate) type Feed = broadcast::Receiver<Broadcast>;

pub(crate) struct Entry {
    pub task: Task,
    tx: broadcast::Sender<Broadcast>,
    /// The worker run allowed to change this task; a new run replaces the old.
    pub run: u64,
    pub worker: Option<AbortHandle>,
    /// cancel-leak: the task reads canceled but its worker goes on.
    pub leaking: bool,
}

impl Entry {
    /// Sends an event to every open stream on the task.
    pub(crate) fn emit(&self, event: Event, close: bool) {
        // No receivers is fine: nobody is streaming this task right now.
        let _ = self.tx.send(Broadcast { event, close });
    }

    /// Moves the task to `status`, records its message in the history and
    /// announces it.
    pub(crate) fn set_status(&mut self, status: Status, close: bool) {
        if let Some(message) = &status.message {
            self.task.history.push(message.clone());
        }
        self.task.status = status.clone();
        self.emit(
            Event::Status {
                task_id: self.task.id.clone(),
                context_id: self.task.context_id.clone(),
                status,
            },
            close,
        );
    }

    /// A receiver for every event emitted from now on.
    pub(crate) fn feed(&self) -> Feed {
        self.tx.subscribe()
    }

    /// Whether a worker is still running on this task.
    pub(crate) fn worker_alive(&self) -> bool {
        self.worker.as_ref().is_some_and(|h| !h.is_finished())
    }

    pub(crate) fn stop_worker(&mut self) {
        if let Some(handle) = self.worker.take() {
            handle.abort();
        }
    }
}

#[derive(Default)]
struct Inner {
    tasks: HashMap<String, Entry>,
    order: VecDeque<String>,
    next_run: u64,
}

pub(crate) struct Store {
    inner: Mutex<Inner>,
    channel_capacity: usize,
    limit: usize,
}

impl Store {
    /// `channel_capacity` bounds how far a slow stream may fall behind.
    pub(crate) fn new(channel_capacity: usize) -> Store {
        Store::with_limit(channel_capacity, MAX_TASKS)
    }

    fn with_limit(channel_capacity: usize, limit: usize) -> Store {
        Store {
            inner: Mutex::new(Inner::default()),
            channel_capacity: channel_capacity.max(16),
            limit: limit.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves data that is still consistent
        // enough for a mock; keep serving.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh worker run number.
    pub(crate) fn next_run(&self) -> u64 {
        let mut inner = self.lock();
        inner.next_run += 1;
        inner.next_run
    }

    /// Adds a task, evicting the oldest beyond the limit, then runs `f` on
    /// the new entry under the same lock (to subscribe or start a worker).
    pub(crate) fn insert<R>(&self, task: Task, f: impl FnOnce(&mut Entry) -> R) -> R {
        let mut inner = self.lock();
        while inner.order.len() >= self.limit {
            if let Some(old) = inner.order.pop_front() {
                if let Some(mut entry) = inner.tasks.remove(&old) {
                    entry.stop_worker();
                }
            }
        }
        let (tx, _) = broadcast::channel(self.channel_capacity);
        let id = task.id.clone();
        inner.order.push_back(id.clone());
        let entry = inner.tasks.entry(id).or_insert(Entry {
            task,
            tx,
            run: 0,
            worker: None,
            leaking: false,
        });
        f(entry)
    }

    /// Runs `f` on a task's entry under the lock; `None` if there is no such task.
    pub(crate) fn with<R>(&self, id: &str, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
        let mut inner = self.lock();
        inner.tasks.get_mut(id).map(f)
    }

    /// A copy of every task, for listing.
    pub(crate) fn snapshot_all(&self) -> Vec<Task> {
        let inner = self.lock();
        inner
            .order
            .iter()
            .filter_map(|id| inner.tasks.get(id).map(|e| e.task.clone()))
            .collect()
    }

    /// Stops every worker (peer shutdown).
    pub(crate) fn stop_all(&self) {
        let mut inner = self.lock();
        for entry in inner.tasks.values_mut() {
            entry.stop_worker();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::TaskState;

    fn task(id: &str) -> Task {
        Task {
            id: id.into(),
            context_id: "c".into(),
            status: Status::now(TaskState::Submitted, None),
            history: Vec::new(),
            artifacts: Vec::new(),
        }
    }

    #[test]
    fn the_oldest_tasks_are_evicted_beyond_the_limit() {
        let store = Store::with_limit(16, 3);
        for id in ["a", "b", "c", "d", "e"] {
            store.insert(task(id), |_| ());
        }
        let kept: Vec<String> = store.snapshot_all().into_iter().map(|t| t.id).collect();
        assert_eq!(kept, ["c", "d", "e"]);
        assert!(store.with("a", |_| ()).is_none());
    }

    #[test]
    fn a_feed_sees_status_changes_made_after_it_was_opened() {
        let store = Store::new(16);
        let mut feed = store.insert(task("t"), |e| e.feed());
        store.with("t", |e| {
            e.set_status(Status::now(TaskState::Working, None), false)
        });
        let got = feed.try_recv().expect("event delivered");
        assert!(!got.close);
        assert!(
            matches!(got.event, Event::Status { ref status, .. } if status.state == TaskState::Working)
        );
        assert!(feed.try_recv().is_err(), "nothing else");
    }
}
