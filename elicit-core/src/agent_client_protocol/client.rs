//! The client side on the official ACP SDK: an [`ElicitClient`] answers every
//! `elicitation/create` an agent sends through the client engine
//! ([`ClientEngine`]) and an [`Asker`], and shows the person every
//! `elicitation/complete` that concerns them.
//!
//! # For client authors
//!
//! Two places in a client built on the SDK touch elicitation, and each is one call:
//!
//! 1. **The connection builder**: `.with_handler(elicit.clone())` on `Client.v1()`:
//!    the client is the SDK handler. It claims `elicitation/create` requests and `elicitation/complete`
//!    notifications and passes every other message on to the handlers after it.
//! 2. **`initialize`**: [`ElicitClient::initialize`] sends the client's
//!    `InitializeRequest` with `clientCapabilities.elicitation` set to exactly the modes
//!    the asker renders ([C1](crate::rules#c1), [C7](crate::rules#c7)), and remembers
//!    the agent's `agentInfo`, which the person is shown with every question
//!    ([K1](crate::rules#k1)). A client that sends `initialize` itself declares
//!    [`ElicitClient::capabilities`] and hands the response to
//!    [`ElicitClient::agent_initialized`].
//!
//! ```no_run
//! use agent_client_protocol::schema::ProtocolVersion;
//! use agent_client_protocol::v1::schema::InitializeRequest;
//! use agent_client_protocol::v1::{ConnectionTo, SessionSetup};
//! use agent_client_protocol::{Agent, Client, ConnectTo};
//! use elicit::agent_client_protocol::client::ElicitClient;
//! use elicit::client::{ClientPolicy, ScriptedAsker};
//! use std::time::Duration;
//!
//! async fn run(agent: impl ConnectTo<Client> + 'static) -> agent_client_protocol::Result<String> {
//!     // A headless client: accept forms whose required fields all have defaults,
//!     // decline the rest, and give up on any question after two minutes.
//!     let policy = ClientPolicy::new().with_deadline(Duration::from_secs(120));
//!     let elicit = ElicitClient::new(ScriptedAsker::accept_defaults()).with_policy(policy);
//!     Client
//!         .v1()
//!         .with_handler(elicit.clone())
//!         .connect_with(agent, async |cx: ConnectionTo<Agent>| {
//!             elicit.initialize(&cx, InitializeRequest::new(ProtocolVersion::V1)).await?;
//!             cx.build_session_cwd()?
//!                 .block_task()
//!                 .run_until(async |SessionSetup { mut session, .. }| {
//!                     session.send_prompt("Tidy up the parser")?;
//!                     // Elicitations sent during the turn are answered meanwhile.
//!                     session.read_to_string().await
//!                 })
//!                 .await
//!         })
//!         .await
//! }
//! ```
//!
//! What the handler does with each request:
//! - the params are read raw (see below) and checked by the engine against the modes
//!   the asker renders; what a client must refuse (an undeclared mode, a malformed or
//!   unrenderable schema, an unknown mode, a bad scope) is answered with the JSON-RPC
//!   error (`-32602`) after the person is told why
//!   ([`AskerNotice::Refused`](crate::client::AskerNotice), [C8](crate::rules#c8),
//!   [E6](crate::rules#e6), [F1](crate::rules#f1), [D1](crate::rules#d1)): never a
//!   silent skip;
//! - fields reach the asker in the agent's order with every member the agent sent
//!   ([D13](crate::rules#d13), [E7](crate::rules#e7)), and the accepted content goes
//!   back in that order;
//! - the scope, a session (with its tool call, if any) or a request outside any
//!   session, reaches the asker in [`Intro::scope`](crate::client::Intro)
//!   ([E3](crate::rules#e3), [K1](crate::rules#k1));
//! - URL mode goes through the engine's review and consent
//!   ([S2](crate::rules#s2)–[S4](crate::rules#s4), [K3](crate::rules#k3)); the
//!   agent's `elicitation/complete` reaches the asker as
//!   [`AskerNotice::Completed`](crate::client::AskerNotice) once, for an id the person consented
//!   to; unknown and finished ids are ignored ([U5](crate::rules#u5),
//!   [U6](crate::rules#u6));
//! - the [`ClientPolicy`]: the deadline, counted from the request's arrival, answers
//!   `cancel` ([`AskerNotice::TimedOut`](crate::client::AskerNotice)); `never_ask` declines
//!   without showing anything;
//! - an agent that withdraws its request (`$/cancel_request`, which the SDK sends
//!   when the agent drops the ask) ends the question at once, and the request is
//!   answered with the SDK's `-32800` (request cancelled).
//!
//! Questions are put to the person one at a time: a second request waits for the
//! asker, and its wait counts against its own deadline. Each request is answered in a
//! task of the connection (`ConnectionTo::spawn`), so the SDK's dispatch loop keeps
//! running while the person thinks, and the agent's other messages (session updates,
//! the completion of a URL elicitation) keep arriving.
//!
//! # What the SDK's typed request loses, and how the raw one keeps it
//!
//! The SDK offers `on_receive_request` for the typed `CreateElicitationRequest` of
//! `agent-client-protocol-schema` 1.17, and ships no renderer. Read into that type:
//! - `requestedSchema.properties` is a `BTreeMap`: the fields come out sorted by name,
//!   not in the agent's order ([D13](crate::rules#d13)), and a client that renders
//!   from it (Zed does) shows them alphabetically;
//! - each property kind is a closed struct: a member it does not model is dropped;
//!   `title`, `description`, `default` and `_meta` are read default-on-error, so a
//!   malformed `default` vanishes without a word, and a multi-select `default` loses
//!   its invalid items;
//! - a known kind with a member it cannot read (a `format` other than the four, a
//!   `minLength` that is not a number) fails the whole request: the typed handler never
//!   sees it, and the person is never told that an agent asked;
//! - an unknown property `type` (`"_color"`) or mode is kept as an `Other` variant with
//!   its members in another `BTreeMap`; nothing stops a renderer from skipping it (Zed
//!   does, silently) and sending a form the agent did not ask for;
//! - the typed answer, `ElicitationAcceptAction::content`, is a `BTreeMap` as well.
//!
//! The client, as the SDK's handler, works a layer below: it claims the request as
//! the SDK's untyped message, whose params are the `serde_json::Map` the SDK parsed
//! from the line (the SDK builds `serde_json` with `preserve_order`), every member in
//! the agent's order. The engine reads that map with the client's lenient parse: an
//! unknown `format` stays an annotation it does not assert ([D7](crate::rules#d7)), a
//! form with a kind it cannot render is refused whole, with the reason
//! ([E6](crate::rules#e6)), and the answer is elicit's own JSON, in the schema's order.
//!
//! # Requirements
//!
//! As the rest of this module: Rust 1.88 (the SDK's), any async runtime. The deadline
//! runs on a timer thread of its own (one short-lived thread per request that has a
//! deadline, ended as soon as the request is answered), so no runtime is assumed.

