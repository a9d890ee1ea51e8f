//! The step primitives scenarios are composed of, one file each: the step's
//! struct (what a suite may write under its name, typed as it loads), its
//! load-time `Primitive::check` (the captures it reads and makes, its
//! `${…}` texts) and its `Primitive::run` against the peer. A step passes
//! or stops the run with a `Stop` (fail, inconclusive, error); a failed
//! check is a result, never an `Err`.
//!
//! Shared helpers stay in shared modules: calls and streams turned into
//! captures (`runner::calls`), the run's state (`runner::context`), the
//! condition keys of `expect` and `inconclusive_if` ([`condition`]).
//!
//! Adding a primitive: a file here with its struct and `impl Primitive`,
//! its `mod` line, and its line in the table below (the variant names the
//! YAML key: `ExpectQuiet` is `expect_quiet`).

mod call_task;
mod cancel;
mod compare_bindings;
mod condition;
pub(crate) mod estimate;
mod expect;
mod expect_closed;
mod expect_count;
mod expect_event;
mod expect_extended_card;
mod expect_listed;
mod expect_output_modes;
mod expect_quiet;
mod expect_resumed;
mod expect_webhook;
mod generation;
mod get;
mod get_extended_card;
mod inconclusive_if;
mod list_tasks;
mod poll_until_stable;
mod primitive;
mod resume;
mod send;
mod send_in_task;
mod set_push_config;
mod sleep;
mod stream;
mod subscribe;
mod verify_signature;

use crate::runner::context::{RunContext, StepResult};
use crate::scenario::check::{Checked, StepCheck};
use crate::steps::estimate::Estimate;
use primitive::Primitive;
use serde::Deserialize;
use std::time::Duration;

pub(crate) use cancel::CancelStep;
pub(crate) use poll_until_stable::settle_answer;
pub(crate) use send::SendStep;
pub(crate) use stream::StreamStep;

/// The table of primitives: the `Step` enum (its YAML key is the variant
/// in snake case, spelled once by serde and by strum alike, in this order
/// in load errors) and its dispatch to each primitive.
macro_rules! primitives {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty), )*) => {
        /// A step primitive, as a suite names it.
        #[derive(Debug, Deserialize, strum::IntoStaticStr, strum::VariantNames)]
        #[serde(rename_all = "snake_case", deny_unknown_fields)]
        #[strum(serialize_all = "snake_case")]
        pub(crate) enum Step {
            $( $(#[$doc])* $variant($ty), )*
        }

        impl Step {
            /// The step's name as written in YAML.
            pub(crate) fn name(&self) -> &'static str {
                self.into()
            }

            /// The step's load-time check (`Primitive::check`).
            pub(crate) fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
                match self {
                    $( Step::$variant(step) => step.check(ck), )*
                }
            }

            /// The step's expected length (`Primitive::expected`).
            pub(crate) fn expected(&self, estimate: &Estimate<'_>) -> Duration {
                match self {
                    $( Step::$variant(step) => step.expected(estimate), )*
                }
            }

            /// Runs the step (`Primitive::run`). Each step's future is
            /// boxed at its own size: inline, every run in flight would
            /// hold the largest step's state whatever step it is at, and a
            /// fleet holds thousands of runs (docs/performance.md, round 5).
            pub(crate) async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
                match self {
                    $( Step::$variant(step) => Box::pin(step.run(ctx)).await, )*
                }
            }
        }
    };
}

