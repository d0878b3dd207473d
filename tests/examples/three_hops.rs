//! Three hops, real processes: an MCP server on the official MCP TypeScript SDK
//! (`tests/mcp_ts/server.mjs` on `@modelcontextprotocol/sdk` 1.x, MCP 2025-11-25;
//! `tests/mcp_ts/server_v2.mjs` on `@modelcontextprotocol/server` 2.x, MCP 2026-07-28;
//! the same tools, `tests/mcp_ts/tools.mjs`) hosted by `examples/acp_mcp_agent.rs`,
//! driven by the official ACP TypeScript client (`tests/mcp_ts/hop_client.mjs` on
//! `@agentclientprotocol/sdk`), which answers each elicitation as the person, from a
//! script.
//!
//! Both wires are recorded where they end: the ACP client prints every message it reads
//! and writes, the MCP server appends every message it receives and sends to a file
//! (`ELICIT_MCP_WIRE`). Every run checks every message of both: ACP against the
//! official ACP schemas (v1, and v2 for what v2 shares; the agent speaks v1), MCP
//! against the official MCP schema of the version the connection negotiated.
//!
//! Needs Node and the SDKs installed by `.ci/mcp-ts`; without them the tests are
//! skipped, unless `CI` is set, where they fail.
// The example needs the ACP SDK, rmcp and URL mode (`elicit::bridge`).
#![cfg(all(feature = "agent-client-protocol", feature = "rmcp_3", feature = "url"))]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common;
use crate::protocol_support::{acp_accepts, assert_mcp, mcp_accepts};

/// The MCP version a run speaks, and the TypeScript server that speaks it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mcp {
    /// `server.mjs`, `@modelcontextprotocol/sdk` 1.x: the server pushes
    /// `elicitation/create`.
    V2025,
    /// `server_v2.mjs`, `@modelcontextprotocol/server` 2.x: input requests.
    V2026,
}

const BOTH: [Mcp; 2] = [Mcp::V2025, Mcp::V2026];

impl Mcp {
    fn server(self) -> &'static str {
        match self {
            Mcp::V2025 => "server.mjs",
            Mcp::V2026 => "server_v2.mjs",
        }
    }

    fn version(self) -> &'static str {
        match self {
            Mcp::V2025 => "2025-11-25",
            Mcp::V2026 => "2026-07-28",
        }
    }
}

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_ts")
}

/// Node, or `None` (skipped) when it is not installed and `CI` is not set.
fn node() -> Option<PathBuf> {
    let node = std::fs::read_to_string(folder().join("node_modules/.elicit-node"))
        .ok()
        .map(|path| PathBuf::from(path.trim()))
        .filter(|node| node.is_file());
    if node.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Node and the TypeScript SDKs are missing: run .ci/mcp-ts before the tests"
        );
        eprintln!("skipped: run .ci/mcp-ts to install Node and the TypeScript SDKs");
    }
    node
}

fn agent_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("acp_mcp_agent"))
}

/// What one run left: the ACP client's lines and the MCP server's record.
struct Run {
    mcp: Mcp,
    /// Every line `hop_client.mjs` printed.
    lines: Vec<Value>,
    /// Every message of the MCP wire, as the server received (`in`) or sent (`out`) it.
    wire: Vec<(String, Value)>,
}

/// Runs `hop_client.mjs` with `script` against the agent (with `agent_args`) hosting
/// the TypeScript server of `mcp`; checks both wires; `None` when skipped.
fn run(mcp: Mcp, agent_args: &[&str], script: Value) -> Option<Run> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let node = node()?;
    let record = std::env::temp_dir().join(format!(
        "elicit-three-hops-{}-{}.jsonl",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&record);
    let child = Command::new(&node)
        .current_dir(folder())
        .arg("hop_client.mjs")
        .arg(script.to_string())
        .arg("--")
        .arg(agent_binary())
        .args(agent_args)
        .arg("--")
        .arg(&node)
        .arg(folder().join(mcp.server()))
        .env("ELICIT_MCP_WIRE", &record)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node starts");
    let output = common::wait_bounded(child, Duration::from_secs(90));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "hop_client.mjs failed: {}\n{stdout}",
        output.status
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let wire = std::fs::read_to_string(&record)
        .unwrap_or_default()
        .lines()
        .map(|line| {
            let line: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            (
                line["dir"].as_str().expect("a direction").to_owned(),
                line["message"].clone(),
            )
        })
        .collect();
    let _ = std::fs::remove_file(&record);
    let run = Run { mcp, lines, wire };
    run.assert_acp_valid();
    run.assert_mcp_valid();
    Some(run)
}

