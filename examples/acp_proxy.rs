//! An ACP agent over stdio in front of another ACP agent: it forwards each session and
//! prompt to the inner agent, and every elicitation of the inner agent to its own client
//! (`elicit::bridge::AcpForward`).
//!
//! ```text
//! cargo run --example acp_proxy --features agent-client-protocol -- -- COMMAND ARGS…
//! ```
//!
//! `COMMAND ARGS…` is the inner agent, started as a child process and spoken to over
//! its stdin and stdout (ACP v1, the official SDK on both sides). For instance, in
//! front of the project's own agent:
//!
//! ```text
//! cargo build --example acp_agent --features agent-client-protocol
//! cargo run --example acp_proxy --features agent-client-protocol -- \
//!     -- target/debug/examples/acp_agent
//! ```
//!
//! - `initialize`: the inner agent is started and initialized, offered exactly the
//!   elicitation modes the outer client declared (no other client capability is
//!   forwarded); the outer client gets the proxy's own `agentInfo`.
//! - `session/new`: a session of the inner agent, known to the outer client by an id of
//!   the proxy's own (`proxy-1`, `proxy-2`…), never the inner one.
//! - `session/prompt`: sent on to the inner session; its `session/update`s come back
//!   under the outer session id, and so does its answer.
//! - every `elicitation/create` of the inner agent is asked of the outer client in the
//!   outer session, checked on the way and its answer validated on the way back; a
//!   URL-mode one gets a fresh outer `elicitationId`, and the inner agent's
//!   `elicitation/complete` is carried to the outer client with it.
//! - `session/cancel`: the question still open in the session is withdrawn from the
//!   outer client (`$/cancel_request`), and the cancel goes on to the inner agent.
//!
//! See the module documentation of `elicit::bridge` for the mapping.

use std::collections::HashMap;
use std::io;
use std::process::Stdio as ProcessStdio;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines, Stdio};
use elicit::agent::{ConnectionId, UserId};
use elicit::bridge::AcpForward;
use elicit::{ElicitationCapabilities, Elicitor};
use futures::{Sink, Stream};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const USAGE: &str = "usage: acp_proxy -- COMMAND ARGS...";

/// The one person this proxy serves (a stdio agent is started by its user): the
/// identity a URL elicitation's completion is checked against (S6).
const LOCAL_USER: &str = "local-user";

