//! A real MCP server, on rmcp (the official Rust MCP SDK) over stdio, whose tools ask
//! their user for input through `elicit::rmcp` and get the answer back typed and
//! validated. Run it with
//!
//! ```text
//! cargo run --example mcp_server --features rmcp_3
//! ```
//!
//! and connect any MCP client (protocol 2025-11-25) to its stdin and stdout;
//! `tests/examples/mcp_server.rs` drives it with rmcp's own client. Two tools:
//!
//! - **`plan_task`** `{"task": string}`: asks for a [`TaskPlan`] in form mode. Accepted
//!   and valid: the result states the values received. Declined or cancelled: nothing
//!   is done (R5). An invalid answer is reported with every problem and none of it is
//!   used (F3). A client without form mode gets no request at all (C7); the result
//!   says why.
//! - **`connect_account`**: sends the user to a consent page on a loopback address in
//!   URL mode (nothing serves it: this is a demonstration). After the user's consent
//!   the external step is simulated as finished and the server sends
//!   `notifications/elicitation/complete` with the same `elicitationId` (U2, U5, M3).
//!   Decline, cancel and a client without URL mode are handled as above.
//!
//! Every tool result is text a model can read, and never an error for an answer the
//! user gave.

use std::borrow::Cow;
use std::sync::OnceLock;

