//! `examples/acp_proxy.rs` in front of `examples/acp_agent.rs`, driven by the official
//! ACP TypeScript client (`tests/mcp_ts/hop_client.mjs`, `@agentclientprotocol/sdk`)
//! answering as the person: three processes, two real ACP wires. The test reads the
//! client's wire (every message the SDK read or wrote) and checks what the person was
//! asked, in which session, what the inner agent received, and every message against
//! the official ACP v1 schema in `../shared/oracles/`.
//!
//! Needs Node and the SDK installed by `.ci/mcp-ts`; without them the test is skipped,
//! unless `CI` is set, where it fails.
#![cfg(all(feature = "agent-client-protocol", feature = "url"))]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

use crate::common;

/// Node, or `None` (skipped) when it is not installed and `CI` is not set.
fn node() -> Option<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_ts");
    let node = std::env::var_os("ELICIT_MCP_TS_NODE")
        .map(PathBuf::from)
        .or_else(|| {
            std::fs::read_to_string(folder.join("node_modules/.elicit-node"))
                .ok()
                .map(|path| PathBuf::from(path.trim()))
        })
        .filter(|node| node.is_file());
    if node.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Node and the ACP TypeScript SDK are missing: run .ci/mcp-ts before the tests"
        );
        eprintln!("skipped: run .ci/mcp-ts to install Node and the ACP TypeScript SDK");
    }
    node
}

fn binaries() -> &'static (PathBuf, PathBuf) {
    static BINARIES: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    BINARIES.get_or_init(|| {
        (
            common::build_example("acp_proxy"),
            common::build_example("acp_agent"),
        )
    })
}

/// What the client printed, line by line, after running `script` against
/// `acp_proxy -- acp_agent`.
async fn run(script: Value) -> Option<Vec<Value>> {
    let node = node()?;
    let (proxy, agent) = binaries();
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_ts/hop_client.mjs");
    let mut child = Command::new(node)
        .arg(client)
        .arg(script.to_string())
        .arg("--")
        .arg(proxy)
        .arg("--")
        .arg(agent)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(90), stdout.read_to_string(&mut out))
        .await
        .expect("the TypeScript client finished within 90 s")
        .expect("its stdout is readable");
    let status = child.wait().await.expect("the client exits");
    assert!(status.success(), "hop_client.mjs failed: {status}\n{out}");
    Some(
        out.lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect(),
    )
}

fn find<'a>(lines: &'a [Value], key: &str) -> Vec<&'a Value> {
    lines.iter().filter_map(|line| line.get(key)).collect()
}

/// The one value printed under `key`.
fn one<'a>(lines: &'a [Value], key: &str) -> &'a Value {
    let found = find(lines, key);
    assert_eq!(found.len(), 1, "one {key:?} expected: {lines:#?}");
    found[0]
}

/// The messages on the client's wire: (`"in"` from the proxy, `"out"` to it).
fn wire(lines: &[Value]) -> Vec<(&str, &Value)> {
    lines
        .iter()
        .filter_map(|line| Some((line["dir"].as_str()?, &line["message"])))
        .collect()
}

