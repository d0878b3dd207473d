//! A real ACP agent that asks its user for input with `elicitation/create` and gets the
//! answer back typed and validated.
//!
//! The connection is the official `agent-client-protocol` SDK speaking JSON-RPC over
//! stdin and stdout; `elicit` decides what may be asked (the [`Elicitor`]), builds the
//! requests, and reads the answers. Run it with
//!
//! ```text
//! cargo run --example acp_agent --features agent-client-protocol
//! ```
//!
//! and talk to it as an ACP client does: one JSON-RPC message per line on its stdin,
//! its messages one per line on its stdout. `tests/examples/acp_agent.rs` drives it exactly that
//! way. An abridged session (`>` is the client, `<` the agent):
//!
//! ```text
//! > {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,
//!    "clientCapabilities":{"elicitation":{"form":{}}}}}
//! < {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{…},…}}
//! > {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}
//! < {"jsonrpc":"2.0","id":1,"result":{"sessionId":"session-1"}}
//! > {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"session-1",
//!    "prompt":[{"type":"text","text":"Tidy up the parser"}]}}
//! < {"jsonrpc":"2.0","id":…,"method":"elicitation/create","params":{"mode":"form",
//!    "sessionId":"session-1","message":"…","requestedSchema":{…}}}
//! > {"jsonrpc":"2.0","id":…,"result":{"action":"accept","content":{"strategy":"Balanced",
//!    "passes":3,"run_tests":true}}}
//! < {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"session-1",
//!    "update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"…"}}}}
//! < {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}
//! ```
//!
//! On every prompt the agent asks before it works, in the mode the client declared in
//! `initialize` (C1–C6):
//!
//! - **form** declared: a form derived from [`TaskPlan`]. The answer is validated again
//!   here whatever the client checked (F3); decline and cancel stop the task (R5); an
//!   invalid answer is reported with every problem and not used.
//! - only **url** declared: a URL-mode request sending the user to a consent page on a
//!   loopback address (nothing serves it: this is a demonstration). After the user's
//!   consent the external step is simulated as finished, and the agent sends
//!   `elicitation/complete` with the same `elicitationId` (U2, U5).
//! - **neither**: nothing is sent (C7); the turn says why the agent could not ask.
//!
//! Every turn ends with one agent message stating what the agent received. A
//! `session/cancel` from the client withdraws a question still open (the SDK tells the
//! client with `$/cancel_request`) and the turn ends with the stop reason `cancelled`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Stdio};
use elicit::agent::{AskError, ConnectionId, UserId};
use elicit::agent_client_protocol::{ask, ask_url, cancel_session, CompleteError};
use elicit::{Elicit, ElicitationCapabilities, Elicited, Elicitor, Scope};

/// Before I start, how should I go about it?
#[derive(Elicit, Debug)]
#[elicit(title = "Task plan")]
struct TaskPlan {
    /// How bold the changes may be
    strategy: Strategy,
    /// How many times to go over the changes before reporting back
    #[elicit(title = "Review passes", minimum = 1, maximum = 5, default = 2)]
    passes: u8,
    /// Where to send a summary when done; leave empty for none
    #[elicit(title = "Notify", format = "email")]
    notify: Option<String>,
    /// Run the test suite after each pass
    #[elicit(title = "Run tests", default = true)]
    run_tests: bool,
}

/// How bold the changes may be.
#[derive(Elicit, Debug, Clone, Copy)]
enum Strategy {
    /// Small steps, each one reviewed
    #[elicit(title = "Conservative")]
    Conservative,
    #[elicit(title = "Balanced")]
    Balanced,
    /// Rewrite what needs rewriting
    #[elicit(title = "Aggressive")]
    Aggressive,
}

/// The message of the form-mode request. No link in it: F7.
const FORM_MESSAGE: &str = "Before I start, tell me how to go about this task.";

/// The message of the URL-mode request.
const URL_MESSAGE: &str = "Review and approve the task plan in your browser.";

/// Where the URL-mode request sends the user. Loopback `http` is what the default
/// `UrlPolicy` allows outside `https` (S1: development only), and the URL carries no
/// credential and no personal data. Nothing listens there: the example simulates the
/// page reporting back.
const CONSENT_URL: &str = "http://127.0.0.1:47615/consent";

/// The one person this agent serves. A stdio agent is started by its user and has no
/// login of its own; an agent with real authentication uses the authenticated identity
/// instead, so that only that user can complete a URL elicitation (E5, S6).
const LOCAL_USER: &str = "local-user";

