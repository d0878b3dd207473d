//! An [`Asker`] that answers from a script: for tests, and for headless clients with a
//! fixed policy (accept what has defaults, decline the rest).

use std::collections::VecDeque;
use std::future::ready;

use super::asker::{
    AskFuture, Asker, AskerNotice, FieldAnswer, FieldPrompt, FormAnswer, FormPrompt, ReviewChoice,
    ReviewPrompt,
};
#[cfg(feature = "url")]
use super::asker::{Consent, ConsentPrompt};
use crate::protocol::{ElicitationCapabilities, Mode};

/// One scripted step, consumed in order by whichever question comes next.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Step {
    /// The answer to the next field asked.
    Field(FieldAnswer),
    /// The choice at the next review.
    Review(ReviewChoice),
    /// The answer to the next whole-form question (only askers that
    /// [`whole_form`](ScriptedAsker::whole_form) get it).
    Form(FormAnswer),
    /// The answer to the next URL consent.
    #[cfg(feature = "url")]
    Consent(Consent),
}

/// What a [`ScriptedAsker`] was shown, in order: to assert on in tests, or to log.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Shown {
    /// A field was asked: its name, its current answer, and the problem shown with it.
    Field {
        /// The field's name.
        name: String,
        /// Its answer when asked (a pre-filled default on the first ask).
        value: Option<serde_json::Value>,
        /// The problem shown beside it, as a person reads it.
        problem: Option<String>,
    },
    /// The review, with whether the answers could be sent as they stood.
    Review {
        /// No problem stood in the way.
        ready: bool,
    },
    /// The whole form, with the problems of the last submission.
    Form {
        /// The problems shown, as a person reads them.
        problems: Option<String>,
    },
    /// A URL consent: the full URL and the warnings shown.
    Consent {
        /// The URL.
        url: String,
        /// Each warning, as a person reads it.
        warnings: Vec<String>,
    },
    /// A notice.
    Notice(AskerNotice),
}

#[derive(Debug, Clone)]
enum Script {
    Steps(VecDeque<Step>),
    AcceptDefaults,
}

/// An [`Asker`] that answers from a script and records what it was shown.
///
/// - [`ScriptedAsker::new`] answers each question with the next [`Step`]; a question
///   whose step is of another kind, or that comes after the script ran out, is
///   answered `cancel`, as a person who walked away.
/// - [`ScriptedAsker::accept_defaults`] is a headless policy: a form whose required
///   fields all have valid defaults is accepted with exactly its defaults, in the
///   agent's order; any other form, and every URL request, is declined.
///
/// ```
/// use elicit::client::{FieldAnswer, ReviewChoice, ScriptedAsker, Step};
///
/// let asker = ScriptedAsker::new([
///     Step::Field(FieldAnswer::Text("3".into())),
///     Step::Review(ReviewChoice::Send),
/// ]);
/// assert!(asker.shown().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct ScriptedAsker {
    script: Script,
    modes: ElicitationCapabilities,
    whole_form: bool,
    shown: Vec<Shown>,
}

impl ScriptedAsker {
    /// Answers from `steps`, in order. Declares form and URL mode.
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Self {
        ScriptedAsker {
            script: Script::Steps(steps.into_iter().collect()),
            modes: ElicitationCapabilities::with_modes([Mode::Form, Mode::Url]),
            whole_form: false,
            shown: Vec::new(),
        }
    }

    /// The headless policy: accept a form with exactly its defaults when every
    /// required field has one, decline everything else. Declares form and URL mode
    /// (URL requests are declined, not refused).
    pub fn accept_defaults() -> Self {
        ScriptedAsker {
            script: Script::AcceptDefaults,
            ..Self::new([])
        }
    }

    /// Declares only these modes (the client's capability comes from the asker).
    pub fn with_modes(mut self, modes: ElicitationCapabilities) -> Self {
        self.modes = modes;
        self
    }

    /// Answers forms whole, with [`Step::Form`], instead of field by field.
    pub fn whole_form(mut self, on: bool) -> Self {
        self.whole_form = on;
        self
    }

    /// Everything shown so far.
    pub fn shown(&self) -> &[Shown] {
        &self.shown
    }

    /// The steps not used yet.
    pub fn remaining(&self) -> usize {
        match &self.script {
            Script::Steps(steps) => steps.len(),
            Script::AcceptDefaults => 0,
        }
    }

    fn next(&mut self) -> Option<Step> {
        match &mut self.script {
            Script::Steps(steps) => steps.pop_front(),
            Script::AcceptDefaults => None,
        }
    }
}

impl Asker for ScriptedAsker {
    fn modes(&self) -> ElicitationCapabilities {
        self.modes.clone()
    }

    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        self.shown.push(Shown::Field {
            name: prompt.field.name().to_owned(),
            value: prompt.field.value().cloned(),
            problem: prompt.problem.map(ToString::to_string),
        });
        let answer = match &self.script {
            Script::AcceptDefaults => {
                if prompt.problem.is_some()
                    || (prompt.field.is_required() && prompt.field.value().is_none())
                {
                    // A required field without a (valid) default: not ours to invent.
                    FieldAnswer::Decline
                } else {
                    FieldAnswer::Keep
                }
            }
            Script::Steps(_) => match self.next() {
                Some(Step::Field(answer)) => answer,
                _ => FieldAnswer::Cancel,
            },
        };
        Box::pin(ready(answer))
    }

    fn review<'a>(&'a mut self, prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        let ready_to_send = prompt.review.is_ready();
        self.shown.push(Shown::Review {
            ready: ready_to_send,
        });
        let choice = match &self.script {
            Script::AcceptDefaults if ready_to_send => ReviewChoice::Send,
            Script::AcceptDefaults => ReviewChoice::Decline,
            Script::Steps(_) => match self.next() {
                Some(Step::Review(choice)) => choice,
                _ => ReviewChoice::Cancel,
            },
        };
        Box::pin(ready(choice))
    }

    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        if !self.whole_form {
            return None;
        }
        self.shown.push(Shown::Form {
            problems: prompt.problems.map(ToString::to_string),
        });
        let answer = match self.next() {
            Some(Step::Form(answer)) => answer,
            _ => FormAnswer::Cancel,
        };
        Some(Box::pin(ready(answer)))
    }

    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        self.shown.push(Shown::Consent {
            url: prompt.review.full_url().to_owned(),
            warnings: prompt
                .review
                .warnings()
                .iter()
                .map(ToString::to_string)
                .collect(),
        });
        let consent = match &self.script {
            Script::AcceptDefaults => Consent::Decline,
            Script::Steps(_) => match self.next() {
                Some(Step::Consent(consent)) => consent,
                _ => Consent::Cancel,
            },
        };
        Box::pin(ready(consent))
    }

    fn notice(&mut self, notice: &AskerNotice) {
        self.shown.push(Shown::Notice(notice.clone()));
    }
}
