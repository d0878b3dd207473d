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
//! initializes a session, and its tools push `elicitation/create` on it
//! ([`PeerElicitor`]); a 2026-07-28 client is served statelessly (`server/discover`,
//! its capabilities in each request's `_meta`), and its tools answer with an
//! `InputRequiredResult` ([`elicit::rmcp::input`], M6).
//!
//! MCP 2025-11-25 (scenarios `tools-call-elicitation`, `elicitation-sep1034-defaults`,
//! `elicitation-sep1330-enums`):
//! - `test_elicitation` `{"message"}`: asks for a [`UserInfo`] with that message;
//! - `test_elicitation_sep1034_defaults`: a [`Sep1034Defaults`], a default on every
//!   primitive type (F4);
//! - `test_elicitation_sep1330_enums`: the five select forms of [`Sep1330Enums`], the
//!   legacy titled one (`enum` + `enumNames`, M5) chosen explicitly for its property.
//!
//! MCP 2026-07-28 (the `input-required-result-*` scenarios):
//! - `test_input_required_result_elicitation`: a [`UserName`] under the key
//!   `user_name`, no state: the retry's answer is read against the same form;
//! - `test_input_required_result_request_state`, `_tampered_state`: a [`Confirm`] in a
//!   round sealed with [`Rounds`] (a changed state is refused with `-32602`);
//! - `test_input_required_result_multi_round`: a [`UserName`], then a [`Colour`], the
//!   name carried sealed between the rounds;
//! - `test_input_required_result_multiple_inputs`: a form, a sampling request and a
//!   roots request in one sealed round;
//! - `test_input_required_result_capabilities`: only what the request's capabilities
//!   declare (no form without `elicitation`, C7);
//! - the prompt `test_input_required_result_prompt`: a [`PromptContext`] before the
//!   prompt is given.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};

use elicit::agent::AskError;
use elicit::protocol::mcp::McpSchema;
use elicit::rmcp::input::{self, Answers, RoundError, RoundKey, RoundRequest, Rounds};
use elicit::rmcp::PeerElicitor;
use elicit::{Elicit, Elicited};
// Sampling and roots are deprecated by SEP-2577, and still in 2026-07-28's rounds.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, InputRequest, InputRequests, InputRequiredResult, ListPromptsResult,
    ListRootsRequest, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage, Role,
    SamplingMessage, ServerCapabilities, ServerConfig, Tool,
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

