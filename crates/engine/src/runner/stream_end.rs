//! Whether a stream the peer closed ended the way its protocol version
//! requires: the rule behind `expect_closed`, kept pure so every shape a real
//! peer sends can be tested without a server.
//!
//! - **v1.0** (v1 §3.1.2, MUST): exactly one Message, or a Task first and the
//!   stream closing at a terminal state; v1 §11.7 also closes at an
//!   interrupted state (input-required, auth-required).
//! - **v0.3**: the end of an interaction is signalled with `final: true` on a
//!   status update; the 0.3 proto says the first event *should* be the Task
//!   and the stream *should* complete at an interrupted or terminal state.
//!   None of this is a MUST, so a stream that opens with an update, or that
//!   the peer closes right after an interrupted or terminal state without
//!   `final: true`, ends properly; each such tolerance comes back as a note
//!   for the evidence. A v0.3 stream closed mid-task without `final: true` is
//!   still cut short.

use a2a_conform_client::stream::describe;
use a2a_conform_client::{StreamEnd, StreamLog};
use a2a_conform_protocol::{Event, ProtocolVersion};

/// Why a stream did not end properly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Improper {
    /// Valid A2A events that break the version's rule: a finding.
    Broken(String),
    /// The stream was not a valid A2A stream (it failed, was cut, or carried
    /// events that are not A2A events): a peer malfunction, or the tool's cap.
    Malformed(String),
}

#[cfg(test)]
impl Improper {
    /// The reason, whichever kind (the tests read it).
    pub(crate) fn reason(&self) -> &str {
        match self {
            Improper::Broken(r) | Improper::Malformed(r) => r,
        }
    }
}