use std::fmt;
use std::ops::DerefMut;
use std::pin::pin;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ::agent_client_protocol::v1::schema::{
    ClientCapabilities, InitializeRequest, InitializeResponse,
};
use ::agent_client_protocol::{
    Agent, ConnectionTo, Dispatch, HandleDispatchFrom, Handled, RequestCancellation,
};
use futures::channel::oneshot;
use futures::future::{self, Either};
use serde_json::Value;

use crate::client::{AgentIdentity, Asker, AskerNotice, ClientEngine, ClientPolicy, Completion};
use crate::protocol::{
    Action, CompleteElicitation, CreateElicitation, ElicitationCapabilities, ElicitationResponse,
    JsonRpcError,
};

/// The client side of elicitation for one ACP connection, on the official SDK: see
/// the [module documentation](self).
///
/// It is the SDK handler itself (`Client.v1().with_handler(elicit.clone())`), built
/// as rmcp's `elicit::rmcp::client::ElicitClient` is:
/// `ElicitClient::new(asker).with_policy(policy)`.
///
/// Cheap to clone; clones share the asker and the connection's state (the agent's
/// identity, the URL elicitations awaiting their completion). Use one per connection:
/// completions are only honoured on the connection that consented
/// ([E5](crate::rules#e5), [U5](crate::rules#u5)).
pub struct ElicitClient<A> {
    shared: Arc<Shared<A>>,
}

