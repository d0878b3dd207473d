//! `elicit::agent_client_protocol` against the real ACP SDK on both sides.
//!
//! Each test connects an SDK agent and an SDK client over an in-process line pipe: the
//! very JSON lines the SDK writes, recorded in both directions ([`Wire`]), so the tests
//! read the bytes a client receives. The agent builds its `Elicitor` from the client's
//! real `initialize` and ends asks in its `session/cancel` handler, as an agent author
//! wires it; the client answers each `elicitation/create` as the test scripts it.
//!
//! Every elicitation message on the wire (requests, responses, completions) is checked
//! against the official ACP schemas v1 and v2 when the connection ends. Every wait is
//! bounded by [`WAIT`]; no assertion depends on timing.
#![cfg(all(feature = "agent-client-protocol", feature = "url"))]

use std::collections::HashSet;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines, UntypedMessage};
use elicit::agent::{AskError, CompletionError, ConnectionId, UrlRegistry, UserId};
use elicit::agent_client_protocol::{
    ask, ask_schema, ask_url, cancel_session, waiting_asks, CompleteError, UrlConsent,
};
use elicit::{Elicit, ElicitationCapabilities, Elicited, Elicitor, Mode, RequestedSchema, Scope};
use futures::channel::{mpsc, oneshot};
use futures::future::{self, Either};
use futures::{SinkExt, Stream, StreamExt};
use serde_json::{json, Value};

use crate::common;

mod secret;

/// The bound on any one test's run. Generous: the machine is shared with builds.
const WAIT: Duration = Duration::from_secs(60);

/// A form whose declaration order is not alphabetical (D13).
#[derive(Elicit, Debug, PartialEq)]
struct Plan {
    /// Who it is for
    zebra: String,
    /// How many passes
    #[elicit(minimum = 1, maximum = 5)]
    passes: u8,
    /// Whether to run the tests
    apple: bool,
}

fn plan_content(zebra: &str, passes: u8) -> Value {
    json!({ "zebra": zebra, "passes": passes, "apple": true })
}

// ---------------------------------------------------------------------------------------
// The pipe

/// Which way a line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    ToClient,
    ToAgent,
}

/// Every line written on one connection, in order, as written.
#[derive(Clone, Default)]
struct Wire(Arc<Mutex<Vec<(Direction, String)>>>);

impl Wire {
    fn lines(&self) -> Vec<(Direction, String)> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The messages sent one way, parsed.
    fn messages(&self, direction: Direction) -> Vec<Value> {
        self.lines()
            .into_iter()
            .filter(|(d, _)| *d == direction)
            .map(|(_, line)| {
                serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("a line on the wire is not JSON ({e}): {line}"))
            })
            .collect()
    }

    /// The raw lines of the agent's `elicitation/create` requests.
    fn create_lines(&self) -> Vec<String> {
        self.lines()
            .into_iter()
            .filter(|(d, line)| {
                *d == Direction::ToClient && line.contains("\"method\":\"elicitation/create\"")
            })
            .map(|(_, line)| line)
            .collect()
    }

    /// The params of the agent's messages with this method.
    fn sent(&self, method: &str) -> Vec<Value> {
        self.messages(Direction::ToClient)
            .into_iter()
            .filter(|m| m["method"] == method)
            .map(|m| m["params"].clone())
            .collect()
    }

    /// Waits until the agent has written a message with this method (the whole test is
    /// bounded by [`WAIT`]).
    async fn until_sent(&self, method: &str) {
        while self.sent(method).is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Checks that every `elicitation/create` the agent sent was withdrawn with exactly
    /// one `$/cancel_request` naming its JSON-RPC id, sent after it.
    fn assert_each_elicitation_cancelled_once(&self) {
        let sent = self.messages(Direction::ToClient);
        let creates: Vec<(usize, &Value)> = sent
            .iter()
            .enumerate()
            .filter(|(_, m)| m["method"] == "elicitation/create")
            .map(|(at, m)| (at, &m["id"]))
            .collect();
        assert!(!creates.is_empty(), "no elicitation was sent");
        for (at, id) in creates {
            let cancels: Vec<usize> = sent
                .iter()
                .enumerate()
                .filter(|(_, m)| {
                    m["method"] == "$/cancel_request" && m["params"]["requestId"] == *id
                })
                .map(|(cancel_at, _)| cancel_at)
                .collect();
            assert_eq!(cancels.len(), 1, "`$/cancel_request` for {id}: {sent:#?}");
            assert!(cancels[0] > at, "cancelled before it was sent: {sent:#?}");
        }
    }

    /// Checks every elicitation message against both official ACP schemas: the
    /// requests and completions the agent sent, and the client's results to those
    /// requests unless `results_valid` is false (a test that sends a malformed one).
    fn assert_valid_elicitation_messages(&self, results_valid: bool) {
        let requests = common::acp_validators("CreateElicitationRequest");
        let completions = common::acp_validators("CompleteElicitationNotification");
        let results = common::acp_validators("CreateElicitationResponse");
        let mut create_ids = HashSet::new();
        let check = |validators: &[(&str, jsonschema::Validator)], def: &str, json: &Value| {
            for (version, validator) in validators {
                let errors = common::errors_of(validator, json);
                assert!(
                    errors.is_empty(),
                    "not a valid ACP {version} `{def}`: {errors:?}\n{json:#}"
                );
            }
        };
        for message in self.messages(Direction::ToClient) {
            match message["method"].as_str() {
                Some("elicitation/create") => {
                    check(&requests, "CreateElicitationRequest", &message["params"]);
                    create_ids.insert(message["id"].to_string());
                }
                Some("elicitation/complete") => {
                    assert!(message.get("id").is_none(), "a notification: {message}");
                    check(
                        &completions,
                        "CompleteElicitationNotification",
                        &message["params"],
                    );
                }
                _ => {}
            }
        }
        if !results_valid {
            return;
        }
        for message in self.messages(Direction::ToAgent) {
            if message.get("result").is_some() && create_ids.contains(&message["id"].to_string()) {
                check(&results, "CreateElicitationResponse", &message["result"]);
            }
        }
    }
}

