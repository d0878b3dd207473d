//! One tool body for every MCP version: [`Dialog`].
//!
//! MCP 2025-11-25 and MCP 2026-07-28 ask the person in opposite ways. Up to 2025-11-25
//! the server sends `elicitation/create` while the tool runs and waits for the answer.
//! From 2026-07-28 on a server sends nothing of its own ([M6](crate::rules#m6)): the
//! tool answers with an `InputRequiredResult` naming what it needs, and the client
//! calls the tool again with the answers (`inputResponses`) and the state the server
//! gave it (`requestState`), possibly on another instance.
//!
//! A [`Dialog`] hides the difference. The tool is written once, as ordinary sequential
//! code: ask, look at the answer, perhaps ask something else. [`Dialog::run`] runs it:
//!
//! - on a connection that negotiated 2025-11-25 or older, each [`Dialog::form`] sends
//!   `elicitation/create` and waits, as [`PeerElicitor::ask`] does;
//! - on 2026-07-28, the first [`Dialog::form`] without an answer stops the body and the
//!   tool answers with an `InputRequiredResult`: the question, and every answer given so
//!   far sealed into `requestState` under the deployment's [`RoundKey`](super::input::RoundKey)
//!   ([`Rounds`]). The client's retry, on any instance that holds the key, runs the body
//!   again from the top: each question already answered returns its answer at once,
//!   and the body goes on to the next question, or to its end.
//!
//! ```no_run
//! use elicit::rmcp::dialog::Dialog;
//! use elicit::rmcp::input::{RoundKey, Rounds};
//! use elicit::Elicited;
//! use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
//! use rmcp::ErrorData;
//! use elicit::Elicit;
//!
//! #[derive(Elicit, Debug)]
//! struct Booking {
//!     /// How many people
//!     #[elicit(minimum = 1, maximum = 12)]
//!     party_size: u8,
//! }
//!
//! #[derive(Elicit, Debug)]
//! struct Confirm {
//!     /// Pay the deposit and book
//!     confirm: bool,
//! }
//!
//! async fn book_table(rounds: &Rounds, dialog: Dialog) -> Result<CallToolResponse, ErrorData> {
//!     dialog.run(rounds, async {
//!         let Elicited::Accepted(booking) = dialog.form::<Booking>("How many people?").await? else {
//!             return Ok(CallToolResult::success(vec![ContentBlock::text("no booking made")]));
//!         };
//!         if booking.party_size > 8 {
//!             // A second question, only for large parties.
//!             let confirm = dialog.form::<Confirm>("Large parties pay a deposit. Go on?").await?;
//!             if !matches!(confirm, Elicited::Accepted(Confirm { confirm: true })) {
//!                 return Ok(CallToolResult::success(vec![ContentBlock::text("no booking made")]));
//!             }
//!         }
//!         // Side effects after the last question: they run once (see below).
//!         Ok(CallToolResult::success(vec![ContentBlock::text(format!(
//!             "booked for {}", booking.party_size
//!         ))]))
//!     })
//!     .await
//! }
//! ```
//!
//! With rmcp's `#[tool]` macro, take the `Dialog` as an argument of the tool
//! (it implements rmcp's `FromContextPart`), **before** `Parameters`: rmcp hands the
//! tool's arguments to the first argument that takes them, and the dialog binds its
//! sealed state to them. In a hand-written `ServerHandler::call_tool`, make it with
//! [`Dialog::tool_call`].
//!
//! # What runs again on 2026-07-28, and how to keep it safe
//!
//! On 2026-07-28 the body runs once per round: everything before the question that
//! stopped it runs again on the retry. So:
//!
//! - **Do side effects after the last question** (a payment, a write, a message sent).
//!   Code before a question must be safe to run again: reads, checks, computing the
//!   question.
//! - **Anything random or time-dependent that a later round needs** (an order number,
//!   a correlation id in a URL) comes from [`Dialog::remember`]: it is computed once,
//!   sealed into the state, and returned unchanged on every later run.
//! - **Ask the same questions in the same order** given the same answers. A body that
//!   asks something else on the retry (another form, another URL) is refused with
//!   [`AskError::Refused`] saying so, never answered with the wrong answer.
//! - **At most once.** Within its lifetime ([`Rounds::with_ttl`]) a sealed state can be
//!   sent again with the same answers, and the body's last round then runs again,
//!   unless the rounds are [`Rounds::at_most_once`]: each state then opens once, on any
//!   instance sharing the store, and a replay is refused before the body runs. A body
//!   that needs finer control records [`Dialog::round_id`] in a store of its own.
//! - **The user.** The sealed state is bound to the request's authenticated user: the
//!   one of [`Dialog::with_user`] or [`Dialog::with_elicitor`], else a [`UserId`] the
//!   server's authentication put in the request's extensions (rmcp's
//!   `RequestContext::extensions`, or, over rmcp's Streamable HTTP server with feature
//!   `axum`, the extensions of the HTTP request, where an axum middleware inserts it).
//!   Another user's retry is refused; a request without user is refused unless the
//!   rounds are [`Rounds::anonymous`].
//!
//! On 2025-11-25 the body runs once, and these rules cost nothing.
//!
//! # Asking again instead of a dead end
//!
//! An answer the client could not check fully fails on the server: MCP has no
//! `pattern` ([M7](crate::rules#m7)), and a server has rules of its own (a date in the
//! future). Instead of ending the tool call after the person filled every field,
//! [`Dialog::form`] and [`Dialog::form_checked`] ask again, with each problem written
//! beside its field (in the field's description) and named in the message, up to
//! [`Dialog::with_attempts`] times (3 by default, counting the first), on both versions.
//! What was answered correctly is sent back as the form's defaults.
//!
//! # URL mode on both versions
//!
//! [`Dialog::url`] sends the person to a URL. On 2025-11-25 it is
//! [`PeerElicitor::ask_url`]: an `elicitationId` bound to the connection, and
//! [`DialogConsent::complete`] sends `notifications/elicitation/complete`. On 2026-07-28
//! there is no `elicitationId`, no completion notification and no `-32042`
//! ([M6](crate::rules#m6)), so [U4](crate::rules#u4) (the id), [U5](crate::rules#u5)
//! (the completion) and [M4](crate::rules#m4) have no place there: correlate the
//! out-of-band step through the sealed state instead, with a [`remember`](Dialog::remember)ed
//! id in the URL, and check on the retry that the step is done.

