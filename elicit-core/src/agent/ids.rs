//! Who an elicitation belongs to: the client connection that received it and the
//! authenticated user who started it ([E5](crate::rules#e5), [S6](crate::rules#s6)). Both the [`Elicitor`](super::Elicitor)
//! and the [`UrlRegistry`](super::UrlRegistry) bind state to them, so they live apart
//! from both.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// An agent–client connection, as the agent sees it ([E5](crate::rules#e5)).
///
/// Opaque and unique: [`ConnectionId::new`] is the only way to get one, so two
/// connections can never share an id by mistake, and an id cannot be forged from
/// anything a peer sends. Create one when a client connects and give it to that
/// connection's [`Elicitor`](super::Elicitor).
///
/// Unique across the instances of an agent too, not only within one process: the ids
/// of a process count up from a 64-bit offset drawn from the operating system's random
/// source when the process makes its first one. Two instances sharing a `Store`
/// therefore do not give their connections the same ids (the chance that their runs of
/// ids meet is the number of ids made over 2^64), and the registry's connection check
/// ([E5](crate::rules#e5)) tells their connections apart.
///
/// It is serializable (as an 11-character string, the id as a base-64 numeral in the
/// URL-safe alphabet of RFC 4648) only so that a `Store` shared by the instances of an
/// agent can keep the registry's entries; never deserialize one from what a peer
/// sends. A plain number, the form of earlier versions, still reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(u64);

impl ConnectionId {
    /// A fresh id, different from every other one made in this process, and from
    /// those of the agent's other instances.
    #[allow(clippy::new_without_default)] // a default would hide that each call differs
    pub fn new() -> Self {
        // A counter within the process, from a random offset: every instance's first
        // connection is no longer the same `#1`. Wrapping, the 2^64 ids of a process
        // stay distinct.
        static NEXT: AtomicU64 = AtomicU64::new(1);
        ConnectionId(instance_offset().wrapping_add(NEXT.fetch_add(1, Ordering::Relaxed)))
    }
}

/// Where this process's connection ids start: 64 bits from the operating system's
/// random source, drawn once.
fn instance_offset() -> u64 {
    static OFFSET: OnceLock<u64> = OnceLock::new();
    *OFFSET.get_or_init(|| {
        // `getrandom` comes with the features that draw ids and tokens.
        #[cfg(any(feature = "url", feature = "rmcp_3"))]
        if let Ok(offset) = getrandom::u64() {
            return offset;
        }
        // No random source through `getrandom` (the crate is not built in, or the
        // system refused): std's per-process random hash keys, over the process id
        // and the time, still differ between two processes.
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        if let Ok(since) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            hasher.write_u128(since.as_nanos());
        }
        hasher.finish()
    })
}

/// The digits of the serialized form: RFC 4648's URL-safe base-64 alphabet.
const DIGITS: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Digits of a serialized id: 64 bits in base 64, the first digit holding 4 of them.
const ID_DIGITS: usize = 11;

impl ConnectionId {
    /// The 11 digits of the id in base 64, most significant first.
    fn digits(self) -> [u8; ID_DIGITS] {
        let mut out = [0u8; ID_DIGITS];
        for (i, digit) in out.iter_mut().enumerate() {
            let shift = 6 * (ID_DIGITS - 1 - i);
            *digit = DIGITS[((self.0 >> shift) & 63) as usize];
        }
        out
    }

    /// The id written by [`digits`](Self::digits); `None` for anything else.
    fn from_digits(text: &str) -> Option<ConnectionId> {
        let bytes = text.as_bytes();
        if bytes.len() != ID_DIGITS {
            return None;
        }
        let mut value: u64 = 0;
        for (i, byte) in bytes.iter().enumerate() {
            let digit = DIGITS.iter().position(|d| d == byte)? as u64;
            // The first digit holds the top 4 bits only.
            if i == 0 && digit >= 16 {
                return None;
            }
            value = (value << 6) | digit;
        }
        Some(ConnectionId(value))
    }
}

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.digits();
        // The digits are ASCII.
        write!(f, "connection {}", String::from_utf8_lossy(&digits))
    }
}

impl Serialize for ConnectionId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let digits = self.digits();
        serializer.serialize_str(std::str::from_utf8(&digits).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> Deserialize<'de> for ConnectionId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Id;

        impl Visitor<'_> for Id {
            type Value = ConnectionId;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a connection id: 11 base-64 digits (`A`-`Z`, `a`-`z`, `0`-`9`, `-`, `_`), \
                     or an earlier version's number",
                )
            }

            fn visit_u64<E: de::Error>(self, number: u64) -> Result<ConnectionId, E> {
                // An earlier version's id.
                Ok(ConnectionId(number))
            }

            fn visit_i64<E: de::Error>(self, number: i64) -> Result<ConnectionId, E> {
                u64::try_from(number)
                    .map(ConnectionId)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(number), &self))
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<ConnectionId, E> {
                ConnectionId::from_digits(text)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Str(text), &self))
            }
        }

        deserializer.deserialize_any(Id)
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

#[cfg(test)]
mod tests {
    use super::*;

    // covers: E5
    #[test]
    fn connection_ids_round_trip_and_malformed_ones_are_refused() {
        for id in [ConnectionId::new(), ConnectionId(0), ConnectionId(u64::MAX)] {
            let text = serde_json::to_string(&id).unwrap();
            assert_eq!(text.len(), 13, "{text}");
            assert_eq!(serde_json::from_str::<ConnectionId>(&text).unwrap(), id);
        }
        assert_eq!(
            serde_json::to_string(&ConnectionId(u64::MAX)).unwrap(),
            r#""P__________""#
        );
        for bad in [
            r#""""#,
            r#""AAAAAAAAAA""#,
            r#""AAAAAAAAAAAA""#,
            // The first digit holds 4 bits: `Q` (16) would be a 65th bit.
            r#""Q__________""#,
            r#""AAAAAAAAAA=""#,
            r#""AAAAAAAAAA+""#,
            r#""AAAAAAAAAA/""#,
            r#""AAAAAAAAAAé""#,
            "-1",
            "1.5",
            "null",
        ] {
            let error = serde_json::from_str::<ConnectionId>(bad).unwrap_err();
            assert!(
                error.to_string().contains("connection id"),
                "{bad}: {error}"
            );
        }
    }
}