struct Shared<A> {
    asker: futures::lock::Mutex<A>,
    modes: ElicitationCapabilities,
    policy: ClientPolicy,
    responder: OnceLock<ClientEngine>,
}

impl<A> Clone for ElicitClient<A> {
    fn clone(&self) -> Self {
        ElicitClient {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<A> fmt::Debug for ElicitClient<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ElicitClient")
            .field("modes", &self.shared.modes)
            .field("policy", &self.shared.policy)
            .field(
                "agent",
                &self.shared.responder.get().map(ClientEngine::agent),
            )
            .finish_non_exhaustive()
    }
}

impl<A: Asker + 'static> ElicitClient<A> {
    /// A client asking through `asker` with the default policy (ask everything, no
    /// deadline; see [`with_policy`](Self::with_policy)), declaring the modes `asker`
    /// renders.
    pub fn new(asker: A) -> Self {
        let modes = asker.modes();
        ElicitClient {
            shared: Arc::new(Shared {
                asker: futures::lock::Mutex::new(asker),
                modes,
                policy: ClientPolicy::new(),
                responder: OnceLock::new(),
            }),
        }
    }

    /// With this policy (deadline, never ask).
    ///
    /// # Panics
    ///
    /// When the client was cloned before: the clones share one connection's state,
    /// whose policy is set once, when it is built. Set the policy first.
    pub fn with_policy(mut self, policy: ClientPolicy) -> Self {
        match Arc::get_mut(&mut self.shared) {
            Some(shared) => shared.policy = policy,
            None => panic!(
                "ElicitClient::with_policy on a client already cloned: set the policy before cloning it"
            ),
        }
        self
    }

