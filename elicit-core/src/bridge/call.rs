//! [`call_tool`]: one MCP `tools/call`, its elicitations scoped to an ACP tool call.

use std::fmt;

use ::rmcp::model::{CallToolRequestParams, CallToolResult};
use ::rmcp::service::{RoleClient, RunningService, ServiceError};
use ::rmcp::ErrorData;
use serde_json::Value;

use super::handler::{lock, refusal, McpBridge};
use crate::protocol::mcp::v2025_11_25::required_url_elicitations;
use crate::protocol::mcp::URL_ELICITATION_REQUIRED;
use crate::protocol::{JsonRpcError, Scope};

/// Calls a tool of the MCP server behind `client`, every elicitation of the call asked
/// in `scope` on the bridge's ACP connection (`Scope::tool_call(session, tool_call)`:
/// the ACP `sessionId` and `toolCallId` the agent reports the call under).
///
/// - 2025-11-25: the server's `elicitation/create` requests during the call; calls on
///   one MCP connection are made one at a time, so each request belongs to this call.
/// - 2026-07-28: rmcp's `call_tool` fulfils the input requests of each
///   `InputRequiredResult` through the bridge and retries; the URL consents of the
///   call, which have no completion notification in that version, are completed on
///   ACP when the call returns its result.
/// - A `-32042` error ([M4](crate::rules#m4)): each URL elicitation it names is asked
///   over ACP; once every one is consented and the MCP server has completed it
///   (`notifications/elicitation/complete`), the call is made once more. Declined or
///   cancelled: [`CallError::UrlNotConsented`], and the call is not made again.
///
/// Dropping the future gives the call up: rmcp sends `notifications/cancelled` for the
/// `tools/call`, and an ask still waiting is withdrawn from the ACP client.
pub async fn call_tool(
    client: &RunningService<RoleClient, McpBridge>,
    scope: Scope,
    params: CallToolRequestParams,
) -> Result<CallToolResult, CallError> {
    let bridge = client.service();
    let _one_at_a_time = bridge.inner.calls.lock().await;
    let _scope = ScopeGuard::enter(bridge, scope.clone());
    let mut ended = EndCall {
        bridge,
        succeeded: false,
    };
    // Input requests left over from an earlier call are not this call's.
    drop(bridge.unread_input_requests());
    let first = client.call_tool(params.clone()).await;
    if let Err(error) = &first {
        not_asked(bridge, error)?;
    }
    let result = match first {
        Err(ServiceError::McpError(error))
            if i64::from(error.code.0) == URL_ELICITATION_REQUIRED =>
        {
            ask_required_urls(bridge, &scope, &error).await?;
            client.call_tool(params).await.map_err(CallError::Mcp)?
        }
        other => other.map_err(CallError::Mcp)?,
    };
    ended.succeeded = true;
    Ok(result)
}

/// When rmcp failed the call over an input request it could not read (MCP
/// 2026-07-28; rmcp reads the whole `InputRequiredResult` or nothing), the reason the
/// bridge would not have asked it either, from the raw request the tap recorded.
fn not_asked(bridge: &McpBridge, error: &ServiceError) -> Result<(), CallError> {
    let unread = bridge.unread_input_requests();
    if !matches!(
        error,
        ServiceError::UnexpectedResponse | ServiceError::McpError(_)
    ) {
        return Ok(());
    }
    for (key, params) in unread {
        if let Some(reason) = refusal(&params) {
            return Err(CallError::NotAsked {
                key,
                reason: Box::new(reason),
            });
        }
    }
    Ok(())
}

