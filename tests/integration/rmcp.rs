//! `elicit::rmcp` against rmcp's own client, server and client in one process over
//! in-memory pipes. A relay between the two records every line on the wire, so the
//! tests read what was really sent (raw bytes for the property order), check every
//! message against the official MCP 2025-11-25 schema, and can cut or corrupt the
//! connection.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::sync::{Arc, OnceLock};

use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitResult, ElicitationAction, InputRequests, InputRequiredResult, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use ::rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use ::rmcp::{ClientHandler, ErrorData, ServerHandler, ServiceError, ServiceExt};
use elicit::agent::{AskError, CompletionError, UrlRegistry, UserId};
use elicit::protocol::mcp::URL_ELICITATION_REQUIRED;
use elicit::rmcp::{ask, input, url_elicitation_required, CompleteError, PeerElicitor};
use elicit::{Elicited, Mode, RequestedSchema};
use serde_json::{json, Value};

use crate::forms::{Choices, Numbers, Profile, Refactor, Strategy};
use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{
    accept, assert_in_order, bounded, call_tool, eventually, in_memory, parse, tool_text, Relay,
    Side, TestClient, Wire,
};

/// A server whose tools ask the client that called them: `plan` (`{"n": int}`) asks
/// for a [`Refactor`] with the message `ask #n` and answers with what it got;
/// `connect` asks in URL mode, completes, and answers with the `elicitationId`;
/// `needs_url` cannot proceed before a URL elicitation and says so with `-32042`. The
/// connection is kept for the test, and the registry may be shared by several servers.
#[derive(Clone, Default)]
struct TestServer {
    connection: Arc<OnceLock<PeerElicitor>>,
    registry: UrlRegistry,
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let connection = self
            .connection
            .get_or_init(|| PeerElicitor::new(&context.peer).with_registry(&self.registry));
        let said = match request.name.as_ref() {
            "plan" => {
                let n = request.arguments.as_ref().and_then(|a| a.get("n")).cloned();
                format!(
                    "{:?}",
                    connection
                        .ask::<Refactor>(format!("ask #{}", n.unwrap_or_default()))
                        .await
                )
            }
            "connect" => match connection
                .ask_url("Connect", "https://auth.example.com/c")
                .await
            {
                Ok(Elicited::Accepted(consent)) => match consent.complete(None).await {
                    Ok(()) => consent.elicitation_id().to_owned(),
                    Err(error) => format!("not completed: {error}"),
                },
                other => format!("{other:?}"),
            },
            _ => {
                let pending = connection
                    .prepare_url(
                        "Connect your account first",
                        "https://auth.example.com/connect",
                    )
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                return Err(url_elicitation_required(
                    "This tool needs your account",
                    &[pending],
                ));
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(said)]).into())
    }
}

struct Connection {
    server: RunningService<RoleServer, TestServer>,
    client: RunningService<RoleClient, TestClient>,
    handler: TestClient,
    wire: Wire,
}

impl Connection {
    fn peer(&self) -> &::rmcp::Peer<RoleServer> {
        self.server.peer()
    }
}

async fn connect(handler: TestClient, relay: Relay) -> Connection {
    connect_to(TestServer::default(), handler, relay).await
}

async fn connect_to(server: TestServer, handler: TestClient, relay: Relay) -> Connection {
    let (server_io, client_io, wire) = in_memory(relay);
    let server = tokio::spawn(server.serve(server_io));
    let client = bounded("the client's initialize", handler.clone().serve(client_io))
        .await
        .expect("the client initializes");
    let server = bounded("the server's initialize", server)
        .await
        .expect("the server task")
        .expect("the server initializes");
    Connection {
        server,
        client,
        handler,
        wire,
    }
}

fn form_client(
    answer: impl Fn(&ElicitRequestParams) -> Result<ElicitResult, ErrorData> + Send + Sync + 'static,
) -> TestClient {
    // M2: `{}` is form.
    TestClient::new(Some(json!({})), answer)
}

fn message_of(request: &ElicitRequestParams) -> &str {
    match request {
        ElicitRequestParams::FormElicitationParams { message, .. }
        | ElicitRequestParams::UrlElicitationParams { message, .. } => message,
        _ => "",
    }
}

// ---------------------------------------------------------------------------------------
// Form mode

