//! Drives `examples/mcp_server.rs` with rmcp's own client over the example's real
//! stdin and stdout: the built example runs as a child process; a relay copies its
//! stdout to the client line by line, recording the raw bytes, and the client's lines
//! to its stdin. Each test answers the server's elicitations as it needs and checks the
//! tool's result, what was sent on the wire (raw bytes for the property order), and
//! every elicitation message against the official MCP 2025-11-25 schema.
//!
//! The example is built and found as `acp_agent.rs` explains (`common::build_example`).
//! Every wait is bounded (`rmcp_wire::LIMIT`); the child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use ::rmcp::model::{CallToolResult, ElicitResult, ElicitationAction, ProtocolVersion};
use ::rmcp::service::{RoleClient, RunningService};
use ::rmcp::ServiceExt;
use serde_json::{json, Map, Value};
use tokio::process::{Child, Command};

use crate::common;
use crate::protocol_support::rmcp_wire::{
    accept, assert_in_order, bounded, call_tool, eventually, parse, relay_between, tool_text,
    Relay, TestClient, Wire,
};

fn example() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("mcp_server"))
}

/// The example running as a child, and rmcp's client connected to it.
struct Session {
    client: RunningService<RoleClient, TestClient>,
    handler: TestClient,
    wire: Wire,
    _child: Child,
}

async fn start(handler: TestClient) -> Session {
    let mut child = Command::new(example())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let (stdin, stdout) = (
        child.stdin.take().expect("piped stdin"),
        child.stdout.take().expect("piped stdout"),
    );
    let (client_io, client_end) = tokio::io::duplex(1 << 16);
    let wire = relay_between(
        (stdout, stdin),
        tokio::io::split(client_end),
        Relay::default(),
    );
    let protocol = ::rmcp::ClientHandler::get_info(&handler).protocol_version;
    // 2026-07-28 has no `initialize`: `server/discover`, then each request says its
    // version and capabilities in `_meta` (M6).
    let client = if protocol >= ProtocolVersion::V_2026_07_28 {
        let lifecycle = ::rmcp::ClientLifecycleMode::Discover {
            preferred_versions: vec![protocol],
        };
        bounded(
            "server/discover",
            ::rmcp::ClientServiceExt::serve_with_lifecycle(handler.clone(), client_io, lifecycle),
        )
        .await
        .expect("the client discovers the example")
    } else {
        bounded("initialize", handler.clone().serve(client_io))
            .await
            .expect("the client initializes with the example")
    };
    Session {
        client,
        handler,
        wire,
        _child: child,
    }
}

/// The text of a tool result that is not an error.
fn text_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "not an error: {result:?}");
    tool_text(result)
}

fn plan_task() -> Value {
    json!({ "task": "Tidy up the parser" })
}

fn answer(action: ElicitationAction) -> Result<ElicitResult, ::rmcp::ErrorData> {
    Ok(ElicitResult::new(action))
}

// covers: E1, M1, M2, M7, D13, F1, F3, F4
#[tokio::test]
async fn plan_task_states_the_values_received_in_declaration_order() {
    let s = start(TestClient::new(Some(json!({})), |_| {
        accept(json!({ "strategy": "Balanced", "passes": 3, "notify": "ada@example.com", "run_tests": false }))
    }))
    .await;
    let text = text_of(&call_tool(&s.client, "plan_task", plan_task()).await);
    for said in [
        "strategy Balanced",
        "3 review pass(es)",
        "notify ada@example.com",
        "run tests: false",
    ] {
        assert!(text.contains(said), "{said:?} in {text:?}");
    }
    let creates = s.wire.creates();
    assert_eq!(creates.len(), 1);
    // D13, on the bytes the example wrote to its stdout.
    let raw = &creates[0];
    assert_in_order(raw, &["strategy", "passes", "notify", "run_tests"]);
    let schema = &parse(raw)["params"]["requestedSchema"]["properties"];
    assert!(
        schema["strategy"]["oneOf"].is_array(),
        "a titled single select: {schema}"
    );
    assert_eq!(
        (
            &schema["passes"]["minimum"],
            &schema["passes"]["maximum"],
            &schema["passes"]["default"]
        ),
        (&json!(1), &json!(5), &json!(2))
    );
    assert_eq!(schema["notify"]["format"], "email");
    assert_eq!(schema["run_tests"]["default"], true);
    assert_eq!(s.wire.assert_valid(), 2);
}

