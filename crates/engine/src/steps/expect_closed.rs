//! `expect_closed`: a captured stream must end properly within a window —
//! v1.0: closed at a terminal or interrupted state; v0.3: `final: true`
//! (judged by `runner::stream_end`). A stream still open fails; one cut at a
//! cap or broken is an error.

use super::primitive::Primitive;
use crate::runner::calls::malformed_end;
use crate::runner::context::{RunContext, StepResult, Stop};
use crate::runner::stream_end::{self, Improper};
use crate::scenario::check::{Checked, StepCheck};
use crate::scenario::template::Template;
use crate::scenario::vars::DurationValue;
use a2a_conform_protocol::text::human_duration;
use serde::Deserialize;
use std::time::Instant;

/// `expect_closed`: the stream ends properly within a window.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectClosedStep {
    /// The captured stream to watch.
    stream: String,
    /// How long to wait for the end.
    within: DurationValue,
    #[serde(default)]
    fail: Option<Template>,
}

impl Primitive for ExpectClosedStep {
    fn check(&self, ck: &mut StepCheck<'_>) -> Checked {
        ck.reads_stream(&self.stream)?;
        ck.texts(self.within.template().into_iter().chain(&self.fail))
    }

    async fn run(&self, ctx: &mut RunContext<'_>) -> StepResult {
        let within = ctx.duration(&self.within)?;
        let version = ctx.version();
        let stream = ctx.stream_of(&self.stream)?;
        stream
            .wait_until(Instant::now() + within, |_, end| end.is_some())
            .await;
        let (items, end) = stream.snapshot();
        let lead = match &self.fail {
            Some(text) => format!("{}: ", ctx.text(text)?),
            None => String::new(),
        };
        let Some(end) = end else {
            return Err(Stop::fail(format!(
                "{lead}the stream was still open {} later ({} events so far)",
                human_duration(within),
                items.len()
            )));
        };
        if let Some(stop) = malformed_end(&end) {
            return Err(stop);
        }
        match stream_end::judge(version, &items, &end) {
            Ok(notes) => {
                for note in notes {
                    ctx.transcript.note(note);
                }
                Ok(())
            }
            Err(Improper::Malformed(reason)) => Err(Stop::malfunction_in(reason)),
            Err(Improper::Broken(reason)) => Err(Stop::fail(format!("{lead}{reason}"))),
        }
    }
}
