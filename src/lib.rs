//! Typed, validated elicitation for the [Agent Client Protocol] (ACP), and for MCP where
//! the two share a data model.
//!
//! An agent asks its user for structured input with `elicitation/create`: a small flat
//! form described by a restricted JSON Schema, or a URL the user opens out of band.
//! With elicit the form is a Rust type. Its schema is a compile-time constant, and the
//! answer comes back parsed and validated exactly as a JSON Schema 2020-12 validator
//! would validate it.
//!
//! **Where to start.** Each kind of user has a page in the [`guide`], with the complete
//! `Cargo.toml` lines (elicit's features and the SDK's own) and a complete program:
//!
//! - an agent on the official ACP SDK: [`guide::acp_agent`];
//! - an MCP server on rmcp, with `#[tool_router]`/`#[tool]`: [`guide::mcp_server`];
//! - a client (terminal, full-screen ratatui, web page, a GUI through your own
//!   [`Asker`](client::Asker)): [`guide::client`];
//! - a remote deployment (the secure page, several instances, Redis): [`guide::remote`].
//!
//! The form is a Rust type in every case; [`derive(Elicit)`](macro@Elicit) has the
//! reference of its attributes.
//!
//! ```
//! use elicit::{Elicit, Elicited, ElicitationResponse};
//! use serde_json::json;
//!
//! /// How should I approach this refactor?
//! #[derive(Elicit, Debug, PartialEq)]
//! struct Refactor {
//!     /// Strategy to follow
//!     strategy: Strategy,
//!     #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 2)]
//!     passes: u8,
//!     #[elicit(format = "email")]
//!     notify: Option<String>,
//! }
//!
//! #[derive(Elicit, Debug, PartialEq)]
//! enum Strategy {
//!     #[elicit(title = "Conservative")]
//!     Conservative,
//!     Balanced,
//!     Aggressive,
//! }
//!
//! // The schema to send, built at compile time.
//! let schema = Refactor::requested_schema().as_json();
//! assert_eq!(schema["properties"]["passes"]["maximum"], 5);
//!
//! // The client's answer, validated and parsed.
//! let response = ElicitationResponse::from_json(&json!({
//!     "action": "accept",
//!     "content": { "strategy": "Balanced", "passes": 3 }
//! }))?;
//! match Refactor::from_response(&response)? {
//!     Elicited::Accepted(r) => assert_eq!(r.passes, 3),
//!     Elicited::Declined | Elicited::Cancelled => unreachable!("the user accepted"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The package is called `elicit-acp` on crates.io (the name `elicit` belongs to an
//! unrelated crate); the library is `elicit`, so code says `use elicit::…`.
//!
//! # For agent authors
//!
//! **Describe the form as a type.** `#[derive(Elicit)]` takes a struct with named
//! fields, each of a type that is a flat primitive: `String`, `bool`, the integer and
//! float types, an enum of unit variants (a single select), a `Vec` or set of such an
//! enum (a multi select), and `Option` of any of them for a field that may stay empty.
//! Doc comments become titles and descriptions; `#[elicit(…)]` adds bounds, lengths,
//! formats, patterns and defaults, each checked at compile time. A field the protocol
//! cannot carry (a nested struct, a map, a list of strings) does not compile, and
//! neither does a field that asks for a secret: form mode must never ask for one
//! ([F5](rules#f5)), URL mode is the way ([F6](rules#f6)).
//!
//! **Ask through an [`Elicitor`].** Make one per client connection from the capability
//! the client declared in `initialize`. It refuses, before anything is sent, what the
//! protocol forbids: a mode the client did not declare ([C7](rules#c7)), a secret in a
//! form ([F5](rules#f5)), a link in a form ([F7](rules#f7)), an unsafe URL
//! ([S1](rules#s1)).
//!
//! ```
//! use elicit::agent::ConnectionId;
//! use elicit::{Elicit, ElicitationCapabilities, Elicitor, Mode, Scope};
//! use serde_json::json;
//!
//! #[derive(Elicit)]
//! struct Confirm {
//!     /// Deploy now
//!     #[elicit(default = false)]
//!     confirm: bool,
//! }
//!
//! // `clientCapabilities.elicitation` from the client's `initialize` request.
//! let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
//! let elicitor = Elicitor::new(caps, ConnectionId::new());
//!
//! let request = elicitor.form::<Confirm>(Scope::session("s1"), "Proceed with the deploy?")?;
//! assert_eq!(request.to_json()["mode"], "form");
//!
//! // The client declared no URL mode: refused, nothing is sent; degrade instead.
//! # #[cfg(feature = "url")] {
//! let refused = elicitor.url(Scope::session("s1"), "Sign in", "https://auth.example.com/");
//! assert_eq!(refused.unwrap_err().unsupported_mode(), Some(Mode::Url));
//! # }
//! # Ok::<(), elicit::RefusedError>(())
//! ```
//!
//! **Read the answer as a value.** `T::from_response` gives
//! [`Elicited::Accepted`] with a validated `T`, or `Declined` / `Cancelled`, which an
//! agent must handle too ([R5](rules#r5)). An answer that breaks the schema is a
//! [`ValidationErrors`] listing every broken rule, never a half-built value
//! ([F3](rules#f3)).
//!
//! **Send secrets through URL mode.** [`Elicitor::url`] mints an unguessable
//! `elicitationId`, records it in a [`UrlRegistry`](agent::UrlRegistry) bound to the
//! connection and the user ([E5](rules#e5), [S6](rules#s6)), and
//! [`Elicitor::complete`] builds the `elicitation/complete` notification once, for that
//! connection and user only ([U5](rules#u5)). See the [`agent`] module.
//!
//! **Ask in one call from your SDK.** On the official ACP SDK (feature
//! `agent-client-protocol`), [`agent_client_protocol::ask`](crate::agent_client_protocol)
//! sends the form on the connection a handler was given and returns the typed answer;
//! `ask_url` does the same for URL mode and hands back a consent to complete, and
//! `cancel_session` ends the asks of a cancelled turn:
//!
//! ```no_run
//! # #[cfg(feature = "agent-client-protocol")]
//! # mod example {
//! use agent_client_protocol::v1::ConnectionTo;
//! use agent_client_protocol::Client;
//! use elicit::agent_client_protocol::ask;
//! use elicit::{Elicit, Elicited, Elicitor, Scope};
//!
//! #[derive(Elicit)]
//! struct Plan {
//!     /// Review passes
//!     #[elicit(minimum = 1, maximum = 5, default = 2)]
//!     passes: u8,
//! }
//!
//! // In a task spawned by the `session/prompt` handler.
//! async fn turn(cx: &ConnectionTo<Client>, elicitor: &Elicitor, session: &str) -> String {
//!     match ask::<Plan>(cx, elicitor, Scope::session(session), "How many passes?").await {
//!         Ok(Elicited::Accepted(plan)) => format!("{} passes", plan.passes),
//!         Ok(Elicited::Declined | Elicited::Cancelled) => "nothing done".to_owned(),
//!         Err(error) => format!("could not ask: {error}"),
//!     }
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! On rmcp 3.x (feature `rmcp_3`), an MCP server asks through the peer its tool
//! handler was given, with [`rmcp::ask`](crate::rmcp); `rmcp::PeerElicitor` holds a
//! connection's user, policies and URL mode:
//!
//! ```no_run
//! # #[cfg(feature = "rmcp_3")]
//! # mod example {
//! use elicit::{Elicit, Elicited};
//! use rmcp::service::{Peer, RoleServer};
//!
//! # #[derive(Elicit)]
//! # struct Plan {
//! #     /// Review passes
//! #     #[elicit(minimum = 1, maximum = 5, default = 2)]
//! #     passes: u8,
//! # }
//! // In a tool handler: `context.peer`.
//! async fn plan(peer: &Peer<RoleServer>) -> String {
//!     match elicit::rmcp::ask::<Plan>(peer, "How many passes?").await {
//!         Ok(Elicited::Accepted(plan)) => format!("{} passes", plan.passes),
//!         Ok(Elicited::Declined | Elicited::Cancelled) => "nothing done".to_owned(),
//!         Err(error) => format!("could not ask: {error}"),
//!     }
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! Both send elicit's own wire form, so the form's fields reach the user in the order
//! they are declared ([D13](rules#d13)), and both fail with the same
//! [`agent::AskError`].
//!
//! **A secret, on a page of your own.** An API key or a password must never be asked
//! for in a form ([F5](rules#f5)): mark the form `#[elicit(url_mode)]` and, with
//! features `axum` and `agent-client-protocol`, `ask_secret` serves it on the agent's own
//! loopback page behind a one-time link, sends that link in URL mode, and returns the
//! typed value the user entered there; the value never passes through the client
//! ([U3](rules#u3)), and `elicitation/complete` is sent for you ([U5](rules#u5)):
//!
//! ```no_run
//! # #[cfg(all(feature = "axum", feature = "agent-client-protocol"))]
//! # mod example {
//! use agent_client_protocol::v1::ConnectionTo;
//! use agent_client_protocol::Client;
//! use elicit::agent_client_protocol::ask_secret;
//! use elicit::axum::SecurePage;
//! use elicit::{Elicit, Elicited, Elicitor, Scope};
//!
//! #[derive(Elicit)]
//! #[elicit(url_mode)]
//! struct DeployKey {
//!     /// The API key of your deploy account
//!     #[elicit(min_length = 16)]
//!     api_key: String,
//! }
//!
//! // `page` is started once, saying who fills it (S6): with the agent's login,
//! // `SecurePage::builder().authenticate(…)`, or for one person's own agent,
//! // `SecurePage::builder().unauthenticated_single_user(user).bind(([127, 0, 0, 1], 0))`.
//! async fn connect(cx: &ConnectionTo<Client>, elicitor: &Elicitor, page: &SecurePage) -> String {
//!     let scope = Scope::session("session-1");
//!     match ask_secret::<DeployKey>(cx, elicitor, page, scope, "Connect your account").await {
//!         Ok(Elicited::Accepted(key)) => format!("a key of {} characters", key.api_key.len()),
//!         Ok(Elicited::Declined | Elicited::Cancelled) => "not connected".to_owned(),
//!         Err(error) => format!("could not ask: {error}"),
//!     }
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! # For client authors
//!
//! **The one-call path.** Give the SDK's client side an [`Asker`](client::Asker), the
//! part that shows the questions to the person, through an `ElicitClient`:
//! `elicit::rmcp::client::ElicitClient::new(asker)` is an rmcp client handler (feature
//! `rmcp_3`), `elicit::agent_client_protocol::client::ElicitClient::new(asker)` is the
//! ACP SDK's client handler (feature `agent-client-protocol`); both take
//! `.with_policy(policy)`. The client engine behind both ([`client::ClientEngine`]) checks the request strictly (a request the
//! client must refuse gets `-32602`, and the person is told why), keeps the agent's
//! field order, pre-fills defaults, checks every answer before it is sent, always
//! offers decline and cancel, reviews a URL and asks consent before anything opens,
//! and tracks completions. Askers: `client::terminal::TerminalAsker` (feature
//! `inquire`), `client::tui::TuiAsker` with its form widget for full-screen ratatui
//! apps (feature `ratatui`), `client::html::HtmlAsker` (feature `html`),
//! [`client::ScriptedAsker`] for tests, or your own. The [`guide::client`] page has
//! the complete program.
//!
//! **The parts, one by one.** A client that draws everything itself still uses the
//! same checks. A client receives `elicitation/create` as JSON. [`client::check_request`] tells
//! whether it can be honoured or which `-32602` error to answer with
//! ([C8](rules#c8)); [`client::FormEngine`] holds a form dialog's state (fields in the
//! agent's order, defaults pre-filled, answers checked as they are typed, review,
//! response); [`UrlReview`] says what to show before opening a URL ([S2](rules#s2) to
//! [S4](rules#s4)); [`client::CompletionTracker`] filters `elicitation/complete`
//! notifications ([U6](rules#u6)). A client that shows forms in a browser renders them
//! with `client::html` (feature `html`): one script-free `<form>`, and the posted answer
//! read back into validated content.
//!
//! ```
//! use elicit::client::{check_request, AgentIdentity, FormEngine, Incoming};
//! use elicit::ElicitationCapabilities;
//! use serde_json::json;
//!
//! let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
//! let params = json!({
//!     "mode": "form", "sessionId": "s1", "message": "How many passes?",
//!     "requestedSchema": { "type": "object", "properties": {
//!         "passes": { "type": "integer", "minimum": 1, "maximum": 5, "default": 2 }
//!     } }
//! });
//! let Ok(Incoming::Form(request)) = check_request(&caps, &params) else {
//!     panic!("a valid form-mode request");
//! };
//! let mut form = FormEngine::from_request(&request, AgentIdentity::new("refactor-bot"))?;
//! assert!(form.set_text("passes", "9").is_err()); // above the maximum: said at once
//! form.set_text("passes", "3")?;
//! let answer = form.submit()?;
//! assert_eq!(answer.to_json(), json!({ "action": "accept", "content": { "passes": 3 } }));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A schema received at run time is a [`RequestedSchema`]:
//! [`from_json`](RequestedSchema::from_json) is the strict parse an agent's schema must
//! pass, [`from_json_lenient`](RequestedSchema::from_json_lenient) the tolerant one a
//! client uses to render what it can, and [`validate`](RequestedSchema::validate)
//! checks any answer against it.
//!
//! # Where things are
//!
//! The root holds the names most programs need. The rest is in modules by concern:
//! [`schema`] (the restricted schema, its parses and lint), [`content`] (answers and
//! their validation errors), [`protocol`] (the ACP messages, their MCP forms and the
//! JSON-RPC errors), [`typed`] (the traits behind the derive), [`agent`] and
//! [`client`] (the two sides), and [`rules`], which states every rule that the
//! documentation and error messages cite by id.
//!
//! Public signatures use `serde_json::Value` for JSON on purpose: it is what every
//! Rust JSON-RPC stack hands over, and elicit needs its `preserve_order` feature
//! (fields keep their order end to end, [D13](rules#d13)).
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! | --- | --- | --- |
//! | `url` | yes | URL mode: the agent's URL policy and registry, the client's [`UrlReview`] |
//! | `acp` | no | conversions to and from the official `agent-client-protocol-schema` types |
//! | `agent-client-protocol` | no | the `agent_client_protocol` module: one call per elicitation on the official ACP SDK (Rust 1.88) |
//! | `html` | no | `elicit::client::html`: a form as a self-contained HTML `<form>`, and the browser's urlencoded answer read back into validated content |
//! | `axum` | no | `elicit::axum`: the agent's own secure page for URL-mode elicitations (a secret the user types outside the client), served with axum on loopback; with `agent-client-protocol`, `ask_secret` asks for it in one call |
//! | `ratatui` | no | `elicit::client::tui`: a form widget and URL consent for full-screen terminal apps on ratatui 0.30, and an asker that hands them the engine's questions (Rust 1.88) |
//! | `inquire` | no | `elicit::client::terminal::TerminalAsker`: every kind of field asked at a terminal on inquire |
//! | `mcp-acp-bridge` | no | `elicit::bridge`: an ACP agent hosting MCP servers carries their elicitations to its ACP client and the answers back; on whenever `agent-client-protocol`, `rmcp_3` and `url` are (Rust 1.88) |
//! | `redis` | no | `elicit::agent::RedisStore` and `RedisRelay`: the URL registry's and the page's state shared by an agent's instances in Redis (Rust 1.88) |
//! | `rmcp_3` | no | `elicit::rmcp`: one-call elicitation on the server peer of rmcp 3.x, the official Rust MCP SDK, and `Dialog`, one tool body for MCP 2025-11-25 and 2026-07-28 (needs Rust 1.88) |
//!
//! [Agent Client Protocol]: https://agentclientprotocol.com
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

