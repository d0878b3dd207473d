//! ACP → ACP forwarding: an ACP agent that drives another ACP agent (a proxy, a nested
//! provider) asks the inner agent's elicitations through its own client.
//!
//! [`AcpForward`] holds the outer side (the connection to the person's client, its
//! [`Elicitor`], the inner sessions bound to outer ones); [`ForwardHandler`] is the
//! client handler on the connection to the inner agent, which claims that agent's
//! `elicitation/create` and `elicitation/complete`.
//!
//! Custom and future modes and actions ([E6](crate::rules#e6)): the forwarding offers
//! the inner agent form and URL mode only (as far as the person's client declared them),
//! because those are the modes it can check on the way; ACP's capability object has no
//! member in which a client could declare another one. A request in any other mode is
//! refused with `-32602` ([C7](crate::rules#c7)), never shown as a form or a link. An
//! answer from the person's client in an action elicit does not know (`_defer`, a
//! future action) is passed to the inner agent exactly as received, member for member:
//! the forwarding cannot read it and must not rewrite it. Such an answer to a URL
//! request is not consent, so no completion is carried for it.

use std::collections::HashMap;
use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ::agent_client_protocol::v1::schema::ClientCapabilities;
use ::agent_client_protocol::{
    Agent, Client, ConnectionTo, Dispatch, HandleDispatchFrom, Handled, RequestCancellation,
};
use futures::future::{self, Either};
use serde_json::{json, Value};

use crate::agent::{AskError, Elicitor};
use crate::agent_client_protocol::{
    ask_schema_or_raw, ask_url_or_raw, cancel_session, Answer, UrlConsent,
};
use crate::protocol::{
    CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse,
    JsonRpcError, Mode, ModeParams, Scope,
};
use crate::typed::Elicited;

/// The forwarding of one inner ACP agent's elicitations to the outer ACP client: see
/// the [module documentation](super).
///
/// Made in the outer `initialize` handler, from the outer connection and the
/// [`Elicitor`] made from what the outer client declared. Cheap to clone: clones share
/// the session bindings and the URL consents waiting for their completion. Use one per
/// inner connection (several may share the outer connection and one `Elicitor`): the
/// inner agent's session and elicitation ids are only meaningful on its connection
/// ([E5](crate::rules#e5)).
#[derive(Clone)]
pub struct AcpForward {
    shared: Arc<Shared>,
}

struct Shared {
    outer: ConnectionTo<Client>,
    elicitor: Elicitor,
    /// Inner `sessionId` → outer `sessionId`.
    sessions: Mutex<HashMap<String, String>>,
    /// The URL elicitations the person consented to, waiting for the inner agent's
    /// `elicitation/complete`, by the inner agent's `elicitationId`.
    bindings: Mutex<HashMap<String, RequestBinding>>,
}

/// One inner URL elicitation bound to the outer one it was asked as: the inner
/// agent's `elicitationId` and the outer consent (its fresh outer id), kept until the
/// inner agent completes it. Dropping it forgets the outer elicitation.
struct RequestBinding {
    consent: UrlConsent,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update is one insert or remove: a poisoned lock is still whole.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl fmt::Debug for AcpForward {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AcpForward")
            .field("connection", &self.shared.elicitor.connection())
            .field("capabilities", &self.capabilities_offered())
            .field("sessions", &*lock(&self.shared.sessions))
            .field("pending_completions", &self.pending_completions())
            .finish_non_exhaustive()
    }
}

/// The modes the forwarding carries: form and URL (a custom mode cannot be checked on
/// the way, so it is never offered to the inner agent).
const CARRIED: [Mode; 2] = [Mode::Form, Mode::Url];

