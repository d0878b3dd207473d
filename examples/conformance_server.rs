//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`)
//! runs its elicitation scenarios against: rmcp's Streamable HTTP transport on a
//! loopback port, with exactly the tools and the prompt those scenarios call, each
//! built on elicit's public API. Run it with
//!
//! ```text
//! cargo run --example conformance_server --features rmcp_3 -- 3000
//! ```
//!
//! It prints the URL it serves (`http://127.0.0.1:3000/mcp`) on one stdout line, then
//! serves until it is stopped. `.ci/conformance-server` runs the suite against it;
//! `tests/examples/conformance_server.rs` drives it with rmcp's client.
//!
//! One rmcp `StreamableHttpService` serves both protocol versions: a 2025-11-25 client
//! initializes a session, a 2026-07-28 client is served statelessly (`server/discover`,
//! its capabilities in each request's `_meta`). Every tool is written once, with
//! [`Dialog`], and has no branch on the version: on a 2025-11-25 session its questions
//! are pushed as `elicitation/create`; on 2026-07-28 the tool answers with an
//! `InputRequiredResult` and continues on the client's retry, its earlier answers
//! sealed in `requestState` (M6).
//!
//! The scenarios of MCP 2025-11-25 (`tools-call-elicitation`, `elicitation-sep1034-defaults`,
//! `elicitation-sep1330-enums`) call:
//! - `test_elicitation` `{"message"}`: asks for a [`UserInfo`] with that message;
//! - `test_elicitation_sep1034_defaults`: a [`Sep1034Defaults`], a default on every
//!   primitive type (F4);
//! - `test_elicitation_sep1330_enums`: the five select forms of [`Sep1330Enums`], the
//!   legacy titled one (`enum` + `enumNames`, M5) chosen explicitly for its property.
//!
//! The scenarios of MCP 2026-07-28 (`input-required-result-*`) call:
//! - `test_input_required_result_elicitation`: a [`UserName`];
//! - `test_input_required_result_request_state`, `_tampered_state`: a [`Confirm`] (a
//!   changed state is refused with `-32602` before the tool runs, [`Rounds`]);
//! - `test_input_required_result_multi_round`: a [`UserName`], then a [`Colour`], the
//!   name carried sealed between the rounds;
//! - `test_input_required_result_multiple_inputs`: a form, a sampling request and a
//!   roots request, asked at once (`tokio::join!`: one round on 2026-07-28);
//! - `test_input_required_result_capabilities`: only what the request's capabilities
//!   declare (no form without `elicitation`, C7);
//! - the prompt `test_input_required_result_prompt`: a [`PromptContext`] before the
//!   prompt is given.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};

use elicit::agent::AskError;
use elicit::protocol::mcp::McpSchema;
use elicit::rmcp::input::{RoundKey, Rounds};
use elicit::rmcp::{Dialog, PeerElicitor};
use elicit::{Elicit, Elicited, Mode};
// Sampling and roots are deprecated by SEP-2577, and still in 2026-07-28's rounds.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, InputRequest, ListPromptsResult, ListRootsRequest, ListToolsResult,
    PaginatedRequestParams, Prompt, PromptMessage, Role, SamplingMessage, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};

// ---- the forms ------------------------------------------------------------------------

/// Tell us about yourself.
#[derive(Elicit, Debug)]
struct UserInfo {
    /// Your user name
    #[elicit(title = "User name")]
    username: String,
    /// Your email address
    #[elicit(title = "Email", format = "email")]
    email: String,
}

/// A default on every primitive type (SEP-1034).
#[derive(Elicit, Debug)]
struct Sep1034Defaults {
    #[elicit(title = "Name", default = "John Doe")]
    name: String,
    #[elicit(title = "Age", default = 30)]
    age: u8,
    #[elicit(title = "Score", default = 95.5)]
    score: f64,
    #[elicit(title = "Status", default = "active")]
    status: Status,
    #[elicit(title = "Verified", default = true)]
    verified: bool,
}

