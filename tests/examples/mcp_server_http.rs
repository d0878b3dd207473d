//! Drives `examples/mcp_server.rs` over Streamable HTTP (`--http`): the built example
//! runs as child processes on free loopback ports, and rmcp's own client (its reqwest
//! Streamable HTTP transport) talks to them. Between a client and an instance sits a
//! recording proxy on loopback, which passes every request and response through as it
//! is (only `Host` is set to the instance's, as a reverse proxy does) and keeps the JSON-RPC messages as they crossed (the POST bodies, and the `data`
//! of each SSE event) and the `Mcp-Session-Id` headers: every elicitation message is
//! checked against the official MCP 2025-11-25 schema.
//!
//! The secure page mounted in each instance is driven the way a browser would (one
//! request per connection, every header written by hand): open the link, keep the
//! cookie, submit the form from the page's own origin.
//!
//! With feature `redis`, two instances share one real `redis-server` (started by the
//! test on loopback, without persistence, stopped by it; skipped with a message
//! without `CI`, failing with it): a `-32042` flow whose retried call lands on the other
//! instance, and a page token replayed on the other instance.
//!
//! Every wait is bounded (`rmcp_wire::LIMIT`); every child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url", feature = "axum"))]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};

use ::rmcp::model::{CallToolResult, ElicitResult, ElicitationAction};
use ::rmcp::service::{RoleClient, RunningService};
use ::rmcp::transport::StreamableHttpClientTransport;
use ::rmcp::ServiceExt;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::Router;
use elicit::protocol::mcp::URL_ELICITATION_REQUIRED;
use futures::StreamExt;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::common;
use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{bounded, call_tool, eventually, tool_text, TestClient};

const MCP: &str = "2025-11-25";

fn example() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("mcp_server"))
}

/// One instance of the example, serving Streamable HTTP; killed when dropped.
struct Instance {
    addr: SocketAddr,
    _child: Child,
}

impl Instance {
    /// Starts `mcp_server --http 127.0.0.1:0 ARGS` and waits for the one stdout line
    /// that says where it listens.
    async fn start(args: &[&str]) -> Instance {
        let mut child = Command::new(example())
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the example starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        bounded(
            "the listening line",
            BufReader::new(stdout).read_line(&mut line),
        )
        .await
        .expect("the example's stdout");
        let addr = line
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.strip_suffix("/mcp"))
            .and_then(|addr| addr.parse().ok())
            .unwrap_or_else(|| panic!("not `http://ADDR/mcp`: {line:?}"));
        Instance {
            addr,
            _child: child,
        }
    }
}

/// A port nothing listens on: the deployment's public origin (its load balancer's).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Server,
    Client,
}

/// What crossed the proxy.
#[derive(Default)]
struct Recorded {
    messages: Vec<(Side, Value)>,
    /// `Mcp-Session-Id` of each response that had one.
    issued_sessions: Vec<String>,
    /// `Mcp-Session-Id` of each request, `None` for a request without one.
    sent_sessions: Vec<Option<String>>,
}

#[derive(Clone, Default)]
struct Wire(Arc<Mutex<Recorded>>);

impl Wire {
    fn push(&self, side: Side, message: Value) {
        let mut recorded = self.0.lock().unwrap();
        match message {
            // A JSON-RPC batch: each message on its own.
            Value::Array(batch) => recorded
                .messages
                .extend(batch.into_iter().map(|m| (side, m))),
            message => recorded.messages.push((side, message)),
        }
    }

    fn messages(&self) -> Vec<(Side, Value)> {
        self.0.lock().unwrap().messages.clone()
    }

    fn creates(&self) -> Vec<Value> {
        self.messages()
            .into_iter()
            .filter(|(side, m)| *side == Side::Server && m["method"] == "elicitation/create")
            .map(|(_, m)| m)
            .collect()
    }

