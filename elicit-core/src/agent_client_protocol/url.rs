//! [`ask_url`] and [`UrlConsent`]: one URL-mode elicitation on the SDK's connection,
//! and its `elicitation/complete` on the same connection ([U2](crate::rules#u2),
//! [U5](crate::rules#u5)).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use ::agent_client_protocol::{Client, ConnectionTo, UntypedMessage};

use super::ask::{exchange, Answer};
use crate::agent::{unknown_action, AskError, CompletionError, Elicitor, UrlOutcome, UserId};
use crate::protocol::{CompleteElicitation, Scope};
use crate::typed::Elicited;

/// Forgets an outstanding URL elicitation when dropped: an ask that ends without the
/// user's consent (an error, a cancelled session, a dropped future) leaves nothing
/// outstanding in the registry. Forgetting a finished one is a no-op.
pub(super) struct ForgetOnDrop<'a> {
    pub(super) elicitor: &'a Elicitor,
    pub(super) elicitation_id: &'a str,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        self.elicitor.forget(self.elicitation_id);
    }
}

/// Asks the client to send the user to `url` ([U1](crate::rules#u1)) and returns the
/// user's choice. `Accepted` is consent to open the URL, not the end of what happens
/// there ([U2](crate::rules#u2)): keep the [`UrlConsent`] until the agent's page
/// reports back, then [`complete`](UrlConsent::complete) it.
///
/// Refused before anything is sent when the client did not declare URL mode
/// ([`AskError::ModeNotSupported`], [C7](crate::rules#c7); never fall back to a form,
/// [F6](crate::rules#f6)) or the URL breaks the `Elicitor`'s policy
/// ([`AskError::Refused`], [S1](crate::rules#s1)). After sending, the errors are those of
/// [`ask`](super::ask); an unknown action is [`AskError::Invalid`], not consent
/// ([R5](crate::rules#r5)). Content in the answer is never read ([U3](crate::rules#u3)).
///
/// Declined, cancelled (by the user or through
/// [`cancel_session`](super::cancel_session)), failed or dropped, the ask leaves no
/// outstanding elicitation in the `Elicitor`'s registry.
pub async fn ask_url(
    connection: &(impl Clone + Into<ConnectionTo<Client>>),
    elicitor: &Elicitor,
    scope: Scope,
    message: impl Into<String>,
    url: &str,
) -> Result<Elicited<UrlConsent>, AskError> {
    match ask_url_or_raw(&connection.clone().into(), elicitor, scope, message, url).await? {
        Answer::Known(answer) => Ok(answer),
        Answer::Unknown(response) => Err(unknown_action(response.action().as_str())),
    }
}

/// [`ask_url`], with an answer in an unknown action returned as received instead of as
/// an error (the elicitation is then forgotten: it was not consented to): what a
/// forwarding agent needs ([E6](crate::rules#e6)).
pub(crate) async fn ask_url_or_raw(
    connection: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    scope: Scope,
    message: impl Into<String>,
    url: &str,
) -> Result<Answer<UrlConsent>, AskError> {
    let pending = elicitor.url(scope, message, url)?;
    let elicitation_id = pending.elicitation_id();
    let guard = ForgetOnDrop {
        elicitor,
        elicitation_id,
    };
    let response = match exchange(connection, elicitor, pending.request()).await? {
        Some(response) => response,
        // The guard forgets the id: nothing outstanding.
        None => return Ok(Answer::Known(Elicited::Cancelled)),
    };
    let answer = match elicitor.record_response(elicitation_id, &response) {
        Ok(UrlOutcome::Consented) => {
            // Outstanding until completed: the consent owns it from here.
            std::mem::forget(guard);
            Elicited::Accepted(UrlConsent {
                connection: connection.clone(),
                elicitor: elicitor.clone(),
                elicitation_id: elicitation_id.to_owned(),
                completed: AtomicBool::new(false),
            })
        }
        Ok(UrlOutcome::Declined) => Elicited::Declined,
        Ok(UrlOutcome::Cancelled) => Elicited::Cancelled,
        // The guard forgets the id.
        Err(CompletionError::UnknownAction(_)) => return Ok(Answer::Unknown(Box::new(response))),
        // The agent forgot the elicitation while the client was answering
        // (`Elicitor::disconnect`, `forget`), or the registry's store failed: the
        // answer has nowhere to go.
        Err(error) => return Err(AskError::transport(error)),
    };
    Ok(Answer::Known(answer))
}

