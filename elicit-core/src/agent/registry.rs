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
//!
//! The elicitations themselves, a [`UrlEntry`] each, live in a [`Store`]: a
//! [`MemoryStore`] by default, or one given to [`UrlRegistry::with_store`], which the
//! instances of an agent can share. Every state change is one atomic operation of the
//! store, and a store that fails refuses the operation; the registry itself only
//! counts, per connection of this process, what is outstanding and what finished.

use std::collections::{HashMap, HashSet, VecDeque};
use std::error::Error;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use super::ids::{ConnectionId, UserId};
use super::outcome::{UnknownActionError, UrlOutcome};
use super::route::Route;
use super::store::{MemoryStore, Store, StoreError};
use crate::protocol::{CompleteElicitation, CreateElicitation, ElicitationResponse};

/// Where a URL elicitation stands ([U2](crate::rules#u2), [U5](crate::rules#u5), [R1](crate::rules#r1)).
///
/// Serializable, for a [`Store`] shared by several instances of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// The [`Store`] failed, or kept changing the entry under every attempt to
    /// replace it: nothing was completed or recorded. The [`StoreError`] is the source.
    Store(StoreError),
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
            CompletionError::Store(_) => f.write_str(
                "the state of this URL elicitation could not be read or changed",
            ),
        }
    }
}

impl Error for CompletionError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            CompletionError::Store(error) => Some(error),
            // `UnknownAction` is transparent: its `Display` is the inner error's, so it
            // is not reported again as a source. The others have no cause.
            _ => None,
        }
    }
}

/// Why the registry could not record a new URL elicitation. The [`Elicitor`] reports it
/// as the matching [`RefusedError`] variant.
///
/// [`Elicitor`]: super::Elicitor
/// [`RefusedError`]: super::RefusedError
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
    /// The [`Store`] failed: the elicitation was not recorded, and must not be sent.
    /// The [`StoreError`] is the source.
    Store(StoreError),
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
            RegistryError::Store(_) => {
                f.write_str("the URL elicitation could not be recorded")
            }
        }
    }
}

impl Error for RegistryError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            RegistryError::Store(error) => Some(error),
            _ => None,
        }
    }
}

/// How much a [`UrlRegistry`] keeps ([D12](crate::rules#d12): bounded memory whatever the agent does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegistryLimits {
    /// Most outstanding URL elicitations per connection; one more is refused with
    /// [`RefusedError::TooManyOutstanding`](super::RefusedError::TooManyOutstanding). An interactive user cannot follow more
    /// than a few; a larger number means elicitations are leaking.
    pub max_outstanding_per_connection: usize,
    /// Most finished elicitations remembered, over all connections, so that a repeated
    /// completion is reported as [`CompletionError::AlreadyCompleted`] rather than
    /// [`CompletionError::Unknown`]. The oldest are forgotten first; a forgotten one is
    /// still refused, as unknown. With a [`Store`] shared by several instances, each
    /// counts and forgets those it finished itself.
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

/// One URL elicitation as the [`UrlRegistry`] keeps it in its [`Store`], under its
/// `elicitationId`: the connection that sent it, the user who started it and where it
/// stands ([E5](crate::rules#e5), [S6](crate::rules#s6), [U5](crate::rules#u5)).
///
/// Only the registry makes entries; the fields are read through getters, so that a
/// [`Store`] shared by several instances of an agent can be written outside this crate.
/// Such a store serializes entries with `serde` (as do [`ConnectionId`], [`UserId`] and
/// [`UrlState`], which it holds) and compares them with `==` for
/// [`compare_and_swap`](Store::compare_and_swap).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
// Short member names (the long ones of earlier versions still read): each outstanding
// elicitation is a record in a shared store, and its memory counts.
pub struct UrlEntry {
    #[serde(rename = "c", alias = "connection")]
    connection: ConnectionId,
    #[serde(
        rename = "u",
        alias = "user",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    user: Option<UserId>,
    #[serde(rename = "s", alias = "state")]
    state: UrlState,
    /// The instance that holds the connection, when a relay routes completions to it
    /// (feature `redis`); absent otherwise, and then not written at all.
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    route: Option<Route>,
}

