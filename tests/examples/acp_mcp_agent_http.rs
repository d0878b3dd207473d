//! `examples/acp_mcp_agent.rs` hosting a small MCP server of this test over Streamable
//! HTTP (rmcp's server on loopback, started and stopped here), for what the project's
//! own server never does: send an invalid schema, legacy `enumNames`, cancel its own
//! elicitation. MCP 2025-11-25. The ACP side is driven as in `acp_mcp_agent.rs`.
#![cfg(all(feature = "agent-client-protocol", feature = "rmcp_3", feature = "url"))]

use crate::acp_agent::AgentProcess;
use crate::common;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomNotification,
    CustomRequest, ErrorCode, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, ServerNotification, ServerRequest, Tool,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{json, Map, Value};

fn agent_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("acp_mcp_agent"))
}

/// What the server saw, for the test to check.
#[derive(Default)]
struct Seen {
    /// The client's answer (or error) to each elicitation, by tool.
    answers: Vec<(String, Value)>,
}

#[derive(Clone)]
struct OddServer {
    seen: Arc<Mutex<Seen>>,
    /// Signalled by the test: the server then cancels its pending elicitation.
    cancel_now: Arc<tokio::sync::Notify>,
    /// Signalled by the test: the server then completes its URL elicitation.
    complete_now: Arc<tokio::sync::Notify>,
    /// How many times `needs_link` was called.
    link_calls: Arc<Mutex<u32>>,
}

/// The MCP `elicitationId` of `needs_link`'s `-32042`.
const LINK_ID: &str = "mcp-link-1";

fn elicit(params: Value) -> ServerRequest {
    ServerRequest::CustomRequest(CustomRequest::new("elicitation/create", Some(params)))
}

impl OddServer {
    async fn ask(&self, tool: &str, params: Value, context: &RequestContext<RoleServer>) -> String {
        let answer = match context.peer.send_request(elicit(params)).await {
            Ok(result) => serde_json::to_value(result).unwrap_or(Value::Null),
            Err(error) => json!({ "error": error.to_string() }),
        };
        let text = answer.to_string();
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .answers
            .push((tool.to_owned(), answer));
        text
    }
}

