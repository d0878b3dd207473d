//! The client side of rmcp 3.x: an rmcp [`ClientHandler`](::rmcp::handler::client::ClientHandler) that answers every
//! `elicitation/create` a server sends through the client engine
//! ([`ClientEngine`]) and an [`Asker`].
//!
//! ```no_run
//! use elicit::client::ScriptedAsker;
//! use elicit::rmcp::client::{ElicitClient, RawTap};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mut child = tokio::process::Command::new("my-mcp-server")
//!     .stdin(std::process::Stdio::piped())
//!     .stdout(std::process::Stdio::piped())
//!     .spawn()?;
//! let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
//! // The tap keeps each `elicitation/create` exactly as the server wrote it (D13).
//! let tap = RawTap::new();
//! let handler = ElicitClient::new(ScriptedAsker::accept_defaults()).with_tap(tap.clone());
//! // The newest version both sides speak, whatever the server is (see below).
//! let client = handler.connect((tap.reader(stdout), stdin)).await?;
//! let tools = client.list_all_tools().await?;
//! # let _ = tools; Ok(()) }
//! ```
//!
//! What it does with each request:
//! - the params are read by elicit, not by rmcp's typed model: the schema is checked
//!   with the client's lenient parse, and what a client must refuse is answered with
//!   the JSON-RPC error (`-32602`) after the person is told why
//!   ([`AskerNotice::Refused`](crate::client::AskerNotice), [C8](crate::rules#c8),
//!   [F1](crate::rules#f1));
//! - fields come in the server's order ([D13](crate::rules#d13)) with every member it
//!   sent, which rmcp's typed model does not keep (see below);
//! - URL mode goes through the engine's review and consent
//!   ([S2](crate::rules#s2)–[S4](crate::rules#s4)); the server's
//!   `notifications/elicitation/complete` reaches the asker as
//!   [`AskerNotice::Completed`](crate::client::AskerNotice) for ids it consented to, once; unknown
//!   and finished ids are ignored ([U6](crate::rules#u6), [M3](crate::rules#m3));
//! - the [`ClientPolicy`]'s deadline runs on tokio's timer; a request the server
//!   cancels (`notifications/cancelled`, which trips rmcp's `RequestContext::ct`) ends
//!   its question at once;
//! - the capability the client declares is what the asker renders
//!   ([C1](crate::rules#c1)), in the shape of the version spoken (below).
//!
//! # Which protocol version
//!
//! [`ElicitClient::connect`] reaches any server and speaks the newest version both
//! sides speak; [`with_protocol_version`](ElicitClient::with_protocol_version) makes it
//! speak one version only. By default it opens with `server/discover` offering MCP
//! 2026-07-28 (no `initialize`; capabilities per request), and falls back to
//! `initialize` when the server turns out to be older:
//!
//! | the server answers `server/discover` with | the client then |
//! | --- | --- |
//! | its versions, 2026-07-28 among them | speaks 2026-07-28 |
//! | its versions (an error `-32022` listing them, as rmcp's server sends, or a result), only versions with `initialize` | sends `initialize` offering the newest of them it speaks |
//! | any other error (`-32601` method not found from a 2025-11-25 server), or nothing within 10 s | sends `initialize` offering 2025-11-25; the server answers with the version it picks |
//! | versions none of which the client speaks | fails with [`ConnectError::NoCommonVersion`], both lists in its text |
//!
//! The `elicitation` capability is written in the shape of the version it is sent with
//! ([C1](crate::rules#c1), [M2](crate::rules#m2)): `{"form": {}, "url": {}}` (the modes
//! the asker renders) in 2025-11-25's `initialize` and in 2026-07-28's per-request
//! `_meta["io.modelcontextprotocol/clientCapabilities"]`; `{}` (form, the only mode
//! there is) in 2025-06-18's `initialize`, which strict servers of that version require
//! (codex #20562); nothing before 2025-06-18, which has no elicitation. A server that
//! names no versions (method not found) is offered 2025-11-25 in that version's shape,
//! as the `initialize` negotiation has the client propose its newest: should it answer
//! with 2025-06-18 and refuse the richer capability, ask for that version explicitly.
//!
//! rmcp's own `serve` and `serve_with_lifecycle` can carry this handler too (with
//! [`ElicitClient::lifecycle`]), without the fallback for a server that answers
//! `server/discover` with its older versions: that answer is read by `connect`.
//!
//! MCP 2026-07-28's input requests (`InputRequiredResult` in the answer to
//! `tools/call`) are fulfilled by rmcp's `call_tool` through this same handler, and
//! rmcp echoes the server's `requestState` on the retry, with a new JSON-RPC id
//! ([M6](crate::rules#m6)). An input request arrives already typed (inside a result);
//! a [`RawTap`] on the transport also records the input requests of each
//! `InputRequiredResult` it sees, by their key (rmcp's request id for them), so that
//! they too are answered from the bytes the server wrote, `pattern` included. A limit
//! is rmcp's: a refusal (`-32602`) has no place in `inputResponses` (the 2026-07-28 schema
//! allows results only), so rmcp fails the whole `call_tool` with it and the server
//! hears nothing.
//!
//! # What rmcp's typed request loses, and how the raw one is recovered
//!
//! rmcp 3.11 reads `elicitation/create` into `ElicitRequestParams`, whose
//! `ElicitationSchema` keeps properties in a `BTreeMap` (with a `property_order` only
//! when it was read from JSON) and models each property with structs that drop an
//! option's `description`, a property's `_meta` and any member it does not know. A
//! property of a type it does not know fails its deserialisation, and the request then
//! arrives as a `CustomRequest` with the raw params (rmcp's server-request enum is
//! untagged, `CustomRequest` last); elicit answers it there, whatever it is, so nothing
//! is skipped silently.
//!
//! For the requests rmcp does read, [`RawTap`] keeps the raw params: wrap the
//! transport's reading half with [`RawTap::reader`] (stdio, a child process, any
//! newline-delimited stream) and each `elicitation/create` is recorded by its JSON-RPC
//! id as it goes by, and each 2026-07-28 input request by its key. Without a tap
//! (Streamable HTTP reads its messages inside rmcp), the typed params are written back to JSON in
//! the order rmcp kept, members it dropped lost: a string's `pattern` (rmcp's
//! `StringSchema` has none, so the answer is not checked against it), an option's
//! `description`, a property's `_meta`.