use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::task::Poll;

use ::rmcp::handler::server::common::FromContextPart;
use ::rmcp::handler::server::tool::ToolCallContext;
use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, InputRequest, InputRequiredResult,
    InputResponses, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ServerRequest,
};
use ::rmcp::service::{RequestContext, RoleServer};
use ::rmcp::ErrorData;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

pub use crate::agent::Problems;
use crate::agent::{AskError, Elicitor, RefusedError, UserId};
use crate::protocol::mcp::{v2026_07_28, McpSchema, TitledSelect};
use crate::protocol::{CreateElicitation, ElicitationResponse, Mode};
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

use super::input::{elicitation_input, RoundError, RoundRequest, Rounds};
use super::{capabilities_of, mcp_params, mcp_scope, PeerElicitor};

/// How many times one question is asked by default, the first time included.
pub const DEFAULT_ATTEMPTS: u32 = 3;

/// One request's conversation with the person, whatever MCP version the connection
/// negotiated: see the [module docs](self).
#[derive(Debug)]
pub struct Dialog {
    context: RequestContext<RoleServer>,
    request: RoundRequest,
    state: Option<String>,
    responses: Option<InputResponses>,
    elicitor: PeerElicitor,
    attempts: u32,
    progress: Mutex<Progress>,
}

/// What this run of the body has seen and asked.
#[derive(Debug, Default)]
struct Progress {
    /// Answers of earlier rounds (and of this run), by question number.
    settled: Vec<Option<Settled>>,
    /// What the round being answered asked.
    asked: Vec<Asked>,
    /// Values [`Dialog::remember`] computed, in order.
    memo: Vec<Value>,
    /// The round's id, once one was opened.
    round_id: Option<String>,
    next_question: usize,
    next_memo: usize,
    /// The questions that stopped this run, to send in an `InputRequiredResult`.
    stopped: Vec<(InputRequest, Asked)>,
}

/// A question answered for good.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Settled {
    /// What was asked (see [`question_digest`]).
    q: String,
    /// The client's answer, as sent (an `ElicitResult`).
    r: Value,
}

/// A question asked in a round.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Asked {
    /// The question's number in the body.
    n: usize,
    /// The input request's key.
    k: String,
    /// What was asked (see [`question_digest`]).
    q: String,
    /// The how-manieth time it was asked.
    a: u32,
}

/// What the dialog carries from round to round, sealed.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Carried {
    settled: Vec<Option<Settled>>,
    asked: Vec<Asked>,
    memo: Vec<Value>,
}

impl Dialog {
    /// The dialog of a `tools/call` request in a hand-written
    /// `ServerHandler::call_tool`: bound to the tool's name and arguments.
    pub fn tool_call(context: RequestContext<RoleServer>, request: &CallToolRequestParams) -> Self {
        Dialog::new(
            context,
            RoundRequest::tool_call(request),
            request.request_state.clone(),
            request.input_responses.clone(),
        )
    }

    /// The dialog of a `prompts/get` request.
    pub fn prompt(context: RequestContext<RoleServer>, request: &GetPromptRequestParams) -> Self {
        Dialog::new(
            context,
            RoundRequest::prompt(request),
            request.request_state.clone(),
            request.input_responses.clone(),
        )
    }

    /// The dialog of a `resources/read` request.
    pub fn resource(
        context: RequestContext<RoleServer>,
        request: &ReadResourceRequestParams,
    ) -> Self {
        Dialog::new(
            context,
            RoundRequest::resource(request),
            request.request_state.clone(),
            request.input_responses.clone(),
        )
    }

    fn new(
        context: RequestContext<RoleServer>,
        mut request: RoundRequest,
        state: Option<String>,
        responses: Option<InputResponses>,
    ) -> Self {
        let mut elicitor = PeerElicitor::new(&context.peer);
        if let Some(user) = user_in_extensions(&context) {
            request = request.for_user(&user);
            elicitor = elicitor.with_user(user);
        }
        Dialog {
            context,
            request,
            state,
            responses,
            elicitor,
            attempts: DEFAULT_ATTEMPTS,
            progress: Mutex::new(Progress::default()),
        }
    }