/// The SDK is runtime-neutral; tokio drives it, as in the SDK's own examples. One
/// thread is enough: the stdio transport does its blocking reads and writes on threads
/// of its own.
#[tokio::main(flavor = "current_thread")]
async fn main() -> agent_client_protocol::Result<()> {
    serve().await
}

/// What the agent knows about its one connection.
#[derive(Default)]
struct State {
    /// Made in `initialize` from what the client declared; `None` before.
    elicitor: Mutex<Option<Elicitor>>,
    /// The sessions opened on this connection: `session-1`, `session-2`…
    sessions: Mutex<Vec<String>>,
    /// Sessions whose current turn the client cancelled (`session/cancel`).
    cancelled: Mutex<HashSet<String>>,
}

impl State {
    fn elicitor(&self) -> Option<Elicitor> {
        // A poisoned lock only means another handler panicked; the value is still whole.
        self.elicitor
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_elicitor(&self, elicitor: Elicitor) {
        *self.elicitor.lock().unwrap_or_else(PoisonError::into_inner) = Some(elicitor);
    }

    fn open_session(&self) -> String {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        let id = format!("session-{}", sessions.len() + 1);
        sessions.push(id.clone());
        id
    }

    /// Records (`true`) or clears (`false`) a cancellation of the session's turn;
    /// returns whether one was recorded before.
    fn mark_cancelled(&self, id: &str, cancelled: bool) -> bool {
        let mut sessions = self
            .cancelled
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if cancelled {
            !sessions.insert(id.to_owned())
        } else {
            sessions.remove(id)
        }
    }

    fn has_session(&self, id: &str) -> bool {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|session| session == id)
    }
}

async fn serve() -> agent_client_protocol::Result<()> {
    let state = Arc::new(State::default());
    Agent
        .v1()
        .name("elicit-acp-agent")
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    // C1–C6: what the client declared, a malformed mode read as absent.
                    // One Elicitor per connection (E5): this process serves one client.
                    state.set_elicitor(
                        Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new())
                            .with_user(UserId::new(LOCAL_USER)),
                    );
                    responder.respond(
                        acp::InitializeResponse::new(ProtocolVersion::V1)
                            .agent_capabilities(acp::AgentCapabilities::new())
                            .agent_info(
                                acp::Implementation::new(
                                    "elicit-acp-agent",
                                    env!("CARGO_PKG_VERSION"),
                                )
                                .title("elicit example agent"),
                            ),
                    )
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |_request: acp::NewSessionRequest,
                            responder: Responder<acp::NewSessionResponse>,
                            _cx: ConnectionTo<Client>| {
                    responder.respond(acp::NewSessionResponse::new(state.open_session()))
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let state = Arc::clone(&state);
                async move |request: acp::PromptRequest,
                            responder: Responder<acp::PromptResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(elicitor) = state.elicitor() else {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_request()
                                .data("send `initialize` before `session/prompt`"),
                        );
                    };
                    // Elicitations are scoped to a session of this connection (E3, E5):
                    // never ask on behalf of a session this client was not given.
                    if !state.has_session(&request.session_id.0) {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_params()
                                .data("no session with this id on this connection"),
                        );
                    }
                    // The client's answer to `elicitation/create` arrives through the
                    // dispatch loop this handler is holding: waiting for it here would
                    // deadlock. The turn runs in a task of its own.
                    let turn_cx = cx.clone();
                    let state = Arc::clone(&state);
                    cx.spawn(async move {
                        let session_id = request.session_id;
                        // A cancellation sent before this turn is not for it.
                        state.mark_cancelled(&session_id.0, false);
                        let text = run_turn(&turn_cx, &elicitor, &session_id.0).await;
                        // A cancelled turn ends with `cancelled`, whatever it said.
                        let stop = if state.mark_cancelled(&session_id.0, false) {
                            acp::StopReason::Cancelled
                        } else {
                            acp::StopReason::EndTurn
                        };
                        turn_cx.send_notification(acp::SessionNotification::new(
                            session_id,
                            acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
                                acp::ContentBlock::Text(acp::TextContent::new(text)),
                            )),
                        ))?;
                        responder.respond(acp::PromptResponse::new(stop))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let state = Arc::clone(&state);
                async move |cancel: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    // The client cancelled the turn: a question still open in it is
                    // withdrawn and reads as dismissed (R5); the turn ends `cancelled`.
                    state.mark_cancelled(&cancel.session_id.0, true);
                    if let Some(elicitor) = state.elicitor() {
                        cancel_session(&elicitor, &cancel.session_id.0);
                    }
                    Ok(())
                }
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// One turn: ask in a mode the client declared, and say what came back.
async fn run_turn(cx: &ConnectionTo<Client>, elicitor: &Elicitor, session_id: &str) -> String {
    let scope = Scope::session(session_id);
    // The ask refuses a mode the client did not declare (C7) before anything is sent,
    // so the fallback is driven by that error rather than by a second capability check.
    // F3: the answer is validated here again whatever the client checked; R5: decline
    // and cancel are answers to handle, not errors.
    match ask::<TaskPlan>(cx, elicitor, scope.clone(), FORM_MESSAGE).await {
        Ok(Elicited::Accepted(plan)) => format!(
            "Received your plan: strategy {:?}, {} review pass(es), summary {}, tests after \
             each pass: {}. Starting now.",
            plan.strategy,
            plan.passes,
            match &plan.notify {
                Some(address) => format!("to {address}"),
                None => "to nobody".to_owned(),
            },
            if plan.run_tests { "yes" } else { "no" },
        ),
        Ok(Elicited::Declined) => {
            "You declined to give a plan, so I did not start the task.".to_owned()
        }
        Ok(Elicited::Cancelled) => {
            "You dismissed the question without answering, so I did not start the task.".to_owned()
        }
        Err(AskError::ModeNotSupported(_)) => ask_for_consent(cx, elicitor, scope).await,
        Err(AskError::Invalid(errors)) => format!(
            "Your answer was not valid, so I did not use it and did not start the task. \
             {errors}"
        ),
        Err(error) if error.is_refused_before_sending() => {
            format!("I could not ask how to proceed: {error}")
        }
        Err(error) => format!(
            "I asked how to proceed, but {}. I did not start the task.",
            problem(&error)
        ),
    }
}