/// ACP client capabilities that declare these elicitation modes.
fn modes(form: bool, url: bool) -> Value {
    let mut elicitation = serde_json::Map::new();
    if form {
        elicitation.insert("form".into(), json!({}));
    }
    if url {
        elicitation.insert("url".into(), json!({}));
    }
    json!({ "elicitation": elicitation })
}

fn script(capabilities: Value, prompts: &[&str], answers: Value) -> Value {
    json!({ "capabilities": capabilities, "prompts": prompts, "answers": answers })
}

/// Asserts `json` is a valid `$defs/<def>` of the ACP schema `version`.
fn assert_acp_in(version: &str, def: &str, json: &Value) {
    if let Some(valid) = acp_accepts(version, def, json) {
        assert!(valid, "not a valid ACP {version} `{def}`:\n{json:#}");
    }
}

impl Run {
    /// The ACP messages, with their direction (`in`: agent to client).
    fn acp(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.lines
            .iter()
            .filter_map(|line| Some((line.get("dir")?.as_str()?, line.get("message")?)))
    }

    /// The `elicitation/create` params the person was asked, in order.
    fn elicited(&self) -> Vec<&Value> {
        self.lines
            .iter()
            .filter_map(|l| l.get("elicited"))
            .collect()
    }

    /// The ACP request ids the agent withdrew (`$/cancel_request`, as the SDK saw it).
    fn withdrawn(&self) -> Vec<&Value> {
        self.lines
            .iter()
            .filter_map(|l| l.get("withdrawn"))
            .collect()
    }