use std::collections::VecDeque;
use std::future::{poll_fn, Future};
use std::io;
use std::pin::{pin, Pin};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};

use ::rmcp::handler::client::ClientHandler;
use ::rmcp::model::{
    ClientCapabilities, ClientConfig, ClientJsonRpcMessage, ClientRequest, CustomNotification,
    CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, ElicitationCapability,
    ErrorCode, FormElicitationCapability, Implementation, NumberOrString, ProtocolVersion,
    RequestId, ServerJsonRpcMessage, ServerResult, UrlElicitationCapability,
};
use ::rmcp::service::{
    ClientInitializeError, NotificationContext, Peer, RequestContext, RoleClient, RunningService,
};
use ::rmcp::transport::{IntoTransport, Transport};
use ::rmcp::{ClientLifecycleMode, ClientServiceExt, ErrorData};
use serde_json::{Map, Value};
use tokio::io::{AsyncRead, ReadBuf};

use crate::client::{AgentIdentity, Asker, AskerNotice, ClientEngine, ClientPolicy, Completion};
use crate::protocol::mcp::{ELICITATION_COMPLETE_NOTIFICATION, ELICITATION_CREATE};
use crate::protocol::{ElicitationCapabilities, JsonRpcError, Mode};

/// An rmcp [`ClientHandler`](::rmcp::handler::client::ClientHandler) that answers elicitations through an [`Asker`]: see the
/// [module documentation](self).
pub struct ElicitClient<A> {
    asker: tokio::sync::Mutex<A>,
    modes: ElicitationCapabilities,
    policy: ClientPolicy,
    tap: Option<RawTap>,
    implementation: Implementation,
    protocol_version: Option<ProtocolVersion>,
    responder: OnceLock<ClientEngine>,
}

