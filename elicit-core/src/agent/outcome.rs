//! What a client's answer to a URL-mode elicitation means ([R1](crate::rules#r1), [R4](crate::rules#r4), [R5](crate::rules#r5), [U2](crate::rules#u2), [U3](crate::rules#u3)).

use std::fmt;

use crate::protocol::{Action, ElicitationResponse};

/// The user's choice on a URL-mode elicitation.
///
/// Unlike a form, there is nothing to parse: `accept` is consent to open the URL
/// ([U2](crate::rules#u2)), and any `content` is ignored, never read, so that nothing obtained through
/// the URL can come back over ACP into the agent or a model's context ([U3](crate::rules#u3), [R4](crate::rules#r4)). The
/// agent must handle all three outcomes ([R5](crate::rules#r5)).
///
/// ```
/// use elicit::agent::UrlOutcome;
/// use elicit::protocol::ElicitationResponse;
/// use serde_json::json;
///
/// let response = ElicitationResponse::from_json(&json!({
///     "action": "accept", "content": { "token": "never looked at" }
/// }))?;
/// assert_eq!(UrlOutcome::from_response(&response)?, UrlOutcome::Consented);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[must_use = "a URL elicitation can be declined or cancelled: handle every outcome; see R5 (decline, cancel and failure are handled)"]
pub enum UrlOutcome {
    /// The user agreed to open the URL. The external interaction has not finished,
    /// and may never ([U2](crate::rules#u2)): wait for it before going on.
    Consented,
    /// The user explicitly refused.
    Declined,
    /// The user dismissed the request without choosing.
    Cancelled,
}

impl UrlOutcome {
    /// Reads the action of a response to a URL-mode elicitation, and nothing else
    /// ([R4](crate::rules#r4), [U3](crate::rules#u3)). An action this crate does not know is an error, not success ([R5](crate::rules#r5)).
    pub fn from_response(response: &ElicitationResponse) -> Result<UrlOutcome, UnknownActionError> {
        match response.action() {
            Action::Accept => Ok(UrlOutcome::Consented),
            Action::Decline => Ok(UrlOutcome::Declined),
            Action::Cancel => Ok(UrlOutcome::Cancelled),
            Action::Other(action) => Err(UnknownActionError {
                action: action.clone(),
            }),
        }
    }

    /// Whether the user consented to open the URL.
    pub fn is_consented(self) -> bool {
        self == UrlOutcome::Consented
    }
}

/// A response whose `action` this crate does not know ([E6](crate::rules#e6)). An agent must not take it
/// for consent ([R5](crate::rules#r5)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownActionError {
    /// The action received.
    pub action: String,
}

impl fmt::Display for UnknownActionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the client answered with the unknown action `{}`; treat it as a failure, not as consent",
            self.action
        )
    }
}

impl std::error::Error for UnknownActionError {}