    /// The agent's message text of the whole run.
    fn text(&self) -> String {
        self.acp()
            .filter(|(dir, m)| *dir == "in" && m["method"] == "session/update")
            .filter(|(_, m)| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
            .filter_map(|(_, m)| m["params"]["update"]["content"]["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The prompts' responses, in order.
    fn responses(&self) -> Vec<&Value> {
        self.lines
            .iter()
            .filter_map(|l| l.get("response"))
            .collect()
    }

    /// The MCP messages the server received (`in`) or sent (`out`) with this method.
    fn mcp_methods(&self, dir: &str, method: &str) -> Vec<&Value> {
        self.wire
            .iter()
            .filter(|(d, m)| d == dir && m["method"] == method)
            .map(|(_, m)| m)
            .collect()
    }

    /// The `tools/call` requests the server received.
    fn tool_calls(&self) -> Vec<&Value> {
        self.mcp_methods("in", "tools/call")
    }

    /// Every ACP message checked: the elicitation messages against v1 and v2, the
    /// rest against v1 (the version the agent speaks; v2 renames the session
    /// messages).
    fn assert_acp_valid(&self) {
        let mut asked: HashMap<String, String> = HashMap::new();
        let mut checked = 0;
        for (dir, message) in self.acp() {
            let method = message["method"].as_str();
            let id = message.get("id").map(Value::to_string);
            let params = &message["params"];
            match (dir, method) {
                ("in", Some("elicitation/create")) => {
                    for version in ["v1", "v2"] {
                        assert_acp_in(version, "CreateElicitationRequest", params);
                    }
                    asked.insert(id.clone().expect("a request id"), "elicitation".into());
                }
                ("in", Some("elicitation/complete")) => {
                    for version in ["v1", "v2"] {
                        assert_acp_in(version, "CompleteElicitationNotification", params);
                    }
                }
                ("in", Some("$/cancel_request")) => {
                    for version in ["v1", "v2"] {
                        assert_acp_in(version, "CancelRequestNotification", params);
                    }
                }
                ("in", Some("session/update")) => {
                    assert_acp_in("v1", "SessionNotification", params);
                }
                ("in", Some(other)) => panic!("the agent sent an unexpected {other}: {message}"),
                ("out", Some(method)) => {
                    let def = match method {
                        "initialize" => "InitializeRequest",
                        "session/new" => "NewSessionRequest",
                        "session/prompt" => "PromptRequest",
                        "session/cancel" => "CancelNotification",
                        other => panic!("the client sent an unexpected {other}"),
                    };
                    assert_acp_in("v1", def, params);
                    if let Some(id) = id {
                        asked.insert(id, method.to_owned());
                    }
                }
                (_, None) => {
                    let id = id.expect("a response has an id");
                    let Some(method) = asked.get(&id) else {
                        panic!("a response to no request: {message}");
                    };
                    if let Some(error) = message.get("error") {
                        assert!(error["code"].is_i64(), "{message}");
                        checked += 1;
                        continue;
                    }
                    let result = &message["result"];
                    match method.as_str() {
                        "elicitation" => {
                            for version in ["v1", "v2"] {
                                assert_acp_in(version, "CreateElicitationResponse", result);
                            }
                        }
                        "initialize" => assert_acp_in("v1", "InitializeResponse", result),
                        "session/new" => assert_acp_in("v1", "NewSessionResponse", result),
                        "session/prompt" => assert_acp_in("v1", "PromptResponse", result),
                        other => panic!("a response to {other}"),
                    }
                }
                (other, _) => panic!("a message in direction {other}"),
            }
            checked += 1;
        }
        assert!(checked >= 5, "too few ACP messages: {:?}", self.lines);
    }

    /// Every MCP message checked against the schema of the negotiated version (the
    /// 2026-07-28 `server/discover` probe, and the 2025-11-25 server's answer to it,
    /// against 2026-07-28's, as that is the version it was sent in).
    fn assert_mcp_valid(&self) {
        let version = self.mcp.version();
        // The requests of each side by id, and their method.
        let mut requests: HashMap<(String, String), String> = HashMap::new();
        let mut checked = 0;
        for (dir, message) in &self.wire {
            let id = message.get("id").map(Value::to_string);
            if let Some(method) = message["method"].as_str() {
                if method == "server/discover" {
                    assert_mcp("2026-07-28", "DiscoverRequest", message);
                } else if !is_known_invalid(message) {
                    assert_mcp(version, "JSONRPCMessage", message);
                    let def = match method {
                        "initialize" => Some("InitializeRequest"),
                        "notifications/initialized" => Some("InitializedNotification"),
                        "tools/call" => Some("CallToolRequest"),
                        "elicitation/create" => Some("ElicitRequest"),
                        "notifications/elicitation/complete" => {
                            Some("ElicitationCompleteNotification")
                        }
                        "notifications/cancelled" => Some("CancelledNotification"),
                        _ => None,
                    };
                    match def {
                        // The request of `hop_invalid` is invalid by design: the schema
                        // itself must refuse it too.
                        Some("ElicitRequest") if is_known_invalid(message) => {
                            assert_eq!(
                                mcp_accepts(version, "ElicitRequest", message),
                                Some(false),
                                "{message}"
                            );
                        }
                        Some(def) => assert_mcp(version, def, message),
                        None => {}
                    }
                }
                if let Some(id) = id {
                    requests.insert((dir.clone(), id), method.to_owned());
                }
                checked += 1;
                continue;
            }
            // A response: to a request that came the other way.
            let other = if dir == "in" { "out" } else { "in" };
            let id = id.expect("a response has an id");
            let method = requests
                .get(&(other.to_owned(), id))
                .unwrap_or_else(|| panic!("an MCP response to no request: {message}"));
            let answer_version = if method == "server/discover" {
                "2026-07-28"
            } else {
                version
            };
            if message.get("error").is_some() {
                assert_mcp(answer_version, "JSONRPCErrorResponse", message);
                checked += 1;
                continue;
            }
            if !is_known_invalid(message) {
                assert_mcp(answer_version, "JSONRPCResultResponse", message);
            }
            let result = &message["result"];
            match (method.as_str(), result["resultType"].as_str()) {
                ("server/discover", _) => assert_mcp("2026-07-28", "DiscoverResult", result),
                ("initialize", _) => assert_mcp(version, "InitializeResult", result),
                ("elicitation/create", _) => assert_mcp(version, "ElicitResult", result),
                ("tools/call", Some("input_required")) if is_known_invalid(result) => {
                    assert_eq!(
                        mcp_accepts(version, "InputRequiredResult", result),
                        Some(false),
                        "{result}"
                    );
                }
                ("tools/call", Some("input_required")) => {
                    assert_mcp(version, "InputRequiredResult", result)
                }
                ("tools/call", _) => assert_mcp(version, "CallToolResult", result),
                _ => {}
            }
            checked += 1;
        }
        assert!(checked >= 3, "too few MCP messages: {:?}", self.wire);
    }
}

/// Whether `message` carries the question of `hop_invalid` (tools.mjs), whose schema
/// is invalid on purpose.
fn is_known_invalid(message: &Value) -> bool {
    message.to_string().contains("Where do you live?")
}

/// The text a tool answered with, as the agent passed it on (`NAME: {json}`).
fn tool_answer(run: &Run, tool: &str) -> Value {
    let text = run.text();
    let prefix = format!("{tool}: ");
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no answer of {tool} in {text:?}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// The client's answer to the request the MCP server sent as `request`.
fn answer_to<'a>(run: &'a Run, request: &Value) -> &'a Value {
    run.wire
        .iter()
        .find(|(d, m)| d == "in" && m.get("method").is_none() && m["id"] == request["id"])
        .map(|(_, m)| m)
        .unwrap_or_else(|| panic!("no answer to {request}: {:?}", run.wire))
}

/// The ACP tool call ids the agent reported, in order.
fn tool_call_ids(run: &Run) -> Vec<String> {
    run.acp()
        .filter(|(_, m)| m["params"]["update"]["sessionUpdate"] == "tool_call")
        .filter_map(|(_, m)| {
            m["params"]["update"]["toolCallId"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

// covers: E1, E2, E3, E4, F1, F3, M6, C1
#[test]
fn a_form_of_a_typescript_server_is_answered_through_acp_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, true),
                &["call hop_form"],
                json!([{ "action": "accept", "content": { "name": "Ada", "age": 36 } }]),
            ),
        ) else {
            return;
        };
        let elicited = run.elicited();
        assert_eq!(elicited.len(), 1, "{mcp:?}: {:?}", run.lines);
        let asked = elicited[0];
        assert_eq!(asked["mode"], "form");
        assert_eq!(asked["message"], "Who are you?");
        assert_eq!(asked["sessionId"], "session-1");
        assert_eq!(asked["toolCallId"], tool_call_ids(&run)[0]);
        assert_eq!(asked["requestedSchema"]["required"], json!(["name"]));
        assert_eq!(
            asked["requestedSchema"]["properties"]["age"]["maximum"],
            150
        );
        assert_eq!(
            tool_answer(&run, "hop_form"),
            json!({ "action": "accept", "content": { "name": "Ada", "age": 36 } }),
            "{mcp:?}"
        );
        // How the answer reached the server, per version.
        match mcp {
            Mcp::V2025 => {
                let creates = run.mcp_methods("out", "elicitation/create");
                assert_eq!(creates.len(), 1);
                let answered = answer_to(&run, creates[0]);
                assert_eq!(answered["result"]["content"]["name"], "Ada");
            }
            Mcp::V2026 => {
                assert!(
                    run.mcp_methods("out", "elicitation/create").is_empty(),
                    "M6"
                );
                let calls = run.tool_calls();
                assert_eq!(calls.len(), 2, "one call, one retry: {calls:?}");
                assert_eq!(
                    calls[1]["params"]["inputResponses"]["profile"],
                    json!({ "action": "accept", "content": { "name": "Ada", "age": 36 } })
                );
                assert_eq!(calls[1]["params"]["requestState"], "{}");
            }
        }
        assert_eq!(run.responses()[0]["result"]["stopReason"], "end_turn");
    }
}

// covers: E1, E4, F3, M6
#[test]
fn a_tool_asking_twice_asks_both_questions_in_one_tool_call_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, false),
                &["call hop_twice"],
                json!([
                    { "action": "accept", "content": { "name": "Ann" } },
                    { "action": "accept", "content": { "confirm": true } }
                ]),
            ),
        ) else {
            return;
        };
        let elicited = run.elicited();
        assert_eq!(elicited.len(), 2, "{mcp:?}: {:?}", run.lines);
        let tool_call = &tool_call_ids(&run)[0];
        for asked in &elicited {
            assert_eq!(
                asked["toolCallId"], *tool_call,
                "one tool call, both questions"
            );
        }
        // The second question depends on the first answer.
        assert_eq!(elicited[1]["message"], "Send it to Ann?");
        assert_eq!(
            elicited[1]["requestedSchema"]["properties"]["confirm"]["title"],
            "Send the parcel to Ann?"
        );
        assert_eq!(
            tool_answer(&run, "hop_twice"),
            json!({ "name": "Ann", "second": "accept", "confirm": true })
        );
        if mcp == Mcp::V2026 {
            let calls = run.tool_calls();
            assert_eq!(calls.len(), 3, "a call and two retries: {calls:?}");
            // The second retry carries the state with the first answer.
            let state: Value =
                serde_json::from_str(calls[2]["params"]["requestState"].as_str().unwrap()).unwrap();
            assert_eq!(state["name"]["content"]["name"], "Ann");
        }
    }
}