impl<A: Asker + 'static> ElicitClient<A> {
    /// A handler asking through `asker`, with the default policy, declaring the modes
    /// `asker` renders.
    pub fn new(asker: A) -> Self {
        let modes = asker.modes();
        ElicitClient {
            asker: tokio::sync::Mutex::new(asker),
            modes,
            policy: ClientPolicy::new(),
            tap: None,
            implementation: Implementation::new("elicit", env!("CARGO_PKG_VERSION")),
            protocol_version: None,
            responder: OnceLock::new(),
        }
    }

    /// With this policy (deadline, never ask).
    pub fn with_policy(mut self, policy: ClientPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The policy (deadline, never ask).
    pub fn policy(&self) -> &ClientPolicy {
        &self.policy
    }

    /// Reading each `elicitation/create` from what `tap` recorded on the transport.
    pub fn with_tap(mut self, tap: RawTap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// With this name and version in `initialize`'s `clientInfo`.
    pub fn with_client_info(mut self, implementation: Implementation) -> Self {
        self.implementation = implementation;
        self
    }

    /// Speaking this protocol version only: `2026-07-28` (`server/discover`,
    /// per-request `_meta` and input requests), or one with the `initialize` handshake
    /// (`2025-11-25`, `2025-06-18`, …), offered there, the capability in its shape. By
    /// default the newest both sides speak: see [`connect`](Self::connect).
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// The version asked for with [`with_protocol_version`](Self::with_protocol_version),
    /// if any.
    pub fn protocol_version(&self) -> Option<&ProtocolVersion> {
        self.protocol_version.as_ref()
    }

    /// Connects over `transport` (stdio, a child's pipes, Streamable HTTP: anything
    /// rmcp takes) and returns the running client, on the version chosen as the
    /// [module documentation](self#which-protocol-version) describes: by default the
    /// newest both sides speak, falling back from `server/discover` to `initialize`
    /// for an older server, the `elicitation` capability in the shape of the version
    /// spoken.
    ///
    /// # Errors
    ///
    /// [`ConnectError::NoCommonVersion`] with both sides' versions when there is no
    /// version to speak (the server's list, or the version it answered `initialize`
    /// with); [`ConnectError::DiscoverRefused`] when asked for 2026-07-28 only and the
    /// server is older; [`ConnectError::Handshake`] with rmcp's error otherwise (the
    /// transport failed, the server refused, …).
    ///
    /// ```no_run
    /// use elicit::client::ScriptedAsker;
    /// use elicit::rmcp::client::ElicitClient;
    ///
    /// // Any transport rmcp takes: here a byte stream (a child's pipes, a socket);
    /// // rmcp's `StreamableHttpClientTransport` for a server over HTTP.
    /// # async fn run(server: tokio::io::DuplexStream) -> Result<(), Box<dyn std::error::Error>> {
    /// let client = ElicitClient::new(ScriptedAsker::accept_defaults())
    ///     .connect(server)
    ///     .await?;
    /// if let Some(server) = client.peer_info() {
    ///     println!("protocol {}", server.protocol_version);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn connect<T, E, Adapter>(
        self,
        transport: T,
    ) -> Result<RunningService<RoleClient, Self>, ConnectError>
    where
        T: IntoTransport<RoleClient, E, Adapter>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let offered: Vec<ProtocolVersion> = match &self.protocol_version {
            Some(version) => vec![version.clone()],
            None => ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .rev()
                .cloned()
                .collect(),
        };
        let learned = Arc::new(Mutex::new(Learned::default()));
        let negotiating = Negotiating {
            inner: transport.into_transport(),
            negotiate: self.protocol_version.is_none(),
            modes: self.modes.clone(),
            learned: Arc::clone(&learned),
        };
        let lifecycle = self.lifecycle();
        let running = match self.serve_with_lifecycle(negotiating, lifecycle).await {
            Ok(running) => running,
            Err(ClientInitializeError::NoCompatibleProtocolVersion {
                server_supported, ..
            }) => {
                return Err(ConnectError::NoCommonVersion {
                    client: offered,
                    server: server_supported,
                })
            }
            // Asked for a version without `initialize`, and the server does not know
            // how to discover: an older server (rmcp's Discover mode does not fall back).
            Err(ClientInitializeError::JsonRpcError(error))
                if offered.iter().all(|version| !version.has_initialize()) =>
            {
                return Err(ConnectError::DiscoverRefused {
                    client: offered,
                    error,
                })
            }
            Err(error) => return Err(ConnectError::Handshake(Box::new(error))),
        };
        // The server's answer to `initialize` names its version; one this client does
        // not speak ends the connection here, as the MCP lifecycle says.
        let spoken = running
            .peer_info()
            .map(|info| info.protocol_version.clone());
        match spoken {
            Some(version) if speaks(&version) => Ok(running),
            other => {
                let server = other.into_iter().collect();
                let _ = running.cancel().await;
                Err(ConnectError::NoCommonVersion {
                    client: offered,
                    server,
                })
            }
        }
    }

    /// How rmcp should start the connection for the version chosen, to pass to
    /// [`ClientServiceExt::serve_with_lifecycle`](::rmcp::ClientServiceExt) (rmcp's
    /// plain `serve` always sends `initialize`); [`connect`](Self::connect) uses it
    /// and does more:
    /// - a version without a handshake (`2026-07-28`): `server/discover` only, a
    ///   legacy server being an error;
    /// - an older version: `initialize` with it;
    /// - no version given: `server/discover` offering rmcp's newest, falling back to
    ///   `initialize` with `2025-11-25` when the server answers it as a legacy server
    ///   does (a JSON-RPC error for the unknown method). A server that answers with
    ///   its list of older versions (rmcp's, `-32022`) is reached by `connect` only.
    ///
    /// ```
    /// use elicit::client::ScriptedAsker;
    /// use elicit::rmcp::client::ElicitClient;
    /// use rmcp::model::ProtocolVersion;
    /// use rmcp::ClientLifecycleMode;
    ///
    /// let client = ElicitClient::new(ScriptedAsker::accept_defaults())
    ///     .with_protocol_version(ProtocolVersion::V_2026_07_28);
    /// assert!(matches!(client.lifecycle(), ClientLifecycleMode::Discover { .. }));
    /// ```
    pub fn lifecycle(&self) -> ClientLifecycleMode {
        match &self.protocol_version {
            None => ClientLifecycleMode::Auto {
                preferred_versions: modern_versions(),
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
            Some(version) if !version.has_initialize() => ClientLifecycleMode::Discover {
                preferred_versions: vec![version.clone()],
            },
            Some(_) => ClientLifecycleMode::Initialize,
        }
    }

    /// The modes this client declares: those its asker renders.
    pub fn modes(&self) -> &ElicitationCapabilities {
        &self.modes
    }

    /// The engine of this connection, made on first use with the server's identity
    /// from `initialize` (`serverInfo`), which the person is shown
    /// ([K1](crate::rules#k1)).
    fn responder(&self, peer: &Peer<RoleClient>) -> &ClientEngine {
        self.responder.get_or_init(|| {
            let server = peer
                .peer_info()
                .and_then(|info| info.server_info.clone())
                .map(|implementation| {
                    let mut identity = AgentIdentity::new(implementation.name.clone())
                        .with_version(implementation.version.clone());
                    if let Some(title) = &implementation.title {
                        identity = identity.with_title(title.clone());
                    }
                    identity
                })
                .unwrap_or_else(|| AgentIdentity::new("an MCP server"));
            ClientEngine::mcp(server).with_policy(self.policy.clone())
        })
    }

    /// One `elicitation/create`, its raw params in, the result (or the JSON-RPC error)
    /// out.
    async fn answer(
        &self,
        params: Value,
        id: &NumberOrString,
        peer: &Peer<RoleClient>,
        cancelled: impl Future<Output = ()> + Send,
    ) -> Result<Value, ErrorData> {
        let responder = self.responder(peer);
        let params = as_engine_params(params, id);
        let deadline = self.policy.deadline();
        let until = deadline.map(|d| tokio::time::Instant::now() + d);
        // Ends the question: the deadline (ClientPolicy) or the server's cancel.
        let stop = async move {
            let cancelled = pin!(cancelled);
            match until {
                Some(until) => {
                    let sleep = pin!(tokio::time::sleep_until(until));
                    first(cancelled, sleep).await;
                }
                None => cancelled.await,
            }
        };
        let mut stop = pin!(stop);
        // One question at a time: a second request waits for the asker, and its wait
        // counts against its own deadline and cancel.
        let mut asker = {
            let lock = pin!(self.asker.lock());
            match race(lock, stop.as_mut()).await {
                Some(asker) => asker,
                None => return Ok(crate::protocol::ElicitationResponse::cancel().to_json()),
            }
        };
        let answered = responder
            .respond_until(&mut *asker, &params, stop)
            .await
            .map_err(to_error_data)?;
        Ok(answered.to_json())
    }
}

