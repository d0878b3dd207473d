//! [`McpBridge`]: the rmcp client handler that asks every MCP elicitation over ACP.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use ::agent_client_protocol::{Client, ConnectionTo};
use ::rmcp::handler::client::ClientHandler;
use ::rmcp::model::{
    ClientCapabilities, ClientConfig, CustomNotification, CustomRequest, CustomResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorCode, FormElicitationCapability,
    Implementation, ProtocolVersion, UrlElicitationCapability,
};
use ::rmcp::service::{NotificationContext, RequestContext, RoleClient};
use ::rmcp::{ClientLifecycleMode, ErrorData};
use futures::future::{self, Either};
use serde_json::{json, Value};

use super::schema::read_mcp_schema;
use crate::agent::{AskError, Elicitor};
use crate::agent_client_protocol::{ask_schema, ask_url, cancel_session, UrlConsent};
use crate::protocol::mcp::{ELICITATION_COMPLETE_NOTIFICATION, ELICITATION_CREATE};
use crate::protocol::{ElicitationResponse, Mode, Scope};
use crate::rmcp::client::{typed_params_to_json, RawTap};
use crate::schema::RequestedSchema;
use crate::typed::Elicited;

/// An rmcp [`ClientHandler`](::rmcp::handler::client::ClientHandler) that asks every elicitation of an MCP server through an
/// ACP connection to the person's client: see the [module documentation](super).
///
/// Cheap to clone: clones share the connection, the current tool call and the URL
/// consents waiting for their completion; each keeps its own configuration.
#[derive(Clone)]
pub struct McpBridge {
    pub(super) inner: Arc<Inner>,
    protocol_version: Option<ProtocolVersion>,
    tap: Option<RawTap>,
    implementation: Implementation,
    deadline: Option<Duration>,
}

/// What the clones of a bridge share.
pub(super) struct Inner {
    connection: ConnectionTo<Client>,
    elicitor: Elicitor,
    /// The ACP scope of the `tools/call` in flight ([`super::call_tool`]).
    pub(super) scope: Mutex<Option<Scope>>,
    /// One `tools/call` at a time on this MCP connection.
    pub(super) calls: tokio::sync::Mutex<()>,
    /// URL consents waiting for the MCP server's completion, by its `elicitationId`.
    consents: Mutex<HashMap<String, UrlConsent>>,
    /// URL consents without an MCP id (2026-07-28), completed when their call ends.
    pub(super) unnamed: Mutex<Vec<UrlConsent>>,
    /// Woken at every completion carried across.
    pub(super) completed: tokio::sync::Notify,
}

