//! `elicit::bridge::AcpForward` in process, on the real ACP SDK at every end: an inner
//! agent asks through a forwarding agent (an SDK agent to the outer client, an SDK
//! client with the `ForwardHandler` to the inner agent), and a scripted outer client
//! answers. Two line pipes; the outer one is recorded, so the tests read what the
//! person's client received. Every wait is bounded by [`WAIT`].
#![cfg(all(feature = "agent-client-protocol", feature = "url"))]

use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines, UntypedMessage};
use elicit::agent::{AskError, ConnectionId, UserId};
use elicit::agent_client_protocol::{ask_schema, ask_url};
use elicit::bridge::AcpForward;
use elicit::{ElicitationCapabilities, Elicited, Elicitor, Mode, RequestedSchema, Scope};
use futures::channel::{mpsc, oneshot};
use futures::future::{self, Either};
use futures::{SinkExt, Stream, StreamExt};
use serde_json::{json, Value};

use crate::common;

const WAIT: Duration = Duration::from_secs(60);

/// The lines the forwarding agent wrote to the outer client.
#[derive(Clone, Default)]
struct Wire(Arc<Mutex<Vec<Value>>>);

impl Wire {
    fn sent(&self, method: &str) -> Vec<Value> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter(|m| m["method"] == method)
            .cloned()
            .collect()
    }
}

type Pipe = (
    std::pin::Pin<Box<dyn futures::Sink<String, Error = io::Error> + Send>>,
    std::pin::Pin<Box<dyn Stream<Item = io::Result<String>> + Send>>,
);

/// One direction of a pipe, recorded into `wire` when given.
fn pipe(wire: Option<Wire>) -> Pipe {
    let (sender, receiver) = mpsc::unbounded::<String>();
    let writer = sender
        .sink_map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
        .with(move |line: String| {
            if let Some(wire) = &wire {
                let message = serde_json::from_str(&line).expect("a JSON line");
                wire.0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(message);
            }
            future::ready(Ok::<_, io::Error>(line))
        });
    (Box::pin(writer), Box::pin(receiver.map(Ok)))
}

/// What the outer client answers to each `elicitation/create`: a result, or `None` to
/// hold the request until the connection ends.
type Script = Arc<dyn Fn(&Value) -> Option<Value> + Send + Sync>;

/// The inner agent's side, given to a test's body.
struct Hop {
    /// The inner agent's connection to the forwarding agent.
    inner: ConnectionTo<Client>,
    /// The inner agent's Elicitor, from what the forwarding agent declared.
    elicitor: Elicitor,
    forward: AcpForward,
    /// The params of each `elicitation/create` the outer client received.
    received: mpsc::UnboundedReceiver<Value>,
    wire: Wire,
}

