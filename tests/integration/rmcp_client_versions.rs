//! `ElicitClient::connect` at its default (no version asked for) against rmcp servers
//! of every age, in one process over in-memory pipes: a server at rmcp's default
//! (MCP 2026-07-28), servers capped at 2025-11-25 and at 2025-06-18 (rmcp answers
//! their `server/discover` with `-32022` and their list), servers that answer
//! `server/discover` with method-not-found, and servers with no version in common.
//!
//! A relay between the two records every line, so each test asserts what the server
//! received: the version offered in `initialize` and the `elicitation` capability in
//! the shape of that version (`{}` for 2025-06-18, `{"form": {}, "url": {}}` for
//! 2025-11-25 and, per request in `_meta`, for 2026-07-28), each message checked
//! against the official MCP schema of the version spoken. Every server's one tool asks
//! for a form and answers with what it got, so a round trip is proven on each version:
//! pushed as `elicitation/create` up to 2025-11-25, inside an `InputRequiredResult` on
//! 2026-07-28.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::borrow::Cow;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, DiscoverResult,
    ErrorCode, Implementation, InputRequests, InputRequiredResult, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use ::rmcp::service::{RequestContext, RoleClient, RoleServer, RunningService};
use ::rmcp::{ErrorData, ServerHandler, ServiceExt};
use elicit::client::ScriptedAsker;
use elicit::rmcp::client::{ConnectError, ElicitClient};
use elicit::rmcp::input;
use elicit::{Elicit, Elicited};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{bounded, in_memory, parse, tool_text, Relay, Side, Wire};

/// The form every server asks for: its one required field has a default, so the
/// headless client (`ScriptedAsker::accept_defaults`) accepts it with that default.
#[derive(Elicit, Debug)]
struct Passes {
    #[elicit(title = "Passes", minimum = 1, maximum = 5, default = 3)]
    passes: u8,
}

/// An rmcp server speaking `versions` (rmcp's default: every version it knows), whose
/// tool `plan` asks for [`Passes`] the way the request's version allows. With
/// `refuse_discover`, it answers `server/discover` with method-not-found, as a server
/// written before 2026-07-28 does.
#[derive(Clone)]
struct Server {
    versions: Vec<ProtocolVersion>,
    refuse_discover: bool,
}

impl Server {
    fn speaking(versions: &[ProtocolVersion]) -> Self {
        Server {
            versions: versions.to_vec(),
            refuse_discover: false,
        }
    }

    fn refusing_discover(versions: &[ProtocolVersion]) -> Self {
        Server {
            versions: versions.to_vec(),
            refuse_discover: true,
        }
    }
}