impl UrlEntry {
    /// The connection that sent the elicitation: the only one that can complete it
    /// ([E5](crate::rules#e5)).
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }

    /// The user who started it, if the agent had authenticated one
    /// ([S6](crate::rules#s6)).
    pub fn user(&self) -> Option<&UserId> {
        self.user.as_ref()
    }

    /// Where it stands.
    pub fn state(&self) -> UrlState {
        self.state
    }

    /// The id of the agent instance that holds the connection, when the registry that
    /// issued the elicitation was [routed](UrlRegistry::routed_by) by a relay (feature
    /// `redis`).
    pub fn instance(&self) -> Option<&str> {
        self.route.as_ref().map(|route| route.instance.as_str())
    }

    /// The same entry in another state.
    fn with_state(&self, state: UrlState) -> Self {
        UrlEntry {
            state,
            ..self.clone()
        }
    }
}

/// The record of an agent's URL elicitations ([E5](crate::rules#e5), [S6](crate::rules#s6), [U2](crate::rules#u2), [U4](crate::rules#u4), [U5](crate::rules#u5)).
///
/// Cheap to clone: clones share one record. Use it through
/// [`Elicitor`](super::Elicitor), which supplies the connection and the user.
///
/// # Where the state is
///
/// Each elicitation is a [`UrlEntry`] in a [`Store`], under its `elicitationId`:
/// a [`MemoryStore`] by default, or the store given to [`with_store`](Self::with_store),
/// which several instances of an agent can share. Every change of an entry is one
/// atomic operation of the store: an id is recorded only if it is new
/// ([`insert_new`](Store::insert_new), [U4](crate::rules#u4)), and a response,
/// completion or forget replaces the entry only if it is still the one that was checked
/// ([`compare_and_swap`](Store::compare_and_swap)), so that two instances racing on one
/// elicitation cannot both complete it ([U5](crate::rules#u5)). A store that fails
/// refuses the operation ([`RegistryError::Store`], [`CompletionError::Store`]); it never
/// passes for a success.
///
/// What concerns this process's connections stays in the registry itself: which
/// elicitations of each connection are outstanding (for
/// [`RegistryLimits::max_outstanding_per_connection`] and
/// [`Elicitor::disconnect`](super::Elicitor::disconnect)) and which finished here
/// most recently (for [`RegistryLimits::max_finished`]). An elicitation another
/// instance finished still counts here until this connection reaches its limit: then
/// the registry reads the store again and frees the places of those that are no
/// longer outstanding.
///
/// # Threads
///
/// The local record sits behind a mutex, held only for a lookup and an update, never
/// while the store or the operating system's random source is called. A registry is
/// shared by the connections of an agent, which are served concurrently; an
/// `&mut self` API would force every agent to wrap it in a lock of its own. A poisoned
/// lock is recovered: every update is a single insert or remove, so a panic elsewhere
/// cannot leave the record half-changed.
#[derive(Debug, Clone)]
pub struct UrlRegistry {
    store: Arc<dyn Store<UrlEntry>>,
    limits: RegistryLimits,
    local: Arc<Mutex<Local>>,
    /// Written into each new entry: where other instances reach this one.
    route: Option<Route>,
}

/// What this instance knows of its own connections.
#[derive(Debug, Default)]
struct Local {
    /// Per connection, the ids issued here that are outstanding as far as this
    /// instance knows.
    outstanding: HashMap<ConnectionId, HashSet<String>>,
    /// Ids finished here, oldest first, with their connection, for eviction.
    finished: VecDeque<(String, ConnectionId)>,
    /// For each outstanding id, the entry as this instance last wrote it: a completion
    /// tries its compare-and-swap against it first, without reading the store (one
    /// command instead of two); if another writer changed it, the swap fails and the
    /// store is read as before. Bounded with `outstanding`.
    written: HashMap<String, UrlEntry>,
}

/// 128 bits: [U4](crate::rules#u4) asks for uniqueness, [S6](crate::rules#s6) for ids nobody can guess.
const ID_BYTES: usize = 16;

/// Tries at a fresh id before giving up; a 128-bit collision means a broken
/// generator, not bad luck.
const ID_ATTEMPTS: usize = 4;

/// Tries at replacing an entry that other writers keep changing. Each change is a
/// step forward (an elicitation has at most three states in its life), so losing
/// this many races in a row means a store that does not keep what it is given.
const CAS_ATTEMPTS: usize = 8;

/// The cause of a [`StoreError`] when [`CAS_ATTEMPTS`] were lost.
const KEPT_CHANGING: &str =
    "the stored URL elicitation kept changing: every compare-and-swap was lost";

