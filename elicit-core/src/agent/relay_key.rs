//! [`RelayKey`]: the deployment key that authenticates what an instance reads from
//! Redis (feature `redis`).

use std::fmt;

use blake2::digest::consts::{U16, U32};
use blake2::digest::Mac;
use blake2::Blake2bMac;

/// The label the relay key is derived with from another deployment secret.
const RELAY_LABEL: &[u8] = b"elicit.relay.v1";

/// The purpose of a tag: each gets a sub-key of its own, so that a tag made for one
/// purpose never passes for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// A page ticket's route and form (and everything else the page acts on).
    #[cfg_attr(not(feature = "axum"), allow(dead_code))] // the page's, feature `axum`
    Ticket,
    /// A message one instance relays to another.
    Message,
}

impl Purpose {
    /// BLAKE2b's personalisation (16 bytes at most) for the sub-key.
    fn label(self) -> &'static [u8] {
        match self {
            Purpose::Ticket => b"elicit.ticket.v1",
            Purpose::Message => b"elicit.message.1",
        }
    }
}

/// Bytes of a tag: 128 bits.
pub(crate) const TAG_LEN: usize = 16;

/// The key every instance of an agent shares and Redis never holds (feature `redis`):
/// what an instance acts on from Redis carries a tag under it, so that whoever can
/// write to Redis, or publish on it, cannot make an instance act.
///
/// - A page ticket ([`PageTicket`](crate::axum::PageTicket), feature `axum`) carries a
///   128-bit keyed BLAKE2b tag over the token's digest, the elicitation, the user, the
///   expiry, the waiting instance's public key and the form (schema and message). An
///   instance refuses a ticket whose tag fails: a rewritten route or form never makes
///   it show an attacker's text or seal a secret for an attacker's key.
/// - Each relayed message carries, inside its sealed box, a tag over the sender's id,
///   the recipient's id and the message: a message published by anyone without the key
///   is dropped unread.
///
/// The tags use sub-keys derived per purpose (BLAKE2b personalisations
/// `elicit.ticket.v1` and `elicit.message.1`), and are compared in constant time.
///
/// Make it from 32 bytes of the deployment's secret store ([`from_bytes`](Self::from_bytes)),
/// or derive it from the key the instances already share for MCP's `requestState`
/// ([`derived_from`](Self::derived_from), feature `rmcp_3`, label `elicit.relay.v1`).
/// To rotate, give every instance the new key with the old one in
/// [`RelayConfig::also_accepting`](super::RelayConfig::also_accepting) until the old
/// records have expired, then drop it. `Debug` never shows the key.
#[derive(Clone, PartialEq, Eq)]
pub struct RelayKey {
    bytes: [u8; 32],
}

impl RelayKey {
    /// The key made of these 32 bytes (every instance uses the same).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        RelayKey { bytes }
    }

    /// A key derived from another secret the instances share (at most 64 bytes, such
    /// as a 256-bit key; longer secrets are refused with `None`): keyed BLAKE2b-256
    /// under `secret` with the label `elicit.relay.v1`, so the relay never uses the
    /// other key itself.
    pub fn derived_from_secret(secret: &[u8]) -> Option<Self> {
        // BLAKE2b takes a key of 64 bytes at most (and asserts it).
        if secret.len() > 64 {
            return None;
        }
        let mac = Blake2bMac::<U32>::new_with_salt_and_personal(secret, b"", RELAY_LABEL).ok()?;
        let mut bytes = [0u8; 32];
        bytes.copy_from_slice(&mac.finalize().into_bytes());
        Some(RelayKey { bytes })
    }

    /// The sub-key of `purpose`.
    fn sub_key(&self, purpose: Purpose) -> [u8; 32] {
        let mac = Blake2bMac::<U32>::new_with_salt_and_personal(&self.bytes, b"", purpose.label())
            .expect("invariant: a 32-byte key and a 16-byte label fit BLAKE2b");
        let mut key = [0u8; 32];
        key.copy_from_slice(&mac.finalize().into_bytes());
        key
    }

    fn mac(&self, purpose: Purpose, parts: &[&[u8]]) -> Blake2bMac<U16> {
        let mut key = self.sub_key(purpose);
        let mut mac = Blake2bMac::<U16>::new_with_salt_and_personal(&key, b"", purpose.label())
            .expect("invariant: a 32-byte key and a 16-byte label fit BLAKE2b");
        key.fill(0);
        for part in parts {
            // Each part behind its length: no two lists of parts read alike.
            mac.update(&u64::try_from(part.len()).unwrap_or(u64::MAX).to_le_bytes());
            mac.update(part);
        }
        mac
    }

    /// The 128-bit tag of `parts` for `purpose`.
    pub(crate) fn tag(&self, purpose: Purpose, parts: &[&[u8]]) -> [u8; TAG_LEN] {
        let mut tag = [0u8; TAG_LEN];
        tag.copy_from_slice(&self.mac(purpose, parts).finalize().into_bytes());
        tag
    }

    /// Whether `tag` is the tag of `parts` for `purpose`, compared in constant time.
    pub(crate) fn verify(&self, purpose: Purpose, parts: &[&[u8]], tag: &[u8]) -> bool {
        self.mac(purpose, parts).verify_slice(tag).is_ok()
    }
}