    fn completions(&self) -> Vec<String> {
        self.messages()
            .into_iter()
            .filter(|(side, m)| {
                *side == Side::Server && m["method"] == "notifications/elicitation/complete"
            })
            .map(|(_, m)| m["params"]["elicitationId"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Checks every elicitation message against the official schema, as
    /// `rmcp_wire::Wire::assert_valid` does over stdio. Returns how many were checked.
    fn assert_valid(&self) -> usize {
        let mut checked = 0;
        let mut elicitation_ids = Vec::new();
        for (side, message) in self.messages() {
            match (side, message["method"].as_str()) {
                (Side::Server, Some("elicitation/create")) => {
                    assert_mcp(MCP, "ElicitRequest", &message);
                    elicitation_ids.push(message["id"].clone());
                    checked += 1;
                }
                (Side::Server, Some("notifications/elicitation/complete")) => {
                    assert_mcp(MCP, "ElicitationCompleteNotification", &message);
                    checked += 1;
                }
                (Side::Client, None) if elicitation_ids.contains(&message["id"]) => {
                    if message.get("error").is_some() {
                        assert_mcp(MCP, "JSONRPCErrorResponse", &message);
                    } else {
                        assert_mcp(MCP, "JSONRPCResultResponse", &message);
                        assert_mcp(MCP, "ElicitResult", &message["result"]);
                    }
                    checked += 1;
                }
                (Side::Server, None) if message["error"]["code"] == URL_ELICITATION_REQUIRED => {
                    assert_mcp(MCP, "URLElicitationRequiredError", &message);
                    checked += 1;
                }
                _ => {}
            }
        }
        checked
    }
}

/// The `data` of complete SSE events, as bytes arrive.
#[derive(Default)]
struct SseEvents(String);

impl SseEvents {
    fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        self.0.push_str(&String::from_utf8_lossy(bytes));
        let mut events = Vec::new();
        while let Some(end) = self.0.find("\n\n") {
            let event: String = self.0.drain(..end + 2).collect();
            let data: Vec<&str> = event
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(|data| data.strip_prefix(' ').unwrap_or(data))
                .collect();
            if !data.is_empty() {
                events.push(data.join("\n"));
            }
        }
        events
    }
}

#[derive(Clone)]
struct ProxyState {
    upstream: SocketAddr,
    client: Client<HttpConnector, Body>,
    wire: Wire,
}

/// The recording proxy in front of one instance, on 127.0.0.1; stopped when dropped.
struct Proxy {
    addr: SocketAddr,
    wire: Wire,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    async fn start(upstream: SocketAddr) -> Proxy {
        let wire = Wire::default();
        let state = ProxyState {
            upstream,
            client: Client::builder(TokioExecutor::new()).build_http(),
            wire: wire.clone(),
        };
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("a loopback port for the proxy");
        let addr = listener.local_addr().unwrap();
        let app = Router::new().fallback(relay).with_state(state);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Proxy { addr, wire, task }
    }

    fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// Passes one request on to the instance and its response back, recording both.
async fn relay(State(proxy): State<ProxyState>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .expect("the client's body");
    {
        let mut recorded = proxy.wire.0.lock().unwrap();
        let session = parts.headers.get("mcp-session-id");
        recorded
            .sent_sessions
            .push(session.and_then(|v| v.to_str().ok()).map(str::to_owned));
    }
    if !body.is_empty() {
        let message = serde_json::from_slice(&body)
            .unwrap_or_else(|e| panic!("the client sent no JSON ({e}): {body:?}"));
        proxy.wire.push(Side::Client, message);
    }
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    parts.uri = format!("http://{}{path}", proxy.upstream)
        .parse()
        .expect("an upstream URI");
    parts.headers.insert(
        header::HOST,
        HeaderValue::from_str(&proxy.upstream.to_string()).unwrap(),
    );
    let response = proxy
        .client
        .request(Request::from_parts(parts, Body::from(body)))
        .await
        .expect("the instance answers the proxy");
    let (parts, body) = response.into_parts();
    if let Some(session) = parts.headers.get("mcp-session-id") {
        let session = session.to_str().expect("an ASCII session id").to_owned();
        proxy.wire.0.lock().unwrap().issued_sessions.push(session);
    }
    let is_sse = parts
        .headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if !is_sse {
        let bytes = axum::body::to_bytes(Body::new(body), 1 << 20)
            .await
            .expect("the instance's body");
        if let Ok(message) = serde_json::from_slice::<Value>(&bytes) {
            proxy.wire.push(Side::Server, message);
        }
        return Response::from_parts(parts, Body::from(bytes));
    }
    // SSE: passed on as it streams, each event's data recorded when it is whole.
    let wire = proxy.wire.clone();
    let mut events = SseEvents::default();
    let stream = Body::new(body).into_data_stream().map(move |chunk| {
        if let Ok(bytes) = &chunk {
            for data in events.feed(bytes) {
                if let Ok(message) = serde_json::from_str::<Value>(&data) {
                    wire.push(Side::Server, message);
                }
            }
        }
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

/// rmcp's client over Streamable HTTP at `url`.
async fn connect(url: &str, handler: TestClient) -> RunningService<RoleClient, TestClient> {
    bounded(
        "initialize",
        handler.serve(StreamableHttpClientTransport::from_uri(url)),
    )
    .await
    .expect("the client initializes over Streamable HTTP")
}

/// A client declaring URL mode, consenting to every URL-mode request.
fn consenting() -> TestClient {
    TestClient::new(Some(json!({ "url": {} })), |request| {
        let request = serde_json::to_value(request).unwrap();
        assert_eq!(request["mode"], "url", "only URL mode is asked: {request}");
        Ok(ElicitResult::new(ElicitationAction::Accept))
    })
}

/// The text of a tool result that is not an error.
fn text_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "not an error: {result:?}");
    tool_text(result)
}

/// One HTTP/1.1 exchange, every header as given (`Host` the instance's unless given):
/// the status, the headers, and the body when it has a `Content-Length` (a stream's
/// status is enough here).
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    bounded(&format!("{method} {path}"), async {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("the instance listens");
        stream.write_all(head.as_bytes()).await.expect("written");
        // A server may answer and close before it read a refused body.
        let _ = stream.write_all(body).await;
        let mut raw = Vec::new();
        let mut buffer = [0u8; 8192];
        loop {
            let text = String::from_utf8_lossy(&raw).into_owned();
            if let Some((head, rest)) = text.split_once("\r\n\r\n") {
                let mut lines = head.split("\r\n");
                let status = lines
                    .next()
                    .and_then(|l| l.split(' ').nth(1))
                    .and_then(|s| s.parse().ok())
                    .unwrap_or_else(|| panic!("not an HTTP reply: {text:?}"));
                let headers: Vec<(String, String)> = lines
                    .filter_map(|l| l.split_once(':'))
                    .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
                    .collect();
                let length = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                    .and_then(|(_, v)| v.parse::<usize>().ok());
                match length {
                    Some(length) if rest.len() < length => {}
                    _ => {
                        return Reply {
                            status,
                            headers,
                            body: length.map_or(String::new(), |_| rest.to_owned()),
                        }
                    }
                }
            }
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => panic!("the connection closed before a whole reply: {raw:?}"),
                Ok(n) => raw.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
}

/// A browser at the deployment's public origin, whose requests the test sends to the
/// instance it chooses (as a load balancer would).
struct Browser {
    origin: String,
    host: String,
}

impl Browser {
    fn at(origin: &str) -> Browser {
        Browser {
            origin: origin.to_owned(),
            host: origin.trim_start_matches("http://").to_owned(),
        }
    }

    /// The path of a page link, which must be at the public origin under `/elicit/`.
    fn path_of(&self, url: &str) -> String {
        let path = url
            .strip_prefix(&self.origin)
            .unwrap_or_else(|| panic!("the link is at the public origin {}: {url}", self.origin));
        assert!(path.starts_with("/elicit/"), "under /elicit/: {url}");
        path.to_owned()
    }

    /// Opens the link on `instance`: the page and its cookie.
    async fn open(&self, instance: SocketAddr, path: &str) -> (Reply, String) {
        let shown = request(
            instance,
            "GET",
            path,
            &[("Host", &self.host), ("Sec-Fetch-Site", "none")],
            b"",
        )
        .await;
        let cookie = shown
            .header("set-cookie")
            .and_then(|c| c.split(';').next())
            .map(str::to_owned)
            .unwrap_or_default();
        (shown, cookie)
    }

    /// Submits the page's form from the page, on `instance`.
    async fn submit(&self, instance: SocketAddr, path: &str, cookie: &str, form: &str) -> Reply {
        request(
            instance,
            "POST",
            path,
            &[
                ("Host", &self.host),
                ("Origin", &self.origin),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Cookie", cookie),
            ],
            form.as_bytes(),
        )
        .await
    }

    /// Opens the link and submits `form`, both on `instance`; the submission's reply,
    /// the path and the cookie (for a replay).
    async fn fill(&self, instance: SocketAddr, url: &str, form: &str) -> (Reply, String, String) {
        let path = self.path_of(url);
        let (shown, cookie) = self.open(instance, &path).await;
        assert_eq!(shown.status, 200, "the page is shown: {}", shown.body);
        assert!(!cookie.is_empty(), "the page binds this browser: {shown:?}");
        let done = self.submit(instance, &path, &cookie, form).await;
        (done, path, cookie)
    }
}

/// The URL of the one `elicitation/create` that crossed `wire`, once it has.
async fn requested_url(wire: &Wire) -> String {
    eventually("the elicitation/create", || !wire.creates().is_empty()).await;
    let creates = wire.creates();
    assert_eq!(creates.len(), 1, "{creates:?}");
    creates[0]["params"]["url"]
        .as_str()
        .expect("a URL-mode request")
        .to_owned()
}

const PLAN: &str =
    r#"{"strategy":"Balanced","passes":3,"notify":"ada@example.com","run_tests":false}"#;

// covers: E1, M1, M2, F1, F4
#[tokio::test]
async fn a_form_elicitation_over_streamable_http_end_to_end() {
    let instance = Instance::start(&["--instance", "solo"]).await;
    let proxy = Proxy::start(instance.addr).await;
    let client = connect(
        &proxy.mcp_url(),
        TestClient::new(Some(json!({})), |_| {
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::from_str(PLAN).unwrap()))
        }),
    )
    .await;
    let tools = bounded("tools/list", client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "plan_task",
            "connect_account",
            "save_api_key",
            "link_repository"
        ]
    );
    let text = text_of(&call_tool(&client, "plan_task", json!({ "task": "Tidy up" })).await);
    for said in [
        "strategy Balanced",
        "3 review pass(es)",
        "notify ada@example.com",
        "run tests: false",
    ] {
        assert!(text.contains(said), "{said:?} in {text:?}");
    }
    let creates = proxy.wire.creates();
    assert_eq!(creates.len(), 1);
    let schema = &creates[0]["params"]["requestedSchema"]["properties"];
    let order: Vec<&String> = schema.as_object().expect("properties").keys().collect();
    assert_eq!(order, ["strategy", "passes", "notify", "run_tests"]);
    assert_eq!(proxy.wire.assert_valid(), 2);
    // rmcp's sessions: one id issued at `initialize`, carried by every later request.
    let recorded = proxy.wire.0.lock().unwrap();
    assert_eq!(
        recorded.issued_sessions.len(),
        1,
        "{:?}",
        recorded.issued_sessions
    );
    let session = &recorded.issued_sessions[0];
    assert!(
        session.len() >= 16,
        "an unguessable session id: {session:?}"
    );
    assert_eq!(recorded.sent_sessions[0], None, "initialize has none yet");
    assert!(
        recorded.sent_sessions[1..]
            .iter()
            .all(|sent| sent.as_ref() == Some(session)),
        "{:?}",
        recorded.sent_sessions
    );
}

// covers: U1, U2, U3, U5, F6, S1, S6, M3
#[tokio::test]
async fn save_api_key_goes_through_the_mounted_page_and_says_only_its_length() {
    let instance = Instance::start(&[]).await;
    let origin = format!("http://{}", instance.addr);
    let proxy = Proxy::start(instance.addr).await;
    let handler = consenting();
    let client = connect(&proxy.mcp_url(), handler.clone()).await;
    let browser = Browser::at(&origin);
    const KEY: &str = "sk-live-0123456789abcdefXYZ";
    let (result, (done, _, _)) =
        tokio::join!(call_tool(&client, "save_api_key", json!({})), async {
            let url = requested_url(&proxy.wire).await;
            browser
                .fill(
                    instance.addr,
                    &url,
                    &format!("f.api_key={KEY}&elicit-action=accept"),
                )
                .await
        });
    assert_eq!(done.status, 200, "{}", done.body);
    assert!(done.body.contains("Received"), "{}", done.body);
    let text = text_of(&result);
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text:?}"
    );
    assert!(!text.contains(KEY), "never the key: {text:?}");
    let create = &proxy.wire.creates()[0];
    let id = create["params"]["elicitationId"]
        .as_str()
        .unwrap()
        .to_owned();
    // U3: the key never crossed the client's connection.
    assert!(
        proxy
            .wire
            .messages()
            .iter()
            .all(|(_, m)| !m.to_string().contains(KEY)),
        "the key is not on the MCP wire"
    );
    // rmcp's client hands the notification to its handler on a task of its own.
    eventually("the notification", || !handler.completed().is_empty()).await;
    assert_eq!(handler.completed(), std::slice::from_ref(&id));
    assert_eq!(proxy.wire.completions(), [id]);
    assert_eq!(proxy.wire.assert_valid(), 3);
}

// covers: R5, U2
#[tokio::test]
async fn save_api_key_declined_on_the_page_does_nothing() {
    let instance = Instance::start(&[]).await;
    let proxy = Proxy::start(instance.addr).await;
    let client = connect(&proxy.mcp_url(), consenting()).await;
    let browser = Browser::at(&format!("http://{}", instance.addr));
    let (result, (done, _, _)) =
        tokio::join!(call_tool(&client, "save_api_key", json!({})), async {
            let url = requested_url(&proxy.wire).await;
            browser
                .fill(instance.addr, &url, "f.api_key=&elicit-action=decline")
                .await
        });
    assert_eq!(done.status, 200, "{}", done.body);
    let text = text_of(&result);
    assert!(
        text.contains("declined") && text.contains("nothing was done"),
        "{text:?}"
    );
}

/// An `initialize` POST, as rmcp's client sends it, with `extra` headers.
async fn initialize(addr: SocketAddr, extra: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    headers.extend_from_slice(extra);
    request(addr, "POST", "/mcp", &headers, body).await
}

fn initialize_body(padding: usize) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": MCP, "capabilities": {},
            "clientInfo": { "name": "elicit-tests", "version": "1" },
            "_meta": { "padding": "x".repeat(padding) }
        }
    })
    .to_string()
    .into_bytes()
}

