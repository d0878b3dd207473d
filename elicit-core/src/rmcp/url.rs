//! URL mode through rmcp (MCP 2025-11-25): the request, its completion notification and
//! the `-32042` error ([U1](crate::rules#u1)–[U6](crate::rules#u6),
//! [M3](crate::rules#m3), [M4](crate::rules#m4)).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use ::rmcp::model::{CustomNotification, ErrorCode, ServerNotification};
use ::rmcp::service::ServiceError;
use ::rmcp::ErrorData;

use crate::agent::{unknown_action, AskError, CompletionError, PendingUrl, UrlOutcome, UserId};
use crate::protocol::mcp::v2025_11_25::{self, ElicitationCompleteNotification};
use crate::protocol::mcp::ELICITATION_COMPLETE_NOTIFICATION;
use crate::protocol::JsonRpcError;
use crate::typed::Elicited;

use super::{mcp_scope, PeerElicitor};

impl PeerElicitor {
    /// Asks the client to open `url` (URL mode) and returns the user's choice:
    /// `Accepted` carries a [`UrlConsent`] to complete the elicitation with later.
    ///
    /// The `elicitationId` is minted by the connection's
    /// [`UrlRegistry`](crate::agent::UrlRegistry): unguessable, bound to this
    /// connection and the current user ([U4](crate::rules#u4), [E5](crate::rules#e5),
    /// [S6](crate::rules#s6)). Refused before sending: no URL mode declared
    /// ([C7](crate::rules#c7); never fall back to a form, [F6](crate::rules#f6)), a URL
    /// the policy refuses ([S1](crate::rules#s1)).
    ///
    /// `Accepted` is consent to open the URL, not the end of the external interaction
    /// ([U2](crate::rules#u2)): call [`UrlConsent::complete`] when that ends. Content
    /// the client sends back is never read ([U3](crate::rules#u3)). An action other
    /// than accept, decline and cancel is [`AskError::Invalid`], not consent
    /// ([R5](crate::rules#r5)). Declined, cancelled, failed or dropped, the ask leaves
    /// no outstanding elicitation in the registry.
    pub async fn ask_url(
        &self,
        message: impl Into<String>,
        url: &str,
    ) -> Result<Elicited<UrlConsent>, AskError> {
        let pending = self.prepare_url(message, url)?;
        // Outstanding until the user consents; given up however the ask ends before.
        let guard = UrlConsent::new(pending.elicitation_id(), self);
        let response = self.send(pending.request()).await?;
        match self
            .elicitor
            .record_response(guard.elicitation_id(), &response)
        {
            // Outstanding until completed: the consent owns it from here.
            Ok(UrlOutcome::Consented) => Ok(Elicited::Accepted(guard)),
            Ok(UrlOutcome::Declined) => Ok(Elicited::Declined),
            Ok(UrlOutcome::Cancelled) => Ok(Elicited::Cancelled),
            // R5: an action elicit does not know is not consent.
            Err(CompletionError::UnknownAction(unknown)) => Err(unknown_action(&unknown.action)),
            // The id was forgotten meanwhile (`disconnect`, `forget`): the connection
            // has given up on it, and the answer has nowhere to go. Or the registry's
            // store failed: the answer could not be recorded.
            Err(other) => Err(AskError::transport(other)),
        }
    }

