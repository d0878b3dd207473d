//! One call per elicitation on the official ACP SDK,
//! [`agent-client-protocol`](https://docs.rs/agent-client-protocol) 5.x (feature
//! `agent-client-protocol`).
//!
//! # For agent authors
//!
//! Three places in an agent built on the SDK touch elicitation, and each is one call:
//!
//! 1. **`initialize`**: make the connection's [`Elicitor`](crate::Elicitor) from what the client
//!    declared, `ElicitationCapabilities::from(&request)` ([C1](crate::rules#c1)–[C6](crate::rules#c6);
//!    a malformed mode reads as absent).
//! 2. **In a turn**: [`ask`] (a derived form), [`ask_schema`] (a schema built at run
//!    time) or [`ask_url`] (URL mode) sends `elicitation/create` on the connection and
//!    returns the answer: [`Elicited::Accepted`](crate::Elicited::Accepted) with a
//!    validated value, `Declined` or `Cancelled` ([R5](crate::rules#r5)), or an
//!    [`AskError`](crate::agent::AskError) saying what went wrong, before sending
//!    ([C7](crate::rules#c7), [F5](crate::rules#f5), [F7](crate::rules#f7),
//!    [S1](crate::rules#s1)) or after. A URL-mode consent is a [`UrlConsent`];
//!    [`UrlConsent::complete`] sends `elicitation/complete` on the same connection when
//!    the agent's page reports back ([U2](crate::rules#u2), [U5](crate::rules#u5),
//!    [S6](crate::rules#s6)).
//! 3. **`session/cancel`**: [`cancel_session`] ends every ask still waiting in that
//!    session as `Ok(Elicited::Cancelled)`, and a URL-mode ask forgets its id.
//!
//! When the connection ends, `Elicitor::disconnect` (feature `url`)
//! forgets its URL elicitations, which can complete on no other connection
//! ([E5](crate::rules#e5)).
//!
//! Asks wait for the client's answer, which arrives through the SDK's dispatch loop:
//! call them from a task (`cx.spawn(…)`), not directly in a handler. Dropping an ask's
//! future gives the question up: the SDK tells the client (`$/cancel_request`) and a
//! URL-mode ask forgets its id.
//!
//! An agent that stops waiting for an elicitation cancels the request with
//! `$/cancel_request`: a SHOULD in ACP v1, a MUST in v2 (schema 1.20.0). Every way an
//! ask stops waiting before the answer (its session cancelled through
//! [`cancel_session`], its future dropped: a timeout, a `select`, a task aborted)
//! drops the SDK's request future, and the SDK 5.2 then sends `$/cancel_request` with
//! the request's id, once, and never for a request already answered. The repository's
//! `tests/integration/acp_sdk.rs` reads it on the wire.
//!
//! ```no_run
//! use std::sync::{Arc, OnceLock};
//!
//! use agent_client_protocol::v1::schema::{
//!     CancelNotification, InitializeRequest, InitializeResponse, PromptRequest,
//!     PromptResponse, StopReason,
//! };
//! use agent_client_protocol::v1::{ConnectionTo, Responder};
//! use agent_client_protocol::{Agent, Client, ConnectTo};
//! use elicit::agent::ConnectionId;
//! use elicit::agent_client_protocol::{ask_schema, cancel_session};
//! use elicit::{ElicitationCapabilities, Elicited, Elicitor, RequestedSchema, Scope};
//! use serde_json::json;
//!
//! async fn serve(transport: impl ConnectTo<Agent> + 'static) -> agent_client_protocol::Result<()> {
//!     // One Elicitor per connection (E5), made in `initialize`.
//!     let elicitor: Arc<OnceLock<Elicitor>> = Arc::default();
//!     let schema = RequestedSchema::from_json(&json!({
//!         "type": "object",
//!         "properties": { "passes": { "type": "integer", "minimum": 1, "maximum": 5 } },
//!         "required": ["passes"]
//!     }))
//!     .map_err(agent_client_protocol::Error::into_internal_error)?;
//!     Agent
//!         .v1()
//!         .on_receive_request(
//!             {
//!                 let elicitor = Arc::clone(&elicitor);
//!                 async move |request: InitializeRequest,
//!                             responder: Responder<InitializeResponse>,
//!                             _cx: ConnectionTo<Client>| {
//!                     let capabilities = ElicitationCapabilities::from(&request);
//!                     let _ = elicitor.set(Elicitor::new(capabilities, ConnectionId::new()));
//!                     responder.respond(InitializeResponse::new(request.protocol_version))
//!                 }
//!             },
//!             agent_client_protocol::on_receive_request!(),
//!         )
//!         .on_receive_request(
//!             {
//!                 let elicitor = Arc::clone(&elicitor);
//!                 async move |request: PromptRequest,
//!                             responder: Responder<PromptResponse>,
//!                             cx: ConnectionTo<Client>| {
//!                     let (Some(elicitor), schema) = (elicitor.get().cloned(), schema.clone()) else {
//!                         return responder.respond_with_error(
//!                             agent_client_protocol::Error::invalid_request(),
//!                         );
//!                     };
//!                     let turn = cx.clone();
//!                     cx.spawn(async move {
//!                         let scope = Scope::session(&*request.session_id.0);
//!                         let stop = match ask_schema(&turn, &elicitor, scope, "How many passes?", &schema).await {
//!                             Ok(Elicited::Accepted(answer)) => { /* work with answer["passes"] */ StopReason::EndTurn }
//!                             Ok(Elicited::Declined | Elicited::Cancelled) => StopReason::Cancelled,
//!                             Err(error) => return responder.respond_with_error(
//!                                 agent_client_protocol::Error::internal_error().data(error.to_string()),
//!                             ),
//!                         };
//!                         responder.respond(PromptResponse::new(stop))
//!                     })
//!                 }
//!             },
//!             agent_client_protocol::on_receive_request!(),
//!         )
//!         .on_receive_notification(
//!             {
//!                 let elicitor = Arc::clone(&elicitor);
//!                 async move |cancel: CancelNotification, _cx: ConnectionTo<Client>| {
//!                     if let Some(elicitor) = elicitor.get() {
//!                         cancel_session(elicitor, &cancel.session_id.0);
//!                     }
//!                     Ok(())
//!                 }
//!             },
//!             agent_client_protocol::on_receive_notification!(),
//!         )
//!         .connect_to(transport)
//!         .await
//! }
//! ```
//!
//! With the facade's `#[derive(Elicit)]`, `ask::<TaskPlan>(&cx, &elicitor, scope,
//! message)` returns a `TaskPlan`; `examples/acp_agent.rs` in the repository is a
//! complete agent over stdio.
//!
//! # The wire
//!
//! Requests carry this crate's own params, not the official
//! `CreateElicitationRequest`, whose `BTreeMap` would sort the form's properties by
//! name: the client gets them in declaration order ([D13](crate::rules#d13)). Answers
//! are read from the raw JSON and validated again whatever the client checked
//! ([F3](crate::rules#f3)).
//!
//! # Requirements
//!
//! The SDK needs Rust 1.88 or newer (edition 2024): this feature does too, while the
//! rest of the workspace keeps its minimum of Rust 1.85. The SDK is runtime-neutral
//! and so is this module; the repository's example and tests drive it with tokio.
//!
//! # Importing it
//!
//! This module is named after the SDK it integrates, so `use
//! elicit::agent_client_protocol;` would hide the `agent_client_protocol` crate itself
//! in that file. Import it under a name of its own, or name the items:
//!
//! ```text
//! use elicit::agent_client_protocol as elicit_acp;
//! use elicit::agent_client_protocol::ask;
//! use agent_client_protocol::Client; // still the SDK
//! ```

