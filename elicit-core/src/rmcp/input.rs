//! MCP 2026-07-28 input requests through rmcp ([M6](crate::rules#m6)): the server does
//! not push `elicitation/create`; a tool answers with an `InputRequiredResult` whose
//! `inputRequests` hold it, and the client calls the tool again with the answers in
//! `inputResponses`. rmcp 3.x has both (`InputRequiredResult`, `InputResponses`), so a
//! derived form works there too:
//!
//! ```no_run
//! use elicit::agent::AskError;
//! use elicit::rmcp::input;
//! use elicit::{Elicit, Elicited};
//! use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, InputRequests, InputRequiredResult};
//! use rmcp::service::{RequestContext, RoleServer};
//! #[derive(Elicit, Debug)]
//! struct Deploy {
//!     /// Deploy now
//!     confirm: bool,
//! }
//!
//! fn deploy(
//!     request: &CallToolRequestParams,
//!     context: &RequestContext<RoleServer>,
//! ) -> Result<CallToolResponse, AskError> {
//!     match input::read::<Deploy>(request.input_responses.as_ref(), "deploy")? {
//!         // First round: ask.
//!         None => {
//!             let mut requests = InputRequests::new();
//!             requests.insert("deploy".into(), input::form::<Deploy>(context, "Deploy?")?);
//!             Ok(InputRequiredResult::from_input_requests(requests).into())
//!         }
//!         Some(Elicited::Accepted(deploy)) => Ok(CallToolResult::success(vec![
//!             ContentBlock::text(format!("confirm: {}", deploy.confirm)),
//!         ]).into()),
//!         Some(Elicited::Declined | Elicited::Cancelled) => Ok(CallToolResult::success(vec![
//!             ContentBlock::text("nothing was done"),
//!         ]).into()),
//!     }
//! }
//! ```
//!
//! URL mode has no id and no completion in this version; it is not offered here.
//!
//! # Rounds any instance can continue: a sealed `requestState`
//!
//! A fixed question needs no state: the retry's answer is read against the form the
//! code asks ([`read`]). When a round depends on what came before (a second question
//! after a first answer, several inputs at once, a sampling or roots request beside a
//! form), the server keeps the round in the result's `requestState`, which the client
//! echoes on the retry. [`Rounds`] seals it: the asked inputs (each key, its method and,
//! for a form, a digest of its full schema), the originating request (method, name,
//! arguments, and the user with [`RoundRequest::for_user`]), an expiry, a random round
//! id and any data of the server's own ([`Round::carry`]), encrypted and authenticated
//! with XChaCha20-Poly1305 under a [`RoundKey`] every instance of the deployment holds.
//! The retry can land on any instance with that key:
//!
//! ```no_run
//! # use elicit::rmcp::input::{RoundError, RoundKey, RoundRequest, Rounds};
//! # use elicit::Elicited;
//! # use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock};
//! # use rmcp::service::{RequestContext, RoleServer};
//! # use rmcp::ErrorData;
//! # use elicit::Elicit;
//! #[derive(Elicit, Debug)]
//! struct Name {
//!     /// Your name
//!     name: String,
//! }
//! fn greet(
//!     rounds: &Rounds,
//!     request: &CallToolRequestParams,
//!     context: &RequestContext<RoleServer>,
//! ) -> Result<CallToolResponse, ErrorData> {
//!     // Bound to the user the server authenticated (`.for_user(&user)`); this server
//!     // authenticates nobody, so its rounds are `Rounds::new(key).anonymous()`.
//!     let this = RoundRequest::tool_call(request);
//!     let opened = rounds.open(&this, request.request_state.as_deref(), request.input_responses.as_ref())?;
//!     // A first call, or a retry without the answer: ask (again).
//!     let Some(Elicited::Accepted(name)) = opened.as_ref().map(|a| a.form::<Name>("name")).transpose()?.flatten() else {
//!         let mut round = rounds.begin(this);
//!         round.form::<Name>(context, "name", "Your name?").map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
//!         return Ok(round.seal()?.into());
//!     };
//!     Ok(CallToolResult::success(vec![ContentBlock::text(format!("{name:?}"))]).into())
//! }
//! ```
//!
//! What a retry gets, following the 2026-07-28 MRTR rules:
//!
//! - a state that is not one elicit sealed, sealed under a key this deployment does not
//!   hold, changed in any byte, expired, or sealed for another request or user:
//!   [`RoundError`], a JSON-RPC `-32602` through `ErrorData::from`;
//! - an asked input left unanswered: `None` from [`Answers::form`] (and listed by
//!   [`Answers::missing`]): ask again with a new `InputRequiredResult`, as the spec
//!   recommends over an error;
//! - an answer to a key the round did not ask: ignored, as the spec says a server
//!   SHOULD ([`Answers::unrequested`] names them);
//! - an answer that is no elicitation result, or breaks the asked schema (`pattern`
//!   included): [`RoundError::Answer`], `-32602`; a form read with another schema than
//!   the one asked (a release in between): [`RoundError::OtherSchema`].
//!
//! ## What a stateless design can and cannot refuse
//!
//! The binding to the request and the user refuses a state replayed on another tool,
//! other arguments or by another user ([`RoundError::Unbound`]; rounds are bound to the
//! user unless made [`Rounds::anonymous`]), and the expiry ([`Rounds::with_ttl`], ten
//! minutes by default) bounds how long a state can be replayed at all. Within that
//! window the same state with the same answers can be sent again, to any instance:
//! nothing that holds no shared record can tell a second use from the first. A round
//! that must complete at most once (a payment, a one-time redemption) uses
//! [`Rounds::at_most_once`] (feature `url`), which records [`Answers::round_id`] in a
//! store the instances share until the round expires, and refuses a replay as
//! [`RoundError::Used`]; across instances, `Rounds::at_most_once_in_redis` (feature
//! `redis`) keeps that store in Redis.
//!
//! Keys rotate without breaking rounds in flight: seal with the new key and keep the
//! old one opening ([`Rounds::also_opening`]) until its states have expired.

