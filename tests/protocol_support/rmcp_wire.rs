//! rmcp's own client and a relay that records the wire, for the tests that drive
//! `elicit::rmcp` (tests/integration/rmcp.rs, in one process) and the `mcp_server`
//! example (tests/examples/mcp_server.rs, over a child's stdin and stdout).
//!
//! The relay sits between the two ends and copies one line (one JSON-RPC message) at a
//! time, recording it as sent: the tests read raw bytes (the property order) and check
//! every elicitation message against the official MCP 2025-11-25 schema.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, CustomNotification,
    ElicitRequestParams, ElicitResult, ElicitationAction, Implementation, InitializeRequestParams,
    ProtocolVersion,
};
use ::rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService};
use ::rmcp::{ClientHandler, ErrorData};
use elicit::protocol::mcp::URL_ELICITATION_REQUIRED;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::Notify;

use super::assert_mcp;

/// Every wait is bounded: a hang fails the test instead of blocking the suite.
pub const LIMIT: Duration = Duration::from_secs(30);

const MCP: &str = "2025-11-25";

/// Waits for `future`, at most [`LIMIT`].
pub async fn bounded<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(LIMIT, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {LIMIT:?}"))
}

/// Waits until `done` holds, polling, at most [`LIMIT`]: for what rmcp hands to a
/// handler on a task of its own (a notification), after the call that caused it.
pub async fn eventually(what: &str, done: impl Fn() -> bool) {
    bounded(what, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
}

/// An accepted answer with this content.
pub fn accept(content: Value) -> Result<ElicitResult, ErrorData> {
    Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content))
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Side {
    Server,
    Client,
}

/// Every line that crossed the relay, in order, as sent.
#[derive(Clone, Default)]
pub struct Wire(Arc<Mutex<Vec<(Side, String)>>>);

impl Wire {
    pub fn lines(&self) -> Vec<(Side, String)> {
        self.0.lock().unwrap().clone()
    }

    /// The `elicitation/create` requests the server sent, raw.
    pub fn creates(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|(side, line)| *side == Side::Server && method_of(line) == "elicitation/create")
            .map(|(_, line)| line)
            .collect()
    }

    /// The ids of the completion notifications the server sent.
    pub fn completions(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|(side, line)| {
                *side == Side::Server && method_of(line) == "notifications/elicitation/complete"
            })
            .map(|(_, line)| {
                parse(&line)["params"]["elicitationId"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    /// Checks every elicitation message on the wire against the official schema: the
    /// requests, the client's results and errors for them, the completions, and any
    /// `-32042` error. Returns how many were checked.
    pub fn assert_valid(&self) -> usize {
        let messages: Vec<(Side, Value)> = self
            .lines()
            .iter()
            .map(|(side, line)| (*side, parse(line)))
            .collect();
        assert_valid_messages(&messages)
    }
}

/// Checks every elicitation message of a recorded exchange against the official MCP
/// schema: the requests, the client's results and errors for them, the completions,
/// and any `-32042` error. Returns how many were checked. The one check for every
/// transport the tests record (stdio lines here, Streamable HTTP bodies in
/// `tests/examples/mcp_http.rs`).
pub fn assert_valid_messages(messages: &[(Side, Value)]) -> usize {
    let mut checked = 0;
    let mut elicitation_ids = Vec::new();
    for (side, message) in messages {
        match (side, message["method"].as_str()) {
            (Side::Server, Some("elicitation/create")) => {
                assert_mcp(MCP, "ElicitRequest", message);
                elicitation_ids.push(message["id"].clone());
                checked += 1;
            }
            (Side::Server, Some("notifications/elicitation/complete")) => {
                assert_mcp(MCP, "ElicitationCompleteNotification", message);
                checked += 1;
            }
            (Side::Client, None) if elicitation_ids.contains(&message["id"]) => {
                if message.get("error").is_some() {
                    assert_mcp(MCP, "JSONRPCErrorResponse", message);
                } else {
                    assert_mcp(MCP, "JSONRPCResultResponse", message);
                    assert_mcp(MCP, "ElicitResult", &message["result"]);
                }
                checked += 1;
            }
            (Side::Server, None) if message["error"]["code"] == URL_ELICITATION_REQUIRED => {
                assert_mcp(MCP, "URLElicitationRequiredError", message);
                checked += 1;
            }
            _ => {}
        }
    }
    checked
}

pub fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON on the wire ({e}): {line}"))
}

pub fn method_of(line: &str) -> String {
    parse(line)["method"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// How the relay treats the connection.
#[derive(Clone, Default)]
pub struct Relay {
    /// Cut the connection instead of delivering the first `elicitation/create`.
    pub cut_on_create: bool,
    /// Replace the client's results before the server reads them.
    pub corrupt_results: Option<Value>,
}

/// Copies lines from one side to the other, recording each, until either side closes
/// or the connection is cut.
async fn pump(
    from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    side: Side,
    wire: Wire,
    relay: Relay,
    cut: Arc<Notify>,
) {
    let mut lines = BufReader::new(from).lines();
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            () = cut.notified() => return,
        };
        let Ok(Some(mut line)) = line else {
            cut.notify_waiters();
            return;
        };
        if side == Side::Client && parse(&line).get("result").is_some() {
            if let Some(result) = &relay.corrupt_results {
                let mut message = parse(&line);
                message["result"] = result.clone();
                line = message.to_string();
            }
        }
        wire.0.lock().unwrap().push((side, line.clone()));
        if relay.cut_on_create && side == Side::Server && method_of(&line) == "elicitation/create" {
            cut.notify_waiters();
            return;
        }
        if to.write_all(format!("{line}\n").as_bytes()).await.is_err() {
            cut.notify_waiters();
            return;
        }
    }
}

pub type Answer =
    Arc<dyn Fn(&ElicitRequestParams) -> Result<ElicitResult, ErrorData> + Send + Sync>;

/// rmcp's client, declaring `elicitation` as given and answering as the test says.
#[derive(Clone)]
pub struct TestClient {
    elicitation: Option<Value>,
    answer: Answer,
    /// The requests the client was asked, in order.
    pub asked: Arc<Mutex<Vec<ElicitRequestParams>>>,
    completed: Arc<Mutex<Vec<String>>>,
    /// The protocol version the client speaks (2025-11-25 unless changed).
    protocol: ProtocolVersion,
}

impl TestClient {
    pub fn new(
        elicitation: Option<Value>,
        answer: impl Fn(&ElicitRequestParams) -> Result<ElicitResult, ErrorData> + Send + Sync + 'static,
    ) -> Self {
        TestClient {
            elicitation,
            answer: Arc::new(answer),
            asked: Arc::default(),
            completed: Arc::default(),
            protocol: ProtocolVersion::V_2025_11_25,
        }
    }

    /// The same client, speaking `protocol`.
    pub fn speaking(mut self, protocol: ProtocolVersion) -> Self {
        self.protocol = protocol;
        self
    }

    pub fn asked(&self) -> usize {
        self.asked.lock().unwrap().len()
    }

    pub fn completed(&self) -> Vec<String> {
        self.completed.lock().unwrap().clone()
    }
}

impl ClientHandler for TestClient {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.lock().unwrap().push(request.clone());
        (self.answer)(&request)
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/elicitation/complete" {
            let id = notification
                .params
                .as_ref()
                .and_then(|p| p["elicitationId"].as_str());
            self.completed
                .lock()
                .unwrap()
                .push(id.unwrap_or("<no id>").to_owned());
        }
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities = match &self.elicitation {
            Some(elicitation) => serde_json::from_value(json!({ "elicitation": elicitation }))
                .expect("a client capability"),
            None => ClientCapabilities::default(),
        };
        let mut info =
            InitializeRequestParams::new(capabilities, Implementation::new("elicit-tests", "1"));
        info.protocol_version = self.protocol.clone();
        info
    }
}

