//! Ask an MCP client for a typed, validated answer through [rmcp] 3.x, the official
//! Rust MCP SDK (feature `rmcp_3`; rmcp needs Rust 1.88).
//!
//! # For MCP server authors
//!
//! Inside a tool, one call asks the client that called it and gives back a validated
//! Rust value, or the user's decline or cancel:
//!
//! ```no_run
//! use elicit::agent::AskError;
//! use elicit::rmcp::ask;
//! use elicit::{Elicit, Elicited};
//! use rmcp::service::{Peer, RoleServer};
//! #[derive(Elicit, Debug)]
//! struct Deploy {
//!     /// Deploy now
//!     confirm: bool,
//! }
//!
//! async fn deploy(peer: &Peer<RoleServer>) -> Result<String, AskError> {
//!     match ask::<Deploy>(peer, "Deploy to production?").await? {
//!         Elicited::Accepted(Deploy { confirm: true }) => Ok("deploying".into()),
//!         Elicited::Accepted(_) => Ok("not deploying".into()),
//!         // R5: a decline or a cancel is an answer too.
//!         Elicited::Declined | Elicited::Cancelled => Ok("nothing was done".into()),
//!     }
//! }
//! ```
//!
//! What the call does, in order:
//!
//! 1. reads the `elicitation` capability the client declared in `initialize`, the MCP
//!    way: `{}` means form ([M2](crate::rules#m2));
//! 2. refuses, before sending anything, what the protocol forbids: a mode the client
//!    did not declare ([C7](crate::rules#c7)), a link in a form ([F7](crate::rules#f7));
//!    a form asking for a secret ([F5](crate::rules#f5)) does not even compile;
//! 3. sends `elicitation/create` in MCP 2025-11-25 form: no scope
//!    ([M1](crate::rules#m1)), no `pattern` ([M7](crate::rules#m7)), the properties in
//!    the order the type declares them ([D13](crate::rules#d13));
//! 4. reads the result and validates it against the full schema, `pattern` included
//!    ([F3](crate::rules#f3), [M7](crate::rules#m7)): an invalid answer is
//!    [`AskError::Invalid`] with every problem, never a half-built value.
//!
//! Every way this can fail is an [`AskError`], the type the ACP integration returns
//! too.
//!
//! # One per connection: [`PeerElicitor`]
//!
//! [`ask`] is [`PeerElicitor::new`] followed by [`PeerElicitor::ask`];
//! [`PeerElicitor::ask_schema`] asks for a form whose schema was built at run time. Keep a
//! `PeerElicitor` per client connection when you need more: the authenticated user
//! ([E5](crate::rules#e5), [S6](crate::rules#s6)), links allowed in forms, the URL
//! policy, a [`UrlRegistry`](crate::agent::UrlRegistry) shared by all connections, and
//! URL mode (feature `url`):
//!
//! - [`PeerElicitor::ask_url`] sends a URL-mode request with an unguessable
//!   `elicitationId` bound to the connection and the user, and returns the user's
//!   choice; consent comes as a [`UrlConsent`], whose [`UrlConsent::complete`] sends
//!   `notifications/elicitation/complete` with that id to that client, once
//!   ([U2](crate::rules#u2), [U4](crate::rules#u4), [U5](crate::rules#u5),
//!   [M3](crate::rules#m3)).
//! - [`PeerElicitor::prepare_url`] and [`url_elicitation_required`] answer a tool call
//!   that cannot proceed with the `-32042` error ([M4](crate::rules#m4)).
//!
//! # Why elicit sends its own JSON
//!
//! rmcp's typed `ElicitationSchema` keeps its properties in a `BTreeMap`, in declaration
//! order only when it was read from JSON that had it (its builder sorts them by name),
//! and models each property with structs that have no room for some members elicit
//! sends: an option's `description`, a property's `_meta` ([E7](crate::rules#e7)).
//! So elicit sends the schema the type declares, in declaration order and whole,
//! through rmcp's raw `CustomRequest` with the method `elicitation/create`, and the
//! completion through a `CustomNotification` (rmcp has no type for it). The client sees
//! an ordinary elicitation; rmcp adds its `_meta.progressToken` to the params, as it
//! does to every request.
//!
//! # MCP 2026-07-28
//!
//! That version forbids requests pushed by the server ([M6](crate::rules#m6)): on a
//! connection that negotiated it, [`ask`] finds no declared mode and refuses with
//! [`AskError::ModeNotSupported`] without sending. Elicit there through
//! `InputRequiredResult`, with [`input`].
//!
//! # Importing it
//!
//! This module is named after the crate it integrates, so `use elicit::rmcp;` would
//! hide the `rmcp` crate itself in that file, and the errors that follow ("could not
//! find `model` in `rmcp`") do not say why. Import it under a name of its own, or call
//! it by its path:
//!
//! ```text
//! use elicit::rmcp as elicit_rmcp;
//! use rmcp::model::CallToolResult; // still the SDK
//!
//! let answer = elicit_rmcp::ask::<Plan>(&peer, "How many passes?").await;
//! ```
//!
//! The module keeps the crate's name on purpose: it says what it integrates, as
//! `elicit::axum` and `elicit::agent_client_protocol` do.
//!
//! [rmcp]: https://docs.rs/rmcp