// covers: M1, M2, M7, D13, F1, F3, E1
#[tokio::test]
async fn a_form_answer_comes_back_typed_and_the_request_keeps_declaration_order() {
    let c = connect(
        form_client(|_| {
            accept(json!({ "strategy": "Balanced", "passes": 3, "notify": "ada@example.com" }))
        }),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "How should I refactor?")).await;
    assert_eq!(
        answer.unwrap(),
        Elicited::Accepted(Refactor {
            strategy: Strategy::Balanced,
            passes: 3,
            notify: Some("ada@example.com".into())
        })
    );
    let creates = c.wire.creates();
    assert_eq!(creates.len(), 1);
    // D13, on the bytes sent: the properties in the order the struct declares them.
    let raw = &creates[0];
    assert_in_order(raw, &["strategy", "passes", "notify"]);
    // M1: no ACP scope on the MCP wire.
    assert!(
        !raw.contains("sessionId") && !raw.contains("requestId"),
        "{raw}"
    );
    assert_eq!(c.wire.assert_valid(), 2);
}

// covers: M7, F3, V4
#[tokio::test]
async fn the_pattern_is_not_sent_but_still_enforced() {
    let c = connect(
        form_client(|_| {
            accept(
                json!({ "fullName": "Ada", "handle": "Not A Handle", "email": "ada@example.com" }),
            )
        }),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Profile>(c.peer(), "Your profile")).await;
    let Err(AskError::Invalid(errors)) = answer else {
        panic!("a handle against the pattern is invalid: {answer:?}")
    };
    assert_eq!(errors.len(), 1, "{errors}");
    assert!(errors.to_string().contains("handle"), "{errors}");
    let creates = c.wire.creates();
    assert!(!creates[0].contains("\"pattern\":"), "M7: {}", creates[0]);
    assert!(
        creates[0].contains("must match the pattern"),
        "M7 in words: {}",
        creates[0]
    );
    assert!(creates[0].contains("\"maxLength\":16"), "{}", creates[0]);
    c.wire.assert_valid();
}

// covers: R1, R5
#[tokio::test]
async fn decline_and_cancel_are_answers_not_errors() {
    for (action, expected) in [
        (ElicitationAction::Decline, Elicited::Declined),
        (ElicitationAction::Cancel, Elicited::Cancelled),
    ] {
        let c = connect(
            form_client(move |_| Ok(ElicitResult::new(action.clone()))),
            Relay::default(),
        )
        .await;
        let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
        assert_eq!(answer.unwrap(), expected);
        assert_eq!(c.wire.assert_valid(), 2);
    }
}

// covers: F3, V5, D10, R3
#[tokio::test]
async fn an_invalid_answer_reports_every_problem_and_nothing_is_used() {
    let c = connect(
        form_client(|_| accept(json!({ "passes": 9, "notify": "not an email" }))),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
    let Err(AskError::Invalid(errors)) = answer else {
        panic!("three problems: {answer:?}")
    };
    // strategy missing, passes above the maximum, notify not an email.
    assert_eq!(errors.len(), 3, "{errors}");
    c.wire.assert_valid();
}

// covers: F3, V1, D13
#[tokio::test]
async fn a_schema_built_at_run_time_is_asked_in_its_order_and_validated() {
    let schema = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "zone": { "type": "string", "enum": ["eu", "us"] },
            "replicas": { "type": "integer", "minimum": 1, "maximum": 3 }
        },
        "required": ["zone", "replicas"]
    }))
    .expect("a valid schema");
    let c = connect(
        form_client(|_| accept(json!({ "zone": "eu", "replicas": 2 }))),
        Relay::default(),
    )
    .await;
    let connection = PeerElicitor::new(c.peer());
    let answer = bounded("ask_schema", connection.ask_schema("Where?", &schema)).await;
    let Ok(Elicited::Accepted(content)) = answer else {
        panic!("accepted: {answer:?}")
    };
    assert_eq!(content, json!({ "zone": "eu", "replicas": 2 }));
    let sent = &c.wire.creates()[0];
    let (zone, replicas) = (
        sent.find("\"zone\"").unwrap(),
        sent.find("\"replicas\"").unwrap(),
    );
    assert!(zone < replicas, "declaration order on the wire: {sent}");

    let c = connect(
        form_client(|_| accept(json!({ "zone": "mars" }))),
        Relay::default(),
    )
    .await;
    let answer = bounded(
        "ask_schema",
        PeerElicitor::new(c.peer()).ask_schema("Where?", &schema),
    )
    .await;
    let Err(AskError::Invalid(errors)) = answer else {
        panic!("two problems: {answer:?}")
    };
    // zone not an option, replicas missing.
    assert_eq!(errors.len(), 2, "{errors}");
    c.wire.assert_valid();
}

