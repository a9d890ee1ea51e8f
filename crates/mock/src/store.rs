//! The in-memory task store: one entry per task holding its current snapshot,
//! the broadcast channel every open stream on it listens to, and its worker.
//! Every change to a task and the event announcing it happen under one lock,
//! so a subscriber that takes a snapshot and a receiver together misses nothing
//! and sees nothing twice. The same place counts the task's generation (the
//! 1.1 draft's `Task.generation`): every event is one mutation, so the event
//! and the task agree on it by construction.

use super::model::{Event, Status, Task};
use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::{broadcast, watch};
use tokio::task::AbortHandle;

/// How many tasks the store keeps before evicting the oldest.
pub(crate) const MAX_TASKS: usize = 10_000;

/// An event as sent to the streams, with whether they end after it.
#[derive(Debug, Clone)]
pub(crate) struct Broadcast {
    pub event: Event,
    /// Streams close after this event (honest: terminal or interrupted state).
    pub close: bool,
    /// The task's generation right after the mutation this event announces.
    pub generation: u64,
    /// When the event happened (`stream-lag` writes it a lag after this).
    pub at: tokio::time::Instant,
}

/// How a task's generation advances with each event: by one, as the 1.1
/// draft promises, or as a generation behaviour breaks that promise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Counting {
    /// Every event advances the generation by exactly one.
    #[default]
    ByOne,
    /// `generation-skips`: an artifact update advances it by two.
    ArtifactsByTwo,
    /// `generation-repeats`: a status update right after an artifact update
    /// does not advance it.
    RepeatAfterArtifact,
}

impl Counting {
    /// How far the event about to be emitted moves the generation.
    fn step(self, event: &Event, after_artifact: bool) -> u64 {
        match (self, event) {
            (Counting::ArtifactsByTwo, Event::Artifact { .. }) => 2,
            (Counting::RepeatAfterArtifact, Event::Status { .. }) if after_artifact => 0,
            _ => 1,
        }
    }
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
    counting: Counting,
    /// Whether the last event emitted was an artifact update (for
    /// `Counting::RepeatAfterArtifact`).
    after_artifact: bool,
    /// The generation, for GetTask long-polls waiting for it to advance.
    generation_tx: watch::Sender<u64>,
}

impl Entry {
    /// Records one mutation of the task and announces it to every open
    /// stream: the one place the generation advances, so each event carries
    /// the task's generation right after it.
    pub(crate) fn emit(&mut self, event: Event, close: bool) {
        let step = self.counting.step(&event, self.after_artifact);
        self.after_artifact = matches!(event, Event::Artifact { .. });
        let generation = self.advance(step);
        // No receivers is fine: nobody is streaming this task right now.
        let _ = self.tx.send(Broadcast {
            event,
            close,
            generation,
            at: tokio::time::Instant::now(),
        });
    }

    /// A mutation no event announces (`unstable-completion`'s rewrites):
    /// the generation still advances, so a long-poll sees the change.
    pub(crate) fn changed_silently(&mut self) {
        self.after_artifact = false;
        self.advance(1);
    }

    fn advance(&mut self, step: u64) -> u64 {
        self.task.generation = self.task.generation.saturating_add(step);
        self.generation_tx.send_replace(self.task.generation);
        self.task.generation
    }

