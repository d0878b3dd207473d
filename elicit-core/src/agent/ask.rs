//! [`AskError`]: why asking a client through an SDK did not end with an answer.
//!
//! The SDK integrations (`agent_client_protocol`, `rmcp`) send the request and read
//! the answer in one call; every way that call can fail is a variant here, the same
//! for every SDK, so an agent that serves both matches one type.

use std::error::Error;
use std::fmt;

use crate::content::ValidationErrors;
use crate::protocol::{JsonRpcError, Mode, ResponseError};
use crate::schema::Finding;

use super::Problems;

use super::elicitor::{write_link_in_form, write_secret_in_form};
use super::RefusedError;

/// Why an `ask` ended without an answer to use.
///
/// The first group is refused before anything is sent (nothing reached the client):
/// [`ModeNotSupported`](Self::ModeNotSupported), [`SecretInForm`](Self::SecretInForm),
/// [`LinkInForm`](Self::LinkInForm) and [`Refused`](Self::Refused). The rest happen
/// after the request was sent. A declined or cancelled request is not an error: it is
/// `Ok(Elicited::Declined | Elicited::Cancelled)` ([R5](crate::rules#r5)).
#[derive(Debug)]
#[non_exhaustive]
pub enum AskError {
    /// The client did not declare this mode ([C7](crate::rules#c7)); nothing was sent.
    /// Degrade: another mode if the interaction allows it, another flow, or fail. A
    /// URL-mode interaction must never be retried as a form ([F6](crate::rules#f6)).
    ModeNotSupported(Mode),
    /// The form asks for a secret or a credential ([F5](crate::rules#f5)); nothing was
    /// sent. Ask in URL mode instead ([F6](crate::rules#f6)).
    SecretInForm(Vec<Finding>),
    /// The form's texts or its message hold a URL a user could click
    /// ([F7](crate::rules#f7)); nothing was sent. Take the link out, or allow links with
    /// `Elicitor::allow_links_in_forms`.
    LinkInForm(Vec<Finding>),
    /// Any other refusal before sending: an invalid schema, an unsafe URL, a `null`
    /// request id, a full registry, a failing store… The [`RefusedError`] says which
    /// and what to do.
    Refused(RefusedError),
    /// The client answered the request with a JSON-RPC error (for example `-32602`
    /// when it refused the params, or a mode it does not support).
    Rejected(JsonRpcError),
    /// The request or its answer was lost in transport: the connection closed, the
    /// SDK failed to send or to read. The source is the SDK's own error; downcast it
    /// to inspect it.
    Transport(Box<dyn Error + Send + Sync + 'static>),
    /// The client's result is not an elicitation response at all (no `action`, a
    /// `content` that is not an object…).
    MalformedResponse(ResponseError),
    /// The client accepted, but the content does not validate against the schema
    /// that was sent ([F3](crate::rules#f3), [V1](crate::rules#v1)); every problem is
    /// listed. An unknown action is reported here too: it is not consent
    /// ([R5](crate::rules#r5)).
    Invalid(ValidationErrors),
    /// The server's own check of the answer (`elicit::rmcp::Dialog::form_checked`)
    /// still found these problems after the last attempt; the person was shown them
    /// each time.
    Unaccepted(Problems),
    /// The connection negotiated an MCP version in which a server cannot send
    /// `elicitation/create` while a tool runs (2026-07-28 and later,
    /// [M6](crate::rules#m6)); nothing was sent. Ask through `elicit::rmcp::Dialog`,
    /// which answers with an `InputRequiredResult` there, or `elicit::rmcp::input`.
    NotPushable {
        /// The negotiated protocol version.
        protocol_version: String,
    },
    /// On MCP 2026-07-28, the tool body asked something else on a retry than in the
    /// round being answered (another form, another URL, a remembered value of another
    /// type): its answer cannot be the one given. The text says which question.
    NotReplayable(String),
}

impl AskError {
    /// Whether nothing was sent to the client: the request was refused by elicit.
    pub fn is_refused_before_sending(&self) -> bool {
        matches!(
            self,
            AskError::ModeNotSupported(_)
                | AskError::SecretInForm(_)
                | AskError::LinkInForm(_)
                | AskError::Refused(_)
                | AskError::NotPushable { .. }
        )
    }

    /// A transport failure, from any error the SDK reports.
    pub fn transport(error: impl Into<Box<dyn Error + Send + Sync + 'static>>) -> Self {
        AskError::Transport(error.into())
    }
}

/// Reading an answer the same way in every SDK integration.
#[cfg(any(feature = "agent-client-protocol", feature = "rmcp_3"))]
pub(crate) mod answer {
    use serde_json::Value;

    use super::AskError;
    use crate::content::{ValidationError, ValidationErrorKind, ValidationErrors};
    use crate::protocol::{Action, ElicitationResponse};
    use crate::schema::RequestedSchema;
    use crate::typed::Elicited;

    /// An action this crate does not know: not consent ([R5](crate::rules#r5)), reported as
    /// the typed parse reports it.
    pub(crate) fn unknown_action(action: &str) -> AskError {
        AskError::Invalid(ValidationErrors::single(ValidationError {
            property: None,
            kind: ValidationErrorKind::UnknownAction {
                action: action.to_owned(),
            },
        }))
    }

