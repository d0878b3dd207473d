//! An [`Asker`] for a full-screen application: each question goes to the application's
//! event loop, which draws it with the widgets and feeds it keys; the answer comes
//! back to the waiting engine.

use std::sync::mpsc;
use std::time::Duration;

use futures::channel::oneshot;
use ratatui_core::buffer::Buffer;
use ratatui_core::layout::Rect;
use ratatui_core::text::{Line, Span};
use ratatui_core::widgets::StatefulWidget;

use super::draw::{draw_screen, Body, Theme};
use super::form::{FormState, FormView};
use super::text::neutralise;
use super::Key;
use crate::client::{
    AskFuture, Asker, AskerNotice, FieldAnswer, FieldPrompt, FormAnswer, FormPrompt, ReviewChoice,
    ReviewPrompt,
};
use crate::protocol::{ElicitationCapabilities, Mode};
#[cfg(feature = "url")]
use {
    super::consent::{ConsentState, ConsentView},
    crate::client::{Consent, ConsentPrompt},
};

/// An [`Asker`] that hands every question to a full-screen application's event loop.
///
/// Made in a pair with [`Questions`], the end the event loop holds: the asker goes to
/// the engine (a [`ClientEngine`](crate::client::ClientEngine), or an SDK integration's
/// client built on one), and each time the engine asks, a [`Question`] arrives at
/// [`Questions::try_next`]. The loop draws it with [`QuestionView`] and gives it the
/// person's keys with [`Question::handle_key`]; when the person has answered, the
/// answer goes back to the engine by itself.
///
/// A form is asked whole ([`Asker::ask_form`]: every field on one page, with its own
/// review, [`FormState`]); URL mode is asked with [`ConsentState`]
/// (feature `url`). Declares form mode, and URL mode with feature `url`.
///
/// When the engine stops waiting (a deadline, a cancelled request), the question is
/// withdrawn: [`Question::is_withdrawn`] says so and the loop drops it. When the loop
/// drops a question without an answer, or [`Questions`] is dropped, the engine
/// hears `cancel`.
///
/// ```
/// use elicit::client::tui::{Question, TuiAsker};
/// use elicit::client::{AgentIdentity, ClientEngine};
/// use serde_json::json;
///
/// let (mut asker, questions) = TuiAsker::new();
/// let responder = ClientEngine::new(AgentIdentity::new("deploy-bot"));
/// let params = json!({ "mode": "form", "sessionId": "s1", "message": "Deploy?",
///     "requestedSchema": { "type": "object", "properties": { "now": { "type": "boolean" } } } });
/// // The engine waits on one thread (or task) …
/// let engine = std::thread::spawn(move || {
///     futures_block_on(responder.respond(&mut asker, &params))
/// });
/// // … while the event loop takes the question: here, the person presses Esc.
/// let mut question = loop {
///     if let Some(question) = questions.recv_timeout(std::time::Duration::from_secs(5)) {
///         break question;
///     }
/// };
/// assert!(matches!(question, Question::Form(_)));
/// assert!(question.handle_key(elicit::client::tui::Key::Esc));
/// let response = engine.join().unwrap().unwrap();
/// assert_eq!(response.to_json(), json!({ "action": "cancel" }));
/// # fn futures_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Wake, Waker};
/// #     struct Unpark(std::thread::Thread);
/// #     impl Wake for Unpark { fn wake(self: std::sync::Arc<Self>) { self.0.unpark() } }
/// #     let waker = Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
/// #     let mut cx = Context::from_waker(&waker);
/// #     let mut f = std::pin::pin!(f);
/// #     loop {
/// #         if let Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; }
/// #         std::thread::park_timeout(std::time::Duration::from_millis(50));
/// #     }
/// # }
/// ```
///
/// Clones share the event loop: one per connection (or per connection attempt), all
/// asking through the same [`Questions`].
#[derive(Debug, Clone)]
pub struct TuiAsker {
    questions: mpsc::Sender<Question>,
}

impl TuiAsker {
    /// The asker, and the end of its questions for the application's event loop.
    pub fn new() -> (TuiAsker, Questions) {
        let (sender, receiver) = mpsc::channel();
        (
            TuiAsker { questions: sender },
            Questions {
                questions: receiver,
            },
        )
    }
}