impl fmt::Debug for RelayKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RelayKey(<hidden>)")
    }
}

impl Drop for RelayKey {
    fn drop(&mut self) {
        self.bytes.fill(0);
    }
}

/// The current key and the older ones still accepted, for a rotation.
#[derive(Clone, Debug)]
pub(crate) struct Keys {
    pub(crate) current: RelayKey,
    pub(crate) older: Vec<RelayKey>,
}

impl Keys {
    /// The tag under the current key.
    pub(crate) fn tag(&self, purpose: Purpose, parts: &[&[u8]]) -> [u8; TAG_LEN] {
        self.current.tag(purpose, parts)
    }

    /// Whether `tag` passes under the current key or an older one.
    pub(crate) fn verify(&self, purpose: Purpose, parts: &[&[u8]], tag: &[u8]) -> bool {
        std::iter::once(&self.current)
            .chain(&self.older)
            .any(|key| key.verify(purpose, parts, tag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tag_passes_only_for_its_key_purpose_and_parts() {
        let key = RelayKey::from_bytes([3; 32]);
        let tag = key.tag(Purpose::Ticket, &[b"route", b"form"]);
        assert!(key.verify(Purpose::Ticket, &[b"route", b"form"], &tag));
        assert!(!key.verify(Purpose::Message, &[b"route", b"form"], &tag));
        assert!(!key.verify(Purpose::Ticket, &[b"rout", b"eform"], &tag));
        assert!(!key.verify(Purpose::Ticket, &[b"route", b"form!"], &tag));
        assert!(!RelayKey::from_bytes([4; 32]).verify(Purpose::Ticket, &[b"route", b"form"], &tag));
        assert!(!key.verify(Purpose::Ticket, &[b"route", b"form"], &tag[..8]));
    }

    #[test]
    fn rotation_accepts_older_keys_and_tags_with_the_current_one() {
        let old = RelayKey::from_bytes([1; 32]);
        let keys = Keys {
            current: RelayKey::from_bytes([2; 32]),
            older: vec![old.clone()],
        };
        let by_old = old.tag(Purpose::Message, &[b"m"]);
        assert!(keys.verify(Purpose::Message, &[b"m"], &by_old));
        assert_ne!(keys.tag(Purpose::Message, &[b"m"]), by_old);
        let alone = Keys {
            current: RelayKey::from_bytes([2; 32]),
            older: Vec::new(),
        };
        assert!(!alone.verify(Purpose::Message, &[b"m"], &by_old));
    }

    // covers: S6 (issue 28: what an instance writes under the current key, every
    // instance sharing the keys accepts; nothing else passes)
    #[test]
    fn a_tag_made_with_the_keys_passes_under_the_same_keys_only() {
        let keys = Keys {
            current: RelayKey::from_bytes([2; 32]),
            older: vec![RelayKey::from_bytes([1; 32])],
        };
        let tag = keys.tag(Purpose::Ticket, &[b"route", b"form"]);
        assert_eq!(tag, keys.current.tag(Purpose::Ticket, &[b"route", b"form"]));
        assert!(keys.verify(Purpose::Ticket, &[b"route", b"form"], &tag));
        assert!(!keys.verify(Purpose::Ticket, &[b"route", b"form"], &[0; TAG_LEN]));
        assert!(!keys.verify(Purpose::Message, &[b"route", b"form"], &tag));
        let other = Keys {
            current: RelayKey::from_bytes([1; 32]),
            older: Vec::new(),
        };
        assert!(!other.verify(Purpose::Ticket, &[b"route", b"form"], &tag));
    }

    #[test]
    fn a_derived_key_is_neither_the_secret_nor_another_secrets() {
        let a = RelayKey::derived_from_secret(&[7; 32]).unwrap();
        assert_ne!(a.bytes, [7; 32]);
        assert_ne!(a, RelayKey::derived_from_secret(&[8; 32]).unwrap());
        assert_eq!(a, RelayKey::derived_from_secret(&[7; 32]).unwrap());
        assert!(RelayKey::derived_from_secret(&[0; 65]).is_none());
        // "At most 64 bytes": a 64-byte secret (a 512-bit key) is taken.
        let long = RelayKey::derived_from_secret(&[7; 64]).expect("64 bytes fit BLAKE2b");
        assert_ne!(long, a);
        assert_eq!(format!("{a:?}"), "RelayKey(<hidden>)");
    }
}