    /// A receiver of the task's generation, woken whenever it advances (its
    /// sender goes when the task is evicted).
    pub(crate) fn generations(&self) -> watch::Receiver<u64> {
        self.generation_tx.subscribe()
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
    /// Task ids per context, oldest first: ListTasks filtered by context
    /// (what every check sends) reads its few tasks, not every task a
    /// multi-card bench peer holds for a thousand cards.
    by_context: HashMap<String, VecDeque<String>>,
    next_run: u64,
}

impl Inner {
    fn evict_oldest(&mut self) {
        let Some(old) = self.order.pop_front() else {
            return;
        };
        let Some(mut entry) = self.tasks.remove(&old) else {
            return;
        };
        entry.stop_worker();
        if let Some(ids) = self.by_context.get_mut(&entry.task.context_id) {
            // The evicted task is its context's oldest, so it is at the front.
            if ids.front() == Some(&old) {
                ids.pop_front();
            } else {
                ids.retain(|id| *id != old);
            }
            if ids.is_empty() {
                self.by_context.remove(&entry.task.context_id);
            }
        }
    }
}

pub(crate) struct Store {
    inner: Mutex<Inner>,
    channel_capacity: usize,
    limit: usize,
    counting: Counting,
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
            counting: Counting::ByOne,
        }
    }

    /// The same store, its generations advancing as `counting` says.
    pub(crate) fn counting(self, counting: Counting) -> Store {
        Store { counting, ..self }
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
            inner.evict_oldest();
        }
        let (tx, _) = broadcast::channel(self.channel_capacity);
        let (generation_tx, _) = watch::channel(task.generation);
        let id = task.id.clone();
        if !inner.tasks.contains_key(&id) {
            inner.order.push_back(id.clone());
            inner
                .by_context
                .entry(task.context_id.clone())
                .or_default()
                .push_back(id.clone());
        }
        let entry = inner.tasks.entry(id).or_insert(Entry {
            task,
            tx,
            run: 0,
            worker: None,
            leaking: false,
            counting: self.counting,
            after_artifact: false,
            generation_tx,
        });
        f(entry)
    }

    /// Runs `f` on a task's entry under the lock; `None` if there is no such task.
    pub(crate) fn with<R>(&self, id: &str, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
        let mut inner = self.lock();
        inner.tasks.get_mut(id).map(f)
    }

    /// A copy of every task, oldest first.
    pub(crate) fn snapshot_all(&self) -> Vec<Task> {
        self.snapshot_matching(None, |_| true)
    }

    /// A copy of the tasks of `context` (every task when `None`) that `keep`
    /// accepts, oldest first: filtered under the lock, so only what is
    /// listed is cloned.
    pub(crate) fn snapshot_matching(
        &self,
        context: Option<&str>,
        keep: impl Fn(&Task) -> bool,
    ) -> Vec<Task> {
        let inner = self.lock();
        let ids: Box<dyn Iterator<Item = &String>> = match context {
            None => Box::new(inner.order.iter()),
            Some(context) => Box::new(inner.by_context.get(context).into_iter().flatten()),
        };
        ids.filter_map(|id| inner.tasks.get(id))
            .filter(|e| keep(&e.task))
            .map(|e| e.task.clone())
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
            generation: 1,
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
        // The context index forgets the evicted ones too.
        let listed: Vec<String> = store
            .snapshot_matching(Some("c"), |_| true)
            .into_iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(listed, ["c", "d", "e"]);
    }

    #[test]
    fn a_context_lists_only_its_own_tasks_oldest_first() {
        let store = Store::with_limit(16, 100);
        for (id, context) in [("a", "x"), ("b", "y"), ("c", "x"), ("d", "y"), ("e", "x")] {
            let mut t = task(id);
            t.context_id = context.into();
            store.insert(t, |_| ());
        }
        let ids = |context, keep: fn(&Task) -> bool| -> Vec<String> {
            store
                .snapshot_matching(context, keep)
                .into_iter()
                .map(|t| t.id)
                .collect()
        };
        assert_eq!(ids(Some("x"), |_| true), ["a", "c", "e"]);
        assert_eq!(ids(Some("y"), |t| t.id != "b"), ["d"]);
        assert!(ids(Some("z"), |_| true).is_empty());
        assert_eq!(ids(None, |_| true), ["a", "b", "c", "d", "e"]);
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

    fn chunk(task: &Task) -> Event {
        Event::Artifact {
            task_id: task.id.clone(),
            context_id: task.context_id.clone(),
            artifact: crate::model::Artifact {
                artifact_id: "a".into(),
                name: "result".into(),
                parts: Vec::new(),
            },
            append: false,
            last_chunk: false,
        }
    }

    /// Emits working, two artifact updates and completed on a fresh task
    /// counted as `counting`; answers each event's generation and the
    /// task's at the end.
    fn generations_of(counting: Counting) -> (Vec<u64>, u64) {
        let store = Store::new(16).counting(counting);
        let mut feed = store.insert(task("t"), |e| e.feed());
        store.with("t", |e| {
            e.set_status(Status::now(TaskState::Working, None), false);
            for _ in 0..2 {
                let event = chunk(&e.task);
                e.emit(event, false);
            }
            e.set_status(Status::now(TaskState::Completed, None), true);
        });
        let mut seen = Vec::new();
        while let Ok(b) = feed.try_recv() {
            seen.push(b.generation);
        }
        let last = store.with("t", |e| e.task.generation).expect("kept");
        (seen, last)
    }

    #[test]
    fn every_event_advances_the_generation_by_exactly_one() {
        let (seen, last) = generations_of(Counting::ByOne);
        assert_eq!(seen, [2, 3, 4, 5], "created at 1, then one per event");
        assert_eq!(last, 5, "the task ends at its last event's generation");
    }

    #[test]
    fn skipping_counts_artifacts_twice_and_repeating_reuses_one() {
        let (seen, last) = generations_of(Counting::ArtifactsByTwo);
        assert_eq!(seen, [2, 4, 6, 7]);
        assert_eq!(last, 7);
        let (seen, last) = generations_of(Counting::RepeatAfterArtifact);
        assert_eq!(seen, [2, 3, 4, 4], "completed repeats the last artifact's");
        assert_eq!(last, 4);
    }

    #[test]
    fn a_silent_change_advances_the_generation_and_wakes_its_watchers() {
        let store = Store::new(16);
        let mut watcher = store.insert(task("t"), |e| e.generations());
        assert_eq!(*watcher.borrow_and_update(), 1);
        store.with("t", |e| e.changed_silently());
        assert!(watcher.has_changed().unwrap_or(false));
        assert_eq!(*watcher.borrow_and_update(), 2);
        assert_eq!(store.with("t", |e| e.task.generation), Some(2));
    }
}