// covers: C8
#[tokio::test]
async fn a_json_rpc_error_from_the_client_is_rejected() {
    let c = connect(
        form_client(|_| Err(ErrorData::invalid_params("no forms today", None))),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
    let Err(AskError::Rejected(error)) = answer else {
        panic!("rejected: {answer:?}")
    };
    assert_eq!((error.code(), error.message()), (-32602, "no forms today"));
    assert_eq!(c.wire.assert_valid(), 2);
}

#[tokio::test]
async fn a_lost_connection_is_a_transport_error() {
    let c = connect(
        form_client(|_| accept(json!({}))),
        Relay {
            cut_on_create: true,
            ..Relay::default()
        },
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
    assert!(matches!(answer, Err(AskError::Transport(_))), "{answer:?}");
    assert_eq!(c.handler.asked(), 0);
}

#[tokio::test]
async fn a_result_that_is_no_elicitation_result_is_malformed() {
    let relay = Relay {
        corrupt_results: Some(json!({ "content": 5 })),
        ..Relay::default()
    };
    let c = connect(
        form_client(|_| accept(json!({ "strategy": "Balanced", "passes": 2 }))),
        relay,
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
    assert!(
        matches!(answer, Err(AskError::MalformedResponse(_))),
        "{answer:?}"
    );
}

// covers: C7, F5, F6, F7, M2
#[tokio::test]
async fn what_the_protocol_forbids_is_refused_before_anything_is_sent() {
    let never = |_: &ElicitRequestParams| -> Result<ElicitResult, ErrorData> {
        panic!("nothing may reach the client")
    };
    // No elicitation capability; URL only; form only (`{}`, M2).
    let none = connect(TestClient::new(None, never), Relay::default()).await;
    let url_only = connect(
        TestClient::new(Some(json!({ "url": {} })), never),
        Relay::default(),
    )
    .await;
    let form_only = connect(TestClient::new(Some(json!({})), never), Relay::default()).await;

    for c in [&none, &url_only] {
        let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
        assert!(
            matches!(answer, Err(AskError::ModeNotSupported(Mode::Form))),
            "{answer:?}"
        );
    }
    // F6: refused, never turned into a form.
    let answer = bounded(
        "ask_url",
        PeerElicitor::new(form_only.peer()).ask_url("Sign in", "https://auth.example.com/"),
    )
    .await;
    assert!(
        matches!(answer, Err(AskError::ModeNotSupported(Mode::Url))),
        "{answer:?}"
    );
    // F7: a link in the message.
    let answer = bounded(
        "ask",
        ask::<Refactor>(form_only.peer(), "See https://evil.example/x first"),
    )
    .await;
    assert!(matches!(answer, Err(AskError::LinkInForm(_))), "{answer:?}");
    let allowed = PeerElicitor::new(none.peer()).allow_links_in_forms(true);
    let answer = bounded("ask", allowed.ask::<Refactor>("See https://docs.example/x")).await;
    assert!(
        matches!(answer, Err(AskError::ModeNotSupported(Mode::Form))),
        "{answer:?}"
    );

    assert!(answer.is_err_and(|e| e.is_refused_before_sending()));
    // F5: a schema built at run time that asks for a secret, to a client with forms.
    let secret = RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": { "password": { "type": "string", "title": "Password" } }
    }))
    .expect("a valid schema");
    let answer = bounded(
        "ask_schema",
        PeerElicitor::new(form_only.peer()).ask_schema("Sign in", &secret),
    )
    .await;
    assert!(
        matches!(answer, Err(AskError::SecretInForm(_))),
        "{answer:?}"
    );
    for c in [&none, &url_only, &form_only] {
        assert!(c.wire.creates().is_empty());
        assert_eq!(c.handler.asked(), 0);
    }
}

// ---------------------------------------------------------------------------------------
// URL mode

