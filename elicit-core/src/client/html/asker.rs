//! [`HtmlAsker`]: the form as a web page, for clients whose person answers in a browser
//! or a web view.

use std::fmt;
use std::future::Future;

use super::{HtmlForm, Submission, SubmitAction};
use crate::client::asker::{
    AskFuture, Asker, FieldAnswer, FieldPrompt, FormAnswer, FormPrompt, ReviewChoice, ReviewPrompt,
};
use crate::protocol::{ElicitationCapabilities, Mode};

/// An [`Asker`] for web clients: each form is shown whole as the page of
/// [`HtmlForm`], and what the browser posts back is read with [`Submission`].
///
/// `show` is the client's own part: it puts the page (a complete `<form>`, every agent
/// text escaped) in front of the person however the client shows pages (a web view, a
/// tab, a panel of its web UI), and resolves to the urlencoded body the form posted, or
/// `None` when the person closed it without pressing a button (a `cancel`). The engine
/// validates the answer ([F3](crate::rules#f3)); when it does not validate, `show` gets
/// the page again with what the person typed and each error beside its field. The
/// Decline and Cancel buttons always work ([K1](crate::rules#k1)).
///
/// It declares form mode only: a URL-mode request needs a consent dialog of the
/// client's own chrome, not a page the agent's text can style.
///
/// ```
/// use elicit::client::html::HtmlAsker;
/// use elicit::client::{AgentIdentity, ClientEngine};
/// use serde_json::json;
///
/// // A "browser" that fills in 3 passes and presses Accept.
/// let mut asker = HtmlAsker::new(|page: String| {
///     assert!(page.contains("Deploy?"));
///     async { Some(b"f.passes=3&elicit-action=accept".to_vec()) }
/// });
/// let params = json!({ "mode": "form", "sessionId": "s", "message": "Deploy?",
///     "requestedSchema": { "type": "object", "properties": {
///         "passes": { "type": "integer", "minimum": 1 } } } });
/// let responder = ClientEngine::new(AgentIdentity::new("deploy-bot"));
/// let answer = block_on(responder.respond(&mut asker, &params)).unwrap();
/// assert_eq!(answer.to_json(), json!({ "action": "accept", "content": { "passes": 3 } }));
/// # fn block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Waker};
/// #     let mut f = std::pin::pin!(f);
/// #     let mut cx = Context::from_waker(Waker::noop());
/// #     loop { if let Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// ```
pub struct HtmlAsker<F> {
    show: F,
    /// The body of the last submission, to show again with its errors.
    last: Option<Vec<u8>>,
    browser_checks: bool,
    stylesheet: bool,
}

impl<F, Fut> HtmlAsker<F>
where
    F: FnMut(String) -> Fut + Send,
    Fut: Future<Output = Option<Vec<u8>>> + Send + 'static,
{
    /// An asker that shows each page with `show` (see the type's documentation).
    pub fn new(show: F) -> Self {
        HtmlAsker {
            show,
            last: None,
            browser_checks: false,
            stylesheet: true,
        }
    }

    /// Turns the browser's own checks on ([`HtmlForm::browser_checks`]).
    pub fn browser_checks(mut self, on: bool) -> Self {
        self.browser_checks = on;
        self
    }

    /// Leaves the form's own style sheet out ([`HtmlForm::stylesheet`]).
    pub fn stylesheet(mut self, on: bool) -> Self {
        self.stylesheet = on;
        self
    }
}

impl<F> fmt::Debug for HtmlAsker<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HtmlAsker")
            .field("browser_checks", &self.browser_checks)
            .field("stylesheet", &self.stylesheet)
            .finish_non_exhaustive()
    }
}

impl<F, Fut> Asker for HtmlAsker<F>
where
    F: FnMut(String) -> Fut + Send,
    Fut: Future<Output = Option<Vec<u8>>> + Send + 'static,
{
    fn modes(&self) -> ElicitationCapabilities {
        ElicitationCapabilities::with_modes([Mode::Form])
    }

    fn ask_form<'a>(&'a mut self, prompt: FormPrompt<'a>) -> Option<AskFuture<'a, FormAnswer>> {
        let schema = prompt.form.schema();
        let mut page = HtmlForm::new(schema)
            .agent(prompt.intro.agent.clone())
            .message(prompt.intro.message)
            .browser_checks(self.browser_checks)
            .stylesheet(self.stylesheet);
        // Shown again after a refusal: what the person typed, each error beside its
        // field (F3). The first time, the defaults (F4).
        let last = if prompt.problems.is_some() {
            self.last.take()
        } else {
            None
        };
        let submission = last.as_deref().map(|body| Submission::parse(schema, body));
        if let Some(submission) = &submission {
            page = page.refill(submission);
        }
        let shown = (self.show)(page.render());
        Some(Box::pin(async move {
            let Some(body) = shown.await else {
                return FormAnswer::Cancel;
            };
            let submission = Submission::parse(schema, &body);
            let answer = match submission.action() {
                Some(SubmitAction::Accept) => FormAnswer::Submit(submission.unchecked_content()),
                Some(SubmitAction::Decline) => FormAnswer::Decline,
                // No button, or an unknown one: not a choice, so a dismissal.
                Some(SubmitAction::Cancel) | None => FormAnswer::Cancel,
            };
            self.last = Some(body);
            answer
        }))
    }

    // Never called: every form is asked whole above.
    fn ask_field<'a>(&'a mut self, _prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        Box::pin(std::future::ready(FieldAnswer::Cancel))
    }

    fn review<'a>(&'a mut self, _prompt: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(std::future::ready(ReviewChoice::Cancel))
    }
}