impl Default for UrlRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl UrlRegistry {
    /// An empty registry with [`RegistryLimits::DEFAULT`], in a [`MemoryStore`] of its
    /// own.
    pub fn new() -> Self {
        Self::with_limits(RegistryLimits::DEFAULT)
    }

    /// An empty registry with these limits, in a [`MemoryStore`] of its own.
    pub fn with_limits(limits: RegistryLimits) -> Self {
        Self::with_store(MemoryStore::new(), limits)
    }

    /// A registry keeping its elicitations in `store`, for instance one that the
    /// instances of an agent share. Each instance keeps its own count of its
    /// connections' outstanding elicitations and of those it finished, within
    /// `limits`; entries are read and changed in the store only.
    ///
    /// ```
    /// use elicit::agent::{MemoryStore, RegistryLimits, UrlEntry, UrlRegistry};
    ///
    /// let store: MemoryStore<UrlEntry> = MemoryStore::new();
    /// // Two instances of one agent, sharing the store.
    /// let first = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    /// let second = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
    /// assert!(store.is_empty());
    /// # let _ = (first, second);
    /// ```
    pub fn with_store(store: impl Store<UrlEntry> + 'static, limits: RegistryLimits) -> Self {
        UrlRegistry {
            store: Arc::new(store),
            limits,
            local: Arc::new(Mutex::new(Local::default())),
            route: None,
        }
    }

    /// Records in every new entry that this instance, reached through `relay`, holds
    /// its connection, so that a completion on another instance
    /// ([`RedisRelay::complete`](super::RedisRelay::complete)) is routed here (feature
    /// `redis`). Set it before the registry is cloned for the connections.
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    #[must_use]
    pub fn routed_by(mut self, relay: &super::RedisRelay) -> Self {
        self.route = Some(relay.route());
        self
    }

    /// The elicitation `elicitation_id` as the store holds it, whichever connection or
    /// instance issued it: for a tool call retried after `-32042` on another instance
    /// than the one that answered it, which checks that the elicitation is
    /// [`Completed`](UrlState::Completed) before it proceeds
    /// ([M4](crate::rules#m4)). `None` for an id the store does not hold (never
    /// issued, forgotten, or expired); an error when the store fails, never a guess.
    /// Reading changes nothing, and completing still goes through the connection or
    /// relay that owns it ([E5](crate::rules#e5)).
    pub fn entry(&self, elicitation_id: &str) -> Result<Option<UrlEntry>, StoreError> {
        self.store.get(elicitation_id)
    }

    /// The limits.
    pub fn limits(&self) -> RegistryLimits {
        self.limits
    }

    /// How many URL elicitations of this connection are outstanding, as far as this
    /// instance knows (see [Where the state is](Self#where-the-state-is)).
    pub fn outstanding(&self, connection: ConnectionId) -> usize {
        self.lock()
            .outstanding
            .get(&connection)
            .map_or(0, HashSet::len)
    }

    fn lock(&self) -> MutexGuard<'_, Local> {
        self.local.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Mints an id, records it as awaiting a response and builds the request with it.
    pub(crate) fn register<E>(
        &self,
        connection: ConnectionId,
        user: Option<UserId>,
        build: impl FnOnce(String) -> Result<CreateElicitation, E>,
    ) -> Result<PendingUrl, E>
    where
        E: From<RegistryError>,
    {
        let entry = UrlEntry {
            connection,
            user,
            state: UrlState::AwaitingResponse,
            route: self.route.clone(),
        };
        for _ in 0..ID_ATTEMPTS {
            let id = mint_id().map_err(E::from)?;
            // U4: unique among this connection's outstanding ids; here, among every id
            // the store still holds, finished ones and other instances' included.
            if !self
                .store
                .insert_new(&id, entry.clone())
                .map_err(|error| E::from(RegistryError::Store(error)))?
            {
                continue;
            }
            // Undone below by removing exactly what was inserted: nobody else knows the
            // id yet. A store that fails then keeps an entry no one can complete.
            if let Err(error) = self.count_outstanding(connection, &id) {
                let _ = self.store.compare_and_swap(&id, &entry, None);
                return Err(error.into());
            }
            self.lock().written.insert(id.clone(), entry.clone());
            return match build(id.clone()) {
                Ok(request) => Ok(PendingUrl {
                    elicitation_id: id,
                    request,
                }),
                Err(error) => {
                    self.uncount(connection, &id);
                    let _ = self.store.compare_and_swap(&id, &entry, None);
                    Err(error)
                }
            };
        }
        Err(RegistryError::RandomnessUnavailable("it kept repeating ids".to_owned()).into())
    }

