//! An ACP agent over stdio that hosts one MCP server, and puts every elicitation of
//! that server to the person through its own ACP client (`elicit::bridge`):
//!
//! ```text
//! cargo run --example acp_mcp_agent --features agent-client-protocol,rmcp_3 -- \
//!     [--protocol VERSION] [--deadline SECS] (URL | -- COMMAND ARGS…)
//! ```
//!
//! - `URL`: the MCP server over Streamable HTTP (rmcp's client, plain `http://`).
//! - `-- COMMAND ARGS…`: the MCP server started as a child process, spoken to over its
//!   stdin and stdout (each `elicitation/create` read from the bytes the server wrote).
//! - `--protocol 2025-11-25` (or `2025-06-18`, `2026-07-28`): the MCP version to speak;
//!   by default the newest both sides speak.
//! - `--deadline SECS`: give the person at most SECS seconds per elicitation; then the
//!   question is withdrawn from the ACP client (`$/cancel_request`) and the MCP server
//!   is answered `cancel` (`McpBridge::with_deadline`). By default the agent waits.
//!
//! The MCP server is connected at the first prompt, declaring the elicitation modes
//! the ACP client declared in `initialize` and no other. A `session/prompt` whose text
//! is
//!
//! - `call TOOL` calls that tool with `{}`, `call TOOL {json}` with those arguments;
//! - `call-all` calls every tool that has no required argument, one after the other;
//!
//! each call is reported with `session/update` `tool_call` (pending) and
//! `tool_call_update` (in progress, then completed or failed), and the tool's result
//! text comes back as agent message chunks. Every elicitation of the MCP server during
//! the call reaches the ACP client as `elicitation/create` scoped to the session and
//! that tool call; see the module documentation of `elicit::bridge` for the mapping.
//! `session/cancel` withdraws the question waiting, cancels the MCP `tools/call`
//! (`notifications/cancelled`) and ends the turn with `stopReason: "cancelled"`.
//!
//! For instance, with the project's own MCP server:
//!
//! ```text
//! cargo build --example mcp_server --features rmcp_3
//! cargo run --example acp_mcp_agent --features agent-client-protocol,rmcp_3 -- \
//!     -- target/debug/examples/mcp_server
//! ```

use std::collections::HashMap;
use std::pin::pin;
use std::process::Stdio as ProcessStdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion as AcpVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Stdio};
use elicit::agent::ConnectionId;
use elicit::bridge::{call_tool, CallError, McpBridge};
use elicit::rmcp::client::RawTap;
use elicit::{ElicitationCapabilities, Elicitor, Scope};
use futures::future::{self, Either};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ProtocolVersion, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ClientServiceExt;
use serde_json::{Map, Value};

const USAGE: &str =
    "usage: acp_mcp_agent [--protocol VERSION] [--deadline SECS] (URL | -- COMMAND ARGS...)";

/// Where the MCP server is.
#[derive(Clone, Debug)]
enum Target {
    Url(String),
    Command(Vec<String>),
}

#[derive(Clone, Debug)]
struct Args {
    protocol: Option<ProtocolVersion>,
    deadline: Option<Duration>,
    target: Target,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut protocol = None;
    let mut deadline = None;
    let mut url = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--protocol" => {
                let version = args.next().ok_or("--protocol needs a version")?;
                if !["2025-06-18", "2025-11-25", "2026-07-28"].contains(&version.as_str()) {
                    return Err(format!(
                        "unknown MCP protocol version {version:?}: use 2025-06-18, 2025-11-25 \
                         or 2026-07-28"
                    ));
                }
                protocol = Some(
                    serde_json::from_value::<ProtocolVersion>(Value::from(version))
                        .map_err(|e| format!("--protocol: {e}"))?,
                );
            }
            "--deadline" => {
                let seconds = args.next().ok_or("--deadline needs a number of seconds")?;
                let seconds: f64 = seconds
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                    .ok_or_else(|| {
                        format!("--deadline: {seconds:?} is not a number of seconds in (0, 86400]")
                    })?;
                deadline = Some(Duration::from_secs_f64(seconds));
            }
            "--" => {
                let command: Vec<String> = args.by_ref().collect();
                if command.is_empty() {
                    return Err("`--` must be followed by the MCP server's command".into());
                }
                if let Some(url) = url {
                    return Err(format!("both a URL ({url}) and a command"));
                }
                return Ok(Args {
                    protocol,
                    deadline,
                    target: Target::Command(command),
                });
            }
            other if other.starts_with("--") => return Err(format!("unknown option {other}")),
            other => {
                if url.replace(other.to_owned()).is_some() {
                    return Err("more than one URL".into());
                }
            }
        }
    }
    match url {
        Some(url) => Ok(Args {
            protocol,
            deadline,
            target: Target::Url(url),
        }),
        None => Err("no MCP server: give a URL or -- COMMAND".into()),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("acp_mcp_agent: {message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(error) = serve(args).await {
        eprintln!("acp_mcp_agent: {error}");
        std::process::exit(1);
    }
}