    /// The handler to install on the SDK's client builder: a clone of this client,
    /// which is the handler itself.
    #[deprecated(
        since = "0.2.0",
        note = "the client is the handler: `with_handler(elicit.clone())`"
    )]
    pub fn handler(&self) -> ElicitClient<A> {
        self.clone()
    }

    /// The modes this client declares: those its asker renders.
    pub fn modes(&self) -> &ElicitationCapabilities {
        &self.shared.modes
    }

    /// The policy (deadline, never ask).
    pub fn policy(&self) -> &ClientPolicy {
        &self.shared.policy
    }

    /// `clientCapabilities` declaring exactly the modes the asker renders
    /// ([C1](crate::rules#c1)): `{"elicitation": {"form": {}, "url": {}}}` for an asker
    /// that renders both. Nothing else is declared; to keep other capabilities, use
    /// [`declare`](Self::declare).
    pub fn capabilities(&self) -> ClientCapabilities {
        self.declare(ClientCapabilities::new())
    }

    /// `capabilities` with its `elicitation` member replaced by the modes the asker
    /// renders ([C1](crate::rules#c1), [C7](crate::rules#c7): never a mode it cannot
    /// show). An asker that renders no mode leaves the member out
    /// ([C2](crate::rules#c2)) unless it says otherwise.
    pub fn declare(&self, capabilities: ClientCapabilities) -> ClientCapabilities {
        capabilities.elicitation(Option::<
            ::agent_client_protocol::v1::schema::ElicitationCapabilities,
        >::from(&self.shared.modes))
    }

    /// Sends `request` with the elicitation capability [declared](Self::declare) on
    /// `connection`, waits for the agent's answer, and remembers the agent's
    /// `agentInfo` ([`agent_initialized`](Self::agent_initialized)). Call it from
    /// the `connect_with` body (not in a handler: the answer arrives through the
    /// dispatch loop).
    pub async fn initialize(
        &self,
        connection: &(impl Clone + Into<ConnectionTo<Agent>>),
        mut request: InitializeRequest,
    ) -> Result<InitializeResponse, ::agent_client_protocol::Error> {
        request.client_capabilities = self.declare(request.client_capabilities);
        let connection: ConnectionTo<Agent> = connection.clone().into();
        let response = connection.send_request(request).block_task().await?;
        self.agent_initialized(&response);
        Ok(response)
    }

    /// Remembers who this connection talks to, from the agent's answer to
    /// `initialize` (`agentInfo`; an agent that gives none is shown as "the ACP
    /// agent"): every question names it ([K1](crate::rules#k1)).
    ///
    /// Takes effect once, before the first elicitation: the identity of a connection
    /// does not change while the person is being asked.
    pub fn agent_initialized(&self, response: &InitializeResponse) {
        let agent = response
            .agent_info
            .as_ref()
            .and_then(|info| serde_json::to_value(info).ok())
            .and_then(|info| AgentIdentity::from_agent_info(&info))
            .unwrap_or_else(unknown_agent);
        let _ = self.responder_for(agent);
    }

    /// The agent's identity as the person is shown it, once known.
    pub fn agent(&self) -> Option<&AgentIdentity> {
        self.shared.responder.get().map(ClientEngine::agent)
    }

    /// Whether a URL elicitation with this id awaits its `elicitation/complete`.
    pub fn is_pending(&self, elicitation_id: &str) -> bool {
        self.shared
            .responder
            .get()
            .is_some_and(|responder| responder.is_pending(elicitation_id))
    }

    /// The asker, once it is not asking anything: to read what a scripted asker was
    /// shown, or to change its state between questions.
    pub async fn asker(&self) -> impl DerefMut<Target = A> + '_ {
        self.shared.asker.lock().await
    }

    fn responder_for(&self, agent: AgentIdentity) -> &ClientEngine {
        self.shared
            .responder
            .get_or_init(|| ClientEngine::new(agent).with_policy(self.shared.policy.clone()))
    }

    fn responder(&self) -> &ClientEngine {
        match self.shared.responder.get() {
            Some(responder) => responder,
            // An elicitation before `initialize` was answered: the person is still
            // told that an agent asks, just not which one.
            None => self.responder_for(unknown_agent()),
        }
    }

    /// One `elicitation/create`: its raw params in, the response or the error out.
    async fn answer(
        &self,
        params: Value,
        cancellation: RequestCancellation,
        deadline: Option<Deadline>,
    ) -> Result<Value, ::agent_client_protocol::Error> {
        // Ends the question: the agent's `$/cancel_request`, or the deadline.
        let stop = {
            let cancellation = cancellation.clone();
            async move {
                let cancelled = pin!(cancellation.cancelled());
                match deadline {
                    Some(deadline) => {
                        let _ = future::select(cancelled, pin!(deadline.wait())).await;
                    }
                    None => cancelled.await,
                }
            }
        };
        let mut stop = pin!(stop);
        let outcome = {
            // One question at a time; the wait counts against this request's stop.
            let lock = pin!(self.shared.asker.lock());
            match future::select(lock, stop.as_mut()).await {
                Either::Left((mut asker, _)) => {
                    self.responder()
                        .respond_until(&mut *asker, &params, stop)
                        .await
                }
                Either::Right(((), _)) => Ok(ElicitationResponse::cancel()),
            }
        };
        match outcome {
            // The agent withdrew the request while the person was asked: it no
            // longer waits for an answer, and the SDK's own code says so.
            Ok(response) if cancellation.is_cancelled() && *response.action() == Action::Cancel => {
                Err(::agent_client_protocol::Error::request_cancelled())
            }
            Ok(response) => Ok(response.to_json()),
            Err(error) => Err(to_sdk_error(&error)),
        }
    }

    /// One `elicitation/complete`: the asker is told once, for an id the person
    /// consented to on this connection ([U5](crate::rules#u5), [U6](crate::rules#u6)).
    fn complete(&self, params: &Value, connection: &ConnectionTo<Agent>) {
        let Completion::Completed(elicitation_id) = self.responder().complete(params) else {
            // U6: unknown, already completed, or malformed: ignored.
            return;
        };
        let client = self.clone();
        // The asker may be busy with another question: tell it when it is free,
        // without holding the dispatch loop.
        let _ = connection.spawn(async move {
            client
                .shared
                .asker
                .lock()
                .await
                .notice(&AskerNotice::Completed { elicitation_id });
            Ok(())
        });
    }
}

