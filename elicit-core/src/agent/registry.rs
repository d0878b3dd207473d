//! The agent's record of URL-mode elicitations, bound to connection and user ([E5](crate::rules#e5), [S6](crate::rules#s6),
//! [U2](crate::rules#u2), [U4](crate::rules#u4), [U5](crate::rules#u5)).
//!
//! Each URL elicitation goes through explicit states: sent and awaiting the client's
//! response, consented (the user accepted to open the URL, [U2](crate::rules#u2)), and finished:
//! completed (the agent sent `elicitation/complete`, [U5](crate::rules#u5)), declined or cancelled. Only
//! the connection that sent it and the user who started it can complete it, once.
//!
//! One registry serves all the connections of an agent (share it with
//! [`Elicitor::with_registry`](super::Elicitor::with_registry)): an id is then unique
//! agent-wide, stronger than [U4](crate::rules#u4) asks, and a completion attempted on the wrong
//! connection is told apart from an id that was never issued.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::ids::{ConnectionId, UserId};
use super::outcome::{UnknownActionError, UrlOutcome};
use crate::protocol::{CompleteElicitation, CreateElicitation, ElicitationResponse};

/// Where a URL elicitation stands ([U2](crate::rules#u2), [U5](crate::rules#u5), [R1](crate::rules#r1)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UrlState {
    /// Sent; the client has not answered yet.
    AwaitingResponse,
    /// The user accepted to open the URL. This is consent, not completion: the
    /// external interaction may still fail or never happen ([U2](crate::rules#u2)).
    Consented,
    /// The external interaction finished and `elicitation/complete` was produced
    /// ([U5](crate::rules#u5)). Finished.
    Completed,
    /// The user declined to open the URL. Finished.
    Declined,
    /// The user dismissed the request. Finished.
    Cancelled,
}

impl UrlState {
    /// Whether the elicitation can still complete: awaiting a response or consented.
    pub fn is_outstanding(self) -> bool {
        matches!(self, UrlState::AwaitingResponse | UrlState::Consented)
    }
}

impl fmt::Display for UrlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UrlState::AwaitingResponse => "awaiting the client's response",
            UrlState::Consented => "consented, awaiting completion",
            UrlState::Completed => "completed",
            UrlState::Declined => "declined",
            UrlState::Cancelled => "cancelled",
        })
    }
}

/// A URL-mode request ready to send, and its `elicitationId` ([U1](crate::rules#u1), [U4](crate::rules#u4)). The
/// elicitation is already recorded as awaiting a response.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingUrl {
    elicitation_id: String,
    request: CreateElicitation,
}

impl PendingUrl {
    /// The opaque id: keep it with the state of the external interaction (e.g. in
    /// the OAuth `state` you issue) to complete the elicitation later ([U5](crate::rules#u5)).
    pub fn elicitation_id(&self) -> &str {
        &self.elicitation_id
    }

    /// The `elicitation/create` params to send.
    pub fn request(&self) -> &CreateElicitation {
        &self.request
    }

    /// The params, taken out.
    pub fn into_request(self) -> CreateElicitation {
        self.request
    }
}

/// Why a URL elicitation could not be completed or its response recorded. Each case
/// is distinct so an agent can log and react precisely; none is a completion.
///
/// The messages name no id or user: they go to logs and maybe to a model ([U3](crate::rules#u3)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionError {
    /// The registry never issued this id, or has forgotten it.
    Unknown,
    /// The id was issued on another connection: it completes only there ([E5](crate::rules#e5), [U5](crate::rules#u5)).
    ForeignConnection,
    /// The user completing the interaction is not the user who started it ([S6](crate::rules#s6)).
    UserMismatch,
    /// The elicitation was already completed: the notification is sent once ([U5](crate::rules#u5)).
    AlreadyCompleted,
    /// The user declined or cancelled the elicitation: there is nothing to complete.
    Closed {
        /// [`UrlState::Declined`] or [`UrlState::Cancelled`].
        state: UrlState,
    },
    /// The client answered with an action this crate does not know ([E6](crate::rules#e6)). It is not
    /// consent ([R5](crate::rules#r5)); the elicitation stays as it was.
    UnknownAction(UnknownActionError),
}