/// The URL elicitations of a `-32042`, asked over ACP; returns once each is consented
/// and completed by the MCP server.
async fn ask_required_urls(
    bridge: &McpBridge,
    scope: &Scope,
    error: &ErrorData,
) -> Result<(), CallError> {
    let rpc = JsonRpcError::new(
        i64::from(error.code.0),
        error.message.to_string(),
        error.data.clone(),
    );
    let elicitations = match required_url_elicitations(&rpc) {
        Some(Ok(elicitations)) => elicitations,
        Some(Err(problem)) => {
            return Err(CallError::MalformedUrlRequired(format!(
                "the server's -32042 error is malformed: {problem}"
            )))
        }
        None => return Err(CallError::Mcp(ServiceError::McpError(error.clone()))),
    };
    let mut waiting = Vec::new();
    for elicitation in elicitations {
        let id = elicitation.elicitation_id().to_owned();
        let answer = bridge
            .ask_url(
                scope.clone(),
                Some(id.clone()),
                elicitation.message().to_owned(),
                elicitation.url(),
                std::future::pending(),
            )
            .await
            .map_err(CallError::Refused)?;
        let action = answer
            .get("action")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if action != "accept" {
            return Err(CallError::UrlNotConsented { action });
        }
        waiting.push(id);
    }
    // The completions arrive through the handler, which wakes this wait.
    loop {
        let notified = bridge.inner.completed.notified();
        if !waiting.iter().any(|id| bridge.waits_for(id)) {
            return Ok(());
        }
        notified.await;
    }
}

/// Why [`call_tool`] did not return the tool's result.
#[derive(Debug)]
#[non_exhaustive]
pub enum CallError {
    /// rmcp's error for the `tools/call`: the server's JSON-RPC error, a closed
    /// transport, a refused input request (2026-07-28: rmcp fails the whole call when
    /// an input request is answered with an error).
    Mcp(ServiceError),
    /// The server answered `-32042` and the person declined or cancelled one of its URL
    /// elicitations (`action` is what the ACP client answered).
    UrlNotConsented {
        /// `decline` or `cancel`.
        action: String,
    },
    /// A URL elicitation of a `-32042` could not be asked over ACP (the URL policy,
    /// the ACP client's capability, or the ACP client's error): the reason.
    Refused(ErrorData),
    /// The `-32042` error's `data` is not a list of URL elicitations.
    MalformedUrlRequired(String),
    /// An input request of the server (MCP 2026-07-28) was not asked over ACP: its
    /// params fail the bridge's checks (an invalid `requestedSchema`, with each
    /// problem's JSON pointer in `reason.data`), and rmcp could not read it either.
    /// The server hears nothing: `inputResponses` has no place for a refusal.
    NotAsked {
        /// The input request's key in `inputRequests`.
        key: String,
        /// Why it was not asked (boxed: the error stays small).
        reason: Box<ErrorData>,
    },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::Mcp(error) => write!(f, "the MCP tool call failed: {error}"),
            CallError::UrlNotConsented { action } => write!(
                f,
                "the tool needs a URL elicitation first, and the person answered {action:?}"
            ),
            CallError::Refused(error) => write!(
                f,
                "the tool needs a URL elicitation first, which could not be asked: {}",
                error.message
            ),
            CallError::MalformedUrlRequired(problem) => f.write_str(problem),
            CallError::NotAsked { key, reason } => write!(
                f,
                "the server's input request {key:?} was not asked: {}",
                reason.message
            ),
        }
    }
}

impl std::error::Error for CallError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CallError::Mcp(error) => Some(error),
            _ => None,
        }
    }
}

/// The call's scope, cleared when the call ends however it ends.
struct ScopeGuard<'a> {
    bridge: &'a McpBridge,
}

impl<'a> ScopeGuard<'a> {
    fn enter(bridge: &'a McpBridge, scope: Scope) -> Self {
        *lock(&bridge.inner.scope) = Some(scope);
        ScopeGuard { bridge }
    }
}

impl Drop for ScopeGuard<'_> {
    fn drop(&mut self) {
        *lock(&self.bridge.inner.scope) = None;
    }
}

/// Completes (on success) or forgets the call's unnamed URL consents when it ends.
struct EndCall<'a> {
    bridge: &'a McpBridge,
    succeeded: bool,
}

impl Drop for EndCall<'_> {
    fn drop(&mut self) {
        self.bridge.end_call(self.succeeded);
    }
}
