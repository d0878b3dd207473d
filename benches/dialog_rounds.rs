//! The cost of one tool body for both MCP versions (feature `rmcp_3`): server CPU per
//! completed tool call that asks once and twice, on MCP 2025-11-25 (the server pushes
//! `elicitation/create` and waits) against MCP 2026-07-28 (the tool answers with an
//! `InputRequiredResult`, its answers sealed in `requestState`, and runs again on each
//! retry), over Streamable HTTP on loopback, and what sealing and opening the state
//! costs per round.
//!
//! ```text
//! cargo bench --bench dialog_rounds --features rmcp_3 [-- --calls N]
//! ```
//!
//! The server is rmcp's `StreamableHttpService` on axum, its tools written once with
//! `elicit::rmcp::Dialog` as `examples/mcp_server.rs` writes them (`ask_once`: the
//! 40-field form of `benches/common/forms.rs`; `ask_twice`: that form, then a one-field
//! confirmation). It runs on a current-thread tokio runtime of its own OS thread, so
//! that the CPU time of that thread (`/proc/self/task/TID/stat`, utime + stime) is
//! the server's work and nothing else; rmcp's client runs on another thread and
//! answers every question with the same valid content. Every call's result is checked.
//!
//! The state's share: the same seal and open `Dialog` does per round (a `Rounds`
//! sealing the carried answers of a round, and opening them on the retry), timed alone
//! on this thread's CPU clock, divided by the server CPU of one 2026-07-28 round.
//!
//! This is a benchmark, not a test: nothing here asserts a time. `benches/PERF.md`
//! quotes its figures.
use std::net::SocketAddr;
use std::sync::mpsc;
use std::time::Duration;

use elicit::rmcp::input::{RoundKey, RoundRequest, Rounds};
use elicit::rmcp::Dialog;
use elicit::{Elicit, Elicited};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    ElicitResult, ElicitationAction, Implementation, InitializeRequestParams, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleClient, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, ErrorData, ServerHandler};
use serde_json::{json, Map};

#[path = "common/forms.rs"]
#[allow(dead_code)]
mod forms;
use forms::{content40, Form40};

/// Go on?
#[derive(Elicit, Debug)]
struct Confirm {
    go: bool,
}

#[derive(Clone)]
struct Server {
    rounds: Rounds,
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

impl Server {
    async fn body(&self, dialog: &Dialog, twice: bool) -> Result<CallToolResult, ErrorData> {
        let Elicited::Accepted(form) = dialog.form::<Form40>("Fill in the form").await? else {
            return Ok(text("declined".into()));
        };
        if twice {
            let Elicited::Accepted(Confirm { go: true }) = dialog.form::<Confirm>("Go on?").await?
            else {
                return Ok(text("stopped".into()));
            };
        }
        Ok(text(format!("ok {}", form.count_1)))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let empty = || Map::from_iter([("type".to_owned(), json!("object"))]);
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("ask_once", "One 40-field form", empty()),
            Tool::new("ask_twice", "A 40-field form, then a confirmation", empty()),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let dialog = Dialog::tool_call(context, &request);
        let twice = request.name == "ask_twice";
        dialog.run(&self.rounds, self.body(&dialog, twice)).await
    }
}

// ToolCallContext is named so that the bench breaks if rmcp's extractor path moves:
// the docs tell macro users to take `Dialog` through it.
#[allow(dead_code)]
type MacroContext<'a> = ToolCallContext<'a, Server>;

/// The client: answers every form with what it asks for.
#[derive(Clone)]
struct Answering {
    protocol: ProtocolVersion,
}

impl ClientHandler for Answering {
    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let schema = serde_json::to_value(&request).unwrap_or_default();
        let content = if schema.pointer("/requestedSchema/properties/go").is_some() {
            json!({ "go": true })
        } else {
            content40()
        };
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({ "elicitation": { "form": {} } })).expect("caps");
        let mut info =
            InitializeRequestParams::new(capabilities, Implementation::new("bench", "1"));
        info.protocol_version = self.protocol.clone();
        info
    }
}

/// CPU time (user + system) of one thread of this process, in seconds.
fn thread_cpu(tid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat"))
        .expect("the thread's /proc stat");
    // Fields after the command name (which is in parentheses): utime is the 14th field
    // of the line, stime the 15th; both in clock ticks.
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / clock_ticks_per_second()
}

fn clock_ticks_per_second() -> f64 {
    // Linux's USER_HZ, what /proc reports in; 100 on every platform Rust targets here.
    100.0
}