impl<A: Asker + 'static> ClientHandler for ElicitClient<A> {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The bytes the server wrote when a tap saw them (D13, E7); otherwise what
        // rmcp kept.
        let params = self
            .tap
            .as_ref()
            .and_then(|tap| tap.take(&context.id))
            .unwrap_or_else(|| typed_params_to_json(&request));
        let answered = self
            .answer(params, &context.id, &context.peer, context.ct.cancelled())
            .await?;
        serde_json::from_value(answered).map_err(|e| {
            ErrorData::internal_error(
                format!("the engine's answer is not an ElicitResult: {e}"),
                None,
            )
        })
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, ErrorData> {
        if request.method != ELICITATION_CREATE {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ));
        }
        // rmcp could not read these params into its typed model (an unknown property
        // type, a malformed schema, …): elicit reads them and answers, a refusal
        // included, instead of rmcp's "method not found".
        let params = self
            .tap
            .as_ref()
            .and_then(|tap| tap.take(&context.id))
            .or(request.params)
            .unwrap_or(Value::Null);
        self.answer(params, &context.id, &context.peer, context.ct.cancelled())
            .await
            .map(CustomResult)
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleClient>,
    ) {
        if notification.method != ELICITATION_COMPLETE_NOTIFICATION {
            return;
        }
        let params = notification.params.unwrap_or(Value::Null);
        // U6: the engine reports each id this client consented to once; anything
        // else is ignored.
        if let Completion::Completed(elicitation_id) =
            self.responder(&context.peer).complete(&params)
        {
            self.asker
                .lock()
                .await
                .notice(&AskerNotice::Completed { elicitation_id });
        }
    }

    fn get_info(&self) -> ClientConfig {
        // What `initialize` offers, and what `server/discover` and every 2026-07-28
        // request carry in `_meta` (`lifecycle` names the versions discovery offers;
        // `connect` reshapes `initialize` for the version it settles on).
        let version = self
            .protocol_version
            .clone()
            .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE);
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = elicitation_capability(&self.modes, &version);
        ClientConfig::new(capabilities, self.implementation.clone()).with_protocol_version(version)
    }
}