fn consenting_client() -> TestClient {
    TestClient::new(Some(json!({ "url": {} })), |_| {
        Ok(ElicitResult::new(ElicitationAction::Accept))
    })
}

// covers: U1, U2, U4, U5, M3, E5
#[tokio::test]
async fn url_consent_then_completion_with_the_same_id_to_the_same_client_once() {
    let c = connect(consenting_client(), Relay::default()).await;
    let alice = UserId::new("alice");
    let connection = PeerElicitor::new(c.peer()).with_user(alice.clone());
    let answer = bounded(
        "ask_url",
        connection.ask_url("Connect", "https://auth.example.com/c"),
    )
    .await;
    let Ok(Elicited::Accepted(handle)) = answer else {
        panic!("consent: {answer:?}")
    };
    let sent = parse(&c.wire.creates()[0]);
    assert_eq!(sent["params"]["mode"], "url");
    assert_eq!(sent["params"]["elicitationId"], handle.elicitation_id());
    assert!(
        handle.elicitation_id().len() >= 22,
        "unguessable: {}",
        handle.elicitation_id()
    );

    bounded("complete", handle.complete(Some(&alice)))
        .await
        .unwrap();
    // U5: once.
    let again = bounded("complete", handle.complete(Some(&alice))).await;
    assert!(
        matches!(
            again,
            Err(CompleteError::Refused(CompletionError::AlreadyCompleted))
        ),
        "{again:?}"
    );
    eventually("the notification", || !c.handler.completed().is_empty()).await;
    assert_eq!(c.handler.completed(), [handle.elicitation_id()]);
    assert_eq!(c.wire.completions(), [handle.elicitation_id()]);
    assert_eq!(c.wire.assert_valid(), 3);
}

// covers: U2, U5, E5
#[tokio::test]
async fn a_consent_dropped_without_completing_leaves_nothing_outstanding() {
    let c = connect(consenting_client(), Relay::default()).await;
    let connection = PeerElicitor::new(c.peer());
    let answer = bounded(
        "ask_url",
        connection.ask_url("Connect", "https://auth.example.com/c"),
    )
    .await;
    let Ok(Elicited::Accepted(consent)) = answer else {
        panic!("consent: {answer:?}")
    };
    let id = consent.elicitation_id().to_owned();
    let outstanding = || {
        connection
            .elicitor()
            .registry()
            .outstanding(connection.elicitor().connection())
    };
    assert_eq!(
        outstanding(),
        1,
        "consent keeps it outstanding until completed"
    );
    drop(consent);
    assert_eq!(outstanding(), 0);
    let refused = bounded("complete", connection.complete(&id, None)).await;
    assert!(
        matches!(
            refused,
            Err(CompleteError::Refused(CompletionError::Unknown))
        ),
        "{refused:?}"
    );
    assert!(c.wire.completions().is_empty());
}

// covers: U2, R5
#[tokio::test]
async fn a_declined_url_elicitation_cannot_complete() {
    let c = connect(
        TestClient::new(Some(json!({ "url": {} })), |_| {
            Ok(ElicitResult::new(ElicitationAction::Decline))
        }),
        Relay::default(),
    )
    .await;
    let connection = PeerElicitor::new(c.peer());
    let answer = bounded(
        "ask_url",
        connection.ask_url("Connect", "https://auth.example.com/c"),
    )
    .await;
    assert!(matches!(answer, Ok(Elicited::Declined)), "{answer:?}");
    let sent = parse(&c.wire.creates()[0]);
    let id = sent["params"]["elicitationId"].as_str().expect("an id");
    let refused = bounded("complete", connection.complete(id, None)).await;
    assert!(
        matches!(
            refused,
            Err(CompleteError::Refused(CompletionError::Closed { .. }))
        ),
        "{refused:?}"
    );
    assert!(c.wire.completions().is_empty());
}