use ::rmcp::model::{CustomRequest, ProtocolVersion, ServerRequest};
use ::rmcp::service::{Peer, RoleServer, ServiceError};
use ::rmcp::ErrorData;

use serde_json::Value;

use crate::agent::{schema_answer, AskError, ConnectionId, Elicitor, UserId};
use crate::protocol::mcp::{
    v2025_11_25, ElicitRequestParams, McpElicitationCapabilities, McpSchema, McpUrlParams,
    TitledSelect, ELICITATION_CREATE,
};
use crate::protocol::{
    CreateElicitation, ElicitationCapabilities, ElicitationResponse, JsonRpcError, Mode, Scope,
};
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

pub mod client;
pub mod dialog;
pub mod input;
mod state;
#[cfg(feature = "url")]
mod url;

#[cfg(feature = "url")]
#[allow(deprecated)]
pub use dialog::Consent;
#[cfg(feature = "url")]
pub use dialog::DialogConsent;
pub use dialog::{Dialog, DialogResult, Problems};
#[cfg(feature = "url")]
pub use url::{url_elicitation_required, CompleteError, UrlConsent};

/// Asks the client behind `peer` to fill in the form `T`, in one call (MCP 2025-11-25).
///
/// The short form of [`PeerElicitor::new`]`(peer).`[`ask`](PeerElicitor::ask): no
/// authenticated user, links in forms refused ([F7](crate::rules#f7)). Call it after
/// `initialize` (from a request handler), when rmcp knows what the client declared.
///
/// `Ok` is the validated answer or the user's decline or cancel
/// ([R5](crate::rules#r5)); see [`AskError`] for the rest.
pub async fn ask<T: Elicit>(
    peer: &Peer<RoleServer>,
    message: impl Into<String>,
) -> Result<Elicited<T>, AskError> {
    PeerElicitor::new(peer).ask(message).await
}

/// Asks one client through rmcp's server peer: the peer and the [`Elicitor`] of that
/// connection, together.
///
/// Make one per connection, after `initialize` (e.g. lazily, in the first request
/// handler that needs it) and keep it: it has the connection's [`ConnectionId`], so
/// that a URL elicitation completes only on the connection that sent it
/// ([E5](crate::rules#e5)). Cloning is cheap enough to hand one to each task; clones
/// are the same connection.
#[derive(Debug, Clone)]
pub struct PeerElicitor {
    peer: Peer<RoleServer>,
    elicitor: Elicitor,
}