/// The MCP capability for the modes an asker renders (C1), in the shape of `version`;
/// none at all when it renders none that version has.
/// - 2025-11-25 and later: each mode explicitly (`{"form": {}, "url": {}}`), not with
///   the empty object, which there means form only (M2);
/// - 2025-06-18: `{}`, its only shape (form; the version has no URL mode, and its
///   strict servers refuse members it does not define: codex #20562);
/// - earlier: none (elicitation came with 2025-06-18).
fn elicitation_capability(
    modes: &ElicitationCapabilities,
    version: &ProtocolVersion,
) -> Option<ElicitationCapability> {
    let form = modes.supports(Mode::Form);
    let url = modes.supports(Mode::Url);
    if version.as_str() < ProtocolVersion::V_2025_06_18.as_str() {
        return None;
    }
    if version.as_str() < ProtocolVersion::V_2025_11_25.as_str() {
        return form.then(ElicitationCapability::new);
    }
    if !form && !url {
        return None;
    }
    let mut capability = ElicitationCapability::new();
    capability.form = form.then(FormElicitationCapability::new);
    capability.url = url.then(UrlElicitationCapability::new);
    Some(capability)
}

/// Whether this client speaks `version` (every version rmcp knows).
fn speaks(version: &ProtocolVersion) -> bool {
    ProtocolVersion::KNOWN_VERSIONS.contains(version)
}

/// The versions without `initialize` this client speaks, newest first: what
/// `server/discover` offers.
fn modern_versions() -> Vec<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .rev()
        .filter(|version| !version.has_initialize())
        .cloned()
        .collect()
}

/// The newest version with `initialize` that this client and a server speaking
/// `server` both speak.
fn newest_with_initialize(server: &[ProtocolVersion]) -> Option<ProtocolVersion> {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .rev()
        .find(|version| version.has_initialize() && server.contains(version))
        .cloned()
}

/// Why [`ElicitClient::connect`] did not connect.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnectError {
    /// No protocol version both sides speak: the versions this client offered (all
    /// it speaks, newest first, or the one asked for), and those the server named
    /// (its `server/discover` list, or the version it answered `initialize` with;
    /// empty when it named none).
    NoCommonVersion {
        /// The versions this client offered.
        client: Vec<ProtocolVersion>,
        /// The versions the server named.
        server: Vec<ProtocolVersion>,
    },
    /// Asked for versions without `initialize` only (2026-07-28), the server answered
    /// `server/discover` with this error: an older server, which only `initialize`
    /// reaches (ask for such a version, or for none).
    DiscoverRefused {
        /// The versions this client offered.
        client: Vec<ProtocolVersion>,
        /// The server's answer to `server/discover`.
        error: ErrorData,
    },
    /// The handshake failed otherwise: rmcp's error (the transport, a refusal, a
    /// fallback to `initialize` that failed too, …).
    Handshake(Box<ClientInitializeError>),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |versions: &[ProtocolVersion]| {
            versions
                .iter()
                .map(ProtocolVersion::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        match self {
            ConnectError::NoCommonVersion { client, server } if server.is_empty() => write!(
                f,
                "no protocol version both sides speak: this client speaks {}, the server named none",
                list(client)
            ),
            ConnectError::NoCommonVersion { client, server } => write!(
                f,
                "no protocol version both sides speak: this client speaks {}, the server {}",
                list(client),
                list(server)
            ),
            ConnectError::DiscoverRefused { client, error } => write!(
                f,
                "asked to speak {} only, which has no initialize, but the server answered \
                 server/discover with {}: {} (an older server; ask for a version with \
                 initialize such as 2025-11-25, or leave the version to the client)",
                list(client),
                error.code.0,
                error.message
            ),
            // rmcp's text for this one names neither failure.
            ConnectError::Handshake(error) => match &**error {
                ClientInitializeError::LegacyFallbackFailed { discover, fallback } => write!(
                    f,
                    "server/discover failed ({discover}), and so did initialize after it ({fallback})"
                ),
                error => error.fmt(f),
            },
        }
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ConnectError::NoCommonVersion { .. } | ConnectError::DiscoverRefused { .. } => None,
            ConnectError::Handshake(error) => Some(&**error),
        }
    }
}

