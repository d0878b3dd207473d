//! The asking interface: what the [`ClientEngine`](super::ClientEngine) calls to put one
//! question to the person, whatever draws it (a terminal, a GUI toolkit, a web page, a
//! script).
//!
//! The engine owns the rules: the schema check, the agent's order
//! ([D13](crate::rules#d13)), defaults ([F4](crate::rules#f4)), every answer checked as
//! it is given and the whole form before it is sent ([F3](crate::rules#f3)), decline and
//! cancel always reachable ([K1](crate::rules#k1), [R1](crate::rules#r1)), the URL review
//! and consent ([S2](crate::rules#s2)–[S5](crate::rules#s5), [K3](crate::rules#k3)). An
//! [`Asker`] only shows what it is given and brings back what the person chose; it
//! cannot send an unchecked answer, because it never sends anything.
//!
//! The trait is object-safe (`&mut dyn Asker`): each method returns a boxed future
//! ([`AskFuture`]), one small allocation per question, so a client can pick its asker
//! at run time.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value};

use super::form::{FieldError, FormEngine, FormField, Review};
use super::identity::AgentIdentity;
use crate::content::ValidationErrors;
use crate::protocol::{ElicitationCapabilities, Mode, Scope};

/// The future an [`Asker`] method returns: boxed, so the trait stays object-safe.
pub type AskFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Who asks, in what context, and why: what a person must see before any question
/// ([K1](crate::rules#k1), [K4](crate::rules#k4)).
#[derive(Debug, Clone, Copy)]
pub struct Intro<'a> {
    /// The agent (or MCP server) that asks.
    pub agent: &'a AgentIdentity,
    /// The request's `message`.
    pub message: &'a str,
    /// What the request is tied to: a session (and tool call), or a request outside
    /// any session ([E3](crate::rules#e3)). `None` on MCP, which has no scope
    /// ([M1](crate::rules#m1)).
    pub scope: Option<&'a Scope>,
}

impl fmt::Display for Intro<'_> {
    /// One line a person reads: "deploy-bot asks: Proceed? (session s1)".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} asks: {}", self.agent, self.message)?;
        match self.scope {
            Some(Scope::Session {
                session_id,
                tool_call_id: Some(tool_call),
            }) => write!(f, " (session {session_id}, tool call {tool_call})"),
            Some(Scope::Session { session_id, .. }) => write!(f, " (session {session_id})"),
            Some(Scope::Request { request_id }) => {
                write!(f, " (before any session: request {})", request_id.to_json())
            }
            None => Ok(()),
        }
    }
}

/// One question of a form: a field, where it stands, and what was wrong with the last
/// answer to it.
#[derive(Debug, Clone, Copy)]
pub struct FieldPrompt<'a> {
    /// Who asks and why; show it with the first field at least.
    pub intro: Intro<'a>,
    /// The form as a whole (title, description, every field), for an asker that shows
    /// more than one field at a time.
    pub form: &'a FormEngine,
    /// The field: label, description, kind, options, bounds, and the current answer
    /// (the default, pre-filled, when nothing was answered yet: [F4](crate::rules#f4)).
    pub field: FormField<'a>,
    /// Its position, from 0, among [`count`](Self::count) fields.
    pub position: usize,
    /// How many fields the form has.
    pub count: usize,
    /// Why the last answer was refused: show it beside the field
    /// ([F3](crate::rules#f3)).
    pub problem: Option<&'a FieldError>,
    /// Set when the question is no longer wanted (deadline, request cancelled): a
    /// prompt that blocks must end itself when it fires.
    pub stop: &'a StopSignal,
}

/// What the person answered to one field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldAnswer {
    /// Keep the current answer (the default when nothing else was given); leave an
    /// optional field empty when there is none.
    Keep,
    /// Leave the field empty: its key stays out of the content.
    Clear,
    /// What the person typed, read by the field's kind
    /// ([`FormEngine::set_text`]).
    Text(String),
    /// A typed value, exactly as it goes into the content ([`FormEngine::set`]).
    Value(Value),
    /// Go back to the previous field.
    Back,
    /// Refuse the whole form ([R1](crate::rules#r1)).
    Decline,
    /// Dismiss the form without choosing ([R1](crate::rules#r1)).
    Cancel,
}

