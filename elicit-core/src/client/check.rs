//! The first thing a client does with an `elicitation/create`: decide whether it can
//! honour it, or which `-32602` error to answer with ([C8](crate::rules#c8), [D1](crate::rules#d1), [E2](crate::rules#e2)–[E6](crate::rules#e6), [F1](crate::rules#f1), [F2](crate::rules#f2), [U1](crate::rules#u1)).

use serde_json::Value;

use crate::protocol::{CreateElicitation, ElicitationCapabilities, JsonRpcError, Mode, ModeParams};
use crate::schema::ParseOptions;

/// An `elicitation/create` a client accepted to handle, by mode.
///
/// Form and URL requests are in a mode the client declared and are well formed; a
/// form's schema was read with the lenient parse ([C6](crate::rules#c6), [D7](crate::rules#d7), [D8](crate::rules#d8), [E6](crate::rules#e6)). A request in a
/// custom or future mode is kept exactly as received, to store or forward ([E6](crate::rules#e6)); it
/// is never rendered as form or URL.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// Form mode: render it with [`FormEngine::from_request`](super::FormEngine::from_request).
    Form(CreateElicitation),
    /// URL mode: review the URL with `UrlReview::new` and ask for consent before
    /// opening anything ([S2](crate::rules#s2), [K3](crate::rules#k3)); remember the id in a
    /// [`CompletionTracker`](super::CompletionTracker) ([U6](crate::rules#u6)).
    Url(CreateElicitation),
    /// A custom (`_`-prefixed) or future mode ([E6](crate::rules#e6)): forward it unchanged
    /// ([`CreateElicitation::to_json`] writes back the payload as received), or answer
    /// with [`Incoming::unsupported_error`]. Never render it.
    Unknown(CreateElicitation),
}

impl Incoming {
    /// The request, whatever its mode.
    pub fn request(&self) -> &CreateElicitation {
        match self {
            Incoming::Form(r) | Incoming::Url(r) | Incoming::Unknown(r) => r,
        }
    }

    /// The request, taken out.
    pub fn into_request(self) -> CreateElicitation {
        match self {
            Incoming::Form(r) | Incoming::Url(r) | Incoming::Unknown(r) => r,
        }
    }

    /// For a request in an unknown mode, the `-32602` a client that cannot forward it
    /// answers with ([E6](crate::rules#e6)); `None` for form and URL.
    pub fn unsupported_error(&self) -> Option<JsonRpcError> {
        match self {
            Incoming::Unknown(r) => Some(JsonRpcError::unsupported_mode(r.mode_name())),
            Incoming::Form(_) | Incoming::Url(_) => None,
        }
    }

    /// For a URL-mode request, what to show before asking the user's consent ([S2](crate::rules#s2)–[S5](crate::rules#s5),
    /// [K3](crate::rules#k3)); an error when the URL cannot be offered at all (`javascript:`, `data:`,
    /// `file:`…). `None` for other modes.
    #[cfg(feature = "url")]
    pub fn url_review(
        &self,
    ) -> Option<Result<super::url_review::UrlReview, super::url_review::UrlError>> {
        match self {
            Incoming::Url(r) => r.target_url().map(super::url_review::UrlReview::new),
            Incoming::Form(_) | Incoming::Unknown(_) => None,
        }
    }
}

/// Checks the params of an `elicitation/create` against what this client declared,
/// reading a form's schema with the lenient parse and the default limits ([D12](crate::rules#d12)).
///
/// Answers, as the JSON-RPC error object to send back (code `-32602`, with a `data`
/// naming the reason, a message and the JSON pointer of the offending member):
/// - a known mode the client did not declare: `undeclared_mode` ([C7](crate::rules#c7), [C8](crate::rules#c8)). This is
///   checked first, so nothing of a request the client will refuse is parsed;
/// - params that are not an object, or without a string `mode` ([E2](crate::rules#e2): no default mode)
///   or `message` ([E4](crate::rules#e4));
/// - not exactly one scope, `toolCallId` without `sessionId`, or a scope member of the
///   wrong type: `bad_scope` ([E3](crate::rules#e3), [D1](crate::rules#d1));
/// - a form whose `requestedSchema` is missing or malformed: `malformed_schema` ([F1](crate::rules#f1),
///   [F2](crate::rules#f2)), with every issue found;
/// - a URL request without a string `elicitationId` or an absolute `url` ([U1](crate::rules#u1)).
///
/// A custom or future mode is accepted as [`Incoming::Unknown`] ([E6](crate::rules#e6)).
///
/// ```
/// use elicit::client::{check_request, Incoming};
/// use elicit::protocol::{ElicitationCapabilities, INVALID_PARAMS};
/// use serde_json::json;
///
/// let caps = ElicitationCapabilities::from_json(Some(&json!({ "form": {} })));
/// let url = json!({
///     "mode": "url", "sessionId": "s1", "message": "Sign in",
///     "elicitationId": "e1", "url": "https://auth.example.com/"
/// });
/// let error = check_request(&caps, &url).unwrap_err();
/// assert_eq!(error.code(), INVALID_PARAMS); // C8
/// assert_eq!(error.data().unwrap()["reason"], "undeclared_mode");
/// ```
pub fn check_request(
    capabilities: &ElicitationCapabilities,
    params: &Value,
) -> Result<Incoming, JsonRpcError> {
    check_request_with(capabilities, params, &ParseOptions::lenient())
}

/// [`check_request`] with other parse options (stricter limits, or the strict parse).
pub fn check_request_with(
    capabilities: &ElicitationCapabilities,
    params: &Value,
    options: &ParseOptions,
) -> Result<Incoming, JsonRpcError> {
    // C8 before anything else: a client does not parse, let alone render, what it
    // never offered to handle.
    if let Some(mode) = params
        .get("mode")
        .and_then(Value::as_str)
        .and_then(Mode::from_wire)
    {
        if !capabilities.supports(mode) {
            return Err(JsonRpcError::undeclared_mode(mode));
        }
    }
    let request = CreateElicitation::parse(params, options).map_err(|e| e.to_jsonrpc_error())?;
    Ok(match request.params() {
        ModeParams::Form { .. } => Incoming::Form(request),
        ModeParams::Url { .. } => Incoming::Url(request),
        // E6: kept whole, never read as a known mode.
        ModeParams::Other { .. } => Incoming::Unknown(request),
    })
}
