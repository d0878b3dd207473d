//! What the tests of `examples/mcp_server.rs` over Streamable HTTP share
//! (`mcp_server_http.rs`, one or two instances; `mcp_fleet.rs`, three): the built
//! example as child processes, a recording proxy between a client and an instance
//! (only `Host` is set to the instance's, as a reverse proxy does) that keeps the
//! JSON-RPC messages as they crossed, rmcp's client over Streamable HTTP, and a
//! browser driven by hand (one request per connection, every header written).
//!
//! Every wait is bounded (`rmcp_wire::LIMIT`); every child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url", feature = "axum"))]
// Each including test module uses a part of it.
#![allow(dead_code)]

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
use futures::StreamExt;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

use crate::common;
use crate::protocol_support::rmcp_wire::{
    assert_valid_messages, bounded, eventually, tool_text, Side, TestClient,
};

pub(crate) const MCP: &str = "2025-11-25";

pub(crate) fn example() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("mcp_server"))
}

/// One instance of the example, serving Streamable HTTP; killed when dropped.
pub(crate) struct Instance {
    pub(crate) addr: SocketAddr,
    pub(crate) child: Child,
}

/// The `ELICIT_ROUND_KEY` every instance started with `--redis` shares.
pub(crate) const ROUND_KEY_HEX: &str =
    "5ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea15ea1";

/// The relay key of those instances, for a relay the test runs itself.
#[cfg(feature = "redis")]
pub(crate) fn relay_key() -> elicit::agent::RelayKey {
    let bytes: Vec<u8> = (0..64)
        .step_by(2)
        .map(|i| u8::from_str_radix(&ROUND_KEY_HEX[i..i + 2], 16).unwrap())
        .collect();
    elicit::agent::RelayKey::derived_from(&elicit::rmcp::input::RoundKey::from_bytes(
        bytes.try_into().unwrap(),
    ))
}

impl Instance {
    /// Starts `mcp_server --http 127.0.0.1:0 ARGS` and waits for the one stdout line
    /// that says where it listens.
    pub(crate) async fn start(args: &[&str]) -> Instance {
        let mut command = Command::new(example());
        if args.contains(&"--redis") {
            // The deployment's shared key: `--redis` derives the relay's key from it.
            command.env("ELICIT_ROUND_KEY", ROUND_KEY_HEX);
        }
        let mut child = command
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
        Instance { addr, child }
    }

    /// Kills the instance (`SIGKILL`: no shutdown of its own) and waits for it to be gone.
    pub(crate) async fn kill(&mut self) {
        self.child.kill().await.expect("the instance is killed");
    }
}

/// A port nothing listens on: the deployment's public origin (its load balancer's).
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// What crossed the proxy.
#[derive(Default)]
pub(crate) struct Recorded {
    pub(crate) messages: Vec<(Side, Value)>,
    /// `Mcp-Session-Id` of each response that had one.
    pub(crate) issued_sessions: Vec<String>,
    /// `Mcp-Session-Id` of each request, `None` for a request without one.
    pub(crate) sent_sessions: Vec<Option<String>>,
}

#[derive(Clone, Default)]
pub(crate) struct Wire(pub(crate) Arc<Mutex<Recorded>>);

impl Wire {
    pub(crate) fn push(&self, side: Side, message: Value) {
        let mut recorded = self.0.lock().unwrap();
        match message {
            // A JSON-RPC batch: each message on its own.
            Value::Array(batch) => recorded
                .messages
                .extend(batch.into_iter().map(|m| (side, m))),
            message => recorded.messages.push((side, message)),
        }
    }

    pub(crate) fn messages(&self) -> Vec<(Side, Value)> {
        self.0.lock().unwrap().messages.clone()
    }

    pub(crate) fn creates(&self) -> Vec<Value> {
        self.messages()
            .into_iter()
            .filter(|(side, m)| *side == Side::Server && m["method"] == "elicitation/create")
            .map(|(_, m)| m)
            .collect()
    }

