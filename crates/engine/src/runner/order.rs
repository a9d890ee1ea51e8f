//! The order runs start in: the longest expected first, so that with
//! `--jobs` slots a long run that comes late in plan order does not start
//! after the short ones and leave the check waiting on it alone. A run's
//! expected length is read from the plan (its steps' windows, with the
//! run's variables, and a nominal length per task it waits for; a quiet
//! window is not counted, as the stream of a task that ended closes and
//! ends the watch); reports
//! stay in plan order whatever the start order (`schedule::in_plan_order`).

use super::options::{MAX_DEFAULT_JOBS, MIN_DEFAULT_JOBS};
use super::plan::Planned;
use crate::steps::estimate::{Estimate, NOMINAL_TASK};
use std::time::Duration;

/// How long a planned run is expected to take: nothing for a run that
/// will not run; else its steps' expected lengths, and one task more when
/// it waits on the precondition search.
pub(crate) fn expected(planned: &Planned<'_>) -> Duration {
    if planned.not_run.is_some() {
        return Duration::ZERO;
    }
    let estimate = Estimate::new(&planned.vars);
    let steps: Duration = planned
        .scenario
        .def
        .steps
        .iter()
        .map(|step| step.value.expected(&estimate))
        .sum();
    let search = if planned.search_input {
        NOMINAL_TASK
    } else {
        Duration::ZERO
    };
    steps + search
}

/// The plan positions in the order to start them: longest expected first,
/// equal ones in plan order.
pub(crate) fn start_order(expected: &[Duration]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..expected.len()).collect();
    // A stable sort: ties keep plan order.
    order.sort_by(|a, b| expected[*b].cmp(&expected[*a]));
    order
}

/// The runs in flight when `--jobs` is not given: the fewest slots, within
/// [`MIN_DEFAULT_JOBS`]..=[`MAX_DEFAULT_JOBS`], on which every run, started
/// longest first as the schedule starts them, either starts at once or ends
/// at least half a nominal task before the longest run does; the cap when
/// no count in the range does. Never fewer than the old fixed default, and
/// never so many that a long plan floods one peer.
///
/// Why a margin and a simulation, not a sum: the lengths are estimates (a
/// nominal second per task), and runs cannot be split. Sized by volume
/// alone (1 + ⌈(Σ − longest) ÷ longest⌉), one-second runs queued behind
/// two-second ones and ended exactly as the longest run ended — on paper;
/// against the mock they ended 0.6 s after it (1.25× its length).
pub(crate) fn default_jobs(expected: &[Duration]) -> usize {
    let longest = expected.iter().max().copied().unwrap_or_default();
    if longest.is_zero() {
        return MIN_DEFAULT_JOBS;
    }
    let deadline = longest.saturating_sub(NOMINAL_TASK / 2);
    let mut lengths = expected.to_vec();
    lengths.sort_unstable_by(|a, b| b.cmp(a));
    (MIN_DEFAULT_JOBS..=MAX_DEFAULT_JOBS)
        .find(|&jobs| queued_runs_end_by(&lengths, jobs, deadline))
        .unwrap_or(MAX_DEFAULT_JOBS)
}