// covers: R5, E6
#[tokio::test]
async fn an_unknown_url_action_is_not_consent_and_the_elicitation_is_given_up() {
    let relay = Relay {
        corrupt_results: Some(json!({ "action": "later" })),
        ..Relay::default()
    };
    let c = connect(consenting_client(), relay).await;
    let connection = PeerElicitor::new(c.peer());
    let answer = bounded(
        "ask_url",
        connection.ask_url("Connect", "https://auth.example.com/c"),
    )
    .await;
    let Err(AskError::Invalid(errors)) = answer else {
        panic!("an unknown action is invalid: {answer:?}")
    };
    assert!(errors.to_string().contains("later"), "{errors}");
    let sent = parse(&c.wire.creates()[0]);
    let id = sent["params"]["elicitationId"].as_str().expect("an id");
    assert_eq!(connection.elicitor().url_state(id), None);
    assert_eq!(
        connection
            .elicitor()
            .registry()
            .outstanding(connection.elicitor().connection()),
        0
    );
}

// covers: E5, S6, U5
#[tokio::test]
async fn a_completion_from_another_connection_or_user_is_refused() {
    let registry = UrlRegistry::new();
    let alice = UserId::new("alice");
    let a = connect(consenting_client(), Relay::default()).await;
    let b = connect(consenting_client(), Relay::default()).await;
    let on_a = PeerElicitor::new(a.peer())
        .with_user(alice.clone())
        .with_registry(&registry);
    let on_b = PeerElicitor::new(b.peer())
        .with_user(alice.clone())
        .with_registry(&registry);
    let answer = bounded(
        "ask_url",
        on_a.ask_url("Connect", "https://auth.example.com/c"),
    )
    .await;
    let Ok(Elicited::Accepted(handle)) = answer else {
        panic!("consent: {answer:?}")
    };
    let id = handle.elicitation_id();

    let foreign = bounded("complete on b", on_b.complete(id, Some(&alice))).await;
    assert!(
        matches!(
            foreign,
            Err(CompleteError::Refused(CompletionError::ForeignConnection))
        ),
        "{foreign:?}"
    );
    let mallory = bounded(
        "complete as another user",
        on_a.complete(id, Some(&UserId::new("mallory"))),
    )
    .await;
    assert!(
        matches!(
            mallory,
            Err(CompleteError::Refused(CompletionError::UserMismatch))
        ),
        "{mallory:?}"
    );
    assert!(a.wire.completions().is_empty() && b.wire.completions().is_empty());

    bounded("complete on a", on_a.complete(id, Some(&alice)))
        .await
        .unwrap();
    assert_eq!(a.wire.completions(), [id]);
    assert!(b.wire.completions().is_empty());
    a.wire.assert_valid();
}

// covers: M4, U5
#[tokio::test]
async fn url_elicitation_required_is_the_32042_error_and_completes_later() {
    let c = connect(consenting_client(), Relay::default()).await;
    let error = bounded(
        "call_tool",
        c.client.call_tool(CallToolRequestParams::new("needs_url")),
    )
    .await;
    let Err(ServiceError::McpError(error)) = error else {
        panic!("-32042: {error:?}")
    };
    assert_eq!(i64::from(error.code.0), URL_ELICITATION_REQUIRED);
    let elicitations = error
        .data
        .as_ref()
        .and_then(|d| d["elicitations"].as_array())
        .expect("data.elicitations");
    assert_eq!(elicitations.len(), 1);
    let id = elicitations[0]["elicitationId"]
        .as_str()
        .unwrap()
        .to_owned();
    // On the wire, the error validates as MCP's URLElicitationRequiredError.
    assert_eq!(c.wire.assert_valid(), 1);

    let connection = c
        .server
        .service()
        .connection
        .get()
        .expect("the tool made it");
    bounded("complete", connection.complete(&id, None))
        .await
        .unwrap();
    assert_eq!(c.wire.completions(), [id]);
    assert_eq!(c.wire.assert_valid(), 2);
}

// ---------------------------------------------------------------------------------------
// Many at once

/// The answer a client gives to ask number `i`, read back from its message.
fn answer_for(request: &ElicitRequestParams) -> Result<ElicitResult, ErrorData> {
    let i: u8 = message_of(request)
        .trim_start_matches("ask #")
        .parse()
        .expect("a numbered ask");
    let strategy = ["Conservative", "Balanced", "Aggressive"][usize::from(i % 3)];
    accept(
        json!({ "strategy": strategy, "passes": i % 5 + 1, "notify": format!("u{i}@example.com") }),
    )
}

fn expected_for(i: u8) -> Refactor {
    Refactor {
        strategy: [
            Strategy::Conservative,
            Strategy::Balanced,
            Strategy::Aggressive,
        ][usize::from(i % 3)],
        passes: i % 5 + 1,
        notify: Some(format!("u{i}@example.com")),
    }
}