impl fmt::Display for CompletionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompletionError::Unknown => {
                f.write_str("no URL elicitation with this id is known to this agent")
            }
            CompletionError::ForeignConnection => f.write_str(
                "this URL elicitation belongs to another client connection and completes only there",
            ),
            CompletionError::UserMismatch => f.write_str(
                "the user who finished the interaction is not the user who started the elicitation",
            ),
            CompletionError::AlreadyCompleted => {
                f.write_str("this URL elicitation was already completed")
            }
            CompletionError::Closed { state } => {
                write!(f, "this URL elicitation was {state}: there is nothing to complete")
            }
            CompletionError::UnknownAction(error) => error.fmt(f),
        }
    }
}

// `UnknownAction` is transparent: its `Display` is the inner error's, so it is not
// reported again as a source.
impl std::error::Error for CompletionError {}

/// Why the registry could not record a new URL elicitation. The [`Elicitor`] reports it
/// as the matching [`ElicitError`] variant.
///
/// [`Elicitor`]: super::Elicitor
/// [`ElicitError`]: super::ElicitError
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// The connection already has as many outstanding URL elicitations as
    /// [`RegistryLimits::max_outstanding_per_connection`] allows.
    TooManyOutstanding {
        /// The limit per connection.
        limit: usize,
    },
    /// The operating system's random number generator failed, so no unguessable
    /// `elicitationId` could be made ([U4](crate::rules#u4)).
    RandomnessUnavailable(String),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::TooManyOutstanding { limit } => write!(
                f,
                "this connection already has {limit} outstanding URL elicitations, the most allowed"
            ),
            RegistryError::RandomnessUnavailable(reason) => write!(
                f,
                "no elicitation id could be made: the system's random number generator failed ({reason})"
            ),
        }
    }
}

impl std::error::Error for RegistryError {}

/// How much a [`UrlRegistry`] keeps ([D12](crate::rules#d12): bounded memory whatever the agent does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegistryLimits {
    /// Most outstanding URL elicitations per connection; one more is refused with
    /// [`ElicitError::TooManyOutstanding`](super::ElicitError::TooManyOutstanding). An interactive user cannot follow more
    /// than a few; a larger number means elicitations are leaking.
    pub max_outstanding_per_connection: usize,
    /// Most finished elicitations remembered, over all connections, so that a repeated
    /// completion is reported as [`CompletionError::AlreadyCompleted`] rather than
    /// [`CompletionError::Unknown`]. The oldest are forgotten first; a forgotten one is
    /// still refused, as unknown.
    pub max_finished: usize,
}

impl RegistryLimits {
    /// 64 outstanding per connection, 4096 finished remembered (about 100 bytes each).
    pub const DEFAULT: RegistryLimits = RegistryLimits {
        max_outstanding_per_connection: 64,
        max_finished: 4096,
    };
}

impl Default for RegistryLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The record of an agent's URL elicitations ([E5](crate::rules#e5), [S6](crate::rules#s6), [U2](crate::rules#u2), [U4](crate::rules#u4), [U5](crate::rules#u5)).
///
/// Cheap to clone: clones share one record. Use it through
/// [`Elicitor`](super::Elicitor), which supplies the connection and the user.
///
/// # Threads
///
/// The record sits behind a mutex, held only for a lookup and an update; the
/// operating system's random source, the one call that may block, is read before
/// taking it. A
/// registry is shared by the connections of an agent, which are served concurrently;
/// an `&mut self` API would force every agent to wrap it in a lock of its own. A
/// poisoned lock is recovered: every update is a single insert, remove or state
/// change, so a panic elsewhere cannot leave the record half-changed.
#[derive(Debug, Clone, Default)]
pub struct UrlRegistry {
    inner: Arc<Mutex<Record>>,
}

#[derive(Debug, Default)]
struct Record {
    limits: RegistryLimits,
    entries: HashMap<String, Entry>,
    outstanding: HashMap<ConnectionId, usize>,
    /// Finished ids, oldest first, for eviction.
    finished: VecDeque<String>,
}

#[derive(Debug)]
struct Entry {
    connection: ConnectionId,
    user: Option<UserId>,
    state: UrlState,
}

/// 128 bits: [U4](crate::rules#u4) asks for uniqueness, [S6](crate::rules#s6) for ids nobody can guess.
const ID_BYTES: usize = 16;

/// Tries at a fresh id before giving up; a 128-bit collision means a broken
/// generator, not bad luck.
const ID_ATTEMPTS: usize = 4;

