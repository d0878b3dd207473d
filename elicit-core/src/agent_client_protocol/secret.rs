//! [`ask_secret`]: a value the user types on the agent's own secure page, asked
//! through a URL-mode elicitation on the SDK's connection (features
//! `agent-client-protocol` and `axum`).

use std::pin::pin;

use ::agent_client_protocol::{Client, ConnectionTo};
use futures::future::{self, Either};

use super::ask::exchange_watched;
use super::cancel::Watch;
use super::url::{ForgetOnDrop, UrlConsent};
use crate::agent::{unknown_action, AskError, CompletionError, Elicitor, UrlOutcome};
use crate::axum::{settle, SecurePage};
use crate::protocol::Scope;
use crate::typed::{Elicit, Elicited};

/// Asks the user for the form `T` on the agent's own secure page
/// ([`SecurePage`]), through a URL-mode elicitation, and returns the value they
/// typed there. The value never passes through the client ([F6](crate::rules#f6),
/// [U3](crate::rules#u3)); `T` is usually a form marked `#[elicit(url_mode)]`, which
/// may ask for secrets.
///
/// In order: a one-time link to the page is made and sent as `elicitation/create`
/// (mode `url`, [U1](crate::rules#u1)); the page is bound to the new
/// `elicitationId` and to the `Elicitor`'s user ([S6](crate::rules#s6)), and takes no
/// submission until the client's consent is recorded ([U2](crate::rules#u2)); on
/// consent, the page's submission is awaited, the elicitation completed in the
/// registry with the user the page verified and `elicitation/complete` sent on this
/// connection ([U5](crate::rules#u5)).
///
/// Returns `Accepted(T)` with the value, validated exactly as
/// [`Elicit::from_content`]; `Declined` or `Cancelled` when the user refused in the
/// client or on the page (the page's refusal also completes the elicitation, since
/// the interaction there is over); `Cancelled` when the session is cancelled
/// ([`cancel_session`](super::cancel_session)) or the page expires before the user
/// submits it. Errors are those of [`ask_url`](super::ask_url), and
/// [`AskError::Transport`] when the page's server stopped or its store failed, or the
/// page cannot verify the `Elicitor`'s user
/// ([`PageError::UserNotVerifiable`](crate::axum::PageError::UserNotVerifiable), nothing
/// sent).
///
/// Runs within a tokio runtime (the page's server and its expiry timer are tokio's),
/// as the SDK's own examples do.
///
/// The `Elicitor`'s URL policy must accept the page's loopback `http` address
/// (`UrlPolicy::allow_loopback_http`), or the ask is refused before anything is sent
/// ([S1](crate::rules#s1)).
pub async fn ask_secret<T: Elicit + Send + 'static>(
    connection: &(impl Clone + Into<ConnectionTo<Client>>),
    elicitor: &Elicitor,
    page: &SecurePage,
    scope: Scope,
    message: impl Into<String>,
) -> Result<Elicited<T>, AskError> {
    let message = message.into();
    let link = page
        .link::<T>(message.clone())
        .map_err(AskError::transport)?;
    // One watch for the whole ask, made before anything is sent: a cancel ends it
    // while the client answers and while the user is on the page.
    let mut watch = Watch::new(elicitor.connection(), &scope);
    let pending = elicitor.url(scope, message, link.url())?;
    let elicitation_id = pending.elicitation_id();
    let guard = ForgetOnDrop {
        elicitor,
        elicitation_id,
    };
    // Bound before the link is sent: the page shows as soon as the user can open it,
    // and takes nothing before the client's consent (U2).
    let mut wait = link
        .open_pending_consent(elicitation_id, elicitor.user())
        .map_err(AskError::transport)?;
    let connection: ConnectionTo<Client> = connection.clone().into();
    let response = match exchange_watched(&connection, pending.request(), &mut watch).await? {
        Some(response) => response,
        None => return Ok(Elicited::Cancelled),
    };
    match elicitor.record_response(elicitation_id, &response) {
        Ok(UrlOutcome::Consented) => wait.record_consent().map_err(AskError::transport)?,
        Ok(UrlOutcome::Declined) => return Ok(Elicited::Declined),
        Ok(UrlOutcome::Cancelled) => return Ok(Elicited::Cancelled),
        Err(CompletionError::UnknownAction(_)) => {
            return Err(unknown_action(response.action().as_str()))
        }
        Err(error) => return Err(AskError::transport(error)),
    }
    // U2: consent only. Now the page: its submission, its expiry, or the session's
    // cancellation, whichever comes first.
    let answer = pin!(wait.answer());
    let cancelled = pin!(watch.cancelled());
    let answer = match future::select(answer, cancelled).await {
        Either::Left((answer, _)) => answer,
        Either::Right(((), _)) => return Ok(Elicited::Cancelled),
    };
    let Some((user, answer)) = settle(answer, elicitor.user())? else {
        return Ok(Elicited::Cancelled);
    };
    // The interaction is over: complete it, with the user the page was bound to.
    std::mem::forget(guard);
    UrlConsent::new(connection, elicitor.clone(), elicitation_id.to_owned())
        .complete(user.as_ref())
        .map_err(AskError::transport)?;
    Ok(answer)
}