// covers: E1, E4, F3, U1, U2, U4, U5, S6, M6
#[test]
fn every_message_on_both_wires_is_valid_for_every_tool_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, true),
                &[
                    "call hop_form",
                    "call hop_twice",
                    "call hop_url",
                    "call hop_pattern",
                    "call hop_form",
                ],
                json!([
                    { "action": "accept", "content": { "name": "Ada" } },
                    { "action": "accept", "content": { "name": "Ann" } },
                    { "action": "decline" },
                    { "action": "accept" },
                    { "action": "accept", "content": { "phone": "555-1234" } },
                    { "action": "cancel" }
                ]),
            ),
        ) else {
            return;
        };
        // Checked in `run`; here, that it was the whole exchange.
        assert_eq!(run.elicited().len(), 6, "{mcp:?}");
        assert_eq!(run.responses().len(), 5);
        assert_eq!(
            tool_answer(&run, "hop_twice"),
            json!({ "name": "Ann", "second": "decline", "confirm": null })
        );
        let text = run.text();
        let form_answers: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("hop_form: "))
            .collect();
        assert_eq!(form_answers.len(), 2);
        assert!(form_answers[1].contains("\"cancel\""), "{form_answers:?}");
    }
}

// covers: R5
#[test]
fn session_cancel_at_the_acp_end_reaches_the_mcp_server_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, false),
                &["call hop_wait", "call hop_form"],
                json!([
                    { "cancel_session": true },
                    { "action": "accept", "content": { "name": "Bo" } }
                ]),
            ),
        ) else {
            return;
        };
        let elicited = run.elicited();
        assert_eq!(elicited.len(), 2, "{mcp:?}: {:?}", run.lines);
        // The turn ends cancelled, the question is withdrawn from the person.
        assert_eq!(run.responses()[0]["result"]["stopReason"], "cancelled");
        let first_id = run
            .lines
            .iter()
            .find(|l| l.get("elicited").is_some())
            .map(|l| l["id"].clone())
            .unwrap();
        assert_eq!(run.withdrawn(), vec![&first_id], "{mcp:?}");
        let cancels: Vec<&Value> = run
            .acp()
            .filter(|(d, m)| *d == "in" && m["method"] == "$/cancel_request")
            .map(|(_, m)| m)
            .collect();
        assert_eq!(cancels.len(), 1);
        assert_eq!(cancels[0]["params"]["requestId"], first_id);
        match mcp {
            Mcp::V2025 => {
                // rmcp cancels the `tools/call` in flight.
                let wait_call = &run.tool_calls()[0];
                let cancelled = run.mcp_methods("in", "notifications/cancelled");
                assert_eq!(cancelled.len(), 1, "{:?}", run.wire);
                assert_eq!(cancelled[0]["params"]["requestId"], wait_call["id"]);
            }
            Mcp::V2026 => {
                // No request is in flight at the server while the person is asked:
                // the call is simply never retried, no answer goes on.
                let waits = run
                    .tool_calls()
                    .iter()
                    .filter(|c| c["params"]["name"] == "hop_wait")
                    .count();
                assert_eq!(waits, 1, "never retried: {:?}", run.wire);
            }
        }
        // The session goes on: the next prompt is asked and answered.
        assert_eq!(
            tool_answer(&run, "hop_form"),
            json!({ "action": "accept", "content": { "name": "Bo" } })
        );
    }
}