    /// Asks the user for the form `T` on the server's own secure page (feature `axum`),
    /// through a URL-mode elicitation, and returns the value typed there; the value
    /// never passes through the client ([F6](crate::rules#f6), [U3](crate::rules#u3)).
    /// The same as `agent_client_protocol::ask_secret` for MCP: a one-time link to
    /// `page` is sent in URL mode, the page is bound to the new `elicitationId` and the
    /// connection's user ([S6](crate::rules#s6)) and takes no submission until the
    /// client's consent is recorded ([U2](crate::rules#u2)); on consent the submission
    /// is awaited and `notifications/elicitation/complete` is sent
    /// ([U5](crate::rules#u5)) with the user the page verified.
    ///
    /// `Declined` or `Cancelled` when the user refused in the client or on the page,
    /// `Cancelled` too when the page expired first; errors as [`ask_url`](Self::ask_url)'s,
    /// and [`AskError::Transport`] when the page's server stopped or its store failed,
    /// or the page cannot verify the connection's user
    /// ([`PageError::UserNotVerifiable`](crate::axum::PageError::UserNotVerifiable),
    /// nothing sent).
    #[cfg(feature = "axum")]
    #[cfg_attr(docsrs, doc(cfg(feature = "axum")))]
    pub async fn ask_secret<T: crate::typed::Elicit + Send + 'static>(
        &self,
        page: &crate::axum::SecurePage,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, AskError> {
        let message = message.into();
        let link = page
            .link::<T>(message.clone())
            .map_err(AskError::transport)?;
        let pending = self.prepare_url(message, link.url())?;
        // Forgets the elicitation however the ask ends before it completes.
        let guard = UrlConsent::new(pending.elicitation_id(), self);
        // U2: the page shows at once but takes nothing before the client's consent.
        let mut wait = link
            .open_pending_consent(pending.elicitation_id(), self.elicitor.user())
            .map_err(AskError::transport)?;
        let response = self.send(pending.request()).await?;
        match self
            .elicitor
            .record_response(guard.elicitation_id(), &response)
        {
            Ok(UrlOutcome::Consented) => wait.record_consent().map_err(AskError::transport)?,
            Ok(UrlOutcome::Declined) => return Ok(Elicited::Declined),
            Ok(UrlOutcome::Cancelled) => return Ok(Elicited::Cancelled),
            Err(CompletionError::UnknownAction(unknown)) => {
                return Err(unknown_action(&unknown.action))
            }
            Err(other) => return Err(AskError::transport(other)),
        }
        let Some((user, answer)) = crate::axum::settle(wait.answer().await, self.elicitor.user())?
        else {
            return Ok(Elicited::Cancelled);
        };
        guard
            .complete(user.as_ref())
            .await
            .map_err(AskError::transport)?;
        Ok(answer)
    }

    /// Registers a URL elicitation without sending it, for the `-32042` error of a
    /// tool that cannot proceed until the user went through it
    /// ([M4](crate::rules#m4), with [`url_elicitation_required`]). The same checks as
    /// [`ask_url`](Self::ask_url) apply; complete it later with
    /// [`complete`](Self::complete).
    pub fn prepare_url(
        &self,
        message: impl Into<String>,
        url: &str,
    ) -> Result<PendingUrl, AskError> {
        self.check_pushable()?;
        Ok(self.elicitor.url(mcp_scope(), message, url)?)
    }

    /// Sends `notifications/elicitation/complete` for a URL elicitation of this
    /// connection whose external interaction finished ([U5](crate::rules#u5),
    /// [M3](crate::rules#m3)).
    ///
    /// `user` is who the server's authentication says finished it: the user who
    /// started it ([S6](crate::rules#s6)). Refused, with nothing sent, for an id this
    /// connection did not issue (another connection's included,
    /// [E5](crate::rules#e5)), another user, one already completed, declined or
    /// cancelled, and when the registry's store fails.
    pub async fn complete(
        &self,
        elicitation_id: &str,
        user: Option<&UserId>,
    ) -> Result<(), CompleteError> {
        let completed = self
            .elicitor
            .complete(elicitation_id, user)
            .map_err(CompleteError::Refused)?;
        let params = ElicitationCompleteNotification::from(&completed).to_json();
        self.notify(ELICITATION_COMPLETE_NOTIFICATION, params)
            .await
            .map_err(CompleteError::Transport)
    }

    /// Sends `notifications/elicitation/complete` for a URL elicitation of this
    /// connection that another instance of the server completed, routed here by the
    /// relay (feature `redis`, `RedisRelay::on_completion`): the same id, to the
    /// client that received the request, once ([U5](crate::rules#u5),
    /// [M3](crate::rules#m3)). The registry has already recorded it as completed, so
    /// [`complete`](Self::complete) would refuse it.
    ///
    /// Refused with [`CompletionError::ForeignConnection`], nothing sent, when `done`
    /// belongs to another connection ([E5](crate::rules#e5)).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub async fn send_completion(
        &self,
        done: crate::agent::RoutedCompletion,
    ) -> Result<(), CompleteError> {
        if done.connection() != self.elicitor.connection() {
            return Err(CompleteError::Refused(CompletionError::ForeignConnection));
        }
        let params = ElicitationCompleteNotification::from(done.notification()).to_json();
        self.notify(ELICITATION_COMPLETE_NOTIFICATION, params)
            .await
            .map_err(CompleteError::Transport)
    }

    /// Sends a notification to this client (a method rmcp has no type for).
    async fn notify(&self, method: &str, params: serde_json::Value) -> Result<(), ServiceError> {
        let notification = CustomNotification::new(method, Some(params));
        self.peer
            .send_notification(ServerNotification::CustomNotification(notification))
            .await
    }
}

