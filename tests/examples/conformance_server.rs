//! Drives `examples/conformance_server.rs` as the conformance suite does, with rmcp's
//! own client over Streamable HTTP: the built example runs as a child process on a
//! loopback port it picks (port 0) and prints its URL; a 2025-11-25 client initializes
//! a session, calls a tool and answers the `elicitation/create` the tool pushes. The
//! request is checked against the official MCP 2025-11-25 schema, and the tool's result
//! against the answer given. (`.ci/conformance-server` runs the suite itself.)
//!
//! Every wait is bounded (`rmcp_wire::LIMIT`); the child is killed when dropped.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;

use ::rmcp::model::{ElicitRequest, ElicitRequestParams};
use ::rmcp::service::{RoleClient, RunningService};
use ::rmcp::transport::StreamableHttpClientTransport;
use ::rmcp::ServiceExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::common;
use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{accept, bounded, call_tool, tool_text, TestClient};

fn example() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| common::build_example("conformance_server"))
}

/// The example serving on loopback, and rmcp's client in a session with it.
struct Session {
    client: RunningService<RoleClient, TestClient>,
    handler: TestClient,
    _child: Child,
}

async fn start(handler: TestClient) -> Session {
    let mut child = Command::new(example())
        .arg("0")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the example starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let url = bounded("the example's URL", lines.next_line())
        .await
        .expect("the example's stdout")
        .expect("the example prints its URL");
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "a loopback URL: {url}"
    );
    let transport = StreamableHttpClientTransport::from_uri(url.as_str());
    let client = bounded("initialize", handler.clone().serve(transport))
        .await
        .expect("the client initializes with the example");
    Session {
        client,
        handler,
        _child: child,
    }
}

/// The one request the client was asked, as a JSON-RPC `elicitation/create`.
fn asked_request(handler: &TestClient) -> Value {
    let asked = handler.asked.lock().unwrap();
    assert_eq!(asked.len(), 1, "one elicitation: {asked:?}");
    let params: &ElicitRequestParams = &asked[0];
    let request = ElicitRequest::new(params.clone());
    let mut json = serde_json::to_value(&request).expect("rmcp's request serializes");
    json["jsonrpc"] = json!("2.0");
    json["id"] = json!(1);
    json
}

// covers: M1, M7, F2, R1
#[tokio::test]
async fn test_elicitation_asks_for_the_user_and_reports_the_answer() {
    let handler = TestClient::new(Some(json!({})), |_| {
        accept(json!({ "username": "testuser", "email": "test@example.com" }))
    });
    let session = start(handler).await;
    let result = call_tool(
        &session.client,
        "test_elicitation",
        json!({ "message": "Please provide your information" }),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = tool_text(&result);
    assert!(text.contains("action=accept"), "{text}");
    assert!(
        text.contains("testuser") && text.contains("test@example.com"),
        "{text}"
    );
    let request = asked_request(&session.handler);
    assert_mcp("2025-11-25", "ElicitRequest", &request);
    let params = &request["params"];
    assert_eq!(params["message"], "Please provide your information");
    assert_eq!(
        params["requestedSchema"]["required"],
        json!(["username", "email"])
    );
    assert_eq!(
        params["requestedSchema"]["properties"]["email"]["format"],
        "email"
    );
    bounded("cancel", session.client.cancel())
        .await
        .expect("the session closes");
}

// covers: M5, F2, F3
#[tokio::test]
async fn the_sep1330_form_carries_the_legacy_select_and_validates_the_answer() {
    let handler = TestClient::new(Some(json!({ "form": {} })), |_| {
        accept(json!({
            "untitledSingle": "option1",
            "titledSingle": "value1",
            "legacyEnum": "opt1",
            "untitledMulti": ["option1", "option2"],
            "titledMulti": ["value1", "value2"]
        }))
    });
    let session = start(handler).await;
    let result = call_tool(&session.client, "test_elicitation_sep1330_enums", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = tool_text(&result);
    assert!(
        text.contains("action=accept") && text.contains("Opt1"),
        "{text}"
    );
    let request = asked_request(&session.handler);
    assert_mcp("2025-11-25", "ElicitRequest", &request);
    let properties = &request["params"]["requestedSchema"]["properties"];
    // M5: the server's explicit choice for this one property; the others as
    // 2025-11-25 writes them.
    assert_eq!(
        properties["legacyEnum"]["enumNames"],
        json!(["Option One", "Option Two", "Option Three"])
    );
    assert_eq!(
        properties["legacyEnum"]["enum"],
        json!(["opt1", "opt2", "opt3"])
    );
    assert_mcp(
        "2025-11-25",
        "LegacyTitledEnumSchema",
        &properties["legacyEnum"],
    );
    assert!(
        properties["titledSingle"].get("oneOf").is_some(),
        "{properties}"
    );
    assert!(properties["titledSingle"].get("enumNames").is_none());
    assert!(properties["titledMulti"]["items"].get("anyOf").is_some());

    // An answer outside the options is refused, not reported (F3).
    let handler = TestClient::new(Some(json!({ "form": {} })), |_| {
        accept(json!({
            "untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "Option One",
            "untitledMulti": [], "titledMulti": []
        }))
    });
    let session = start(handler).await;
    let mut call = ::rmcp::model::CallToolRequestParams::new("test_elicitation_sep1330_enums");
    call = call.with_arguments(serde_json::Map::new());
    let refused = bounded("the invalid answer", session.client.call_tool(call)).await;
    let error = refused.expect_err("an invalid answer is an error of the call");
    assert!(error.to_string().contains("legacyEnum"), "{error}");
}