// covers: R1, R5
#[tokio::test]
async fn plan_task_does_nothing_when_declined_or_cancelled() {
    for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
        let s = start(TestClient::new(Some(json!({ "form": {} })), move |_| {
            answer(action.clone())
        }))
        .await;
        let text = text_of(&call_tool(&s.client, "plan_task", plan_task()).await);
        assert!(text.contains("nothing was done"), "{text:?}");
        assert_eq!(s.wire.assert_valid(), 2);
    }
}

// covers: F3, R3
#[tokio::test]
async fn plan_task_reports_an_invalid_answer_and_uses_none_of_it() {
    let s = start(TestClient::new(Some(json!({})), |_| {
        accept(json!({ "strategy": "Reckless", "passes": 9, "notify": "ada@example.com" }))
    }))
    .await;
    let text = text_of(&call_tool(&s.client, "plan_task", plan_task()).await);
    assert!(
        text.contains("not valid") && text.contains("nothing was done"),
        "{text:?}"
    );
    assert!(
        text.contains("strategy") && text.contains("passes"),
        "says why: {text:?}"
    );
    assert!(!text.contains("ada@example.com"), "uses nothing: {text:?}");
    s.wire.assert_valid();
}

// covers: C7, M2
#[tokio::test]
async fn plan_task_without_form_mode_sends_nothing_and_says_why() {
    for caps in [None, Some(json!({ "url": {} }))] {
        let s = start(TestClient::new(caps, |_| {
            panic!("no request may reach the client")
        }))
        .await;
        let text = text_of(&call_tool(&s.client, "plan_task", plan_task()).await);
        assert!(text.contains("did not declare the form"), "{text:?}");
        assert!(s.wire.creates().is_empty());
        assert_eq!(s.handler.asked(), 0);
    }
}

// covers: U1, U2, U5, M3, S1
#[tokio::test]
async fn connect_account_completes_with_the_same_id_after_consent() {
    let s = start(TestClient::new(Some(json!({ "url": {} })), |_| {
        answer(ElicitationAction::Accept)
    }))
    .await;
    let text = text_of(&call_tool(&s.client, "connect_account", json!({})).await);
    let creates = s.wire.creates();
    assert_eq!(creates.len(), 1);
    let params = &parse(&creates[0])["params"];
    assert_eq!(params["mode"], "url");
    assert!(
        params["url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://127.0.0.1:")),
        "{params}"
    );
    let id = params["elicitationId"].as_str().expect("an elicitationId");
    assert_eq!(s.wire.completions(), [id]);
    // rmcp's client hands the notification to its handler on a task of its own.
    eventually("the notification", || !s.handler.completed().is_empty()).await;
    assert_eq!(s.handler.completed(), [id]);
    assert!(text.contains("notified") && text.contains(id), "{text:?}");
    assert_eq!(s.wire.assert_valid(), 3);
}

// covers: R5, U2
#[tokio::test]
async fn connect_account_does_nothing_when_declined_or_cancelled() {
    for action in [ElicitationAction::Decline, ElicitationAction::Cancel] {
        let s = start(TestClient::new(Some(json!({ "url": {} })), move |_| {
            answer(action.clone())
        }))
        .await;
        let text = text_of(&call_tool(&s.client, "connect_account", json!({})).await);
        assert!(text.contains("nothing was done"), "{text:?}");
        assert!(s.wire.completions().is_empty());
        assert_eq!(s.wire.assert_valid(), 2);
    }
}

// covers: C7, F6
#[tokio::test]
async fn connect_account_without_url_mode_sends_nothing_and_says_why() {
    for caps in [None, Some(json!({})), Some(json!({ "form": {} }))] {
        let s = start(TestClient::new(caps, |_| {
            panic!("no request may reach the client")
        }))
        .await;
        let text = text_of(&call_tool(&s.client, "connect_account", json!({})).await);
        assert!(text.contains("did not declare the URL"), "{text:?}");
        assert!(s.wire.creates().is_empty());
    }
}

/// The tool call's arguments, as the tool list declares them.
#[tokio::test]
async fn the_tools_are_listed_with_their_inputs() {
    let s = start(TestClient::new(Some(json!({})), |_| {
        answer(ElicitationAction::Cancel)
    }))
    .await;
    let tools = bounded("list_tools", s.client.list_all_tools())
        .await
        .expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["plan_task", "book_table", "connect_account"]);
    let plan: &Map<String, Value> = &tools[0].input_schema;
    assert_eq!(plan["properties"]["task"]["type"], "string");
}