use elicit::agent::{AskError, UrlRegistry, UserId};
use elicit::rmcp::PeerElicitor;
use elicit::{Elicit, Elicited, Mode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

/// Before I start, how should I go about it?
#[derive(Elicit, Debug)]
#[elicit(title = "Task plan")]
struct TaskPlan {
    /// How bold the changes may be
    strategy: Strategy,
    /// How many times to go over the changes before reporting back
    #[elicit(title = "Review passes", minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    /// Where to send a summary when done; leave empty for none
    #[elicit(title = "Notify", format = "email")]
    notify: Option<String>,
    /// Run the test suite after each pass
    #[elicit(title = "Run tests", default = true)]
    run_tests: bool,
}

/// How bold the changes may be.
#[derive(Elicit, Debug, Clone, Copy)]
enum Strategy {
    /// Small steps, each one reviewed
    #[elicit(title = "Conservative")]
    Conservative,
    #[elicit(title = "Balanced")]
    Balanced,
    /// Rewrite what needs rewriting
    #[elicit(title = "Aggressive")]
    Aggressive,
}

/// The message of the form. No link in it: F7.
const FORM_MESSAGE: &str = "Before I start, tell me how to go about this task.";

/// The message of the URL-mode request.
const URL_MESSAGE: &str = "Connect your account in your browser.";

/// Where the URL-mode request sends the user: loopback `http`, which the default
/// `UrlPolicy` allows outside `https` (S1: development only); no credential and no
/// personal data in it. Nothing listens there.
const CONNECT_URL: &str = "http://127.0.0.1:47616/connect";

/// The one person this server serves: a stdio server is started by its user and has
/// no login of its own. A server with real authentication binds the authenticated
/// identity instead, so that only that user can complete a URL elicitation (E5, S6).
const LOCAL_USER: &str = "local-user";

/// The server of one stdio connection.
#[derive(Default)]
struct PlanServer {
    /// Made at the first tool call, after `initialize`, when rmcp knows what the
    /// client declared.
    connection: OnceLock<PeerElicitor>,
    registry: UrlRegistry,
}

impl PlanServer {
    fn connection(&self, context: &RequestContext<RoleServer>) -> &PeerElicitor {
        self.connection.get_or_init(|| {
            PeerElicitor::new(&context.peer)
                .with_user(UserId::new(LOCAL_USER))
                .with_registry(&self.registry)
        })
    }

    async fn plan_task(&self, connection: &PeerElicitor, task: &str) -> CallToolResult {
        match connection.ask::<TaskPlan>(FORM_MESSAGE).await {
            Ok(Elicited::Accepted(plan)) => text(format!(
                "Plan for {task:?}: strategy {:?}, {} review pass(es), notify {}, run tests: {}.",
                plan.strategy,
                plan.passes,
                plan.notify.as_deref().unwrap_or("nobody"),
                plan.run_tests
            )),
            Ok(Elicited::Declined) => text("You declined the plan; nothing was done."),
            Ok(Elicited::Cancelled) => text("You cancelled the plan; nothing was done."),
            Err(error) => not_asked_or_failed(error),
        }
    }

    async fn connect_account(&self, connection: &PeerElicitor) -> CallToolResult {
        match connection.ask_url(URL_MESSAGE, CONNECT_URL).await {
            // U2: consent only. The page would report back when the user is done; here
            // the external step is simulated as finished at once, for the same user (S6).
            Ok(Elicited::Accepted(consent)) => {
                let user = UserId::new(LOCAL_USER);
                match consent.complete(Some(&user)).await {
                    Ok(()) => text(format!(
                        "You consented; the account is connected and the client was notified \
                         that elicitation {} is complete.",
                        consent.elicitation_id()
                    )),
                    Err(error) => CallToolResult::error(vec![ContentBlock::text(format!(
                        "You consented, but the completion could not be sent: {error}."
                    ))]),
                }
            }
            Ok(Elicited::Declined) => {
                text("You declined to connect the account; nothing was done.")
            }
            Ok(Elicited::Cancelled) => {
                text("You cancelled connecting the account; nothing was done.")
            }
            Err(error) => not_asked_or_failed(error),
        }
    }
}

/// A tool result that is not an error.
fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// What the tool says when it could not ask or the answer is unusable. What the user
/// or their client chose is not an error of the tool; a lost connection is.
fn not_asked_or_failed(error: AskError) -> CallToolResult {
    match error {
        // C7: nothing was sent. F6: a URL-mode interaction never falls back to a form.
        AskError::ModeNotSupported(mode) => text(format!(
            "I could not ask: your client did not declare the {} elicitation mode, so no \
             request was sent and nothing was done.",
            match mode {
                Mode::Form => "form",
                Mode::Url => "URL",
            }
        )),
        // F3: every problem, and none of the answer used.
        AskError::Invalid(errors) => text(format!(
            "Your answer was not valid, so none of it was used and nothing was done: {errors}"
        )),
        AskError::Rejected(rejected) => text(format!(
            "Your client refused the request ({}: {}); nothing was done.",
            rejected.code(),
            rejected.message()
        )),
        other => CallToolResult::error(vec![ContentBlock::text(format!(
            "Asking failed: {other}; nothing was done."
        ))]),
    }
}

fn tools() -> Vec<Tool> {
    let object = |json: Value| -> Map<String, Value> {
        match json {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    };
    vec![
        Tool::new(
            "plan_task",
            "Plan a task: asks you how to go about it (form mode).",
            object(json!({
                "type": "object",
                "properties": { "task": { "type": "string", "description": "The task to plan" } },
                "required": ["task"]
            })),
        ),
        Tool::new(
            "connect_account",
            "Connect your account: sends you to a consent page (URL mode).",
            object(json!({ "type": "object", "properties": {} })),
        ),
    ]
}

impl ServerHandler for PlanServer {
    /// Up to 2025-11-25: this server pushes `elicitation/create` and reads the client's
    /// capability from `initialize`, which 2026-07-28 has neither of (M6). Said here,
    /// a client that discovers the newest version first (`mcp_client` by default) is
    /// told so and falls back to `initialize`.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("elicit-mcp-server", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let connection = self.connection(&context);
        let result = match request.name.as_ref() {
            "plan_task" => {
                let task = request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("task"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ErrorData::invalid_params("plan_task needs {\"task\": string}", None)
                    })?;
                self.plan_task(connection, task).await
            }
            "connect_account" => self.connect_account(connection).await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other:?}; the tools are plan_task and connect_account"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = PlanServer::default()
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}