impl UrlRegistry {
    /// An empty registry with [`RegistryLimits::DEFAULT`].
    pub fn new() -> Self {
        Self::with_limits(RegistryLimits::DEFAULT)
    }

    /// An empty registry with these limits.
    pub fn with_limits(limits: RegistryLimits) -> Self {
        UrlRegistry {
            inner: Arc::new(Mutex::new(Record {
                limits,
                ..Record::default()
            })),
        }
    }

    /// The limits.
    pub fn limits(&self) -> RegistryLimits {
        self.lock().limits
    }

    /// How many URL elicitations of this connection are outstanding.
    pub fn outstanding(&self, connection: ConnectionId) -> usize {
        self.lock()
            .outstanding
            .get(&connection)
            .copied()
            .unwrap_or(0)
    }

    fn lock(&self) -> MutexGuard<'_, Record> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Mints an id, builds the request with it and records it as awaiting a response.
    pub(crate) fn register<E>(
        &self,
        connection: ConnectionId,
        user: Option<UserId>,
        build: impl FnOnce(String) -> Result<CreateElicitation, E>,
    ) -> Result<PendingUrl, E>
    where
        E: From<RegistryError>,
    {
        for _ in 0..ID_ATTEMPTS {
            let id = mint_id().map_err(E::from)?;
            let mut record = self.lock();
            let limit = record.limits.max_outstanding_per_connection;
            if record.outstanding.get(&connection).copied().unwrap_or(0) >= limit {
                return Err(RegistryError::TooManyOutstanding { limit }.into());
            }
            // U4: unique among this connection's outstanding ids; here, among every id
            // the registry still knows, finished ones included.
            if record.entries.contains_key(&id) {
                continue;
            }
            let request = build(id.clone())?;
            record.entries.insert(
                id.clone(),
                Entry {
                    connection,
                    user,
                    state: UrlState::AwaitingResponse,
                },
            );
            *record.outstanding.entry(connection).or_insert(0) += 1;
            return Ok(PendingUrl {
                elicitation_id: id,
                request,
            });
        }
        Err(RegistryError::RandomnessUnavailable("it kept repeating ids".to_owned()).into())
    }

    /// See [`Elicitor::record_response`](super::Elicitor::record_response).
    pub(crate) fn record_response(
        &self,
        connection: ConnectionId,
        id: &str,
        response: &ElicitationResponse,
    ) -> Result<UrlOutcome, CompletionError> {
        let mut record = self.lock();
        let entry = record.entry_of(connection, id)?;
        match entry.state {
            UrlState::Declined | UrlState::Cancelled => {
                return Err(CompletionError::Closed { state: entry.state })
            }
            // The external interaction may finish before the response arrives; the
            // response still says what the user chose, and the state stays final.
            UrlState::Completed => {
                return UrlOutcome::from_response(response).map_err(CompletionError::UnknownAction)
            }
            UrlState::AwaitingResponse | UrlState::Consented => {}
        }
        // R5: an unknown action is not consent; nothing changes.
        let outcome =
            UrlOutcome::from_response(response).map_err(CompletionError::UnknownAction)?;
        match outcome {
            // U2: consent, not completion.
            UrlOutcome::Consented => entry.state = UrlState::Consented,
            UrlOutcome::Declined => record.finish(id, UrlState::Declined),
            UrlOutcome::Cancelled => record.finish(id, UrlState::Cancelled),
        }
        Ok(outcome)
    }

    /// See [`Elicitor::complete`](super::Elicitor::complete).
    pub(crate) fn complete(
        &self,
        connection: ConnectionId,
        id: &str,
        user: Option<&UserId>,
    ) -> Result<CompleteElicitation, CompletionError> {
        let mut record = self.lock();
        let entry = record.entry_of(connection, id)?;
        // S6: the same user, or no user on both sides where there is no
        // authentication.
        if entry.user.as_ref() != user {
            return Err(CompletionError::UserMismatch);
        }
        match entry.state {
            UrlState::Completed => return Err(CompletionError::AlreadyCompleted),
            UrlState::Declined | UrlState::Cancelled => {
                return Err(CompletionError::Closed { state: entry.state })
            }
            // A completion may overtake the client's response (U2).
            UrlState::AwaitingResponse | UrlState::Consented => {}
        }
        record.finish(id, UrlState::Completed);
        Ok(CompleteElicitation::new(id))
    }