/// This thread's id, as /proc names it.
fn current_tid() -> String {
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    link.file_name()
        .expect("PID/task/TID")
        .to_string_lossy()
        .into_owned()
}

/// Starts the server on its own thread and runtime; returns its address and thread id.
fn start_server() -> (SocketAddr, String) {
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            // The bench's clients are not authenticated: rounds without a user.
            let rounds = Rounds::new(RoundKey::from_bytes([9; 32])).anonymous();
            let service = StreamableHttpService::new(
                move || {
                    Ok(Server {
                        rounds: rounds.clone(),
                    })
                },
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default(),
            );
            let app = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a loopback port");
            let addr = listener.local_addr().expect("its address");
            sender.send((addr, current_tid())).expect("the bench waits");
            axum::serve(listener, app).await.expect("the server runs");
        });
    });
    receiver
        .recv_timeout(Duration::from_secs(10))
        .expect("the server started")
}

/// Server CPU seconds per call of `tool`, over `calls` calls by a client of `protocol`.
async fn measure(
    addr: SocketAddr,
    tid: &str,
    protocol: ProtocolVersion,
    tool: &str,
    calls: u32,
) -> f64 {
    let handler = Answering {
        protocol: protocol.clone(),
    };
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let lifecycle = if protocol >= ProtocolVersion::V_2026_07_28 {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![protocol],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    let client = handler
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("the client connects");
    let call = || async {
        let result = client
            .call_tool(CallToolRequestParams::new(tool.to_owned()))
            .await
            .expect("the call completes");
        let said = result.content[0].as_text().map(|t| t.text.clone());
        assert_eq!(said.as_deref(), Some("ok 7"), "{result:?}");
    };
    // Warm: first-use caches, connections.
    for _ in 0..10 {
        call().await;
    }
    let before = thread_cpu(tid);
    for _ in 0..calls {
        call().await;
    }
    let spent = thread_cpu(tid) - before;
    let _ = client.cancel().await;
    spent / f64::from(calls)
}

/// CPU seconds of this thread per seal + open of one round's state, as `Dialog` makes
/// it after the 40-field form was answered (the carried answer, one question asked).
fn seal_and_open() -> f64 {
    let rounds = Rounds::new(RoundKey::from_bytes([9; 32])).anonymous();
    let request = RoundRequest::new("tools/call", "ask_twice", None);
    let carried = json!({
        "settled": [{ "q": "0123456789abcdef0123456789abcdef",
                      "r": { "action": "accept", "content": content40() } }],
        "asked": [{ "n": 1, "k": "ask-2", "q": "0123456789abcdef0123456789abcdef", "a": 1 }],
        "memo": []
    });
    let tid = current_tid();
    let n = 2000;
    let before = thread_cpu(&tid);
    for _ in 0..n {
        let mut round = rounds.begin(request.clone());
        let sealed = round.carry(carried.clone()).seal().expect("sealed");
        let state = sealed.request_state.expect("a state");
        let opened = rounds
            .open(&request, Some(&state), None)
            .expect("opens")
            .expect("a state");
        std::hint::black_box(opened.data());
    }
    (thread_cpu(&tid) - before) / f64::from(n)
}

fn main() {
    let mut calls = 300;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--calls" {
            calls = args.next().and_then(|n| n.parse().ok()).expect("--calls N");
        }
    }
    let (addr, tid) = start_server();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    println!(
        "server CPU per completed tool call ({calls} calls each, Streamable HTTP on loopback):"
    );
    let mut per_call = Vec::new();
    for (tool, questions) in [("ask_once", 1.0), ("ask_twice", 2.0)] {
        for protocol in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
            let seconds = runtime.block_on(measure(addr, &tid, protocol.clone(), tool, calls));
            println!("  {tool:<9} {protocol}: {:>7.1} µs", seconds * 1e6);
            per_call.push((tool, protocol, questions, seconds));
        }
    }
    let state = seal_and_open();
    println!(
        "seal + open of one round's state (40-field answer carried): {:.1} µs",
        state * 1e6
    );
    for (tool, protocol, questions, seconds) in &per_call {
        if *protocol >= ProtocolVersion::V_2026_07_28 {
            // A call that asks k questions makes k + 1 requests: k of them end a round
            // by sealing, k of them (the retries) open one: k seals and k opens.
            println!(
                "  {tool} on 2026-07-28: {:.0} requests, {:.1} µs of server work each; \
                 sealing and opening are {:.1} % of the call's server work",
                questions + 1.0,
                seconds / (questions + 1.0) * 1e6,
                100.0 * questions * state / seconds
            );
        }
    }
}