/// A round refused (`-32602`) or an input request that could not be built.
fn round_failed(error: AskError) -> ErrorData {
    ErrorData::internal_error(format!("could not ask: {error}"), None)
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

    // ---- 2025-11-25: elicitation/create pushed on the session -------------------------

    async fn test_elicitation(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let message = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("message"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ErrorData::invalid_params("test_elicitation needs {\"message\": string}", None)
            })?;
        let answer = self.connection(context).ask::<UserInfo>(message).await;
        asked(answer, |user| {
            json!({ "username": user.username, "email": user.email }).to_string()
        })
    }

    async fn sep1034(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let answer = self
            .connection(context)
            .ask::<Sep1034Defaults>("Please review the pre-filled values.")
            .await;
        asked(answer, |d| format!("{d:?}"))
    }

    async fn sep1330(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let answer = self
            .connection(context)
            .ask_mcp_schema("Please choose your options.", &sep1330_schema())
            .await;
        // The same answer as the typed form: it was validated against that schema.
        let typed = answer.and_then(|answer| match answer {
            Elicited::Accepted(content) => Sep1330Enums::from_content(&content)
                .map(Elicited::Accepted)
                .map_err(AskError::Invalid),
            Elicited::Declined => Ok(Elicited::Declined),
            Elicited::Cancelled => Ok(Elicited::Cancelled),
        });
        asked(typed, |e| format!("{e:?}"))
    }

    // ---- 2026-07-28: InputRequiredResult --------------------------------------------

    /// No state: the retry's `user_name` is read against the form asked; an answer
    /// missing (or under another key) is asked again, a malformed one refused.
    fn input_elicitation(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match input::read::<UserName>(request.input_responses.as_ref(), "user_name")
            .map_err(ask_failed)?
        {
            None => {
                let mut requests = InputRequests::new();
                requests.insert(
                    "user_name".into(),
                    input::form::<UserName>(context, "What is your name?").map_err(round_failed)?,
                );
                Ok(InputRequiredResult::from_input_requests(requests).into())
            }
            Some(Elicited::Accepted(UserName { name })) => {
                Ok(text(format!("Hello, {name}!")).into())
            }
            Some(Elicited::Declined) => Ok(text("You declined to give your name.").into()),
            Some(Elicited::Cancelled) => Ok(text("You cancelled.").into()),
        }
    }

    /// A sealed round asking for a [`Confirm`]; the answer completes it.
    fn confirm(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let this = RoundRequest::tool_call(request);
        let answers = self.rounds.open(
            &this,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        let answer = match &answers {
            Some(answers) => answers.form::<Confirm>("confirm")?,
            None => None,
        };
        let Some(answer) = answer else {
            let mut round = self.rounds.begin(this);
            round
                .form::<Confirm>(context, "confirm", "Please confirm")
                .map_err(round_failed)?;
            return Ok(round.seal()?.into());
        };
        Ok(match answer {
            Elicited::Accepted(Confirm { ok }) => text(format!(
                "state-ok: the sealed state was verified; ok = {ok}"
            )),
            Elicited::Declined => text("state-ok: you declined"),
            Elicited::Cancelled => text("state-ok: you cancelled"),
        }
        .into())
    }

    /// Two rounds: a name, then a color; the name is carried sealed.
    fn multi_round(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let this = RoundRequest::tool_call(request);
        let answers = self.rounds.open(
            &this,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        let ask_name = |this: RoundRequest| -> Result<CallToolResponse, ErrorData> {
            let mut round = self.rounds.begin(this);
            round
                .form::<UserName>(context, "step1", "Step 1: What is your name?")
                .map_err(round_failed)?;
            Ok(round.seal()?.into())
        };
        let Some(answers) = answers else {
            return ask_name(this);
        };
        match answers.data().get("name").and_then(Value::as_str) {
            // Round 2: the name is in.
            None => match answers.form::<UserName>("step1")? {
                None => ask_name(this),
                Some(Elicited::Accepted(UserName { name })) => {
                    let mut round = self.rounds.begin(this);
                    round
                        .form::<Colour>(context, "step2", "Step 2: What is your favorite color?")
                        .map_err(round_failed)?
                        .carry(json!({ "name": name }));
                    Ok(round.seal()?.into())
                }
                Some(_) => Ok(text("You did not give your name; nothing more is asked.").into()),
            },
            // Round 3: the color completes it.
            Some(name) => match answers.form::<Colour>("step2")? {
                Some(Elicited::Accepted(Colour { color })) => {
                    Ok(text(format!("{name}'s favorite color is {color}.")).into())
                }
                Some(_) => Ok(text(format!("{name} gave no color.")).into()),
                None => {
                    let mut round = self.rounds.begin(this);
                    round
                        .form::<Colour>(context, "step2", "Step 2: What is your favorite color?")
                        .map_err(round_failed)?
                        .carry(json!({ "name": name }));
                    Ok(round.seal()?.into())
                }
            },
        }
    }

    /// One sealed round with every input the request's capabilities allow: a form
    /// (elicitation), a sampled greeting (sampling), the client's roots (roots).
    fn several_inputs(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let this = RoundRequest::tool_call(request);
        let answers = self.rounds.open(
            &this,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        if let Some(answers) = answers.as_ref().filter(|a| a.missing().is_empty()) {
            return Ok(text(summary(answers)?).into());
        }
        let declared = context.client_capabilities().unwrap_or_default();
        let mut round = self.rounds.begin(this);
        let mut asked = 0;
        // C7: a form only when the request declares elicitation (form mode).
        match round.form::<UserName>(context, "user_name", "What is your name?") {
            Ok(_) => asked += 1,
            Err(AskError::ModeNotSupported(_)) => {}
            Err(error) => return Err(round_failed(error)),
        }
        if declared.sampling.is_some() {
            round.request("greeting", sampling_request());
            asked += 1;
        }
        if declared.roots.is_some() {
            round.request("client_roots", roots_request());
            asked += 1;
        }
        if asked == 0 {
            return Ok(text(
                "Your client declared none of elicitation (form), sampling and roots, \
                 so there is nothing this tool can ask; nothing was done.",
            )
            .into());
        }
        Ok(round.seal()?.into())
    }

    /// The prompt's context, asked without state (as [`Self::input_elicitation`]).
    fn prompt(
        &self,
        request: &GetPromptRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        match input::read::<PromptContext>(request.input_responses.as_ref(), "user_context")
            .map_err(ask_failed)?
        {
            None => {
                let mut requests = InputRequests::new();
                requests.insert(
                    "user_context".into(),
                    input::form::<PromptContext>(context, "What context should the prompt use?")
                        .map_err(round_failed)?,
                );
                Ok(InputRequiredResult::from_input_requests(requests).into())
            }
            Some(answer) => {
                let context = match answer {
                    Elicited::Accepted(PromptContext { context }) => context,
                    Elicited::Declined | Elicited::Cancelled => "no context".to_owned(),
                };
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Answer with this context in mind: {context}"),
                )])
                .with_description("A prompt that asks for its context first")
                .into())
            }
        }
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

/// What a round of several inputs received.
fn summary(answers: &Answers<'_>) -> Result<String, RoundError> {
    let mut parts = Vec::new();
    if answers.response("user_name").is_ok() {
        parts.push(match answers.form::<UserName>("user_name")? {
            Some(Elicited::Accepted(UserName { name })) => format!("name {name}"),
            Some(other) => format!("no name ({other:?})"),
            None => "no name".to_owned(),
        });
    }
    if let Ok(Some(greeting)) = answers.response("greeting") {
        let said = greeting
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or("(no text)");
        parts.push(format!("greeting {said:?}"));
    }
    if let Ok(Some(roots)) = answers.response("client_roots") {
        let count = roots
            .get("roots")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        parts.push(format!("{count} root(s)"));
    }
    Ok(format!("All inputs received: {}.", parts.join(", ")))
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
            "test_input_required_result_prompt" => self.prompt(&request, &context),
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
        match request.name.as_ref() {
            "test_elicitation" => self
                .test_elicitation(&request, &context)
                .await
                .map(Into::into),
            "test_elicitation_sep1034_defaults" => self.sep1034(&context).await.map(Into::into),
            "test_elicitation_sep1330_enums" => self.sep1330(&context).await.map(Into::into),
            "test_input_required_result_elicitation" => self.input_elicitation(&request, &context),
            "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state" => self.confirm(&request, &context),
            "test_input_required_result_multi_round" => self.multi_round(&request, &context),
            "test_input_required_result_multiple_inputs"
            | "test_input_required_result_capabilities" => self.several_inputs(&request, &context),
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
    // deployment would share it (RoundKey::from_bytes).
    let rounds = Arc::new(Rounds::new(RoundKey::generate()?));
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
