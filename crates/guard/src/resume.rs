//! `resume`: a follow-up message on an interrupted task, checked against
//! the modes this runtime was seen to accept rather than the card's
//! `defaultInputModes`. A part of a mode the peer refused before is not
//! sent: the caller's fallback part goes instead. A refusal — `-32602`
//! (invalid params) or `-32005` (content type not supported) for a mode
//! the card declares, or the task failing on the follow-up — demotes that
//! mode (`defaultInputModes[<type>]`); when the task is still waiting, the
//! fallback is sent at once. A refused mode the card never declares is no
//! divergence: nothing is demoted, and without a fallback the caller gets
//! [`GuardError::UndeclaredMode`].

use crate::cache::Trust;
use crate::error::{ContractViolation, GuardError};
use crate::guard::Guard;
use a2a_conform_client::{Record, Transcript};
use a2a_conform_protocol::{
    codes, DeclarationId, MessagePart, Operation, SendResult, TaskState, TaskView,
};

/// Which parts a resume sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartsSent {
    /// The caller's parts.
    Primary,
    /// The fallback: the primary's mode was refused (before, or just now).
    Fallback,
}

/// A follow-up the peer took.
#[derive(Debug, Clone, PartialEq)]
pub struct Resumed {
    /// The task.
    pub task_id: String,
    /// The task as the send answered it (follow it with
    /// [`Guard::await_terminal`]).
    pub task: TaskView,
    /// Which parts went.
    pub sent: PartsSent,
    /// Modes refused on the way (now demoted).
    pub violations: Vec<ContractViolation>,
    /// Every exchange, redacted.
    pub exchanges: Vec<Record>,
}

/// How one follow-up send went.
enum Attempt {
    Accepted(TaskView),
    Refused { reason: String, task_failed: bool },
}

impl Guard {
    /// Sends `parts` as the follow-up of `task_id`, or `fallback` when a
    /// mode of `parts` was seen refused; demotes a mode refused now.
    pub async fn resume(
        &self,
        task_id: &str,
        parts: &[MessagePart],
        fallback: Option<&[MessagePart]>,
    ) -> Result<Resumed, GuardError> {
        self.refresh_cache().await?;
        let transcript = self.transcript();
        let fallback = fallback.filter(|f| self.refused_modes(f).is_empty());
        let refused = self.refused_modes(parts);
        let (first, sent) = match (refused.is_empty(), fallback) {
            (true, _) => (parts, PartsSent::Primary),
            (false, Some(fallback)) => {
                transcript.note(format!(
                    "guard: {} was refused before; sending the fallback part",
                    refused.join(", ")
                ));
                (fallback, PartsSent::Fallback)
            }
            (false, None) => return Err(GuardError::NoAcceptedMode { modes: refused }),
        };
        let mut violations = Vec::new();
        let attempt = self.follow_up(&transcript, task_id, first).await?;
        let (task, sent, sent_parts) = match (attempt, sent, fallback) {
            (Attempt::Accepted(task), sent, _) => (task, sent, first),
            (
                Attempt::Refused {
                    reason,
                    task_failed,
                },
                sent,
                fallback,
            ) => {
                let mut refused = self
                    .demote_modes(&transcript, Some(task_id), first, &reason)
                    .await?;
                let retry = fallback.filter(|_| sent == PartsSent::Primary && !task_failed);
                let Some(fallback) = retry else {
                    return Err(self.refusal(refused, first, &reason));
                };
                violations.append(&mut refused);
                transcript.note("guard: the task still waits; sending the fallback part");
                match self.follow_up(&transcript, task_id, fallback).await? {
                    Attempt::Accepted(task) => (task, PartsSent::Fallback, fallback),
                    Attempt::Refused { reason, .. } => {
                        let again = self
                            .demote_modes(&transcript, Some(task_id), fallback, &reason)
                            .await?;
                        return Err(self.refusal(again, fallback, &reason));
                    }
                }
            }
        };
        self.trusted(mode_ids(sent_parts)).await?;
        Ok(Resumed {
            task_id: task_id.to_string(),
            task,
            sent,
            violations,
            exchanges: transcript.entries(),
        })
    }

