//! The events of one stream as steps read them, in memory that does not grow
//! with a steady stream's length.
//!
//! Every event stays readable, in order, with its sequence number, arrival
//! time and content, but none is stored on its own: equal consecutive
//! events share one stored [`Event`] (an artifact update keeps no content:
//! no step reads it from a stream), and the events of one read from the
//! socket share one arrival time. A stream of a million artifact updates
//! of one task costs one stored event and one time per socket read; only a
//! stream whose every event differs costs one stored event per event, and
//! the events cap (`--max-stream-events`) bounds that.

use a2a_conform_protocol::Event;
use std::time::Instant;

/// One event of a stream, borrowed from its [`StreamLog`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamItem<'a> {
    /// When the read that carried it arrived.
    pub at: Instant,
    /// 1-based position among the stream's protocol events.
    pub seq: usize,
    /// The event, as read.
    pub event: &'a Event,
}

/// A stream's events so far; see the module docs.
#[derive(Debug, Clone, Default)]
pub struct StreamLog {
    len: usize,
    /// Each run of equal events: the index of its first event, and it.
    shapes: Vec<(usize, Event)>,
    /// Each run of events that arrived at one instant: its first index, and when.
    times: Vec<(usize, Instant)>,
}

impl StreamLog {
    /// Appends an event; returns its sequence number.
    pub(crate) fn push(&mut self, at: Instant, event: Event) -> usize {
        let index = self.len;
        if self.times.last().is_none_or(|&(_, last)| last != at) {
            self.times.push((index, at));
        }
        if self.shapes.last().is_none_or(|(_, last)| *last != event) {
            self.shapes.push((index, event));
        }
        self.len += 1;
        self.len
    }

    /// The events of a finished list, in order (for tests and callers that
    /// already hold them).
    pub fn from_events(events: impl IntoIterator<Item = (Instant, Event)>) -> StreamLog {
        let mut log = StreamLog::default();
        for (at, event) in events {
            log.push(at, event);
        }
        log
    }

    /// How many protocol events the stream carried so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no protocol event arrived yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first event, if any.
    pub fn first(&self) -> Option<StreamItem<'_>> {
        self.iter().next()
    }

    /// Every event, in order.
    pub fn iter(&self) -> Iter<'_> {
        self.iter_after(0)
    }

    /// The events after sequence number `seq` (all of them for 0), in order.
    pub fn iter_after(&self, seq: usize) -> Iter<'_> {
        let index = seq.min(self.len);
        Iter {
            log: self,
            index,
            shape: run_of(&self.shapes, index),
            time: run_of(&self.times, index),
        }
    }
}

/// Which run (by its first index) holds `index`.
fn run_of<T>(runs: &[(usize, T)], index: usize) -> usize {
    runs.partition_point(|(first, _)| *first <= index)
        .saturating_sub(1)
}

/// The events of a [`StreamLog`] in order.
pub struct Iter<'a> {
    log: &'a StreamLog,
    index: usize,
    shape: usize,
    time: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = StreamItem<'a>;

    fn next(&mut self) -> Option<StreamItem<'a>> {
        let log = self.log;
        if self.index >= log.len {
            return None;
        }
        while log
            .shapes
            .get(self.shape + 1)
            .is_some_and(|(first, _)| *first <= self.index)
        {
            self.shape += 1;
        }
        while log
            .times
            .get(self.time + 1)
            .is_some_and(|(first, _)| *first <= self.index)
        {
            self.time += 1;
        }
        self.index += 1;
        Some(StreamItem {
            at: log.times[self.time].1,
            seq: self.index,
            event: &log.shapes[self.shape].1,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.log.len - self.index;
        (left, Some(left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::TaskState;
    use std::time::Duration;

    fn update(artifact_id: &str) -> Event {
        Event::ArtifactUpdate {
            task_id: Some("t".into()),
            artifact_id: Some(artifact_id.into()),
            append: true,
            last_chunk: false,
            generation: None,
        }
    }

    fn status(state: TaskState) -> Event {
        Event::StatusUpdate {
            task_id: Some("t".into()),
            state: Some(state),
            final_flag: None,
            generation: None,
        }
    }

    #[test]
    fn every_event_reads_back_in_order_with_its_time() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let mut log = StreamLog::default();
        let events = [
            (at(0), status(TaskState::Working)),
            (at(0), update("1")),
            (at(5), update("2")),
            (at(5), update("3")),
            (at(5), status(TaskState::Working)),
            (at(9), status(TaskState::Completed)),
        ];
        for (n, (when, event)) in events.iter().enumerate() {
            assert_eq!(log.push(*when, event.clone()), n + 1);
        }
        assert_eq!(log.len(), 6);
        let read: Vec<_> = log.iter().map(|i| (i.seq, i.at, i.event.kind())).collect();
        assert_eq!(
            read,
            vec![
                (1, at(0), "status-update"),
                (2, at(0), "artifact-update"),
                (3, at(5), "artifact-update"),
                (4, at(5), "artifact-update"),
                (5, at(5), "status-update"),
                (6, at(9), "status-update"),
            ]
        );
        let after: Vec<_> = log.iter_after(3).map(|i| (i.seq, i.at)).collect();
        assert_eq!(after, vec![(4, at(5)), (5, at(5)), (6, at(9))]);
        assert_eq!(log.iter_after(6).count(), 0);
        assert_eq!(log.iter_after(60).count(), 0);
        assert_eq!(log.first().map(|i| i.seq), Some(1));
        assert_eq!(
            log.iter_after(5).next().unwrap().event.state(),
            Some(TaskState::Completed)
        );
    }

    #[test]
    fn a_steady_stream_stores_one_event_and_one_time_per_read() {
        let t0 = Instant::now();
        let mut log = StreamLog::default();
        for n in 0..100_000u64 {
            // 64 events per socket read, all updates of one artifact.
            let at = t0 + Duration::from_millis(n / 64);
            log.push(at, update("a"));
        }
        assert_eq!(log.len(), 100_000);
        assert_eq!(log.shapes.len(), 1);
        assert_eq!(log.times.len(), 100_000_usize.div_ceil(64));
        // Events that differ in what a step reads are stored each.
        log.push(t0, status(TaskState::Completed));
        log.push(t0, update("x"));
        assert_eq!(log.shapes.len(), 3);
        assert_eq!(log.iter().count(), 100_002);
    }
}