/// The last look before sending ([K2](crate::rules#k2)).
#[derive(Debug, Clone, Copy)]
pub struct ReviewPrompt<'a> {
    /// Who asks and why.
    pub intro: Intro<'a>,
    /// Every answer, and what would stop the form from being sent.
    pub review: &'a Review,
    /// See [`FieldPrompt::stop`].
    pub stop: &'a StopSignal,
}

/// What the person chose at the review.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReviewChoice {
    /// Send the answers. Refused by the engine while they do not validate: each
    /// failing field is asked again with its problem.
    Send,
    /// Change the answer of this field (by name), then review again.
    Edit(String),
    /// Refuse the form ([R1](crate::rules#r1)).
    Decline,
    /// Dismiss it ([R1](crate::rules#r1)).
    Cancel,
}

/// The whole form at once, for an asker that shows every field on one page (a web
/// form: [`html::HtmlAsker`](super::html::HtmlAsker)).
#[derive(Debug, Clone, Copy)]
pub struct FormPrompt<'a> {
    /// Who asks and why.
    pub intro: Intro<'a>,
    /// The form, with the current answers (defaults pre-filled).
    pub form: &'a FormEngine,
    /// What was wrong with the last submission, each beside its field.
    pub problems: Option<&'a ValidationErrors>,
    /// See [`FieldPrompt::stop`].
    pub stop: &'a StopSignal,
}

/// What came back from a whole-form asker.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FormAnswer {
    /// The content the person submitted; the engine validates it before sending
    /// ([F3](crate::rules#f3)) and asks again with the problems when it does not.
    Submit(Map<String, Value>),
    /// Refuse the form.
    Decline,
    /// Dismiss it.
    Cancel,
}

/// A URL-mode request, reviewed, for the person's consent
/// ([S2](crate::rules#s2)–[S4](crate::rules#s4), [K3](crate::rules#k3)).
#[cfg(feature = "url")]
#[derive(Debug, Clone, Copy)]
pub struct ConsentPrompt<'a> {
    /// Who asks and why.
    pub intro: Intro<'a>,
    /// The full URL, its host with the registrable domain to emphasise, and every
    /// warning to show above the question.
    pub review: &'a super::UrlReview,
    /// The request's `elicitationId`.
    pub elicitation_id: &'a str,
    /// See [`FieldPrompt::stop`].
    pub stop: &'a StopSignal,
}

/// What the person chose for a URL-mode request.
#[cfg(feature = "url")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Consent {
    /// They agreed to open the URL ([U2](crate::rules#u2): not that anything finished).
    /// The asker opens it (or has the person open it) in a secure context of its own
    /// ([S3](crate::rules#s3)); the engine answers `accept`.
    Open,
    /// They refused.
    Decline,
    /// They dismissed the question.
    Cancel,
}

/// Something to tell the person that is not a question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskerNotice {
    /// A request was refused without asking anything: why, in one line
    /// ([C8](crate::rules#c8), [E6](crate::rules#e6), [F1](crate::rules#f1)); never a
    /// silent skip.
    Refused {
        /// Who asked.
        agent: String,
        /// The reason, for a person.
        reason: String,
    },
    /// The deadline passed while the person was being asked: the request was answered
    /// `cancel`.
    TimedOut {
        /// Who asked.
        agent: String,
    },
    /// A URL-mode elicitation the person consented to finished on the agent's side
    /// (`elicitation/complete`, [U5](crate::rules#u5)).
    Completed {
        /// Its id.
        elicitation_id: String,
    },
}

/// The former name of [`AskerNotice`].
#[deprecated(
    since = "0.2.0",
    note = "renamed `AskerNotice`: what an asker is told, not asked"
)]
pub type Notice = AskerNotice;

impl fmt::Display for AskerNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskerNotice::Refused { agent, reason } => {
                write!(f, "a request from {agent} was refused: {reason}")
            }
            AskerNotice::TimedOut { agent } => write!(
                f,
                "the request from {agent} timed out and was cancelled; nothing was sent"
            ),
            AskerNotice::Completed { elicitation_id } => {
                write!(f, "the agent reports that {elicitation_id} is complete")
            }
        }
    }
}