type McpClient = RunningService<RoleClient, McpBridge>;

/// The MCP connection, made once per ACP connection; the child (if any) is killed
/// when it is dropped.
struct Mcp {
    client: McpClient,
    _child: Option<tokio::process::Child>,
}

struct State {
    args: Args,
    elicitor: Mutex<Option<Elicitor>>,
    mcp: tokio::sync::OnceCell<Result<Arc<Mcp>, String>>,
    sessions: Mutex<HashMap<String, Arc<tokio::sync::Notify>>>,
    next_call: Mutex<u64>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    fn elicitor(&self) -> Option<Elicitor> {
        lock(&self.elicitor).clone()
    }

    fn open_session(&self) -> String {
        let mut sessions = lock(&self.sessions);
        let id = format!("session-{}", sessions.len() + 1);
        sessions.insert(id.clone(), Arc::new(tokio::sync::Notify::new()));
        id
    }

    fn cancel_signal(&self, session_id: &str) -> Option<Arc<tokio::sync::Notify>> {
        lock(&self.sessions).get(session_id).cloned()
    }

    fn next_tool_call(&self) -> String {
        let mut next = lock(&self.next_call);
        *next += 1;
        format!("call-{next}")
    }

    /// The MCP connection, made at the first use with the ACP connection `cx`.
    async fn mcp(
        &self,
        cx: &ConnectionTo<Client>,
        elicitor: &Elicitor,
    ) -> Result<Arc<Mcp>, String> {
        self.mcp
            .get_or_init(|| async {
                let bridge = McpBridge::new(cx.clone(), elicitor.clone());
                connect(bridge, &self.args).await.map(Arc::new)
            })
            .await
            .clone()
    }
}

async fn connect(bridge: McpBridge, args: &Args) -> Result<Mcp, String> {
    let bridge = match &args.protocol {
        Some(version) => bridge.with_protocol_version(version.clone()),
        None => bridge,
    };
    let bridge = match args.deadline {
        Some(deadline) => bridge.with_deadline(deadline),
        None => bridge,
    };
    match &args.target {
        Target::Url(url) => {
            let lifecycle = bridge.lifecycle();
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            let client = bridge
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .map_err(|e| format!("connecting to {url}: {e}"))?;
            Ok(Mcp {
                client,
                _child: None,
            })
        }
        Target::Command(command) => {
            let mut child = tokio::process::Command::new(&command[0])
                .args(&command[1..])
                .stdin(ProcessStdio::piped())
                .stdout(ProcessStdio::piped())
                .stderr(ProcessStdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|e| format!("starting {}: {e}", command[0]))?;
            let stdin = child.stdin.take().ok_or("the child has no stdin")?;
            let stdout = child.stdout.take().ok_or("the child has no stdout")?;
            let tap = RawTap::new();
            let bridge = bridge.with_tap(tap.clone());
            let lifecycle = bridge.lifecycle();
            let client = bridge
                .serve_with_lifecycle((tap.reader(stdout), stdin), lifecycle)
                .await
                .map_err(|e| format!("connecting to {}: {e}", command[0]))?;
            Ok(Mcp {
                client,
                _child: Some(child),
            })
        }
    }
}