/// Connects outer client ↔ forwarding agent ↔ inner agent, the outer client declaring
/// `capabilities`, runs `body`, and ends every connection.
async fn hop(capabilities: Value, script: Script, body: impl AsyncFnOnce(Hop)) {
    let wire = Wire::default();
    let (proxy_out, client_in) = pipe(Some(wire.clone()));
    let (client_out, proxy_in) = pipe(None);
    let (inner_out, forward_in) = pipe(None);
    let (forward_out, inner_in) = pipe(None);

    // The outer client, answering as scripted.
    let (received_tx, received) = mpsc::unbounded();
    let held: Arc<Mutex<Vec<Responder<Value>>>> = Arc::default();
    let (close_client, client_closed) = oneshot::channel::<()>();
    let capabilities: acp::ClientCapabilities =
        serde_json::from_value(capabilities).expect("client capabilities");
    let client = Client
        .v1()
        .on_receive_request(
            {
                let held = Arc::clone(&held);
                async move |request: UntypedMessage,
                            responder: Responder<Value>,
                            _cx: ConnectionTo<Agent>| {
                    assert_eq!(request.method, "elicitation/create");
                    let reply = script(&request.params);
                    let _ = received_tx.unbounded_send(request.params);
                    match reply {
                        Some(result) => responder.respond(result),
                        None => {
                            held.lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .push(responder);
                            Ok(())
                        }
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(Lines::new(client_out, client_in), async move |cx| {
            cx.send_request(
                acp::InitializeRequest::new(ProtocolVersion::V1).client_capabilities(capabilities),
            )
            .block_task()
            .await?;
            let _ = client_closed.await;
            Ok(())
        });

    // The forwarding agent's outer side: the forwarding made in `initialize`.
    let (forward_ready, forward_made) = oneshot::channel::<AcpForward>();
    let forward_ready = Mutex::new(Some(forward_ready));
    let proxy = Agent
        .v1()
        .on_receive_request(
            async move |request: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        cx: ConnectionTo<Client>| {
                let elicitor =
                    Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new())
                        .with_user(UserId::new("alice"));
                let ready = forward_ready
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(ready) = ready {
                    let _ = ready.send(AcpForward::new(cx, elicitor));
                }
                responder.respond(acp::InitializeResponse::new(request.protocol_version))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Lines::new(proxy_out, proxy_in));

    // The inner agent: its Elicitor from what the forwarding agent declared.
    let (inner_ready, inner_made) = oneshot::channel::<(ConnectionTo<Client>, Elicitor)>();
    let inner_ready = Mutex::new(Some(inner_ready));
    let inner = Agent
        .v1()
        .on_receive_request(
            async move |request: acp::InitializeRequest,
                        responder: Responder<acp::InitializeResponse>,
                        cx: ConnectionTo<Client>| {
                let elicitor =
                    Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new());
                let ready = inner_ready
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(ready) = ready {
                    let _ = ready.send((cx, elicitor));
                }
                responder.respond(acp::InitializeResponse::new(request.protocol_version))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Lines::new(inner_out, inner_in));

    // The forwarding agent's inner side, and the test.
    let inner_side = async move {
        let forward = forward_made.await.expect("the outer client initialized");
        Client
            .v1()
            .with_handler(forward.handler())
            .connect_with(Lines::new(forward_out, forward_in), async move |cx| {
                cx.send_request(
                    acp::InitializeRequest::new(ProtocolVersion::V1)
                        .client_capabilities(forward.declare(acp::ClientCapabilities::new())),
                )
                .block_task()
                .await?;
                let (inner, elicitor) = inner_made.await.expect("the inner agent initialized");
                forward.bind_session("inner-7", "outer-3");
                body(Hop {
                    inner,
                    elicitor,
                    forward,
                    received,
                    wire,
                })
                .await;
                drop(close_client);
                Ok(())
            })
            .await
    };

    let all = future::join4(client, proxy, inner, inner_side);
    let (_, _, _, test) = tokio::time::timeout(WAIT, all)
        .await
        .unwrap_or_else(|_| panic!("the hop did not finish within {WAIT:?}"));
    test.expect("the forwarding agent's inner side ends cleanly");
    drop(held);
}

fn run(test: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
        .block_on(test);
}

fn schema() -> RequestedSchema {
    RequestedSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "zebra": { "type": "string", "minLength": 2 },
            "apple": { "type": "integer", "minimum": 1, "maximum": 5 }
        },
        "required": ["zebra"]
    }))
    .expect("a valid schema")
}

fn answer(content: Value) -> Script {
    Arc::new(move |_| Some(json!({ "action": "accept", "content": content.clone() })))
}