// covers: R5
#[test]
fn the_mcp_end_giving_up_withdraws_the_question_from_the_acp_client() {
    // 2025-11-25: the TypeScript server gives up after 500 ms (its SDK's request
    // timeout sends notifications/cancelled for its elicitation/create).
    if let Some(run) = run(
        Mcp::V2025,
        &[],
        script(
            modes(true, false),
            &["call hop_wait {\"give_up_ms\": 500}"],
            json!([{ "hold": true }]),
        ),
    ) {
        let create = run.mcp_methods("out", "elicitation/create")[0].clone();
        let cancelled = run.mcp_methods("out", "notifications/cancelled");
        assert_eq!(cancelled.len(), 1, "{:?}", run.wire);
        assert_eq!(cancelled[0]["params"]["requestId"], create["id"]);
        let asked = run
            .lines
            .iter()
            .find(|l| l.get("elicited").is_some())
            .unwrap();
        assert_eq!(run.withdrawn(), vec![&asked["id"]], "{:?}", run.lines);
        assert!(run.text().contains("Request timed out"), "{}", run.text());
    }
    // 2026-07-28: the server holds no request while the person is asked; the agent's
    // deadline gives up, withdraws the question and answers `cancel` on the retry.
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &["--deadline", "1"],
            script(
                modes(true, false),
                &["call hop_wait"],
                json!([{ "hold": true }]),
            ),
        ) else {
            return;
        };
        let asked = run
            .lines
            .iter()
            .find(|l| l.get("elicited").is_some())
            .unwrap();
        assert_eq!(
            run.withdrawn(),
            vec![&asked["id"]],
            "{mcp:?}: {:?}",
            run.lines
        );
        assert_eq!(
            tool_answer(&run, "hop_wait"),
            json!({ "action": "cancel", "content": null }),
            "{mcp:?}"
        );
        if mcp == Mcp::V2026 {
            let calls = run.tool_calls();
            assert_eq!(
                calls[1]["params"]["inputResponses"]["wait"],
                json!({ "action": "cancel" })
            );
        }
    }
}

