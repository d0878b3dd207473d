//! The two bindings of a round's sealed `requestState` (issue 28, finding 9), between
//! rmcp's own client and server instances over in-memory pipes, through
//! `elicit::rmcp::Dialog`:
//!
//! - at most once: instances that share a store of used rounds refuse a replayed
//!   state on every instance, and the tool's side effect happens once;
//! - the user: each connection's user is put in the request's extensions, as a
//!   server's authentication does; a state sealed for one user is refused to another
//!   (and is not used up by the attempt), a request without user is refused by rounds
//!   bound to the user, and anonymous rounds work without one.
#![cfg(all(feature = "rmcp_3", feature = "url"))]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use ::rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    InputResponses, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use ::rmcp::service::{serve_directly, RequestContext, RoleClient, RoleServer, RunningService};
use ::rmcp::{ErrorData, ServerHandler, ServiceError};
use elicit::agent::{MemoryStore, UserId};
use elicit::rmcp::input::{RoundKey, Rounds, UsedRound};
use elicit::rmcp::Dialog;
use elicit::{Elicit, Elicited};
use serde_json::{json, Value};

use crate::protocol_support::rmcp_wire::{bounded, in_memory, Relay, TestClient};

/// Pay the invoice?
#[derive(Elicit, Debug)]
struct Pay {
    pay: bool,
}

/// One instance of a server whose tool `pay` asks once and then pays (the side effect,
/// counted in `paid`), serving one connection whose user its authentication knows.
#[derive(Clone)]
struct Instance {
    rounds: Rounds,
    user: Option<&'static str>,
    paid: Arc<AtomicUsize>,
}

impl ServerHandler for Instance {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2026_07_28;
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // What an authentication layer does: the request's user in its extensions.
        if let Some(user) = self.user {
            context.extensions.insert(UserId::new(user));
        }
        let dialog = Dialog::tool_call(context, &request);
        dialog
            .run(&self.rounds, async {
                match dialog.form::<Pay>("Pay the invoice?").await? {
                    Elicited::Accepted(Pay { pay: true }) => {
                        let n = self.paid.fetch_add(1, Ordering::SeqCst) + 1;
                        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                            "paid ({n})"
                        ))]))
                    }
                    _ => Ok(CallToolResult::success(vec![ContentBlock::text(
                        "not paid",
                    )])),
                }
            })
            .await
    }
}

fn rounds() -> Rounds {
    Rounds::new(RoundKey::from_bytes([5; 32]))
}

/// A 2026-07-28 client connected to its own server instance.
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

async fn call(
    client: &RunningService<RoleClient, TestClient>,
    state: Option<&str>,
    responses: Value,
) -> Result<CallToolResponse, ServiceError> {
    let mut request = CallToolRequestParams::new("pay");
    request.request_state = state.map(str::to_owned);
    if let Value::Object(responses) = responses {
        request.input_responses = Some(responses.into_iter().collect::<InputResponses>());
    }
    bounded("pay", client.call_tool_once(request)).await
}

fn state_of(response: Result<CallToolResponse, ServiceError>) -> String {
    match response {
        Ok(CallToolResponse::InputRequired(result)) => {
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

fn refused(response: Result<CallToolResponse, ServiceError>) -> (ErrorCode, String) {
    match response {
        Err(ServiceError::McpError(error)) => (error.code, error.message.into_owned()),
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

/// The answer to the one question, under the key `Dialog` gives it.
fn yes() -> Value {
    json!({ "ask-1": { "action": "accept", "content": { "pay": true } } })
}

// covers: M6
#[tokio::test]
async fn a_replayed_state_is_refused_on_another_instance_sharing_the_store() {
    let store: MemoryStore<UsedRound> = MemoryStore::new();
    let paid = Arc::new(AtomicUsize::new(0));
    let instance = |rounds: Rounds| Instance {
        rounds,
        user: Some("alice"),
        paid: paid.clone(),
    };
    let first = client_of(instance(rounds().at_most_once(store.clone()))).await;
    let second = client_of(instance(rounds().at_most_once(store.clone()))).await;

    let state = state_of(call(&first, None, Value::Null).await);
    assert_eq!(
        text_of(call(&second, Some(&state), yes()).await),
        "paid (1)"
    );
    assert_eq!(store.len(), 1);
    // The same state and answers again, on either instance: refused before the body.
    for client in [&first, &second] {
        let (code, message) = refused(call(client, Some(&state), yes()).await);
        assert_eq!(code, ErrorCode::INVALID_PARAMS);
        assert!(message.contains("already answered once"), "{message}");
    }
    assert_eq!(paid.load(Ordering::SeqCst), 1);

    // Without the store the same replay pays again: the option is what refuses it.
    let forgetful = client_of(instance(rounds())).await;
    assert_eq!(
        text_of(call(&forgetful, Some(&state), yes()).await),
        "paid (2)"
    );
}

// covers: S6
#[tokio::test]
async fn a_state_sealed_for_one_user_is_refused_to_another_and_not_used_up() {
    let store: MemoryStore<UsedRound> = MemoryStore::new();
    let paid = Arc::new(AtomicUsize::new(0));
    let instance = |user| Instance {
        rounds: rounds().at_most_once(store.clone()),
        user: Some(user),
        paid: paid.clone(),
    };
    let alice = client_of(instance("alice")).await;
    let bob = client_of(instance("bob")).await;

    let state = state_of(call(&alice, None, Value::Null).await);
    let (code, message) = refused(call(&bob, Some(&state), yes()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("sealed for another user"), "{message}");
    assert_eq!(paid.load(Ordering::SeqCst), 0);
    assert!(store.is_empty());
    // Alice's round is still hers to answer.
    assert_eq!(text_of(call(&alice, Some(&state), yes()).await), "paid (1)");
}

// covers: S6
#[tokio::test]
async fn bound_rounds_refuse_a_request_without_user_and_anonymous_rounds_work() {
    let paid = Arc::new(AtomicUsize::new(0));
    let nobody = |rounds| Instance {
        rounds,
        user: None,
        paid: paid.clone(),
    };
    let bound = client_of(nobody(rounds())).await;
    let (code, message) = refused(call(&bound, None, Value::Null).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
    assert!(message.contains("Rounds::anonymous()"), "{message}");

    let anonymous = client_of(nobody(rounds().anonymous())).await;
    let state = state_of(call(&anonymous, None, Value::Null).await);
    assert_eq!(
        text_of(call(&anonymous, Some(&state), yes()).await),
        "paid (1)"
    );
    // A state sealed with no user does not open for a user either.
    let alice = client_of(Instance {
        rounds: rounds().anonymous(),
        user: Some("alice"),
        paid: paid.clone(),
    })
    .await;
    let (code, _) = refused(call(&alice, Some(&state), yes()).await);
    assert_eq!(code, ErrorCode::INVALID_PARAMS);
}