impl PeerElicitor {
    /// The elicitor of the client behind `peer`, from the `elicitation` capability it
    /// declared in `initialize` ([M2](crate::rules#m2): `{}` is form), with a fresh
    /// [`ConnectionId`], no user and, with feature `url`, its own registry and the
    /// default URL policy.
    ///
    /// A peer that has not initialized, or negotiated MCP 2026-07-28 (no requests
    /// pushed by the server, [M6](crate::rules#m6)), declares no mode here.
    pub fn new(peer: &Peer<RoleServer>) -> Self {
        PeerElicitor {
            peer: peer.clone(),
            elicitor: Elicitor::new(declared_capabilities(peer), ConnectionId::new()),
        }
    }

    /// Sets the authenticated user ([E5](crate::rules#e5), [S6](crate::rules#s6)).
    #[must_use]
    pub fn with_user(mut self, user: UserId) -> Self {
        self.elicitor = self.elicitor.with_user(user);
        self
    }

    /// Lets form texts and the message contain URLs ([F7](crate::rules#f7)).
    #[must_use]
    pub fn allow_links_in_forms(mut self, allow: bool) -> Self {
        self.elicitor = self.elicitor.allow_links_in_forms(allow);
        self
    }

    /// Sets the policy URL-mode URLs are checked against ([S1](crate::rules#s1)).
    #[cfg(feature = "url")]
    #[must_use]
    pub fn with_url_policy(mut self, policy: crate::agent::UrlPolicy) -> Self {
        self.elicitor = self.elicitor.with_url_policy(policy);
        self
    }

    /// Records URL elicitations in this registry, shared by the server's connections
    /// ([E5](crate::rules#e5)).
    #[cfg(feature = "url")]
    #[must_use]
    pub fn with_registry(mut self, registry: &crate::agent::UrlRegistry) -> Self {
        self.elicitor = self.elicitor.with_registry(registry);
        self
    }

    /// The connection's [`Elicitor`]: capabilities, user, URL states.
    pub fn elicitor(&self) -> &Elicitor {
        &self.elicitor
    }