impl std::fmt::Debug for McpBridge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpBridge")
            .field("connection", &self.inner.elicitor.connection())
            .field("protocol_version", &self.protocol_version)
            .field("scope", &*lock(&self.inner.scope))
            .finish_non_exhaustive()
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every update is one assignment, insert or remove: a poisoned lock is still whole.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl McpBridge {
    /// A bridge asking on `connection` (the ACP SDK's connection to the client, as
    /// handlers receive it) through `elicitor`, the connection's [`Elicitor`] made from
    /// what the ACP client declared in `initialize`: its capabilities are what the
    /// bridge declares to the MCP server, its URL policy checks the MCP server's URLs,
    /// its registry mints the ACP `elicitationId`s.
    pub fn new(connection: impl Into<ConnectionTo<Client>>, elicitor: Elicitor) -> Self {
        McpBridge {
            protocol_version: None,
            tap: None,
            implementation: Implementation::new("elicit-bridge", env!("CARGO_PKG_VERSION")),
            deadline: None,
            inner: Arc::new(Inner {
                connection: connection.into(),
                elicitor,
                scope: Mutex::new(None),
                calls: tokio::sync::Mutex::new(()),
                consents: Mutex::new(HashMap::new()),
                unnamed: Mutex::new(Vec::new()),
                completed: tokio::sync::Notify::new(),
            }),
        }
    }

    /// Speaking this MCP version: `2025-11-25` or an older one with `initialize`,
    /// `2026-07-28` with `server/discover`. By default the newest both sides speak
    /// (see [`lifecycle`](Self::lifecycle)).
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.protocol_version = Some(version);
        self
    }

    /// Reading each `elicitation/create` from what `tap` recorded on the transport
    /// (the bytes the server wrote, with the members rmcp's typed model drops).
    pub fn with_tap(mut self, tap: RawTap) -> Self {
        self.tap = Some(tap);
        self
    }

    /// With this name and version in `initialize`'s `clientInfo`.
    pub fn with_client_info(mut self, implementation: Implementation) -> Self {
        self.implementation = implementation;
        self
    }

    /// Giving the person at most `deadline` to answer each elicitation: then the ACP
    /// request is withdrawn (`$/cancel_request`) and the MCP server is answered
    /// `cancel`.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// How rmcp should start the MCP connection, for
    /// `ClientServiceExt::serve_with_lifecycle`: `server/discover` for a version
    /// without a handshake (2026-07-28), `initialize` for an older one, and with no
    /// version given `server/discover` offering rmcp's newest and falling back to
    /// `initialize` with 2025-11-25.
    pub fn lifecycle(&self) -> ClientLifecycleMode {
        match &self.protocol_version {
            None => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::LATEST],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
            Some(version) if !version.has_initialize() => ClientLifecycleMode::Discover {
                preferred_versions: vec![version.clone()],
            },
            Some(_) => ClientLifecycleMode::Initialize,
        }
    }

    /// The elicitation capability declared to the MCP server: exactly the modes the
    /// ACP client declared ([C1](crate::rules#c1)); a 2025-06-18 server, which knows
    /// no modes, gets `elicitation: {}` when the ACP client shows forms; older
    /// versions, and an ACP client without a mode, get none.
    pub fn capability(&self) -> Option<ElicitationCapability> {
        let form = self.inner.elicitor.supports(Mode::Form);
        let url = self.inner.elicitor.supports(Mode::Url);
        let version = self
            .protocol_version
            .clone()
            .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE);
        if version < ProtocolVersion::V_2025_06_18 {
            return None;
        }
        if version == ProtocolVersion::V_2025_06_18 {
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

    /// The ACP connection's [`Elicitor`].
    pub fn elicitor(&self) -> &Elicitor {
        &self.inner.elicitor
    }

    /// Ends the ask waiting in this ACP session, as ACP `session/cancel` asks: it is
    /// withdrawn from the ACP client (`$/cancel_request`) and the MCP server is
    /// answered `cancel`. Returns how many asks were ended. Drop the session's
    /// [`call_tool`](super::call_tool) future too, for rmcp to send
    /// `notifications/cancelled` for the `tools/call`.
    pub fn cancel_session(&self, session_id: &str) -> usize {
        cancel_session(&self.inner.elicitor, session_id)
    }

    /// How many URL consents wait for the MCP server's completion.
    pub fn pending_completions(&self) -> usize {
        lock(&self.inner.consents).len() + lock(&self.inner.unnamed).len()
    }

    pub(super) fn waits_for(&self, mcp_id: &str) -> bool {
        lock(&self.inner.consents).contains_key(mcp_id)
    }

    /// One MCP elicitation, its raw params in, the MCP result (or the JSON-RPC error)
    /// out; `stop` ends it early (the MCP server cancelled the request).
    async fn answer(
        &self,
        params: Value,
        stop: impl Future<Output = ()> + Send,
    ) -> Result<Value, ErrorData> {
        let Some(scope) = lock(&self.inner.scope).clone() else {
            return Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                "no tool call of this client is in progress: there is no ACP session to ask \
                 the person in",
                None,
            ));
        };
        let Value::Object(params) = params else {
            return Err(ErrorData::invalid_params(
                "`elicitation/create` params must be an object",
                None,
            ));
        };
        let message = match params.get("message") {
            Some(Value::String(message)) => message.clone(),
            _ => {
                return Err(ErrorData::invalid_params(
                    "`message` is missing or not a string",
                    None,
                ))
            }
        };
        let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
        match mode {
            "form" => {
                let schema_json = params.get("requestedSchema").unwrap_or(&Value::Null);
                let schema = read_form_schema(schema_json)?;
                let ask = ask_schema(
                    &self.inner.connection,
                    &self.inner.elicitor,
                    scope,
                    message,
                    &schema,
                );
                match self.until(ask, stop).await {
                    None => Ok(ElicitationResponse::cancel().to_json()),
                    Some(Ok(Elicited::Accepted(content))) => {
                        Ok(json!({ "action": "accept", "content": content }))
                    }
                    Some(Ok(Elicited::Declined)) => Ok(ElicitationResponse::decline().to_json()),
                    Some(Ok(Elicited::Cancelled)) => Ok(ElicitationResponse::cancel().to_json()),
                    Some(Err(error)) => Err(ask_error(error)),
                }
            }
            "url" => {
                let url = match params.get("url") {
                    Some(Value::String(url)) => url.clone(),
                    _ => {
                        return Err(ErrorData::invalid_params(
                            "`url` is missing or not a string",
                            None,
                        ))
                    }
                };
                // rmcp writes an absent id as "": none, never echoed.
                let mcp_id = params
                    .get("elicitationId")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty())
                    .map(str::to_owned);
                self.ask_url(scope, mcp_id, message, &url, stop).await
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown elicitation mode {other:?}: expected \"form\" or \"url\""),
                None,
            )),
        }
    }

    /// A URL-mode elicitation asked over ACP; the consent kept for the MCP server's
    /// completion under `mcp_id`, or with the call when there is none.
    pub(super) async fn ask_url(
        &self,
        scope: Scope,
        mcp_id: Option<String>,
        message: String,
        url: &str,
        stop: impl Future<Output = ()> + Send,
    ) -> Result<Value, ErrorData> {
        let ask = ask_url(
            &self.inner.connection,
            &self.inner.elicitor,
            scope,
            message,
            url,
        );
        match self.until(ask, stop).await {
            None => Ok(ElicitationResponse::cancel().to_json()),
            Some(Ok(Elicited::Accepted(consent))) => {
                match mcp_id {
                    Some(id) => {
                        lock(&self.inner.consents).insert(id, consent);
                    }
                    None => lock(&self.inner.unnamed).push(consent),
                }
                Ok(json!({ "action": "accept" }))
            }
            Some(Ok(Elicited::Declined)) => Ok(ElicitationResponse::decline().to_json()),
            Some(Ok(Elicited::Cancelled)) => Ok(ElicitationResponse::cancel().to_json()),
            Some(Err(error)) => Err(ask_error(error)),
        }
    }

    /// `ask`'s output, or `None` when `stop` or the deadline came first (the ask is
    /// dropped: the SDK withdraws the ACP request with `$/cancel_request`).
    async fn until<T>(
        &self,
        ask: impl Future<Output = T>,
        stop: impl Future<Output = ()>,
    ) -> Option<T> {
        let deadline = self.deadline;
        let stop = async move {
            match deadline {
                Some(deadline) => {
                    let sleep = pin!(tokio::time::sleep(deadline));
                    let stop = pin!(stop);
                    future::select(stop, sleep).await;
                }
                None => stop.await,
            }
        };
        match future::select(pin!(ask), pin!(stop)).await {
            Either::Left((answer, _)) => Some(answer),
            Either::Right(((), _)) => None,
        }
    }

    /// The MCP server's completion of `mcp_id`: `elicitation/complete` with the ACP id,
    /// once; ignored for an id this bridge holds no consent for.
    fn complete(&self, mcp_id: &str) {
        let consent = lock(&self.inner.consents).remove(mcp_id);
        if let Some(consent) = consent {
            // A refusal (the Elicitor forgot it) or a closed connection leaves nothing
            // to do: the consent is dropped either way.
            let _ = consent.complete(self.inner.elicitor.user());
            self.inner.completed.notify_waiters();
        }
    }

    /// The end of a call on 2026-07-28: its URL consents, which have no MCP id and no
    /// completion notification, completed when the call `succeeded` (the server
    /// stopped asking: its external step is done), forgotten otherwise.
    pub(super) fn end_call(&self, succeeded: bool) {
        let consents = std::mem::take(&mut *lock(&self.inner.unnamed));
        if succeeded {
            for consent in consents {
                let _ = consent.complete(self.inner.elicitor.user());
            }
        }
    }

    /// The tap's input requests that no handler took (rmcp could not read them).
    pub(super) fn unread_input_requests(&self) -> Vec<(String, Value)> {
        self.tap
            .as_ref()
            .map(RawTap::take_input_requests)
            .unwrap_or_default()
    }

    fn raw_params(&self, context: &RequestContext<RoleClient>) -> Option<Value> {
        self.tap.as_ref().and_then(|tap| tap.take(&context.id))
    }
}

