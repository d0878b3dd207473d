//! [`ask`] and [`ask_schema`]: one form-mode elicitation, sent and answered, on the
//! SDK's connection to the client.

use std::pin::pin;

use ::agent_client_protocol::{
    is_connection_terminated, is_incoming_transport_closed, Client, ConnectionTo, UntypedMessage,
};
use futures::future::{self, Either};
use serde_json::Value;

use super::cancel::Watch;
use crate::agent::{schema_answer, unknown_action, AskError, Elicitor};
use crate::protocol::{Action, CreateElicitation, ElicitationResponse, JsonRpcError, Scope};
use crate::schema::RequestedSchema;
use crate::typed::{Elicit, Elicited};

/// Sends `request` to the client and waits for the answer: `None` when the request's
/// session was cancelled first ([`cancel_session`](super::cancel_session)), and the
/// answer is no longer awaited.
///
/// Sent as an untyped request carrying elicit's own params: the official
/// `CreateElicitationRequest` keeps form properties in a `BTreeMap`, sorted by name,
/// and the form would reach the user in alphabetical order instead of the order the
/// fields are declared in ([D13](crate::rules#d13)). The answer is read from the raw
/// JSON, so content the official types could not hold is still reported as a
/// validation problem, with the others ([F3](crate::rules#f3)).
pub(super) async fn exchange(
    connection: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    request: &CreateElicitation,
) -> Result<Option<ElicitationResponse>, AskError> {
    // Watch before sending: a cancel that arrives while the request is on its way
    // must still end the ask.
    let mut watch = Watch::new(elicitor.connection(), request.scope());
    exchange_watched(connection, request, &mut watch).await
}

/// [`exchange`] with a watch the caller made, and keeps watching after the answer.
pub(super) async fn exchange_watched(
    connection: &ConnectionTo<Client>,
    request: &CreateElicitation,
    watch: &mut Watch,
) -> Result<Option<ElicitationResponse>, AskError> {
    let message =
        UntypedMessage::new(CreateElicitation::METHOD, request).map_err(AskError::transport)?;
    // `block_task` waits without holding the SDK's dispatch loop; dropping it (when the
    // session is cancelled first) makes the SDK send `$/cancel_request` to the client.
    let answer = pin!(connection.send_request(message).block_task());
    let cancelled = pin!(watch.cancelled());
    match future::select(answer, cancelled).await {
        Either::Left((Ok(result), _)) => ElicitationResponse::from_json(&result)
            .map(Some)
            .map_err(AskError::MalformedResponse),
        Either::Left((Err(error), _)) => Err(sdk_error(error)),
        Either::Right(((), _)) => Ok(None),
    }
}

/// The SDK's error for a request: lost in transport when the SDK itself says so (it
/// marks those errors in a way a peer cannot forge), otherwise the client's own
/// JSON-RPC error.
fn sdk_error(error: ::agent_client_protocol::Error) -> AskError {
    if is_incoming_transport_closed(&error) || is_connection_terminated(&error) {
        return AskError::transport(error);
    }
    AskError::Rejected(JsonRpcError::new(
        i64::from(error.code.value()),
        error.message,
        error.data,
    ))
}

/// Asks the client for the form `T` and returns the answer, validated and typed
/// ([F3](crate::rules#f3), [R5](crate::rules#r5)).
///
/// `connection` is the SDK's connection to the client, as handlers receive it
/// (`agent_client_protocol::v1::ConnectionTo<Client>`, or the raw
/// `agent_client_protocol::ConnectionTo<Client>`). Call it from a task of its own
/// (`connection.spawn(…)`), never directly in a request handler: the answer arrives
/// through the dispatch loop a handler holds.
///
/// - Refused before anything is sent, as the [`Elicitor`] decides: a mode the client
///   did not declare ([`AskError::ModeNotSupported`], [C7](crate::rules#c7)), a link in
///   the form or the message ([`AskError::LinkInForm`], [F7](crate::rules#f7)). A form
///   asking for a secret does not compile ([F5](crate::rules#f5)).
/// - `Ok(Elicited::Declined | Elicited::Cancelled)` when the user declined or
///   dismissed the form, and `Ok(Elicited::Cancelled)` when the session was cancelled
///   meanwhile ([`cancel_session`](super::cancel_session)).
/// - After sending: [`AskError::Rejected`] (the client's JSON-RPC error),
///   [`AskError::Transport`], [`AskError::MalformedResponse`], and
///   [`AskError::Invalid`] listing every problem of an accepted answer that does not
///   validate.
pub async fn ask<T: Elicit>(
    connection: &(impl Clone + Into<ConnectionTo<Client>>),
    elicitor: &Elicitor,
    scope: Scope,
    message: impl Into<String>,
) -> Result<Elicited<T>, AskError> {
    let request = elicitor.form::<T>(scope, message)?;
    match exchange(&connection.clone().into(), elicitor, &request).await? {
        Some(response) => Ok(T::from_response(&response)?),
        None => Ok(Elicited::Cancelled),
    }
}

/// Asks the client to fill a form whose schema was built at run time, and returns the
/// accepted content (a JSON object) once it validates against `schema`.
///
/// As [`ask`], and also refused before sending when the schema breaks the strict
/// rules ([`AskError::Refused`]) or asks for a secret ([`AskError::SecretInForm`],
/// [F5](crate::rules#f5)).
pub async fn ask_schema(
    connection: &(impl Clone + Into<ConnectionTo<Client>>),
    elicitor: &Elicitor,
    scope: Scope,
    message: impl Into<String>,
    schema: &RequestedSchema,
) -> Result<Elicited<Value>, AskError> {
    match ask_schema_or_raw(&connection.clone().into(), elicitor, scope, message, schema).await? {
        Answer::Known(answer) => Ok(answer),
        Answer::Unknown(response) => Err(unknown_action(response.action().as_str())),
    }
}

/// What an ask that may be forwarded got back.
pub(crate) enum Answer<T> {
    /// An answer elicit understands: accepted (and validated), declined or cancelled.
    Known(Elicited<T>),
    /// A custom or future action ([E6](crate::rules#e6)), exactly as received: not an
    /// answer elicit can read, but one a forwarding agent passes on unchanged.
    Unknown(Box<ElicitationResponse>),
}

/// [`ask_schema`], with an answer in an unknown action returned as received instead
/// of as an error: what a forwarding agent needs ([E6](crate::rules#e6)).
pub(crate) async fn ask_schema_or_raw(
    connection: &ConnectionTo<Client>,
    elicitor: &Elicitor,
    scope: Scope,
    message: impl Into<String>,
    schema: &RequestedSchema,
) -> Result<Answer<Value>, AskError> {
    let request = elicitor.form_schema(scope, message, schema)?;
    let response = match exchange(connection, elicitor, &request).await? {
        Some(response) => response,
        None => return Ok(Answer::Known(Elicited::Cancelled)),
    };
    if let Action::Other(_) = response.action() {
        return Ok(Answer::Unknown(Box::new(response)));
    }
    schema_answer(schema, &response).map(Answer::Known)
}