/// URL mode: send the user to the consent page; on consent, simulate the page
/// reporting back and send `elicitation/complete`.
async fn ask_for_consent(cx: &ConnectionTo<Client>, elicitor: &Elicitor, scope: Scope) -> String {
    match ask_url(cx, elicitor, scope, URL_MESSAGE, CONSENT_URL).await {
        // U2: consent is not completion. A real agent now waits for its page (an OAuth
        // redirect, a form post) to report that the user finished there, and checks
        // that this user is the one who started (S6). Here the page is simulated as
        // done at once, by the local user. U5: on this connection, with the original id.
        Ok(Elicited::Accepted(consent)) => match consent.complete(elicitor.user()) {
            Ok(()) => format!(
                "Received your consent to open {CONSENT_URL}; the approval finished there \
                 (simulated) and I sent `elicitation/complete` for elicitation {}. Starting \
                 now.",
                consent.elicitation_id()
            ),
            Err(CompleteError::Transport(error)) => format!(
                "Received your consent, but I could not tell the client the approval \
                 finished: {}",
                error.message
            ),
            Err(error) => format!("Received your consent, but {error}."),
        },
        Ok(Elicited::Declined) => {
            "You declined to open the approval page, so I did not start the task.".to_owned()
        }
        Ok(Elicited::Cancelled) => {
            "You dismissed the approval request, so I did not start the task.".to_owned()
        }
        // C7: no mode to ask in. Degrade: say so and do nothing (R5).
        Err(AskError::ModeNotSupported(_)) => "This client declared no elicitation mode \
             (neither `form` nor `url` in `clientCapabilities.elicitation`), so I cannot ask \
             you how to proceed and did not start the task."
            .to_owned(),
        // An action this crate does not know is not consent (R5).
        Err(AskError::Invalid(errors)) => {
            format!("I could not use the client's answer: {errors}. I did not start the task.")
        }
        Err(error) if error.is_refused_before_sending() => {
            format!("I could not ask for your approval: {error}")
        }
        Err(error) => format!(
            "I asked for your approval, but {}. I did not start the task.",
            problem(&error)
        ),
    }
}

/// What went wrong after the request was sent, in the turn's words.
fn problem(error: &AskError) -> String {
    match error {
        AskError::Rejected(error) => {
            format!("the client answered with an error: {}", error.message())
        }
        AskError::MalformedResponse(error) => {
            format!("the client's answer is not an elicitation response: {error}")
        }
        other => other.to_string(),
    }
}
