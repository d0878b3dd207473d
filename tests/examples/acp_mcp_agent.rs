//! Drives `examples/acp_mcp_agent.rs` hosting `examples/mcp_server.rs` (a child over
//! stdio), as an ACP client would: the test speaks newline-delimited JSON-RPC on the
//! agent's real stdin and stdout, and answers the MCP server's elicitations as the
//! person. Three processes, two real wires.
//!
//! Every ACP message of an elicitation is checked against the official ACP schemas (v1
//! and v2), every `session/update` against v1 (v2 has none). Where a test needs to see
//! the MCP wire too, the MCP server is started through `sh -c 'tee FILE | SERVER'`, which
//! records what the agent wrote to it.
// The example needs the ACP SDK, rmcp and URL mode (`elicit::bridge`).
#![cfg(all(feature = "agent-client-protocol", feature = "rmcp_3", feature = "url"))]

use crate::acp_agent::AgentProcess;
use crate::common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn agent_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("acp_mcp_agent"))
}

fn server_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("mcp_server"))
}

/// A file the MCP server's side of the wire is recorded into, removed when dropped.
struct Record(PathBuf);

impl Record {
    fn new() -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        Record(std::env::temp_dir().join(format!(
            "elicit-acp-mcp-agent-{}-{n}.jsonl",
            std::process::id()
        )))
    }

    /// The JSON-RPC messages the agent wrote to the MCP server.
    fn messages(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.0)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect()
    }

    /// Waits (bounded) until a message with this method was written to the server.
    fn wait_for(&self, method: &str) -> Vec<Value> {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let messages = self.messages();
            if messages.iter().any(|m| m["method"] == method) || Instant::now() > until {
                return messages;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// One ACP connection to the agent, with a session open.
struct Bridged {
    agent: AgentProcess,
    session: String,
    record: Option<Record>,
    /// The `session/update` params of the turn so far.
    updates: Vec<Value>,
}

/// Starts the agent hosting the MCP server, `initialize` with these ACP client
/// capabilities, `session/new`.
fn start(protocol: Option<&str>, client_capabilities: Value, record: bool) -> Bridged {
    let server = server_binary().to_str().expect("a UTF-8 path").to_owned();
    let record = record.then(Record::new);
    let mut args: Vec<String> = Vec::new();
    if let Some(protocol) = protocol {
        args.extend(["--protocol".into(), protocol.into()]);
    }
    args.push("--".into());
    match &record {
        Some(record) => args.extend([
            "sh".into(),
            "-c".into(),
            "tee \"$0\" | exec \"$1\"".into(),
            record.0.to_str().expect("a UTF-8 path").into(),
            server,
        ]),
        None => args.push(server),
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut agent =
        AgentProcess::spawn_with_args(agent_binary(), "elicit-acp-mcp-agent", &args, &[]);
    let session = agent.open_session(client_capabilities);
    Bridged {
        agent,
        session,
        record,
        updates: Vec::new(),
    }
}

/// What came before the prompt's response, and the response.
#[derive(Default)]
struct Turn {
    updates: Vec<Value>,
    others: Vec<Value>,
    response: Value,
}

impl Turn {
    fn text(&self) -> String {
        self.updates
            .iter()
            .filter(|u| u["update"]["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|u| u["update"]["content"]["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn statuses(&self) -> Vec<String> {
        self.updates
            .iter()
            .filter(|u| u["update"]["sessionUpdate"] == "tool_call_update")
            .filter_map(|u| u["update"]["status"].as_str().map(str::to_owned))
            .collect()
    }
}

impl Bridged {
    fn prompt(&mut self, text: &str) -> i64 {
        self.agent.send_request(
            "session/prompt",
            json!({
                "sessionId": self.session,
                "prompt": [{ "type": "text", "text": text }]
            }),
        )
    }

    /// The next message that is not a `session/update` (each checked and kept in
    /// `self.updates`).
    fn next(&mut self) -> Value {
        loop {
            let message = self.agent.recv();
            if message["method"] == "session/update" {
                assert_valid_v1("SessionNotification", &message["params"]);
                assert_eq!(message["params"]["sessionId"], self.session, "{message}");
                self.updates.push(message["params"].clone());
                continue;
            }
            return message;
        }
    }

    /// The tool call's `elicitation/create`, after its `tool_call` report: returns the
    /// request's id and params, and the tool call id.
    fn expect_create(&mut self) -> (Value, Value, String) {
        let message = self.next();
        let tool_call = self
            .updates
            .iter()
            .find(|u| u["update"]["sessionUpdate"] == "tool_call")
            .unwrap_or_else(|| panic!("no tool_call before the elicitation: {:?}", self.updates));
        let tool_call_id = tool_call["update"]["toolCallId"]
            .as_str()
            .expect("a toolCallId")
            .to_owned();
        assert_eq!(
            message["method"], "elicitation/create",
            "expected an elicitation, got {message}"
        );
        let params = message["params"].clone();
        common::assert_valid_acp("CreateElicitationRequest", &params);
        // The scope: the ACP session and the tool call that caused it.
        assert_eq!(params["sessionId"], self.session, "{params}");
        assert_eq!(params["toolCallId"], tool_call_id, "{params}");
        (message["id"].clone(), params, tool_call_id)
    }

    /// Everything up to the prompt's response.
    fn finish(&mut self, prompt: i64) -> Turn {
        let mut turn = Turn::default();
        loop {
            let message = self.next();
            if message["id"] == prompt && message.get("method").is_none() {
                turn.response = message;
                turn.updates = std::mem::take(&mut self.updates);
                return turn;
            }
            turn.others.push(message);
        }
    }
}

fn assert_valid_v1(def: &str, json: &Value) {
    common::assert_valid_acp_versions(&["v1"], def, json);
}

/// A valid answer to `plan_task`'s form, from the schema the ACP client got.
fn plan_answer(schema: &Value) -> Value {
    let strategy = &schema["properties"]["strategy"];
    let first = strategy["oneOf"][0]["const"]
        .as_str()
        .or_else(|| strategy["enum"][0].as_str())
        .unwrap_or_else(|| panic!("no strategy option: {strategy}"));
    json!({ "strategy": first, "passes": 3, "run_tests": false })
}

const VERSIONS: [Option<&str>; 2] = [Some("2025-11-25"), None];

// covers: E1, E2, E3, E4, F1, F3, D13, C1
#[test]
fn a_form_of_the_mcp_server_is_answered_through_acp_on_both_versions() {
    for protocol in VERSIONS {
        let mut bridged = start(
            protocol,
            json!({ "elicitation": { "form": {}, "url": {} } }),
            false,
        );
        let prompt = bridged.prompt(r#"call plan_task {"task": "tidy the parser"}"#);
        let (id, params, _) = bridged.expect_create();
        assert_eq!(params["mode"], "form", "{params}");
        let schema = &params["requestedSchema"];
        // D13: the server's order reaches the person.
        let order: Vec<&str> = schema["properties"]
            .as_object()
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            order,
            ["strategy", "passes", "notify", "run_tests"],
            "{schema}"
        );
        bridged.agent.answer(
            id,
            json!({ "action": "accept", "content": plan_answer(schema) }),
        );
        let turn = bridged.finish(prompt);
        assert_eq!(
            turn.response["result"]["stopReason"], "end_turn",
            "{:?}",
            turn.response
        );
        let text = turn.text();
        assert!(
            text.contains("3 review pass(es)") && text.contains("run tests: false"),
            "{protocol:?}: {text}"
        );
        assert_eq!(
            turn.statuses(),
            ["in_progress", "completed"],
            "{protocol:?}"
        );
    }
}

// covers: R5
#[test]
fn a_decline_reaches_the_mcp_server() {
    let mut bridged = start(None, json!({ "elicitation": { "form": {} } }), false);
    let prompt = bridged.prompt(r#"call plan_task {"task": "x"}"#);
    let (id, _, _) = bridged.expect_create();
    bridged.agent.answer(id, json!({ "action": "decline" }));
    let turn = bridged.finish(prompt);
    assert!(
        turn.text().contains("You declined the plan"),
        "{}",
        turn.text()
    );
}

// covers: F3
#[test]
fn an_invalid_answer_is_never_passed_to_the_mcp_server() {
    let mut bridged = start(
        Some("2025-11-25"),
        json!({ "elicitation": { "form": {} } }),
        true,
    );
    let prompt = bridged.prompt(r#"call plan_task {"task": "x"}"#);
    let (id, params, _) = bridged.expect_create();
    let mut content = plan_answer(&params["requestedSchema"]);
    content["passes"] = json!(99);
    bridged
        .agent
        .answer(id, json!({ "action": "accept", "content": content }));
    let turn = bridged.finish(prompt);
    let record = bridged.record.as_ref().expect("recorded");
    let messages = record.messages();
    // The answer to the server's request is an error naming the problem; 99 never
    // crosses.
    let answer = messages
        .iter()
        .find(|m| {
            m.get("method").is_none()
                && (m.get("error").is_some() || m["result"].get("action").is_some())
        })
        .unwrap_or_else(|| panic!("no answer to the server's elicitation: {messages:?}"));
    assert!(answer.get("error").is_some(), "{answer}");
    assert!(answer.get("result").is_none(), "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("passes"),
        "{answer}"
    );
    assert_eq!(turn.response["result"]["stopReason"], "end_turn");
}

// covers: U1, U2, U4, U5, M3, S6
#[test]
fn url_consent_and_its_completion_are_carried_across_on_both_versions() {
    for protocol in VERSIONS {
        let mut bridged = start(
            protocol,
            json!({ "elicitation": { "form": {}, "url": {} } }),
            false,
        );
        let prompt = bridged.prompt("call connect_account");
        let (id, params, _) = bridged.expect_create();
        assert_eq!(params["mode"], "url", "{params}");
        assert!(
            params["url"]
                .as_str()
                .is_some_and(|url| url.starts_with("http://127.0.0.1:47616/connect?ref=")),
            "{params}"
        );
        let acp_id = params["elicitationId"]
            .as_str()
            .expect("an ACP elicitationId")
            .to_owned();
        bridged.agent.answer(id, json!({ "action": "accept" }));
        let turn = bridged.finish(prompt);
        // The completion may be written just after the response: wait for it then.
        let mut completions: Vec<Value> = turn
            .others
            .iter()
            .filter(|m| m["method"] == "elicitation/complete")
            .cloned()
            .collect();
        if completions.is_empty() {
            completions.push(bridged.next());
        }
        assert_eq!(completions.len(), 1, "{protocol:?}: {completions:?}");
        let complete = &completions[0];
        assert_eq!(complete["method"], "elicitation/complete", "{complete}");
        common::assert_valid_acp("CompleteElicitationNotification", &complete["params"]);
        assert_eq!(complete["params"]["elicitationId"], acp_id, "{complete}");
        let text = turn.text();
        assert!(text.contains("You consented"), "{protocol:?}: {text}");
        if protocol == Some("2025-11-25") {
            // The MCP id the server completed is not the ACP id: the agent minted its own.
            assert!(text.contains("elicitation "), "{text}");
            assert!(!text.contains(&acp_id), "{text}");
        }
    }
}

// covers: C1, C7, F6
#[test]
fn a_mode_the_acp_client_did_not_declare_is_never_offered_to_the_mcp_server() {
    let mut bridged = start(
        Some("2025-11-25"),
        json!({ "elicitation": { "form": {} } }),
        true,
    );
    let prompt = bridged.prompt("call connect_account");
    let turn = bridged.finish(prompt);
    assert!(
        turn.others
            .iter()
            .all(|m| m["method"] != "elicitation/create"),
        "{:?}",
        turn.others
    );
    assert!(
        turn.text()
            .contains("did not declare the URL elicitation mode"),
        "{}",
        turn.text()
    );
    let messages = bridged.record.as_ref().expect("recorded").messages();
    let initialize = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize: {messages:?}"));
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({ "form": {} }),
        "{initialize}"
    );

    // An ACP client with no mode at all: no elicitation capability upstream.
    let mut bridged = start(Some("2025-11-25"), json!({}), true);
    let prompt = bridged.prompt(r#"call plan_task {"task": "x"}"#);
    let turn = bridged.finish(prompt);
    assert!(
        turn.text().contains("did not declare the form"),
        "{}",
        turn.text()
    );
    let messages = bridged.record.as_ref().expect("recorded").messages();
    let initialize = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize: {messages:?}"));
    assert!(
        initialize["params"]["capabilities"]
            .get("elicitation")
            .is_none(),
        "{initialize}"
    );
}

// covers: C1, C2
#[test]
fn a_2025_06_18_server_is_offered_an_empty_elicitation_capability() {
    // MCP 2025-06-18 knows no modes: `elicitation: {}` means form, and URL mode cannot
    // be offered at all, whatever the ACP client declared.
    let mut bridged = start(
        Some("2025-06-18"),
        json!({ "elicitation": { "form": {}, "url": {} } }),
        true,
    );
    let prompt = bridged.prompt(r#"call plan_task {"task": "x"}"#);
    let (id, params, _) = bridged.expect_create();
    bridged.agent.answer(
        id,
        json!({ "action": "accept", "content": plan_answer(&params["requestedSchema"]) }),
    );
    let turn = bridged.finish(prompt);
    assert!(turn.text().contains("review pass(es)"), "{}", turn.text());
    let messages = bridged.record.as_ref().expect("recorded").messages();
    let initialize = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize: {messages:?}"));
    assert_eq!(
        initialize["params"]["protocolVersion"], "2025-06-18",
        "{initialize}"
    );
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({}),
        "{initialize}"
    );
}

// covers: R5
#[test]
fn session_cancel_withdraws_the_question_and_cancels_the_mcp_request() {
    for protocol in VERSIONS {
        let mut bridged = start(protocol, json!({ "elicitation": { "form": {} } }), true);
        let prompt = bridged.prompt(r#"call plan_task {"task": "x"}"#);
        let (id, _, _) = bridged.expect_create();
        let session = bridged.session.clone();
        bridged.agent.send(&json!({
            "jsonrpc": "2.0",
            "method": "session/cancel",
            "params": { "sessionId": session }
        }));
        let mut turn = bridged.finish(prompt);
        // The withdrawal is sent by the ask's own task, which may run after the turn's.
        if turn
            .others
            .iter()
            .all(|m| m["method"] != "$/cancel_request")
        {
            turn.others.push(bridged.next());
        }
        assert_eq!(
            turn.response["result"]["stopReason"], "cancelled",
            "{protocol:?}: {:?}",
            turn.response
        );
        // The ACP request is withdrawn.
        let withdrawn = turn
            .others
            .iter()
            .find(|m| m["method"] == "$/cancel_request")
            .unwrap_or_else(|| panic!("{protocol:?}: no $/cancel_request: {:?}", turn.others));
        assert_valid_v1("CancelRequestNotification", &withdrawn["params"]);
        assert_eq!(withdrawn["params"]["requestId"], id, "{withdrawn}");
        assert_eq!(turn.statuses().last().map(String::as_str), Some("failed"));
        let record = bridged.record.as_ref().expect("recorded");
        if protocol == Some("2025-11-25") {
            // The MCP `tools/call` in flight is cancelled.
            let messages = record.wait_for("notifications/cancelled");
            let call_id = messages
                .iter()
                .find(|m| m["method"] == "tools/call")
                .map(|m| m["id"].clone())
                .unwrap_or_else(|| panic!("no tools/call: {messages:?}"));
            assert!(
                messages
                    .iter()
                    .any(|m| m["method"] == "notifications/cancelled"
                        && m["params"]["requestId"] == call_id),
                "{protocol:?}: {messages:?}"
            );
        } else {
            // 2026-07-28: no request is in flight while the person is asked; the call
            // is not made again with an answer.
            std::thread::sleep(Duration::from_millis(300));
            let messages = record.messages();
            let calls = messages
                .iter()
                .filter(|m| m["method"] == "tools/call")
                .count();
            assert_eq!(calls, 1, "{messages:?}");
        }
    }
}