    /// Asks through this connection's [`PeerElicitor`] (on 2025-11-25 and older): its
    /// user, registry, URL policy and link rule. Keep one per connection and pass it
    /// here, so that URL elicitations are bound to the connection
    /// ([E5](crate::rules#e5)). On 2026-07-28 its user, URL policy and link rule apply.
    ///
    /// An elicitor without user keeps the user of the request's extensions, if any.
    #[must_use]
    pub fn with_elicitor(mut self, elicitor: PeerElicitor) -> Self {
        let known = self.elicitor.elicitor().user().cloned();
        self.elicitor = match (elicitor.elicitor().user().cloned(), known) {
            (Some(user), _) => {
                self.request = self.request.for_user(&user);
                elicitor
            }
            (None, Some(user)) => elicitor.with_user(user),
            (None, None) => elicitor,
        };
        self
    }

    /// The authenticated user ([E5](crate::rules#e5), [S6](crate::rules#s6)): URL
    /// elicitations are bound to them, and on 2026-07-28 the sealed state opens only
    /// for them.
    #[must_use]
    pub fn with_user(mut self, user: UserId) -> Self {
        self.request = self.request.for_user(&user);
        self.elicitor = self.elicitor.with_user(user);
        self
    }

    /// How many times one question may be asked, the first time included (at least
    /// 1; [`DEFAULT_ATTEMPTS`] by default).
    #[must_use]
    pub fn with_attempts(mut self, attempts: u32) -> Self {
        self.attempts = attempts.max(1);
        self
    }

