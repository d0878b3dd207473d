//! The MCP → ACP bridge: an ACP agent that hosts MCP servers puts their elicitations
//! to the person through its own ACP client, and hands the person's answers back.
//!
//! Available when both `rmcp_3` (the MCP client side, rmcp 3.x) and
//! `agent-client-protocol` (the ACP agent side, the official ACP SDK 5.x) are on, with
//! `url` (feature `mcp-acp-bridge` of this crate turns on all three). The bridge is its
//! own module: it uses the agent engine ([`Elicitor`](crate::Elicitor), [`ask_schema`], [`ask_url`]) and
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
//! [`ask_schema`]: crate::agent_client_protocol::ask_schema
//! [`ask_url`]: crate::agent_client_protocol::ask_url
//! [`RawTap`]: crate::rmcp::client::RawTap

mod call;
mod handler;
mod schema;

pub use call::{call_tool, CallError};
pub use handler::McpBridge;
pub use schema::read_mcp_schema;

#[cfg(doc)]
use crate::Elicitor;