/// One tool call on a cloned client peer (tasks share the connection).
async fn call_on(peer: &::rmcp::Peer<RoleClient>, tool: &str, arguments: Value) -> String {
    let mut request = CallToolRequestParams::new(tool.to_owned());
    if let Value::Object(arguments) = arguments {
        request = request.with_arguments(arguments);
    }
    let result = bounded(tool, peer.call_tool(request)).await;
    tool_text(&result.unwrap_or_else(|e| panic!("{tool} failed: {e}")))
}

// covers: E5, U4, U5, D13
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_tool_calls_asking_at_once_on_several_connections_never_mix_answers_or_completions() {
    const CONNECTIONS: usize = 4;
    const CALLS: u8 = 12;
    let registry = UrlRegistry::new();
    let mut connections = Vec::new();
    for _ in 0..CONNECTIONS {
        let client = TestClient::new(
            Some(json!({ "form": {}, "url": {} })),
            |request| match request {
                ElicitRequestParams::UrlElicitationParams { .. } => {
                    Ok(ElicitResult::new(ElicitationAction::Accept))
                }
                _ => answer_for(request),
            },
        );
        let server = TestServer {
            registry: registry.clone(),
            ..TestServer::default()
        };
        connections.push(connect_to(server, client, Relay::default()).await);
    }
    // Every call of every connection at once: a form and a URL elicitation each.
    let mut tasks = Vec::new();
    for (n, c) in connections.iter().enumerate() {
        for i in 0..CALLS {
            let peer = c.client.peer().clone();
            tasks.push(tokio::spawn(async move {
                let said = call_on(&peer, "plan", json!({ "n": i })).await;
                let expected: Result<_, AskError> = Ok(Elicited::Accepted(expected_for(i)));
                assert_eq!(said, format!("{expected:?}"), "connection {n}, call {i}");
                (n, call_on(&peer, "connect", json!({})).await)
            }));
        }
    }
    let mut minted = vec![Vec::new(); CONNECTIONS];
    for task in tasks {
        let (n, id) = bounded("one call", task).await.expect("the task");
        minted[n].push(id);
    }
    for (n, c) in connections.iter().enumerate() {
        let mut sent = c.wire.completions();
        let mut expected = minted[n].clone();
        sent.sort();
        expected.sort();
        assert_eq!(
            sent, expected,
            "connection {n} got exactly its own completions"
        );
        assert_eq!(c.wire.creates().len(), 2 * usize::from(CALLS));
        eventually("the notifications", || {
            c.handler.completed().len() == usize::from(CALLS)
        })
        .await;
        let mut received = c.handler.completed();
        received.sort();
        assert_eq!(received, expected, "connection {n}'s client");
    }
    let all: std::collections::HashSet<&String> = minted.iter().flatten().collect();
    assert_eq!(
        all.len(),
        CONNECTIONS * usize::from(CALLS),
        "U4: every id unique"
    );
}

// ---------------------------------------------------------------------------------------
// MCP 2026-07-28: input requests

/// A 2026-07-28 server whose tool `plan` asks for a [`Refactor`] through an
/// `InputRequiredResult` and reads the answer from the retried call's
/// `inputResponses`.
#[derive(Clone, Default)]
struct InputServer;

impl ServerHandler for InputServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let said = match input::read::<Refactor>(request.input_responses.as_ref(), "plan") {
            Ok(None) => {
                let mut requests = InputRequests::new();
                let form = match request.name.as_ref() {
                    "choices" => input::form::<Choices>(&context, "Pick"),
                    "numbers" => input::form::<Numbers>(&context, "Numbers"),
                    "profile" => input::form::<Profile>(&context, "Your profile"),
                    "tagged" => input::form::<Tagged>(&context, "Tagged"),
                    _ => input::form::<Refactor>(&context, "How should I refactor?"),
                };
                match form {
                    Ok(form) => requests.insert("plan".to_owned(), form),
                    Err(error) => {
                        return Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                            "not asked: {error:?}"
                        ))])
                        .into())
                    }
                };
                return Ok(InputRequiredResult::from_input_requests(requests).into());
            }
            Ok(Some(answer)) => format!("{answer:?}"),
            Err(error) => format!("refused: {error:?}"),
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(said)]).into())
    }
}

