//! An ACP agent that needs a secret, the user's API key, and asks for it the way the
//! spec requires: in URL mode, on a page of its own, out of the client's and the
//! model's sight (F5, F6, U3).
//!
//! ```text
//! cargo run --example url_secret_agent --features agent-client-protocol,axum
//! ```
//!
//! It speaks ACP over stdin and stdout like `acp_agent`. At start it serves its secure
//! page on a loopback port (`elicit::axum::SecurePage`). On each prompt, with a client
//! that declared URL mode, one call, `ask_secret::<DeployKey>`:
//!
//! 1. makes a one-time link, `http://127.0.0.1:PORT/elicit/<256-bit token>`, and sends
//!    it as `elicitation/create` with `mode: "url"` (S1: the link carries nothing but
//!    the token);
//! 2. once the user consented in the client (U2), waits for them to fill the page in
//!    their browser: the key in a password field, checked as `DeployKey` declares;
//! 3. hands the typed `DeployKey` to the agent, marks the elicitation complete for the
//!    user who started it (S6) and sends `elicitation/complete` (U5).
//!
//! The turn then says that a key arrived and how long it is, never the key: a secret
//! obtained through URL mode must not go back over ACP (U3). A client without URL mode
//! gets no form instead (F6): the turn says why the agent could not ask.
//!
//! Set `ELICIT_PAGE_PORT` to choose the port (default: any free one).

use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Stdio};
use elicit::agent::{AskError, ConnectionId, UrlPolicy, UserId};
use elicit::agent_client_protocol::{ask_secret, cancel_session};
use elicit::axum::SecurePage;
use elicit::client::AgentIdentity;
use elicit::{Elicit, ElicitationCapabilities, Elicited, Elicitor, Scope};

/// Connect your deploy account
#[derive(Elicit)]
#[elicit(url_mode)]
struct DeployKey {
    /// The API key of your deploy account, from its settings page
    #[elicit(title = "API key", min_length = 16, max_length = 200)]
    api_key: String,
    /// Where to deploy
    #[elicit(title = "Region", default = "eu-west")]
    region: Region,
}

#[derive(Elicit, Debug, Clone, Copy)]
#[elicit(rename_all = "kebab-case")]
enum Region {
    #[elicit(title = "Europe (Ireland)")]
    EuWest,
    #[elicit(title = "US East (Virginia)")]
    UsEast,
}

/// The message the client shows beside the link.
const MESSAGE: &str = "Connect your deploy account: enter its API key on the agent's own page.";

/// The one person this agent serves: a stdio agent is started by its user (see
/// `acp_agent`). Its elicitations are bound to this user, and the page, which has no
/// login, takes whoever fills it as this user (`unauthenticated_single_user`).
const LOCAL_USER: &str = "local-user";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = match std::env::var("ELICIT_PAGE_PORT") {
        Ok(port) => port.parse::<u16>()?,
        Err(_) => 0,
    };
    let page = SecurePage::builder()
        .agent(AgentIdentity::new("elicit-url-secret-agent").with_title("elicit example agent"))
        // One person's own agent: no login, and whoever opens the page on this machine
        // counts as its user. That gives up checking who fills the page (S6); an agent
        // with several users passes its login to `authenticate` instead.
        .unauthenticated_single_user(UserId::new(LOCAL_USER))
        .bind(([127, 0, 0, 1], port))
        .await?;
    serve(page).await?;
    Ok(())
}

async fn serve(page: SecurePage) -> agent_client_protocol::Result<()> {
    let elicitor: Arc<Mutex<Option<Elicitor>>> = Arc::default();
    let current = |slot: &Mutex<Option<Elicitor>>| {
        slot.lock().unwrap_or_else(PoisonError::into_inner).clone()
    };
    Agent
        .v1()
        .name("elicit-url-secret-agent")
        .on_receive_request(
            {
                let elicitor = Arc::clone(&elicitor);
                async move |request: acp::InitializeRequest,
                            responder: Responder<acp::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    // The page is plain HTTP on loopback: development only (S1). The
                    // default policy allows it; said here so the dependency is visible.
                    let made =
                        Elicitor::new(ElicitationCapabilities::from(&request), ConnectionId::new())
                            .with_user(UserId::new(LOCAL_USER))
                            .with_url_policy(UrlPolicy::new().allow_loopback_http(true));
                    *elicitor.lock().unwrap_or_else(PoisonError::into_inner) = Some(made);
                    responder.respond(
                        acp::InitializeResponse::new(ProtocolVersion::V1).agent_info(
                            acp::Implementation::new(
                                "elicit-url-secret-agent",
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
            async move |_request: acp::NewSessionRequest,
                        responder: Responder<acp::NewSessionResponse>,
                        _cx: ConnectionTo<Client>| {
                responder.respond(acp::NewSessionResponse::new("session-1"))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            {
                let elicitor = Arc::clone(&elicitor);
                async move |request: acp::PromptRequest,
                            responder: Responder<acp::PromptResponse>,
                            cx: ConnectionTo<Client>| {
                    let Some(elicitor) = current(&elicitor) else {
                        return responder.respond_with_error(
                            agent_client_protocol::Error::invalid_request()
                                .data("send `initialize` before `session/prompt`"),
                        );
                    };
                    // The answer comes through the dispatch loop this handler holds:
                    // the turn runs in a task of its own.
                    let turn_cx = cx.clone();
                    let page = page.clone();
                    cx.spawn(async move {
                        let session_id = request.session_id;
                        let text = connect(&turn_cx, &elicitor, &page, &session_id.0).await;
                        turn_cx.send_notification(acp::SessionNotification::new(
                            session_id,
                            acp::SessionUpdate::AgentMessageChunk(acp::ContentChunk::new(
                                acp::ContentBlock::Text(acp::TextContent::new(text)),
                            )),
                        ))?;
                        responder.respond(acp::PromptResponse::new(acp::StopReason::EndTurn))
                    })
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let elicitor = Arc::clone(&elicitor);
                async move |cancel: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    if let Some(elicitor) = current(&elicitor) {
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

/// One turn: the key, through the page, and what the agent may say about it.
async fn connect(
    cx: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    page: &SecurePage,
    session_id: &str,
) -> String {
    match ask_secret::<DeployKey>(cx, elicitor, page, Scope::session(session_id), MESSAGE).await {
        // U3: the key stays here; only that it arrived is said.
        Ok(Elicited::Accepted(key)) => format!(
            "Connected: received an API key of {} characters for region {:?}. The key itself \
             stays with the agent.",
            key.api_key.chars().count(),
            key.region
        ),
        Ok(Elicited::Declined) => "You declined to connect the account.".to_owned(),
        Ok(Elicited::Cancelled) => "The connection was cancelled or the page expired.".to_owned(),
        // F6: no URL mode, no form instead.
        Err(AskError::ModeNotSupported(_)) => "This client cannot open a URL-mode \
             elicitation, and an API key must never be asked for in a form, so I cannot \
             connect the account here."
            .to_owned(),
        Err(error) => format!("I could not ask for the key: {error}"),
    }
}