/// The user's consent to open a URL ([U2](crate::rules#u2)), bound to the connection
/// that asked and to the `Elicitor`'s user ([E5](crate::rules#e5),
/// [S6](crate::rules#s6)).
///
/// Keep it while the user is on the page (for instance in a map keyed by
/// [`elicitation_id`](Self::elicitation_id), which the page's callback carries back);
/// when the page reports that the user finished, [`complete`](Self::complete) sends
/// `elicitation/complete` to the client. Dropping it without completing forgets the
/// elicitation, so that nothing stays outstanding; a later completion is refused as
/// unknown.
pub struct UrlConsent {
    connection: ConnectionTo<Client>,
    elicitor: Elicitor,
    elicitation_id: String,
    /// This consent's [`complete`](Self::complete) recorded the completion in the
    /// registry: nothing is outstanding, and dropping it has nothing to forget.
    completed: AtomicBool,
}

impl fmt::Debug for UrlConsent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UrlConsent")
            .field("elicitation_id", &self.elicitation_id)
            .field("connection", &self.elicitor.connection())
            .finish_non_exhaustive()
    }
}

impl UrlConsent {
    #[cfg(feature = "axum")]
    pub(super) fn new(
        connection: ConnectionTo<Client>,
        elicitor: Elicitor,
        elicitation_id: String,
    ) -> Self {
        UrlConsent {
            connection,
            elicitor,
            elicitation_id,
            completed: AtomicBool::new(false),
        }
    }

    /// The `elicitationId` sent to the client ([U1](crate::rules#u1),
    /// [U4](crate::rules#u4)): opaque, unguessable, unique on this connection.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// Sends `elicitation/complete` with the original id on the connection that asked
    /// ([U5](crate::rules#u5)), once.
    ///
    /// `user` is who the agent's authentication says finished the external
    /// interaction; it must be the user who started it ([S6](crate::rules#s6)), `None`
    /// only when the `Elicitor` has no user. Refused, with nothing sent, for another
    /// user ([`CompletionError::UserMismatch`]), a second completion
    /// ([`CompletionError::AlreadyCompleted`]), an elicitation the agent forgot
    /// meanwhile, or a registry whose store failed ([`CompletionError::Store`]). The
    /// registry records the completion before the notification is written: if writing
    /// fails ([`CompleteError::Transport`]), the completion is not repeated.
    pub fn complete(&self, user: Option<&UserId>) -> Result<(), CompleteError> {
        let done = self
            .elicitor
            .complete(&self.elicitation_id, user)
            .map_err(CompleteError::Refused)?;
        // Recorded as completed (whether the notification goes out or not): final.
        self.completed.store(true, Ordering::Relaxed);
        let notification = UntypedMessage::new(CompleteElicitation::METHOD, &done)
            .map_err(CompleteError::Transport)?;
        self.connection
            .send_notification(notification)
            .map_err(CompleteError::Transport)
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
        // A no-op once completed elsewhere: only an outstanding elicitation is
        // forgotten.
        self.elicitor.forget(&self.elicitation_id);
    }
}

/// Why [`UrlConsent::complete`] did not notify the client.
#[derive(Debug)]
#[non_exhaustive]
pub enum CompleteError {
    /// The registry refused the completion; nothing was sent ([E5](crate::rules#e5),
    /// [S6](crate::rules#s6), [U5](crate::rules#u5)).
    Refused(CompletionError),
    /// The SDK could not send the notification (the connection is closed).
    Transport(::agent_client_protocol::Error),
}

impl fmt::Display for CompleteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompleteError::Refused(error) => error.fmt(f),
            // The SDK's error is the source, reported once.
            CompleteError::Transport(_) => {
                f.write_str("`elicitation/complete` could not be sent to the client")
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