    /// The answer to a form whose schema was built at run time: the accepted content once
    /// it validates against `schema` ([F3](crate::rules#f3)), or the user's decline or
    /// cancel ([R5](crate::rules#r5)). What the SDK integrations' `ask_schema` return.
    pub(crate) fn schema_answer(
        schema: &RequestedSchema,
        response: &ElicitationResponse,
    ) -> Result<Elicited<Value>, AskError> {
        match response.action() {
            Action::Accept => {
                // R2: no content on accept is an empty answer, which `required` may refuse.
                let content = response
                    .content_value()
                    .cloned()
                    .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
                schema.validate(&content)?;
                Ok(Elicited::Accepted(content))
            }
            Action::Decline => Ok(Elicited::Declined),
            Action::Cancel => Ok(Elicited::Cancelled),
            Action::Other(action) => Err(unknown_action(action)),
        }
    }
}

impl From<RefusedError> for AskError {
    /// Lifts the refusals a caller is expected to handle (C7, F5, F7) to variants of
    /// their own; every other refusal stays an [`AskError::Refused`].
    fn from(error: RefusedError) -> Self {
        match error {
            RefusedError::ModeNotSupported(mode) => AskError::ModeNotSupported(mode),
            RefusedError::SecretInForm(findings) => AskError::SecretInForm(findings),
            RefusedError::LinkInForm(findings) => AskError::LinkInForm(findings),
            other => AskError::Refused(other),
        }
    }
}

impl From<ValidationErrors> for AskError {
    fn from(errors: ValidationErrors) -> Self {
        AskError::Invalid(errors)
    }
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The refusals before sending say everything themselves: one text per rule,
            // the Elicitor's.
            AskError::ModeNotSupported(mode) => RefusedError::ModeNotSupported(*mode).fmt(f),
            AskError::SecretInForm(findings) => write_secret_in_form(f, findings),
            AskError::LinkInForm(findings) => write_link_in_form(f, findings),
            AskError::Refused(error) => error.fmt(f),
            AskError::Rejected(error) => write!(
                f,
                "the client answered with JSON-RPC error {}: {}",
                error.code(),
                error.message()
            ),
            AskError::Transport(_) => {
                f.write_str("the elicitation request or its answer was lost in transport")
            }
            AskError::MalformedResponse(_) => {
                f.write_str("the client's result is not an elicitation response")
            }
            AskError::Invalid(errors) => {
                write!(f, "the client's answer is not valid: {errors}")
            }
            AskError::Unaccepted(problems) => {
                write!(
                    f,
                    "the answer was still not accepted after the last attempt: {problems}"
                )
            }
            AskError::NotPushable { protocol_version } => write!(
                f,
                "this connection negotiated MCP {protocol_version}, in which a server cannot send \
                 `elicitation/create` while a tool runs; nothing was sent. Ask through \
                 `elicit::rmcp::Dialog` (one tool body for every MCP version: it answers with an \
                 InputRequiredResult here), or build the round with `elicit::rmcp::input`"
            ),
            AskError::NotReplayable(message) => f.write_str(message),
        }
    }
}

impl Error for AskError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            // Transparent: `Display` is the refusal's own.
            AskError::Refused(error) => error.source(),
            AskError::Transport(error) => Some(&**error),
            AskError::MalformedResponse(error) => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: C7, F5, F7
    #[test]
    fn the_refusals_a_caller_handles_get_variants_of_their_own() {
        let lifted = AskError::from(RefusedError::ModeNotSupported(Mode::Url));
        assert!(matches!(lifted, AskError::ModeNotSupported(Mode::Url)));
        assert!(lifted.is_refused_before_sending());
        assert!(matches!(
            AskError::from(RefusedError::SecretInForm(Vec::new())),
            AskError::SecretInForm(_)
        ));
        assert!(matches!(
            AskError::from(RefusedError::LinkInForm(Vec::new())),
            AskError::LinkInForm(_)
        ));
        // The same text as the Elicitor's refusal, findings included.
        let schema = crate::schema::RequestedSchema::from_json(&serde_json::json!({
            "type": "object",
            "properties": { "password": { "type": "string", "description": "See https://x.example" } }
        }))
        .expect("a valid schema");
        let (secrets, links): (Vec<Finding>, Vec<Finding>) =
            schema.lint().into_iter().partition(Finding::is_secret);
        assert!(!secrets.is_empty() && !links.is_empty());
        for refusal in [
            RefusedError::SecretInForm(secrets),
            RefusedError::LinkInForm(links),
        ] {
            let text = refusal.to_string();
            assert_eq!(AskError::from(refusal).to_string(), text);
        }
        let other = AskError::from(RefusedError::NullRequestId);
        assert!(matches!(
            other,
            AskError::Refused(RefusedError::NullRequestId)
        ));
        assert_eq!(other.to_string(), RefusedError::NullRequestId.to_string());
    }

    #[test]
    fn errors_after_sending_are_not_refusals_and_keep_their_source() {
        let rejected = AskError::Rejected(JsonRpcError::new(-32602, "bad params", None));
        assert!(!rejected.is_refused_before_sending());
        assert_eq!(
            rejected.to_string(),
            "the client answered with JSON-RPC error -32602: bad params"
        );
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe closed");
        let transport = AskError::transport(io);
        assert!(!transport.is_refused_before_sending());
        assert_eq!(
            transport.source().map(ToString::to_string).as_deref(),
            Some("pipe closed")
        );
    }
}