    /// Whether this request asks in rounds (MCP 2026-07-28 and later) rather than by
    /// sending `elicitation/create` while the tool runs.
    pub fn in_rounds(&self) -> bool {
        self.context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28)
    }

    /// The protocol version this request speaks, as negotiated or declared.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.context.protocol_version()
    }

    /// Whether the client can be asked in this mode ([C7](crate::rules#c7)): what
    /// `initialize` declared on 2025-11-25, what this request's `_meta` declares on
    /// 2026-07-28 ([M6](crate::rules#m6)).
    pub fn supports(&self, mode: Mode) -> bool {
        if self.in_rounds() {
            self.declared().supports(mode)
        } else {
            self.elicitor.supports(mode)
        }
    }

    /// The request's context.
    pub fn context(&self) -> &RequestContext<RoleServer> {
        &self.context
    }

    /// The id of the round this run continues (2026-07-28): `None` on a first call and
    /// on 2025-11-25. Record it where the body's end must happen at most once.
    pub fn round_id(&self) -> Option<String> {
        self.progress().round_id.clone()
    }

    /// Runs the tool's body: to its end on 2025-11-25; on 2026-07-28 until its end or
    /// until a question has no answer yet, when the result is an
    /// `InputRequiredResult` with the question and the sealed state.
    ///
    /// Refused before the body runs, with `-32602`: a `requestState` that is not one
    /// these rounds sealed, expired, or sealed for another request or user
    /// ([`RoundError`]). An error of the body is the request's error: an [`AskError`]
    /// becomes one with `?` (`-32602` for an answer that stayed invalid, `-32603` for
    /// the rest).
    pub async fn run<R: DialogResult>(
        &self,
        rounds: &Rounds,
        body: impl Future<Output = Result<R, ErrorData>>,
    ) -> Result<R::Response, ErrorData> {
        if self.in_rounds() {
            self.open(rounds)?;
        }
        let mut body = pin!(body);
        let ended = poll_fn(|cx| match body.as_mut().poll(cx) {
            Poll::Ready(result) => Poll::Ready(Some(result)),
            // A question without an answer stopped the body: it waits for nothing
            // that will ever wake it, so it is dropped here.
            Poll::Pending if !self.progress().stopped.is_empty() => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        })
        .await;
        match ended {
            Some(Ok(result)) => Ok(result.into_response()),
            Some(Err(error)) => Err(error),
            None => Ok(R::input_required(self.seal(rounds)?)),
        }
    }

    /// Asks the person to fill in the form `T`, and returns the validated answer or
    /// their decline or cancel ([R5](crate::rules#r5)).
    ///
    /// An accepted answer that breaks the schema (`pattern` included, which MCP cannot
    /// carry, [M7](crate::rules#m7)) is asked again with the problems beside their
    /// fields, up to [`with_attempts`](Self::with_attempts) times; after the last,
    /// [`AskError::Invalid`]. Refused before asking as [`PeerElicitor::ask`] refuses
    /// (no form mode declared, [C7](crate::rules#c7); a link in the form,
    /// [F7](crate::rules#f7)).
    pub async fn form<T: Elicit>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        self.form_checked(message, |_: &T| Ok(())).await
    }

    /// As [`form`](Self::form), with a check of the server's own on the typed answer
    /// (a date in the future, a name not taken): when it returns [`Problems`], the form
    /// is asked again with them beside their fields; after the last attempt, the
    /// problems are [`AskError::Unaccepted`].
    pub async fn form_checked<T: Elicit>(
        &self,
        message: impl Into<String>,
        check: impl Fn(&T) -> Result<(), Problems>,
    ) -> Result<Elicited<T>, AskError> {
        self.form_as(None, message.into(), &[], &check).await
    }

    /// As [`form`](Self::form), with the MCP form of `T`'s schema chosen by the server:
    /// the properties named with [`McpSchema::with_legacy_titled`] go out as MCP's
    /// legacy titled select, `enum` + `enumNames` ([M5](crate::rules#m5)). Make `schema`
    /// with `McpSchema::from_static(T::requested_schema())`: only its choice of legacy
    /// properties is used, on `T`'s schema.
    pub async fn form_mcp<T: Elicit>(
        &self,
        message: impl Into<String>,
        schema: &McpSchema,
    ) -> Result<Elicited<T>, AskError> {
        self.form_as(
            None,
            message.into(),
            schema.legacy_properties(),
            &|_: &T| Ok(()),
        )
        .await
    }

    /// Asks anything else a client can be asked (`sampling/createMessage`, `roots/list`,
    /// or an elicitation built by hand) and returns the client's result as sent: pushed
    /// as a request up to 2025-11-25, an input request of the round from 2026-07-28 on.
    /// Ask only what the client declared ([`client_capabilities`](Self::client_capabilities)):
    /// the server's duty here.
    pub async fn input(&self, request: InputRequest) -> Result<Value, AskError> {
        self.input_as(None, request).await
    }

    /// The questions that follow, under the input request key `key` instead of the
    /// one the dialog picks (`ask-1`, `ask-2`, … by question number): for a client or
    /// a test that expects a key by name. Keys must differ between the questions of one
    /// round.
    pub fn key(&self, key: impl Into<String>) -> Keyed<'_> {
        Keyed {
            dialog: self,
            key: key.into(),
        }
    }

    async fn input_as(
        &self,
        key: Option<String>,
        request: InputRequest,
    ) -> Result<Value, AskError> {
        if !self.in_rounds() {
            let request = match request {
                InputRequest::CreateMessage(r) => ServerRequest::CreateMessageRequest(r),
                InputRequest::ListRoots(r) => ServerRequest::ListRootsRequest(r),
                InputRequest::Elicitation(r) => ServerRequest::ElicitRequest(r),
                _ => return Err(AskError::transport("an input request rmcp cannot send")),
            };
            let result = self
                .context
                .peer
                .send_request(request)
                .await
                .map_err(super::ask_error)?;
            return serde_json::to_value(&result).map_err(AskError::transport);
        }
        let json = serde_json::to_value(&request).map_err(AskError::transport)?;
        let digest = question_digest("input", &json);
        let q = self.next_question(key);
        match self.answer_to(&q, &digest)? {
            Answer::Settled(json) => Ok(json),
            Answer::Given(json, _) => {
                self.settle(q.n, &digest, &json);
                Ok(json)
            }
            Answer::None(attempt) => self.stop(q, digest, attempt, request).await,
        }
    }

    /// What the client declared it can do: on 2026-07-28 in this request's `_meta`
    /// ([M6](crate::rules#m6)), before in `initialize`.
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.context.client_capabilities()
    }

    async fn form_as<T: Elicit>(
        &self,
        key: Option<String>,
        message: String,
        legacy: &[String],
        check: &impl Fn(&T) -> Result<(), Problems>,
    ) -> Result<Elicited<T>, AskError> {
        let schema = T::requested_schema();
        if self.in_rounds() {
            let digest = question_digest("form", &schema.to_json());
            let q = self.next_question(key);
            self.form_in_rounds(q, &message, schema, &digest, legacy, check)
                .await
        } else {
            self.form_pushed(&message, schema, legacy, check).await
        }
    }

    #[cfg(feature = "url")]
    /// Sends the person to `url` (URL mode, [U1](crate::rules#u1)) and returns their
    /// choice: `Accepted` is their consent to open it, not the end of what they do
    /// there ([U2](crate::rules#u2)). See the [module docs](self#url-mode-on-both-versions)
    /// for what differs between the versions.
    ///
    /// Refused before asking: no URL mode declared ([C7](crate::rules#c7); never turned
    /// into a form, [F6](crate::rules#f6)), a URL the policy refuses
    /// ([S1](crate::rules#s1)).
    pub async fn url(
        &self,
        message: impl Into<String>,
        url: &str,
    ) -> Result<Elicited<DialogConsent>, AskError> {
        self.url_as(None, message.into(), url).await
    }

    #[cfg(feature = "url")]
    async fn url_as(
        &self,
        key: Option<String>,
        message: String,
        url: &str,
    ) -> Result<Elicited<DialogConsent>, AskError> {
        if !self.in_rounds() {
            return Ok(match self.elicitor.ask_url(message, url).await? {
                Elicited::Accepted(consent) => Elicited::Accepted(DialogConsent {
                    pushed: Some(consent),
                }),
                Elicited::Declined => Elicited::Declined,
                Elicited::Cancelled => Elicited::Cancelled,
            });
        }
        let elicitor = self.rounds_elicitor();
        // C7, and F6: a URL-mode question is never turned into a form.
        if !elicitor.supports(Mode::Url) {
            return Err(AskError::ModeNotSupported(Mode::Url));
        }
        // S1.
        let checked = elicitor
            .url_policy()
            .check(url)
            .map_err(|error| AskError::Refused(RefusedError::UnsafeUrl(error)))?;
        let digest = question_digest("url", &Value::String(checked.clone()));
        let q = self.next_question(key);
        let response = match self.answer_to(&q, &digest)? {
            Answer::Settled(json) => read_response(&json)?,
            Answer::Given(json, _) => {
                let response = read_response(&json)?;
                self.settle(q.n, &digest, &json);
                response
            }
            Answer::None(attempt) => {
                let params = v2026_07_28::UrlParams::new(message, checked)
                    .map_err(|error| AskError::Refused(RefusedError::InvalidParams(error)))?;
                let params = v2026_07_28::ElicitRequestParams::Url(params).to_json();
                return self
                    .stop(q, digest, attempt, elicitation_input(params)?)
                    .await;
            }
        };
        // U3: content sent back with a URL answer is never read.
        Ok(match response.action() {
            crate::protocol::Action::Accept => Elicited::Accepted(DialogConsent { pushed: None }),
            crate::protocol::Action::Decline => Elicited::Declined,
            crate::protocol::Action::Cancel => Elicited::Cancelled,
            crate::protocol::Action::Other(action) => {
                return Err(crate::agent::unknown_action(action))
            }
        })
    }

    /// A value computed once for the whole dialog: on 2026-07-28 the first run
    /// computes it and seals it into the state, and every later round gets it back
    /// unchanged, without calling `make`. Use it for what is random or time-dependent
    /// and needed again later (an id in a URL, a quote's price), never for a side
    /// effect that must not happen before the last question (see the module docs).
    pub fn remember<V: Serialize + DeserializeOwned>(
        &self,
        make: impl FnOnce() -> V,
    ) -> Result<V, AskError> {
        if !self.in_rounds() {
            return Ok(make());
        }
        let mut progress = self.progress();
        let n = progress.next_memo;
        progress.next_memo += 1;
        if let Some(value) = progress.memo.get(n) {
            return serde_json::from_value(value.clone()).map_err(|error| {
                refused(format!(
                    "the value remembered as the dialog's {} differs in type from the one \
                     the body asks for now ({error}); the body must remember the same things \
                     in the same order on every round",
                    ordinal(n)
                ))
            });
        }
        drop(progress);
        let value = make();
        let json = serde_json::to_value(&value).map_err(AskError::transport)?;
        self.progress().memo.push(json);
        Ok(value)
    }

    // ---- 2025-11-25: send and wait ----

    async fn form_pushed<T: Elicit>(
        &self,
        message: &str,
        schema: &RequestedSchema,
        legacy: &[String],
        check: &impl Fn(&T) -> Result<(), Problems>,
    ) -> Result<Elicited<T>, AskError> {
        self.elicitor.check_pushable()?;
        let mut problems: Option<(Problems, Value)> = None;
        for attempt in 1..=self.attempts {
            let request = match &problems {
                None => self.elicitor.elicitor().form::<T>(mcp_scope(), message)?,
                Some((problems, content)) => {
                    let (schema, message) = asked_again(schema, message, problems, content)?;
                    self.elicitor
                        .elicitor()
                        .form_schema(mcp_scope(), message, &schema)?
                }
            };
            let response = self.elicitor.send_with(&request, legacy).await?;
            match judge(&response, check) {
                Judged::Final(answer) => return answer,
                Judged::Again(found, failed) if attempt < self.attempts => {
                    problems = Some((found, response.content_value().cloned().unwrap_or_default()));
                    let _ = failed;
                }
                Judged::Again(_, failed) => return Err(failed),
            }
        }
        unreachable!("the last attempt returns")
    }

    // ---- 2026-07-28: rounds ----

    async fn form_in_rounds<T: Elicit>(
        &self,
        q: Question,
        message: &str,
        schema: &RequestedSchema,
        digest: &str,
        legacy: &[String],
        check: &impl Fn(&T) -> Result<(), Problems>,
    ) -> Result<Elicited<T>, AskError> {
        let (json, attempt) = match self.answer_to(&q, digest)? {
            Answer::Settled(json) => {
                return T::from_response(&read_response(&json)?).map_err(AskError::Invalid)
            }
            Answer::None(attempt) => {
                let request = self
                    .rounds_elicitor()
                    .form::<T>(mcp_scope(), message.to_owned())?;
                let input = form_input(&request, legacy)?;
                return self.stop(q, digest.to_owned(), attempt, input).await;
            }
            Answer::Given(json, attempt) => (json, attempt),
        };
        let response = read_response(&json)?;
        match judge(&response, check) {
            Judged::Final(answer) => {
                if answer.is_ok() {
                    self.settle(q.n, digest, &json);
                }
                answer
            }
            Judged::Again(problems, _) if attempt < self.attempts => {
                let content = response.content_value().cloned().unwrap_or_default();
                let (schema, message) = asked_again(schema, message, &problems, &content)?;
                let request = self
                    .rounds_elicitor()
                    .form_schema(mcp_scope(), message, &schema)?;
                let input = form_input(&request, legacy)?;
                self.stop(q, digest.to_owned(), attempt + 1, input).await
            }
            Judged::Again(_, failed) => Err(failed),
        }
    }

    /// Opens the state the retry carries, if any.
    fn open(&self, rounds: &Rounds) -> Result<(), RoundError> {
        let Some(answers) = rounds.open(
            &self.request,
            self.state.as_deref(),
            self.responses.as_ref(),
        )?
        else {
            return Ok(());
        };
        // Authentic from here on: only a holder of the key sealed it.
        let carried: Carried = serde_json::from_value(answers.data().clone())
            .map_err(|_| RoundError::Malformed("not a dialog's state"))?;
        let mut progress = self.progress();
        progress.settled = carried.settled;
        progress.asked = carried.asked;
        progress.memo = carried.memo;
        progress.round_id = Some(answers.round_id().to_owned());
        Ok(())
    }

    /// The `InputRequiredResult` for the questions that stopped the body.
    fn seal(&self, rounds: &Rounds) -> Result<InputRequiredResult, ErrorData> {
        let mut progress = self.progress();
        let stopped = std::mem::take(&mut progress.stopped);
        let carried = Carried {
            settled: progress.settled.clone(),
            asked: stopped.iter().map(|(_, asked)| asked.clone()).collect(),
            memo: progress.memo.clone(),
        };
        drop(progress);
        let mut round = rounds.begin(self.request.clone());
        for (request, asked) in stopped {
            round.request(asked.k.clone(), request);
        }
        let data = serde_json::to_value(&carried)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
        Ok(round.carry(data).seal()?)
    }

    fn next_question(&self, key: Option<String>) -> Question {
        let mut progress = self.progress();
        let n = progress.next_question;
        progress.next_question += 1;
        Question {
            n,
            key: key.unwrap_or_else(|| format!("ask-{}", n + 1)),
        }
    }

    /// What is known of question `n`, which asks `digest`.
    fn answer_to(&self, q: &Question, digest: &str) -> Result<Answer, AskError> {
        let n = q.n;
        let progress = self.progress();
        if let Some(Some(settled)) = progress.settled.get(n) {
            if settled.q != digest {
                return Err(changed_question(n));
            }
            return Ok(Answer::Settled(settled.r.clone()));
        }
        let Some(asked) = progress.asked.iter().find(|asked| asked.n == n) else {
            // No state: the ephemeral flow, where a client may answer a question of the
            // first round under its key without being asked (the answer is judged as
            // any other).
            if self.state.is_none() {
                if let Some(json) = self.responses.as_ref().and_then(|r| r.get(&q.key)) {
                    return Ok(Answer::Given(json.clone(), 1));
                }
            }
            return Ok(Answer::None(1));
        };
        if asked.q != digest {
            return Err(changed_question(n));
        }
        match self.responses.as_ref().and_then(|r| r.get(&asked.k)) {
            Some(json) => Ok(Answer::Given(json.clone(), asked.a)),
            // Asked and not answered: ask again, as the spec recommends over an error.
            None => Ok(Answer::None(asked.a)),
        }
    }

    fn settle(&self, n: usize, digest: &str, response: &Value) {
        let mut progress = self.progress();
        if progress.settled.len() <= n {
            progress.settled.resize(n + 1, None);
        }
        progress.settled[n] = Some(Settled {
            q: digest.to_owned(),
            r: response.clone(),
        });
    }

    /// Stops the body at question `n`: records the request, then waits forever;
    /// [`run`](Self::run) sees the record and answers with it.
    async fn stop<V>(
        &self,
        q: Question,
        digest: String,
        attempt: u32,
        request: InputRequest,
    ) -> Result<V, AskError> {
        let asked = Asked {
            n: q.n,
            k: q.key,
            q: digest,
            a: attempt,
        };
        self.progress().stopped.push((request, asked));
        std::future::pending().await
    }

    /// The elicitor of this request on 2026-07-28: the capabilities it declares in its
    /// `_meta` ([M6](crate::rules#m6)), with the connection elicitor's settings.
    fn rounds_elicitor(&self) -> Elicitor {
        self.elicitor
            .elicitor()
            .clone()
            .with_capabilities(self.declared())
    }

    fn declared(&self) -> crate::protocol::ElicitationCapabilities {
        let capabilities = self.context.client_capabilities();
        capabilities_of(capabilities.and_then(|c| c.elicitation).as_ref())
    }

    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The authenticated user the request carries in its extensions, where the server's