// The MCP transport's rule for local servers (its "Security Warning"; no SPEC rule
// names it): a present `Origin` that is not the server's own (or loopback) is refused,
// against DNS rebinding; so is a foreign `Host`.
#[tokio::test]
async fn a_cross_site_origin_or_a_foreign_host_is_refused_with_403() {
    let lb = free_port();
    let origin = format!("http://127.0.0.1:{lb}");
    let instance = Instance::start(&["--public-origin", &origin]).await;
    let body = initialize_body(0);
    for (headers, expected) in [
        (vec![], 200),
        (vec![("Origin", origin.as_str())], 200),
        (vec![("Origin", "http://localhost:5173")], 200),
        (vec![("Origin", "https://evil.example")], 403),
        (vec![("Origin", "http://127.0.0.1.evil.example")], 403),
        (vec![("Origin", "null")], 403),
        (vec![("Host", "evil.example")], 403),
    ] {
        let reply = initialize(instance.addr, &headers, &body).await;
        assert_eq!(reply.status, expected, "{headers:?}: {reply:?}");
        if expected == 403 {
            assert!(reply.body.starts_with("Forbidden:"), "says why: {reply:?}");
            let header = if headers[0].0 == "Host" {
                "Host"
            } else {
                "Origin"
            };
            assert!(reply.body.contains(header), "names the header: {reply:?}");
        }
    }
}