fn unknown_agent() -> AgentIdentity {
    AgentIdentity::new("the ACP agent")
}

/// The engine's JSON-RPC error as the SDK sends it: code, message and `data`.
fn to_sdk_error(error: &JsonRpcError) -> ::agent_client_protocol::Error {
    let code = i32::try_from(error.code()).unwrap_or(-32603);
    ::agent_client_protocol::Error::new(code, error.message()).data(error.data().cloned())
}

/// The former SDK handler of an [`ElicitClient`], now the client itself: install it
/// with `Client.v1().with_handler(elicit.clone())`.
#[deprecated(
    since = "0.2.0",
    note = "the client is the handler: `with_handler(elicit.clone())`"
)]
pub type ElicitHandler<A> = ElicitClient<A>;

/// Answers `elicitation/create` and acts on `elicitation/complete`; every other
/// message is passed on to the handlers after it.
impl<A: Asker + 'static> HandleDispatchFrom<Agent> for ElicitClient<A> {
    async fn handle_dispatch_from(
        &mut self,
        message: Dispatch,
        connection: ConnectionTo<Agent>,
    ) -> Result<Handled<Dispatch>, ::agent_client_protocol::Error> {
        match message {
            Dispatch::Request(request, responder)
                if request.method == CreateElicitation::METHOD =>
            {
                // The policy's deadline counts from the request's arrival.
                let deadline = self.policy().deadline().map(Deadline::start);
                let cancellation = responder.cancellation();
                let client = self.clone();
                let (_, params) = request.into_parts();
                // Answered in a task: the dispatch loop must keep running while the
                // person is asked (the agent's cancel and completions come through it).
                connection.spawn(async move {
                    let answer = client.answer(params, cancellation, deadline).await;
                    // A send that fails means the connection is gone: nobody to tell.
                    let _ = responder.respond_with_result(answer);
                    Ok(())
                })?;
                Ok(Handled::Yes)
            }
            Dispatch::Notification(notification)
                if notification.method == CompleteElicitation::METHOD =>
            {
                self.complete(&notification.params, &connection);
                Ok(Handled::Yes)
            }
            other => Ok(Handled::No {
                message: other,
                retry: false,
            }),
        }
    }

    fn describe_chain(&self) -> impl fmt::Debug {
        "elicit: elicitation/create, elicitation/complete"
    }
}

/// A deadline on a timer thread of its own, so that no async runtime is assumed: the
/// thread waits for the deadline or for the request to be answered (dropping the
/// [`Deadline`] wakes it), whichever comes first, and ends.
struct Deadline {
    fired: Option<oneshot::Receiver<()>>,
    _answered: std::sync::mpsc::Sender<()>,
}

impl Deadline {
    fn start(after: Duration) -> Self {
        let (fire, fired) = oneshot::channel();
        let (answered, wait) = std::sync::mpsc::channel::<()>();
        let started = std::thread::Builder::new()
            .name("elicit-deadline".to_owned())
            .spawn(move || {
                if let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(after) {
                    let _ = fire.send(());
                }
            });
        Deadline {
            // Without a timer the deadline cannot be kept: the question is given up
            // at once rather than left to run past it.
            fired: started.is_ok().then_some(fired),
            _answered: answered,
        }
    }

    /// Completes when the deadline passes.
    async fn wait(self) {
        let Deadline { fired, _answered } = self;
        if let Some(fired) = fired {
            if fired.await.is_err() {
                // The timer thread ended without firing: it cannot, since it only
                // ends early when `_answered` is dropped, which is here.
                std::future::pending::<()>().await;
            }
        }
    }
}