/// authentication put it: a [`UserId`] in rmcp's `RequestContext::extensions`, or (over
/// rmcp's Streamable HTTP server, with feature `axum`) in the extensions of the HTTP
/// request's parts, which rmcp puts in the context.
fn user_in_extensions(context: &RequestContext<RoleServer>) -> Option<UserId> {
    if let Some(user) = context.extensions.get::<UserId>() {
        return Some(user.clone());
    }
    #[cfg(feature = "axum")]
    if let Some(parts) = context.extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<UserId>().cloned();
    }
    None
}

/// Takes the dialog of a tool call in a `#[tool]` function of rmcp's macros. Put it
/// before `Parameters`, which takes the arguments the dialog binds its state to.
impl<S> FromContextPart<ToolCallContext<'_, S>> for Dialog {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(Dialog::new(
            context.request_context.clone(),
            RoundRequest::new("tools/call", &context.name, context.arguments.as_ref()),
            context.request_state.clone(),
            context.input_responses.clone(),
        ))
    }
}

/// What a URL-mode question's accepted answer gives: the person's consent.
#[cfg(feature = "url")]
#[derive(Debug)]
pub struct DialogConsent {
    pushed: Option<super::UrlConsent>,
}

/// The former name of [`DialogConsent`], which `client::Consent` (a person's answer to
/// a URL question, on the client side) shares.
#[cfg(feature = "url")]
#[deprecated(
    since = "0.2.0",
    note = "renamed `DialogConsent`: `elicit::client::Consent` is the client side's"
)]
pub type Consent = DialogConsent;