// covers: C1, C7, E3, E5, F3, D13
#[test]
fn a_form_is_asked_in_the_outer_session_and_tool_call() {
    run(hop(
        json!({ "elicitation": { "form": {} } }),
        answer(json!({ "zebra": "Ada", "apple": 3 })),
        async |mut hop: Hop| {
            // Only what the outer client declared is offered to the inner agent.
            assert!(hop.elicitor.supports(Mode::Form));
            assert!(!hop.elicitor.supports(Mode::Url));
            let scope = Scope::tool_call("inner-7", "tc-1");
            let got = ask_schema(&hop.inner, &hop.elicitor, scope, "Fill it in", &schema()).await;
            match got {
                Ok(Elicited::Accepted(content)) => {
                    assert_eq!(content, json!({ "zebra": "Ada", "apple": 3 }))
                }
                other => panic!("{other:?}"),
            }
            let asked = hop
                .received
                .next()
                .await
                .expect("the outer client was asked");
            assert_eq!(asked["sessionId"], "outer-3");
            assert_eq!(asked["toolCallId"], "tc-1");
            let order: Vec<&String> = asked["requestedSchema"]["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .collect();
            assert_eq!(order, ["zebra", "apple"]);
            common::assert_valid_acp("CreateElicitationRequest", &asked);
            // The inner agent's own check refuses a URL request before sending (C7).
            let url = ask_url(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Sign in",
                "https://auth.example.com/",
            )
            .await;
            assert!(
                matches!(url, Err(AskError::ModeNotSupported(Mode::Url))),
                "{url:?}"
            );
        },
    ));
}

// covers: F3, R5
#[test]
fn an_answer_that_does_not_validate_never_reaches_the_inner_agent() {
    run(hop(
        json!({ "elicitation": { "form": {} } }),
        answer(json!({ "zebra": "A", "apple": 9 })),
        async |hop: Hop| {
            let got = ask_schema(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Fill it in",
                &schema(),
            )
            .await;
            match got {
                Err(AskError::Rejected(error)) => {
                    assert_eq!(error.code(), -32603);
                    assert!(error.message().contains("does not validate"), "{error:?}");
                    assert!(error.message().contains("`apple`"), "{error:?}");
                }
                other => panic!("{other:?}"),
            }
        },
    ));
}

// covers: E3, E5
#[test]
fn a_session_bound_to_no_outer_one_is_refused_and_nothing_is_asked() {
    run(hop(
        json!({ "elicitation": { "form": {} } }),
        answer(json!({ "zebra": "Ada" })),
        async |mut hop: Hop| {
            let got = ask_schema(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-9"),
                "Fill it in",
                &schema(),
            )
            .await;
            match got {
                Err(AskError::Rejected(error)) => assert_eq!(error.code(), -32602),
                other => panic!("{other:?}"),
            }
            hop.forward.unbind_session("inner-7");
            let got = ask_schema(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Fill it in",
                &schema(),
            )
            .await;
            assert!(matches!(got, Err(AskError::Rejected(_))), "{got:?}");
            assert!(
                hop.received.try_recv().is_err(),
                "nothing reached the outer client"
            );
        },
    ));
}

// covers: U1, U2, U4, U5, E5
#[test]
fn url_mode_gets_a_fresh_outer_id_and_the_completion_is_carried_once() {
    run(hop(
        json!({ "elicitation": { "url": {} } }),
        Arc::new(|_| Some(json!({ "action": "accept" }))),
        async |mut hop: Hop| {
            assert!(!hop.elicitor.supports(Mode::Form));
            let got = ask_url(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Sign in",
                "https://auth.example.com/",
            )
            .await;
            let Ok(Elicited::Accepted(consent)) = got else {
                panic!("{got:?}");
            };
            let asked = hop.received.next().await.expect("asked");
            assert_eq!(asked["sessionId"], "outer-3");
            let outer_id = asked["elicitationId"].as_str().expect("an id").to_owned();
            assert_ne!(outer_id, consent.elicitation_id());
            assert_eq!(hop.forward.pending_completions(), 1);
            consent.complete(None).expect("the inner agent completes");
            // The completion crosses the inner connection's loop, then the outer one.
            let until = tokio::time::Instant::now() + WAIT;
            while hop.wire.sent("elicitation/complete").is_empty() {
                assert!(tokio::time::Instant::now() < until);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let completes = hop.wire.sent("elicitation/complete");
            assert_eq!(completes.len(), 1);
            assert_eq!(completes[0]["params"]["elicitationId"], outer_id.as_str());
            common::assert_valid_acp("CompleteElicitationNotification", &completes[0]["params"]);
            assert_eq!(hop.forward.pending_completions(), 0);
        },
    ));
}

// covers: R1, R5
#[test]
fn cancellation_is_carried_both_ways() {
    run(hop(
        json!({ "elicitation": { "form": {} } }),
        Arc::new(|_| None),
        async |mut hop: Hop| {
            let form = schema();
            // Outer `session/cancel`: the forwarded ask ends, the inner agent gets `cancel`.
            let ask = std::pin::pin!(ask_schema(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Fill it in",
                &form,
            ));
            let asked = std::pin::pin!(hop.received.next());
            let ask = match future::select(ask, asked).await {
                Either::Right((Some(_), ask)) => ask,
                _ => panic!("the outer client was not asked"),
            };
            assert_eq!(hop.forward.cancel_session("outer-3"), 1);
            assert!(matches!(ask.await, Ok(Elicited::Cancelled)));
            let first = hop.wire.sent("elicitation/create")[0]["id"].clone();
            // The inner agent gives up: the outer request is withdrawn.
            let ask = Box::pin(ask_schema(
                &hop.inner,
                &hop.elicitor,
                Scope::session("inner-7"),
                "Fill it in",
                &form,
            ));
            let asked = std::pin::pin!(hop.received.next());
            match future::select(ask, asked).await {
                // Dropping the inner ask sends the inner `$/cancel_request`.
                Either::Right((Some(_), ask)) => drop(ask),
                _ => panic!("the outer client was not asked"),
            }
            let until = tokio::time::Instant::now() + WAIT;
            while hop.wire.sent("$/cancel_request").len() < 2 {
                assert!(
                    tokio::time::Instant::now() < until,
                    "{:?}",
                    hop.wire.sent("$/cancel_request")
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let cancels = hop.wire.sent("$/cancel_request");
            let second = hop.wire.sent("elicitation/create")[1]["id"].clone();
            assert_eq!(cancels[0]["params"]["requestId"], first);
            assert_eq!(cancels[1]["params"]["requestId"], second);
        },
    ));
}

/// The inner agent's `elicitation/create` with `params` as written, sent past elicit's
/// own checks (as another SDK would send it); the raw result or the error.
async fn ask_raw(
    inner: &ConnectionTo<Client>,
    params: Value,
) -> Result<Value, agent_client_protocol::Error> {
    let request = UntypedMessage::new("elicitation/create", params).expect("a request");
    tokio::time::timeout(WAIT, inner.send_request(request).block_task())
        .await
        .expect("answered in time")
}

// covers: E6, R1
#[test]
fn an_answer_in_an_unknown_action_reaches_the_inner_agent_exactly_as_received() {
    // The person's client answers in an action elicit does not know, with members of its
    // own: the forwarding cannot read it, so it passes it on unchanged.
    let deferred = json!({
        "action": "_defer",
        "until": "tomorrow",
        "content": { "zebra": 7 },
        "_meta": { "client.example/why": ["busy"] }
    });
    let script: Script = {
        let deferred = deferred.clone();
        Arc::new(move |_| Some(deferred.clone()))
    };
    run(hop(
        json!({ "elicitation": { "form": {}, "url": {} } }),
        script,
        async |mut hop: Hop| {
            let form = ask_raw(
                &hop.inner,
                json!({
                    "sessionId": "inner-7",
                    "mode": "form",
                    "message": "Fill it in",
                    "requestedSchema": schema().to_json(),
                }),
            )
            .await
            .expect("a result");
            assert_eq!(form, deferred);
            // Member for member, in the order the client wrote them.
            assert_eq!(form.to_string(), deferred.to_string());
            common::assert_valid_acp("CreateElicitationResponse", &form);

            // In URL mode it is not consent: nothing waits for a completion, and the
            // outer elicitation is forgotten.
            let url = ask_raw(
                &hop.inner,
                json!({
                    "sessionId": "inner-7",
                    "mode": "url",
                    "message": "Sign in",
                    "url": "https://auth.example.com/",
                    "elicitationId": "inner-e1",
                }),
            )
            .await
            .expect("a result");
            assert_eq!(url.to_string(), deferred.to_string());
            let _form_asked = hop.received.next().await.expect("asked");
            let asked = hop.received.next().await.expect("asked");
            let outer_id = asked["elicitationId"].as_str().expect("an outer id");
            assert_eq!(hop.forward.pending_completions(), 0);
            assert!(hop.forward.elicitor().url_state(outer_id).is_none());
        },
    ));
}

// covers: C7, E6
#[test]
fn a_request_in_a_mode_never_offered_is_refused_and_never_shown() {
    run(hop(
        json!({ "elicitation": { "form": {}, "url": {} } }),
        answer(json!({ "zebra": "Ada" })),
        async |mut hop: Hop| {
            let got = ask_raw(
                &hop.inner,
                json!({
                    "sessionId": "inner-7",
                    "mode": "_voice",
                    "message": "Say your password",
                    "requestedSchema": schema().to_json(),
                }),
            )
            .await;
            let error = got.expect_err("refused");
            assert_eq!(i64::from(error.code.value()), -32602);
            assert!(error.message.contains("\"_voice\""), "{error:?}");
            assert!(error.message.contains("not offered"), "{error:?}");
            assert_eq!(error.data, Some(json!({ "mode": "_voice" })));
            assert!(
                hop.received.try_recv().is_err(),
                "nothing reached the outer client"
            );
            assert!(hop.wire.sent("elicitation/create").is_empty());
        },
    ));
}