async fn serve(args: Args) -> agent_client_protocol::Result<()> {
    let state = Arc::new(State {
        args,
        elicitor: Mutex::new(None),
        mcp: tokio::sync::OnceCell::new(),
        sessions: Mutex::new(HashMap::new()),
        next_call: Mutex::new(0),
    });
    Agent
        .v1()
        .name("elicit-acp-mcp-agent")
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    *lock(&state.elicitor) = Some(Elicitor::new(
                        ElicitationCapabilities::from(&request),
                        ConnectionId::new(),
                    ));
                    responder.respond(
                        acp::InitializeResponse::new(AcpVersion::V1)
                            .agent_capabilities(acp::AgentCapabilities::new())
                            .agent_info(
                                acp::Implementation::new(
                                    "elicit-acp-mcp-agent",
                                    env!("CARGO_PKG_VERSION"),
                                )
                                .title("elicit MCP-hosting example agent"),
                            ),
                    )
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |_request: acp::NewSessionRequest,
                            responder: Responder<acp::NewSessionResponse>,
                            _cx: ConnectionTo<Client>| {
                    responder.respond(acp::NewSessionResponse::new(state.open_session()))
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::PromptRequest,
                            responder: Responder<acp::PromptResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(elicitor) = state.elicitor() else {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_request()
                                .data("send `initialize` before `session/prompt`"),
                        );
                    };
                    let Some(cancelled) = state.cancel_signal(&request.session_id.0) else {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_params()
                                .data("no session with this id on this connection"),
                        );
                    };
                    let command = match parse_prompt(&request.prompt) {
                        Ok(command) => command,
                        Err(message) => {
                            return responder.respond_with_error(
                                agent_client_protocol::Error::invalid_params().data(message),
                            )
                        }
                    };
                    let turn_cx = cx.clone();
                    let state = Arc::clone(&state);
                    cx.spawn(async move {
                        let session_id = request.session_id.0.to_string();
                        // Armed before any work, so that a cancel during the turn is
                        // seen whenever it arrives.
                        let mut cancelled = pin!(cancelled.notified());
                        cancelled.as_mut().enable();
                        let stop =
                            turn(&state, &turn_cx, &elicitor, &session_id, command, cancelled)
                                .await?;
                        responder.respond(acp::PromptResponse::new(stop))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let state = Arc::clone(&state);
                async move |cancel: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    if let Some(signal) = state.cancel_signal(&cancel.session_id.0) {
                        signal.notify_waiters();
                    }
                    if let Some(Ok(mcp)) = state.mcp.get() {
                        mcp.client.service().cancel_session(&cancel.session_id.0);
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// What a prompt asks for.
enum Command {
    /// One tool, with these arguments.
    Call(String, Map<String, Value>),
    /// Every tool without a required argument.
    CallAll,
}

fn parse_prompt(prompt: &[acp::ContentBlock]) -> Result<Command, String> {
    let text: String = prompt
        .iter()
        .filter_map(|block| match block {
            acp::ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let text = text.trim();
    if text == "call-all" {
        return Ok(Command::CallAll);
    }
    let Some(rest) = text.strip_prefix("call ") else {
        return Err(format!(
            "say `call TOOL`, `call TOOL {{json}}` or `call-all`, not {text:?}"
        ));
    };
    let rest = rest.trim();
    let (name, arguments) = match rest.split_once(char::is_whitespace) {
        Some((name, json)) => (name, json.trim()),
        None => (rest, ""),
    };
    if name.is_empty() {
        return Err("`call` needs a tool name".into());
    }
    let arguments = if arguments.is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(arguments) {
            Ok(Value::Object(arguments)) => arguments,
            Ok(_) => return Err("the arguments must be a JSON object".into()),
            Err(e) => return Err(format!("the arguments are not JSON: {e}")),
        }
    };
    Ok(Command::Call(name.to_owned(), arguments))
}

/// One prompt's turn: the calls, each reported; the stop reason.
async fn turn(
    state: &State,
    cx: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    session_id: &str,
    command: Command,
    mut cancelled: std::pin::Pin<&mut tokio::sync::futures::Notified<'_>>,
) -> agent_client_protocol::Result<acp::StopReason> {
    let mcp = match state.mcp(cx, elicitor).await {
        Ok(mcp) => mcp,
        Err(error) => {
            say(
                cx,
                session_id,
                format!("I could not reach the MCP server: {error}"),
            )?;
            return Ok(acp::StopReason::EndTurn);
        }
    };
    let calls = match command {
        Command::Call(name, arguments) => vec![(name, arguments)],
        Command::CallAll => match mcp.client.list_all_tools().await {
            Ok(tools) => tools
                .iter()
                .filter(|tool| !has_required_argument(tool))
                .map(|tool| (tool.name.to_string(), Map::new()))
                .collect(),
            Err(error) => {
                say(
                    cx,
                    session_id,
                    format!("The MCP server did not list its tools: {error}"),
                )?;
                return Ok(acp::StopReason::EndTurn);
            }
        },
    };
    for (name, arguments) in calls {
        let tool_call_id = state.next_tool_call();
        cx.send_notification(acp::SessionNotification::new(
            session_id.to_owned(),
            acp::SessionUpdate::ToolCall(
                acp::ToolCall::new(tool_call_id.clone(), format!("MCP tool {name}"))
                    .kind(acp::ToolKind::Other)
                    .status(acp::ToolCallStatus::Pending)
                    .raw_input(Value::Object(arguments.clone())),
            ),
        ))?;
        update(
            cx,
            session_id,
            &tool_call_id,
            acp::ToolCallStatus::InProgress,
        )?;
        let scope = Scope::tool_call(session_id, tool_call_id.clone());
        let params = CallToolRequestParams::new(name.clone()).with_arguments(arguments);
        let call = pin!(call_tool(&mcp.client, scope, params));
        // Dropping the call (on cancel) makes rmcp send `notifications/cancelled` for
        // the `tools/call` in flight, and drops a 2026-07-28 input request being asked
        // (the ACP SDK withdraws it). The cancel is polled first: once it has arrived,
        // the call is not polled again, and no answer goes on to the MCP server.
        let outcome = match future::select(cancelled.as_mut(), call).await {
            Either::Right((outcome, _)) => outcome,
            Either::Left(((), _)) => {
                update(cx, session_id, &tool_call_id, acp::ToolCallStatus::Failed)?;
                say(cx, session_id, format!("Cancelled: {name} was stopped."))?;
                return Ok(acp::StopReason::Cancelled);
            }
        };
        match outcome {
            Ok(result) => {
                let status = if result.is_error == Some(true) {
                    acp::ToolCallStatus::Failed
                } else {
                    acp::ToolCallStatus::Completed
                };
                update(cx, session_id, &tool_call_id, status)?;
                say(cx, session_id, result_text(&name, &result))?;
            }
            Err(error) => {
                update(cx, session_id, &tool_call_id, acp::ToolCallStatus::Failed)?;
                say(cx, session_id, failure_text(&name, &error))?;
            }
        }
    }
    Ok(acp::StopReason::EndTurn)
}

fn update(
    cx: &ConnectionTo<Client>,
    session_id: &str,
    tool_call_id: &str,
    status: acp::ToolCallStatus,
) -> agent_client_protocol::Result<()> {
    cx.send_notification(acp::SessionNotification::new(
        session_id.to_owned(),
        acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
            tool_call_id.to_owned(),
            acp::ToolCallUpdateFields::new().status(status),
        )),
    ))
}

/// One agent message chunk.
fn say(
    cx: &ConnectionTo<Client>,
    session_id: &str,
    text: String,
) -> agent_client_protocol::Result<()> {
    cx.send_notification(acp::SessionNotification::new(
        session_id.to_owned(),
        acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(acp::ContentBlock::Text(
            acp::TextContent::new(text),
        ))),
    ))
}

fn result_text(name: &str, result: &CallToolResult) -> String {
    let texts: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|text| text.text.as_str())
        .collect();
    if texts.is_empty() {
        format!("{name} returned no text.")
    } else {
        format!("{name}: {}", texts.join("\n"))
    }
}

fn failure_text(name: &str, error: &CallError) -> String {
    format!("{name} failed: {error}")
}

fn has_required_argument(tool: &Tool) -> bool {
    tool.input_schema
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|required| !required.is_empty())
}