#[cfg(feature = "url")]
impl DialogConsent {
    /// The `elicitationId` of the URL elicitation (2025-11-25); `None` on 2026-07-28,
    /// which has none ([M6](crate::rules#m6)).
    pub fn elicitation_id(&self) -> Option<&str> {
        self.pushed.as_ref().map(super::UrlConsent::elicitation_id)
    }

    /// Says the out-of-band step is done: `notifications/elicitation/complete` on
    /// 2025-11-25 ([U5](crate::rules#u5)); nothing on 2026-07-28, which has no such
    /// notification (the retry carries on instead).
    pub async fn complete(self, user: Option<&UserId>) -> Result<(), super::CompleteError> {
        match self.pushed {
            Some(consent) => consent.complete(user).await,
            None => Ok(()),
        }
    }
}

/// What a body's result becomes: the request's response, or its `InputRequiredResult`.
pub trait DialogResult {
    /// The response of the request (`CallToolResponse` for a tool).
    type Response;
    /// The finished result as the response.
    fn into_response(self) -> Self::Response;
    /// A round that needs input, as the response.
    fn input_required(result: InputRequiredResult) -> Self::Response;
}

impl DialogResult for CallToolResult {
    type Response = CallToolResponse;
    fn into_response(self) -> CallToolResponse {
        self.into()
    }
    fn input_required(result: InputRequiredResult) -> CallToolResponse {
        result.into()
    }
}