/// The text of the agent message chunks the client received.
fn agent_text(lines: &[Value]) -> String {
    wire(lines)
        .into_iter()
        .filter(|(dir, m)| *dir == "in" && m["method"] == "session/update")
        .filter(|(_, m)| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|(_, m)| m["params"]["update"]["content"]["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every message of the client's wire valid against the official ACP v1 schema, by
/// method (responses by the method of the request they answer); every session id on
/// it is the outer one. Returns how many messages were checked.
fn assert_wire(lines: &[Value], outer_session: &str) -> usize {
    let mut methods: HashMap<(String, String), String> = HashMap::new();
    let mut checked = 0;
    let mut validators: HashMap<&'static str, Vec<(&'static str, jsonschema::Validator)>> =
        HashMap::new();
    for (dir, message) in wire(lines) {
        let def = if let Some(method) = message["method"].as_str() {
            if let Some(id) = message.get("id") {
                methods.insert((dir.to_owned(), id.to_string()), method.to_owned());
            }
            match (dir, method) {
                ("in", "elicitation/create") => "CreateElicitationRequest",
                ("in", "elicitation/complete") => "CompleteElicitationNotification",
                ("in", "session/update") => "SessionNotification",
                ("in", "$/cancel_request") => "CancelRequestNotification",
                ("out", "initialize") => "InitializeRequest",
                ("out", "session/new") => "NewSessionRequest",
                ("out", "session/prompt") => "PromptRequest",
                ("out", "session/cancel") => "CancelNotification",
                other => panic!("unexpected message on the client's wire: {other:?} {message}"),
            }
        } else {
            let asked_by = if dir == "in" { "out" } else { "in" };
            let method = methods
                .get(&(asked_by.to_owned(), message["id"].to_string()))
                .unwrap_or_else(|| panic!("a response to no request: {message}"));
            assert!(
                message.get("error").is_none(),
                "an error on the wire: {message}"
            );
            match method.as_str() {
                "initialize" => "InitializeResponse",
                "session/new" => "NewSessionResponse",
                "session/prompt" => "PromptResponse",
                "elicitation/create" => "CreateElicitationResponse",
                other => panic!("a response to {other}: {message}"),
            }
        };
        let params = if message.get("method").is_some() {
            &message["params"]
        } else {
            &message["result"]
        };
        if let Some(session) = params.get("sessionId") {
            assert_eq!(session, outer_session, "not the outer session: {message}");
        }
        let validators = validators
            .entry(def)
            .or_insert_with(|| common::acp_validators_in(&["v1"], def));
        for (version, validator) in validators.iter() {
            let errors = common::errors_of(validator, params);
            assert!(
                errors.is_empty(),
                "not a valid ACP {version} `{def}`: {errors:?}\n{message:#}"
            );
        }
        checked += 1;
    }
    checked
}

/// The session the client was given, checked to be the proxy's own id.
fn outer_session(lines: &[Value]) -> String {
    let session = one(lines, "session")
        .as_str()
        .expect("a string id")
        .to_owned();
    // The proxy's ids are its own; `acp_agent` numbers its sessions `session-N`.
    assert!(session.starts_with("proxy-"), "{session}");
    session
}

// covers: C1, E1, E3, E5, F3, D13, R1
#[tokio::test]
async fn a_form_of_the_inner_agent_is_answered_in_the_outer_session() {
    let Some(lines) = run(json!({
        "capabilities": { "elicitation": { "form": {} } },
        "prompts": ["Tidy up the parser"],
        "answers": [{
            "action": "accept",
            "content": { "strategy": "Balanced", "passes": 3, "run_tests": false }
        }],
    }))
    .await
    else {
        return;
    };
    let session = outer_session(&lines);
    let asked = one(&lines, "elicited");
    assert_eq!(asked["mode"], "form");
    assert_eq!(asked["sessionId"], session.as_str());
    assert!(asked.get("toolCallId").is_none(), "{asked}");
    // D13: the inner agent's field order reaches the person.
    let fields: Vec<&str> = asked["requestedSchema"]["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, ["strategy", "passes", "notify", "run_tests"]);
    // The inner agent received the answer the person gave, through the proxy.
    let text = agent_text(&lines);
    assert!(
        text.contains("strategy Balanced, 3 review pass(es)")
            && text.contains("tests after each pass: no"),
        "{text}"
    );
    let response = one(&lines, "response");
    assert_eq!(response["result"]["stopReason"], "end_turn");
    // The proxy introduces itself, naming the agent behind it.
    let info = &one(&lines, "initialized")["agentInfo"];
    assert_eq!(info["name"], "elicit-acp-proxy");
    assert!(info["title"]
        .as_str()
        .is_some_and(|t| t.contains("elicit-acp-agent")));
    assert!(assert_wire(&lines, &session) >= 8);
}

// covers: F3, R5
#[tokio::test]
async fn an_answer_that_does_not_validate_is_not_passed_to_the_inner_agent() {
    let Some(lines) = run(json!({
        "capabilities": { "elicitation": { "form": {} } },
        "prompts": ["Tidy up the parser"],
        // `passes` above the maximum of 5: the proxy validates and refuses it.
        "answers": [{
            "action": "accept",
            "content": { "strategy": "Balanced", "passes": 9, "run_tests": true }
        }],
    }))
    .await
    else {
        return;
    };
    let text = agent_text(&lines);
    assert!(
        text.contains("does not validate") && text.contains("`passes` must be at most 5"),
        "the inner agent is told why, not given the answer: {text}"
    );
    assert!(!text.contains("Received your plan"), "{text}");
    let session = outer_session(&lines);
    assert_wire(&lines, &session);
}

// covers: C1, C3, C7, U1, U2, U4, U5, E5
#[tokio::test]
async fn url_mode_gets_a_fresh_outer_id_and_its_completion_is_carried() {
    let Some(lines) = run(json!({
        // Only URL mode: the inner agent is offered nothing else, and falls back to it.
        "capabilities": { "elicitation": { "url": {} } },
        "prompts": ["Tidy up the parser"],
        "answers": [{ "action": "accept" }],
    }))
    .await
    else {
        return;
    };
    let session = outer_session(&lines);
    let asked = one(&lines, "elicited");
    assert_eq!(asked["mode"], "url", "form was never offered: {asked}");
    assert_eq!(asked["sessionId"], session.as_str());
    assert_eq!(asked["url"], "http://127.0.0.1:47615/consent");
    let outer_id = asked["elicitationId"].as_str().expect("an elicitationId");
    // U5: the inner agent's completion reaches the person with the outer id, once.
    let completed = one(&lines, "completed");
    assert_eq!(completed["elicitationId"], outer_id);
    // The inner agent names its own id, which the outer client never saw.
    let text = agent_text(&lines);
    let inner_id = text
        .split("for elicitation ")
        .nth(1)
        .and_then(|rest| rest.split('.').next())
        .unwrap_or_else(|| panic!("the inner agent's id in {text:?}"));
    assert_ne!(inner_id, outer_id, "the outer id is minted by the proxy");
    assert!(!lines.iter().any(|l| l.to_string().contains(inner_id)
        && l.get("dir").is_some()
        && l["message"]["method"] != "session/update"));
    assert_eq!(one(&lines, "response")["result"]["stopReason"], "end_turn");
    assert_wire(&lines, &session);
}

// covers: R1, R5, E3
#[tokio::test]
async fn a_cancelled_session_reaches_the_inner_agent_and_withdraws_the_question() {
    let Some(lines) = run(json!({
        "capabilities": { "elicitation": { "form": {} } },
        "prompts": ["Tidy up the parser"],
        "answers": [{ "cancel_session": true }],
    }))
    .await
    else {
        return;
    };
    let session = outer_session(&lines);
    let id = one(&lines, "id").clone();
    // The question was withdrawn from the person's client with `$/cancel_request`.
    assert_eq!(one(&lines, "withdrawn"), &id, "{lines:#?}");
    assert!(find(&lines, "not_withdrawn").is_empty());
    let cancels: Vec<&Value> = wire(&lines)
        .into_iter()
        .filter(|(dir, m)| *dir == "in" && m["method"] == "$/cancel_request")
        .map(|(_, m)| m)
        .collect();
    assert_eq!(cancels.len(), 1, "{cancels:?}");
    assert_eq!(cancels[0]["params"]["requestId"], id);
    // `acp_agent` ends a turn `cancelled` only when `session/cancel` reached it.
    assert_eq!(one(&lines, "response")["result"]["stopReason"], "cancelled");
    assert!(agent_text(&lines).contains("dismissed"));
    assert_wire(&lines, &session);
}