/// What [`Negotiating`] learned during the handshake.
#[derive(Default)]
struct Learned {
    /// The id of the `server/discover` request awaiting its answer.
    discover: Option<RequestId>,
    /// The versions the server named in answer to it, when they were all older ones.
    server_versions: Option<Vec<ProtocolVersion>>,
}

/// The transport under [`ElicitClient::connect`]: hands every message on, and during
/// the handshake of a client without a version of its own reads the server's answer
/// to `server/discover`. A list of versions that all have `initialize` (rmcp's
/// `-32022` error, or a result) is handed to rmcp as the plain error it reads as a
/// legacy server's, so that it falls back to `initialize`; that `initialize` then
/// offers the newest of them this client speaks, with the capability in its shape.
struct Negotiating<T> {
    inner: T,
    /// No version asked for: negotiate (else every message goes through unchanged).
    negotiate: bool,
    modes: ElicitationCapabilities,
    learned: Arc<Mutex<Learned>>,
}

impl<T> Negotiating<T> {
    fn learned(&self) -> std::sync::MutexGuard<'_, Learned> {
        self.learned.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn outgoing(&self, message: &mut ClientJsonRpcMessage) {
        let ClientJsonRpcMessage::Request(request) = message else {
            return;
        };
        match &mut request.request {
            ClientRequest::DiscoverRequest(_) => {
                self.learned().discover = Some(request.id.clone());
            }
            ClientRequest::InitializeRequest(initialize) => {
                let params = &mut initialize.params;
                if let Some(version) = self
                    .learned()
                    .server_versions
                    .as_deref()
                    .and_then(newest_with_initialize)
                {
                    params.protocol_version = version;
                }
                params.capabilities.elicitation =
                    elicitation_capability(&self.modes, &params.protocol_version);
            }
            _ => {}
        }
    }