/// The `requestedSchema` of a form request, read for asking over ACP; refused with
/// every problem and its JSON pointer (`-32602`), never forwarded.
fn read_form_schema(schema_json: &Value) -> Result<RequestedSchema, ErrorData> {
    read_mcp_schema(schema_json).map_err(|error| {
        ErrorData::invalid_params(
            format!("the requestedSchema was not forwarded to the person: {error}"),
            Some(json!({
                "problems": error
                    .iter()
                    .map(|(pointer, kind)| json!({
                        "pointer": format!("/requestedSchema{pointer}"),
                        "problem": kind.to_string(),
                    }))
                    .collect::<Vec<_>>()
            })),
        )
    })
}

/// Why the raw params of an `elicitation/create` would not be asked over ACP, as far
/// as the params alone tell (the form's schema, the mode): for an input request rmcp
/// could not read, which it fails the call for without asking.
pub(super) fn refusal(params: &Value) -> Option<ErrorData> {
    let Value::Object(params) = params else {
        return Some(ErrorData::invalid_params(
            "`elicitation/create` params must be an object",
            None,
        ));
    };
    match params.get("mode").and_then(Value::as_str).unwrap_or("form") {
        "form" => read_form_schema(params.get("requestedSchema").unwrap_or(&Value::Null)).err(),
        "url" => None,
        other => Some(ErrorData::invalid_params(
            format!("unknown elicitation mode {other:?}: expected \"form\" or \"url\""),
            None,
        )),
    }
}