// covers: U1, U2, U3, U4, U5, S6, E5
#[test]
fn url_consent_and_its_completion_cross_both_hops_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, true),
                &["call hop_url"],
                json!([{ "action": "accept", "content": { "ignored": true } }]),
            ),
        ) else {
            return;
        };
        let elicited = run.elicited();
        assert_eq!(elicited.len(), 1, "{mcp:?}: {:?}", run.lines);
        let asked = elicited[0];
        assert_eq!(asked["mode"], "url");
        assert_eq!(
            asked["url"],
            "https://accounts.example.com/connect?state=hop-7f3a"
        );
        // A fresh ACP id, 128 random bits, never the MCP server's.
        let acp_id = asked["elicitationId"].as_str().expect("an elicitationId");
        assert_eq!(acp_id.len(), 32, "{acp_id}");
        assert!(!acp_id.starts_with("hop-url"));
        // The completion, once, with the ACP id, after the consent.
        let completed: Vec<&Value> = run
            .lines
            .iter()
            .filter_map(|l| l.get("completed"))
            .collect();
        assert_eq!(
            completed,
            vec![&json!({ "elicitationId": acp_id })],
            "{mcp:?}"
        );
        // U2, U3: consent only reaches the server.
        assert_eq!(tool_answer(&run, "hop_url"), json!({ "action": "accept" }));
        match mcp {
            Mcp::V2025 => {
                let create = run.mcp_methods("out", "elicitation/create")[0].clone();
                let mcp_id = create["params"]["elicitationId"]
                    .as_str()
                    .unwrap()
                    .to_owned();
                assert_eq!(mcp_id, "hop-url-1");
                let answer = answer_to(&run, &create);
                assert_eq!(answer["result"], json!({ "action": "accept" }));
                let complete = run.mcp_methods("out", "notifications/elicitation/complete");
                assert_eq!(complete[0]["params"]["elicitationId"], mcp_id);
                // The ACP completion came after the MCP one.
                let acp_at = run
                    .lines
                    .iter()
                    .position(|l| l.get("completed").is_some())
                    .unwrap();
                let consent_at = run
                    .lines
                    .iter()
                    .position(|l| l["dir"] == "out" && l["message"]["result"]["action"] == "accept")
                    .unwrap();
                assert!(consent_at < acp_at);
            }
            Mcp::V2026 => {
                let calls = run.tool_calls();
                assert_eq!(
                    calls[1]["params"]["inputResponses"]["connect"],
                    json!({ "action": "accept" })
                );
                let request = &run
                    .wire
                    .iter()
                    .find(|(d, m)| d == "out" && m["result"]["resultType"] == "input_required")
                    .unwrap()
                    .1["result"]["inputRequests"]["connect"];
                assert!(
                    request["params"].get("elicitationId").is_none(),
                    "{request}"
                );
            }
        }
    }
}

// covers: C1, C7, F6
#[test]
fn a_mode_the_acp_client_did_not_declare_is_never_offered_to_the_mcp_server() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, false),
                &["call hop_caps", "call hop_url"],
                json!([]),
            ),
        ) else {
            return;
        };
        // The server's own view of the client.
        assert_eq!(
            tool_answer(&run, "hop_caps"),
            json!({ "elicitation": { "form": {} } }),
            "{mcp:?}"
        );
        // On the MCP wire: initialize (2025-11-25) or every request's _meta (2026-07-28).
        match mcp {
            Mcp::V2025 => {
                let init = run.mcp_methods("in", "initialize")[0];
                assert_eq!(
                    init["params"]["capabilities"]["elicitation"],
                    json!({ "form": {} })
                );
            }
            Mcp::V2026 => {
                for call in run.tool_calls() {
                    assert_eq!(
                        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
                            ["elicitation"],
                        json!({ "form": {} })
                    );
                }
            }
        }
        // The URL tool cannot ask: the person is never shown a URL, nor a form instead.
        assert!(run.elicited().is_empty(), "{:?}", run.elicited());
        assert!(run.text().contains("hop_url"), "{}", run.text());
        assert!(
            !run.text().contains("\"action\":\"accept\""),
            "{}",
            run.text()
        );
    }
    // Nothing declared: no elicitation capability at all.
    for mcp in BOTH {
        let Some(run) = run(mcp, &[], script(json!({}), &["call hop_caps"], json!([]))) else {
            return;
        };
        assert_eq!(
            tool_answer(&run, "hop_caps"),
            json!({ "elicitation": null }),
            "{mcp:?}"
        );
    }
}

