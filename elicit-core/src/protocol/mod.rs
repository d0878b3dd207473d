//! Elicitation messages on the wire: capabilities, `elicitation/create`, the response,
//! `elicitation/complete`, and the JSON-RPC errors a client answers with.
//!
//! Everything here is ACP (C, E, U, R, [D1](crate::rules#d1)). MCP's shapes of the same messages are in
//! [`mcp`], with types of their own so a message cannot be sent in the wrong dialect by
//! accident; conversions between the two are explicit. With the `acp` cargo feature,
//! `acp` converts to and from the official `agent-client-protocol-schema` types.
//!
//! ```
//! use elicit::protocol::{CreateElicitation, ElicitationCapabilities, Mode, Scope};
//! use elicit::RequestedSchema;
//! use serde_json::json;
//!
//! // From `initialize`: what the client declared (C1-C6).
//! let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
//! assert!(caps.supports(Mode::Form) && !caps.supports(Mode::Url));
//!
//! // The request an agent sends (E1-E4).
//! let schema = RequestedSchema::from_json(&json!({
//!     "type": "object", "properties": { "ok": { "type": "boolean" } }
//! }))?;
//! let request = CreateElicitation::form(Scope::tool_call("s1", "call-3"), "Proceed?", schema);
//! assert_eq!(request.to_json()["toolCallId"], "call-3");
//! # Ok::<(), elicit::SchemaError>(())
//! ```

#[cfg(feature = "acp")]
pub mod acp;
mod capabilities;
mod complete;
mod create;
mod error;
mod jsonrpc;
pub mod mcp;
mod response;
mod version;

pub use capabilities::{ElicitationCapabilities, Mode, ModeCapability};
pub use complete::CompleteElicitation;
pub use create::{CreateElicitation, ModeParams, Scope};
pub use error::{ParamsError, ParamsErrorKind};
pub use jsonrpc::{InvalidParamsReason, JsonRpcError, RequestId, INVALID_PARAMS};
pub use response::{Action, ElicitationResponse, ResponseError};
pub use version::AcpVersion;

/// The ACP method of the request an agent sends to elicit input ([E1](crate::rules#e1)).
pub const ELICITATION_CREATE: &str = "elicitation/create";

/// The ACP method of the notification that a URL elicitation completed ([U5](crate::rules#u5)).
pub const ELICITATION_COMPLETE: &str = "elicitation/complete";