    fn incoming(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let mut learned = self.learned();
        let Some(discover) = learned.discover.clone() else {
            return message;
        };
        let (id, versions, how) = match &message {
            ServerJsonRpcMessage::Error(error)
                if error.id.as_ref().is_none_or(|id| same_id(id, &discover))
                    && error.error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION =>
            {
                let versions = error
                    .error
                    .data
                    .as_ref()
                    .and_then(|data| data.get("supported"))
                    .and_then(|supported| {
                        serde_json::from_value::<Vec<ProtocolVersion>>(supported.clone()).ok()
                    })
                    .unwrap_or_default();
                (discover, versions, "refused 2026-07-28 (-32022)")
            }
            ServerJsonRpcMessage::Response(response) if same_id(&response.id, &discover) => {
                let ServerResult::DiscoverResult(result) = &response.result else {
                    learned.discover = None;
                    return message;
                };
                (
                    discover,
                    result.supported_versions.clone(),
                    "answered with its versions",
                )
            }
            ServerJsonRpcMessage::Error(error)
                if error.id.as_ref().is_none_or(|id| same_id(id, &discover)) =>
            {
                learned.discover = None;
                return message;
            }
            _ => return message,
        };
        learned.discover = None;
        // rmcp picks a version without `initialize` itself (or asks again for one the
        // server listed); and a list with nothing in common is its error to report.
        let modern = modern_versions();
        if versions.iter().any(|version| modern.contains(version)) {
            return message;
        }
        let Some(newest) = newest_with_initialize(&versions).or_else(|| {
            // A refusal that names no versions: an older server that says so.
            versions
                .is_empty()
                .then_some(ProtocolVersion::LATEST_WITH_INITIALIZE)
        }) else {
            return message;
        };
        let named = if versions.is_empty() {
            "no versions".to_owned()
        } else {
            versions
                .iter()
                .map(ProtocolVersion::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        };
        learned.server_versions = Some(versions);
        // Any code rmcp does not read as a modern refusal makes it fall back.
        let legacy = ErrorData::invalid_request(
            format!(
                "the server {how}, naming {named}: it speaks only versions with initialize; \
                 initialize follows, offering {newest}"
            ),
            None,
        );
        ServerJsonRpcMessage::error(legacy, Some(id))
    }
}

/// Two JSON-RPC ids name the same request (a number also as its decimal string, as
/// rmcp matches them).
fn same_id(a: &RequestId, b: &RequestId) -> bool {
    a == b || a.to_string() == b.to_string()
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Negotiating<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        mut item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if self.negotiate {
            self.outgoing(&mut item);
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        let message = self.inner.receive().await?;
        Some(if self.negotiate {
            self.incoming(message)
        } else {
            message
        })
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

/// MCP params as the engine reads them: `mode` made explicit (M1: absent is form), the
/// JSON-RPC id as the request's scope (M1: MCP has none; [`ClientEngine::mcp`] shows
/// none), and for a URL request without an `elicitationId` (MCP 2026-07-28, M6) one
/// made from that id.
fn as_engine_params(params: Value, id: &NumberOrString) -> Value {
    let Value::Object(mut params) = params else {
        // Not an object: the engine refuses it with the reason.
        return params;
    };
    let id = match id {
        NumberOrString::Number(n) => Value::from(*n),
        NumberOrString::String(s) => Value::from(s.to_string()),
    };
    if !params.contains_key("mode") {
        params.insert("mode".into(), Value::from(Mode::Form.as_str()));
    }
    let is_url = params.get("mode").and_then(Value::as_str) == Some(Mode::Url.as_str());
    let has_id = params
        .get("elicitationId")
        .and_then(Value::as_str)
        .is_some_and(|id| !id.is_empty());
    if is_url && !has_id {
        let made = match &id {
            Value::String(s) => format!("request-{s}"),
            other => format!("request-{other}"),
        };
        params.insert("elicitationId".into(), Value::from(made));
    }
    params.remove("sessionId");
    params.remove("toolCallId");
    params.insert("requestId".into(), id);
    Value::Object(params)
}

/// rmcp's typed params written back to JSON, the properties in the order rmcp kept
/// from the wire (`property_order`) when it has one.
pub(crate) fn typed_params_to_json(request: &ElicitRequestParams) -> Value {
    let mut json = serde_json::to_value(request).unwrap_or(Value::Null);
    if let ElicitRequestParams::FormElicitationParams {
        requested_schema, ..
    } = request
    {
        if let (Some(order), Some(Value::Object(properties))) = (
            &requested_schema.property_order,
            json.pointer_mut("/requestedSchema/properties"),
        ) {
            let mut sorted = Map::new();
            for name in order {
                if let Some(value) = properties.remove(name) {
                    sorted.insert(name.clone(), value);
                }
            }
            sorted.append(properties);
            *properties = sorted;
        }
    }
    json
}

fn to_error_data(error: JsonRpcError) -> ErrorData {
    let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(
        ErrorCode(code),
        error.message().to_owned(),
        error.data().cloned(),
    )
}

/// Waits for the first of two futures.
async fn first<A: Future, B: Future>(a: Pin<&mut A>, b: Pin<&mut B>) {
    let (mut a, mut b) = (a, b);
    poll_fn(|cx| {
        if a.as_mut().poll(cx).is_ready() || b.as_mut().poll(cx).is_ready() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

/// `Some` with the first's output, `None` when the second finished first.
async fn race<A: Future, B: Future>(mut a: Pin<&mut A>, mut b: Pin<&mut B>) -> Option<A::Output> {
    poll_fn(|cx| {
        if let Poll::Ready(output) = a.as_mut().poll(cx) {
            return Poll::Ready(Some(output));
        }
        if b.as_mut().poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}

/// Records the raw params of each `elicitation/create` read from a newline-delimited
/// JSON-RPC stream, by request id, for [`ElicitClient`] to answer from the bytes the
/// server wrote instead of rmcp's typed model (see the [module documentation](self)).
///
/// Cheap to clone; clones share the record. Bounded: at most
/// [`RawTap::CAPACITY`] requests wait to be answered (the oldest is dropped beyond),
/// and a line longer than [`RawTap::MAX_LINE`] is not recorded (rmcp then answers from
/// its own reading).
#[derive(Clone, Default)]
pub struct RawTap {
    pending: Arc<Mutex<VecDeque<(String, Value)>>>,
    /// The 2026-07-28 input requests (`elicitation/create` inside an
    /// `InputRequiredResult`), by their key.
    inputs: Arc<Mutex<VecDeque<(String, Value)>>>,
}

impl std::fmt::Debug for RawTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawTap")
            .field("pending", &self.lock().len())
            .field("inputs", &lock_queue(&self.inputs).len())
            .finish()
    }
}

impl RawTap {
    /// How many recorded requests wait for their answer at most.
    pub const CAPACITY: usize = 64;
    /// The longest line recorded, in bytes.
    pub const MAX_LINE: usize = 4 << 20;

    /// An empty tap.
    pub fn new() -> Self {
        Self::default()
    }

    /// `inner`, recording each `elicitation/create` that goes through it.
    pub fn reader<R: AsyncRead + Unpin>(&self, inner: R) -> TapReader<R> {
        TapReader {
            inner,
            tap: self.clone(),
            line: Vec::new(),
            overlong: false,
        }
    }

    /// Records one JSON-RPC message (one line of the stream, or a message read
    /// elsewhere): kept when it is an `elicitation/create` request, or a result whose
    /// `inputRequests` hold `elicitation/create` requests (MCP 2026-07-28), each of
    /// those kept by its key.
    pub fn record(&self, message: &[u8]) {
        // Most lines are not elicitations: skip them without parsing.
        if !contains(message, ELICITATION_CREATE.as_bytes()) {
            return;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(message) else {
            return;
        };
        if let Some(Value::Object(requests)) = message
            .get_mut("result")
            .and_then(|result| result.get_mut("inputRequests"))
            .map(Value::take)
        {
            let mut inputs = lock_queue(&self.inputs);
            for (key, mut request) in requests {
                if request.get("method").and_then(Value::as_str) != Some(ELICITATION_CREATE) {
                    continue;
                }
                let Some(params) = request.get_mut("params").map(Value::take) else {
                    continue;
                };
                inputs.retain(|(k, _)| *k != key);
                if inputs.len() >= Self::CAPACITY {
                    inputs.pop_front();
                }
                inputs.push_back((key, params));
            }
            return;
        }
        if message.get("method").and_then(Value::as_str) != Some(ELICITATION_CREATE) {
            return;
        }
        let (Some(id), Some(params)) = (message.remove("id"), message.remove("params")) else {
            return;
        };
        let Some(key) = id_key_of_json(&id) else {
            return;
        };
        let mut pending = self.lock();
        pending.retain(|(k, _)| *k != key);
        if pending.len() >= Self::CAPACITY {
            pending.pop_front();
        }
        pending.push_back((key, params));
    }

    /// The raw params recorded for the request `id`, taken out: a request the server
    /// sent with that id, or else (a string id, as rmcp names an input request by its
    /// key) the 2026-07-28 input request of that key.
    pub fn take(&self, id: &NumberOrString) -> Option<Value> {
        let key = id_key(id);
        {
            let mut pending = self.lock();
            if let Some(at) = pending.iter().position(|(k, _)| *k == key) {
                return pending.remove(at).map(|(_, params)| params);
            }
        }
        let NumberOrString::String(input_key) = id else {
            return None;
        };
        let mut inputs = lock_queue(&self.inputs);
        let at = inputs.iter().position(|(k, _)| **k == **input_key)?;
        inputs.remove(at).map(|(_, params)| params)
    }

    /// Every recorded input request no handler took, by key, taken out: the ones
    /// rmcp could not read (it then fails the call without asking them).
    pub fn take_input_requests(&self) -> Vec<(String, Value)> {
        lock_queue(&self.inputs).drain(..).collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(String, Value)>> {
        lock_queue(&self.pending)
    }
}

fn lock_queue(
    queue: &Mutex<VecDeque<(String, Value)>>,
) -> std::sync::MutexGuard<'_, VecDeque<(String, Value)>> {
    queue.lock().unwrap_or_else(PoisonError::into_inner)
}

fn id_key(id: &NumberOrString) -> String {
    match id {
        NumberOrString::Number(n) => format!("n{n}"),
        NumberOrString::String(s) => format!("s{s}"),
    }
}

fn id_key_of_json(id: &Value) -> Option<String> {
    match id {
        Value::Number(n) => n.as_i64().map(|n| format!("n{n}")),
        Value::String(s) => Some(format!("s{s}")),
        _ => None,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// A reader that hands every byte on unchanged and records the `elicitation/create`
/// requests among its lines ([`RawTap::reader`]).
#[derive(Debug)]
pub struct TapReader<R> {
    inner: R,
    tap: RawTap,
    line: Vec<u8>,
    overlong: bool,
}

impl<R: AsyncRead + Unpin> AsyncRead for TapReader<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            for &byte in &buf.filled()[before..] {
                if byte == b'\n' {
                    if !this.overlong {
                        this.tap.record(&this.line);
                    }
                    this.line.clear();
                    this.overlong = false;
                } else if this.overlong {
                    // D12: an overlong line is handed on but not kept.
                } else if this.line.len() < RawTap::MAX_LINE {
                    this.line.push(byte);
                } else {
                    this.overlong = true;
                    this.line = Vec::new();
                }
            }
        }
        polled
    }
}