    /// The rmcp peer requests go to.
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.peer
    }

    /// Whether the client declared this mode ([C3](crate::rules#c3),
    /// [M2](crate::rules#m2)): check it to choose a flow before asking
    /// ([C7](crate::rules#c7)).
    pub fn supports(&self, mode: Mode) -> bool {
        self.elicitor.supports(mode)
    }

    /// Asks the client to fill in the form `T` and reads the answer as a `T`.
    ///
    /// Refused before sending: no form mode declared ([C7](crate::rules#c7)), a link in
    /// the form or the message ([F7](crate::rules#f7), unless allowed). After sending:
    /// a JSON-RPC error from the client is [`AskError::Rejected`], a lost connection
    /// [`AskError::Transport`], a result that is no elicitation result
    /// [`AskError::MalformedResponse`], and an accepted answer that breaks the schema
    /// [`AskError::Invalid`] with every problem ([F3](crate::rules#f3)).
    pub async fn ask<T: Elicit>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        self.check_pushable()?;
        let request = self.elicitor.form::<T>(mcp_scope(), message)?;
        let response = self.send(&request).await?;
        T::from_response(&response).map_err(AskError::Invalid)
    }

    /// Asks the client to fill in a form whose schema was built at run time, and
    /// returns the accepted content (a JSON object) once it validates against
    /// `schema` ([F3](crate::rules#f3)).
    ///
    /// As [`ask`](Self::ask), and also refused before sending when the schema breaks
    /// the strict rules ([`AskError::Refused`]) or asks for a secret
    /// ([`AskError::SecretInForm`], [F5](crate::rules#f5)): a derived form is checked
    /// for secrets when it compiles, a schema built at run time here.
    pub async fn ask_schema(
        &self,
        message: impl Into<String>,
        schema: &RequestedSchema,
    ) -> Result<Elicited<Value>, AskError> {
        self.check_pushable()?;
        let request = self.elicitor.form_schema(mcp_scope(), message, schema)?;
        let response = self.send(&request).await?;
        schema_answer(schema, &response)
    }

    /// As [`ask_schema`](Self::ask_schema), with the MCP form of the schema chosen by
    /// the server: the properties it named with [`McpSchema::with_legacy_titled`] go out
    /// as MCP's legacy titled select, `enum` + `enumNames` ([M5](crate::rules#m5)), the
    /// others as [`titled_select`](Self::titled_select) says. The answer is validated
    /// against the schema ([F3](crate::rules#f3)), which reads the same whichever form
    /// carried it.
    ///
    /// ```no_run
    /// # async fn run(elicitor: &elicit::rmcp::PeerElicitor) -> Result<(), Box<dyn std::error::Error>> {
    /// use elicit::protocol::mcp::McpSchema;
    /// use elicit::RequestedSchema;
    /// use serde_json::json;
    ///
    /// let schema = RequestedSchema::from_json(&json!({ "type": "object", "properties": {
    ///     "size": { "type": "string", "oneOf": [
    ///         { "const": "s", "title": "Small" }, { "const": "l", "title": "Large" } ] } } }))?;
    /// let answer = elicitor
    ///     .ask_mcp_schema("Which size?", &McpSchema::new(schema).with_legacy_titled("size")?)
    ///     .await?;
    /// # let _ = answer; Ok(()) }
    /// ```
    pub async fn ask_mcp_schema(
        &self,
        message: impl Into<String>,
        schema: &McpSchema,
    ) -> Result<Elicited<Value>, AskError> {
        self.check_pushable()?;
        let request = self
            .elicitor
            .form_schema(mcp_scope(), message, schema.schema())?;
        let response = self.send_with(&request, schema.legacy_properties()).await?;
        schema_answer(schema.schema(), &response)
    }

    /// How this client reads a titled single-select ([M5](crate::rules#m5)): by the
    /// protocol version it negotiated in `initialize`, the legacy `enum` + `enumNames`
    /// up to 2025-06-18, `oneOf` after ([`TitledSelect::for_protocol_version`]).
    pub fn titled_select(&self) -> TitledSelect {
        self.peer.peer_info().map_or(TitledSelect::OneOf, |info| {
            TitledSelect::for_protocol_version(info.protocol_version.as_str())
        })
    }

    /// Refuses, with the reason, a connection whose version has no requests pushed by
    /// the server ([M6](crate::rules#m6)): its capabilities read as none, and
    /// "the client did not declare form mode" would be the wrong reason.
    fn check_pushable(&self) -> Result<(), AskError> {
        match self.peer.peer_info() {
            Some(info) if info.protocol_version >= ProtocolVersion::V_2026_07_28 => {
                Err(AskError::NotPushable {
                    protocol_version: info.protocol_version.to_string(),
                })
            }
            _ => Ok(()),
        }
    }

    /// Sends an `elicitation/create` the Elicitor built, in MCP 2025-11-25 form, and
    /// reads the client's result.
    async fn send(&self, request: &CreateElicitation) -> Result<ElicitationResponse, AskError> {
        self.send_with(request, &[]).await
    }

    /// [`send`](Self::send), with these properties of a form written as MCP's legacy
    /// titled select ([M5](crate::rules#m5)).
    async fn send_with(
        &self,
        request: &CreateElicitation,
        legacy: &[String],
    ) -> Result<ElicitationResponse, AskError> {
        // M1, M7: the scope and `pattern` are left out; the properties keep their order.
        // M5: titled selects in the form the client's version reads.
        let params = mcp_params::<v2025_11_25::UrlParams>(request, self.titled_select(), legacy)?;
        let params = params.to_json();
        // Raw, not rmcp's typed `create_elicitation`: its schema model would sort the
        // properties of a schema it builds and drop members it has no room for (module
        // docs, "Why elicit sends its own JSON"). D13: this JSON is the declared order.
        let request = CustomRequest::new(ELICITATION_CREATE, Some(params));
        let result = self
            .peer
            .send_request(ServerRequest::CustomRequest(request))
            .await
            .map_err(ask_error)?;
        // rmcp has already sorted the result into one of its types; its JSON is what
        // the client sent (a result rmcp cannot type stays raw JSON), and elicit reads
        // that, so that every answer is judged by the same rules.
        let json = serde_json::to_value(&result).map_err(AskError::transport)?;
        ElicitationResponse::from_json(&json).map_err(AskError::MalformedResponse)
    }
}