    /// See [`Elicitor::url_state`](super::Elicitor::url_state).
    pub(crate) fn state(&self, connection: ConnectionId, id: &str) -> Option<UrlState> {
        let record = self.lock();
        let entry = record.entries.get(id)?;
        (entry.connection == connection).then_some(entry.state)
    }

    /// See [`Elicitor::forget`](super::Elicitor::forget).
    pub(crate) fn forget(&self, connection: ConnectionId, id: &str) -> bool {
        let mut record = self.lock();
        let outstanding = match record.entries.get(id) {
            Some(entry) if entry.connection == connection => entry.state.is_outstanding(),
            _ => return false,
        };
        if !outstanding {
            return false;
        }
        record.entries.remove(id);
        record.decrement(connection);
        true
    }

    /// See [`Elicitor::disconnect`](super::Elicitor::disconnect).
    pub(crate) fn close_connection(&self, connection: ConnectionId) {
        let mut record = self.lock();
        record
            .entries
            .retain(|_, entry| entry.connection != connection);
        record.outstanding.remove(&connection);
        let Record {
            entries, finished, ..
        } = &mut *record;
        finished.retain(|id| entries.contains_key(id));
    }
}

impl Record {
    /// The entry of `id`, if it belongs to `connection` ([E5](crate::rules#e5)).
    fn entry_of(
        &mut self,
        connection: ConnectionId,
        id: &str,
    ) -> Result<&mut Entry, CompletionError> {
        let entry = self.entries.get_mut(id).ok_or(CompletionError::Unknown)?;
        if entry.connection != connection {
            return Err(CompletionError::ForeignConnection);
        }
        Ok(entry)
    }

    /// Moves an outstanding elicitation to a final state, remembering it within
    /// the limit.
    fn finish(&mut self, id: &str, state: UrlState) {
        let Some(entry) = self.entries.get_mut(id) else {
            return;
        };
        let connection = entry.connection;
        entry.state = state;
        self.decrement(connection);
        self.finished.push_back(id.to_owned());
        while self.finished.len() > self.limits.max_finished {
            if let Some(oldest) = self.finished.pop_front() {
                self.entries.remove(&oldest);
            }
        }
    }

    fn decrement(&mut self, connection: ConnectionId) {
        if let Some(count) = self.outstanding.get_mut(&connection) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.outstanding.remove(&connection);
            }
        }
    }
}

/// A fresh id: 128 bits from the operating system's CSPRNG, in lowercase hex (32
/// characters, safe in any JSON string, URL or log line).
fn mint_id() -> Result<String, RegistryError> {
    let mut bytes = [0u8; ID_BYTES];
    getrandom::fill(&mut bytes).map_err(|e| RegistryError::RandomnessUnavailable(e.to_string()))?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = String::with_capacity(ID_BYTES * 2);
    for byte in bytes {
        id.push(char::from(HEX[usize::from(byte >> 4)]));
        id.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    // covers: U4
    #[test]
    fn ids_are_128_bit_hex_and_differ() {
        let a = mint_id().unwrap();
        let b = mint_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    // covers: E5
    #[test]
    fn finished_entries_are_bounded() {
        let registry = UrlRegistry::with_limits(RegistryLimits {
            max_outstanding_per_connection: 8,
            max_finished: 2,
        });
        let connection = ConnectionId::new();
        let mut ids = Vec::new();
        for _ in 0..5 {
            let pending = registry
                .register(connection, None, |id| {
                    CreateElicitation::url(
                        crate::protocol::Scope::session("s"),
                        "m",
                        id,
                        "https://example.com/",
                    )
                    .map_err(crate::agent::ElicitError::InvalidParams)
                })
                .unwrap();
            ids.push(pending.elicitation_id().to_owned());
        }
        for id in &ids {
            registry.complete(connection, id, None).unwrap();
        }
        assert_eq!(registry.lock().entries.len(), 2);
        assert_eq!(registry.outstanding(connection), 0);
        // The oldest are forgotten, and still refused.
        assert_eq!(
            registry.complete(connection, &ids[0], None),
            Err(CompletionError::Unknown)
        );
        assert_eq!(
            registry.complete(connection, &ids[4], None),
            Err(CompletionError::AlreadyCompleted)
        );
    }
}
