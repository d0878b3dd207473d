//! Elicitations carried across a hop to the person: the MCP → ACP bridge (an ACP
//! agent that hosts MCP servers puts their elicitations to the person through its own
//! ACP client, and hands the person's answers back) and ACP → ACP forwarding (an ACP
//! agent that drives another ACP agent does the same for the inner agent's; see
//! [ACP → ACP forwarding](#acp--acp-forwarding)).
//!
//! The module is there with `agent-client-protocol` (the ACP agent side, the official
//! ACP SDK 5.x) and `url`; its MCP part needs `rmcp_3` too (the MCP client side, rmcp
//! 3.x; feature `mcp-acp-bridge` of this crate turns on all three). The bridge is its
//! own module: it uses the agent engine ([`Elicitor`], [`ask_schema`], [`ask_url`]) and
//! rmcp's client role, and the client engine is not involved (the person's client is
//! the one at the other end of ACP).
//!
//! ```text
//!  MCP server ──elicitation/create──▶ McpBridge (rmcp ClientHandler) ──elicitation/create──▶ ACP client
//!             ◀──────── result ─────── validated answer ◀──────────────────── answer ────── (the person)
//! ```
//!
//! # Use
//!
//! 1. In ACP `initialize`, make the connection's [`Elicitor`](crate::Elicitor) from what the ACP client
//!    declared (`ElicitationCapabilities::from(&request)`), as any elicit agent does.
//! 2. Connect to each MCP server with an [`McpBridge`] as rmcp's client handler:
//!    `McpBridge::new(acp_connection, elicitor)`, then
//!    `serve_with_lifecycle(transport, bridge.lifecycle())`. The capability it declares
//!    upstream is the ACP client's ([`McpBridge::capability`]).
//! 3. Call tools with [`call_tool`]: it names the ACP session and tool call the
//!    elicitations of that call are scoped to, carries 2026-07-28 input requests
//!    (rmcp's `call_tool` fulfils them through the same handler) and a `-32042`.
//! 4. On ACP `session/cancel`, call [`McpBridge::cancel_session`] and drop the
//!    [`call_tool`] future of that session: the ask still waiting is withdrawn from
//!    the ACP client (`$/cancel_request`) and answered `cancel` to the MCP server, and
//!    rmcp sends `notifications/cancelled` for the `tools/call`.
//!
//! Tool calls on one MCP connection are made one at a time: a 2025-11-25
//! `elicitation/create` does not say which `tools/call` caused it, so the bridge
//! scopes it to the one call in flight. Use one connection per ACP session for calls
//! that run side by side.
//!
//! # The mapping, per MCP version
//!
//! | MCP (server → bridge) | ACP (bridge → client) | Checked on the way |
//! |---|---|---|
//! | client capability `elicitation` sent in `initialize` (2025-11-25) or each request's `_meta` (2026-07-28, by rmcp) | what the ACP client declared in `initialize` (`clientCapabilities.elicitation`): `form` and `url` each only if the ACP client declared it; `{}` for a 2025-06-18 server when form was declared; nothing before 2025-06-18 or when the ACP client declared no mode | C1–C6 on the ACP side (a malformed mode reads as absent) |
//! | `elicitation/create` request (2025-11-25 and 2025-06-18), JSON-RPC id | `elicitation/create` request with a new ACP JSON-RPC id | — |
//! | 2026-07-28 `InputRequiredResult.inputRequests[key]` (method `elicitation/create`) in a `tools/call` result | the same `elicitation/create`; rmcp retries the `tools/call` with `inputResponses[key]` and `requestState` | — |
//! | the `tools/call` in flight | `sessionId` + `toolCallId` given to [`call_tool`] | E1–E4 (the scope is well formed); an `elicitation/create` while no [`call_tool`] runs has no ACP session to go to and is answered `-32600` |
//! | `mode` absent or `"form"` | `"mode": "form"` | M1 |
//! | `message` | `message` | F7: no link in a form's message |
//! | `requestedSchema` | `requestedSchema`, re-emitted by elicit's parser | strict parse (F1, F2, D2–D4, D7, D8, D11, D12); an invalid schema is never sent: the MCP server gets `-32602` with every problem and its JSON pointer; F5: a form asking for a secret is refused the same way; F7: a link in a field is refused |
//! | legacy `enum` + `enumNames` (M5) | `oneOf` of `{const, title}` (a titled select) | the names must line up with the values |
//! | `pattern` | `pattern` (ACP v1 keeps it) | D7: a pattern elicit cannot enforce is refused |
//! | `mode: "url"`, `url`, `message` | `mode: "url"`, `url` as the URL policy serialised it, `message` | S1: the agent's URL policy ([`Elicitor::with_url_policy`](crate::Elicitor::with_url_policy)); refused with `-32602` and the reason |
//! | `elicitationId` (2025-11-25), none (2026-07-28) | a fresh `elicitationId` minted by the [`Elicitor`](crate::Elicitor) (128 random bits), bound to this ACP connection and its user; the MCP id (or the call, on 2026-07-28) mapped to it | U4, E5 |
//! | `notifications/elicitation/complete {elicitationId}` | `elicitation/complete {elicitationId}` with the ACP id, once | U5, S6: only for an id this bridge consented to on this connection; unknown and repeated ids are dropped |
//! | (2026-07-28: no completion) the `tools/call` returning its final result | `elicitation/complete` for each URL consent of that call | — |
//! | `-32042` error to `tools/call`, `data.elicitations[]` | one URL-mode `elicitation/create` per entry; after every one is consented and completed (`notifications/elicitation/complete`), the call is made once more | M4: the data must be a list of URL params |
//! | `notifications/cancelled` for a pending `elicitation/create`, or the bridge's deadline ([`McpBridge::with_deadline`]) | `$/cancel_request` for the ACP request (the SDK sends it when the ask is dropped); a URL id is forgotten | — |
//!
//! | ACP (client → bridge) | MCP (bridge → server) | Checked on the way |
//! |---|---|---|
//! | answer `{action: "accept", content}` to a form | `{action: "accept", content}` | F3: the content validated against the schema asked, every problem reported; an answer that fails is never forwarded: the MCP server gets `-32603` with the problems |
//! | `{action: "accept"}` to a URL request | `{action: "accept"}` (consent only, U2) | U3: any content is ignored |
//! | `{action: "decline"}`, `{action: "cancel"}` | the same action | R5: an unknown action is an error (`-32603`), never consent |
//! | a JSON-RPC error answer | the same code and message | — |
//! | `session/cancel` | the ask answered `cancel` ([`McpBridge::cancel_session`]); `notifications/cancelled` for the `tools/call` when its [`call_tool`] future is dropped | — |
//!
//! # What each hop validates
//!
//! - MCP server → bridge: the params are read from the raw JSON when a [`RawTap`] saw
//!   them (stdio), otherwise from rmcp's typed model written back (rmcp drops a
//!   string's `pattern` and option descriptions it does not model); the schema is
//!   parsed strictly (legacy `enumNames` aside), the URL checked by the policy, the
//!   form linted for secrets and links.
//! - bridge → ACP client: only what passed; the capability decides the mode (C7, F6:
//!   a URL request is never turned into a form).
//! - ACP client → bridge: the answer is read from the raw JSON and validated against
//!   the schema the bridge sent (F3), whatever the ACP client checked.
//! - bridge → MCP server: only a validated answer, or a JSON-RPC error saying why not.
//!
//! # ACP → ACP forwarding
//!
//! An ACP agent in front of another one (a proxy, or a nested provider as goose has)
//! is the inner agent's client: [`AcpForward`] puts the inner agent's elicitations to
//! the outer client, the person's.
//!
//! ```text
//!  inner agent ──elicitation/create──▶ ForwardHandler ──elicitation/create──▶ outer client
//!   (session s-1)                       (scope remapped)     (session p-1)    (the person)
//!              ◀───── answer ──────── validated answer ◀──────── answer ────
//! ```
//!
//! 1. In the outer `initialize`, make the outer connection's [`Elicitor`] from what
//!    the outer client declared, and `AcpForward::new(outer_connection, elicitor)`.
//! 2. Connect to the inner agent with `Client.v1().with_handler(forward.handler())`,
//!    and send it `initialize` with [`AcpForward::declare`]: the elicitation modes it
//!    is offered are those the outer client declared (a mode the person's client
//!    cannot show is never offered, [C1](crate::rules#c1), [C7](crate::rules#c7)).
//! 3. For each inner session, [`AcpForward::bind_session`] it to the outer session
//!    the outer client knows it by.
//! 4. On the outer `session/cancel`, [`AcpForward::cancel_session`] and send
//!    `session/cancel` on to the inner agent.
//!
//! | inner agent → forwarding | forwarding → outer client | Checked on the way |
//! |---|---|---|
//! | `elicitation/create`, JSON-RPC id | `elicitation/create` with a new outer JSON-RPC id | the params read strictly ([E1](crate::rules#e1)–[E4](crate::rules#e4), [D1](crate::rules#d1)): a malformed request is answered `-32602` and never forwarded |
//! | `sessionId` (+ `toolCallId`) | the bound outer `sessionId` (+ the same `toolCallId`: the forwarding agent reports the inner tool calls under their ids) | a session bound to no outer one, and a `requestId` scope (a request of the inner connection), are refused with `-32602` ([E3](crate::rules#e3), [E5](crate::rules#e5)) |
//! | `mode: "form"`, `message`, `requestedSchema` | the same, re-emitted in the inner agent's order ([D13](crate::rules#d13)) | strict schema parse (F1, F2, D2–D12); [F5](crate::rules#f5) secrets and [F7](crate::rules#f7) links refused; [C7](crate::rules#c7) a mode the outer client did not declare refused (`-32602`) |
//! | `mode: "url"`, `elicitationId`, `url` | `mode: "url"`, a fresh `elicitationId` minted by the [`Elicitor`] and bound to the outer connection, `url` as the URL policy serialised it | [S1](crate::rules#s1) the outer [`Elicitor`]'s URL policy |
//! | `elicitation/complete {elicitationId}` | `elicitation/complete` with the outer id, once | [U5](crate::rules#u5), [U6](crate::rules#u6): only for an id the person consented to through this forwarding; others dropped |
//! | `$/cancel_request` for a pending `elicitation/create` | `$/cancel_request` for the outer request (the SDK sends it when the ask is dropped); the inner request answered `-32800` | — |
//! | a custom or future mode ([E6](crate::rules#e6)) | nothing: `-32602`, the mode in `data` | [C7](crate::rules#c7): never offered (ACP's capability cannot declare one) |
//!
//! | outer client → forwarding | forwarding → inner agent | Checked on the way |
//! |---|---|---|
//! | `{action: "accept", content}` to a form | `{action: "accept", content}` | [F3](crate::rules#f3): validated against the schema the inner agent asked; an answer that fails is never forwarded (`-32603` with the problems) |
//! | `{action: "accept"}` to a URL request | `{action: "accept"}`; the consent kept for the completion | [U3](crate::rules#u3): content ignored |
//! | `decline`, `cancel` | the same | — |
//! | a custom or future action (`_defer`, …) | the answer exactly as received, member for member; to a URL request it is not consent (no completion carried) | [E6](crate::rules#e6): the forwarding cannot read it and must not rewrite it; [R5](crate::rules#r5): never taken as consent |
//! | a JSON-RPC error | the same code and message | — |
//! | `session/cancel` | the forwarded asks of that session withdrawn (`$/cancel_request` to the outer client) and answered `cancel`; the caller sends `session/cancel` on | — |
//!
//! `examples/acp_proxy.rs` in the repository is a complete proxy over stdio.
//!
//! [`ask_schema`]: crate::agent_client_protocol::ask_schema
//! [`ask_url`]: crate::agent_client_protocol::ask_url
//! [`RawTap`]: crate::rmcp::client::RawTap

// Without `rmcp_3` the MCP items the docs above link to are not built.
#![cfg_attr(not(feature = "rmcp_3"), allow(rustdoc::broken_intra_doc_links))]

mod acp;
#[cfg(feature = "rmcp_3")]
mod call;
#[cfg(feature = "rmcp_3")]
mod handler;
#[cfg(feature = "rmcp_3")]
mod schema;

pub use acp::{AcpForward, ForwardHandler};
#[cfg(feature = "rmcp_3")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp_3")))]
pub use call::{call_tool, CallError};
#[cfg(feature = "rmcp_3")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp_3")))]
pub use handler::McpBridge;
#[cfg(feature = "rmcp_3")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp_3")))]
pub use schema::read_mcp_schema;

#[cfg(doc)]
use crate::Elicitor;