    /// The media types of `parts` the cache holds demoted.
    fn refused_modes(&self, parts: &[MessagePart]) -> Vec<String> {
        modes(parts)
            .into_iter()
            .filter(|mode| {
                let id = DeclarationId::DefaultInputMode(mode.clone());
                matches!(self.cache.trust(&self.peer, &id), Trust::Demoted(_))
            })
            .collect()
    }

    /// Sends one follow-up and reads how the peer took it.
    async fn follow_up(
        &self,
        transcript: &Transcript,
        task_id: &str,
        parts: &[MessagePart],
    ) -> Result<Attempt, GuardError> {
        let version = self.client.version;
        let message_id = uuid::Uuid::new_v4().to_string();
        let message = version.message(parts, &message_id, Some(task_id), None);
        let params = version.send_params(message, false);
        match self.call(transcript, Operation::SendMessage, params).await {
            Err(GuardError::Rejected { error, .. })
                if matches!(
                    error.code,
                    codes::INVALID_PARAMS | codes::CONTENT_TYPE_NOT_SUPPORTED
                ) =>
            {
                Ok(Attempt::Refused {
                    reason: format!(
                        "the follow-up was refused with {}: {}",
                        error.code, error.message
                    ),
                    task_failed: false,
                })
            }
            Err(other) => Err(other),
            Ok(result) => {
                let answer = SendResult::from_result(&result);
                if let SendResult::Task(task) = &answer {
                    // The follow-up's answer must be about this task.
                    self.same_task(transcript, Operation::SendMessage, task_id, task)
                        .await?;
                }
                match answer {
                    SendResult::Task(task) if task.state == Some(TaskState::Failed) => {
                        Ok(Attempt::Refused {
                            reason: "the task failed on the follow-up".into(),
                            task_failed: true,
                        })
                    }
                    SendResult::Task(task) => Ok(Attempt::Accepted(task)),
                    SendResult::Message | SendResult::Unrecognized(_) => Err(GuardError::NoTask),
                }
            }
        }
    }

    /// Demotes the modes of `parts` a refusal points at: the declared ones
    /// not seen accepted (all declared ones when every one was). A refusal
    /// of modes the card never declares is the peer's valid answer: no
    /// violation, and the answer is empty.
    pub(crate) async fn demote_modes(
        &self,
        transcript: &Transcript,
        task_id: Option<&str>,
        parts: &[MessagePart],
        reason: &str,
    ) -> Result<Vec<ContractViolation>, GuardError> {
        let declared: Vec<String> = modes(parts)
            .into_iter()
            .filter(|mode| self.card.default_input_modes.contains(mode))
            .collect();
        let untrusted: Vec<String> = declared
            .iter()
            .filter(|mode| {
                let id = DeclarationId::DefaultInputMode((*mode).clone());
                !matches!(self.cache.trust(&self.peer, &id), Trust::Trusted { .. })
            })
            .cloned()
            .collect();
        let blamed = if untrusted.is_empty() {
            declared
        } else {
            untrusted
        };
        let mut violations = Vec::new();
        for mode in blamed {
            let why = format!("{reason} ({mode}, a declared input mode)");
            let id = DeclarationId::DefaultInputMode(mode);
            violations.push(self.violation(id, task_id, why, transcript).await?);
        }
        Ok(violations)
    }

    /// The error for a refusal of `parts`: the first violation, or, when
    /// no refused mode is declared, [`GuardError::UndeclaredMode`].
    pub(crate) fn refusal(
        &self,
        mut violations: Vec<ContractViolation>,
        parts: &[MessagePart],
        reason: &str,
    ) -> GuardError {
        if violations.is_empty() {
            return GuardError::UndeclaredMode {
                modes: modes(parts),
                declared: self.card.default_input_modes.clone(),
                reason: reason.to_string(),
            };
        }
        violations.remove(0).into()
    }
}

/// The distinct media types of `parts`, in order.
pub(crate) fn modes(parts: &[MessagePart]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for part in parts {
        let mode = part.media_type();
        if !found.contains(&mode) {
            found.push(mode);
        }
    }
    found
}

/// The declarations of the modes of `parts`.
pub(crate) fn mode_ids(parts: &[MessagePart]) -> Vec<DeclarationId> {
    modes(parts)
        .into_iter()
        .map(DeclarationId::DefaultInputMode)
        .collect()
}