// The bound on what a client can make the server buffer (D12's spirit for the
// transport; no SPEC rule names it): rmcp counts the body as it streams in.
#[tokio::test]
async fn a_body_over_the_bound_is_refused_with_413() {
    let instance = Instance::start(&[]).await;
    // The bound is 256 KiB: an `initialize` just under it is served, one over is not.
    let under = initialize_body(255 * 1024);
    assert_eq!(initialize(instance.addr, &[], &under).await.status, 200);
    let over = initialize_body(300 * 1024);
    let reply = initialize(instance.addr, &[], &over).await;
    assert_eq!(reply.status, 413, "{reply:?}");
}

/// A real `redis-server` on loopback, as the store's own tests start it.
#[cfg(feature = "redis")]
#[path = "../../elicit-core/tests/security/redis_server.rs"]
mod redis_server;

#[cfg(feature = "redis")]
mod shared {
    //! Two instances of one deployment on one `redis-server`.

    use super::*;
    use ::rmcp::model::CallToolRequestParams;
    use ::rmcp::service::ServiceError;

    use super::redis_server::RedisServer;

    /// Instances `a` and `b` on `redis`, behind one public origin.
    async fn deployment(redis: &RedisServer) -> (Instance, Instance, Browser) {
        let origin = format!("http://127.0.0.1:{}", free_port());
        let url = redis.url();
        let start = |name: &'static str| {
            let (url, origin) = (url.clone(), origin.clone());
            async move {
                Instance::start(&[
                    "--redis",
                    &url,
                    "--public-origin",
                    &origin,
                    "--instance",
                    name,
                ])
                .await
            }
        };
        (start("a").await, start("b").await, Browser::at(&origin))
    }

    /// Every value in Redis, for what must not be there.
    fn values(redis: &RedisServer) -> Vec<(String, String)> {
        redis
            .keys()
            .into_iter()
            .map(|key| {
                let value = redis.cli(&["GET", &key]);
                (key, value)
            })
            .collect()
    }

    // covers: M4, U1, U5, S6
    #[tokio::test]
    async fn a_url_required_retry_on_the_other_instance_sees_the_completion() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let (a, b, browser) = deployment(&redis).await;
        let proxy_a = Proxy::start(a.addr).await;
        let handler_a = TestClient::new(Some(json!({ "url": {} })), |_| {
            panic!("-32042 carries the URL: no elicitation/create")
        });
        let client_a = connect(&proxy_a.mcp_url(), handler_a.clone()).await;
        let error = bounded(
            "link_repository on a",
            client_a.call_tool(CallToolRequestParams::new("link_repository")),
        )
        .await
        .expect_err("the first call needs the page");
        let ServiceError::McpError(error) = error else {
            panic!("a JSON-RPC error, not {error:?}");
        };
        assert_eq!(i64::from(error.code.0), URL_ELICITATION_REQUIRED);
        let elicitation = &error.data.as_ref().expect("data")["elicitations"][0];
        assert_eq!(elicitation["mode"], "url");
        let id = elicitation["elicitationId"].as_str().unwrap().to_owned();
        let url = elicitation["url"].as_str().unwrap().to_owned();
        // The page, on the instance that holds the ask.
        const TOKEN: &str = "ghp_0123456789abcdefXYZ";
        let (done, _, _) = browser
            .fill(
                a.addr,
                &url,
                &format!("f.token={TOKEN}&elicit-action=accept"),
            )
            .await;
        assert_eq!(done.status, 200, "{}", done.body);
        eventually("the completion through a", || {
            handler_a.completed().contains(&id)
        })
        .await;
        assert_eq!(proxy_a.wire.completions(), std::slice::from_ref(&id));
        // The client retries; the load balancer sends it to b, a session of its own.
        let client_b = connect(
            &format!("http://{}/mcp", b.addr),
            TestClient::new(Some(json!({ "url": {} })), |_| {
                panic!("nothing more to ask")
            }),
        )
        .await;
        let text = text_of(&call_tool(&client_b, "link_repository", json!({})).await);
        for said in [
            "linked",
            &format!("{} characters", TOKEN.len()),
            &id,
            "instance b",
        ] {
            assert!(text.contains(said), "{said:?} in {text:?}");
        }
        // What b read is in Redis, under the example's prefixes; never the token.
        let stored = values(&redis);
        assert!(
            stored
                .iter()
                .any(|(key, _)| key.starts_with("elicit-mcp-server:link:")),
            "{stored:?}"
        );
        assert!(
            stored.iter().all(|(_, value)| !value.contains(TOKEN)),
            "the token is not in Redis: {stored:?}"
        );
        for (key, _) in &stored {
            assert!(redis.pttl(key) > 0, "{key} has a TTL");
        }
        // The -32042 error and the completion, on a's wire.
        assert_eq!(proxy_a.wire.assert_valid(), 2);
    }

    // covers: S1, S6
    #[tokio::test]
    async fn a_page_token_replayed_on_the_other_instance_is_refused() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let (a, b, browser) = deployment(&redis).await;
        let proxy_a = Proxy::start(a.addr).await;
        let client_a = connect(&proxy_a.mcp_url(), consenting()).await;
        const KEY: &str = "sk-live-0123456789abcdef";
        let form = format!("f.api_key={KEY}&elicit-action=accept");
        let (result, (done, path, cookie)) =
            tokio::join!(call_tool(&client_a, "save_api_key", json!({})), async {
                let url = requested_url(&proxy_a.wire).await;
                browser.fill(a.addr, &url, &form).await
            });
        assert_eq!(done.status, 200, "{}", done.body);
        assert!(text_of(&result).contains(&format!("{} characters", KEY.len())));
        // The same submission again, on b and on a: the ticket in Redis is used. (An
        // instance with a store of its own would not know the token: 404, not 410.)
        for instance in [b.addr, a.addr] {
            let replay = browser.submit(instance, &path, &cookie, &form).await;
            assert_eq!(replay.status, 410, "{replay:?}");
            assert!(replay.body.contains("already used"), "{}", replay.body);
            let (reopened, _) = browser.open(instance, &path).await;
            assert_eq!(reopened.status, 410, "{reopened:?}");
        }
        let token = path.trim_start_matches("/elicit/");
        let ticket = format!("elicit-mcp-server:page:{token}");
        let stored = values(&redis);
        assert!(stored.iter().any(|(key, _)| *key == ticket), "{stored:?}");
        assert!(redis.pttl(&ticket) > 0, "the ticket has a TTL");
        assert!(
            stored.iter().all(|(_, value)| !value.contains(KEY)),
            "the key is not in Redis: {stored:?}"
        );
    }
}