impl DialogResult for CallToolResponse {
    type Response = CallToolResponse;
    fn into_response(self) -> CallToolResponse {
        self
    }
    fn input_required(result: InputRequiredResult) -> CallToolResponse {
        result.into()
    }
}

impl DialogResult for GetPromptResult {
    type Response = GetPromptResponse;
    fn into_response(self) -> GetPromptResponse {
        self.into()
    }
    fn input_required(result: InputRequiredResult) -> GetPromptResponse {
        result.into()
    }
}

impl DialogResult for ReadResourceResult {
    type Response = ReadResourceResponse;
    fn into_response(self) -> ReadResourceResponse {
        self.into()
    }
    fn input_required(result: InputRequiredResult) -> ReadResourceResponse {
        result.into()
    }
}

/// One question of the body: its number, and the key it is asked under.
struct Question {
    n: usize,
    key: String,
}

/// The questions of a [`Dialog`] asked under a key of the server's choice
/// ([`Dialog::key`]).
#[derive(Debug)]
pub struct Keyed<'d> {
    dialog: &'d Dialog,
    key: String,
}

impl Keyed<'_> {
    /// [`Dialog::form`], under this key.
    pub async fn form<T: Elicit>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        self.dialog
            .form_as(Some(self.key), message.into(), &[], &|_: &T| Ok(()))
            .await
    }

    /// [`Dialog::form_checked`], under this key.
    pub async fn form_checked<T: Elicit>(
        self,
        message: impl Into<String>,
        check: impl Fn(&T) -> Result<(), Problems>,
    ) -> Result<Elicited<T>, AskError> {
        self.dialog
            .form_as(Some(self.key), message.into(), &[], &check)
            .await
    }

    /// [`Dialog::url`], under this key.
    #[cfg(feature = "url")]
    pub async fn url(
        self,
        message: impl Into<String>,
        url: &str,
    ) -> Result<Elicited<DialogConsent>, AskError> {
        self.dialog
            .url_as(Some(self.key), message.into(), url)
            .await
    }

    /// [`Dialog::input`], under this key.
    pub async fn input(self, request: InputRequest) -> Result<Value, AskError> {
        self.dialog.input_as(Some(self.key), request).await
    }
}

/// What is known of one question: the client's answer as sent.
enum Answer {
    /// Answered in an earlier round, for good.
    Settled(Value),
    /// Answered in this retry, at this attempt.
    Given(Value, u32),
    /// Not answered: ask it, this time as the how-manieth.
    None(u32),
}

/// An answer, judged.
enum Judged<T> {
    /// What the question returns.
    Final(Result<Elicited<T>, AskError>),
    /// Worth asking again with these problems; else this error.
    Again(Problems, AskError),
}

fn judge<T: Elicit>(
    response: &ElicitationResponse,
    check: &impl Fn(&T) -> Result<(), Problems>,
) -> Judged<T> {
    match T::from_response(response) {
        Ok(Elicited::Accepted(value)) => match check(&value) {
            Ok(()) => Judged::Final(Ok(Elicited::Accepted(value))),
            Err(problems) if problems.is_empty() => Judged::Final(Ok(Elicited::Accepted(value))),
            Err(problems) => Judged::Again(problems.clone(), AskError::Unaccepted(problems)),
        },
        Ok(other) => Judged::Final(Ok(other)),
        // R5: an unknown action is no answer to ask again.
        Err(errors)
            if errors.errors().iter().any(|e| {
                matches!(
                    e.kind,
                    crate::content::ValidationErrorKind::UnknownAction { .. }
                )
            }) =>
        {
            Judged::Final(Err(AskError::Invalid(errors)))
        }
        Err(errors) => Judged::Again(problems_of(&errors), AskError::Invalid(errors)),
    }
}

