//! `elicit::rmcp::input`'s sealed `requestState` (MCP 2026-07-28) between rmcp's own
//! client and server over in-memory pipes: a round begun on one server instance is
//! continued on another that holds the same key and nothing else, and every state
//! that was changed, expired, sealed under another key or for another request is
//! refused with `-32602`.
#![cfg(feature = "rmcp_3")]

use std::time::Duration;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    InputResponses, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use ::rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use ::rmcp::{ErrorData, ServerHandler, ServiceError};
use elicit::rmcp::input::{RoundKey, RoundRequest, Rounds};
use elicit::{Elicit, Elicited};
use serde_json::{json, Value};

use crate::protocol_support::assert_mcp;
use crate::protocol_support::rmcp_wire::{bounded, in_memory, Relay, TestClient};

/// What is your name?
#[derive(Elicit, Debug)]
struct Name {
    #[elicit(min_length = 1)]
    name: String,
}

/// Your favourite colour?
#[derive(Elicit, Debug)]
struct Colour {
    colour: String,
}

/// An instance of a server whose tool `greet` asks two rounds: a [`Name`], then a
/// [`Colour`], carrying the name sealed in between.
#[derive(Clone)]
struct Instance(Rounds);

impl ServerHandler for Instance {
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
        let this = RoundRequest::tool_call(&request);
        let opened = self.0.open(
            &this,
            request.request_state.as_deref(),
            request.input_responses.as_ref(),
        )?;
        let internal = |e: elicit::agent::AskError| ErrorData::internal_error(e.to_string(), None);
        let Some(answers) = opened else {
            let mut round = self.0.begin(this);
            round
                .form::<Name>(&context, "name", "Your name?")
                .map_err(internal)?;
            return Ok(round.seal()?.into());
        };
        let text = match answers.data().get("name").and_then(Value::as_str) {
            None => match answers.form::<Name>("name")? {
                None => {
                    let mut round = self.0.begin(this);
                    round
                        .form::<Name>(&context, "name", "Your name, again?")
                        .map_err(internal)?;
                    return Ok(round.seal()?.into());
                }
                Some(Elicited::Accepted(Name { name })) => {
                    let mut round = self.0.begin(this);
                    round
                        .form::<Colour>(&context, "colour", "Your colour?")
                        .map_err(internal)?
                        .carry(json!({ "name": name }));
                    return Ok(round.seal()?.into());
                }
                Some(other) => format!("{other:?}"),
            },
            Some(name) => match answers.form::<Colour>("colour")? {
                Some(Elicited::Accepted(Colour { colour })) => format!("{name} likes {colour}"),
                Some(other) => format!("{other:?}"),
                None => "no colour".to_owned(),
            },
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// A 2026-07-28 client connected to its own server instance (no `initialize`).
async fn client_of(instance: Instance) -> RunningService<RoleClient, TestClient> {
    let handler = TestClient::new(Some(json!({ "form": {} })), |_| panic!("not pushed"));
    let (server_io, client_io, _) = in_memory(Relay::default());
    let mut client_info = ::rmcp::ClientHandler::get_info(&handler);
    client_info.protocol_version = ProtocolVersion::V_2026_07_28;
    let server_info = instance.get_info();
    let server = serve_directly::<RoleServer, _, _, _, _>(instance, server_io, Some(client_info));
    tokio::spawn(async move { server.waiting().await });
    serve_directly::<RoleClient, _, _, _, _>(handler, client_io, Some(server_info.into()))
}

fn key(byte: u8) -> RoundKey {
    RoundKey::from_bytes([byte; 32])
}

/// Rounds without a user: these servers authenticate nobody (the user binding is
/// tested in `rmcp_rounds`).
fn anonymous(key: RoundKey) -> Rounds {
    Rounds::new(key).anonymous()
}

/// One `tools/call` of `greet`, driven by hand (`*_once`: no automatic rounds).
async fn call(
    client: &RunningService<RoleClient, TestClient>,
    arguments: Value,
    state: Option<&str>,
    responses: Value,
) -> Result<CallToolResponse, ServiceError> {
    let mut request = CallToolRequestParams::new("greet");
    if let Value::Object(arguments) = arguments {
        request = request.with_arguments(arguments);
    }
    request.request_state = state.map(str::to_owned);
    if let Value::Object(responses) = responses {
        request.input_responses = Some(responses.into_iter().collect::<InputResponses>());
    }
    bounded("greet", client.call_tool_once(request)).await
}

/// The `requestState` of an `InputRequiredResult`, checked against the official schema.
fn state_of(response: Result<CallToolResponse, ServiceError>) -> String {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => {
            let json = serde_json::to_value(&result).unwrap();
            assert_mcp("2026-07-28", "InputRequiredResult", &json);
            result.request_state.expect("a sealed state")
        }
        other => panic!("expected an InputRequiredResult, got {other:?}"),
    }
}

fn text_of(response: Result<CallToolResponse, ServiceError>) -> String {
    match response {
        Ok(CallToolResponse::Complete(result)) => result
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|t| t.text.clone()))
            .collect(),
        other => panic!("expected a complete result, got {other:?}"),
    }
}