/// Where a [`TuiAsker`]'s questions arrive, in the application's event loop.
#[derive(Debug)]
pub struct Questions {
    questions: mpsc::Receiver<Question>,
}

impl Questions {
    /// The next question, if one is waiting; never blocks (call it once per turn of
    /// the event loop).
    pub fn try_next(&self) -> Option<Question> {
        self.questions.try_recv().ok()
    }

    /// The next question, waiting at most `timeout` for one.
    pub fn recv_timeout(&self, timeout: Duration) -> Option<Question> {
        self.questions.recv_timeout(timeout).ok()
    }
}

/// One thing a [`TuiAsker`] puts to the person.
#[derive(Debug)]
#[non_exhaustive]
pub enum Question {
    /// A form-mode request.
    Form(FormQuestion),
    /// A URL-mode request (feature `url`).
    #[cfg(feature = "url")]
    Consent(ConsentQuestion),
    /// Something to tell the person that needs no answer (a request refused, timed
    /// out, a URL elicitation completed), neutralised; any key dismisses it.
    Notice(String),
}

impl Question {
    /// Gives the question one key; `true` when it is finished (answered, and the
    /// answer sent back; a notice dismissed): drop it then.
    pub fn handle_key(&mut self, key: Key) -> bool {
        match self {
            Question::Form(form) => form.handle_key(key),
            #[cfg(feature = "url")]
            Question::Consent(consent) => consent.handle_key(key),
            Question::Notice(_) => true,
        }
    }

    /// Whether the engine stopped waiting for the answer (a deadline, a cancelled
    /// request): drop the question. Never for a notice.
    pub fn is_withdrawn(&self) -> bool {
        match self {
            Question::Form(form) => form.is_withdrawn(),
            #[cfg(feature = "url")]
            Question::Consent(consent) => consent.is_withdrawn(),
            Question::Notice(_) => false,
        }
    }
}

/// A form to fill, and where its answer goes.
#[derive(Debug)]
pub struct FormQuestion {
    // Boxed: a question is moved through a channel and held in an enum beside small
    // notices.
    state: Box<FormState>,
    reply: Option<oneshot::Sender<FormAnswer>>,
}

impl FormQuestion {
    /// The form on screen.
    pub fn state(&self) -> &FormState {
        &self.state
    }

    /// The form on screen, to draw it with [`FormView`].
    pub fn state_mut(&mut self) -> &mut FormState {
        &mut self.state
    }

    /// Gives the form one key; `true` when the person finished it and the answer went
    /// back to the engine.
    pub fn handle_key(&mut self, key: Key) -> bool {
        if self.state.outcome().is_none() {
            if let Some(answer) = self.state.handle_key(key) {
                if let Some(reply) = self.reply.take() {
                    // The engine may have stopped waiting; nothing else to do then.
                    let _ = reply.send(answer);
                }
            }
        }
        self.state.outcome().is_some()
    }

    /// Whether the engine stopped waiting for this form.
    pub fn is_withdrawn(&self) -> bool {
        self.state.outcome().is_none() && self.reply.as_ref().is_none_or(|r| r.is_canceled())
    }
}

/// A URL consent to give or refuse, and where the choice goes (feature `url`).
#[cfg(feature = "url")]
#[derive(Debug)]
pub struct ConsentQuestion {
    state: Box<ConsentState>,
    elicitation_id: String,
    reply: Option<oneshot::Sender<Consent>>,
}

#[cfg(feature = "url")]
impl ConsentQuestion {
    /// The consent on screen.
    pub fn state(&self) -> &ConsentState {
        &self.state
    }

    /// The consent on screen, to draw it with [`ConsentView`].
    pub fn state_mut(&mut self) -> &mut ConsentState {
        &mut self.state
    }

    /// The request's `elicitationId`: an application that opens the URL itself
    /// after consent keeps it to match the completion.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// Gives the question one key; `true` when the person chose and the choice went
    /// back to the engine.
    pub fn handle_key(&mut self, key: Key) -> bool {
        if self.state.outcome().is_none() {
            if let Some(consent) = self.state.handle_key(key) {
                if let Some(reply) = self.reply.take() {
                    let _ = reply.send(consent);
                }
            }
        }
        self.state.outcome().is_some()
    }

