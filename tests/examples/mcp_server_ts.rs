//! `examples/mcp_server.rs`, uncapped, driven by the official MCP TypeScript clients:
//! `tests/mcp_ts/client.mjs` (`@modelcontextprotocol/sdk` 1.x, MCP 2025-11-25: the
//! server pushes `elicitation/create`) and `tests/mcp_ts/client_v2.mjs` (the v2 client
//! package `@modelcontextprotocol/client`, pinned to MCP 2026-07-28: the questions come
//! in `input_required` results, which the SDK fulfils and retries). Each starts the
//! built example over stdio, calls its tools and answers each elicitation from a
//! script, as a person would through the SDK's handler. The SDKs check every request
//! they receive and every answer they give; this test checks what the person was
//! asked, what the tools answered, and every message of the exchange against the
//! official MCP schema of the version spoken.
//!
//! Needs Node and the SDK installed by `.ci/mcp-ts`; without them the test is skipped,
//! unless `CI` is set, where it fails.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

use crate::common;
use crate::protocol_support::rmcp_wire::{assert_valid_messages, Side};

/// Node, or `None` (skipped) when it is not installed and `CI` is not set.
fn node() -> Option<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_ts");
    let node = std::fs::read_to_string(folder.join("node_modules/.elicit-node"))
        .ok()
        .map(|path| PathBuf::from(path.trim()))
        .filter(|node| node.is_file());
    if node.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "Node and the MCP TypeScript SDK are missing: run .ci/mcp-ts before the tests"
        );
        eprintln!("skipped: run .ci/mcp-ts to install Node and the MCP TypeScript SDK");
    }
    node
}

/// What `client.mjs` printed, line by line, after running `script` against the example.
async fn run(script: Value) -> Option<Vec<Value>> {
    run_with("client.mjs", script).await
}

/// What the client script `client` printed after running `script` against the example.
async fn run_with(client: &str, script: Value) -> Option<Vec<Value>> {
    let node = node()?;
    let server = common::build_example("mcp_server");
    let client = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp_ts")
        .join(client);
    let mut child = Command::new(node)
        .arg(client)
        .arg(script.to_string())
        .arg("--")
        .arg(server)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("node starts");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut out = String::new();
    tokio::time::timeout(Duration::from_secs(60), stdout.read_to_string(&mut out))
        .await
        .expect("the TypeScript client finished within 60 s")
        .expect("its stdout is readable");
    let status = child.wait().await.expect("the client exits");
    assert!(status.success(), "client.mjs failed: {status}\n{out}");
    Some(
        out.lines()
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect(),
    )
}

fn elicited(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter_map(|line| line.get("elicited"))
        .collect()
}

fn result_text(lines: &[Value], tool: &str) -> String {
    let result = lines
        .iter()
        .filter_map(|line| line.get("result"))
        .find(|result| result["tool"] == tool)
        .unwrap_or_else(|| panic!("no result of {tool}: {lines:?}"));
    assert!(result.get("error").is_none(), "{tool} failed: {result}");
    result["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"))
        .to_owned()
}

/// Every elicitation message of the exchange, checked against MCP 2025-11-25.
fn assert_wire_valid(lines: &[Value]) -> usize {
    let messages: Vec<(Side, Value)> = lines
        .iter()
        .filter_map(|line| match line["dir"].as_str() {
            Some("in") => Some((Side::Server, line["message"].clone())),
            Some("out") => Some((Side::Client, line["message"].clone())),
            _ => None,
        })
        .collect();
    assert_valid_messages(&messages)
}

// covers: M7, F3, R1, D13
#[tokio::test]
async fn a_pattern_broken_is_asked_again_then_a_second_question() {
    let script = json!([{
        "tool": "book_table",
        "arguments": { "restaurant": "Chez TS" },
        "answers": [
            { "action": "accept", "content": { "party_size": 10, "phone": "call me" } },
            { "action": "accept", "content": { "party_size": 10, "phone": "+33 123 456 789" } },
            { "action": "accept", "content": { "pay": true } }
        ]
    }]);
    let Some(lines) = run(script).await else {
        return;
    };
    assert_eq!(
        result_text(&lines, "book_table"),
        "Booked a table for 10 at Chez TS; the restaurant will call +33 123 456 789."
    );
    let asked = elicited(&lines);
    assert_eq!(asked.len(), 3, "{asked:?}");
    let phone = |i: usize| &asked[i]["requestedSchema"]["properties"]["phone"];
    // M7: said in words, not sent.
    assert!(phone(0).get("pattern").is_none());
    assert!(phone(0)["description"]
        .as_str()
        .unwrap()
        .contains("must match the pattern"));
    // Asked again with the problem beside the field, the right answer kept.
    assert!(phone(1)["description"]
        .as_str()
        .unwrap()
        .starts_with("⚠ does not match the pattern"));
    assert_eq!(
        asked[1]["requestedSchema"]["properties"]["party_size"]["default"],
        10
    );
    assert_eq!(
        asked[2]["requestedSchema"]["properties"]["pay"]["type"],
        "boolean"
    );
    assert!(assert_wire_valid(&lines) >= 6);
}

