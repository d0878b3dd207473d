//! The client's engine: an `elicitation/create` in, the person asked through an
//! [`Asker`], the response (or the JSON-RPC error) out.

use std::fmt;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Mutex, PoisonError};
use std::task::Poll;
use std::time::Duration;

use serde_json::{Map, Value};

use super::asker::{
    Asker, AskerNotice, FieldAnswer, FieldPrompt, FormAnswer, FormPrompt, Intro, ReviewChoice,
    ReviewPrompt, StopSignal,
};
use super::check::{check_request_with, Incoming};
use super::form::{FieldError, FieldErrorKind, FormEngine};
use super::identity::AgentIdentity;
use super::tracker::{Completion, CompletionTracker};
use crate::content::ValidationErrorKind;
use crate::protocol::{ElicitationCapabilities, ElicitationResponse, JsonRpcError, ModeParams};
use crate::schema::ParseOptions;

/// What a client does with the elicitations it receives, beyond the spec's rules.
///
/// ```
/// use elicit::client::ClientPolicy;
/// use std::time::Duration;
///
/// // Answer `cancel` when the person has not finished within two minutes: the tool
/// // call that asked has likely timed out by then.
/// let policy = ClientPolicy::new().with_deadline(Duration::from_secs(120));
/// assert_eq!(policy.deadline(), Some(Duration::from_secs(120)));
/// // A headless run: decline everything without showing anything.
/// assert!(ClientPolicy::never_ask().is_never_ask());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientPolicy {
    deadline: Option<Duration>,
    never_ask: bool,
}

impl ClientPolicy {
    /// Ask every well-formed request, with no deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decline every well-formed request without showing anything. A request the
    /// client must refuse still gets its error.
    pub fn never_ask() -> Self {
        ClientPolicy {
            deadline: None,
            never_ask: true,
        }
    }

    /// Answer `cancel` when the person has not answered within `deadline` of the
    /// request's arrival: a form whose tool call already timed out must not be filled
    /// in. The SDK integrations turn it into their runtime's timer; with the engine
    /// alone, pass a timer to [`ClientEngine::respond_until`].
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<Duration> {
        self.deadline
    }

    /// Whether every request is declined without asking.
    pub fn is_never_ask(&self) -> bool {
        self.never_ask
    }
}

/// The client side of elicitation for one connection: checks each request, asks the
/// person through an [`Asker`], and gives the response to send back.
///
/// On the way it applies every rule a client owes:
/// - the request is checked against what the client declared, its schema read with
///   the lenient parse; what a client must refuse gets the `-32602` error, and the
///   person is told why ([`AskerNotice::Refused`]) — never a silent skip
///   ([C8](crate::rules#c8), [E6](crate::rules#e6), [F1](crate::rules#f1));
/// - fields come in the agent's order ([D13](crate::rules#d13)) with defaults
///   pre-filled ([F4](crate::rules#f4)); each answer is checked as it is given and the
///   whole form before it is sent, every problem shown beside its field
///   ([F3](crate::rules#f3)); the answers are reviewed ([K2](crate::rules#k2)); decline
///   and cancel are reachable at every question ([K1](crate::rules#k1),
///   [R1](crate::rules#r1));
/// - a URL is reviewed (full URL, registrable domain, warnings) and opened only on
///   explicit consent ([S2](crate::rules#s2)–[S5](crate::rules#s5),
///   [K3](crate::rules#k3)); its id is tracked so that only the first completion of a
///   known id is reported ([U6](crate::rules#u6));
/// - the [`ClientPolicy`]: a deadline after which the answer is `cancel`, or declining
///   without asking.
///
/// ```
/// use elicit::client::{AgentIdentity, ClientEngine, ScriptedAsker};
/// use serde_json::json;
///
/// let responder = ClientEngine::new(AgentIdentity::new("deploy-bot"));
/// // A headless client that accepts forms whose required fields all have defaults.
/// let mut asker = ScriptedAsker::accept_defaults();
/// let params = json!({
///     "mode": "form", "sessionId": "s1", "message": "Deploy?",
///     "requestedSchema": { "type": "object", "required": ["passes"], "properties": {
///         "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 },
///         "notify": { "type": "boolean" }
///     } }
/// });
/// let answer = futures_lite_block_on(responder.respond(&mut asker, &params));
/// assert_eq!(answer.unwrap().to_json(), json!({ "action": "accept", "content": { "passes": 2 } }));
/// # fn futures_lite_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     use std::task::{Context, Poll, Waker};
/// #     let mut f = std::pin::pin!(f);
/// #     let mut cx = Context::from_waker(Waker::noop());
/// #     loop { if let Poll::Ready(v) = f.as_mut().poll(&mut cx) { return v; } }
/// # }
/// ```
pub struct ClientEngine {
    agent: AgentIdentity,
    policy: ClientPolicy,
    parse: ParseOptions,
    tracker: Mutex<CompletionTracker>,
    scoped: bool,
}