/// The user's consent to open a URL ([U2](crate::rules#u2)), from
/// [`PeerElicitor::ask_url`], bound to the connection that asked and to its user
/// ([E5](crate::rules#e5), [S6](crate::rules#s6)).
///
/// Keep it while the user is on the page (for instance in a map keyed by
/// [`elicitation_id`](Self::elicitation_id), which the page's callback carries back);
/// when the page reports that the user finished, [`complete`](Self::complete) sends
/// `notifications/elicitation/complete` to the client. Dropping it without completing
/// forgets the elicitation, so that nothing stays outstanding; a later completion is
/// refused as unknown. The same type, with the same rules, as the ACP SDK
/// integration's `UrlConsent`.
#[derive(Debug)]
pub struct UrlConsent {
    elicitation_id: String,
    connection: PeerElicitor,
    /// This consent's [`complete`](Self::complete) recorded the completion in the
    /// registry: nothing is outstanding, and dropping it has nothing to forget.
    completed: AtomicBool,
}

impl UrlConsent {
    fn new(elicitation_id: &str, connection: &PeerElicitor) -> Self {
        UrlConsent {
            elicitation_id: elicitation_id.to_owned(),
            connection: connection.clone(),
            completed: AtomicBool::new(false),
        }
    }

    /// The opaque id: keep it with the state of the external interaction (e.g. the
    /// OAuth `state`), to complete from wherever that ends.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// Sends `notifications/elicitation/complete` with this id to the client that
    /// received the request, once ([U5](crate::rules#u5)): see
    /// [`PeerElicitor::complete`].
    pub async fn complete(&self, user: Option<&UserId>) -> Result<(), CompleteError> {
        let completed = self.connection.complete(&self.elicitation_id, user).await;
        // Recorded as completed (the notification sent or not): final in the store.
        if !matches!(completed, Err(CompleteError::Refused(_))) {
            self.completed.store(true, Ordering::Relaxed);
        }
        completed
    }
}

impl Drop for UrlConsent {
    fn drop(&mut self) {
        // Completed by this consent: `Completed` is final, so forgetting would only
        // read the entry again to find it no longer outstanding (one store command
        // per completion saved).
        if *self.completed.get_mut() {
            return;
        }
        // A no-op once answered with decline or cancel, or completed elsewhere: only
        // an outstanding elicitation is forgotten.
        self.connection.elicitor.forget(&self.elicitation_id);
    }
}

/// Why `notifications/elicitation/complete` was not sent.
#[derive(Debug)]
#[non_exhaustive]
pub enum CompleteError {
    /// The registry refused: nothing was sent ([E5](crate::rules#e5),
    /// [S6](crate::rules#s6), [U5](crate::rules#u5)).
    Refused(CompletionError),
    /// The elicitation was marked completed but the notification could not be sent:
    /// the connection is gone. rmcp's error is the source.
    Transport(ServiceError),
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompleteError::Refused(error) => error.fmt(f),
            CompleteError::Transport(_) => {
                f.write_str("`notifications/elicitation/complete` could not be sent to the client")
            }
        }
    }
}

impl std::error::Error for CompleteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Transparent: `Display` is the refusal's own.
            CompleteError::Refused(_) => None,
            CompleteError::Transport(error) => Some(error),
        }
    }
}

/// The `-32042` error telling the client that the request needs these URL
/// elicitations first ([M4](crate::rules#m4)), as rmcp's [`ErrorData`](https://docs.rs/rmcp/3/rmcp/model/struct.ErrorData.html): return it from
/// a tool handler. Make each with [`PeerElicitor::prepare_url`], which registers it so
/// that it can complete later on this connection ([U5](crate::rules#u5)).
pub fn url_elicitation_required(message: impl Into<String>, pending: &[PendingUrl]) -> ErrorData {
    let elicitations: Vec<v2025_11_25::UrlParams> = pending.iter().map(url_params).collect();
    error_data(&v2025_11_25::url_elicitation_required(
        message,
        &elicitations,
    ))
}

/// The MCP 2025-11-25 params of a registered URL elicitation.
fn url_params(pending: &PendingUrl) -> v2025_11_25::UrlParams {
    match v2025_11_25::ElicitRequestParams::try_from(pending.request()) {
        Ok(v2025_11_25::ElicitRequestParams::Url(params)) => params,
        _ => unreachable!("a PendingUrl holds a URL-mode request, which has an MCP form"),
    }
}

/// elicit's JSON-RPC error as rmcp's. MCP codes fit an `i32` (JSON-RPC reserves
/// -32768..-32000 and MCP's own are there); a code outside says "internal error".
fn error_data(error: &JsonRpcError) -> ErrorData {
    let code = i32::try_from(error.code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    ErrorData::new(
        ErrorCode(code),
        error.message().to_owned(),
        error.data().cloned(),
    )
}