mod ask;
mod cancel;
pub mod client;
#[cfg(feature = "axum")]
mod secret;
#[cfg(feature = "url")]
mod url;

pub use ask::{ask, ask_schema};
pub(crate) use ask::{ask_schema_or_raw, Answer};
pub use cancel::{cancel_session, waiting_asks};
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub use secret::ask_secret;
#[cfg(feature = "url")]
pub(crate) use url::ask_url_or_raw;
#[cfg(feature = "url")]
pub use url::{ask_url, CompleteError, UrlConsent};

use ::agent_client_protocol::v1::schema::{ClientCapabilities, InitializeRequest};

use crate::protocol::ElicitationCapabilities;
#[cfg(doc)]
use crate::Elicitor;

/// What the client declared in `initialize`, with [C2](crate::rules#c2)–[C6](crate::rules#c6)
/// semantics (the conversion of the `acp` feature).
impl From<&ClientCapabilities> for ElicitationCapabilities {
    fn from(capabilities: &ClientCapabilities) -> Self {
        ElicitationCapabilities::from(capabilities.elicitation.as_ref())
    }
}

/// What the client declared in its `initialize` request
/// (`clientCapabilities.elicitation`, [C1](crate::rules#c1)–[C6](crate::rules#c6)).
impl From<&InitializeRequest> for ElicitationCapabilities {
    fn from(request: &InitializeRequest) -> Self {
        ElicitationCapabilities::from(&request.client_capabilities)
    }
}