    /// Counts `id` as outstanding on `connection`, within the limit. At the limit, the
    /// connection's ids are read again from the store once: those another instance
    /// finished or forgot free their places.
    fn count_outstanding(&self, connection: ConnectionId, id: &str) -> Result<(), RegistryError> {
        let limit = self.limits.max_outstanding_per_connection;
        let counted = {
            let mut local = self.lock();
            let ids = local.outstanding.entry(connection).or_default();
            if ids.len() < limit {
                ids.insert(id.to_owned());
                return Ok(());
            }
            ids.iter().cloned().collect::<Vec<_>>()
        };
        // A store that cannot answer frees nothing: the id stays counted.
        let settled: Vec<String> = counted
            .into_iter()
            .filter(|counted| match self.store.get(counted) {
                Ok(Some(entry)) => !entry.state.is_outstanding() || entry.connection != connection,
                Ok(None) => true,
                Err(_) => false,
            })
            .collect();
        let mut local = self.lock();
        for settled in &settled {
            local.written.remove(settled);
        }
        let ids = local.outstanding.entry(connection).or_default();
        for settled in &settled {
            ids.remove(settled);
        }
        if ids.len() < limit {
            ids.insert(id.to_owned());
            return Ok(());
        }
        if ids.is_empty() {
            local.outstanding.remove(&connection);
        }
        Err(RegistryError::TooManyOutstanding { limit })
    }

    /// No longer counts `id` as outstanding on `connection`.
    fn uncount(&self, connection: ConnectionId, id: &str) {
        let mut local = self.lock();
        local.written.remove(id);
        if let Some(ids) = local.outstanding.get_mut(&connection) {
            ids.remove(id);
            if ids.is_empty() {
                local.outstanding.remove(&connection);
            }
        }
    }

    /// Removes the entry of `id` if `remove` says so of what is stored. Returns whether
    /// this call removed it; a failing store removes nothing.
    fn remove_entry(&self, id: &str, remove: impl Fn(&UrlEntry) -> bool) -> bool {
        for _ in 0..CAS_ATTEMPTS {
            let current = match self.store.get(id) {
                Ok(Some(current)) if remove(&current) => current,
                _ => return false,
            };
            match self.store.compare_and_swap(id, &current, None) {
                Ok(true) => return true,
                // Changed meanwhile: look again.
                Ok(false) => {}
                Err(_) => return false,
            }
        }
        false
    }

    /// The entry of `id` as stored, if it belongs to `connection` ([E5](crate::rules#e5)).
    fn entry_of(&self, connection: ConnectionId, id: &str) -> Result<UrlEntry, CompletionError> {
        let entry = self
            .store
            .get(id)
            .map_err(CompletionError::Store)?
            .ok_or(CompletionError::Unknown)?;
        if entry.connection != connection {
            return Err(CompletionError::ForeignConnection);
        }
        Ok(entry)
    }

    /// Replaces `current` with `new` in the store. `Ok(false)`: another writer got
    /// there first, and every rule must be checked again.
    fn replace(
        &self,
        id: &str,
        current: &UrlEntry,
        new: UrlEntry,
    ) -> Result<bool, CompletionError> {
        self.store
            .compare_and_swap(id, current, Some(new))
            .map_err(CompletionError::Store)
    }

    /// See [`Elicitor::record_response`](super::Elicitor::record_response).
    pub(crate) fn record_response(
        &self,
        connection: ConnectionId,
        id: &str,
        response: &ElicitationResponse,
    ) -> Result<UrlOutcome, CompletionError> {
        for _ in 0..CAS_ATTEMPTS {
            let entry = self.entry_of(connection, id)?;
            match entry.state {
                UrlState::Declined | UrlState::Cancelled => {
                    return Err(CompletionError::Closed { state: entry.state })
                }
                // The external interaction may finish before the response arrives; the
                // response still says what the user chose, and the state stays final.
                UrlState::Completed => {
                    return UrlOutcome::from_response(response)
                        .map_err(CompletionError::UnknownAction)
                }
                UrlState::AwaitingResponse | UrlState::Consented => {}
            }
            // R5: an unknown action is not consent; nothing changes.
            let outcome =
                UrlOutcome::from_response(response).map_err(CompletionError::UnknownAction)?;
            let state = match outcome {
                // U2: consent, not completion.
                UrlOutcome::Consented => UrlState::Consented,
                UrlOutcome::Declined => UrlState::Declined,
                UrlOutcome::Cancelled => UrlState::Cancelled,
            };
            if state == entry.state {
                return Ok(outcome);
            }
            let new = entry.with_state(state);
            if self.replace(id, &entry, new.clone())? {
                if state.is_outstanding() {
                    self.remember(id, new);
                } else {
                    self.finished(connection, id);
                }
                return Ok(outcome);
            }
        }
        Err(CompletionError::Store(StoreError::new(KEPT_CHANGING)))
    }