/// An untitled select: its values are its labels.
#[derive(Elicit, Debug, Clone, Copy)]
#[elicit(rename_all = "lowercase")]
enum Status {
    Active,
    Inactive,
    Pending,
}

/// The five select forms of SEP-1330.
#[derive(Elicit, Debug)]
#[elicit(rename_all = "camelCase")]
struct Sep1330Enums {
    #[elicit(title = "Untitled single-select")]
    untitled_single: UntitledOption,
    #[elicit(title = "Titled single-select")]
    titled_single: TitledOption,
    /// Sent as MCP's legacy `enum` + `enumNames` (see [`sep1330_schema`]).
    #[elicit(title = "Legacy titled single-select")]
    legacy_enum: LegacyOption,
    #[elicit(title = "Untitled multi-select")]
    untitled_multi: Vec<UntitledOption>,
    #[elicit(title = "Titled multi-select")]
    titled_multi: Vec<TitledChoice>,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum UntitledOption {
    Option1,
    Option2,
    Option3,
}

#[derive(Elicit, Debug, Clone, Copy)]
#[elicit(rename_all = "lowercase")]
enum TitledOption {
    #[elicit(title = "First Option")]
    Value1,
    #[elicit(title = "Second Option")]
    Value2,
    #[elicit(title = "Third Option")]
    Value3,
}

#[derive(Elicit, Debug, Clone, Copy)]
#[elicit(rename_all = "lowercase")]
enum LegacyOption {
    #[elicit(title = "Option One")]
    Opt1,
    #[elicit(title = "Option Two")]
    Opt2,
    #[elicit(title = "Option Three")]
    Opt3,
}

#[derive(Elicit, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[elicit(rename_all = "lowercase")]
enum TitledChoice {
    #[elicit(title = "First Choice")]
    Value1,
    #[elicit(title = "Second Choice")]
    Value2,
    #[elicit(title = "Third Choice")]
    Value3,
}

/// The schema of [`Sep1330Enums`] in MCP form, its `legacyEnum` written as MCP's legacy
/// titled select (M5): the server's explicit choice for that one property; the client's
/// protocol version decides the others.
fn sep1330_schema() -> McpSchema {
    McpSchema::from_static(Sep1330Enums::requested_schema())
        .with_legacy_titled("legacyEnum")
        .expect("`legacyEnum` is a titled single-select of the derived schema")
}

/// What is your name?
#[derive(Elicit, Debug)]
struct UserName {
    #[elicit(title = "Name")]
    name: String,
}

/// Please confirm.
#[derive(Elicit, Debug)]
struct Confirm {
    #[elicit(title = "OK")]
    ok: bool,
}

/// What is your favorite color?
#[derive(Elicit, Debug)]
struct Colour {
    #[elicit(title = "Color")]
    color: String,
}

/// What context should the prompt use?
#[derive(Elicit, Debug)]
struct PromptContext {
    #[elicit(title = "Context")]
    context: String,
}

// ---- the server ------------------------------------------------------------------------

/// The server of one session (2025-11-25) or one request (2026-07-28).
struct ConformanceServer {
    /// The session's elicitor, made at its first tool call, after `initialize`.
    connection: OnceLock<PeerElicitor>,
    /// The sealing of every round, shared by all sessions and requests: any instance
    /// holding the key could continue them.
    rounds: Arc<Rounds>,
}

/// A tool result that is not an error.
fn text(message: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(message.into())])
}

/// What the user or the client chose is an answer; everything else is an error the
/// client is told about.
fn asked<T: std::fmt::Debug>(
    answer: Result<Elicited<T>, AskError>,
    accepted: impl FnOnce(T) -> String,
) -> Result<CallToolResult, ErrorData> {
    match answer {
        Ok(Elicited::Accepted(value)) => Ok(text(format!(
            "Elicitation completed: action=accept, content={}",
            accepted(value)
        ))),
        Ok(Elicited::Declined) => Ok(text("Elicitation completed: action=decline")),
        Ok(Elicited::Cancelled) => Ok(text("Elicitation completed: action=cancel")),
        Err(error) => Err(ask_failed(error)),
    }
}