/// Judges a stream that has ended. `Ok` carries notes on what was tolerated;
/// `Err` says why the stream did not end properly.
pub(crate) fn judge(
    version: ProtocolVersion,
    items: &StreamLog,
    end: &StreamEnd,
) -> Result<Vec<String>, Improper> {
    if let StreamEnd::Failed { reason, .. }
    | StreamEnd::Reset { reason, .. }
    | StreamEnd::Cut { reason, .. } = end
    {
        return Err(Improper::Malformed(format!(
            "the stream did not end properly: {reason}"
        )));
    }
    if let Some(bad) = items
        .iter()
        .find(|i| matches!(i.event, Event::Unrecognized { .. }))
    {
        return Err(Improper::Malformed(format!(
            "event #{} is not a valid A2A stream event: {}",
            bad.seq,
            describe(bad.event)
        )));
    }
    let Some(first) = items.first() else {
        return Err(Improper::Broken(
            "the stream closed without any event".to_string(),
        ));
    };
    let mut notes = Vec::new();
    match (first.event, version) {
        (Event::Message { .. }, _) => return Ok(notes),
        (Event::Task(_), _) => {}
        (other, ProtocolVersion::V1_0) => {
            return Err(Improper::Broken(format!(
                "the stream's first event was {}, not a Task or Message (v1.0 streams MUST begin with one)",
                describe(other)
            )))
        }
        (other, ProtocolVersion::V0_3) => notes.push(format!(
            "tolerated: the v0.3 stream began with {}, not the Task (the 0.3 proto says it should, not must)",
            describe(other)
        )),
    }
    let last_state = items.iter().filter_map(|i| i.event.state()).last();
    let settled = last_state.is_some_and(|s| s.is_terminal() || s.is_interrupted());
    let last = last_state
        .map(|s| s.as_str())
        .unwrap_or("in no known state");
    match version {
        ProtocolVersion::V1_0 if !settled => Err(Improper::Broken(format!(
            "the stream closed while the task was {last}, not at a terminal or interrupted state"
        ))),
        ProtocolVersion::V1_0 => Ok(notes),
        ProtocolVersion::V0_3 if items.iter().any(|i| i.event.is_final()) => Ok(notes),
        ProtocolVersion::V0_3 if settled => {
            notes.push(format!(
                "tolerated: the v0.3 stream closed at {last} without an event marked final: true"
            ));
            Ok(notes)
        }
        ProtocolVersion::V0_3 => Err(Improper::Broken(format!(
            "the v0.3 stream closed without an event marked final: true while the task was {last}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_conform_protocol::{TaskState, TaskView};
    use std::time::Instant;

    fn task(state: TaskState) -> Event {
        Event::Task(TaskView {
            id: Some("t".into()),
            context_id: Some("c".into()),
            state: Some(state),
            artifacts: vec![],
            generation: None,
        })
    }

    fn status(state: TaskState, final_flag: Option<bool>) -> Event {
        Event::StatusUpdate {
            task_id: Some("t".into()),
            state: Some(state),
            final_flag,
            generation: None,
        }
    }

    fn artifact() -> Event {
        Event::ArtifactUpdate {
            task_id: Some("t".into()),
            artifact_id: Some("a".into()),
            append: false,
            last_chunk: false,
            generation: None,
        }
    }

    fn items(events: Vec<Event>) -> StreamLog {
        let at = Instant::now();
        StreamLog::from_events(events.into_iter().map(|event| (at, event)))
    }

    fn closed() -> StreamEnd {
        StreamEnd::Closed { at: Instant::now() }
    }

    use ProtocolVersion::{V0_3, V1_0};
    use TaskState::{Canceled, Completed, InputRequired, Submitted, Working};

    #[test]
    fn v1_task_then_updates_closing_at_terminal_or_interrupted_state() {
        for last in [Completed, Canceled, InputRequired] {
            let s = items(vec![
                task(Submitted),
                status(Working, None),
                status(last, None),
            ]);
            assert_eq!(judge(V1_0, &s, &closed()), Ok(vec![]), "{last}");
        }
        let s = items(vec![task(Submitted), status(Working, None), artifact()]);
        let e = judge(V1_0, &s, &closed()).unwrap_err();
        let e = e.reason();
        assert!(e.contains("while the task was working"), "{e}");
    }

    #[test]
    fn v1_stream_must_begin_with_the_task() {
        // A follow-up stream that opens with a status update (seen from an
        // official SDK when the executor does not publish the Task again).
        let s = items(vec![status(Working, None), status(Completed, None)]);
        let e = judge(V1_0, &s, &closed()).unwrap_err();
        let e = e.reason();
        assert!(e.contains("first event was status-update"), "{e}");
        assert!(e.contains("MUST"), "{e}");
        let message = items(vec![Event::Message { task_id: None }]);
        assert_eq!(judge(V1_0, &message, &closed()), Ok(vec![]));
    }

    #[test]
    fn v0_3_final_true_ends_the_stream() {
        let s = items(vec![
            task(Submitted),
            status(Working, Some(false)),
            artifact(),
            status(Completed, Some(true)),
        ]);
        assert_eq!(judge(V0_3, &s, &closed()), Ok(vec![]));
    }

    #[test]
    fn v0_3_close_at_input_required_without_final_is_tolerated_with_a_note() {
        // The official SDKs' v0.3 layers derive `final` from terminal states
        // only: input-required goes out with final: false, then the stream closes.
        let s = items(vec![
            task(Submitted),
            status(Working, Some(false)),
            status(InputRequired, Some(false)),
        ]);
        let notes = judge(V0_3, &s, &closed()).unwrap();
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("closed at input-required"), "{notes:?}");
    }

    #[test]
    fn v0_3_close_mid_task_without_final_fails() {
        let s = items(vec![
            task(Submitted),
            status(Working, Some(false)),
            artifact(),
        ]);
        let e = judge(V0_3, &s, &closed()).unwrap_err();
        let e = e.reason();
        assert!(e.contains("without an event marked final: true"), "{e}");
        assert!(e.contains("working"), "{e}");
    }

    #[test]
    fn v0_3_update_first_is_tolerated_with_a_note() {
        let s = items(vec![
            status(Working, Some(false)),
            status(Completed, Some(true)),
        ]);
        let notes = judge(V0_3, &s, &closed()).unwrap();
        assert!(notes[0].contains("began with status-update"), "{notes:?}");
    }

    #[test]
    fn broken_empty_or_unrecognized_streams_fail_in_both_versions() {
        for version in [V1_0, V0_3] {
            let cut = StreamEnd::Cut {
                at: Instant::now(),
                reason: "too long".into(),
            };
            let s = items(vec![task(Submitted)]);
            let e = judge(version, &s, &cut).unwrap_err();
            assert!(
                matches!(&e, Improper::Malformed(r) if r.contains("too long")),
                "{e:?}"
            );
            let e = judge(version, &StreamLog::default(), &closed()).unwrap_err();
            assert!(
                matches!(&e, Improper::Broken(r) if r.contains("without any event")),
                "{e:?}"
            );
            let junk = items(vec![
                task(Submitted),
                Event::Unrecognized {
                    reason: "not JSON".into(),
                },
                status(Completed, Some(true)),
            ]);
            let e = judge(version, &junk, &closed()).unwrap_err();
            assert!(
                matches!(&e, Improper::Malformed(r) if r.contains("event #2 is not a valid A2A stream event")),
                "{e:?}"
            );
        }
    }
}