/// One direction of the pipe: what the writer's SDK sends, recorded, and what the
/// reader's SDK receives.
fn pipe(
    wire: &Wire,
    direction: Direction,
) -> (
    impl futures::Sink<String, Error = io::Error> + Send + 'static,
    impl Stream<Item = io::Result<String>> + Send + 'static,
) {
    let (sender, receiver) = mpsc::unbounded::<String>();
    let wire = wire.clone();
    let writer = sender
        .sink_map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
        .with(move |line: String| {
            wire.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((direction, line.clone()));
            future::ready(Ok::<_, io::Error>(line))
        });
    (writer, receiver.map(Ok))
}

// ---------------------------------------------------------------------------------------
// The two sides

/// What the scripted client does with an `elicitation/create`.
enum Reply {
    /// Answers with this result.
    Result(Value),
    /// Answers with this JSON-RPC error.
    Error(i32, &'static str),
    /// Never answers (the responder is kept until the connection ends).
    Hold,
}

type Script = Arc<dyn Fn(&Value) -> Reply + Send + Sync>;

fn always(reply: impl Fn() -> Reply + Send + Sync + 'static) -> Script {
    Arc::new(move |_| reply())
}

/// How a connection is set up.
struct Setup {
    /// `clientCapabilities` the client declares in `initialize`.
    capabilities: Value,
    user: Option<UserId>,
    registry: Option<UrlRegistry>,
    script: Script,
}

impl Setup {
    fn new(capabilities: Value, script: Script) -> Self {
        Setup {
            capabilities,
            user: Some(UserId::new("alice")),
            registry: None,
            script,
        }
    }
}

/// The agent's view of one connection, given to a test's body.
struct Session {
    /// The agent's connection to the client.
    cx: ConnectionTo<Client>,
    /// Made by the agent's `initialize` handler.
    elicitor: Elicitor,
    /// The client's connection to the agent, to send `session/cancel`.
    client: ConnectionTo<Agent>,
    /// The params of each `elicitation/create` the client received, in order.
    received: mpsc::UnboundedReceiver<Value>,
    /// Dropping it ends the client's side of the connection.
    close_client: Option<oneshot::Sender<()>>,
    /// The lines written so far, both ways.
    wire: Wire,
}

impl Session {
    /// The client sends `session/cancel` for this session.
    fn client_cancels(&self, session_id: &str) {
        self.client
            .send_notification(acp::CancelNotification::new(session_id.to_owned()))
            .expect("the client can send `session/cancel`");
    }
}

/// Connects an SDK agent and an SDK client, runs `body` as the agent's main task, and
/// returns the wire once both sides ended.
async fn connect(setup: Setup, body: impl AsyncFnOnce(Session)) -> Wire {
    let wire = Wire::default();
    let (agent_out, client_in) = pipe(&wire, Direction::ToClient);
    let (client_out, agent_in) = pipe(&wire, Direction::ToAgent);

    // The agent: an Elicitor per connection from `initialize`, and `session/cancel`
    // ending the session's asks, as the module's guide wires them.
    let elicitor_slot: Arc<OnceLock<Elicitor>> = Arc::default();
    let (elicitor_ready, elicitor_made) = oneshot::channel::<Elicitor>();
    let elicitor_ready = Mutex::new(Some(elicitor_ready));
    let Setup {
        capabilities,
        user,
        registry,
        script,
    } = setup;
    let agent = Agent
        .v1()
        .on_receive_request(
            {
                let slot = Arc::clone(&elicitor_slot);
                async move |request: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    let mut elicitor =
                        Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new());
                    elicitor.set_user(user.clone());
                    if let Some(registry) = &registry {
                        elicitor = elicitor.with_registry(registry);
                    }
                    let _ = slot.set(elicitor.clone());
                    let ready = elicitor_ready
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    if let Some(ready) = ready {
                        let _ = ready.send(elicitor);
                    }
                    responder.respond(acp::InitializeResponse::new(request.protocol_version))
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let slot = Arc::clone(&elicitor_slot);
                async move |cancel: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    if let Some(elicitor) = slot.get() {
                        cancel_session(elicitor, &cancel.session_id.0);
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        );

    // The client: declares the capabilities, answers as scripted.
    let (received_tx, received) = mpsc::unbounded();
    let held: Arc<Mutex<Vec<Responder<Value>>>> = Arc::default();
    let (client_ready, client_made) = oneshot::channel::<ConnectionTo<Agent>>();
    let (close_client, client_closed) = oneshot::channel::<()>();
    let client_capabilities: acp::ClientCapabilities =
        serde_json::from_value(capabilities).expect("the test's client capabilities parse");
    let client = Client.v1().on_receive_request(
        {
            let held = Arc::clone(&held);
            async move |request: UntypedMessage,
                        responder: Responder<Value>,
                        _cx: ConnectionTo<Agent>| {
                assert_eq!(request.method, "elicitation/create", "{request:?}");
                let reply = script(&request.params);
                let _ = received_tx.unbounded_send(request.params);
                match reply {
                    Reply::Result(result) => responder.respond(result),
                    Reply::Error(code, message) => responder
                        .respond_with_error(agent_client_protocol::Error::new(code, message)),
                    Reply::Hold => {
                        held.lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .push(responder);
                        Ok(())
                    }
                }
            }
        },
        agent_client_protocol::on_receive_request!(),
    );

    let session_wire = wire.clone();
    let agent_side = agent.connect_with(Lines::new(agent_out, agent_in), async move |cx| {
        let elicitor = elicitor_made.await.expect("the client sent `initialize`");
        let client = client_made.await.expect("the client is connected");
        body(Session {
            cx,
            elicitor,
            client,
            received,
            close_client: Some(close_client),
            wire: session_wire,
        })
        .await;
        Ok(())
    });
    let client_side = client.connect_with(Lines::new(client_out, client_in), async move |cx| {
        cx.send_request(
            acp::InitializeRequest::new(ProtocolVersion::V1)
                .client_capabilities(client_capabilities),
        )
        .block_task()
        .await?;
        let _ = client_ready.send(cx);
        // Until the test drops its end (or the agent's side ended).
        let _ = client_closed.await;
        Ok(())
    });

    let both = future::join(agent_side, client_side);
    let (agent_result, client_result) = tokio::time::timeout(WAIT, both)
        .await
        .unwrap_or_else(|_| panic!("the connection did not finish within {WAIT:?}"));
    agent_result.expect("the agent's side ends cleanly");
    // The client's side may see the agent go away first; its result is not the test.
    drop(client_result);
    drop(held);
    wire
}

/// A current-thread tokio runtime, as the SDK's own tests use.
fn run<F: Future<Output = ()>>(test: F) {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
        .block_on(test);
}

/// The ask of every URL-mode test: sign in at a fixed page.
async fn sign_in(
    cx: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    scope: Scope,
) -> Result<Elicited<UrlConsent>, AskError> {
    ask_url(cx, elicitor, scope, "Sign in", "https://auth.example.com/").await
}

/// How many URL elicitations of this `Elicitor`'s connection are outstanding.
fn outstanding(elicitor: &Elicitor) -> usize {
    elicitor.registry().outstanding(elicitor.connection())
}

/// Polls `asking` until the client has received its request; returns the request's
/// params and the ask, still pending.
async fn until_received<F>(asking: F, received: &mut mpsc::UnboundedReceiver<Value>) -> (Value, F)
where
    F: Future + Unpin,
    F::Output: std::fmt::Debug,
{
    match future::select(asking, received.next()).await {
        Either::Right((Some(params), asking)) => (params, asking),
        Either::Right((None, _)) => panic!("the client went away"),
        Either::Left((answer, _)) => {
            panic!("the ask ended before the client received it: {answer:?}")
        }
    }
}

fn form_only() -> Value {
    json!({ "elicitation": { "form": {} } })
}

fn url_only() -> Value {
    json!({ "elicitation": { "url": {} } })
}

// ---------------------------------------------------------------------------------------
// Form mode

// covers: C1, C3, E1, E2, E3, F1, F3, R1, D13
#[test]
fn form_accepted_gives_the_typed_value_and_keeps_declaration_order() {
    run(async {
        let script = always(|| {
            Reply::Result(json!({ "action": "accept", "content": plan_content("ada", 3) }))
        });
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
            assert_eq!(
                answer.expect("an accepted, valid answer"),
                Elicited::Accepted(Plan {
                    zebra: "ada".to_owned(),
                    passes: 3,
                    apple: true
                })
            );
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await;
        wire.assert_valid_elicitation_messages(true);
        // D13: in the bytes the client read, properties in declaration order.
        let lines = wire.create_lines();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let at = |key: &str| {
            lines[0]
                .find(&format!("\"{key}\":{{"))
                .unwrap_or_else(|| panic!("`{key}` not on the wire: {}", lines[0]))
        };
        assert!(
            at("zebra") < at("passes") && at("passes") < at("apple"),
            "{}",
            lines[0]
        );
        let params = &wire.sent("elicitation/create")[0];
        assert_eq!(params["mode"], "form");
        assert_eq!(params["sessionId"], "s1");
    });
}

// covers: R1, R2, R5
#[test]
fn form_declined_and_cancelled_are_answers_not_errors() {
    for (action, expected) in [
        ("decline", Elicited::Declined),
        ("cancel", Elicited::Cancelled),
    ] {
        run(async {
            // R2: content on decline or cancel is ignored.
            let script = always(move || {
                Reply::Result(json!({ "action": action, "content": plan_content("x", 1) }))
            });
            let wire = connect(Setup::new(form_only(), script), async |s| {
                let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
                assert_eq!(answer.expect("an answer"), expected, "{action}");
            })
            .await;
            wire.assert_valid_elicitation_messages(true);
        });
    }
}

// covers: F3, R3, R5, V5
#[test]
fn form_invalid_answer_lists_every_problem() {
    run(async {
        // Valid ACP content values, each wrong for the schema, and `apple` missing.
        let script = always(|| {
            Reply::Result(json!({ "action": "accept", "content": { "zebra": 5, "passes": 9 } }))
        });
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
            let Err(AskError::Invalid(errors)) = answer else {
                panic!("expected every problem, got {answer:?}");
            };
            for property in ["zebra", "passes", "apple"] {
                assert_eq!(
                    errors.for_property(property).count(),
                    1,
                    "`{property}` not reported: {errors}"
                );
            }
            assert_eq!(errors.len(), 3, "{errors}");
        })
        .await;
        wire.assert_valid_elicitation_messages(true);
    });
}