// covers: U1, U2, U5, M3
#[tokio::test]
async fn url_mode_and_a_form_through_the_typescript_client() {
    let script = json!([
        {
            "tool": "connect_account",
            "answers": [{ "action": "accept" }]
        },
        {
            "tool": "plan_task",
            "arguments": { "task": "Tidy up" },
            "answers": [{ "action": "accept", "content": {
                "strategy": "Balanced", "passes": 2, "run_tests": true } }]
        }
    ]);
    let Some(lines) = run(script).await else {
        return;
    };
    let asked = elicited(&lines);
    assert_eq!(asked[0]["mode"], "url");
    let id = asked[0]["elicitationId"]
        .as_str()
        .expect("an id on 2025-11-25");
    assert!(result_text(&lines, "connect_account").contains(id));
    let completed: Vec<&Value> = lines.iter().filter_map(|l| l.get("completed")).collect();
    assert_eq!(completed, [&json!(id)], "U5: one completion, same id");
    assert!(result_text(&lines, "plan_task").contains("strategy Balanced"));
    assert!(assert_wire_valid(&lines) >= 5);
}

/// Every message of a 2026-07-28 exchange checked against that version's schema: each
/// `tools/call` the client sent (its retries carry `inputResponses` and `requestState`)
/// and each result the server answered with; no request pushed by the server (M6).
fn assert_wire_valid_2026(lines: &[Value]) -> usize {
    use crate::protocol_support::assert_mcp;
    let mut checked = 0;
    for line in lines {
        let message = &line["message"];
        match line["dir"].as_str() {
            Some("out") if message["method"] == "tools/call" => {
                assert_mcp("2026-07-28", "CallToolRequest", message);
                checked += 1;
            }
            Some("in") => {
                assert!(
                    message.get("method").is_none(),
                    "M6: nothing pushed: {message}"
                );
                match message["result"]["resultType"].as_str() {
                    Some("input_required") => {
                        assert_mcp("2026-07-28", "InputRequiredResult", &message["result"]);
                        checked += 1;
                    }
                    Some("complete") => {
                        assert_mcp("2026-07-28", "CallToolResult", &message["result"]);
                        checked += 1;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    checked
}

// covers: M6, M7, F3, U1, U2
#[tokio::test]
async fn the_same_tools_on_2026_07_28_through_the_typescript_v2_client() {
    let script = json!([
        {
            "tool": "book_table",
            "arguments": { "restaurant": "Chez V2" },
            "answers": [
                { "action": "accept", "content": { "party_size": 10, "phone": "call me" } },
                { "action": "accept", "content": { "party_size": 10, "phone": "+33 123 456 789" } },
                { "action": "accept", "content": { "pay": true } }
            ]
        },
        { "tool": "connect_account", "answers": [{ "action": "accept" }] }
    ]);
    let Some(lines) = run_with("client_v2.mjs", script).await else {
        return;
    };
    assert!(
        lines.contains(&json!({ "negotiated": "2026-07-28" })),
        "{lines:?}"
    );
    assert_eq!(
        result_text(&lines, "book_table"),
        "Booked a table for 10 at Chez V2; the restaurant will call +33 123 456 789."
    );
    let asked = elicited(&lines);
    assert_eq!(asked.len(), 4, "three forms and a URL: {asked:?}");
    assert!(
        asked[1]["requestedSchema"]["properties"]["phone"]["description"]
            .as_str()
            .unwrap()
            .starts_with("⚠ does not match the pattern")
    );
    assert_eq!(asked[3]["mode"], "url");
    assert!(result_text(&lines, "connect_account")
        .starts_with("You consented; the account is connected (ref "));
    // Four rounds of book_table, two of connect_account: each request and each result.
    assert!(assert_wire_valid_2026(&lines) >= 12, "{lines:?}");
}
