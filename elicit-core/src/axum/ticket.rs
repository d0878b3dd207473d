//! What the store keeps of one page token.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::agent::UserId;

/// The state of one page token, as a [`Store`](crate::agent::Store) keeps it under the
/// token: the elicitation and the user it is bound to ([S6](crate::rules#s6)), when it
/// expires, the browser that opened it, and whether it was used. Serializable, for a
/// store shared by several instances of an agent; every change is a compare-and-set,
/// so two instances cannot both accept one submission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageTicket {
    elicitation_id: String,
    user: Option<String>,
    /// Milliseconds since the Unix epoch.
    expires_at: u64,
    /// The cookie that binds the page to the first browser that opened it.
    browser: Option<String>,
    used: bool,
}

impl PageTicket {
    pub(super) fn new(elicitation_id: &str, user: Option<&UserId>, expires_at: SystemTime) -> Self {
        PageTicket {
            elicitation_id: elicitation_id.to_owned(),
            user: user.map(|u| u.as_str().to_owned()),
            expires_at: millis(expires_at),
            browser: None,
            used: false,
        }
    }

    /// The `elicitationId` of the URL-mode request that carries the link.
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// The user who started that elicitation, if the agent has authentication.
    pub fn user(&self) -> Option<UserId> {
        self.user.as_deref().map(UserId::new)
    }

    /// When the token stops being accepted.
    pub fn expires_at(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.expires_at)
    }

    /// Whether it has expired at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        millis(now) >= self.expires_at
    }

    /// Whether the page was submitted (or closed): a used token is refused.
    pub fn is_used(&self) -> bool {
        self.used
    }

    /// The browser binding, once the page was opened.
    pub(super) fn browser(&self) -> Option<&str> {
        self.browser.as_deref()
    }

    pub(super) fn with_browser(&self, browser: String) -> Self {
        PageTicket {
            browser: Some(browser),
            ..self.clone()
        }
    }

    pub(super) fn used(&self) -> Self {
        PageTicket {
            used: true,
            ..self.clone()
        }
    }
}

fn millis(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