fn parse_args() -> Result<Vec<String>, String> {
    let mut args = std::env::args().skip(1);
    match args.next().as_deref() {
        Some("--") => {
            let command: Vec<String> = args.collect();
            if command.is_empty() {
                return Err("`--` must be followed by the inner agent's command".into());
            }
            Ok(command)
        }
        Some(other) => Err(format!("unknown argument {other}")),
        None => Err("no inner agent: give -- COMMAND ARGS...".into()),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let command = match parse_args() {
        Ok(command) => command,
        Err(message) => {
            eprintln!("acp_proxy: {message}\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(error) = serve(command).await {
        eprintln!("acp_proxy: {error}");
        std::process::exit(1);
    }
}

/// The inner agent: its connection, the forwarding, the child (killed when dropped).
struct Inner {
    connection: ConnectionTo<Agent>,
    forward: AcpForward,
    _child: tokio::process::Child,
}

struct State {
    command: Vec<String>,
    inner: OnceLock<Arc<Inner>>,
    /// Outer session id → inner session id.
    sessions: Mutex<HashMap<String, String>>,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    fn inner(&self) -> Result<Arc<Inner>, agent_client_protocol::Error> {
        self.inner.get().cloned().ok_or_else(|| {
            agent_client_protocol::Error::invalid_request().data("send `initialize` first")
        })
    }

    fn inner_session(&self, outer: &str) -> Result<String, agent_client_protocol::Error> {
        lock(&self.sessions).get(outer).cloned().ok_or_else(|| {
            agent_client_protocol::Error::invalid_params()
                .data("no session with this id on this connection")
        })
    }

    /// A new outer id for the inner session `inner`, bound both ways.
    fn open_session(&self, forward: &AcpForward, inner: &str) -> String {
        let mut sessions = lock(&self.sessions);
        let outer = format!("proxy-{}", sessions.len() + 1);
        sessions.insert(outer.clone(), inner.to_owned());
        forward.bind_session(inner, outer.clone());
        outer
    }
}

async fn serve(command: Vec<String>) -> agent_client_protocol::Result<()> {
    let state = Arc::new(State {
        command,
        inner: OnceLock::new(),
        sessions: Mutex::new(HashMap::new()),
    });
    Agent
        .v1()
        .name("elicit-acp-proxy")
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            cx: ConnectionTo<Client>| {
                    if state.inner.get().is_some() {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_request()
                                .data("this connection is already initialized"),
                        );
                    }
                    // C1–C6: what the outer client declared bounds what the inner agent
                    // is offered. One Elicitor for the outer connection (E5).
                    let elicitor =
                        Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new())
                            .with_user(UserId::new(LOCAL_USER));
                    let forward = AcpForward::new(cx.clone(), elicitor);
                    let inner = match start_inner(&state, &cx, forward) {
                        Ok(inner) => inner,
                        Err(message) => {
                            return responder.respond_with_error(
                                agent_client_protocol::Error::internal_error().data(message),
                            )
                        }
                    };
                    let _ = state.inner.set(Arc::clone(&inner));
                    // The inner answer arrives through the inner connection's loop; this
                    // handler's loop is free meanwhile.
                    cx.spawn(async move {
                        let initialize = acp::InitializeRequest::new(ProtocolVersion::V1)
                            .client_capabilities(
                                inner.forward.declare(acp::ClientCapabilities::new()),
                            )
                            .client_info(acp::Implementation::new(
                                "elicit-acp-proxy",
                                env!("CARGO_PKG_VERSION"),
                            ));
                        match inner.connection.send_request(initialize).block_task().await {
                            Ok(answer) => {
                                let behind = answer
                                    .agent_info
                                    .as_ref()
                                    .map(|info| info.name.clone())
                                    .unwrap_or_else(|| "an ACP agent".to_owned());
                                responder.respond(
                                    acp::InitializeResponse::new(ProtocolVersion::V1)
                                        .agent_capabilities(acp::AgentCapabilities::new())
                                        .agent_info(
                                            acp::Implementation::new(
                                                "elicit-acp-proxy",
                                                env!("CARGO_PKG_VERSION"),
                                            )
                                            .title(format!("elicit proxy in front of {behind}")),
                                        ),
                                )
                            }
                            Err(error) => responder.respond_with_error(error),
                        }
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::NewSessionRequest,
                            responder: Responder<acp::NewSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let inner = match state.inner() {
                        Ok(inner) => inner,
                        Err(error) => return responder.respond_with_error(error),
                    };
                    let state = Arc::clone(&state);
                    cx.spawn(async move {
                        let forwarded = acp::NewSessionRequest::new(request.cwd)
                            .mcp_servers(request.mcp_servers);
                        match inner.connection.send_request(forwarded).block_task().await {
                            Ok(answer) => {
                                let outer =
                                    state.open_session(&inner.forward, &answer.session_id.0);
                                responder.respond(acp::NewSessionResponse::new(outer))
                            }
                            Err(error) => responder.respond_with_error(error),
                        }
                    })
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
                    let (inner, session) = match state
                        .inner()
                        .and_then(|inner| Ok((inner, state.inner_session(&request.session_id.0)?)))
                    {
                        Ok(found) => found,
                        Err(error) => return responder.respond_with_error(error),
                    };
                    cx.spawn(async move {
                        let forwarded = acp::PromptRequest::new(session, request.prompt);
                        match inner.connection.send_request(forwarded).block_task().await {
                            Ok(answer) => responder.respond(answer),
                            Err(error) => responder.respond_with_error(error),
                        }
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let state = Arc::clone(&state);
                async move |cancel: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    let (Ok(inner), Ok(session)) =
                        (state.inner(), state.inner_session(&cancel.session_id.0))
                    else {
                        return Ok(());
                    };
                    // The question still open is withdrawn from the person's client
                    // ($/cancel_request) and answered `cancel` to the inner agent, which
                    // is told to stop the turn.
                    inner.forward.cancel_session(&cancel.session_id.0);
                    inner
                        .connection
                        .send_notification(acp::CancelNotification::new(session))
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// Starts the inner agent and its connection, with the forwarding's handler and the
/// `session/update`s sent on under the outer session ids.
fn start_inner(
    state: &State,
    cx: &ConnectionTo<Client>,
    forward: AcpForward,
) -> Result<Arc<Inner>, String> {
    let (program, args) = state.command.split_first().ok_or("no inner agent")?;
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(ProcessStdio::piped())
        .stdout(ProcessStdio::piped())
        .stderr(ProcessStdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {program}: {e}"))?;
    let stdin = child.stdin.take().ok_or("the inner agent has no stdin")?;
    let stdout = child.stdout.take().ok_or("the inner agent has no stdout")?;
    let transport = Lines::new(line_sink(stdin), line_stream(stdout));
    let updates = forward.clone();
    let outer = cx.clone();
    let connection = cx
        .spawn_connection(
            Client
                .v1()
                .name("elicit-acp-proxy")
                .with_handler(forward.handler())
                .on_receive_notification(
                    async move |update: acp::SessionNotification, _cx: ConnectionTo<Agent>| {
                        // The inner session's updates reach the client under the outer
                        // id; those of a session it was never given are dropped.
                        let Some(session) = updates.outer_session(&update.session_id.0) else {
                            return Ok(());
                        };
                        outer.send_notification(
                            acp::SessionNotification::new(session, update.update).meta(update.meta),
                        )
                    },
                    agent_client_protocol::on_receive_notification!(),
                ),
            transport,
        )
        .map_err(|e| format!("cannot connect to {program}: {e}"))?;
    Ok(Arc::new(Inner {
        connection,
        forward,
        _child: child,
    }))
}

/// Newline-delimited JSON-RPC to the child's stdin.
fn line_sink(
    stdin: tokio::process::ChildStdin,
) -> impl Sink<String, Error = io::Error> + Send + 'static {
    futures::sink::unfold(stdin, async |mut stdin, line: String| {
        stdin
            .write_all(line.trim_end_matches('\n').as_bytes())
            .await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        Ok::<_, io::Error>(stdin)
    })
}

/// The child's stdout, line by line.
fn line_stream(
    stdout: tokio::process::ChildStdout,
) -> impl Stream<Item = io::Result<String>> + Send + 'static {
    futures::stream::unfold(
        BufReader::new(stdout).lines(),
        async |mut lines| match lines.next_line().await {
            Ok(Some(line)) => Some((Ok(line), lines)),
            Ok(None) => None,
            Err(error) => Some((Err(error), lines)),
        },
    )
}