/// An answer that cannot be used, a client without the mode, a lost connection.
fn ask_failed(error: AskError) -> ErrorData {
    match error {
        AskError::Invalid(_) | AskError::MalformedResponse(_) => {
            ErrorData::invalid_params(format!("the answer is not usable: {error}"), None)
        }
        other => ErrorData::internal_error(format!("could not ask: {other}"), None),
    }
}

fn object(json: Value) -> Map<String, Value> {
    match json {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn tools() -> Vec<Tool> {
    let none = || object(json!({ "type": "object", "properties": {} }));
    let tool = |name: &'static str, description: &'static str| Tool::new(name, description, none());
    vec![
        Tool::new(
            "test_elicitation",
            "Asks for a user name and an email address (form mode).",
            object(json!({
                "type": "object",
                "properties": { "message": { "type": "string", "description": "The message to show" } },
                "required": ["message"]
            })),
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Asks for a form with a default on every primitive type.",
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Asks for a form with the five select forms.",
        ),
        tool(
            "test_input_required_result_elicitation",
            "Asks for your name in an InputRequiredResult (2026-07-28).",
        ),
        tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation in a sealed round.",
        ),
        tool(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation in a sealed round; a changed state is refused.",
        ),
        tool(
            "test_input_required_result_multi_round",
            "Asks for your name, then your favorite color.",
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a form, a sampled greeting and the client's roots at once.",
        ),
        tool(
            "test_input_required_result_capabilities",
            "Asks only for what the request's capabilities declare.",
        ),
    ]
}

impl ConformanceServer {
    fn connection(&self, context: &RequestContext<RoleServer>) -> &PeerElicitor {
        self.connection
            .get_or_init(|| PeerElicitor::new(&context.peer))
    }

    /// The dialog of this tool call, through the session's elicitor (2025-11-25).
    fn dialog(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Dialog {
        Dialog::tool_call(context.clone(), request).with_elicitor(self.connection(context).clone())
    }

    // Every tool below is written once, for both versions: `Dialog` pushes
    // `elicitation/create` on a 2025-11-25 session and answers with an
    // `InputRequiredResult` on 2026-07-28, continuing on the retry (M6).

    async fn test_elicitation(
        &self,
        dialog: &Dialog,
        message: &str,
    ) -> Result<CallToolResult, ErrorData> {
        let answer = dialog.form::<UserInfo>(message).await;
        asked(answer, |user| {
            json!({ "username": user.username, "email": user.email }).to_string()
        })
    }

    async fn sep1034(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        let answer = dialog
            .form::<Sep1034Defaults>("Please review the pre-filled values.")
            .await;
        asked(answer, |d| format!("{d:?}"))
    }

    async fn sep1330(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        let answer = dialog
            .form_mcp::<Sep1330Enums>("Please choose your options.", &sep1330_schema())
            .await;
        asked(answer, |e| format!("{e:?}"))
    }

    /// One question; the answer completes the call.
    async fn input_elicitation(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        Ok(
            match dialog
                .key("user_name")
                .form::<UserName>("What is your name?")
                .await
                .map_err(ask_failed)?
            {
                Elicited::Accepted(UserName { name }) => text(format!("Hello, {name}!")),
                Elicited::Declined => text("You declined to give your name."),
                Elicited::Cancelled => text("You cancelled."),
            },
        )
    }

    /// A [`Confirm`]; on 2026-07-28 in a sealed round (a changed state is refused
    /// with `-32602` before the body runs).
    async fn confirm(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        Ok(
            match dialog
                .key("confirm")
                .form::<Confirm>("Please confirm")
                .await
                .map_err(ask_failed)?
            {
                Elicited::Accepted(Confirm { ok }) => text(format!(
                    "state-ok: the sealed state was verified; ok = {ok}"
                )),
                Elicited::Declined => text("state-ok: you declined"),
                Elicited::Cancelled => text("state-ok: you cancelled"),
            },
        )
    }

    /// Two questions: a name, then a color.
    async fn multi_round(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        let name = dialog
            .key("step1")
            .form::<UserName>("Step 1: What is your name?")
            .await
            .map_err(ask_failed)?;
        let Elicited::Accepted(UserName { name }) = name else {
            return Ok(text("You did not give your name; nothing more is asked."));
        };
        let color = dialog
            .key("step2")
            .form::<Colour>("Step 2: What is your favorite color?")
            .await
            .map_err(ask_failed)?;
        Ok(match color {
            Elicited::Accepted(Colour { color }) => {
                text(format!("{name}'s favorite color is {color}."))
            }
            _ => text(format!("{name} gave no color.")),
        })
    }

    /// Every input the client's capabilities allow, asked at once (one round on
    /// 2026-07-28): a form (elicitation), a sampled greeting (sampling), the client's
    /// roots (roots).
    async fn several_inputs(&self, dialog: &Dialog) -> Result<CallToolResult, ErrorData> {
        let declared = dialog.client_capabilities().unwrap_or_default();
        // C7: each only when the client declared it.
        let name = async {
            match dialog.supports(Mode::Form) {
                true => dialog
                    .key("user_name")
                    .form::<UserName>("What is your name?")
                    .await
                    .map(Some),
                false => Ok(None),
            }
        };
        let greeting = async {
            match declared.sampling.is_some() {
                true => dialog
                    .key("greeting")
                    .input(sampling_request())
                    .await
                    .map(Some),
                false => Ok(None),
            }
        };
        let roots = async {
            match declared.roots.is_some() {
                true => dialog
                    .key("client_roots")
                    .input(roots_request())
                    .await
                    .map(Some),
                false => Ok(None),
            }
        };
        let (name, greeting, roots) = tokio::join!(name, greeting, roots);
        let (name, greeting, roots) = (
            name.map_err(ask_failed)?,
            greeting.map_err(ask_failed)?,
            roots.map_err(ask_failed)?,
        );
        if name.is_none() && greeting.is_none() && roots.is_none() {
            return Ok(text(
                "Your client declared none of elicitation (form), sampling and roots, \
                 so there is nothing this tool can ask; nothing was done.",
            ));
        }
        let mut parts = Vec::new();
        match name {
            Some(Elicited::Accepted(UserName { name })) => parts.push(format!("name {name}")),
            Some(other) => parts.push(format!("no name ({other:?})")),
            None => {}
        }
        if let Some(greeting) = greeting {
            let said = greeting
                .pointer("/content/text")
                .and_then(Value::as_str)
                .unwrap_or("(no text)");
            parts.push(format!("greeting {said:?}"));
        }
        if let Some(roots) = roots {
            let count = roots
                .get("roots")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            parts.push(format!("{count} root(s)"));
        }
        Ok(text(format!("All inputs received: {}.", parts.join(", "))))
    }

    /// The prompt's context, asked before the prompt is given.
    async fn prompt(&self, dialog: &Dialog) -> Result<GetPromptResult, ErrorData> {
        let answer = dialog
            .key("user_context")
            .form::<PromptContext>("What context should the prompt use?")
            .await
            .map_err(ask_failed)?;
        let context = match answer {
            Elicited::Accepted(PromptContext { context }) => context,
            Elicited::Declined | Elicited::Cancelled => "no context".to_owned(),
        };
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Answer with this context in mind: {context}"),
        )])
        .with_description("A prompt that asks for its context first"))
    }
}