/// A 2026-07-28 pair: no `initialize` (both sides know each other, as rmcp's own MRTR
/// tests set them up), the relay between them.
async fn connect_2026(handler: TestClient) -> (RunningService<RoleClient, TestClient>, Wire) {
    let (server_io, client_io, wire) = in_memory(Relay::default());
    let mut client_info = handler.get_info();
    client_info.protocol_version = ProtocolVersion::V_2026_07_28;
    let server_info = InputServer.get_info();
    let server =
        serve_directly::<RoleServer, _, _, _, _>(InputServer, server_io, Some(client_info));
    tokio::spawn(async move { server.waiting().await });
    let client =
        serve_directly::<RoleClient, _, _, _, _>(handler, client_io, Some(server_info.into()));
    (client, wire)
}

// covers: M6, M7, D13, F3, R5
#[tokio::test]
async fn input_requests_of_2026_07_28_carry_the_derived_form_and_read_the_answer() {
    let (client, wire) = connect_2026(form_client(|_| {
        accept(json!({ "strategy": "Aggressive", "passes": 4 }))
    }))
    .await;
    let result = call_tool(&client, "plan", Value::Null).await;
    let expected = Elicited::Accepted(Refactor {
        strategy: Strategy::Aggressive,
        passes: 4,
        notify: None,
    });
    assert_eq!(tool_text(&result), format!("{expected:?}"));

    // The first result on the wire is the InputRequiredResult, its form in declaration order.
    let lines = wire.lines();
    let (_, raw) = lines
        .iter()
        .find(|(side, line)| *side == Side::Server && line.contains("\"input_required\""))
        .expect("an InputRequiredResult on the wire");
    assert_in_order(raw, &["strategy", "passes", "notify"]);
    let input_required = &parse(raw)["result"];
    assert_mcp("2026-07-28", "InputRequiredResult", input_required);
    // The retried call carries the answer under the server's key.
    let (_, retry) = lines
        .iter()
        .find(|(side, line)| *side == Side::Client && line.contains("\"inputResponses\""))
        .expect("the retried call");
    let responses = &parse(retry)["params"]["inputResponses"];
    assert_mcp("2026-07-28", "InputResponses", responses);
    assert_eq!(responses["plan"]["action"], "accept");
}

// covers: M6, F3, C7
#[tokio::test]
async fn input_responses_are_validated_and_a_client_without_forms_is_not_asked() {
    let (client, _) = connect_2026(form_client(|_| {
        accept(json!({ "strategy": "Nope", "passes": 0 }))
    }))
    .await;
    let result = call_tool(&client, "plan", Value::Null).await;
    let text = tool_text(&result);
    assert!(text.starts_with("refused: Invalid("), "{text}");

    let (client, wire) = connect_2026(TestClient::new(Some(json!({ "url": {} })), |_| {
        panic!("nothing to ask")
    }))
    .await;
    let result = call_tool(&client, "plan", Value::Null).await;
    assert_eq!(tool_text(&result), "not asked: ModeNotSupported(Form)");
    assert!(!wire
        .lines()
        .iter()
        .any(|(_, line)| line.contains("input_required")));
}

/// A form written by hand whose property carries `_meta` ([E7]): elicit keeps it, and
/// rmcp's typed property model has no place for it.
struct Tagged;

impl elicit::Elicit for Tagged {
    fn requested_schema() -> &'static elicit::RequestedSchema {
        static SCHEMA: OnceLock<elicit::RequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            let json = json!({ "type": "object", "properties": {
                "ok": { "type": "boolean", "_meta": { "example.com/hint": 1 } }
            } });
            elicit::RequestedSchema::from_json(&json).expect("a valid schema")
        })
    }

    fn from_content(content: &serde_json::Value) -> Result<Self, elicit::ValidationErrors> {
        Self::requested_schema().validate(content).map(|()| Tagged)
    }

    fn to_content(&self) -> serde_json::Value {
        json!({})
    }
}