/// The answer the tool gives, from what it got.
fn said(answer: Elicited<Passes>) -> CallToolResponse {
    let text = match answer {
        Elicited::Accepted(Passes { passes }) => format!("passes {passes}"),
        other => format!("{other:?}"),
    };
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

fn failed(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("versions-server", "1"))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        let mut versions = self.versions.clone();
        if self.refuse_discover {
            // rmcp checks the version of `server/discover` against this list before
            // the handler sees it: listing 2026-07-28 lets it reach `discover` below.
            // `initialize` still settles on the newest of `versions` (rmcp's
            // negotiation: the version offered if listed with `initialize`, else the
            // newest listed with it).
            versions.push(ProtocolVersion::V_2026_07_28);
        }
        Cow::Owned(versions)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let _ = context;
        if self.refuse_discover {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "server/discover",
                None,
            ));
        }
        Ok(DiscoverResult::from_server_info(
            self.versions.clone(),
            self.get_info(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let modern = context
            .protocol_version()
            .is_some_and(|version| !version.has_initialize());
        if !modern {
            // Up to 2025-11-25: pushed, read from the capability `initialize` declared.
            let answer = elicit::rmcp::ask::<Passes>(&context.peer, "How many passes?")
                .await
                .map_err(failed)?;
            return Ok(said(answer));
        }
        // 2026-07-28: asked inside the result, read from the retry.
        match input::read::<Passes>(request.input_responses.as_ref(), "passes").map_err(failed)? {
            Some(answer) => Ok(said(answer)),
            None => {
                let mut requests = InputRequests::new();
                requests.insert(
                    "passes".into(),
                    input::form::<Passes>(&context, "How many passes?").map_err(failed)?,
                );
                Ok(InputRequiredResult::from_input_requests(requests).into())
            }
        }
    }
}

type Client = RunningService<RoleClient, ElicitClient<ScriptedAsker>>;

/// Serves `server` and connects the client at its default (or at `version`).
async fn connect(
    server: Server,
    version: Option<ProtocolVersion>,
) -> (Result<Client, ConnectError>, Wire) {
    let (server_io, client_io, wire) = in_memory(Relay::default());
    // The server lives as long as its side of the pipe: it ends when the client does.
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let mut handler = ElicitClient::new(ScriptedAsker::accept_defaults());
    if let Some(version) = version {
        handler = handler.with_protocol_version(version);
    }
    let client = bounded("the handshake", handler.connect(client_io)).await;
    (client, wire)
}

/// The messages the server received, parsed.
fn received(wire: &Wire) -> Vec<Value> {
    wire.lines()
        .into_iter()
        .filter(|(side, _)| *side == Side::Client)
        .map(|(_, line)| parse(&line))
        .collect()
}

/// The one request of `method` on the wire, from either side.
fn request(wire: &Wire, method: &str) -> Value {
    let mut found: Vec<Value> = wire
        .lines()
        .into_iter()
        .map(|(_, line)| parse(&line))
        .filter(|m| m["method"] == method)
        .collect();
    assert_eq!(found.len(), 1, "one {method}: {found:?}");
    found.remove(0)
}

/// Calls `plan` and returns what the tool got.
async fn plan(client: &Client) -> String {
    let result = bounded("plan", client.call_tool(CallToolRequestParams::new("plan")))
        .await
        .expect("plan answers");
    tool_text(&result)
}

fn version_of(client: &Client) -> String {
    client
        .peer_info()
        .expect("the server is known after the handshake")
        .protocol_version
        .to_string()
}

/// The checks of a connection that fell back to `initialize`: the server received
/// `server/discover`, then `initialize` offering `offered` with the capability
/// `capability`, valid in the schema of the version offered; the client speaks
/// `spoken`; and a form round-trips by `elicitation/create`.
async fn assert_initialized(
    client: &Client,
    wire: &Wire,
    offered: &str,
    capability: Value,
    spoken: &str,
) {
    let received = received(wire);
    assert_eq!(received[0]["method"], "server/discover", "{received:?}");
    assert_eq!(received[1]["method"], "initialize", "{received:?}");
    let initialize = &received[1];
    assert_eq!(initialize["params"]["protocolVersion"], offered);
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"], capability,
        "the capability in the shape of {offered}"
    );
    if offered != "2025-06-18" {
        // The schema helper reads the schemas of 2025-11-25 and later.
        assert_mcp(offered, "InitializeRequest", initialize);
    }
    assert_eq!(version_of(client), spoken);

    assert_eq!(plan(client).await, "passes 3");
    let create = request(wire, "elicitation/create");
    assert_eq!(
        create["params"]["requestedSchema"]["properties"]["passes"]["default"],
        3
    );
    let answer = received_answer(wire, &create["id"]);
    assert_eq!(
        answer["result"],
        json!({ "action": "accept", "content": { "passes": 3 } })
    );
    if spoken != "2025-06-18" {
        // The schema helper reads the schemas of 2025-11-25 and later.
        assert_mcp(spoken, "ElicitResult", &answer["result"]);
    }
}

/// The server's answer to `server/discover`.
fn discover_answer(wire: &Wire) -> Value {
    let id = request(wire, "server/discover")["id"].clone();
    wire.lines()
        .into_iter()
        .filter(|(side, _)| *side == Side::Server)
        .map(|(_, line)| parse(&line))
        .find(|m| m["id"] == id && m.get("method").is_none())
        .expect("the server answered server/discover")
}

/// The client's answer to the server's request `id`.
fn received_answer(wire: &Wire, id: &Value) -> Value {
    received(wire)
        .into_iter()
        .find(|m| m.get("method").is_none() && m["id"] == *id)
        .unwrap_or_else(|| panic!("no answer to {id}"))
}

// covers: C1, M6
#[tokio::test]
async fn a_2026_07_28_server_is_spoken_to_in_2026_07_28_with_the_capability_per_request() {
    let (client, wire) = connect(Server::speaking(ProtocolVersion::KNOWN_VERSIONS), None).await;
    let client = client.expect("connects");
    assert_eq!(version_of(&client), "2026-07-28");
    assert_eq!(plan(&client).await, "passes 3");

    let received = received(&wire);
    assert!(
        received.iter().all(|m| m["method"] != "initialize"),
        "no initialize in 2026-07-28: {received:?}"
    );
    let discover = request(&wire, "server/discover");
    assert_mcp("2026-07-28", "DiscoverRequest", &discover);
    // Both rounds of the tool call carry the capability in `_meta`, and the retry the
    // accepted form.
    let calls: Vec<&Value> = received
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .collect();
    assert_eq!(calls.len(), 2, "{received:?}");
    for call in &calls {
        assert_mcp("2026-07-28", "CallToolRequest", call);
        assert_eq!(
            call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"],
            json!({ "form": {}, "url": {} })
        );
    }
    assert_eq!(
        calls[1]["params"]["inputResponses"]["passes"],
        json!({ "action": "accept", "content": { "passes": 3 } })
    );
}