use std::fmt;

use ::rmcp::model::{ElicitRequest, ElicitRequestParams, InputRequest, InputResponses};
use ::rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::agent::{AskError, ConnectionId, Elicitor};
use crate::protocol::mcp::v2026_07_28;
use crate::protocol::ElicitationResponse;
use crate::typed::{Elicit, Elicited};

use super::{capabilities_of, mcp_scope};

#[cfg(feature = "url")]
pub use super::state::UsedRounds;
#[cfg(feature = "redis")]
pub use super::state::USED_ROUND_MARGIN;
pub use super::state::{
    Answers, Round, RoundError, RoundKey, RoundRequest, Rounds, Unbound, UsedRound, DEFAULT_TTL,
    MAX_REQUEST_STATE_LEN,
};

/// The `elicitation/create` input request for the form `T`, to put in an
/// `InputRequiredResult`'s `inputRequests` under a key of the server's choice.
///
/// The capability is the one the current request declares (its `_meta` in 2026-07-28,
/// what `initialize` declared in a session), read the MCP way
/// ([M2](crate::rules#m2), [M6](crate::rules#m6)). Refused as [`ask`](super::ask) refuses:
/// no form mode ([C7](crate::rules#c7)), a link in the form ([F7](crate::rules#f7)).
/// The schema has no `pattern` ([M7](crate::rules#m7)) and keeps declaration order
/// ([D13](crate::rules#d13)).
pub fn form<T: Elicit>(
    context: &RequestContext<RoleServer>,
    message: impl Into<String>,
) -> Result<InputRequest, AskError> {
    let capabilities = context.client_capabilities();
    let declared = capabilities_of(capabilities.and_then(|c| c.elicitation).as_ref());
    let request = Elicitor::new(declared, ConnectionId::new()).form::<T>(mcp_scope(), message)?;
    let params = v2026_07_28::ElicitRequestParams::try_from(&request)
        .expect("the Elicitor builds a form request, which has an MCP form")
        .to_json();
    elicitation_input(params)
}

/// An `elicitation/create` input request with these params, through rmcp's typed
/// model: refused, not sent, when the model would change the request (a member dropped,
/// renamed or moved), but for what rmcp cannot hold and means nothing on the wire: an
/// option's `description`, and URL mode's absent `elicitationId`, which rmcp writes as
/// `""` (read as none by elicit and rmcp alike).
pub(crate) fn elicitation_input(params: Value) -> Result<InputRequest, AskError> {
    let typed: ElicitRequestParams =
        serde_json::from_value(params.clone()).map_err(AskError::transport)?;
    let mut sent = serde_json::to_value(&typed).map_err(AskError::transport)?;
    if params.get("elicitationId").is_none()
        && sent.get("elicitationId").and_then(Value::as_str) == Some("")
    {
        if let Some(sent) = sent.as_object_mut() {
            sent.shift_remove("elicitationId");
        }
    }
    if !same_json(&sent, &without_option_descriptions(params)) {
        return Err(AskError::transport(ModelMismatch));
    }
    Ok(InputRequest::Elicitation(ElicitRequest::new(typed)))
}

/// The answer to the form `T` under `key` in the retried request's `inputResponses`:
/// `None` when there is none (the first round), else the validated answer or the
/// user's decline or cancel ([F3](crate::rules#f3), [R5](crate::rules#r5)).
///
/// A response that is no elicitation result is [`AskError::MalformedResponse`]; an
/// accepted answer that breaks the schema, `pattern` included
/// ([M7](crate::rules#m7)), is [`AskError::Invalid`].
pub fn read<T: Elicit>(
    responses: Option<&InputResponses>,
    key: &str,
) -> Result<Option<Elicited<T>>, AskError> {
    let Some(json) = responses.and_then(|responses| responses.get(key)) else {
        return Ok(None);
    };
    let response = ElicitationResponse::from_json(json).map_err(AskError::MalformedResponse)?;
    T::from_response(&response)
        .map(Some)
        .map_err(AskError::Invalid)
}

/// MCP's select options are `{const, title}` only (both versions' schemas), and rmcp's
/// model keeps nothing else: an option's `description`, an ACP text MCP does not
/// define, is the one member this path lets go.
fn without_option_descriptions(mut params: Value) -> Value {
    let properties = params
        .pointer_mut("/requestedSchema/properties")
        .and_then(Value::as_object_mut);
    for property in properties.into_iter().flat_map(|p| p.values_mut()) {
        for options in ["/oneOf", "/items/anyOf"] {
            let options = property.pointer_mut(options).and_then(Value::as_array_mut);
            for option in options.into_iter().flatten() {
                if let Some(option) = option.as_object_mut() {
                    option.shift_remove("description");
                }
            }
        }
    }
    params
}

/// What rmcp would send is what elicit built: the same members and values (a dropped
/// or changed one is a loss), and the properties in the same order
/// ([D13](crate::rules#d13)); the order of members inside a property means nothing.
fn same_json(sent: &Value, built: &Value) -> bool {
    let order = |json: &Value| -> Vec<String> {
        json.pointer("/requestedSchema/properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    };
    sent == built && order(sent) == order(built)
}

/// rmcp's model would change the request: a member dropped, renamed or moved.
#[derive(Debug)]
struct ModelMismatch;

impl fmt::Display for ModelMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "rmcp's elicitation model cannot carry this form unchanged (a member would be \
             dropped or reordered); nothing was sent",
        )
    }
}

impl std::error::Error for ModelMismatch {}