primitives! {
    /// Send a message and wait for the answer (blocking unless told otherwise).
    Send(send::SendStep),
    /// Send a message on a stream; the stream is read in the background.
    Stream(stream::StreamStep),
    /// A follow-up message on a captured task, with a part of a media type.
    Resume(resume::ResumeStep),
    /// Cancel a captured task.
    Cancel(cancel::CancelStep),
    /// Read a captured task once.
    Get(get::GetStep),
    /// Subscribe to a captured task's events.
    Subscribe(subscribe::SubscribeStep),
    /// Wait for an event of a kind/state on a stream, within a window.
    ExpectEvent(expect_event::ExpectEventStep),
    /// No event of the kinds may arrive on a stream for a duration.
    ExpectQuiet(expect_quiet::ExpectQuietStep),
    /// The stream must end properly within a window.
    ExpectClosed(expect_closed::ExpectClosedStep),
    /// Read a task until N consecutive reads agree on state and artifacts.
    PollUntilStable(poll_until_stable::PollStep),
    /// A captured answer must match; otherwise the scenario fails.
    Expect(expect::ExpectStep),
    /// A captured answer matching makes the scenario inconclusive (precondition not met).
    InconclusiveIf(inconclusive_if::InconclusiveStep),
    /// Wait a duration.
    Sleep(sleep::SleepStep),
    /// Register the run's webhook receiver for a captured task's push notifications.
    SetPushConfig(set_push_config::SetPushConfigStep),
    /// Wait for a push notification on the run's webhook receiver, within a window.
    ExpectWebhook(expect_webhook::ExpectWebhookStep),
    /// GetTask or CancelTask on a captured task or on an id of the scenario's.
    CallTask(call_task::CallTaskStep),
    /// One ListTasks call (v1.0).
    ListTasks(list_tasks::ListTasksStep),
    /// A message to a captured task with another `contextId`.
    SendInTask(send_in_task::SendInTaskStep),
    /// A count in a capture (history messages, listed tasks) within bounds.
    ExpectCount(expect_count::ExpectCountStep),
    /// A ListTasks capture lists a captured task.
    ExpectListed(expect_listed::ExpectListedStep),
    /// The card signature at a position verifies against the card as served.
    VerifySignature(verify_signature::VerifySignatureStep),
    /// Ask for the extended agent card (GetExtendedAgentCard).
    GetExtendedCard(get_extended_card::GetExtendedCardStep),
    /// A captured extended card must be a valid card listing every skill of
    /// the public one.
    ExpectExtendedCard(expect_extended_card::ExpectExtendedCardStep),
    /// A captured send answer's artifacts must be of the accepted output
    /// mode (or the send refused with -32005), and of types the card declares.
    ExpectOutputModes(expect_output_modes::ExpectOutputModesStep),
    /// A resume in a declared input mode must take the part; a failed task
    /// diverges only when a text resume of another task does not fail too.
    ExpectResumed(expect_resumed::ExpectResumedStep),
    /// The run's interface and the reference one answer alike: unknown-task
    /// GetTask and CancelTask by error code, a blocking message by state and
    /// content (`for_each: interface_pairs`).
    CompareBindings(compare_bindings::CompareBindingsStep),
    /// 1.1 draft: a task's events carry its generation, one more per event.
    ExpectGenerations(generation::ExpectGenerationsStep),
    /// 1.1 draft: GetTask with a `currentGeneration` the task passed answers at once.
    ExpectLongPoll(generation::ExpectLongPollStep),
    /// 1.1 draft: a mismatched `ifGenerationMatch` is refused with -32010.
    ExpectGenerationMatch(generation::ExpectGenerationMatchStep),
}

#[cfg(test)]
mod tests {
    use super::Step;

    /// serde and strum spell the keys by the same rule: the names a load
    /// error lists (serde's) are the names messages use (strum's).
    #[test]
    fn every_step_is_named_as_serde_reads_it() {
        let names = <Step as strum::VariantNames>::VARIANTS;
        let error = serde_saphyr::from_str::<Step>("no_such_step: {}")
            .expect_err("no such step")
            .to_string();
        let listed = format!("expected one of {}", names.join(", "));
        assert!(error.contains(&listed), "{error}\nvs {listed}");
        for name in names {
            let error = serde_saphyr::from_str::<Step>(&format!("{name}: {{ no_such_key: 1 }}"))
                .map(|step| step.name().to_string())
                .unwrap_or_else(|e| e.to_string());
            assert!(!error.contains("unknown variant"), "{name}: {error}");
        }
    }
}