// covers: D2, F1, F2
#[test]
fn an_invalid_schema_of_the_mcp_server_is_refused_with_its_reason_and_never_forwarded() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(modes(true, true), &["call hop_invalid"], json!([])),
        ) else {
            return;
        };
        // Never forwarded: the person is asked nothing.
        assert!(run.elicited().is_empty(), "{mcp:?}: {:?}", run.elicited());
        // The reason, shown to the person in the agent's message.
        let text = run.text();
        assert!(
            text.contains("nested objects are not allowed") && text.contains("/properties/address"),
            "{mcp:?}: {text}"
        );
        match mcp {
            Mcp::V2025 => {
                // The server is answered -32602 with each problem and its pointer.
                let create = run.mcp_methods("out", "elicitation/create")[0].clone();
                let answer = answer_to(&run, &create);
                assert_eq!(answer["error"]["code"], -32602, "{answer}");
                assert_eq!(
                    answer["error"]["data"]["problems"][0]["pointer"],
                    "/requestedSchema/properties/address/type"
                );
            }
            Mcp::V2026 => {
                // inputResponses has no place for a refusal: the call ends, not retried.
                assert_eq!(run.tool_calls().len(), 1, "{:?}", run.wire);
                assert!(text.contains("\"address\" was not asked"), "{text}");
            }
        }
    }
}