    /// See [`Elicitor::complete`](super::Elicitor::complete).
    pub(crate) fn complete(
        &self,
        connection: ConnectionId,
        id: &str,
        user: Option<&UserId>,
    ) -> Result<CompleteElicitation, CompletionError> {
        for attempt in 0..CAS_ATTEMPTS {
            // First against what this instance last wrote; if that is stale, the swap
            // fails and the store is read.
            let cached = (attempt == 0)
                .then(|| self.lock().written.get(id).cloned())
                .flatten()
                .filter(|entry| entry.connection == connection);
            let entry = match cached {
                Some(entry) => entry,
                None => self.entry_of(connection, id)?,
            };
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
            // U5: of two writers racing here, one wins; the other reads `Completed`.
            if self.replace(id, &entry, entry.with_state(UrlState::Completed))? {
                self.finished(connection, id);
                return Ok(CompleteElicitation::new(id));
            }
        }
        Err(CompletionError::Store(StoreError::new(KEPT_CHANGING)))
    }

    /// A completion from whichever instance the external interaction's callback
    /// reached: the same rules as [`complete`](Self::complete) but the connection's
    /// ([S6](crate::rules#s6), once: [U5](crate::rules#u5)). The connection is not
    /// checked here because the notification is not sent here: it goes to the
    /// instance that holds it, returned, which sends it only on that connection
    /// ([E5](crate::rules#e5)).
    #[cfg(feature = "redis")]
    pub(crate) fn complete_routed(
        &self,
        id: &str,
        user: Option<&UserId>,
    ) -> Result<Option<Route>, CompletionError> {
        for _ in 0..CAS_ATTEMPTS {
            let entry = self
                .store
                .get(id)
                .map_err(CompletionError::Store)?
                .ok_or(CompletionError::Unknown)?;
            if entry.user.as_ref() != user {
                return Err(CompletionError::UserMismatch);
            }
            match entry.state {
                UrlState::Completed => return Err(CompletionError::AlreadyCompleted),
                UrlState::Declined | UrlState::Cancelled => {
                    return Err(CompletionError::Closed { state: entry.state })
                }
                UrlState::AwaitingResponse | UrlState::Consented => {}
            }
            if self.replace(id, &entry, entry.with_state(UrlState::Completed))? {
                // Issued here: handed over in memory, not through Redis.
                if self.connection_of(id).is_some() {
                    return Ok(None);
                }
                return Ok(entry.route);
            }
        }
        Err(CompletionError::Store(StoreError::new(KEPT_CHANGING)))
    }

    /// On the instance that holds the connection: an elicitation of one of its
    /// connections that another instance completed, once. `None` when this instance
    /// did not issue it as outstanding, already handed it over, or the store does not
    /// say `Completed` (or fails).
    #[cfg(feature = "redis")]
    pub(crate) fn take_routed(&self, id: &str) -> Option<RoutedCompletion> {
        let connection = self.connection_of(id)?;
        let entry = self.store.get(id).ok()??;
        if entry.state != UrlState::Completed || entry.connection != connection {
            return None;
        }
        // Once: only the call that takes it out of the outstanding set hands it over.
        {
            let mut local = self.lock();
            let ids = local.outstanding.get_mut(&connection)?;
            if !ids.remove(id) {
                return None;
            }
            if ids.is_empty() {
                local.outstanding.remove(&connection);
            }
        }
        self.finished(connection, id);
        Some(RoutedCompletion {
            connection,
            notification: CompleteElicitation::new(id),
        })
    }

    /// Keeps `entry` as what this instance last wrote under `id`, while outstanding.
    fn remember(&self, id: &str, entry: UrlEntry) {
        let mut local = self.lock();
        if local.written.contains_key(id) {
            local.written.insert(id.to_owned(), entry);
        }
    }