/// The form asked again: each problem written first in its property's description,
/// the valid answers given back as defaults, and the message saying why.
fn asked_again(
    schema: &RequestedSchema,
    message: &str,
    problems: &Problems,
    content: &Value,
) -> Result<(RequestedSchema, String), AskError> {
    let mut json = schema.to_json();
    let mut whole = Vec::new();
    let mut named = Vec::new();
    if let Some(properties) = json.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, problem) in problems.iter() {
            let property = name.and_then(|name| properties.get_mut(name).map(|p| (name, p)));
            let Some((name, Value::Object(property))) = property else {
                whole.push(problem.to_owned());
                continue;
            };
            let label = property
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or(name)
                .to_owned();
            warn_beside(property, problem);
            named.push(format!("{label}: {problem}"));
        }
        // What was right is offered again, so that only the wrong fields need typing.
        for (name, property) in properties.iter_mut() {
            let wrong = problems.iter().any(|(n, _)| n == Some(name.as_str()));
            if let (false, Some(value), Value::Object(property)) =
                (wrong, content.get(name), property)
            {
                property.insert("default".into(), value.clone());
            }
        }
    }
    let mut lines = vec![message.to_owned(), String::new()];
    lines.push("Some answers need another look:".to_owned());
    lines.extend(named.iter().chain(&whole).map(|line| format!("- {line}")));
    let again = lines.join("\n");
    match RequestedSchema::from_json(&json) {
        Ok(schema) => Ok((schema, again)),
        // A given value that cannot be a default (a type the property does not take):
        // ask again without the defaults rather than not at all.
        Err(_) => {
            let mut json = schema.to_json();
            if let Some(properties) = json.get_mut("properties").and_then(Value::as_object_mut) {
                for (name, problem) in problems.iter() {
                    if let Some(Value::Object(property)) = name.and_then(|n| properties.get_mut(n))
                    {
                        warn_beside(property, problem);
                    }
                }
            }
            let schema = RequestedSchema::from_json(&json)
                .map_err(|error| AskError::Refused(RefusedError::InvalidSchema(error)))?;
            Ok((schema, again))
        }
    }
}

/// The problems of an answer that broke the schema, each beside its property.
fn problems_of(errors: &crate::content::ValidationErrors) -> Problems {
    errors
        .errors()
        .iter()
        .fold(Problems::new(), |problems, error| match &error.property {
            Some(name) => problems.field(name.clone(), problem_words(&error.kind)),
            None => problems.answer(problem_words(&error.kind)),
        })
}

/// Writes `problem` first in the property's description, where the client shows it
/// beside the field.
fn warn_beside(property: &mut serde_json::Map<String, Value>, problem: &str) {
    let description = match property.get("description").and_then(Value::as_str) {
        Some(before) => format!("⚠ {problem}. {before}"),
        None => format!("⚠ {problem}."),
    };
    property.insert("description".into(), Value::String(description));
}

/// A validation problem in words that never repeat the person's answer: the form
/// that shows it must not hold a link the answer had ([F7](crate::rules#f7)).
fn problem_words(kind: &crate::content::ValidationErrorKind) -> String {
    use crate::content::ValidationErrorKind::*;
    match kind {
        NotAnOption { .. } => "is not one of the options".to_owned(),
        ItemNotAnOption { index, .. } => format!("item {index} is not one of the options"),
        Missing => "is required".to_owned(),
        other => other.to_string().trim_start_matches("is ").to_owned(),
    }
}

/// A digest of what a question asks: its kind and what defines it (a form's full
/// schema, `pattern` included; a URL).
fn question_digest(kind: &str, what: &Value) -> String {
    let digest = Sha256::new()
        .chain_update(b"elicit/rmcp/dialog/")
        .chain_update(kind.as_bytes())
        .chain_update([0])
        .chain_update(what.to_string().as_bytes())
        .finalize();
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

fn read_response(json: &Value) -> Result<ElicitationResponse, AskError> {
    ElicitationResponse::from_json(json).map_err(AskError::MalformedResponse)
}

/// A form request in MCP 2026-07-28 form (titled selects as `oneOf`, but for the
/// `legacy` properties, [M5](crate::rules#m5)), as an rmcp input request.
fn form_input(request: &CreateElicitation, legacy: &[String]) -> Result<InputRequest, AskError> {
    let params = mcp_params::<v2026_07_28::UrlParams>(request, TitledSelect::OneOf, legacy)?;
    elicitation_input(params.to_json())
}

fn changed_question(n: usize) -> AskError {
    refused(format!(
        "the tool asked something else as its {} question than in the round being \
         answered (another form or URL); the body must ask the same questions in the same \
         order given the same answers, with anything random taken from `Dialog::remember`",
        ordinal(n)
    ))
}

fn refused(message: String) -> AskError {
    AskError::NotReplayable(message)
}

fn ordinal(n: usize) -> String {
    let n = n + 1;
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