/// Both versions' clients, each with the same answers.
fn both(answers: fn() -> Vec<Result<ElicitResult, ::rmcp::ErrorData>>) -> [TestClient; 2] {
    let client = |protocol| {
        let queue = std::sync::Mutex::new(std::collections::VecDeque::from(answers()));
        TestClient::new(Some(json!({ "form": {}, "url": {} })), move |_| {
            queue
                .lock()
                .unwrap()
                .pop_front()
                .expect("an answer for each question")
        })
        .speaking(protocol)
    };
    [
        client(ProtocolVersion::V_2025_11_25),
        client(ProtocolVersion::V_2026_07_28),
    ]
}

/// Every elicitation message of the exchange valid against the MCP schema of the
/// version the client spoke: pushed requests on 2025-11-25; on 2026-07-28 none pushed,
/// each `InputRequiredResult` and each retried `tools/call` checked instead.
fn assert_valid_for(s: &Session, protocol: &ProtocolVersion) -> usize {
    if *protocol < ProtocolVersion::V_2026_07_28 {
        return s.wire.assert_valid();
    }
    let mut checked = 0;
    for (_, line) in s.wire.lines() {
        let message = parse(&line);
        assert_ne!(message["method"], "elicitation/create", "M6: {line}");
        if message["result"]["resultType"] == "input_required" {
            crate::protocol_support::assert_mcp(
                "2026-07-28",
                "InputRequiredResult",
                &message["result"],
            );
            checked += 1;
        }
        if message["method"] == "tools/call" {
            crate::protocol_support::assert_mcp("2026-07-28", "CallToolRequest", &message);
            checked += 1;
        }
    }
    checked
}

// covers: M6, M7, F3, D13
#[tokio::test]
async fn book_table_asks_again_on_a_pattern_then_twice_on_both_versions() {
    for handler in both(|| {
        vec![
            accept(json!({ "party_size": 10, "phone": "call me" })),
            accept(json!({ "party_size": 10, "phone": "+44 20 7946 0000" })),
            accept(json!({ "pay": true })),
        ]
    }) {
        let protocol = ::rmcp::ClientHandler::get_info(&handler).protocol_version;
        let s = start(handler).await;
        let text = text_of(
            &call_tool(
                &s.client,
                "book_table",
                json!({ "restaurant": "Chez Elicit" }),
            )
            .await,
        );
        assert_eq!(
            text,
            "Booked a table for 10 at Chez Elicit; the restaurant will call +44 20 7946 0000.",
            "{protocol}"
        );
        let asked: Vec<Value> = s
            .handler
            .asked
            .lock()
            .unwrap()
            .iter()
            .map(|p| serde_json::to_value(p).unwrap())
            .collect();
        assert_eq!(asked.len(), 3, "{protocol}");
        let phone = |i: usize| asked[i]["requestedSchema"]["properties"]["phone"].clone();
        assert!(phone(0).get("pattern").is_none(), "M7 {protocol}");
        assert!(
            phone(0)["description"]
                .as_str()
                .unwrap()
                .ends_with("(must match the pattern ^\\+?[0-9 ]{7,15}$)"),
            "{protocol}: {}",
            phone(0)
        );
        assert!(
            phone(1)["description"]
                .as_str()
                .unwrap()
                .starts_with("⚠ does not match"),
            "{protocol}: {}",
            phone(1)
        );
        assert_eq!(
            asked[2]["requestedSchema"]["properties"]["pay"]["type"],
            "boolean"
        );
        assert!(assert_valid_for(&s, &protocol) >= 6, "{protocol}");
    }
}

// covers: U1, U2, U5, M3, M6
#[tokio::test]
async fn connect_account_on_both_versions() {
    for handler in both(|| vec![answer(ElicitationAction::Accept)]) {
        let protocol = ::rmcp::ClientHandler::get_info(&handler).protocol_version;
        let s = start(handler).await;
        let text = text_of(&call_tool(&s.client, "connect_account", json!({})).await);
        if protocol < ProtocolVersion::V_2026_07_28 {
            assert!(text.contains("was notified that elicitation"), "{text}");
            eventually("the completion", || s.handler.completed().len() == 1).await;
        } else {
            assert!(
                text.starts_with("You consented; the account is connected (ref "),
                "{text}"
            );
            assert!(
                s.wire.completions().is_empty(),
                "M6: no completion notification"
            );
        }
        assert!(assert_valid_for(&s, &protocol) >= 2, "{protocol}");
    }
}