// covers: C1, M2
#[tokio::test]
async fn a_server_capped_at_2025_11_25_gets_initialize_after_its_discover_refusal() {
    let versions = ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25);
    let (client, wire) = connect(Server::speaking(versions), None).await;
    let client = client.expect("connects through the fallback");
    // rmcp's server refused 2026-07-28 with its list, which is what the client read
    // as an older server's answer.
    let refusal = discover_answer(&wire);
    assert_eq!(refusal["error"]["code"], -32022);
    assert_eq!(
        refusal["error"]["data"]["supported"],
        json!(["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"])
    );
    assert_initialized(
        &client,
        &wire,
        "2025-11-25",
        json!({ "form": {}, "url": {} }),
        "2025-11-25",
    )
    .await;
}

// covers: C1, M2
#[tokio::test]
async fn a_server_capped_at_2025_06_18_gets_its_version_and_the_empty_capability() {
    let versions = ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_06_18);
    let (client, wire) = connect(Server::speaking(versions), None).await;
    let client = client.expect("connects through the fallback");
    // `{}`: form, the only mode of 2025-06-18, in the only shape it defines.
    assert_initialized(&client, &wire, "2025-06-18", json!({}), "2025-06-18").await;
}

// covers: C1
#[tokio::test]
async fn a_server_that_does_not_know_discover_gets_initialize_with_2025_11_25() {
    let (client, wire) = connect(
        Server::refusing_discover(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25)),
        None,
    )
    .await;
    let client = client.expect("connects through the fallback");
    assert_eq!(discover_answer(&wire)["error"]["code"], -32601);
    assert_initialized(
        &client,
        &wire,
        "2025-11-25",
        json!({ "form": {}, "url": {} }),
        "2025-11-25",
    )
    .await;
}

// covers: C1, M2
#[tokio::test]
async fn a_2025_06_18_server_that_does_not_know_discover_answers_with_its_version() {
    // It names no versions: it is offered 2025-11-25, in that version's shape (the
    // client proposes its newest), and answers with 2025-06-18, which is spoken.
    let (client, wire) = connect(
        Server::refusing_discover(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_06_18)),
        None,
    )
    .await;
    let client = client.expect("connects through the fallback");
    assert_eq!(discover_answer(&wire)["error"]["code"], -32601);
    assert_initialized(
        &client,
        &wire,
        "2025-11-25",
        json!({ "form": {}, "url": {} }),
        "2025-06-18",
    )
    .await;
}

// covers: C1
#[tokio::test]
async fn an_explicit_version_is_the_one_offered_in_its_shape() {
    let (client, wire) = connect(
        Server::speaking(ProtocolVersion::KNOWN_VERSIONS),
        Some(ProtocolVersion::V_2025_06_18),
    )
    .await;
    let client = client.expect("connects");
    let received = received(&wire);
    assert_eq!(
        received[0]["method"], "initialize",
        "no discovery: {received:?}"
    );
    assert_eq!(received[0]["params"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        received[0]["params"]["capabilities"]["elicitation"],
        json!({})
    );
    assert_eq!(version_of(&client), "2025-06-18");
    assert_eq!(plan(&client).await, "passes 3");
}

#[tokio::test]
async fn no_version_in_common_names_both_lists() {
    // A server speaking only a version this client does not know.
    let unknown: ProtocolVersion = serde_json::from_value(json!("2024-01-01")).unwrap();
    let (client, _wire) = connect(Server::speaking(std::slice::from_ref(&unknown)), None).await;
    let error = client.err().expect("nothing to speak");
    match &error {
        ConnectError::NoCommonVersion { client, server } => {
            assert_eq!(server, &[unknown]);
            assert_eq!(client.len(), ProtocolVersion::KNOWN_VERSIONS.len());
        }
        other => panic!("expected NoCommonVersion, got {other:?}"),
    }
    assert_eq!(
        error.to_string(),
        "no protocol version both sides speak: this client speaks 2026-07-28, 2025-11-25, \
         2025-06-18, 2025-03-26, 2024-11-05, the server 2024-01-01"
    );

    // Asked for 2026-07-28 only, a server capped at 2025-11-25 has nothing in common.
    let capped = ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25);
    let (client, _wire) = connect(
        Server::speaking(capped),
        Some(ProtocolVersion::V_2026_07_28),
    )
    .await;
    assert_eq!(
        client.err().expect("nothing to speak").to_string(),
        "no protocol version both sides speak: this client speaks 2026-07-28, the server \
         2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25"
    );
}