/// An [`AskError`] as the JSON-RPC error the MCP server gets: refusals before sending
/// are `-32602` (the request cannot be asked as it is), the ACP client's own error is
/// passed on, anything else is `-32603`.
fn ask_error(error: AskError) -> ErrorData {
    if error.is_refused_before_sending() {
        return ErrorData::invalid_params(format!("not asked over ACP: {error}"), None);
    }
    match error {
        AskError::Rejected(error) => {
            let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
            ErrorData::new(
                ErrorCode(code),
                error.message().to_owned(),
                error.data().cloned(),
            )
        }
        AskError::Invalid(problems) => ErrorData::internal_error(
            format!("the person's client answered with content that does not validate, so it was not passed on: {problems}"),
            None,
        ),
        other => ErrorData::internal_error(format!("asking over ACP failed: {other}"), None),
    }
}

impl ClientHandler for McpBridge {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let params = self
            .raw_params(&context)
            .unwrap_or_else(|| typed_params_to_json(&request));
        let answered = self.answer(params, context.ct.cancelled()).await?;
        serde_json::from_value(answered).map_err(|e| {
            ErrorData::internal_error(format!("the answer is not an ElicitResult: {e}"), None)
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
        // type, a malformed schema): the bridge reads them, and refuses with the reason.
        let params = self
            .raw_params(&context)
            .or(request.params)
            .unwrap_or(Value::Null);
        self.answer(params, context.ct.cancelled())
            .await
            .map(CustomResult)
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method != ELICITATION_COMPLETE_NOTIFICATION {
            return;
        }
        if let Some(id) = notification
            .params
            .as_ref()
            .and_then(|params| params.get("elicitationId"))
            .and_then(Value::as_str)
        {
            self.complete(id);
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = self.capability();
        let version = self
            .protocol_version
            .clone()
            .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE);
        ClientConfig::new(capabilities, self.implementation.clone()).with_protocol_version(version)
    }
}