    /// The connection of this instance that has `id` outstanding.
    #[cfg(feature = "redis")]
    fn connection_of(&self, id: &str) -> Option<ConnectionId> {
        self.lock()
            .outstanding
            .iter()
            .find(|(_, ids)| ids.contains(id))
            .map(|(connection, _)| *connection)
    }

    /// See [`Elicitor::url_state`](super::Elicitor::url_state). `None` too when the
    /// store fails.
    pub(crate) fn state(&self, connection: ConnectionId, id: &str) -> Option<UrlState> {
        let entry = self.store.get(id).ok()??;
        (entry.connection == connection).then_some(entry.state)
    }

    /// See [`Elicitor::forget`](super::Elicitor::forget). `false` too when the store
    /// fails: the elicitation may still be there.
    pub(crate) fn forget(&self, connection: ConnectionId, id: &str) -> bool {
        let forgotten = self.remove_entry(id, |entry| {
            entry.connection == connection && entry.state.is_outstanding()
        });
        if forgotten {
            self.uncount(connection, id);
        }
        forgotten
    }

    /// See [`Elicitor::disconnect`](super::Elicitor::disconnect). Removes from the
    /// store the connection's elicitations this instance knows: those issued here that
    /// are outstanding, and those finished here. Best effort: what a failing store
    /// keeps stays there, bound to a connection that is gone.
    pub(crate) fn close_connection(&self, connection: ConnectionId) {
        let ids: Vec<String> = {
            let mut local = self.lock();
            let mut ids: Vec<String> = local
                .outstanding
                .remove(&connection)
                .into_iter()
                .flatten()
                .collect();
            local.finished.retain(|(id, of)| {
                let keep = *of != connection;
                if !keep {
                    ids.push(id.clone());
                }
                keep
            });
            for id in &ids {
                local.written.remove(id);
            }
            ids
        };
        for id in ids {
            self.remove_entry(&id, |entry| entry.connection == connection);
        }
    }

    /// Bookkeeping after this instance moved `id` to a final state: it no longer counts
    /// as outstanding, and it is remembered within the limit; the oldest finished
    /// entries are removed from the store.
    fn finished(&self, connection: ConnectionId, id: &str) {
        let evicted: Vec<String> = {
            let mut local = self.lock();
            local.written.remove(id);
            if let Some(ids) = local.outstanding.get_mut(&connection) {
                ids.remove(id);
                if ids.is_empty() {
                    local.outstanding.remove(&connection);
                }
            }
            local.finished.push_back((id.to_owned(), connection));
            let excess = local
                .finished
                .len()
                .saturating_sub(self.limits.max_finished);
            local.finished.drain(..excess).map(|(id, _)| id).collect()
        };
        // Only a finished entry is evicted: an outstanding one is never forgotten for
        // lack of room.
        for id in evicted {
            self.remove_entry(&id, |entry| !entry.state.is_outstanding());
        }
    }
}

/// A URL elicitation of one of this instance's connections that another instance
/// completed, routed here by a relay (feature `redis`,
/// [`RedisRelay::on_completion`](super::RedisRelay::on_completion)): send
/// [`notification`](Self::notification) on [`connection`](Self::connection) and only
/// there ([E5](crate::rules#e5), [U5](crate::rules#u5)). Handed over once per
/// elicitation; with rmcp, `PeerElicitor::send_completion` takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "the client hears of the completion only when this is sent"]
pub struct RoutedCompletion {
    connection: ConnectionId,
    notification: CompleteElicitation,
}

impl RoutedCompletion {
    /// The connection that received the request: the only one to notify.
    pub fn connection(&self) -> ConnectionId {
        self.connection
    }

    /// The elicitation's id.
    pub fn elicitation_id(&self) -> &str {
        self.notification.elicitation_id()
    }

    /// The `elicitation/complete` params to send.
    pub fn notification(&self) -> &CompleteElicitation {
        &self.notification
    }
}

/// A fresh id: 128 bits from the operating system's CSPRNG, in lowercase hex (32
/// characters, safe in any JSON string, URL or log line).
fn mint_id() -> Result<String, RegistryError> {
    random_hex::<ID_BYTES>().map_err(|e| RegistryError::RandomnessUnavailable(e.to_string()))
}