impl ServerHandler for OddServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("odd-server", "0.0.0"))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let none: Map<String, Value> =
            serde_json::from_value(json!({ "type": "object", "properties": {} }))
                .unwrap_or_default();
        Ok(ListToolsResult::with_all_items(
            [
                "bad_schema",
                "legacy_names",
                "abandon",
                "needs_link",
                "leaky_url",
            ]
            .into_iter()
            .map(|name| Tool::new(name, "a test tool", none.clone()))
            .collect(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = match request.name.as_ref() {
            "bad_schema" => {
                self.ask(
                    "bad_schema",
                    json!({
                        "mode": "form",
                        "message": "How many?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": { "n": { "type": "integer", "minimum": 5, "maximum": 1 } }
                        }
                    }),
                    &context,
                )
                .await
            }
            "legacy_names" => {
                self.ask(
                    "legacy_names",
                    json!({
                        "mode": "form",
                        "message": "Which size?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": { "size": {
                                "type": "string",
                                "enum": ["s", "l"],
                                "enumNames": ["Small", "Large"]
                            } },
                            "required": ["size"]
                        }
                    }),
                    &context,
                )
                .await
            }
            "abandon" => {
                let request = elicit(json!({
                    "mode": "form",
                    "message": "Still there?",
                    "requestedSchema": { "type": "object", "properties": {
                        "ok": { "type": "boolean" }
                    } }
                }));
                let handle = context
                    .peer
                    .send_cancellable_request(request, PeerRequestOptions::no_options())
                    .await
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                self.cancel_now.notified().await;
                let _ = handle.cancel(Some("the server gave up".into())).await;
                "abandoned".to_owned()
            }
            "leaky_url" => {
                self.ask(
                    "leaky_url",
                    json!({
                        "mode": "url",
                        "elicitationId": "mcp-leaky-1",
                        "message": "Open this.",
                        "url": "http://127.0.0.1:47617/open?access_token=abc"
                    }),
                    &context,
                )
                .await
            }
            "needs_link" => {
                let first = {
                    let mut calls = self
                        .link_calls
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    *calls += 1;
                    *calls == 1
                };
                if first {
                    // M4: the user must go through this page first; the page (here the
                    // test's signal) reports back, and the completion follows.
                    let peer = context.peer.clone();
                    let complete_now = Arc::clone(&self.complete_now);
                    tokio::spawn(async move {
                        complete_now.notified().await;
                        let _ = peer
                            .send_notification(ServerNotification::CustomNotification(
                                CustomNotification::new(
                                    "notifications/elicitation/complete",
                                    Some(json!({ "elicitationId": LINK_ID })),
                                ),
                            ))
                            .await;
                    });
                    return Err(ErrorData::new(
                        ErrorCode(-32042),
                        "link your repository first",
                        Some(json!({ "elicitations": [{
                            "mode": "url",
                            "elicitationId": LINK_ID,
                            "url": "http://127.0.0.1:47617/link?repo=elicit",
                            "message": "Link your repository."
                        }] })),
                    ));
                }
                "linked".to_owned()
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// The server on a loopback port, stopped when dropped.
struct Server {
    url: String,
    seen: Arc<Mutex<Seen>>,
    cancel_now: Arc<tokio::sync::Notify>,
    complete_now: Arc<tokio::sync::Notify>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn start() -> Self {
        let seen = Arc::new(Mutex::new(Seen::default()));
        let cancel_now = Arc::new(tokio::sync::Notify::new());
        let complete_now = Arc::new(tokio::sync::Notify::new());
        let handler = OddServer {
            seen: Arc::clone(&seen),
            cancel_now: Arc::clone(&cancel_now),
            complete_now: Arc::clone(&complete_now),
            link_calls: Arc::default(),
        };
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let service = StreamableHttpService::new(
                    move || Ok(handler.clone()),
                    Arc::new(LocalSessionManager::default()),
                    StreamableHttpServerConfig::default(),
                );
                let app = axum::Router::new().nest_service("/mcp", service);
                let listener =
                    tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))
                        .await
                        .expect("a loopback port");
                let _ = addr_tx.send(listener.local_addr().expect("an address"));
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the server listens");
        Server {
            url: format!("http://{addr}/mcp"),
            seen,
            cancel_now,
            complete_now,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    fn answers(&self) -> Vec<(String, Value)> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .answers
            .clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Bounded: the agent (the only client) is gone by now, or is killed with its
        // handle; a thread left behind does not outlive the test binary.
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The agent hosting `server`, with a session open; returns it and the session id.
fn start(server: &Server) -> (AgentProcess, String) {
    let mut agent = AgentProcess::spawn_with_args(
        agent_binary(),
        "elicit-acp-mcp-agent",
        &["--protocol", "2025-11-25", &server.url],
        &[],
    );
    let session = agent.open_session(json!({ "elicitation": { "form": {}, "url": {} } }));
    (agent, session)
}

fn prompt(agent: &mut AgentProcess, session: &str, text: &str) -> i64 {
    agent.send_request(
        "session/prompt",
        json!({ "sessionId": session, "prompt": [{ "type": "text", "text": text }] }),
    )
}

/// Every message up to the prompt's response; the response last.
fn until_response(agent: &mut AgentProcess, prompt: i64) -> Vec<Value> {
    let mut messages = Vec::new();
    loop {
        let message = agent.recv();
        let done = message["id"] == prompt && message.get("method").is_none();
        messages.push(message);
        if done {
            return messages;
        }
    }
}

/// The next message that is not a `session/update`.
fn next_request(agent: &mut AgentProcess) -> Value {
    loop {
        let message = agent.recv();
        if message["method"] != "session/update" {
            return message;
        }
    }
}

// covers: F1, D2, D12
#[test]
fn an_invalid_schema_is_refused_with_its_reason_and_never_forwarded() {
    let server = Server::start();
    let (mut agent, session) = start(&server);
    let id = prompt(&mut agent, &session, "call bad_schema");
    let messages = until_response(&mut agent, id);
    assert!(
        messages.iter().all(|m| m["method"] != "elicitation/create"),
        "{messages:?}"
    );
    let answers = server.answers();
    let (_, answer) = answers
        .iter()
        .find(|(tool, _)| tool == "bad_schema")
        .unwrap_or_else(|| panic!("the server got no answer: {answers:?}"));
    let error = answer["error"].as_str().unwrap_or_default();
    // The reason, with where it is.
    assert!(
        error.contains("/requestedSchema") || error.contains("minimum"),
        "{answer}"
    );
    assert!(error.contains("not forwarded"), "{answer}");
}

// covers: M5, F3
#[test]
fn legacy_enum_names_reach_acp_as_one_of() {
    let server = Server::start();
    let (mut agent, session) = start(&server);
    let id = prompt(&mut agent, &session, "call legacy_names");
    let create = next_request(&mut agent);
    assert_eq!(create["method"], "elicitation/create", "{create}");
    common::assert_valid_acp("CreateElicitationRequest", &create["params"]);
    let size = &create["params"]["requestedSchema"]["properties"]["size"];
    assert_eq!(
        size["oneOf"],
        json!([{ "const": "s", "title": "Small" }, { "const": "l", "title": "Large" }]),
        "{size}"
    );
    assert!(size.get("enumNames").is_none(), "{size}");
    agent.answer(
        create["id"].clone(),
        json!({ "action": "accept", "content": { "size": "l" } }),
    );
    until_response(&mut agent, id);
    let answers = server.answers();
    assert_eq!(
        answers.last().map(|(_, a)| a.clone()),
        Some(json!({ "action": "accept", "content": { "size": "l" } })),
        "{answers:?}"
    );
}

#[test]
fn a_cancelled_mcp_request_withdraws_the_acp_elicitation() {
    let server = Server::start();
    let (mut agent, session) = start(&server);
    let id = prompt(&mut agent, &session, "call abandon");
    let create = next_request(&mut agent);
    assert_eq!(create["method"], "elicitation/create", "{create}");
    server.cancel_now.notify_one();
    let withdrawn = next_request(&mut agent);
    assert_eq!(withdrawn["method"], "$/cancel_request", "{withdrawn}");
    common::assert_valid_acp_versions(&["v1"], "CancelRequestNotification", &withdrawn["params"]);
    assert_eq!(
        withdrawn["params"]["requestId"], create["id"],
        "{withdrawn}"
    );
    let messages = until_response(&mut agent, id);
    let text: String = messages
        .iter()
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect();
    assert!(text.contains("abandoned"), "{messages:?}");
}

// covers: M4, U1, U2, U4, U5
#[test]
fn a_url_elicitation_required_error_is_asked_completed_and_the_call_made_again() {
    let server = Server::start();
    let (mut agent, session) = start(&server);
    let id = prompt(&mut agent, &session, "call needs_link");
    let mut before = Vec::new();
    let create = loop {
        let message = agent.recv();
        if message["method"] != "session/update" {
            break message;
        }
        before.push(message);
    };
    assert_eq!(
        create["method"], "elicitation/create",
        "{create} after {before:?}"
    );
    let params = &create["params"];
    common::assert_valid_acp("CreateElicitationRequest", params);
    assert_eq!(params["mode"], "url", "{params}");
    assert_eq!(params["sessionId"], session, "{params}");
    assert!(params["toolCallId"].is_string(), "{params}");
    let acp_id = params["elicitationId"].as_str().expect("an id").to_owned();
    // A fresh id, bound to this ACP connection: not the MCP server's.
    assert_ne!(acp_id, LINK_ID);
    agent.answer(create["id"].clone(), json!({ "action": "accept" }));
    // The page reports back to the MCP server, which completes its elicitation. The
    // pause lets the agent record the consent first: a completion for an id it has not
    // consented to is ignored (U6), and the test would then wait in vain.
    std::thread::sleep(Duration::from_secs(1));
    server.complete_now.notify_one();
    let complete = next_request(&mut agent);
    assert_eq!(complete["method"], "elicitation/complete", "{complete}");
    common::assert_valid_acp("CompleteElicitationNotification", &complete["params"]);
    assert_eq!(complete["params"]["elicitationId"], acp_id, "{complete}");
    let messages = until_response(&mut agent, id);
    let text: String = messages
        .iter()
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect();
    assert!(text.contains("linked"), "{messages:?}");
}

// covers: S1
#[test]
fn a_url_the_agents_policy_refuses_is_never_sent_to_the_acp_client() {
    let server = Server::start();
    let (mut agent, session) = start(&server);
    let id = prompt(&mut agent, &session, "call leaky_url");
    let messages = until_response(&mut agent, id);
    assert!(
        messages.iter().all(|m| m["method"] != "elicitation/create"),
        "{messages:?}"
    );
    let answers = server.answers();
    let (_, answer) = answers
        .iter()
        .find(|(tool, _)| tool == "leaky_url")
        .unwrap_or_else(|| panic!("the server got no answer: {answers:?}"));
    let error = answer["error"].as_str().unwrap_or_default();
    assert!(error.contains("not asked over ACP"), "{answer}");
    // The refusal does not repeat the value it refused (U3).
    assert!(!error.contains("abc"), "{answer}");
}
