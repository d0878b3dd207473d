//! `elicit::rmcp::client` against a server written by hand over an in-memory pipe: the
//! test writes the server's JSON-RPC lines itself, so the bytes the client reads are
//! exactly the ones asserted on.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::sync::{Arc, Mutex};

use ::rmcp::model::ProtocolVersion;
use ::rmcp::ServiceExt;
use elicit::client::{AskFuture, Asker, FieldAnswer, FieldPrompt, ReviewChoice, ReviewPrompt};
use elicit::rmcp::client::{ElicitClient, RawTap};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::protocol_support::rmcp_wire::bounded;

/// Records each field it is asked (name, option descriptions, the property's `_meta`)
/// and keeps every default.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<Seen>>>);

/// A field's name, its options' descriptions and its `_meta`.
type Seen = (String, Vec<Option<String>>, Option<Value>);

impl Asker for Recording {
    fn ask_field<'a>(&'a mut self, prompt: FieldPrompt<'a>) -> AskFuture<'a, FieldAnswer> {
        let field = prompt.field;
        let descriptions = field
            .options()
            .iter()
            .map(|c| c.description.map(str::to_owned))
            .collect();
        let meta = field
            .property()
            .schema()
            .meta()
            .map(|m| Value::Object(m.clone()));
        self.0
            .lock()
            .unwrap()
            .push((field.name().to_owned(), descriptions, meta));
        Box::pin(std::future::ready(FieldAnswer::Keep))
    }
    fn review<'a>(&'a mut self, _: ReviewPrompt<'a>) -> AskFuture<'a, ReviewChoice> {
        Box::pin(std::future::ready(ReviewChoice::Send))
    }
}

// covers: D13, E7, F4
#[tokio::test]
async fn the_asker_sees_the_servers_order_option_descriptions_and_meta() {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (client_read, client_write) = tokio::io::split(client_io);
    let asker = Recording::default();
    let tap = RawTap::new();
    let handler = ElicitClient::new(asker.clone())
        .with_tap(tap.clone())
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
    let client = tokio::spawn(handler.serve((tap.reader(client_read), client_write)));

    let (server_read, mut server_write) = tokio::io::split(server_io);
    let mut lines = BufReader::new(server_read).lines();
    let initialize: Value = serde_json::from_str(
        &bounded("initialize", lines.next_line())
            .await
            .unwrap()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(initialize["method"], "initialize");
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({ "form": {}, "url": {} })
    );
    let reply = json!({ "jsonrpc": "2.0", "id": initialize["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "serverInfo": { "name": "raw-server", "version": "1" } } });
    server_write
        .write_all(format!("{reply}\n").as_bytes())
        .await
        .unwrap();
    let _client = bounded("the handshake", client).await.unwrap().unwrap();

    // Not alphabetical; an option description and a `_meta` rmcp's typed model drops.
    let create = r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{"mode":"form","message":"Pick","requestedSchema":{"type":"object","properties":{"zeta":{"type":"string","default":"z","_meta":{"x.example/hint":1}},"alpha":{"type":"string","oneOf":[{"const":"a","title":"A","description":"the first"}],"default":"a"},"mid":{"type":"integer","default":3}}}}}"#;
    server_write
        .write_all(format!("{create}\n").as_bytes())
        .await
        .unwrap();
    let response = loop {
        let line = bounded("the response", lines.next_line())
            .await
            .unwrap()
            .unwrap();
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 7 {
            break (line, message);
        }
    };
    assert_eq!(
        response.1["result"],
        json!({ "action": "accept", "content": { "zeta": "z", "alpha": "a", "mid": 3 } })
    );
    // D13 on the client's bytes too.
    let at = |k: &str| response.0.find(&format!("\"{k}\"")).unwrap();
    assert!(
        at("zeta") < at("alpha") && at("alpha") < at("mid"),
        "{}",
        response.0
    );
    let seen = asker.0.lock().unwrap().clone();
    let names: Vec<&str> = seen.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    assert_eq!(seen[0].2, Some(json!({ "x.example/hint": 1 })));
    assert_eq!(seen[1].1, vec![Some("the first".to_owned())]);
}

// covers: M6
#[test]
fn the_lifecycle_follows_the_protocol_version_asked_for() {
    use ::rmcp::ClientLifecycleMode;
    use elicit::client::ScriptedAsker;
    use rmcp::ClientHandler;

    // Nothing asked: discover the newest, fall back to initialize with 2025-11-25.
    let client = ElicitClient::new(ScriptedAsker::accept_defaults());
    match client.lifecycle() {
        ClientLifecycleMode::Auto {
            preferred_versions,
            legacy_version,
        } => {
            assert_eq!(preferred_versions, [ProtocolVersion::V_2026_07_28]);
            assert_eq!(legacy_version, Some(ProtocolVersion::V_2025_11_25));
        }
        other => panic!("expected Auto, got {other:?}"),
    }
    assert_eq!(
        client.get_info().protocol_version,
        ProtocolVersion::V_2025_11_25
    );

    // 2026-07-28 has no handshake: server/discover only.
    let client = ElicitClient::new(ScriptedAsker::accept_defaults())
        .with_protocol_version(ProtocolVersion::V_2026_07_28);
    assert_eq!(
        client.lifecycle(),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28]
        }
    );

    // 2025-11-25: initialize, offering exactly that version.
    let client = ElicitClient::new(ScriptedAsker::accept_defaults())
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
    assert_eq!(client.lifecycle(), ClientLifecycleMode::Initialize);
    assert_eq!(
        client.get_info().protocol_version,
        ProtocolVersion::V_2025_11_25
    );
}