/// Puts questions to a person: what the [`ClientEngine`](super::ClientEngine) calls, one
/// question at a time.
///
/// Implement [`ask_field`](Self::ask_field) and [`review`](Self::review) for forms
/// shown one field at a time, or [`ask_form`](Self::ask_form) for forms shown whole
/// (then the other two are never called); [`consent`](Self::consent) for URL mode;
/// [`modes`](Self::modes) says which of these this asker renders, and the client's
/// capability declaration comes from it.
pub trait Asker: Send {
    /// The modes this asker can put to a person: the client declares exactly these
    /// ([C1](crate::rules#c1), [C7](crate::rules#c7)). Default: form and URL.
    fn modes(&self) -> ElicitationCapabilities {
        ElicitationCapabilities::with_modes([Mode::Form, Mode::Url])
    }

    /// One field of a form. Called in the agent's order, again with the problem when
    /// an answer is refused, and for every field the review sends back to.
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer>;

    /// The review before sending ([K2](crate::rules#k2)).
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice>;

    /// The whole form at once. `None` (the default) means this asker works field by
    /// field.
    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        let _ = prompt;
        None
    }

    /// Consent to open a URL. The default declines: an asker that cannot show a URL
    /// safely should also leave URL mode out of [`modes`](Self::modes).
    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        let _ = prompt;
        Box::pin(std::future::ready(Consent::Decline))
    }

    /// Tells the person something that needs no answer. Default: nothing.
    fn notice(&mut self, notice: &AskerNotice) {
        let _ = notice;
    }
}

impl<A: Asker + ?Sized> Asker for &mut A {
    fn modes(&self) -> ElicitationCapabilities {
        (**self).modes()
    }
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        (**self).ask_field(prompt)
    }
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        (**self).review(prompt)
    }
    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        (**self).ask_form(prompt)
    }
    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        (**self).consent(prompt)
    }
    fn notice(&mut self, notice: &AskerNotice) {
        (**self).notice(notice)
    }
}

impl<A: Asker + ?Sized> Asker for Box<A> {
    fn modes(&self) -> ElicitationCapabilities {
        (**self).modes()
    }
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        (**self).ask_field(prompt)
    }
    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        (**self).review(prompt)
    }
    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        (**self).ask_form(prompt)
    }
    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        (**self).consent(prompt)
    }
    fn notice(&mut self, notice: &AskerNotice) {
        (**self).notice(notice)
    }
}

type Hook = Box<dyn FnOnce() + Send>;

/// Fires once when a question is no longer wanted: the deadline passed, or the agent
/// cancelled the request. Cheap to clone; clones share the signal.
///
/// The engine drops the asking future when it fires, which ends an `async` prompt. A
/// prompt that blocks a thread (most terminal prompt crates do) does not end by being
/// dropped: register [`on_stop`](Self::on_stop) to end it, or check
/// [`is_stopped`](Self::is_stopped) and throw its answer away.
#[derive(Clone, Default)]
pub struct StopSignal {
    inner: Arc<StopInner>,
}

#[derive(Default)]
struct StopInner {
    stopped: AtomicBool,
    hooks: Mutex<Vec<Hook>>,
}

impl StopSignal {
    /// A signal that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether it fired.
    pub fn is_stopped(&self) -> bool {
        self.inner.stopped.load(Ordering::Acquire)
    }

    /// Fires it: every hook runs once, now; later hooks run as they are registered.
    pub fn stop(&self) {
        let hooks = {
            let mut hooks = self
                .inner
                .hooks
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.inner.stopped.store(true, Ordering::Release);
            std::mem::take(&mut *hooks)
        };
        for hook in hooks {
            hook();
        }
    }

    /// Runs `hook` when the signal fires (at once if it already has).
    pub fn on_stop(&self, hook: impl FnOnce() + Send + 'static) {
        let mut hooks = self
            .inner
            .hooks
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if self.inner.stopped.load(Ordering::Acquire) {
            drop(hooks);
            hook();
        } else {
            hooks.push(Box::new(hook));
        }
    }
}

impl fmt::Debug for StopSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StopSignal")
            .field("stopped", &self.is_stopped())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn a_stop_signal_runs_each_hook_once_including_late_ones() {
        let count = Arc::new(AtomicUsize::new(0));
        let signal = StopSignal::new();
        let c = Arc::clone(&count);
        signal.on_stop(move || {
            c.fetch_add(1, Ordering::SeqCst);
        });
        assert!(!signal.is_stopped());
        signal.clone().stop();
        signal.stop();
        assert!(signal.is_stopped());
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let c = Arc::clone(&count);
        signal.on_stop(move || {
            c.fetch_add(10, Ordering::SeqCst);
        });
        assert_eq!(count.load(Ordering::SeqCst), 11);
    }
}