impl AcpForward {
    /// Forwarding to `outer` (the SDK's connection to the person's client, as the
    /// outer agent's handlers receive it) through `elicitor`, the outer connection's
    /// [`Elicitor`] made from what the outer client declared in `initialize`: its
    /// capabilities bound what is offered to the inner agent, its URL policy checks
    /// the inner agent's URLs ([S1](crate::rules#s1)), its registry mints the outer
    /// `elicitationId`s.
    pub fn new(outer: impl Into<ConnectionTo<Client>>, elicitor: Elicitor) -> Self {
        AcpForward {
            shared: Arc::new(Shared {
                outer: outer.into(),
                elicitor,
                sessions: Mutex::new(HashMap::new()),
                bindings: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// The handler to install on the connection to the inner agent,
    /// `Client.v1().with_handler(forward.handler())`: it answers the inner agent's
    /// `elicitation/create` by asking the outer client, acts on its
    /// `elicitation/complete`, and passes every other message on.
    pub fn handler(&self) -> ForwardHandler {
        ForwardHandler {
            forward: self.clone(),
        }
    }

    /// The outer connection's [`Elicitor`].
    pub fn elicitor(&self) -> &Elicitor {
        &self.shared.elicitor
    }

    /// The elicitation modes offered to the inner agent: those the outer client
    /// declared that the forwarding carries (form, URL), and no other
    /// ([C1](crate::rules#c1), [C7](crate::rules#c7)): a mode the person's client
    /// cannot show is never offered.
    pub fn capabilities_offered(&self) -> ElicitationCapabilities {
        let modes: Vec<Mode> = CARRIED
            .into_iter()
            .filter(|mode| self.shared.elicitor.supports(*mode))
            .collect();
        if modes.is_empty() {
            ElicitationCapabilities::absent()
        } else {
            ElicitationCapabilities::with_modes(modes)
        }
    }

    /// `capabilities` with its `elicitation` member replaced by
    /// [`capabilities_offered`](Self::capabilities_offered), for the `initialize`
    /// request sent to the inner agent. No mode leaves the member out
    /// ([C2](crate::rules#c2)).
    pub fn declare(&self, capabilities: ClientCapabilities) -> ClientCapabilities {
        capabilities.elicitation(Option::<
            ::agent_client_protocol::v1::schema::ElicitationCapabilities,
        >::from(&self.capabilities_offered()))
    }

    /// Binds the inner agent's session `inner` to the outer client's session `outer`:
    /// the inner agent's elicitations scoped to `inner` are asked in `outer`. Call it
    /// when the inner agent's `session/new` (or `session/load`) answers, before
    /// answering the outer client.
    pub fn bind_session(&self, inner: impl Into<String>, outer: impl Into<String>) {
        lock(&self.shared.sessions).insert(inner.into(), outer.into());
    }

    /// Forgets the binding of the inner session `inner`; its later elicitations are
    /// refused.
    pub fn unbind_session(&self, inner: &str) {
        lock(&self.shared.sessions).remove(inner);
    }

    /// The outer session the inner session `inner` is bound to.
    pub fn outer_session(&self, inner: &str) -> Option<String> {
        lock(&self.shared.sessions).get(inner).cloned()
    }

    /// The inner session bound to the outer session `outer`.
    pub fn inner_session(&self, outer: &str) -> Option<String> {
        lock(&self.shared.sessions)
            .iter()
            .find(|(_, bound)| *bound == outer)
            .map(|(inner, _)| inner.clone())
    }

    /// The scope of an inner elicitation as the outer client must see it: the inner
    /// session replaced by the outer one it is bound to, the tool call kept (a
    /// forwarding agent reports the inner agent's tool calls under their own ids).
    ///
    /// `None` for an inner session bound to no outer one, and for a request scope:
    /// the inner agent's `requestId` names a request on the inner connection, which
    /// the outer client never sent ([E3](crate::rules#e3), [E5](crate::rules#e5)).
    pub fn remap(&self, inner: &Scope) -> Option<Scope> {
        let session = self.outer_session(inner.session_id()?)?;
        Some(match inner.tool_call_id() {
            Some(tool_call) => Scope::tool_call(session, tool_call),
            None => Scope::session(session),
        })
    }

    /// Ends the forwarded asks waiting in the outer session `outer`, as the outer
    /// client's `session/cancel` asks: each is withdrawn from the outer client
    /// (`$/cancel_request`) and the inner agent is answered `cancel`. Returns how many
    /// were ended. Send `session/cancel` on to the inner agent as well.
    pub fn cancel_session(&self, outer: &str) -> usize {
        cancel_session(&self.shared.elicitor, outer)
    }

    /// How many URL consents wait for the inner agent's `elicitation/complete`.
    pub fn pending_completions(&self) -> usize {
        lock(&self.shared.bindings).len()
    }

    /// One inner `elicitation/create`: its raw params in, the answer for the inner
    /// agent (or the JSON-RPC error) out. `cancellation` is the inner agent's
    /// `$/cancel_request` for it.
    async fn answer(
        &self,
        params: Value,
        cancellation: RequestCancellation,
    ) -> Result<Value, JsonRpcError> {
        // Checked on the way: the strict parse refuses a schema elicit cannot enforce,
        // a malformed scope, a URL request without an id.
        let request = CreateElicitation::from_json(&params).map_err(|e| e.to_jsonrpc_error())?;
        let Some(scope) = self.remap(request.scope()) else {
            return Err(JsonRpcError::new(
                -32602,
                "the elicitation's scope has no counterpart on the outer connection: its \
                 sessionId is not a session this proxy opened for its client (a requestId \
                 names a request of the inner connection, which cannot be forwarded)",
                Some(json!({ "scope": scope_json(request.scope()) })),
            ));
        };
        let message = request.message().to_owned();
        let stop = pin!(cancellation.cancelled());
        match request.params() {
            ModeParams::Form { requested_schema } => {
                let ask = pin!(ask_schema_or_raw(
                    &self.shared.outer,
                    &self.shared.elicitor,
                    scope,
                    message,
                    requested_schema,
                ));
                match future::select(ask, stop).await {
                    Either::Left((Ok(Answer::Known(Elicited::Accepted(content))), _)) => {
                        Ok(json!({ "action": "accept", "content": content }))
                    }
                    Either::Left((Ok(Answer::Known(Elicited::Declined)), _)) => {
                        Ok(ElicitationResponse::decline().to_json())
                    }
                    Either::Left((Ok(Answer::Known(Elicited::Cancelled)), _)) => {
                        Ok(ElicitationResponse::cancel().to_json())
                    }
                    Either::Left((Ok(Answer::Unknown(response)), _)) => Ok(response.to_json()),
                    Either::Left((Err(error), _)) => Err(ask_error(error)),
                    Either::Right(((), _)) => Err(withdrawn()),
                }
            }
            ModeParams::Url {
                elicitation_id,
                url,
            } => {
                let ask = pin!(ask_url_or_raw(
                    &self.shared.outer,
                    &self.shared.elicitor,
                    scope,
                    message,
                    url,
                ));
                match future::select(ask, stop).await {
                    Either::Left((Ok(Answer::Known(Elicited::Accepted(consent))), _)) => {
                        // A repeated inner id replaces the older binding, whose outer
                        // elicitation is forgotten when it is dropped.
                        lock(&self.shared.bindings)
                            .insert(elicitation_id.to_owned(), RequestBinding { consent });
                        Ok(json!({ "action": "accept" }))
                    }
                    Either::Left((Ok(Answer::Known(Elicited::Declined)), _)) => {
                        Ok(ElicitationResponse::decline().to_json())
                    }
                    Either::Left((Ok(Answer::Known(Elicited::Cancelled)), _)) => {
                        Ok(ElicitationResponse::cancel().to_json())
                    }
                    // Not consent: nothing is bound, a later completion of it is not
                    // carried.
                    Either::Left((Ok(Answer::Unknown(response)), _)) => Ok(response.to_json()),
                    Either::Left((Err(error), _)) => Err(ask_error(error)),
                    Either::Right(((), _)) => Err(withdrawn()),
                }
            }
            // C7: this forwarding offered form and url only (ACP's capability has no
            // member in which a client could declare another mode), so the inner agent
            // asked for a mode it was never offered.
            ModeParams::Other { mode, .. } => Err(JsonRpcError::new(
                -32602,
                format!(
                    "elicitation mode {mode:?} was not offered to this agent and is not \
                     forwarded: only form and url are offered, as far as the person's client \
                     declared them (see C7, an agent asks only in a mode the client declared)"
                ),
                Some(json!({ "mode": mode })),
            )),
        }
    }

    /// The inner agent's `elicitation/complete`: the outer `elicitation/complete` with
    /// the outer id, once ([U5](crate::rules#u5)); ignored for an id this forwarding
    /// holds no consent for (unknown, declined, already completed:
    /// [U6](crate::rules#u6)) or malformed params. Returns whether it was carried.
    fn complete(&self, params: &Value) -> bool {
        let Ok(done) = CompleteElicitation::from_json(params) else {
            return false;
        };
        let binding = lock(&self.shared.bindings).remove(done.elicitation_id());
        match binding {
            // The person who consented is the one the inner agent reports finished:
            // the proxy has no other identity for them.
            Some(binding) => binding
                .consent
                .complete(self.shared.elicitor.user())
                .is_ok(),
            None => false,
        }
    }
}

/// The scope members of a request, for an error's `data`.
fn scope_json(scope: &Scope) -> Value {
    match scope {
        Scope::Session {
            session_id,
            tool_call_id,
        } => json!({ "sessionId": session_id, "toolCallId": tool_call_id }),
        Scope::Request { request_id } => json!({ "requestId": request_id.to_json() }),
    }
}

/// The inner agent withdrew its request: the SDK's own "request cancelled".
fn withdrawn() -> JsonRpcError {
    let error = ::agent_client_protocol::Error::request_cancelled();
    JsonRpcError::new(i64::from(error.code.value()), error.message, error.data)
}

/// An [`AskError`] as the JSON-RPC error the inner agent gets: refusals before sending
/// are `-32602` (the request cannot be asked as it is), the outer client's own error
/// is passed on, anything else is `-32603`.
fn ask_error(error: AskError) -> JsonRpcError {
    if error.is_refused_before_sending() {
        return JsonRpcError::new(
            -32602,
            format!("not asked on the outer connection: {error}"),
            None,
        );
    }
    match error {
        AskError::Rejected(error) => error,
        AskError::Invalid(problems) => JsonRpcError::new(
            -32603,
            format!(
                "the person's client answered with content that does not validate, so it \
                 was not passed on: {problems}"
            ),
            None,
        ),
        other => JsonRpcError::new(
            -32603,
            format!("asking on the outer connection failed: {other}"),
            None,
        ),
    }
}

/// The engine's JSON-RPC error as the SDK sends it.
fn to_sdk_error(error: &JsonRpcError) -> ::agent_client_protocol::Error {
    let code = i32::try_from(error.code()).unwrap_or(-32603);
    ::agent_client_protocol::Error::new(code, error.message()).data(error.data().cloned())
}

/// The SDK handler of an [`AcpForward`] on the connection to the inner agent
/// ([`AcpForward::handler`]): install it with `Client.v1().with_handler(…)`.
pub struct ForwardHandler {
    forward: AcpForward,
}

impl fmt::Debug for ForwardHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ForwardHandler")
            .field("forward", &self.forward)
            .finish()
    }
}

impl HandleDispatchFrom<Agent> for ForwardHandler {
    async fn handle_dispatch_from(
        &mut self,
        message: Dispatch,
        connection: ConnectionTo<Agent>,
    ) -> Result<Handled<Dispatch>, ::agent_client_protocol::Error> {
        match message {
            Dispatch::Request(request, responder)
                if request.method == CreateElicitation::METHOD =>
            {
                let cancellation = responder.cancellation();
                let forward = self.forward.clone();
                let (_, params) = request.into_parts();
                // Answered in a task: the inner connection's dispatch loop must keep
                // running (its `$/cancel_request` and completions come through it).
                connection.spawn(async move {
                    let answer = forward
                        .answer(params, cancellation)
                        .await
                        .map_err(|error| to_sdk_error(&error));
                    // A send that fails means the inner connection is gone.
                    let _ = responder.respond_with_result(answer);
                    Ok(())
                })?;
                Ok(Handled::Yes)
            }
            Dispatch::Notification(notification)
                if notification.method == CompleteElicitation::METHOD =>
            {
                self.forward.complete(&notification.params);
                Ok(Handled::Yes)
            }
            other => Ok(Handled::No {
                message: other,
                retry: false,
            }),
        }
    }

    fn describe_chain(&self) -> impl fmt::Debug {
        "elicit forward: elicitation/create, elicitation/complete"
    }
}