// covers: D13, F4, M6
#[tokio::test]
async fn on_2026_07_28_the_answer_goes_inside_the_retry_with_the_request_state() {
    use ::rmcp::model::CallToolRequestParams;
    use ::rmcp::ClientServiceExt;
    use elicit::client::ScriptedAsker;

    use crate::protocol_support::assert_mcp;

    const V: &str = "2026-07-28";
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let (client_read, client_write) = tokio::io::split(client_io);
    let handler = ElicitClient::new(ScriptedAsker::accept_defaults())
        .with_protocol_version(ProtocolVersion::V_2026_07_28);
    let lifecycle = handler.lifecycle();
    let client = tokio::spawn(handler.serve_with_lifecycle((client_read, client_write), lifecycle));

    let (server_read, mut server_write) = tokio::io::split(server_io);
    let mut lines = BufReader::new(server_read).lines();
    let mut next = async || -> (String, Value) {
        let line = bounded("a client message", lines.next_line())
            .await
            .unwrap()
            .expect("the client is still connected");
        let message = serde_json::from_str(&line).unwrap();
        (line, message)
    };

    // No initialize: server/discover, valid 2026-07-28.
    let (_, discover) = next().await;
    assert_eq!(discover["method"], "server/discover");
    assert_mcp(V, "DiscoverRequest", &discover);
    let reply = json!({ "jsonrpc": "2.0", "id": discover["id"], "result": {
        "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
        "supportedVersions": [V], "capabilities": { "tools": {} },
        "serverInfo": { "name": "raw-server", "version": "1" } } });
    server_write
        .write_all(format!("{reply}\n").as_bytes())
        .await
        .unwrap();
    let client = bounded("the discovery", client).await.unwrap().unwrap();

    let call = tokio::spawn(async move {
        let result = client
            .call_tool(CallToolRequestParams::new("t"))
            .await
            .map(|r| serde_json::to_value(r).unwrap());
        (client, result)
    });
    let (_, first) = next().await;
    assert_mcp(V, "CallToolRequest", &first);
    assert!(first["params"].get("requestState").is_none());
    // The input request: not alphabetical, every field with a default.
    let input_required = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{\"resultType\":\"input_required\",\
         \"inputRequests\":{{\"ask\":{{\"method\":\"elicitation/create\",\"params\":{{\
         \"mode\":\"form\",\"message\":\"Confirm\",\"requestedSchema\":{{\"type\":\"object\",\
         \"properties\":{{\"zeta\":{{\"type\":\"string\",\"default\":\"z\"}},\
         \"alpha\":{{\"type\":\"integer\",\"default\":2}}}},\"required\":[\"zeta\"]}}}}}}}},\
         \"requestState\":\"opaque-1\"}}}}",
        first["id"]
    );
    server_write
        .write_all(format!("{input_required}\n").as_bytes())
        .await
        .unwrap();

    let (raw, retry) = next().await;
    assert_mcp(V, "CallToolRequest", &retry);
    assert_ne!(retry["id"], first["id"], "a new JSON-RPC id");
    assert_eq!(
        retry["params"]["requestState"], "opaque-1",
        "echoed exactly"
    );
    let answer = &retry["params"]["inputResponses"]["ask"];
    assert_mcp(V, "ElicitResult", answer);
    assert_eq!(
        answer,
        &json!({ "action": "accept", "content": { "zeta": "z", "alpha": 2 } })
    );
    // The server's order, through rmcp's typed input request (D13).
    assert!(
        raw.find("\"zeta\"").unwrap() < raw.find("\"alpha\"").unwrap(),
        "{raw}"
    );
    let done = json!({ "jsonrpc": "2.0", "id": retry["id"], "result": {
        "resultType": "complete", "content": [{ "type": "text", "text": "ok" }] } });
    server_write
        .write_all(format!("{done}\n").as_bytes())
        .await
        .unwrap();
    let (_client, result) = bounded("the tool call", call).await.unwrap();
    assert_eq!(
        result.expect("the call completes")["content"][0]["text"],
        "ok"
    );
}

// covers: D7, D13, M6
#[test]
fn a_tap_keeps_the_raw_input_requests_of_an_input_required_result_by_key() {
    use ::rmcp::model::NumberOrString;
    let phone = json!({
        "mode": "form",
        "message": "Your phone number?",
        "requestedSchema": { "type": "object", "properties": {
            "phone": { "type": "string", "pattern": "^[0-9]{3}-[0-9]{4}$" } } }
    });
    let tap = RawTap::new();
    let line = json!({ "jsonrpc": "2.0", "id": 7, "result": {
        "resultType": "input_required",
        "inputRequests": {
            "phone": { "method": "elicitation/create", "params": phone },
            "roots": { "method": "roots/list" }
        },
        "requestState": "s"
    } });
    tap.record(line.to_string().as_bytes());
    // rmcp names an input request by its key: the raw params, `pattern` and all (rmcp's
    // typed model has no `pattern`).
    let key = NumberOrString::String("phone".into());
    assert_eq!(tap.take(&key), Some(phone.clone()));
    assert_eq!(tap.take(&key), None, "taken once");
    // Only elicitations are kept.
    assert_eq!(tap.take(&NumberOrString::String("roots".into())), None);
    // What no handler took is handed over once, for the bridge to say why.
    tap.record(line.to_string().as_bytes());
    assert_eq!(tap.take_input_requests(), vec![("phone".to_owned(), phone)]);
    assert!(tap.take_input_requests().is_empty());
    // A request the server pushes is still kept by its id.
    let pushed = json!({ "jsonrpc": "2.0", "id": 3, "method": "elicitation/create",
        "params": { "message": "m", "requestedSchema": { "type": "object", "properties": {} } } });
    tap.record(pushed.to_string().as_bytes());
    assert_eq!(
        tap.take(&NumberOrString::Number(3)),
        Some(pushed["params"].clone())
    );
}