// covers: D7, F3
#[test]
fn a_pattern_of_the_mcp_server_reaches_the_acp_client_and_is_enforced_on_both_versions() {
    for mcp in BOTH {
        let Some(run) = run(
            mcp,
            &[],
            script(
                modes(true, false),
                &["call hop_pattern", "call hop_pattern"],
                json!([
                    { "action": "accept", "content": { "phone": "call me" } },
                    { "action": "accept", "content": { "phone": "555-1234" } }
                ]),
            ),
        ) else {
            return;
        };
        let elicited = run.elicited();
        assert_eq!(elicited.len(), 2, "{mcp:?}");
        // ACP v1 keeps the pattern: the person's client can check it.
        assert_eq!(
            elicited[0]["requestedSchema"]["properties"]["phone"]["pattern"], "^[0-9]{3}-[0-9]{4}$",
            "{mcp:?}"
        );
        // An answer that breaks it never reaches the MCP server.
        let text = run.text();
        assert!(
            text.contains("does not match the pattern"),
            "{mcp:?}: {text}"
        );
        let reached_server = run
            .wire
            .iter()
            .any(|(d, m)| d == "in" && m.to_string().contains("call me"));
        assert!(!reached_server, "{mcp:?}: {:?}", run.wire);
        // One that keeps it does.
        assert!(
            text.contains(r#"hop_pattern: {"action":"accept","content":{"phone":"555-1234"}}"#),
            "{mcp:?}: {text}"
        );
    }
}

/// `acp_client` (elicit's terminal client on the official ACP SDK) in a real terminal
/// in front of the agent hosting a TypeScript server: what a person sees of a URL
/// consent that crossed both hops, and its completion.
#[cfg(feature = "inquire")]
mod in_tmux {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::time::{Duration, Instant};

    use super::{folder, node, BOTH};
    use crate::common;

    /// One tmux server of its own (`-L`), one 100×40 pane; killed on drop.
    struct Tmux {
        socket: String,
    }

    impl Tmux {
        fn start(name: &str, command: &str) -> Option<Tmux> {
            if let Err(why) = Command::new("tmux").arg("-V").output() {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "tmux cannot be run ({why}); on CI .ci/tmux installs it"
                );
                eprintln!("skipped: tmux cannot be run ({why})");
                return None;
            }
            let tmux = Tmux {
                socket: format!("elicit-three-hops-{}-{name}", std::process::id()),
            };
            let pane = format!("{command}; echo \"[exit $?]\"; sleep 600");
            let started = tmux.run(&[
                "new-session",
                "-d",
                "-s",
                "T",
                "-x",
                "100",
                "-y",
                "40",
                &pane,
            ]);
            assert!(started.status.success(), "tmux did not start: {started:?}");
            Some(tmux)
        }

        fn run(&self, args: &[&str]) -> Output {
            Command::new("tmux")
                .args(["-L", &self.socket, "-f", "/dev/null", "-u"])
                .args(args)
                .env("LC_ALL", "C.UTF-8")
                .output()
                .expect("tmux runs")
        }

        fn history(&self) -> String {
            let output = self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "T"]);
            String::from_utf8_lossy(&output.stdout).into_owned()
        }

        fn screen(&self) -> String {
            let output = self.run(&["capture-pane", "-p", "-t", "T"]);
            String::from_utf8_lossy(&output.stdout).into_owned()
        }

        /// Waits (bounded) until the pane has shown every one of `texts`.
        fn wait_for_all(&self, texts: &[&str]) -> String {
            let start = Instant::now();
            loop {
                let history = self.history();
                if texts.iter().all(|text| history.contains(text)) {
                    return history;
                }
                assert!(
                    start.elapsed() < Duration::from_secs(60),
                    "{texts:?} not all shown within 60 s; the screen:\n{}",
                    self.screen()
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        }

        fn keys(&self, keys: &[&str]) {
            let mut args = vec!["send-keys", "-t", "T"];
            args.extend_from_slice(keys);
            assert!(self.run(&args).status.success(), "send-keys {keys:?}");
        }
    }

    impl Drop for Tmux {
        fn drop(&mut self) {
            let socket = self.run(&["display-message", "-p", "#{socket_path}"]);
            let _ = self.run(&["kill-server"]);
            let socket = String::from_utf8_lossy(&socket.stdout).trim().to_owned();
            if socket.contains(&self.socket) {
                let _ = std::fs::remove_file(socket);
            }
        }
    }

    fn quote(text: &Path) -> String {
        let text = text.to_str().expect("a UTF-8 path");
        format!("'{}'", text.replace('\'', r"'\''"))
    }

    // covers: U1, U2, U4, U5, S2, K1
    #[test]
    fn a_url_consent_across_both_hops_in_a_real_terminal_on_both_versions() {
        let Some(node) = node() else {
            return;
        };
        let client = common::build_example("acp_client");
        let agent = super::agent_binary();
        for mcp in BOTH {
            let tag = mcp.version().replace('-', "_");
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("three_hops_url_{tag}.out"));
            let wire = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("three_hops_url_{tag}.jsonl"));
            let _ = std::fs::remove_file(&out);
            let _ = std::fs::remove_file(&wire);
            let command = format!(
                "ELICIT_MCP_WIRE={} {} --prompt 'call hop_url' -- {} -- {} {} > {}",
                quote(&wire),
                quote(&client),
                quote(agent),
                quote(&node),
                quote(&folder().join(mcp.server())),
                quote(&out),
            );
            let Some(tmux) = Tmux::start(&tag, &command) else {
                return;
            };
            tmux.wait_for_all(&["Open this page?", "Enter"]);
            let screen = tmux.screen();
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/screens");
            std::fs::create_dir_all(&dir).expect("target/ is writable");
            std::fs::write(dir.join(format!("three_hops_url_{tag}.txt")), &screen)
                .expect("target/screens is writable");
            eprintln!("===== {mcp:?}: the URL consent =====\n{screen}=====");
            // The whole address and its site before consent, the question's origin
            // (the session and the tool call) beside the agent's message.
            for shown in [
                "asks: Connect your account",
                "Address: https://accounts.example.com/connect?state=hop-7f3a",
                "Site:    accounts.[example.com]",
                "tool call call-1",
            ] {
                assert!(
                    screen.replace('\n', "").contains(shown),
                    "{mcp:?}: `{shown}` not shown:\n{screen}"
                );
            }
            tmux.keys(&["y", "Enter"]);
            let history = tmux.wait_for_all(&["is complete", "[exit "]);
            assert!(history.contains("[exit 0]"), "{mcp:?}:\n{history}");
            assert!(history.contains("Consented."), "{mcp:?}:\n{history}");
            let answer = std::fs::read_to_string(&out).expect("the client's stdout");
            assert!(
                answer.contains(r#"hop_url: {"action":"accept"}"#),
                "{mcp:?}: {answer}"
            );
            // The consent reached the MCP server (and only the consent).
            let wire = std::fs::read_to_string(&wire).expect("the MCP wire");
            assert!(wire.contains(r#"{"action":"accept"}"#), "{mcp:?}: {wire}");
            let _ = std::fs::remove_file(&out);
        }
    }
}