/// The JSON-RPC error of a refused call: its code and message.
fn refused(response: Result<CallToolResponse, ServiceError>) -> (ErrorCode, String) {
    match response {
        Err(ServiceError::McpError(error)) => (error.code, error.message.into_owned()),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

// covers: M6, F3
#[tokio::test]
async fn a_round_begun_on_one_instance_is_continued_on_another_with_the_same_key() {
    let first = client_of(Instance(anonymous(key(1)))).await;
    let second = client_of(Instance(anonymous(key(1)))).await;
    let third = client_of(Instance(anonymous(key(1)))).await;

    let state = state_of(call(&first, Value::Null, None, Value::Null).await);
    // Round 2 on another instance: the name answered, the state new.
    let state2 = state_of(
        call(
            &second,
            Value::Null,
            Some(&state),
            json!({ "name": accept(json!({ "name": "Alice" })) }),
        )
        .await,
    );
    assert_ne!(state2, state);
    // Round 3 on a third: the carried name comes back sealed, an extra answer is ignored.
    let done = call(
        &third,
        Value::Null,
        Some(&state2),
        json!({ "colour": accept(json!({ "colour": "blue" })), "extra": accept(json!({})) }),
    )
    .await;
    assert_eq!(text_of(done), "Alice likes blue");
}

// covers: M6
#[tokio::test]
async fn a_tampered_expired_foreign_or_misplaced_state_is_refused_with_invalid_params() {
    let client = client_of(Instance(anonymous(key(1)))).await;
    let state = state_of(call(&client, Value::Null, None, Value::Null).await);
    let answer = json!({ "name": accept(json!({ "name": "Alice" })) });

    // One changed character of the sealed bytes.
    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() - 3;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    let (code, message) =
        refused(call(&client, Value::Null, Some(&tampered), answer.clone()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert_eq!(message, "requestState failed integrity verification");
    // The conformance suite's own tampering: text appended.
    let appended = format!("{state}-TAMPERED");
    let (code, _) = refused(call(&client, Value::Null, Some(&appended), answer.clone()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);

    // A state from a deployment with another key.
    let stranger = client_of(Instance(anonymous(key(2)))).await;
    let (code, message) = refused(call(&stranger, Value::Null, Some(&state), answer.clone()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(
        message.contains("a key this server does not hold"),
        "{message}"
    );

    // The same state replayed on the same request opens (a stateless design cannot
    // tell a second use from the first), on other arguments it does not.
    let replayed = call(&client, Value::Null, Some(&state), answer.clone()).await;
    state_of(replayed);
    let (code, message) =
        refused(call(&client, json!({ "x": 1 }), Some(&state), answer.clone()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("another request"), "{message}");

    // A state past its expiry.
    let short = client_of(Instance(anonymous(key(3)).with_ttl(Duration::ZERO))).await;
    let state = state_of(call(&short, Value::Null, None, Value::Null).await);
    let (code, message) = refused(call(&short, Value::Null, Some(&state), answer).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.starts_with("requestState expired"), "{message}");
}

// covers: M6, F3, R5
#[tokio::test]
async fn missing_answers_are_asked_again_and_invalid_ones_are_refused() {
    let client = client_of(Instance(anonymous(key(1)))).await;
    let state = state_of(call(&client, Value::Null, None, Value::Null).await);

    // Missing (only a key that was not asked): a new InputRequiredResult.
    let again = call(
        &client,
        Value::Null,
        Some(&state),
        json!({ "wrong": accept(json!({})) }),
    );
    state_of(again.await);

    // Breaks the schema (F3): refused, with the key in the error.
    let invalid = json!({ "name": accept(json!({ "name": "" })) });
    let (code, message) = refused(call(&client, Value::Null, Some(&state), invalid).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.starts_with("inputResponses[\"name\"]"), "{message}");
    // No elicitation result at all.
    let (code, _) =
        refused(call(&client, Value::Null, Some(&state), json!({ "name": 12345 })).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    // A decline is an answer (R5).
    let declined = call(
        &client,
        Value::Null,
        Some(&state),
        json!({ "name": { "action": "decline" } }),
    );
    assert_eq!(text_of(declined.await), "Declined");
}