/// A server written by hand over a pipe: answers `server/discover` with
/// `discover_answer` (the `result` or `error` member), then `initialize` with
/// `answered`. Returns what the client did: the `initialize` it sent (if any) and the
/// outcome of `connect`.
async fn against_a_hand_written_server(
    discover_answer: Value,
    answered: &str,
) -> (Option<Value>, Result<Client, ConnectError>) {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    let handler = ElicitClient::new(ScriptedAsker::accept_defaults());
    let client = tokio::spawn(handler.connect(client_io));
    let (server_read, mut server_write) = tokio::io::split(server_io);
    let mut lines = BufReader::new(server_read).lines();
    let mut initialize = None;
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line()).await
    {
        let message = parse(&line);
        let mut reply = json!({ "jsonrpc": "2.0", "id": message["id"] });
        match message["method"].as_str() {
            Some("server/discover") => {
                let (member, value) = discover_answer.as_object().unwrap().iter().next().unwrap();
                reply[member] = value.clone();
            }
            Some("initialize") => {
                initialize = Some(message.clone());
                reply["result"] = json!({ "protocolVersion": answered, "capabilities": {},
                    "serverInfo": { "name": "raw-server", "version": "1" } });
            }
            // `notifications/initialized`: the handshake is over.
            _ => break,
        }
        server_write
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .unwrap();
    }
    let outcome = bounded("the handshake", client).await.unwrap();
    (initialize, outcome)
}

// covers: C1, M2
#[tokio::test]
async fn a_discover_result_listing_only_older_versions_leads_to_initialize_with_the_newest() {
    // A result (not rmcp's -32022) naming 2025-06-18 and older: initialize with it.
    let (initialize, client) = against_a_hand_written_server(
        json!({ "result": { "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "supportedVersions": ["2025-03-26", "2025-06-18"], "capabilities": {} } }),
        "2025-06-18",
    )
    .await;
    let initialize = initialize.expect("initialize after the discovery");
    assert_eq!(initialize["params"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({})
    );
    assert_eq!(version_of(&client.expect("connects")), "2025-06-18");
}

// covers: C1
#[tokio::test]
async fn a_version_refusal_that_names_no_versions_leads_to_initialize_with_2025_11_25() {
    let (initialize, client) = against_a_hand_written_server(
        json!({ "error": { "code": -32022, "message": "Unsupported protocol version" } }),
        "2025-11-25",
    )
    .await;
    let initialize = initialize.expect("initialize after the refusal");
    assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        initialize["params"]["capabilities"]["elicitation"],
        json!({ "form": {}, "url": {} })
    );
    assert_eq!(version_of(&client.expect("connects")), "2025-11-25");
}

#[tokio::test]
async fn asked_for_2026_07_28_only_an_older_server_is_named_as_such() {
    let (client, _wire) = connect(
        Server::refusing_discover(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25)),
        Some(ProtocolVersion::V_2026_07_28),
    )
    .await;
    let error = client.err().expect("2026-07-28 cannot reach it");
    assert!(
        matches!(error, ConnectError::DiscoverRefused { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "asked to speak 2026-07-28 only, which has no initialize, but the server answered \
         server/discover with -32601: server/discover (an older server; ask for a version \
         with initialize such as 2025-11-25, or leave the version to the client)"
    );
}

#[tokio::test]
async fn an_initialize_answer_in_a_version_the_client_does_not_speak_ends_the_connection() {
    // Discovery refused as unknown, then initialize answered with a version no MCP
    // revision has.
    let (initialize, client) = against_a_hand_written_server(
        json!({ "error": { "code": -32601, "message": "Method not found" } }),
        "2024-01-01",
    )
    .await;
    assert!(initialize.is_some());
    let error = client.err().expect("an unknown version is not spoken");
    assert_eq!(
        error.to_string(),
        "no protocol version both sides speak: this client speaks 2026-07-28, 2025-11-25, \
         2025-06-18, 2025-03-26, 2024-11-05, the server 2024-01-01"
    );
}
