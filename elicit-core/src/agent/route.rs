//! Where a record's owner listens: the instance that holds the client's connection (or
//! the waiting page) and the key to seal for it. Written into the registry's entries
//! and the page's tickets only when a relay routes them (feature `redis`,
//! `RedisRelay`); a single-instance agent never writes it.

use serde::{Deserialize, Serialize};

/// The owner of a record, as the other instances reach it: its instance id, which is
/// its X25519 public key in lowercase hex (64 characters). It names the owner's channel
/// and is what a message for it is sealed with: one string for both keeps each record
/// small. The private key never leaves the owner's memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Route {
    /// The owning instance's id and public key.
    pub(crate) instance: String,
}