/// The derive that implements [`Elicit`](trait@Elicit) for a form type.
///
#[doc = include_str!("derive.md")]
pub use elicit_derive::Elicit;

pub mod guide;

// README.md's Rust programs, compiled as doctests of the facade (with the features
// they need on: `cargo test --doc --all-features`), so the README cannot drift.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use elicit_core::{agent, client, content, protocol, rules, schema, typed};

#[cfg(feature = "agent-client-protocol")]
#[cfg_attr(docsrs, doc(cfg(feature = "agent-client-protocol")))]
pub use elicit_core::agent_client_protocol;
#[cfg(feature = "axum")]
#[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
pub use elicit_core::axum;
#[cfg(all(feature = "agent-client-protocol", feature = "url"))]
#[cfg_attr(
    docsrs,
    doc(cfg(all(feature = "agent-client-protocol", feature = "url")))
)]
pub use elicit_core::bridge;
#[cfg(feature = "rmcp_3")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp_3")))]
pub use elicit_core::rmcp;

#[cfg(feature = "url")]
pub use elicit_core::client::{UrlError, UrlReview, UrlWarning};
#[allow(deprecated)]
pub use elicit_core::ElicitError;
pub use elicit_core::{
    Action, CreateElicitation, Elicit, ElicitationCapabilities, ElicitationResponse, Elicited,
    Elicitor, Mode, RefusedError, RequestedSchema, SchemaError, Scope, ValidationErrors,
};

#[doc(hidden)]
pub use elicit_core::__private;

// Everything else `elicit-core` makes public, so that a module is here whenever the
// engine is built with its feature, even when only the engine's features were turned on
// (as in `elicit-core`'s own doctests, which are written with `elicit::`). The names
// above shadow it; with the facade's own features it adds nothing.
#[doc(hidden)]
#[allow(unused_imports)]
pub use elicit_core::*;
