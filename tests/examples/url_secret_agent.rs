//! Drives `examples/url_secret_agent.rs` as an ACP client and a user's browser would:
//! the client consents to the URL-mode request, the "browser" opens the link and
//! submits the key over real HTTP, and the agent sends `elicitation/complete` and says
//! it received a key, without the key. Every elicitation message is checked against
//! the official ACP schemas (v1 and v2). The child is killed on drop; every read is
//! bounded.
#![cfg(all(feature = "agent-client-protocol", feature = "axum"))]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use crate::acp_agent::AgentProcess;
use crate::common;

/// The key the user types on the page.
const KEY: &str = "sk-live-4f9a0c1d2e3b4a5f";

fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("url_secret_agent"))
}

fn start() -> AgentProcess {
    AgentProcess::spawn(binary(), "elicit-url-secret-agent", &[])
}

/// One HTTP/1.1 exchange on a fresh connection: status, headers (lowercased names)
/// and body.
fn http(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_at(rest.find('/').expect("a path"));
    let mut stream = TcpStream::connect(host).expect("the page listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("the page answers");
    let (head, body) = raw.split_once("\r\n\r\n").expect("an HTTP reply");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// Opens the link as a browser does; returns the page and the cookie it set.
fn open(url: &str) -> (String, String) {
    let (status, headers, body) = http(url, "GET", &[("Sec-Fetch-Site", "none")], "");
    assert_eq!(status, 200, "{body}");
    let cookie = headers
        .iter()
        .find(|(n, _)| n == "set-cookie")
        .and_then(|(_, v)| v.split(';').next())
        .expect("the page binds the browser")
        .to_owned();
    (body, cookie)
}

/// Submits the page's form from the page.
fn submit(url: &str, cookie: &str, body: &str) -> (u16, String) {
    let origin = url.split("/elicit/").next().unwrap();
    let (status, _, body) = http(
        url,
        "POST",
        &[
            ("Origin", origin),
            ("Sec-Fetch-Site", "same-origin"),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", cookie),
        ],
        body,
    );
    (status, body)
}

/// The turn up to the client's consent: the agent, session, prompt id, the request's
/// params.
fn consented() -> (AgentProcess, String, i64, Value) {
    let mut agent = start();
    let session = agent.open_session(json!({ "elicitation": { "url": {} } }));
    let prompt = agent.prompt(&session);
    let (id, params) = agent.expect_create();
    assert_eq!(params["mode"], "url", "{params}");
    assert_eq!(params["sessionId"], session);
    let url = params["url"].as_str().unwrap();
    let token = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split_once("/elicit/"))
        .map(|(_, token)| token)
        .unwrap_or_else(|| panic!("the link is the loopback page and a token: {url}"));
    // S1: the token and nothing else, 256 bits in hex.
    assert_eq!(token.len(), 64, "{url}");
    assert!(token.bytes().all(|c| c.is_ascii_hexdigit()), "{url}");
    agent.answer(id, json!({ "action": "accept" }));
    (agent, session, prompt, params)
}

// covers: F6, U1, U2, U3, U5, S1, S6
#[test]
fn the_key_typed_on_the_page_reaches_the_agent_and_only_the_agent() {
    let (mut agent, session, prompt, params) = consented();
    let url = params["url"].as_str().unwrap();
    let (page, cookie) = open(url);
    assert!(page.contains("Connect your deploy account"), "{page}");
    assert!(page.contains(r#"type="password""#), "{page}");
    assert!(page.contains("Europe (Ireland)"), "{page}");

    // Too short: the page again with the error, and the agent still waiting.
    let (status, body) = submit(
        url,
        &cookie,
        "f.api_key=short&f.region=eu-west&elicit-action=accept",
    );
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("at least 16"), "{body}");

    let form = format!("f.api_key={KEY}&f.region=us-east&elicit-action=accept");
    let (status, body) = submit(url, &cookie, &form);
    assert_eq!(status, 200, "{body}");

    // U5: the completion, with the original id, then the turn.
    let complete = agent.recv();
    assert_eq!(complete["method"], "elicitation/complete", "{complete}");
    assert!(complete.get("id").is_none(), "a notification: {complete}");
    assert_eq!(complete["params"]["elicitationId"], params["elicitationId"]);
    common::assert_valid_acp("CompleteElicitationNotification", &complete["params"]);
    let text = agent.expect_turn_end(&session, prompt);
    assert!(
        text.contains(&format!("API key of {} characters", KEY.len())),
        "{text}"
    );
    assert!(text.contains("UsEast"), "{text}");
    // U3: the key never goes back over ACP.
    assert!(!text.contains(KEY), "{text}");

    // The link is spent: a replay is refused and the agent sends nothing more.
    let (status, _) = submit(url, &cookie, &form);
    assert_eq!(status, 410);
    let (status, _, _) = http(url, "GET", &[("Cookie", &cookie)], "");
    assert_eq!(status, 410);
}

// covers: R1, U5
#[test]
fn declining_on_the_page_ends_the_turn_without_a_key() {
    let (mut agent, session, prompt, params) = consented();
    let url = params["url"].as_str().unwrap();
    let (_, cookie) = open(url);
    let (status, _) = submit(url, &cookie, "f.api_key=&elicit-action=decline");
    assert_eq!(status, 200);
    let complete = agent.recv();
    assert_eq!(complete["method"], "elicitation/complete", "{complete}");
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("declined"), "{text}");
}

/// F6: a client without URL mode is not asked in a form instead.
// covers: C7, F6
#[test]
fn a_client_without_url_mode_gets_no_form() {
    let mut agent = start();
    let session = agent.open_session(json!({ "elicitation": { "form": {} } }));
    let prompt = agent.prompt(&session);
    let text = agent.expect_turn_end(&session, prompt);
    assert!(text.contains("must never be asked for in a form"), "{text}");
}