/// `N` bytes from the operating system's CSPRNG in lowercase hex (`2 * N` characters):
/// every unguessable id and token of the crate (URL elicitation ids here, the page's
/// tokens and browser bindings in `axum`).
pub(crate) fn random_hex<const N: usize>() -> Result<String, getrandom::Error> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes)?;
    let mut out = String::with_capacity(N * 2);
    for byte in bytes {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    Ok(out)
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
        let store = MemoryStore::new();
        let registry = UrlRegistry::with_store(
            store.clone(),
            RegistryLimits {
                max_outstanding_per_connection: 8,
                max_finished: 2,
            },
        );
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
                    .map_err(crate::agent::RefusedError::InvalidParams)
                })
                .unwrap();
            ids.push(pending.elicitation_id().to_owned());
        }
        for id in &ids {
            registry.complete(connection, id, None).unwrap();
        }
        assert_eq!(store.len(), 2);
        assert_eq!(registry.lock().finished.len(), 2);
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

    // covers: U5, E5
    #[test]
    fn a_completion_swaps_against_what_it_wrote_and_reads_again_when_stale() {
        let store = MemoryStore::new();
        let first = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
        let connection = ConnectionId::new();
        let register = |registry: &UrlRegistry| {
            registry
                .register(connection, None, |id| {
                    CreateElicitation::url(
                        crate::protocol::Scope::session("s"),
                        "m",
                        id,
                        "https://example.com/",
                    )
                    .map_err(crate::agent::RefusedError::InvalidParams)
                })
                .unwrap()
                .elicitation_id()
                .to_owned()
        };
        let id = register(&first);
        assert!(first.lock().written.contains_key(&id));
        let outcome = first
            .record_response(
                connection,
                &id,
                &ElicitationResponse::accept_without_content(),
            )
            .unwrap();
        assert_eq!(outcome, UrlOutcome::Consented);
        assert_eq!(
            first.lock().written[&id].state,
            UrlState::Consented,
            "the cache follows this instance's own writes"
        );
        // Another writer changes the entry behind the cache: it declines here.
        let stored = store.get(&id).unwrap().unwrap();
        assert!(store
            .compare_and_swap(&id, &stored, Some(stored.with_state(UrlState::Declined)))
            .unwrap());
        assert_eq!(
            first.complete(connection, &id, None),
            Err(CompletionError::Closed {
                state: UrlState::Declined
            })
        );
        // Finished or forgotten: nothing stays cached.
        let other = register(&first);
        first.complete(connection, &other, None).unwrap();
        let forgotten = register(&first);
        assert!(first.forget(connection, &forgotten));
        assert!(first.lock().written.keys().all(|cached| cached == &id));
        first.close_connection(connection);
        assert!(first.lock().written.is_empty());
    }

    #[test]
    fn entries_are_written_short_and_earlier_long_ones_still_read() {
        let old: UrlEntry =
            serde_json::from_str(r#"{"connection":7,"user":null,"state":"Consented"}"#).unwrap();
        assert_eq!(old.state, UrlState::Consented);
        assert_eq!(old.user, None);
        assert_eq!(old.route, None);
        // An earlier version's connection number still reads; it is written in the
        // current form.
        assert_eq!(
            serde_json::to_string(&old).unwrap(),
            r#"{"c":"AAAAAAAAAAH","s":"Consented"}"#
        );
        let back: UrlEntry =
            serde_json::from_str(r#"{"c":"AAAAAAAAAAH","s":"Consented"}"#).unwrap();
        assert_eq!(back, old);
        let short: UrlEntry = serde_json::from_str(r#"{"c":7,"s":"Consented"}"#).unwrap();
        assert_eq!(short, old);
    }

    // covers: U4, D12
    #[test]
    fn a_request_that_cannot_be_built_leaves_nothing() {
        let store = MemoryStore::new();
        let registry = UrlRegistry::with_store(store.clone(), RegistryLimits::DEFAULT);
        let connection = ConnectionId::new();
        let mut seen = None;
        let error = registry
            .register(connection, None, |id| {
                // Recorded before the request is built: the id is taken.
                assert!(store.get(&id).unwrap().is_some());
                seen = Some(id);
                Err(crate::agent::RefusedError::NullRequestId)
            })
            .unwrap_err();
        assert_eq!(error, crate::agent::RefusedError::NullRequestId);
        assert!(seen.is_some());
        assert!(store.is_empty());
        assert_eq!(registry.outstanding(connection), 0);
        assert!(registry.lock().outstanding.is_empty());
    }
}