/// The former name of [`ClientEngine`], which clashed with the ACP SDK's own
/// `Responder` (the handle a request handler answers with).
#[deprecated(
    since = "0.2.0",
    note = "renamed `ClientEngine`: the ACP SDK has a `Responder` of its own"
)]
pub type Responder = ClientEngine;

impl fmt::Debug for ClientEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientEngine")
            .field("agent", &self.agent)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl ClientEngine {
    /// The engine for a connection to `agent` (from `initialize`: ACP's `agentInfo`,
    /// MCP's `serverInfo`), with the default policy and the lenient parse.
    pub fn new(agent: AgentIdentity) -> Self {
        ClientEngine {
            agent,
            policy: ClientPolicy::default(),
            parse: ParseOptions::lenient(),
            tracker: Mutex::new(CompletionTracker::new()),
            scoped: true,
        }
    }

    /// The engine for an MCP connection to `server`: MCP requests have no scope
    /// ([M1](crate::rules#m1)), so none is shown, whatever scope the request was given
    /// when it was read into a [`CreateElicitation`](crate::protocol::CreateElicitation).
    pub fn mcp(server: AgentIdentity) -> Self {
        ClientEngine {
            scoped: false,
            ..Self::new(server)
        }
    }

    /// With this policy.
    pub fn with_policy(mut self, policy: ClientPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// With these parse options (stricter limits, [D12](crate::rules#d12)).
    pub fn with_parse_options(mut self, options: ParseOptions) -> Self {
        self.parse = options;
        self
    }

    /// The agent this connection talks to.
    pub fn agent(&self) -> &AgentIdentity {
        &self.agent
    }

    /// The policy.
    pub fn policy(&self) -> &ClientPolicy {
        &self.policy
    }

    /// The parse options schemas are read with.
    pub fn parse_options(&self) -> &ParseOptions {
        &self.parse
    }

    /// What the client declares in `initialize`: the modes `asker` renders
    /// ([C1](crate::rules#c1)). A client never declares a mode it cannot show.
    pub fn capabilities(&self, asker: &dyn Asker) -> ElicitationCapabilities {
        asker.modes()
    }

    /// Answers the params of an ACP `elicitation/create`: checked against what
    /// `asker` renders ([`check_request`](super::check_request)), then asked. `Err` is
    /// the JSON-RPC error to answer with.
    pub async fn respond(
        &self,
        asker: &mut dyn Asker,
        params: &Value,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        // One checking path: a deadline that never comes.
        self.respond_until(asker, params, std::future::pending())
            .await
    }

    /// [`respond`](Self::respond), answered `cancel` when `deadline` completes first
    /// (the asker's [`StopSignal`] fires and the person is told).
    pub async fn respond_until(
        &self,
        asker: &mut dyn Asker,
        params: &Value,
        deadline: impl Future<Output = ()> + Send,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        let incoming = match check_request_with(&asker.modes(), params, &self.parse) {
            Ok(incoming) => incoming,
            Err(error) => return Err(self.refuse(asker, error)),
        };
        self.answer_until(asker, &incoming, deadline).await
    }

    /// Answers a request already checked (an MCP request read by the SDK
    /// integration, or one from [`check_request`](super::check_request)).
    pub async fn answer(
        &self,
        asker: &mut dyn Asker,
        incoming: &Incoming,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        let stop = StopSignal::new();
        self.ask(asker, incoming, &stop).await
    }

    /// [`answer`](Self::answer) with a deadline: when `deadline` completes before the
    /// person has answered, the question is abandoned ([`StopSignal`]), the person is
    /// told ([`AskerNotice::TimedOut`]) and the answer is `cancel`.
    pub async fn answer_until(
        &self,
        asker: &mut dyn Asker,
        incoming: &Incoming,
        deadline: impl Future<Output = ()> + Send,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        let stop = StopSignal::new();
        let outcome = {
            let asking = pin!(self.ask(&mut *asker, incoming, &stop));
            let deadline = pin!(deadline);
            race(asking, deadline).await
        };
        match outcome {
            Some(answer) => answer,
            None => {
                stop.stop();
                asker.notice(&AskerNotice::TimedOut {
                    agent: self.agent.to_string(),
                });
                Ok(ElicitationResponse::cancel())
            }
        }
    }

    /// An ACP `elicitation/complete` (or MCP `notifications/elicitation/complete`)
    /// for this connection: [`Completion::Completed`] the first time for an id this
    /// client consented to, ignored otherwise ([U6](crate::rules#u6)). On a completion,
    /// tell the person ([`AskerNotice::Completed`]).
    pub fn complete(&self, params: &Value) -> Completion {
        self.tracker().complete_params(params)
    }

    /// Whether a URL elicitation with this id awaits its completion.
    pub fn is_pending(&self, elicitation_id: &str) -> bool {
        self.tracker().is_pending(elicitation_id)
    }

    fn tracker(&self) -> std::sync::MutexGuard<'_, CompletionTracker> {
        self.tracker.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn refuse(&self, asker: &mut dyn Asker, error: JsonRpcError) -> JsonRpcError {
        asker.notice(&AskerNotice::Refused {
            agent: self.agent.to_string(),
            reason: reason_of(&error),
        });
        error
    }

    async fn ask(
        &self,
        asker: &mut dyn Asker,
        incoming: &Incoming,
        stop: &StopSignal,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        let request = incoming.request();
        if let Some(error) = incoming.unsupported_error() {
            // E6: a mode this client does not know is never rendered as a known one.
            return Err(self.refuse(asker, error));
        }
        let intro = Intro {
            agent: &self.agent,
            message: request.message(),
            scope: self.scoped.then(|| request.scope()),
        };
        match request.params() {
            ModeParams::Form { .. } => {
                let form = match FormEngine::from_request(request, self.agent.clone()) {
                    Ok(form) => form,
                    Err(error) => return Err(self.refuse(asker, error.to_jsonrpc_error())),
                };
                if self.policy.never_ask {
                    return Ok(ElicitationResponse::decline());
                }
                Ok(ask_form(asker, form, intro, stop).await)
            }
            ModeParams::Url { .. } => self.ask_url(asker, incoming, intro, stop).await,
            ModeParams::Other { .. } => {
                Err(self.refuse(asker, JsonRpcError::unsupported_mode(request.mode_name())))
            }
        }
    }

    #[cfg(feature = "url")]
    async fn ask_url(
        &self,
        asker: &mut dyn Asker,
        incoming: &Incoming,
        intro: Intro<'_>,
        stop: &StopSignal,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        use super::asker::{Consent, ConsentPrompt};
        let request = incoming.request();
        let review = match incoming.url_review() {
            Some(Ok(review)) => review,
            Some(Err(error)) => {
                // S2, S4: a URL that cannot be offered safely (`javascript:`, a
                // credential in it, …) is declined, and the person told why.
                asker.notice(&AskerNotice::Refused {
                    agent: self.agent.to_string(),
                    reason: format!("its URL cannot be offered: {error}"),
                });
                return Ok(ElicitationResponse::decline());
            }
            None => return Err(JsonRpcError::unsupported_mode(request.mode_name())),
        };
        if self.policy.never_ask {
            return Ok(ElicitationResponse::decline());
        }
        let elicitation_id = request.elicitation_id().unwrap_or_default();
        let consent = asker
            .consent(ConsentPrompt {
                intro,
                review: &review,
                elicitation_id,
                stop,
            })
            .await;
        Ok(match consent {
            Consent::Open => {
                // U6: only ids this client consented to complete.
                self.tracker().track(request);
                ElicitationResponse::accept_without_content()
            }
            Consent::Decline => ElicitationResponse::decline(),
            Consent::Cancel => ElicitationResponse::cancel(),
        })
    }

    #[cfg(not(feature = "url"))]
    async fn ask_url(
        &self,
        asker: &mut dyn Asker,
        incoming: &Incoming,
        _intro: Intro<'_>,
        _stop: &StopSignal,
    ) -> Result<ElicitationResponse, JsonRpcError> {
        // Without URL review this client cannot show a URL safely (S2, S4).
        Err(self.refuse(
            asker,
            JsonRpcError::unsupported_mode(incoming.request().mode_name()),
        ))
    }
}

/// A form, field by field (or whole), until it is sent, declined or cancelled.
async fn ask_form(
    asker: &mut dyn Asker,
    mut form: FormEngine,
    intro: Intro<'_>,
    stop: &StopSignal,
) -> ElicitationResponse {
    // An asker that shows the whole form at once.
    let mut problems = None;
    loop {
        let prompt = FormPrompt {
            intro,
            form: &form,
            problems: problems.as_ref(),
            stop,
        };
        let Some(asking) = asker.ask_form(prompt) else {
            break;
        };
        match asking.await {
            FormAnswer::Submit(content) => {
                // F3: validated here whatever the asker checked; sent in the agent's
                // order (D13), keys that are not fields left out.
                match form.schema().validate(&Value::Object(content.clone())) {
                    Ok(()) => return ElicitationResponse::accept(in_order(&form, content)),
                    Err(errors) => problems = Some(errors),
                }
            }
            FormAnswer::Decline => return ElicitationResponse::decline(),
            FormAnswer::Cancel => return ElicitationResponse::cancel(),
        }
    }

    let count = form.fields().len();
    // The fields to ask, in order: all of them first, then those the review sends
    // back to.
    let mut pending: Vec<usize> = (0..count).collect();
    let mut problem: Vec<Option<FieldError>> = vec![None; count];
    let mut first_pass = true;
    loop {
        let mut k = 0;
        while k < pending.len() {
            let index = pending[k];
            let field = form
                .fields()
                .nth(index)
                .expect("pending indices are fields");
            let name = field.name().to_owned();
            let answer = asker
                .ask_field(FieldPrompt {
                    intro,
                    form: &form,
                    field,
                    position: index,
                    count,
                    problem: problem[index].as_ref(),
                    stop,
                })
                .await;
            let applied = match answer {
                FieldAnswer::Keep => Ok(()),
                FieldAnswer::Clear => form.clear(&name),
                FieldAnswer::Text(text) => form.set_text(&name, &text),
                FieldAnswer::Value(value) => form.set(&name, value),
                FieldAnswer::Back => {
                    problem[index] = None;
                    if first_pass {
                        k = k.saturating_sub(1);
                    }
                    continue;
                }
                FieldAnswer::Decline => return ElicitationResponse::decline(),
                FieldAnswer::Cancel => return ElicitationResponse::cancel(),
            };
            problem[index] = match applied {
                Err(error) => Some(error),
                Ok(()) => missing(&form, index),
            };
            if problem[index].is_none() {
                k += 1;
            }
        }
        first_pass = false;

        // K2, then F3 on the whole form.
        loop {
            let review = form.review();
            let choice = asker
                .review(ReviewPrompt {
                    intro,
                    review: &review,
                    stop,
                })
                .await;
            match choice {
                ReviewChoice::Send => match form.submit() {
                    Ok(response) => return response,
                    Err(errors) => {
                        pending.clear();
                        for (index, field) in form.fields().enumerate() {
                            let kinds: Vec<ValidationErrorKind> =
                                errors.for_property(field.name()).cloned().collect();
                            if !kinds.is_empty() {
                                pending.push(index);
                                problem[index] = Some(FieldError {
                                    field: field.name().to_owned(),
                                    label: field.label().to_owned(),
                                    kind: FieldErrorKind::Invalid(kinds),
                                });
                            }
                        }
                        if pending.is_empty() {
                            // A problem no field can fix (none is known to validation
                            // of a flat form); refusing to send is all that is left.
                            return ElicitationResponse::cancel();
                        }
                        break;
                    }
                },
                ReviewChoice::Edit(name) => {
                    if let Some(index) = form.fields().position(|f| f.name() == name) {
                        pending = vec![index];
                        break;
                    }
                }
                ReviewChoice::Decline => return ElicitationResponse::decline(),
                ReviewChoice::Cancel => return ElicitationResponse::cancel(),
            }
        }
    }
}

/// The problem of a required field left without an answer, to show at once rather
/// than at the review.
fn missing(form: &FormEngine, index: usize) -> Option<FieldError> {
    let field = form.fields().nth(index)?;
    (field.is_required() && field.value().is_none()).then(|| FieldError {
        field: field.name().to_owned(),
        label: field.label().to_owned(),
        kind: FieldErrorKind::Invalid(vec![ValidationErrorKind::Missing]),
    })
}

/// `content`'s fields in the schema's order ([D13](crate::rules#d13)); keys that are not
/// fields are left out.
fn in_order(form: &FormEngine, mut content: Map<String, Value>) -> Map<String, Value> {
    form.fields()
        .filter_map(|f| Some((f.name().to_owned(), content.remove(f.name())?)))
        .collect()
}

/// One line for a person from a JSON-RPC error: its message and `data.message`.
fn reason_of(error: &JsonRpcError) -> String {
    match error
        .data()
        .and_then(|d| d.get("message"))
        .and_then(Value::as_str)
    {
        // The message of an error this crate builds already ends with its detail
        // ("Invalid params: …"): say it once.
        Some(detail) if !error.message().contains(detail) => {
            format!("{} ({detail})", error.message())
        }
        _ => error.message().to_owned(),
    }
}

/// The first of two futures to finish: `Some` with the first's output, `None` when the
/// second (the deadline) finished first.
async fn race<A: Future, B: Future<Output = ()>>(
    mut first: std::pin::Pin<&mut A>,
    mut second: std::pin::Pin<&mut B>,
) -> Option<A::Output> {
    poll_fn(|cx| {
        if let Poll::Ready(output) = first.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if second.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}