// covers: M6, E7, D13
#[tokio::test]
async fn every_field_kind_goes_through_rmcp_s_model_and_what_it_would_lose_is_refused() {
    for tool in ["choices", "numbers", "profile"] {
        let (client, wire) = connect_2026(form_client(|_| {
            Ok(ElicitResult::new(ElicitationAction::Cancel))
        }))
        .await;
        let result = call_tool(&client, tool, Value::Null).await;
        assert_eq!(tool_text(&result), "Cancelled", "{tool}");
        let lines = wire.lines();
        let (_, raw) = lines
            .iter()
            .find(|(_, line)| line.contains("\"input_required\""))
            .expect("an InputRequiredResult");
        assert_mcp("2026-07-28", "InputRequiredResult", &parse(raw)["result"]);
    }
    let (client, wire) = connect_2026(form_client(|_| panic!("nothing may be asked"))).await;
    let result = call_tool(&client, "tagged", Value::Null).await;
    let text = tool_text(&result);
    assert_eq!(text, "not asked: Transport(ModelMismatch)");
    assert!(!wire
        .lines()
        .iter()
        .any(|(_, line)| line.contains("input_required")));
}

// covers: E7, D13
#[tokio::test]
async fn what_rmcp_s_typed_model_would_drop_reaches_a_2025_11_25_client() {
    let c = connect(
        form_client(|_| accept(json!({ "ok": true }))),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Tagged>(c.peer(), "Ok?")).await;
    assert!(matches!(answer, Ok(Elicited::Accepted(Tagged))));
    let raw = &c.wire.creates()[0];
    assert!(
        raw.contains(r#""ok":{"type":"boolean","_meta":{"example.com/hint":1}}"#),
        "{raw}"
    );
    assert_eq!(c.wire.assert_valid(), 2);

    // An option's description too, which rmcp's `{const, title}` options have no room for.
    let c = connect(
        form_client(|_| Ok(ElicitResult::new(ElicitationAction::Cancel))),
        Relay::default(),
    )
    .await;
    let answer = bounded("ask", ask::<Refactor>(c.peer(), "Refactor?")).await;
    assert_eq!(answer.unwrap(), Elicited::Cancelled);
    assert!(c.wire.creates()[0].contains(r#""description":"Small steps, each one reviewed""#));
}

// ---------------------------------------------------------------------------------------
// A secret on the server's own page

// covers: F6, U1, U2, U3, U5, M3, S6
#[cfg(feature = "axum")]
#[tokio::test]
async fn a_secret_typed_on_the_servers_page_comes_back_typed_and_completes() {
    use crate::url_page::{http, DeployKey};
    use elicit::axum::SecurePage;

    let alice = UserId::new("alice");
    // Alice's own server, without a login: the page takes whoever fills it as alice.
    let page = SecurePage::builder()
        .unauthenticated_single_user(alice.clone())
        .bind(([127, 0, 0, 1], 0))
        .await
        .unwrap();
    let c = connect(consenting_client(), Relay::default()).await;
    let connection = PeerElicitor::new(c.peer()).with_user(alice.clone());
    let asking = connection.ask_secret::<DeployKey>(&page, "Paste your deploy key");
    let addr = page.local_addr();
    let wire = &c.wire;
    let browser = async {
        eventually("the request", || !wire.creates().is_empty()).await;
        let sent = parse(&wire.creates()[0]);
        let url = sent["params"]["url"].as_str().unwrap().to_owned();
        let path = url.strip_prefix(page.origin()).unwrap().to_owned();
        let cookie = http::open(addr, &path, None).await.cookie().unwrap();
        let body = "f.api_key=sk-live-0123456789&f.region=eu&elicit-action=accept";
        assert_eq!(http::submit(addr, &path, &cookie, body).await.status, 200);
        sent
    };
    let (answer, sent) = bounded("ask_secret", async { tokio::join!(asking, browser) }).await;
    let Ok(Elicited::Accepted(key)) = answer else {
        panic!("{answer:?}")
    };
    assert_eq!(key.api_key, "sk-live-0123456789");
    assert_eq!(sent["params"]["mode"], "url");
    let id = sent["params"]["elicitationId"].as_str().unwrap().to_owned();
    eventually("the notification", || !c.handler.completed().is_empty()).await;
    assert_eq!(c.handler.completed(), c.wire.completions());
    assert_eq!(c.wire.completions(), [id]);
    // U3: the key never crossed the MCP connection.
    assert!(c
        .wire
        .creates()
        .iter()
        .all(|line| !line.contains("sk-live")));
    c.wire.assert_valid();
    page.shutdown();
}