/// The sampling request of a round (the client's model writes a greeting).
#[allow(deprecated)] // sampling is deprecated by SEP-2577, and still in 2026-07-28
fn sampling_request() -> InputRequest {
    InputRequest::CreateMessage(CreateMessageRequest::new(CreateMessageRequestParams::new(
        vec![SamplingMessage::user_text("Generate a greeting")],
        50,
    )))
}

/// The roots request of a round.
#[allow(deprecated)] // as sampling
fn roots_request() -> InputRequest {
    InputRequest::ListRoots(ListRootsRequest::default())
}

impl ServerHandler for ConformanceServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new(
            "elicit-conformance-server",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "test_input_required_result_prompt",
            Some("Asks for its context before it is given (2026-07-28)."),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        match request.name.as_str() {
            "test_input_required_result_prompt" => {
                let dialog = Dialog::prompt(context, &request);
                dialog.run(&self.rounds, self.prompt(&dialog)).await
            }
            other => Err(ErrorData::invalid_params(
                format!("no prompt named {other:?}"),
                None,
            )),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let dialog = self.dialog(&request, &context);
        let rounds = &self.rounds;
        match request.name.as_ref() {
            "test_elicitation" => {
                let message = request
                    .arguments
                    .as_ref()
                    .and_then(|arguments| arguments.get("message"))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        ErrorData::invalid_params(
                            "test_elicitation needs {\"message\": string}",
                            None,
                        )
                    })?;
                dialog
                    .run(rounds, self.test_elicitation(&dialog, message))
                    .await
            }
            "test_elicitation_sep1034_defaults" => dialog.run(rounds, self.sep1034(&dialog)).await,
            "test_elicitation_sep1330_enums" => dialog.run(rounds, self.sep1330(&dialog)).await,
            "test_input_required_result_elicitation" => {
                dialog.run(rounds, self.input_elicitation(&dialog)).await
            }
            "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state" => {
                dialog.run(rounds, self.confirm(&dialog)).await
            }
            "test_input_required_result_multi_round" => {
                dialog.run(rounds, self.multi_round(&dialog)).await
            }
            "test_input_required_result_multiple_inputs"
            | "test_input_required_result_capabilities" => {
                dialog.run(rounds, self.several_inputs(&dialog)).await
            }
            other => Err(ErrorData::invalid_params(
                format!("no tool named {other:?}"),
                None,
            )),
        }
    }
}