// covers: F1, F3, R1
#[test]
fn runtime_schema_is_asked_and_validated() {
    run(async {
        let script = Arc::new(|params: &Value| {
            // The client saw the runtime schema as built.
            assert_eq!(
                params["requestedSchema"]["properties"]["city"]["type"],
                "string"
            );
            Reply::Result(json!({ "action": "accept", "content": { "city": "Lyon" } }))
        });
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let schema = RequestedSchema::from_json(&json!({
                "type": "object",
                "properties": { "city": { "type": "string", "minLength": 2 } },
                "required": ["city"]
            }))
            .expect("a valid schema");
            let answer = ask_schema(&s.cx, &s.elicitor, Scope::session("s1"), "City?", &schema)
                .await
                .expect("an accepted answer");
            assert_eq!(answer, Elicited::Accepted(json!({ "city": "Lyon" })));
        })
        .await;
        wire.assert_valid_elicitation_messages(true);
    });
}

// covers: F3, R2
#[test]
fn runtime_schema_accept_without_required_content_is_invalid() {
    run(async {
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        connect(Setup::new(form_only(), script), async |s| {
            let schema = RequestedSchema::from_json(&json!({
                "type": "object",
                "properties": { "city": { "type": "string" } },
                "required": ["city"]
            }))
            .expect("a valid schema");
            let answer =
                ask_schema(&s.cx, &s.elicitor, Scope::session("s1"), "City?", &schema).await;
            let Err(AskError::Invalid(errors)) = answer else {
                panic!("an absent required answer is not valid, got {answer:?}");
            };
            assert_eq!(errors.for_property("city").count(), 1, "{errors}");
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// covers: C8, R5
#[test]
fn client_error_is_rejected_with_its_code() {
    run(async {
        let script = always(|| Reply::Error(-32602, "no forms here"));
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
            let Err(AskError::Rejected(error)) = answer else {
                panic!("expected the client's error, got {answer:?}");
            };
            assert_eq!(error.code(), -32602);
            assert_eq!(error.message(), "no forms here");
        })
        .await;
        wire.assert_valid_elicitation_messages(true);
    });
}

// covers: R1, R5
#[test]
fn a_result_that_is_not_a_response_is_malformed() {
    run(async {
        let script = always(|| Reply::Result(json!({ "content": { "zebra": "x" } })));
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
            assert!(
                matches!(answer, Err(AskError::MalformedResponse(_))),
                "{answer:?}"
            );
        })
        .await;
        // The client's result is malformed on purpose; the request must still be valid.
        wire.assert_valid_elicitation_messages(false);
    });
}

// covers: R5
#[test]
fn unknown_action_is_not_consent() {
    run(async {
        let script = always(|| Reply::Result(json!({ "action": "later" })));
        connect(Setup::new(url_only(), script), async |s| {
            let answer = sign_in(&s.cx, &s.elicitor, Scope::session("s1")).await;
            assert!(matches!(answer, Err(AskError::Invalid(_))), "{answer:?}");
            // Nothing is left outstanding.
            assert_eq!(outstanding(&s.elicitor), 0);
        })
        .await;
    });
}

// covers: R5
#[test]
fn closed_transport_is_a_transport_error() {
    run(async {
        let script = always(|| Reply::Hold);
        connect(Setup::new(url_only(), script), async |mut s| {
            let asking = sign_in(&s.cx, &s.elicitor, Scope::session("s1"));
            let mut asking = std::pin::pin!(asking);
            // The client has the request; then it goes away without answering.
            let (_, asking) = until_received(asking.as_mut(), &mut s.received).await;
            s.close_client.take();
            let answer = asking.await;
            assert!(matches!(answer, Err(AskError::Transport(_))), "{answer:?}");
            assert_eq!(outstanding(&s.elicitor), 0);
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// ---------------------------------------------------------------------------------------
// Refused before sending

// covers: C7, F5, F6, F7
#[test]
fn refusals_send_nothing() {
    run(async {
        let script = always(|| panic!("nothing may reach the client"));
        let wire = connect(Setup::new(form_only(), script), async |s| {
            // C7: URL mode was not declared; F6: and is never retried as a form.
            let url = sign_in(&s.cx, &s.elicitor, Scope::session("s1")).await;
            assert!(
                matches!(url, Err(AskError::ModeNotSupported(Mode::Url))),
                "{url:?}"
            );
            // F5: a secret in a form.
            let secret = RequestedSchema::from_json(&json!({
                "type": "object",
                "properties": { "password": { "type": "string", "title": "Password" } }
            }))
            .expect("a schema the strict parse reads");
            let answer =
                ask_schema(&s.cx, &s.elicitor, Scope::session("s1"), "Log in", &secret).await;
            assert!(
                matches!(answer, Err(AskError::SecretInForm(_))),
                "{answer:?}"
            );
            // F7: a link in the message.
            let answer = ask::<Plan>(
                &s.cx,
                &s.elicitor,
                Scope::session("s1"),
                "See https://example.com/plan first",
            )
            .await;
            assert!(matches!(answer, Err(AskError::LinkInForm(_))), "{answer:?}");
            assert!(answer.is_err_and(|e| e.is_refused_before_sending()));
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await;
        assert!(wire.create_lines().is_empty(), "{:?}", wire.lines());
    });
}

// covers: C4, C6, C7
#[test]
fn undeclared_form_mode_is_refused_from_the_handshake() {
    // C6: a malformed `form` reads as absent; C4: an empty capability declares nothing.
    for capabilities in [
        json!({ "elicitation": { "form": 5, "url": {} } }),
        json!({ "elicitation": {} }),
        json!({}),
    ] {
        run(async {
            let script = always(|| panic!("nothing may reach the client"));
            let wire = connect(Setup::new(capabilities.clone(), script), async |s| {
                let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
                assert!(
                    matches!(answer, Err(AskError::ModeNotSupported(Mode::Form))),
                    "with {capabilities}: {answer:?}"
                );
            })
            .await;
            assert!(wire.create_lines().is_empty(), "{:?}", wire.lines());
        });
    }
}

// ---------------------------------------------------------------------------------------
// Cancellation

// covers: R5, E5
#[test]
fn session_cancel_ends_a_pending_ask_of_that_session_only() {
    run(async {
        let script = always(|| Reply::Hold);
        connect(Setup::new(form_only(), script), async |mut s| {
            let asking = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?");
            let mut asking = std::pin::pin!(asking);
            let (_, mut asking) = until_received(asking.as_mut(), &mut s.received).await;
            assert_eq!(waiting_asks(&s.elicitor), 1);
            // Another connection's cancel of the same session id reaches nothing (E5).
            let other = Elicitor::new(ElicitationCapabilities::new(), ConnectionId::new());
            assert_eq!(cancel_session(&other, "s1"), 0);
            // Another session of this connection: nothing ends, the ask still waits.
            assert_eq!(cancel_session(&s.elicitor, "s2"), 0);
            assert_eq!(waiting_asks(&s.elicitor), 1);
            // The client cancels this one, through the agent's `session/cancel` handler.
            s.client_cancels("s1");
            let answer = asking.as_mut().await;
            assert_eq!(answer.expect("a cancelled turn"), Elicited::Cancelled);
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// covers: U4, R5
#[test]
fn session_cancel_ends_a_url_ask_and_forgets_its_id() {
    run(async {
        let script = always(|| Reply::Hold);
        connect(Setup::new(url_only(), script), async |mut s| {
            let asking = sign_in(&s.cx, &s.elicitor, Scope::tool_call("s1", "call-1"));
            let mut asking = std::pin::pin!(asking);
            let (params, mut asking) = until_received(asking.as_mut(), &mut s.received).await;
            let id = params["elicitationId"]
                .as_str()
                .expect("a URL-mode request has an id")
                .to_owned();
            assert_eq!(outstanding(&s.elicitor), 1);
            s.client_cancels("s1");
            let answer = asking.as_mut().await;
            assert!(matches!(answer, Ok(Elicited::Cancelled)), "{answer:?}");
            // Nothing behind: not outstanding, not even known.
            assert_eq!(outstanding(&s.elicitor), 0);
            assert_eq!(s.elicitor.url_state(&id), None);
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// covers: U4
#[test]
fn a_dropped_ask_forgets_its_url_elicitation() {
    run(async {
        let script = always(|| Reply::Hold);
        connect(Setup::new(url_only(), script), async |mut s| {
            {
                let asking = sign_in(&s.cx, &s.elicitor, Scope::session("s1"));
                let mut asking = std::pin::pin!(asking);
                let (_, _asking) = until_received(asking.as_mut(), &mut s.received).await;
                assert_eq!(outstanding(&s.elicitor), 1);
            } // the ask is dropped here, unanswered
            assert_eq!(outstanding(&s.elicitor), 0);
            assert_eq!(waiting_asks(&s.elicitor), 0);
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// An agent that stops waiting for an elicitation cancels the request with
// `$/cancel_request`: a SHOULD in ACP v1, a MUST in v2 (`agent-client-protocol-schema`
// 1.20.0, `CreateElicitationRequest`'s docs). The SDK 5.2 sends it when the future
// awaiting the answer is dropped before the answer came (`SentRequestCancellation`'s
// `Drop`), once per request, and never after the answer; these tests read it on the
// wire.

// covers: R5
#[test]
fn a_cancelled_session_withdraws_its_form_with_cancel_request() {
    run(async {
        let script = always(|| Reply::Hold);
        let wire = connect(Setup::new(form_only(), script), async |mut s| {
            let asking = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?");
            let mut asking = std::pin::pin!(asking);
            let (_, mut asking) = until_received(asking.as_mut(), &mut s.received).await;
            assert!(s.wire.sent("$/cancel_request").is_empty());
            s.client_cancels("s1");
            assert_eq!(
                asking.as_mut().await.expect("cancelled"),
                Elicited::Cancelled
            );
            s.wire.until_sent("$/cancel_request").await;
        })
        .await;
        wire.assert_each_elicitation_cancelled_once();
        wire.assert_valid_elicitation_messages(true);
    });
}

// covers: R5, U4
#[test]
fn a_dropped_ask_withdraws_its_request_with_cancel_request() {
    run(async {
        let script = always(|| Reply::Hold);
        let wire = connect(
            Setup::new(form_only(), script).with_both_modes(),
            async |mut s| {
                {
                    let form = ask_schema(
                        &s.cx,
                        &s.elicitor,
                        Scope::request(9),
                        "Plan?",
                        Plan::requested_schema(),
                    );
                    let mut form = std::pin::pin!(form);
                    let _ = until_received(form.as_mut(), &mut s.received).await;
                } // given up here, unanswered: a request scope no `session/cancel` reaches
                s.wire.until_sent("$/cancel_request").await;
                {
                    let url = sign_in(&s.cx, &s.elicitor, Scope::tool_call("s1", "call-1"));
                    let mut url = std::pin::pin!(url);
                    let _ = until_received(url.as_mut(), &mut s.received).await;
                }
                while s.wire.sent("$/cancel_request").len() < 2 {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                assert_eq!(outstanding(&s.elicitor), 0);
            },
        )
        .await;
        wire.assert_each_elicitation_cancelled_once();
        wire.assert_valid_elicitation_messages(true);
    });
}

// covers: R1, R5
#[test]
fn an_answered_ask_is_never_cancelled() {
    run(async {
        let script = always(|| Reply::Result(json!({ "action": "decline" })));
        let wire = connect(Setup::new(form_only(), script), async |s| {
            let answer = ask::<Plan>(&s.cx, &s.elicitor, Scope::session("s1"), "Plan?").await;
            assert_eq!(answer.expect("an answer"), Elicited::Declined);
            // A cancel of the session after the answer has nothing left to withdraw.
            s.client_cancels("s1");
        })
        .await;
        assert_eq!(wire.sent("elicitation/create").len(), 1);
        assert!(
            wire.sent("$/cancel_request").is_empty(),
            "{:#?}",
            wire.messages(Direction::ToClient)
        );
    });
}

// ---------------------------------------------------------------------------------------
// URL mode

fn url_setup(registry: &UrlRegistry, script: Script) -> Setup {
    Setup {
        registry: Some(registry.clone()),
        ..Setup::new(url_only(), script)
    }
}

// covers: U1, U2, U5, E5, S6, R4
#[test]
fn url_consent_then_complete_sends_the_same_id_on_the_same_connection() {
    run(async {
        let registry = UrlRegistry::new();
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        let wire = connect(url_setup(&registry, script), async |s| {
            let answer = ask_url(
                &s.cx,
                &s.elicitor,
                Scope::session("s1"),
                "Connect your calendar",
                "https://auth.example.com/connect",
            )
            .await
            .expect("an answer");
            let Elicited::Accepted(consent) = answer else {
                panic!("expected consent, got {answer:?}");
            };
            let id = consent.elicitation_id().to_owned();
            // U2: consent is not completion: still outstanding.
            assert_eq!(registry.outstanding(s.elicitor.connection()), 1);

            // S6: another user cannot complete it; nothing is sent.
            let bob = UserId::new("bob");
            assert!(matches!(
                consent.complete(Some(&bob)),
                Err(CompleteError::Refused(CompletionError::UserMismatch))
            ));
            // E5: another connection of the same agent cannot either.
            let other = Elicitor::new(ElicitationCapabilities::new(), ConnectionId::new())
                .with_registry(&registry)
                .with_user(UserId::new("alice"));
            assert_eq!(
                other.complete(&id, other.user()),
                Err(CompletionError::ForeignConnection)
            );

            consent
                .complete(s.elicitor.user())
                .expect("the user who started completes it");
            // U5: once.
            assert!(matches!(
                consent.complete(s.elicitor.user()),
                Err(CompleteError::Refused(CompletionError::AlreadyCompleted))
            ));
            assert_eq!(registry.outstanding(s.elicitor.connection()), 0);
        })
        .await;
        wire.assert_valid_elicitation_messages(true);
        let created = wire.sent("elicitation/create");
        let completed = wire.sent("elicitation/complete");
        assert_eq!(created.len(), 1, "{created:?}");
        assert_eq!(created[0]["mode"], "url");
        assert_eq!(completed.len(), 1, "exactly one completion: {completed:?}");
        assert_eq!(completed[0]["elicitationId"], created[0]["elicitationId"]);
    });
}

// covers: R5, U5
#[test]
fn url_decline_and_cancel_leave_nothing_outstanding() {
    for (action, expected_declined) in [("decline", true), ("cancel", false)] {
        run(async {
            let script = always(move || Reply::Result(json!({ "action": action })));
            let wire = connect(Setup::new(url_only(), script), async |s| {
                let answer = sign_in(&s.cx, &s.elicitor, Scope::session("s1"))
                    .await
                    .expect("an answer");
                let declined = matches!(answer, Elicited::Declined);
                let cancelled = matches!(answer, Elicited::Cancelled);
                assert!(declined == expected_declined && cancelled != expected_declined);
                assert_eq!(outstanding(&s.elicitor), 0);
            })
            .await;
            wire.assert_valid_elicitation_messages(true);
            assert!(wire.sent("elicitation/complete").is_empty());
        });
    }
}

// covers: U2
#[test]
fn a_dropped_consent_is_forgotten() {
    run(async {
        let script = always(|| Reply::Result(json!({ "action": "accept" })));
        connect(Setup::new(url_only(), script), async |s| {
            let answer = sign_in(&s.cx, &s.elicitor, Scope::session("s1")).await;
            let Ok(Elicited::Accepted(consent)) = answer else {
                panic!("expected consent, got {answer:?}");
            };
            let id = consent.elicitation_id().to_owned();
            drop(consent);
            assert_eq!(outstanding(&s.elicitor), 0);
            assert_eq!(
                s.elicitor.complete(&id, s.elicitor.user()),
                Err(CompletionError::Unknown)
            );
        })
        .await
        .assert_valid_elicitation_messages(true);
    });
}

// ---------------------------------------------------------------------------------------
// Concurrency

const CONNECTIONS: usize = 3;
const ASKS_PER_CONNECTION: usize = 50;
/// Of each connection's asks, how many are URL mode (the rest are forms).
const URL_ASKS_PER_CONNECTION: usize = 10;

/// The client answers each form with content naming the request's own session, and
/// consents to each URL.
fn echo_script() -> Script {
    Arc::new(|params: &Value| {
        if params["mode"] == "url" {
            return Reply::Result(json!({ "action": "accept" }));
        }
        let session = params["sessionId"].as_str().unwrap_or("none");
        let passes = session.len() % 5 + 1;
        Reply::Result(json!({ "action": "accept", "content": {
            "zebra": session, "passes": passes, "apple": true
        } }))
    })
}

// covers: E5, U4, U5
#[test]
fn many_asks_on_several_connections_never_mix() {
    run(async {
        let registry = UrlRegistry::new();
        let connections = (0..CONNECTIONS).map(|c| {
            let registry = registry.clone();
            connect(
                url_setup(&registry, echo_script()).with_both_modes(),
                async move |s| {
                    let asks = (0..ASKS_PER_CONNECTION).map(|i| {
                        let session = format!("c{c}-s{i}");
                        let (cx, elicitor) = (&s.cx, &s.elicitor);
                        async move {
                            let scope = Scope::session(session.clone());
                            if i < URL_ASKS_PER_CONNECTION {
                                let answer = ask_url(
                                    cx,
                                    elicitor,
                                    scope,
                                    "Sign in",
                                    "https://auth.example.com/",
                                )
                                .await;
                                let Ok(Elicited::Accepted(consent)) = answer else {
                                    panic!("{session}: expected consent, got {answer:?}");
                                };
                                consent.complete(elicitor.user()).unwrap_or_else(|e| {
                                    panic!("{session}: completion refused: {e}")
                                });
                                return;
                            }
                            let answer = ask::<Plan>(cx, elicitor, scope, "Plan?").await;
                            let Ok(Elicited::Accepted(plan)) = answer else {
                                panic!("{session}: expected a plan, got {answer:?}");
                            };
                            // Its own answer, not another session's.
                            assert_eq!(plan.zebra, session);
                            assert_eq!(usize::from(plan.passes), session.len() % 5 + 1);
                        }
                    });
                    future::join_all(asks).await;
                    assert_eq!(registry.outstanding(s.elicitor.connection()), 0);
                    assert_eq!(waiting_asks(&s.elicitor), 0);
                },
            )
        });
        let wires = future::join_all(connections).await;

        let mut all_ids = HashSet::new();
        for wire in &wires {
            wire.assert_valid_elicitation_messages(true);
            let created = wire.sent("elicitation/create");
            assert_eq!(created.len(), ASKS_PER_CONNECTION);
            let asked: HashSet<String> = created
                .iter()
                .filter_map(|p| p["elicitationId"].as_str().map(str::to_owned))
                .collect();
            let completed: HashSet<String> = wire
                .sent("elicitation/complete")
                .iter()
                .filter_map(|p| p["elicitationId"].as_str().map(str::to_owned))
                .collect();
            // Each connection completes exactly its own URL elicitations (E5, U5).
            assert_eq!(asked.len(), URL_ASKS_PER_CONNECTION);
            assert_eq!(completed, asked);
            for id in asked {
                assert!(all_ids.insert(id), "an id was issued twice (U4)");
            }
        }
    });
}

impl Setup {
    fn with_both_modes(mut self) -> Self {
        self.capabilities = json!({ "elicitation": { "form": {}, "url": {} } });
        self
    }
}

// A consent is kept until the agent's page reports back, often in another task
// (`cx.spawn` wants `Send` futures) or in a map shared by handlers: checked when
// this file compiles.
const _: () = {
    const fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<UrlConsent>();
};