/// The MCP params of a request the [`Elicitor`] built, in version `U`'s form: no scope
/// ([M1](crate::rules#m1)), no `pattern` ([M7](crate::rules#m7)), titled selects as
/// `titled` says, and the properties in `legacy` as MCP's legacy titled select
/// ([M5](crate::rules#m5)).
pub(crate) fn mcp_params<U: McpUrlParams>(
    request: &CreateElicitation,
    titled: TitledSelect,
    legacy: &[String],
) -> Result<ElicitRequestParams<U>, AskError> {
    let params = ElicitRequestParams::<U>::try_from(request)
        .expect("the Elicitor builds only form and URL requests, which both have an MCP form")
        .with_titled_select(titled);
    match params {
        ElicitRequestParams::Form(form) => {
            let form = legacy.iter().try_fold(form, |form, property| {
                form.with_legacy_titled(property.as_str())
                    .map_err(AskError::transport)
            })?;
            Ok(ElicitRequestParams::Form(form))
        }
        url => Ok(url),
    }
}

/// MCP has no scope ([M1](crate::rules#m1)), but the [`Elicitor`] builds ACP requests,
/// which need one. The MCP form drops it, so this placeholder never reaches the wire.
fn mcp_scope() -> Scope {
    Scope::request(0)
}

/// What the client behind `peer` declared, read the MCP way ([M2](crate::rules#m2)).
fn declared_capabilities(peer: &Peer<RoleServer>) -> ElicitationCapabilities {
    let Some(info) = peer.peer_info() else {
        return ElicitationCapabilities::absent();
    };
    // M6: from 2026-07-28 on, a server may not push requests; elicitations travel in
    // InputRequiredResult instead (see `input`).
    if info.protocol_version >= ProtocolVersion::V_2026_07_28 {
        return ElicitationCapabilities::absent();
    }
    capabilities_of(info.capabilities.elicitation.as_ref())
}

/// rmcp's typed `elicitation` capability, read by elicit's MCP rules: rmcp keeps `{}`
/// as `{}`, which MCP reads as form ([M2](crate::rules#m2)).
fn capabilities_of(
    declared: Option<&::rmcp::model::ElicitationCapability>,
) -> ElicitationCapabilities {
    let json = declared.and_then(|capability| serde_json::to_value(capability).ok());
    ElicitationCapabilities::from(&McpElicitationCapabilities::from_json(json.as_ref()))
}

/// An ask that failed, as the JSON-RPC error of the request that asked, so that `?`
/// works in a tool body: an answer that breaks the schema or the server's checks is
/// `-32602` (invalid params: the input the client sent), the client's own error is
/// passed on, and everything else (refused before sending, transport) is `-32603`,
/// each with the ask's text.
impl From<AskError> for ErrorData {
    fn from(error: AskError) -> Self {
        let message = error.to_string();
        match error {
            AskError::Invalid(_) | AskError::Unaccepted(_) | AskError::MalformedResponse(_) => {
                ErrorData::invalid_params(message, None)
            }
            AskError::Rejected(error) => ErrorData::new(
                ::rmcp::model::ErrorCode(i32::try_from(error.code()).unwrap_or(-32603)),
                message,
                error.data().cloned(),
            ),
            _ => ErrorData::internal_error(message, None),
        }
    }
}

/// A failed request: the client's JSON-RPC error, or a transport failure.
fn ask_error(error: ServiceError) -> AskError {
    match error {
        ServiceError::McpError(error) => AskError::Rejected(json_rpc_error(error)),
        other => AskError::transport(other),
    }
}

/// rmcp's error as elicit's JSON-RPC error.
fn json_rpc_error(error: ErrorData) -> JsonRpcError {
    JsonRpcError::new(i64::from(error.code.0), error.message, error.data)
}