/// Whether, on `jobs` slots, each of `lengths` (longest first), started as
/// soon as a slot frees, either starts at once or ends by `deadline`.
fn queued_runs_end_by(lengths: &[Duration], jobs: usize, deadline: Duration) -> bool {
    let mut free_at = vec![Duration::ZERO; jobs.max(1)];
    lengths.iter().all(|&length| {
        let Some(slot) = free_at.iter_mut().min() else {
            return false;
        };
        let starts = *slot;
        *slot += length;
        starts.is_zero() || *slot <= deadline
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::options::RunOptions;
    use crate::runner::plan::plan_runs;
    use crate::scenario::Suite;
    use a2a_conform_protocol::card::{self, BindingChoice, ProtocolChoice};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_longest_start_first_and_ties_keep_plan_order() {
        let expected = [ms(0), ms(1000), ms(2000), ms(1000), ms(3000), ms(0)];
        assert_eq!(start_order(&expected), vec![4, 2, 1, 3, 0, 5]);
        assert_eq!(start_order(&[]), Vec::<usize>::new());
    }

    #[test]
    fn the_default_jobs_leave_no_queued_run_ending_with_the_longest() {
        // The default suite's estimates against the mock: five runs of 3 s,
        // four of 2 s, nine of 1 s, ten that wait for nothing.
        let mut suite = vec![ms(3000); 5];
        suite.extend([ms(2000); 4]);
        suite.extend([ms(1000); 9]);
        suite.extend([Duration::ZERO; 10]);
        // By volume 1 + ⌈23 ÷ 3⌉ = 9 would do; but on 13 slots the ninth
        // 1 s run starts at 2 s and ends as the longest does (3 s). On 14,
        // the four queued 1 s runs start at 1 s and end at 2 s.
        assert_eq!(default_jobs(&suite), 14);
        // Everything starts at once: the floor.
        assert_eq!(default_jobs(&[ms(1000); 4]), MIN_DEFAULT_JOBS);
        assert_eq!(default_jobs(&[ms(1000); 13]), 13);
        assert_eq!(default_jobs(&[ms(1000); 14]), 14);
        // Short runs queue behind short runs well before a long one ends.
        let mut long_and_short = vec![ms(4000)];
        long_and_short.extend([ms(1000); 20]);
        assert_eq!(default_jobs(&long_and_short), 8);
        // No count in range fits: capped.
        assert_eq!(default_jobs(&[ms(1000); 100]), MAX_DEFAULT_JOBS);
        // Nothing to run, or nothing that takes time: the floor.
        assert_eq!(default_jobs(&[]), MIN_DEFAULT_JOBS);
        assert_eq!(default_jobs(&[Duration::ZERO; 3]), MIN_DEFAULT_JOBS);
    }

    #[test]
    fn a_run_is_expected_to_take_its_tasks_and_windows() {
        let body = r#"{"name":"n","description":"d","version":"1",
            "supportedInterfaces":[{"url":"http://127.0.0.1:9/rpc","protocolBinding":"JSONRPC","protocolVersion":"1.0"}],
            "capabilities":{"streaming":true},"defaultInputModes":["text/plain"],
            "defaultOutputModes":["text/plain"],"skills":[]}"#;
        let url = url::Url::parse("http://127.0.0.1:9/.well-known/agent-card.json").unwrap();
        let card = card::parse_card(
            &url,
            body.as_bytes(),
            ProtocolChoice::Auto,
            BindingChoice::Auto,
        )
        .expect("test card parses");
        let suite = Suite::embedded().expect("the default suite loads");
        let options = RunOptions {
            vars: [("stable_interval".to_string(), "250ms".to_string())].into(),
            ..RunOptions::default()
        };
        let plan = plan_runs(&card, &suite, &options);
        let of = |id: &str| {
            let planned = plan.iter().find(|p| p.run_id == id).expect(id);
            expected(planned)
        };
        // A blocking send, then 2 reads 250ms apart (the variable, as set).
        assert_eq!(of("completion-stability"), NOMINAL_TASK + ms(250));
        // A stream to its end, then the same poll: the quiet window ends
        // when the stream of the ended task closes, so it is not counted.
        assert_eq!(of("completion-stream-quiet"), NOMINAL_TASK + ms(250));
        // Two blocking sends.
        assert_eq!(of("list-tasks-page-size"), NOMINAL_TASK * 2);
        // Gated off (the card declares streaming): it takes no time.
        assert_eq!(of("streaming-refused-when-undeclared"), Duration::ZERO);
        // The search for a prompt, the send, the resume.
        assert_eq!(of("input-mode-resume[text/plain]"), NOMINAL_TASK * 3);
        let lengths: Vec<Duration> = plan.iter().map(expected).collect();
        let order = start_order(&lengths);
        assert_eq!(plan[order[0]].run_id, "input-mode-resume[text/plain]");
        assert!(order
            .windows(2)
            .all(|w| lengths[w[0]] > lengths[w[1]]
                || (lengths[w[0]] == lengths[w[1]] && w[0] < w[1])));
    }
}