    /// Whether the engine stopped waiting for this choice.
    pub fn is_withdrawn(&self) -> bool {
        self.state.outcome().is_none() && self.reply.as_ref().is_none_or(|r| r.is_canceled())
    }
}

impl Asker for TuiAsker {
    fn modes(&self) -> ElicitationCapabilities {
        #[cfg(feature = "url")]
        let modes = [Mode::Form, Mode::Url].as_slice();
        #[cfg(not(feature = "url"))]
        let modes = [Mode::Form].as_slice();
        ElicitationCapabilities::with_modes(modes.iter().copied())
    }

    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        let (reply, answer) = oneshot::channel();
        let question = Question::Form(FormQuestion {
            state: Box::new(FormState::from_prompt(&prompt)),
            reply: Some(reply),
        });
        let sent = self.questions.send(question).is_ok();
        Some(Box::pin(async move {
            // No event loop, or the question dropped unanswered: the person did not
            // answer, which is `cancel` (R1).
            if !sent {
                return FormAnswer::Cancel;
            }
            answer.await.unwrap_or(FormAnswer::Cancel)
        }))
    }

    /// Never called by the engine: [`ask_form`](Self::ask_form) always answers, so the
    /// form is asked whole. Answers `cancel` for a caller that asks field by field.
    fn ask_field<'a>(&'a mut self, _prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        Box::pin(std::future::ready(FieldAnswer::Cancel))
    }

    /// Never called by the engine: the form's own review comes before it is sent
    /// ([K2](crate::rules#k2)). Answers `cancel` for another caller.
    fn review<'a>(&'a mut self, _prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(std::future::ready(ReviewChoice::Cancel))
    }

    #[cfg(feature = "url")]
    fn consent<'a>(&'a mut self, prompt: ConsentPrompt<'a>) -> AskFuture<'a, Consent> {
        let (reply, answer) = oneshot::channel();
        let question = Question::Consent(ConsentQuestion {
            state: Box::new(ConsentState::from_prompt(&prompt)),
            elicitation_id: prompt.elicitation_id.to_owned(),
            reply: Some(reply),
        });
        let sent = self.questions.send(question).is_ok();
        Box::pin(async move {
            if !sent {
                return Consent::Cancel;
            }
            answer.await.unwrap_or(Consent::Cancel)
        })
    }

    fn notice(&mut self, notice: &AskerNotice) {
        // No event loop: nobody to tell.
        let _ = self.questions.send(Question::Notice(neutralise(notice)));
    }
}

/// Draws a [`Question`]: a form with [`FormView`], a consent with [`ConsentView`], a
/// notice as its text with a line saying any key dismisses it.
#[derive(Debug, Clone, Copy, Default)]
pub struct QuestionView {
    theme: Theme,
}

impl QuestionView {
    /// With the default [`Theme`].
    pub fn new() -> Self {
        Self::default()
    }

    /// With these styles.
    pub fn theme(mut self, theme: Theme) -> Self {
        self.theme = theme;
        self
    }
}

impl StatefulWidget for QuestionView {
    type State = Question;

    fn render(self, area: Rect, buf: &mut Buffer, state: &mut Question) {
        match state {
            Question::Form(form) => {
                FormView::new()
                    .theme(self.theme)
                    .render(area, buf, &mut form.state)
            }
            #[cfg(feature = "url")]
            Question::Consent(consent) => {
                ConsentView::new()
                    .theme(self.theme)
                    .render(area, buf, &mut consent.state)
            }
            Question::Notice(text) => {
                super::draw::clear(area, buf);
                let mut body = Body::new(area.width);
                body.wrapped(0, None, text, self.theme.text);
                let footer = [Line::from(Span::styled("Press any key.", self.theme.muted))];
                let mut scroll = 0;
                draw_screen(area, buf, &[], &body, &footer, &mut scroll, &self.theme);
            }
        }
    }
}