// ---- main ------------------------------------------------------------------------------

/// The largest request body `/mcp` reads (a tool call here is a few hundred bytes).
const MAX_REQUEST_BODY: usize = 256 * 1024;

const USAGE: &str = "usage: conformance_server PORT   (serves http://127.0.0.1:PORT/mcp)";

#[tokio::main]
async fn main() {
    let port = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [port] => match port.parse::<u16>() {
            Ok(port) => port,
            Err(_) => exit(&format!("{port:?} is not a port number\n{USAGE}")),
        },
        _ => exit(USAGE),
    };
    if let Err(error) = serve(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await {
        exit(&error.to_string());
    }
}

fn exit(message: &str) -> ! {
    eprintln!("conformance_server: {message}");
    std::process::exit(2)
}

async fn serve(addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    // One key per run: every round of this process opens with it. Instances of one
    // deployment would share it (RoundKey::from_bytes). Anonymous: the conformance
    // suite's client authenticates as nobody, so there is no user to bind a round to
    // (a server with logins binds each round to its user, the default); and not at most
    // once, since the suite may send a round's state again and expects it to open.
    let rounds = Arc::new(Rounds::new(RoundKey::generate()?).anonymous());
    let config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MAX_REQUEST_BODY)
        // Loopback only (rmcp's default Host check), and browsers' Origin checked too.
        .enforce_origin_validation();
    let service = StreamableHttpService::new(
        move || {
            Ok(ConformanceServer {
                connection: OnceLock::new(),
                rounds: Arc::clone(&rounds),
            })
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let app = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    println!("http://{local}/mcp");
    axum::serve(listener, app).await?;
    Ok(())
}
