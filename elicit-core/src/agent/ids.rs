//! Who an elicitation belongs to: the client connection that received it and the
//! authenticated user who started it ([E5](crate::rules#e5), [S6](crate::rules#s6)). Both the [`Elicitor`](super::Elicitor)
//! and the [`UrlRegistry`](super::UrlRegistry) bind state to them, so they live apart
//! from both.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

/// An agent–client connection, as the agent sees it ([E5](crate::rules#e5)).
///
/// Opaque and unique within the process: [`ConnectionId::new`] is the only way to get
/// one, so two connections can never share an id by mistake, and an id cannot be
/// forged from anything a peer sends. Create one when a client connects and give it to
/// that connection's [`Elicitor`](super::Elicitor).
///
/// It is serializable (as a number) only so that a `Store` shared by the instances of
/// an agent can keep the registry's entries; never deserialize one from what a peer
/// sends. The number is unique within one process, not across the instances of an
/// agent: two instances sharing a store can give two different connections the same
/// number, so that the store alone cannot tell them apart ([E5](crate::rules#e5)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ConnectionId(u64);

impl ConnectionId {
    /// A fresh id, different from every other one made in this process.
    #[allow(clippy::new_without_default)] // a default would hide that each call differs
    pub fn new() -> Self {
        // A counter, not randomness: uniqueness within the process is all E5 needs,
        // and a u64 cannot run out.
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConnectionId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "connection #{}", self.0)
    }
}

/// The identity of an authenticated user, as the agent's own authentication
/// established it ([E5](crate::rules#e5), [S6](crate::rules#s6)). Never take it from something the client merely claims.
///
/// Serializable (as its string), so that a `Store` shared by the instances of an agent
/// can keep the registry's entries.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UserId(String);

impl UserId {
    /// The user with this identifier (a subject, an account id…).
    pub fn new(id: impl Into<String>) -> Self {
        UserId(id.into())
    }

    /// The identifier.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for UserId {
    fn from(id: &str) -> Self {
        UserId::new(id)
    }
}

impl From<String> for UserId {
    fn from(id: String) -> Self {
        UserId::new(id)
    }
}