/// Relays between a server's and a client's (reader, writer) halves, recording the wire.
pub fn relay_between<SR, SW, CR, CW>(server: (SR, SW), client: (CR, CW), relay: Relay) -> Wire
where
    SR: AsyncRead + Unpin + Send + 'static,
    SW: AsyncWrite + Unpin + Send + 'static,
    CR: AsyncRead + Unpin + Send + 'static,
    CW: AsyncWrite + Unpin + Send + 'static,
{
    let wire = Wire::default();
    let cut = Arc::new(Notify::new());
    let (server_read, server_write) = server;
    let (client_read, client_write) = client;
    tokio::spawn(pump(
        server_read,
        client_write,
        Side::Server,
        wire.clone(),
        relay.clone(),
        cut.clone(),
    ));
    tokio::spawn(pump(
        client_read,
        server_write,
        Side::Client,
        wire.clone(),
        relay,
        cut,
    ));
    wire
}

/// Two in-memory pipes with the relay between them: the server's end, the client's end
/// and the wire.
pub fn in_memory(relay: Relay) -> (DuplexStream, DuplexStream, Wire) {
    let (server_io, server_end) = tokio::io::duplex(1 << 16);
    let (client_io, client_end) = tokio::io::duplex(1 << 16);
    let wire = relay_between(
        tokio::io::split(server_end),
        tokio::io::split(client_end),
        relay,
    );
    (server_io, client_io, wire)
}

/// Asserts that the raw message `raw` has these properties in this order (D13): each
/// `"key":{` at a later byte than the one before.
pub fn assert_in_order(raw: &str, keys: &[&str]) {
    let at = |key: &str| {
        raw.find(&format!("\"{key}\":{{"))
            .unwrap_or_else(|| panic!("{key} in {raw}"))
    };
    for pair in keys.windows(2) {
        assert!(
            at(pair[0]) < at(pair[1]),
            "{} before {} in {raw}",
            pair[0],
            pair[1]
        );
    }
}

/// The text of a tool result.
pub fn tool_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|t| t.text.clone()))
        .collect()
}

/// Calls `tool` with `arguments` (an object, or anything else for none) and returns
/// its result; a JSON-RPC error fails the test.
pub async fn call_tool(
    client: &RunningService<RoleClient, TestClient>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    let mut request = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(arguments) = arguments {
        request = request.with_arguments(arguments);
    }
    bounded(tool, client.call_tool(request))
        .await
        .unwrap_or_else(|e| panic!("{tool} failed: {e}"))
}