    pub(crate) fn completions(&self) -> Vec<String> {
        self.messages()
            .into_iter()
            .filter(|(side, m)| {
                *side == Side::Server && m["method"] == "notifications/elicitation/complete"
            })
            .map(|(_, m)| m["params"]["elicitationId"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Checks every elicitation message against the official schema
    /// (`rmcp_wire::assert_valid_messages`, the check of the stdio tests too). Returns
    /// how many were checked.
    pub(crate) fn assert_valid(&self) -> usize {
        assert_valid_messages(&self.messages())
    }
}

/// The `data` of complete SSE events, as bytes arrive.
#[derive(Default)]
pub(crate) struct SseEvents(String);

impl SseEvents {
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
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
pub(crate) struct ProxyState {
    pub(crate) upstream: SocketAddr,
    pub(crate) client: Client<HttpConnector, Body>,
    pub(crate) wire: Wire,
}

/// The recording proxy in front of one instance, on 127.0.0.1; stopped when dropped.
pub(crate) struct Proxy {
    pub(crate) addr: SocketAddr,
    pub(crate) wire: Wire,
    pub(crate) task: tokio::task::JoinHandle<()>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Proxy {
    pub(crate) async fn start(upstream: SocketAddr) -> Proxy {
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

    pub(crate) fn mcp_url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

/// Passes one request on to the instance and its response back, recording both.
pub(crate) async fn relay(State(proxy): State<ProxyState>, request: Request) -> Response {
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
    // An instance that is gone (killed by a test) is a `502`, as a reverse proxy says.
    let response = match proxy
        .client
        .request(Request::from_parts(parts, Body::from(body)))
        .await
    {
        Ok(response) => response,
        Err(error) => {
            let mut response = Response::new(Body::from(format!("the instance is gone: {error}")));
            *response.status_mut() = axum::http::StatusCode::BAD_GATEWAY;
            return response;
        }
    };
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
pub(crate) async fn connect(
    url: &str,
    handler: TestClient,
) -> RunningService<RoleClient, TestClient> {
    bounded(
        "initialize",
        handler.serve(StreamableHttpClientTransport::from_uri(url)),
    )
    .await
    .expect("the client initializes over Streamable HTTP")
}

/// A client declaring URL mode, consenting to every URL-mode request.
pub(crate) fn consenting() -> TestClient {
    TestClient::new(Some(json!({ "url": {} })), |request| {
        let request = serde_json::to_value(request).unwrap();
        assert_eq!(request["mode"], "url", "only URL mode is asked: {request}");
        Ok(ElicitResult::new(ElicitationAction::Accept))
    })
}

/// The text of a tool result that is not an error.
#[track_caller]
pub(crate) fn text_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "not an error: {result:?}");
    tool_text(result)
}

/// One HTTP/1.1 exchange, every header as given (`Host` the instance's unless given):
/// the status, the headers, and the body when it has a `Content-Length` (a stream's
/// status is enough here).
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

pub(crate) async fn request(
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
pub(crate) struct Browser {
    pub(crate) origin: String,
    pub(crate) host: String,
}

impl Browser {
    pub(crate) fn at(origin: &str) -> Browser {
        Browser {
            origin: origin.to_owned(),
            host: origin.trim_start_matches("http://").to_owned(),
        }
    }

    /// The path of a page link, which must be at the public origin under `/elicit/`.
    pub(crate) fn path_of(&self, url: &str) -> String {
        let path = url
            .strip_prefix(&self.origin)
            .unwrap_or_else(|| panic!("the link is at the public origin {}: {url}", self.origin));
        assert!(path.starts_with("/elicit/"), "under /elicit/: {url}");
        path.to_owned()
    }

    /// Opens the link on `instance`: the page and its cookie.
    pub(crate) async fn open(&self, instance: SocketAddr, path: &str) -> (Reply, String) {
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
    pub(crate) async fn submit(
        &self,
        instance: SocketAddr,
        path: &str,
        cookie: &str,
        form: &str,
    ) -> Reply {
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
    pub(crate) async fn fill(
        &self,
        instance: SocketAddr,
        url: &str,
        form: &str,
    ) -> (Reply, String, String) {
        let path = self.path_of(url);
        let (shown, cookie) = self.open(instance, &path).await;
        assert_eq!(shown.status, 200, "the page is shown: {}", shown.body);
        assert!(!cookie.is_empty(), "the page binds this browser: {shown:?}");
        let done = self.submit(instance, &path, &cookie, form).await;
        (done, path, cookie)
    }
}

/// The URL of the one `elicitation/create` that crossed `wire`, once it has.
pub(crate) async fn requested_url(wire: &Wire) -> String {
    eventually("the elicitation/create", || !wire.creates().is_empty()).await;
    let creates = wire.creates();
    assert_eq!(creates.len(), 1, "{creates:?}");
    creates[0]["params"]["url"]
        .as_str()
        .expect("a URL-mode request")
        .to_owned()
}

/// A real `redis-server` on loopback, as the store's own tests start it.
#[cfg(feature = "redis")]
#[path = "../../elicit-core/tests/security/redis_server.rs"]
pub(crate) mod redis_server;
